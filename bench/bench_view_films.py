"""Benchmark: the translation and writing films at 1080p30 against the main film, in one run
(absolute times drift between hours on this machine; the ratios to each film's own length,
measured side by side, do not drift as much).

Each film is rendered from a cold beat cache (its own XDG_CACHE_HOME) by the command line,
on every core; the figure is wall time / video length (issue 59's goal: <= 0.35x for the
translation and writing films, beside the main film's). Then `attention-explainer --help`,
the fastest of five (goal: <= 0.3 s). Writes the "short-films" section of bench/RESULTS.md.
About five minutes on 2 cores: `.venv/bin/python bench/bench_view_films.py`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLI = str(ROOT / ".venv" / "bin" / "attention-explainer")
BOAT = ("The old man saw the boat on the river", "Le vieil homme a vu le bateau sur la rivière")


def films(gpt2: Path) -> dict[str, list[str]]:
    """The films measured, by the command a reader runs (the row's label)."""
    return {
        '`render "The cat ate the fish"` (the main film)': ["render", "The cat ate the fish"],
        f'`translate "{BOAT[0]}" --target "{BOAT[1]}" --focus bateau` (scratch)':
            ["translate", BOAT[0], "--target", BOAT[1], "--focus", "bateau"],
        '`generate "The old man saw the boat on" --tokens 4` (a tiny random GPT-2)':
            ["generate", "The old man saw the boat on", "--model", str(gpt2), "--tokens", "4"],
    }


def rendered(argv: list[str], work: Path) -> tuple[float, float]:
    """(wall seconds, video seconds) of one cold render at 1080p30."""
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"))
    start = time.perf_counter()
    done = subprocess.run([CLI, *argv, "--resolution", "1080p", "--fps", "30",
                           "-o", str(work / "film.mp4"), "--force", "--json"],
                          capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    return wall, json.loads(done.stdout)["duration"]


def help_seconds() -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([CLI, "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests import tiny_models  # noqa: E402 - the test suite's tiny models, built here

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        gpt2 = tiny_models.build("gpt2", Path(folder) / "gpt2")
        for label, argv in films(gpt2).items():
            work = Path(tempfile.mkdtemp(dir=folder))
            wall, video = rendered(argv, work)
            goal = "" if argv[0] == "render" else ("yes" if wall / video <= 0.35 else "**no**")
            rows.append(f"| {label} | {video:.1f} s | {wall:.1f} s | {wall / video:.2f}x | "
                        f"{'' if not goal else '0.35x: ' + goal} |")
            print(rows[-1], flush=True)
    seconds = help_seconds()
    body = "\n".join([
        "## the translation and writing films at 1080p30, beside the main film",
        "",
        f"Machine: {machine()}. `bench/bench_view_films.py`: each film by the command line, "
        "cold beat cache, every core, one run each in the same hour; every film's beats "
        "drawn in parallel on the same pipeline (issue 59).",
        "",
        "| film | length | wall | wall / length | goal (issue 59) |",
        "| --- | ---: | ---: | ---: | ---: |",
        *rows,
        "",
        f"`attention-explainer --help`: {seconds:.2f} s, the fastest of five (goal: 0.3 s: "
        f"{'yes' if seconds <= 0.3 else '**no**'}).",
    ])
    update_section("short-films", body)
    print(body)


if __name__ == "__main__":
    main()
