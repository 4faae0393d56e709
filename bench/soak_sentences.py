"""Every ordinary sentence renders (issue 58): a few hundred plain sentences in many languages
and scripts, each through the film's every default beat as a user would draw it
(`attention-explainer frames SENTENCE`: each beat built and played whole, its animations
included, and its key frame drawn, at a tiny size), in parallel over the cores: worker
processes each run the command line on many sentences, and every failure is run again
alone, in a fresh process, to say whether it repeats there.

    python bench/soak_sentences.py                      # 300 sentences, seed 0
    python bench/soak_sentences.py --count 40 --seed 3 --jobs 2 --report /tmp/soak.json

The sentences are made, deterministically from ``--seed``, from subject-verb-object
patterns with modifiers and a place, filled from the small word lists of
bench/sentence_words.json, the languages taken in turn, after the sentences reported to
fail (kept there too). :func:`sentences` is prefix-stable: the first N of a longer sweep are
the sweep of N (tests/test_sentence_sweep.py keeps the reported ones and the first 20
made). A failure is reported with its sentence, the command that reproduces
it and its one-line error; "crash" is an unexpected failure (exit 1), "font" a refusal
naming a font or glyph (a script the installed fonts cannot draw), "refused" any other
refusal (exit 2). With --report, writes the JSON report there and its section of
bench/RESULTS.md (--from-report FILE writes the section again from a saved report); exit 1
if any sentence failed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = Path(__file__).with_name("sentence_words.json")
CLI = [sys.executable, "-m", "attention_explainer.cli"]
DEFAULT_COUNT = 300
RESOLUTION = "96x54"          # the beats are built whole at any size: the smallest is cheapest
FPS = 5
TIMEOUT_S = 600               # one sentence's every beat, far beyond what one takes
# a worker process is replaced after this many sentences: what one leaves in a process
# (a cache, a setting) reaches few others, and a worker's start is paid seldom
SENTENCES_PER_WORKER = 20
FONT_REFUSAL = re.compile(r"font|glyph", re.I)


def word_lists() -> dict:
    """Per language: how its slots join, how a sentence may end, its patterns."""
    data = json.loads(WORDS.read_text(encoding="utf-8"))
    return {name: spec for name, spec in data.items() if not name.startswith("_")}


def reported() -> list[tuple[str, str]]:
    """The sentences reported to fail, as (language, sentence): swept before the made ones."""
    data = json.loads(WORDS.read_text(encoding="utf-8"))
    return [(entry["language"], entry["sentence"]) for entry in data["_reported"]]


def make_sentence(rng: random.Random, spec: dict) -> str:
    """One sentence of a language: a pattern, each slot filled (an optional one about half
    the time), joined, closed, its first letter a capital where the script has them."""
    pattern = rng.choice(spec["patterns"])
    parts = [rng.choice(pattern[slot]) for slot in pattern["order"]
             if slot not in pattern["optional"] or rng.random() < 0.5]
    text = spec["join"].join(parts) + rng.choice(spec["end"])
    return text[:1].upper() + text[1:]


def sentences(count: int = DEFAULT_COUNT, seed: int = 0) -> list[tuple[str, str]]:
    """``count`` distinct (language, sentence) pairs: the reported ones, then sentences made
    from the word lists, the languages in turn. Prefix-stable: ``sentences(n, seed)`` is
    the start of ``sentences(m, seed)`` for any m > n."""
    rng = random.Random(seed)
    languages = word_lists()
    names = list(languages)
    chosen = reported()[:count]
    seen = {sentence for _, sentence in chosen}
    for turn in range(count - len(chosen)):
        language = names[turn % len(names)]
        # a few draws for one not chosen yet (each pattern has thousands: one nearly always)
        for _ in range(100):
            sentence = make_sentence(rng, languages[language])
            if sentence not in seen:
                break
        seen.add(sentence)
        chosen.append((language, sentence))
    return chosen


def frames_args(sentence: str, out: Path, beats: str) -> list[str]:
    """The `frames` command's arguments for ``sentence``: every beat of ``beats`` built and
    played whole, its key frame drawn into ``out``; one beat at a time (the sweep runs
    sentences side by side)."""
    return ["frames", sentence, "--beat", beats, "--resolution", RESOLUTION, "--fps", str(FPS),
            "--out", str(out), "--jobs", "1", "--force"]


class TookTooLong(Exception):
    """A sentence still drawing ``TIMEOUT_S`` after it began."""


def kind_of(returncode: int | None, error: str) -> str:
    if returncode == 0:
        return "ok"
    if returncode is None or TookTooLong.__name__ in error:
        return "timeout"
    if returncode == 2:
        return "font" if FONT_REFUSAL.search(error) else "refused"
    return "crash"


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def cli_in_this_process(args: list[str]) -> tuple[int, str]:
    """The CLI on ``args`` in this process, as its console entry point runs it (one line
    for an error, exit 2 for a refusal, 1 for an unexpected failure): the exit code and
    the last line written on stderr."""
    import contextlib
    import io
    import signal

    from attention_explainer.cli import main

    def took_too_long(signum, frame):
        raise TookTooLong(f"no end after {TIMEOUT_S} s")
    signal.signal(signal.SIGALRM, took_too_long)
    signal.alarm(TIMEOUT_S)
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        signal.alarm(0)
    return code, last_line(errors.getvalue())


def cli_in_a_fresh_process(args: list[str]) -> tuple[int | None, str]:
    """The CLI on ``args`` in a process of its own, as a user runs it."""
    try:
        proc = subprocess.run(CLI + args, cwd=ROOT, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"{TookTooLong.__name__}: no end after {TIMEOUT_S} s"
    return proc.returncode, last_line(proc.stderr)


def render_one(task: tuple[int, str, str, Path, str]) -> dict:
    """One sentence's every beat, in this worker process (one process per sentence would
    spend half its time starting: importing manim and torch, loading the model):
    ``task`` is (number, language, sentence, work folder, beats)."""
    number, language, sentence, work, beats = task
    out = work / f"{number:04d}"
    args = frames_args(sentence, out, beats)
    started = time.monotonic()
    used = time.process_time()
    returncode, error = cli_in_this_process(args)
    shutil.rmtree(out, ignore_errors=True)        # the stills themselves are not the point
    # the CPU time too: on a busy machine the wall time says more about the others
    result = {"number": number, "language": language, "sentence": sentence,
              "kind": kind_of(returncode, error), "seconds": round(time.monotonic() - started, 2),
              "cpu_s": round(time.process_time() - used, 2), "load": os.getloadavg()[0]}
    if result["kind"] != "ok":
        shown = [a if a != str(out) else "OUT" for a in args]
        result.update(command=shlex.join(["attention-explainer", *shown]),
                      returncode=returncode, error=error)
    return result


def again_alone(failure: dict, work: Path, beats: str) -> dict:
    """A failure run again in a fresh process: whether it repeats there (one that does not
    came from what an earlier sentence left in its worker, or from the tree changing
    under the sweep)."""
    out = work / f"again-{failure['number']:04d}"
    returncode, error = cli_in_a_fresh_process(frames_args(failure["sentence"], out, beats))
    shutil.rmtree(out, ignore_errors=True)
    return dict(failure, repeated=kind_of(returncode, error) == failure["kind"],
                alone={"returncode": returncode, "error": error})


def _use_cache(folder: str) -> None:
    os.environ["XDG_CACHE_HOME"] = folder


def say(result: dict) -> None:
    print(f"{result['number']:4d} {result['kind']:8s} {result['seconds']:6.1f} s  "
          f"{result['sentence']}" + (f"\n       {result['command']}\n       {result['error']}"
                                     if result["kind"] != "ok" else ""), flush=True)


def sweep(count: int, seed: int, jobs: int, beats: str) -> dict:
    from results import machine     # bench/, beside this script (the tests import the rest)

    made = sentences(count, seed)
    work = Path(tempfile.mkdtemp(prefix="soak-sentences-"))
    # a cache of the sweep's own, shared by its sentences: the user's is left alone
    cache = str(work / "xdg-cache")
    _use_cache(cache)
    started = time.monotonic()
    results = []
    try:
        # spawn: each worker a clean interpreter, replaced after a few sentences (by
        # multiprocessing's pool: concurrent.futures' replacement hangs on Python 3.11)
        with get_context("spawn").Pool(jobs, initializer=_use_cache, initargs=(cache,),
                                       maxtasksperchild=SENTENCES_PER_WORKER) as pool:
            tasks = [(n, language, sentence, work, beats)
                     for n, (language, sentence) in enumerate(made)]
            for result in pool.imap_unordered(render_one, tasks):
                results.append(result)
                say(result)
        failures = [again_alone(r, work, beats)
                    for r in sorted(results, key=lambda r: r["number"]) if r["kind"] != "ok"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results.sort(key=lambda r: r["number"])
    kinds = Counter(r["kind"] for r in results)
    return {"count": count, "seed": seed, "jobs": jobs, "beats": beats,
            "resolution": RESOLUTION, "fps": FPS, "machine": machine(),
            "wall_s": round(time.monotonic() - started, 1),
            "median_sentence_s": statistics.median(r["seconds"] for r in results),
            "median_sentence_cpu_s": statistics.median(r["cpu_s"] for r in results),
            "median_load": statistics.median(r["load"] for r in results),
            "languages": dict(Counter(r["language"] for r in results)),
            "outcomes": {kind: kinds[kind] for kind in ("ok", "crash", "font", "refused",
                                                          "timeout")},
            "failures": failures,
            "sentences": [{k: r[k] for k in ("number", "language", "sentence", "kind",
                                             "seconds", "cpu_s")} for r in results]}


def record(report: dict) -> None:
    """The report's section of bench/RESULTS.md."""
    from results import update_section

    outcomes = report["outcomes"]
    failed = len(report["failures"])
    by_language = Counter(f["language"] for f in report["failures"])
    rows = "\n".join(f"| {f['language']} | {f['kind']} | {'yes' if f['repeated'] else 'no'} | "
                     f"{f['sentence']} | {f['error']} |" for f in report["failures"][:20])
    failures = (f"\n\n| language | kind | again alone | sentence | error |\n"
                f"| --- | --- | --- | --- | --- |\n{rows}"
                + (f"\n\n... and {failed - 20} more (the report lists them all)"
                   if failed > 20 else "")) if failed else ""
    languages = ", ".join(f"{n} {name}" for name, n in report["languages"].items())
    update_section("soak-sentences", f"""
## every ordinary sentence renders: {report['count']} sentences, {len(report['languages'])} languages

Machine: {report['machine']}, shared (median load average {report['median_load']:.1f}: a
sentence's CPU time says more than its wall time).
`python bench/soak_sentences.py --count {report['count']} --seed {report['seed']} --jobs {report['jobs']}`:
each sentence through
`attention-explainer frames SENTENCE --beat {report['beats']} --resolution {report['resolution']} --fps {report['fps']}`
(every beat built and played whole, its key frame drawn), bundled MiniLM, {report['jobs']}
sentences at a time. Sentences: {languages}. Report: bench/results/soak-sentences.json.

| sentences | rendered | crash (exit 1) | font refusal | other refusal | timeout | wall | median sentence: wall, CPU |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| {report['count']} | {outcomes['ok']} | {outcomes['crash']} | {outcomes['font']} | {outcomes['refused']} | {outcomes['timeout']} | {report['wall_s'] / 60:.1f} min | {report['median_sentence_s']:.1f} s, {report['median_sentence_cpu_s']:.1f} s |
{"" if not failed else chr(10) + "Failed, by language: " + ", ".join(f"{k} {v}" for k, v in by_language.items()) + "."}{failures}
""")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="sentences rendered at once (default: the cores)")
    parser.add_argument("--beat", default="all",
                        help="the beats, as `frames --beat` takes them (default: the film's)")
    parser.add_argument("--report", type=Path, help="write the JSON report here")
    parser.add_argument("--from-report", type=Path,
                        help="write the RESULTS.md section of a saved report, run nothing")
    args = parser.parse_args()
    if args.from_report:
        record(json.loads(args.from_report.read_text(encoding="utf-8")))
        return 0
    report = sweep(args.count, args.seed, args.jobs, args.beat)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n",
                               encoding="utf-8")
        record(report)
    print(f"{report['count']} sentences in {report['wall_s']} s: {report['outcomes']}")
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
