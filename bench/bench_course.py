"""Benchmark: a course on Dask with 1 and 2 local workers (the speed-up, goal >= 1.7x), and
a scale-out on paper from the per-task costs measured in the same run.

The example course (examples/course.toml: the Alammar pair, the default sentence, a
Chinese one) at a small size (320x180, 10 fps, so that the run takes minutes), each run
from a cold beat cache. The paper table then prices 100 explainers x 2 resolutions
(1080p30 + 720p30, all beats, packs) on 1, 8 and 64 workers from: the measured per-beat
cost scaled to each size by the per-frame model of `estimate.COST_PER_FRAME`, the measured
trace and join/pack costs, and the output folder's write rate. Writes the "course" section
of bench/RESULTS.md.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "attention_explainer.cli"]


def small_course(tmp: Path) -> tuple[Path, int]:
    """The example course's explainers at 320x180@10, one resolution, packs as written."""
    course = tomllib.loads((ROOT / "examples" / "course.toml").read_text(encoding="utf-8"))
    lines = ['[defaults]', 'resolution = "320x180"', 'fps = 10', 'pack = true']
    for entry in course["explainer"]:
        lines.append("[[explainer]]")
        for key, value in entry.items():
            if key not in ("resolution", "fps"):      # TOML's basic strings are JSON's
                lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    path = tmp / "course.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, len(course["explainer"])


def run_course(course: Path, out: Path, cache: Path, workers: int) -> float:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    start = time.perf_counter()
    done = subprocess.run(CLI + ["batch", str(course), "--out", str(out), "--jobs",
                                 str(workers), "--quiet"], env=env, capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(done.stdout + done.stderr[-2000:])
    return time.perf_counter() - start


def trace_seconds() -> float:
    """Seconds to compute one trace with the model loaded (a worker's steady state)."""
    code = ("import time; from attention_explainer.attention_core import compute_trace;"
            "compute_trace('warm up'); t = time.perf_counter();"
            "[compute_trace(s) for s in ('The cat ate the fish', 'A dog chased the ball', "
            "'The animal didn\\'t cross the street because it was too tired')];"
            "print((time.perf_counter() - t) / 3)")
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.strip())


# assumed, not measured here: a 1080p pack holds its film three times (MP4, clips, the
# slides' movies; ~15 MB each by the "speed" section) and a shared NFS-class folder
FILM_BYTES = 45e6
DISK_RATE = 200e6
PAPER_EXPLAINERS = 100            # the course priced on paper, at 1080p30 and 720p30


@dataclass(frozen=True)
class Measured:
    """The course's runs (seconds), its outputs' size and one trace's cost."""
    explainers: int
    one: float                    # 1 worker, cold beat cache
    two: float                    # 2 workers, cold beat cache
    again: float                  # 2 workers, warm cache, new output folder
    pack_bytes: int
    trace: float


def measure() -> Measured:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        course, explainers = small_course(tmp)
        one = run_course(course, tmp / "one", tmp / "cache-one", 1)
        print(f"1 worker: {one:.1f} s", flush=True)
        two = run_course(course, tmp / "two", tmp / "cache-two", 2)
        print(f"2 workers: {two:.1f} s", flush=True)
        again = run_course(course, tmp / "again", tmp / "cache-two", 2)
        print(f"2 workers, warm cache, new folder: {again:.1f} s", flush=True)
        pack_bytes = sum(p.stat().st_size for p in (tmp / "two").rglob("*") if p.is_file())
    trace = trace_seconds()
    print(f"trace: {trace:.2f} s", flush=True)
    return Measured(explainers, one, two, again, pack_bytes, trace)


def on_paper(m: Measured) -> tuple[float, float, list[tuple]]:
    """(scale, join cost, rows): this machine against `estimate.COST_PER_FRAME`'s model, the
    join and pack per film, and (workers, compute, critical path, writing, estimate,
    bottleneck) for 1, 8 and 64 workers."""
    from attention_explainer.scenes.pipeline.estimate import COST_PER_FRAME, beat_weight
    from attention_explainer.facts import FILM_BEATS

    def per_frame(width, height):
        return COST_PER_FRAME[0] + COST_PER_FRAME[1] * width * height

    # measured: cost per beat-second of video at 320x180@10 on one worker, joins included
    seconds = sum(beat_weight(b) for b in FILM_BEATS)
    scale = m.one / (m.explainers * seconds * 10) / per_frame(320, 180)
    n_films = PAPER_EXPLAINERS * 2

    def film_cost(width, height, fps=30):
        return seconds * fps * scale * per_frame(width, height)

    beat_work = PAPER_EXPLAINERS * (film_cost(1920, 1080) + film_cost(1280, 720))
    longest_beat = max(beat_weight(b) for b in FILM_BEATS) * 30 * scale * per_frame(1920, 1080)
    # measured: the warm run draws nothing, so its time per film is the join and pack
    # (with the cluster's start-up shared among the films: an overestimate at this size)
    join_cost = m.again / m.explainers
    rows = []
    for workers in (1, 8, 64):
        compute = (beat_work + PAPER_EXPLAINERS * m.trace + n_films * join_cost) / workers
        critical = m.trace + longest_beat + join_cost
        writing = n_films * FILM_BYTES / DISK_RATE
        total = max(compute, critical, writing)
        bottleneck = ("drawing beats" if total == compute else
                      "one film's critical path" if total == critical else
                      "the shared output folder")
        if workers == 64 and compute < 5 * writing:
            bottleneck += " (the output folder's writes come within 5x)"
        rows.append((workers, compute, critical, writing, total, bottleneck))
    return scale, join_cost, rows


def report(m: Measured, scale: float, join_cost: float, rows: list[tuple]) -> list[str]:
    """The "course" section of bench/RESULTS.md."""
    lines = [
        "## course: Dask workers, measured and on paper",
        "",
        f"Machine: {machine()}. The example course (examples/course.toml, {m.explainers} "
        "explainers, all beats, packs) at 320x180 10 fps, each run from a cold beat cache, "
        "`attention-explainer batch --jobs N` (a LocalCluster).",
        "",
        "| run | wall |",
        "| --- | ---: |",
        f"| 1 worker | {m.one:.1f} s |",
        f"| 2 workers | {m.two:.1f} s |",
        f"| 2 workers, warm cache, new output folder | {m.again:.1f} s |",
        "",
        f"**Speed-up with 2 workers: {m.one / m.two:.2f}x** (goal >= 1.7x). The course's "
        f"outputs: {m.pack_bytes / 1e6:.1f} MB.",
        "",
        f"On paper: {PAPER_EXPLAINERS} explainers x 2 resolutions (1080p30 and 720p30, all "
        f"nine beats, packs). Measured: a trace {m.trace:.2f} s (model loaded); a beat "
        f"{scale:.2f}x the per-frame model of `estimate.COST_PER_FRAME` (from the 1-worker "
        f"run); a join and pack {join_cost:.1f} s per film (the warm run). Assumed: "
        f"{FILM_BYTES / 1e6:.0f} MB written per film at {DISK_RATE / 1e6:.0f} MB/s into a "
        "shared output folder.",
        "",
        "| workers | compute / workers | one film's critical path | writing outputs | "
        "estimate | bottleneck |",
        "| ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for workers, compute, critical, writing, total, bottleneck in rows:
        lines.append(f"| {workers} | {compute / 3600:.2f} h | {critical:.0f} s | "
                     f"{writing / 60:.1f} min | **{total / 3600:.2f} h** | {bottleneck} |")
    lines += ["", "Traces are computed once per distinct sentence and are a small share at "
              "every scale; the longest beat bounds one film, not the course; beyond a few "
              "hundred workers the scheduler's per-task overhead (~1 ms a task, 1,800 beat "
              "tasks here) and the output folder's write rate would come next."]
    return lines


def main() -> None:
    sys.path.insert(0, str(ROOT.parent))
    measured = measure()
    lines = report(measured, *on_paper(measured))
    update_section("course", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
