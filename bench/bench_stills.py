"""Benchmark: the lecture-repo check, every beat's key frame at 320x180, against rendering the
whole film at that size, measured side by side in one run (absolute times drift between
machines).

Each round, alternating, from a fresh (cold) cache: `frames --beat all --at key
--resolution 320x180`, the same again (warm: texts and formulas kept), and `render
--resolution 320x180` of the same film (the baseline: what a still used to cost). The goal
is <= 10 s cold on 2 cores (issue 44); the ratio to the film says how much of the film a still
still costs. And `narration-script` of the default film at 1080p from a cold cache, which
times every beat without drawing a frame (goal <= 15 s on 2 cores, issue 36). Writes the
"stills" section of bench/RESULTS.md: `make bench`.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_speed import CLI, timed  # noqa: E402
from results import machine, update_section  # noqa: E402

ROUNDS = 2


def main() -> None:
    cold, warm, film, script = [], [], [], []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for n in range(ROUNDS):
            env = dict(os.environ, XDG_CACHE_HOME=str(tmp / f"cache-stills-{n}"))
            stills = [CLI + ["frames", "--beat", "all", "--at", "key", "--resolution",
                             "320x180", "--out", str(tmp / f"frames-{n}-{k}")] for k in range(2)]
            cold.append(timed(stills[0], env, tmp))
            count = len(list((tmp / f"frames-{n}-0").glob("*.png")))
            warm.append(timed(stills[1], env, tmp))
            env = dict(os.environ, XDG_CACHE_HOME=str(tmp / f"cache-script-{n}"))
            script.append(timed(CLI + ["narration-script"], env, tmp))
            env = dict(os.environ, XDG_CACHE_HOME=str(tmp / f"cache-film-{n}"))
            film.append(timed(CLI + ["render", "--resolution", "320x180", "--quiet",
                                     "-o", str(tmp / f"film-{n}.mp4")], env, tmp))
            print(f"round {n + 1}: stills {cold[-1]:.1f} s cold, {warm[-1]:.1f} s warm; "
                  f"narration-script {script[-1]:.1f} s; film {film[-1]:.1f} s", flush=True)
    c, w, f, n = (statistics.median(x) for x in (cold, warm, film, script))
    lines = [
        "## stills: the lecture-repo check",
        "",
        f"Machine: {machine()}. `frames --beat all --at key --resolution 320x180` ({count} "
        f"key frames, default `--jobs` = {os.cpu_count()}), median of {ROUNDS} rounds "
        "alternating with the baseline, `render --resolution 320x180` of the same film; "
        "each from a cold cache unless said.",
        "",
        "| run | wall | / film |",
        "| --- | ---: | ---: |",
        f"| {count} stills, cold cache (goal <= 10 s: {'met' if c <= 10 else '**not met**'}) "
        f"| **{c:.1f} s** | {c / f:.2f}x |",
        f"| {count} stills, warm (texts and formulas kept) | {w:.1f} s | {w / f:.2f}x |",
        f"| `narration-script` at 1080p, cold cache, every beat timed without a frame "
        f"(goal <= 15 s: {'met' if n <= 15 else '**not met**'}) | **{n:.1f} s** | "
        f"{n / f:.2f}x |",
        f"| the whole film (baseline) | {f:.1f} s | 1.00x |",
    ]
    update_section("stills", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
