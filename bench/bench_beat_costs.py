"""Benchmark: what each beat costs to draw and encode at 1080p30, in CPU seconds, each in a
fresh process from a cold text cache (as a render's worker draws it). The film hands its
beats to its workers most costly first (``facts.BeatFacts.cost``): ordered by their
seconds of video instead, a beat whose frames are dense (the mask's grid, the project
beat's matrices) started late and left one worker drawing alone at the end.

    .venv/bin/python bench/bench_beat_costs.py
    .venv/bin/python bench/bench_beat_costs.py --section    # the section, from the JSON

Writes bench/results/beat-costs.json and the "beat-costs" section of bench/RESULTS.md;
the figures in ``facts.BEATS`` are these, rounded. Slow (about four minutes on 2 cores):
never the tests.
"""
from __future__ import annotations

import json
import multiprocessing
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "beat-costs.json"
SENTENCE = "The cat ate the fish"
VERSUS = "The dog ate the fish"


def _traces():
    """The default film's trace, and the same sentence paired with VERSUS and its heads
    measured (for the versus and influence beats only: a pair moves the focus)."""
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.attention_core.ablation import with_influence
    from attention_explainer.attention_core.api import TraceRequest
    from attention_explainer.attention_core.compare import compare_sentences, paired

    request = TraceRequest(sentence=SENTENCE)
    pair = compare_sentences(request, VERSUS)
    return compute_trace(SENTENCE), paired(with_influence(pair.a, request), pair.b)


def _draw(beat: str, trace) -> tuple[float, float]:
    """(CPU seconds, seconds of video) of ``beat`` drawn alone, handing on its stage."""
    from attention_explainer.scenes.pipeline.plan import plan_film
    from attention_explainer.scenes.pipeline.segments import render_segment

    job, = plan_film(trace, [beat], width=1920, height=1080, fps=30)
    job = type(job)(**{**job.__dict__, "hands_off": beat != "update"})
    with tempfile.TemporaryDirectory() as folder:
        start = time.process_time()
        segment = render_segment(job, trace, Path(folder) / "segment")
        return time.process_time() - start, segment.duration


def main() -> None:
    from attention_explainer.facts import BEATS
    import attention_explainer.scenes.film.registry  # noqa: F401 - imported once, forked

    plain, extended = _traces()
    costs = {}
    context = multiprocessing.get_context("fork")
    for facts in BEATS:
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            cpu, video = pool.submit(_draw, facts.name,
                                       extended if facts.needs else plain).result()
        costs[facts.name] = {"cpu_seconds": round(cpu, 1), "video_seconds": round(video, 1)}
        print(f"{facts.name:10s} {cpu:6.1f} s CPU for {video:5.1f} s of video", flush=True)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"machine": machine(), "sentence": SENTENCE,
                               "beats": costs}, indent=1) + "\n", encoding="utf-8")
    write_section()


def write_section() -> None:
    """The "beat-costs" section of bench/RESULTS.md, from bench/results/beat-costs.json."""
    found = json.loads(OUT.read_text(encoding="utf-8"))
    rows = "\n".join(f"| {name} | {c['cpu_seconds']:.1f} | {c['video_seconds']:.1f} | "
                     f"{c['cpu_seconds'] / c['video_seconds']:.2f} |"
                     for name, c in found["beats"].items())
    update_section("beat-costs", f"""## beat costs: CPU seconds to draw each beat at 1080p30

Machine: {found["machine"]}. `bench/bench_beat_costs.py`: "{found["sentence"]}", each beat
alone in a fresh process from a cold text cache. `facts.BEATS` keeps these as each beat's
`cost`, the order a render hands beats to its workers (most costly first).

| beat | CPU s | video s | CPU per video second |
| --- | ---: | ---: | ---: |
{rows}
""")


if __name__ == "__main__":
    write_section() if sys.argv[1:] == ["--section"] else main()
