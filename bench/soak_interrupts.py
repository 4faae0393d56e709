"""Ctrl-C at random moments of a command, as a terminal sends it (SIGINT to the whole
process group), N times; after each: exit 130, one line on stderr, no C++ abort, no process
of the group left, no partial set in the output folder. Then the command is run once more
without an interrupt and must finish what is left (exit 0, every output complete).

    python bench/soak_interrupts.py batch --times 20 --seed 1
    python bench/soak_interrupts.py pack --times 20
    python bench/soak_interrupts.py render --times 20 --signal TERM
    python bench/soak_interrupts.py model --times 20      # loading a local model folder
    python bench/soak_interrupts.py narrated --times 20   # a render with recordings

Writes a JSON report (--report) and its section of bench/RESULTS.md (--from-report FILE
writes the section again from a saved report); exit 1 if any try broke a promise. Not a test (20 runs of a
course take minutes), but the suite runs the same check a few times (tests/test_interrupts).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from results import machine, update_section  # noqa: E402
from tests.interrupts import (CLI, KINDS, command_for, interrupt_check,  # noqa: E402
                              partial_files)


def record(report: dict) -> None:
    """The report's section of bench/RESULTS.md."""
    kind, sig = report["command"], report["signal"]
    moments = sorted(t["after"] for t in report["tries"])
    first = sum(t["finished_first"] for t in report["tries"])
    update_section(f"soak-{kind}-{sig.lower()}", f"""
## interrupts: SIG{sig} to `{kind}` at {report['times']} random moments

Machine: {report['machine']}. `python bench/soak_interrupts.py {kind} --times
{report['times']} --seed {report['seed']} --signal {sig}`: the signal to the whole process group
(as a terminal's Ctrl-C), at moments drawn from 0.2 s to one uninterrupted run's length
({report['uninterrupted_s']} s; drawn {moments[0]:.2f}–{moments[-1]:.2f} s), a fresh beat cache each try.

| tries | promise broken (exit ≠ 130, not one line, C++ abort, process left, partial set) | finished before the signal | the rerun finishes the rest |
| ---: | ---: | ---: | --- |
| {report['times']} | {report['broken']} | {first} | {'yes' if report['rerun_finished'] else 'NO'} |
""")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--times", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--signal", choices=["INT", "TERM"], default="INT")
    parser.add_argument("--report", type=Path)
    parser.add_argument("--from-report", type=Path,
                        help="write the RESULTS.md section of a saved report, run nothing")
    args = parser.parse_args()
    if args.from_report:
        record(json.loads(args.from_report.read_text(encoding="utf-8")))
        return 0
    rng = random.Random(args.seed)
    sig = getattr(signal, f"SIG{args.signal}")
    work = Path(tempfile.mkdtemp(prefix=f"soak-{args.kind}-"))
    argv, out = command_for(args.kind, work)
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "xdg-cache"))

    # how long an uninterrupted run takes on this machine: the moments are drawn within it
    started = time.monotonic()
    subprocess.run(CLI + argv, cwd=ROOT, env=env, capture_output=True, check=True)
    full = time.monotonic() - started
    subprocess.run(["rm", "-rf", str(out), str(work / "cache"), str(work / "xdg-cache")],
                   check=True)

    tries, broken = [], 0
    for n in range(args.times):
        after = rng.uniform(0.2, full)
        # a fresh beat cache each time: every try does the whole work, so every moment
        # drawn falls inside it (a course keeps what earlier tries finished in --out)
        subprocess.run(["rm", "-rf", str(work / "cache"), str(work / "xdg-cache")], check=True)
        result = interrupt_check(argv, out, after=after, sig=sig, env=env,
                                 from_our_first_line=False)   # as measured in RESULTS.md
        result["try"] = n
        tries.append(result)
        broken += bool(result["problems"])
        if result["finished_first"]:      # done before the signal: start the next afresh
            subprocess.run(["rm", "-rf", str(out)], check=True)
        print(f"{n:2d}  after {after:5.2f} s  exit {result['returncode']}  "
              f"{'; '.join(result['problems']) or 'ok'}", flush=True)
    # the rerun finishes the rest: a course renders what the interrupts left undone; a
    # render or a pack, interrupted, left nothing of its set, so it writes the whole set
    rerun = subprocess.run(CLI + argv, cwd=ROOT, env=env, capture_output=True, text=True)
    finished = rerun.returncode == 0 and not partial_files(out)
    print(f"rerun: exit {rerun.returncode} {rerun.stderr.strip()[-300:]}")
    report = {"command": args.kind, "signal": args.signal, "times": args.times,
              "seed": args.seed, "uninterrupted_s": round(full, 2), "broken": broken,
              "rerun_finished": finished, "tries": tries,
              "machine": machine()}
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    record(report)
    return 0 if broken == 0 and finished else 1


if __name__ == "__main__":
    sys.exit(main())
