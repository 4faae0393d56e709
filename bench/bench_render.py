"""Benchmark: wall time of the default explainer against the video's own duration.

`attention-explainer render` as a whole process (imports, model, all beats in one scene,
encoding, poster, captions) at 480p15 and 1080p30; the ratio wall / video duration says
whether it renders faster than real time (<= 1x) on this machine. With ``--baseline REV``
the same renders of an earlier revision (checked out into a temporary folder, run with
this environment) are measured in the same run, alternating, and the report gives the
ratio of the two costs per second of video: absolute times drift between machines and
hours, a ratio measured side by side does not. Writes its section of bench/RESULTS.md.
Slow (minutes): `make bench`, never the test suite.
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
SETTINGS = [("480p", 15), ("1080p", 30)]


def video_info(path: Path) -> tuple[float, int, int, float]:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        rate = float(stream.average_rate)
        return frames / rate, stream.width, stream.height, rate


def checkout(rev: str, into: Path) -> Path:
    """A revision's files as an importable ``attention_explainer`` package under ``into``
    (put first on PYTHONPATH, it shadows the editable install of this checkout)."""
    tree = into / "tree"
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    (into / "attention_explainer").symlink_to(tree)
    return into


def run_render(resolution: str, fps: int, out: Path, package_root: Path | None):
    """(wall seconds, video seconds, peak RSS MiB) of one render process."""
    env = dict(os.environ)
    if package_root is not None:
        env["PYTHONPATH"] = str(package_root)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "attention_explainer.cli", "render",
                             "--resolution", resolution, "--fps", str(fps), "-o", str(out),
                             "--quiet"], cwd=out.parent, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(proc.stderr.read().decode()[-800:])
    duration, _, _, _ = video_info(out)
    return wall, duration, usage.ru_maxrss / 1024


def main() -> None:
    baseline = sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base_root = checkout(baseline, Path(tmp) / "base") if baseline else None
        for resolution, fps in SETTINGS:
            ours = run_render(resolution, fps, Path(tmp) / f"ours-{resolution}.mp4", None)
            base = (run_render(resolution, fps, Path(tmp) / f"base-{resolution}.mp4",
                               base_root) if base_root else None)
            rows.append((resolution, fps, ours, base))
            print(f"{resolution}@{fps}: {ours[0]:.1f} s wall for {ours[1]:.1f} s of video "
                  f"({ours[0] / ours[1]:.2f}x)"
                  + (f"; baseline {base[0]:.1f} s for {base[1]:.1f} s "
                     f"({base[0] / base[1]:.2f}x)" if base else ""), flush=True)
    lines = [
        "## render: wall time against the video's duration",
        "",
        f"Machine: {machine()}. "
        "Default sentence, all nine beats, one `attention-explainer render` process "
        "(imports, model, drawing, H.264 encoding, poster, captions)"
        + (f"; baseline: revision `{baseline}`, rendered in the same run." if baseline
           else "."),
        "",
        "| setting | wall time | video duration | wall / duration | peak RSS |"
        + (" baseline wall / duration | cost per video second vs baseline |" if baseline else ""),
        "| --- | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if baseline else ""),
    ]
    for resolution, fps, (wall, duration, rss), base in rows:
        line = (f"| {resolution} {fps} fps | {wall:.1f} s | {duration:.1f} s | "
                f"**{wall / duration:.2f}x** | {rss:.0f} MiB |")
        if base:
            ratio = (wall / duration) / (base[0] / base[1])
            line += f" {base[0] / base[1]:.2f}x | **{ratio:.2f}** |"
        lines.append(line)
    lines += ["", "Goal: <= 1x at 1080p30 (faster than real time). Where a row is above 1x the "
              "goal is not met yet; per-frame cost is mostly Python path building for moving "
              "mobjects plus H.264 encoding (DESIGN.md, Engineering notes)."]
    update_section("render", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
