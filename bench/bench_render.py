"""Benchmark: wall time of the default explainer against the video's own duration.

`attention-explainer render` as a whole process (imports, model, all beats in one scene,
encoding, poster, captions) at 480p15 and 1080p30; the ratio wall / video duration says
whether it renders faster than real time (<= 1x) on this machine. Writes its section of
bench/RESULTS.md. Slow (minutes): `make bench`, never the test suite.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "attention-explainer"
SETTINGS = [("480p", 15), ("1080p", 30)]


def video_info(path: Path) -> tuple[float, int, int, float]:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        rate = float(stream.average_rate)
        return frames / rate, stream.width, stream.height, rate


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for resolution, fps in SETTINGS:
            out = Path(tmp) / f"bench-{resolution}.mp4"
            start = time.perf_counter()
            proc = subprocess.Popen([str(BIN), "render", "--resolution", resolution, "--fps",
                                     str(fps), "-o", str(out), "--quiet"], cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            if os.waitstatus_to_exitcode(status):
                raise SystemExit(proc.stderr.read().decode()[-800:])
            duration, w, h, rate = video_info(out)
            rows.append((resolution, fps, wall, duration, usage.ru_maxrss / 1024))
            print(f"{resolution}@{fps}: {wall:.1f} s wall for {duration:.1f} s of video "
                  f"({wall / duration:.2f}x)", flush=True)
    lines = [
        "## render: wall time against the video's duration",
        "",
        f"Machine: {machine()}. "
        "Default sentence, all nine beats, one `attention-explainer render` process "
        "(imports, model, drawing, H.264 encoding, poster, captions).",
        "",
        "| setting | wall time | video duration | wall / duration | peak RSS |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for resolution, fps, wall, duration, rss in rows:
        lines.append(f"| {resolution} {fps} fps | {wall:.1f} s | {duration:.1f} s | "
                     f"**{wall / duration:.2f}x** | {rss:.0f} MiB |")
    lines += ["", "Goal: <= 1x at 1080p30 (faster than real time). Where a row is above 1x the "
              "goal is not met yet; per-frame cost is mostly Python path building for moving "
              "mobjects plus H.264 encoding (DESIGN.md, Engineering notes)."]
    update_section("render", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
