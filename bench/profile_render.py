"""Where a render's time goes: cProfile of one beat (sparks: arcs, a grid, numbers) drawn
and encoded at 1080p30 in one process, from a cold text cache. Writes the top of the
cumulative and the self-time tables to bench/profile-1080p.txt (kept in the repository, so
that a change in where the time goes shows in review). `python bench/profile_render.py`.
"""
from __future__ import annotations

import cProfile
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine  # noqa: E402

OUT = Path(__file__).resolve().parent / "profile-1080p.txt"


def main(beat: str = "sparks") -> None:
    from attention_explainer.attention_core.trace import DEFAULT_TRACE, AttentionTrace
    from attention_explainer.scenes.pipeline.plan import plan_film
    from attention_explainer.scenes.pipeline.segments import render_segment

    trace = AttentionTrace.load(DEFAULT_TRACE)
    job, = plan_film(trace, beat, width=1920, height=1080, fps=30)
    profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        profile.enable()
        segment = render_segment(job, trace, Path(tmp) / "segment")
        profile.disable()
        wall = time.perf_counter() - start
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(30)
    root = str(Path(__file__).resolve().parent.parent)
    body = text.getvalue().replace(root, ".").replace(sys.prefix, "<venv>")
    OUT.write_text(f"# cProfile: the {beat} beat at 1920x1080 30 fps, {segment.duration:.1f} s "
                   f"of video, {wall:.1f} s wall under the profiler\n# Machine: {machine()}\n"
                   + body, encoding="utf-8")
    print(OUT)


if __name__ == "__main__":
    main(*sys.argv[1:])
