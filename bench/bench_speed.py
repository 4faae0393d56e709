"""Benchmark: how fast the explainer renders, against its own duration and against plain
manim, measured side by side in one run (absolute times drift between machines).

1. `attention-explainer render` of the default sentence (all beats, a cold beat cache)
   at 480p15, 1080p30 and 4k30: wall / video duration (goal at 1080p30: <= 0.5x);
2. plain `manim render` of the same nine beats (the generated plain-manim scenes) at
   1080p30 with manim's defaults, alternating with ours: the speed-up (goal >= 1.7x);
3. the same render again, nothing changed (every beat from the cache): the speed-up
   (goal >= 10x);
4. `frames --beat all --at key --resolution 320x180` from a cold cache (goal <= 15 s):
   measured by bench_stills.py, its own section;
5. quality: each beat's key frame decoded from the 1080p MP4 against the raw frame the
   renderer drew (PSNR goal >= 40 dB, SSIM reported), file size, H.264 level; for the
   final and the draft encoding.

Writes the "speed" section of bench/RESULTS.md. Slow (about 20 minutes on 2 cores):
`make bench`, never the test suite. `--quick` skips 4k30.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "attention_explainer.cli"]
SIZES = {"480p": (854, 480), "1080p": (1920, 1080), "4k": (3840, 2160)}


def timed(command: list[str], env: dict, cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()[-800:]}")
    return time.perf_counter() - start


def video_facts(path: Path) -> dict:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        # a held frame is stored once (scenes/pipeline/timeline.py): the stream's length
        fps = stream.codec_context.framerate
        frames = int(round(stream.duration * stream.time_base * fps))
        return {"duration": frames / float(fps), "frames": frames,
                "level": stream.codec_context.level, "pix_fmt": stream.codec_context.pix_fmt,
                "bytes": path.stat().st_size}


def decoded_frames(path: Path, indices: dict[str, int]) -> dict[str, np.ndarray]:
    import av

    from attention_explainer.scenes.pipeline.timeline import frames_in_time

    wanted = {n: beat for beat, n in indices.items()}
    found = {}
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        fps = int(stream.codec_context.framerate)
        total = int(round(stream.duration * stream.time_base * fps))
        for n, frame in enumerate(frames_in_time(container, stream, fps, total)):
            if n in wanted:
                found[wanted[n]] = frame.to_ndarray(format="rgb24")
    return found


def quality(video: Path, cache_dir: Path, fps: int) -> list[tuple[str, float, float]]:
    """(beat, PSNR dB, SSIM) of each beat's key frame: decoded from the MP4 against the
    raw frame kept in the beat cache (key.png, as drawn)."""
    from PIL import Image
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    sys.path.insert(0, str(ROOT.parent))
    entries = {}
    for entry in (cache_dir / "attention-explainer" / "beats").iterdir():
        if entry.name.startswith("."):
            continue
        manifest = json.loads((entry / "segment.json").read_text())
        if manifest["fps"] == fps:
            entries[manifest["beat"]] = (entry, manifest)
    order = ["title", "embed", "project", "sparks", "softmax", "pull", "heads", "mask",
             "summary"]
    start, indices = 0, {}
    for beat in order:
        entry, manifest = entries[beat]
        indices[beat] = start + int(round(manifest["key_time"] * fps))
        start += manifest["frames"]
    decoded = decoded_frames(video, indices)
    rows = []
    for beat in order:
        raw = np.asarray(Image.open(entries[beat][0] / "key.png").convert("RGB"))
        got = decoded[beat]
        rows.append((beat, peak_signal_noise_ratio(raw, got, data_range=255),
                     structural_similarity(raw, got, channel_axis=2, data_range=255)))
    return rows


def ours(tmp: Path, resolution: str, fps: int, name: str, cache: Path, *extra) -> tuple:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    out = tmp / f"{name}.mp4"
    wall = timed(CLI + ["render", "--resolution", resolution, "--fps", str(fps), "-o", str(out),
                        "--quiet", "--force", *extra], env, tmp)
    return wall, video_facts(out), out


def plain_manim(tmp: Path, width: int, height: int, fps: int) -> float:
    """Plain manim, its defaults, the nine beat scenes one after another in one run."""
    scenes = ["TitleBeat", "EmbedBeat", "ProjectBeat", "SparksBeat", "SoftmaxBeat",
              "PullBeat", "HeadsBeat", "MaskBeat", "SummaryBeat"]
    media = tmp / "plain-media"
    command = [sys.executable, "-m", "manim", "render", "-r", f"{width},{height}",
               "--fps", str(fps), "--media_dir", str(media),
               str(ROOT / "scenes" / "plain_manim.py"), *scenes]
    wall = timed(command, dict(os.environ), tmp)
    import shutil
    shutil.rmtree(media, ignore_errors=True)
    return wall


def main() -> None:
    quick = "--quick" in sys.argv
    lines = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        results = {}
        # 1 + 2: ours (cold cache) and plain manim at 1080p30, alternating
        plain_wall = plain_manim(tmp, 1920, 1080, 30)
        print(f"plain manim 1080p30: {plain_wall:.1f} s", flush=True)
        cold = tmp / "cache-1080"
        wall, facts, video = ours(tmp, "1080p", 30, "final-1080p", cold)
        results["1080p"] = (wall, facts)
        print(f"ours 1080p30 cold: {wall:.1f} s for {facts['duration']:.1f} s", flush=True)
        plain_wall2 = plain_manim(tmp, 1920, 1080, 30)
        print(f"plain manim 1080p30 again: {plain_wall2:.1f} s", flush=True)
        # 3: nothing changed, every beat from the cache
        warm_wall, _, _ = ours(tmp, "1080p", 30, "again-1080p", cold)
        print(f"ours 1080p30 again (cache): {warm_wall:.1f} s", flush=True)
        # 5: quality of the final and the draft encoding
        final_quality = quality(video, cold, 30)
        draft_cache = tmp / "cache-draft"
        draft_wall, draft_facts, draft_video = ours(tmp, "1080p", 30, "draft-1080p", draft_cache,
                                                    "--quality", "draft")
        draft_quality = quality(draft_video, draft_cache, 30)
        print(f"draft 1080p30: {draft_wall:.1f} s", flush=True)
        for resolution, fps in ([("480p", 15)] + ([] if quick else [("4k", 30)])):
            wall, facts, _ = ours(tmp, resolution, fps, f"final-{resolution}",
                                  tmp / f"cache-{resolution}")
            results[resolution] = (wall, facts)
            print(f"ours {resolution}{fps}: {wall:.1f} s for {facts['duration']:.1f} s",
                  flush=True)

    w1080, f1080 = results["1080p"]
    plain = (plain_wall + plain_wall2) / 2
    lines += [
        "## speed: beats in parallel, the beat cache, encoding by measurement",
        "",
        f"Machine: {machine()}. Default sentence, all nine beats, whole processes "
        f"(`attention-explainer render`, default `--jobs` = {os.cpu_count()}); each "
        "render from a cold beat cache unless said.",
        "",
        "| goal | measured | met |",
        "| --- | ---: | :---: |",
        f"| 1080p30 wall / video duration <= 0.5x | {w1080:.1f} s / {f1080['duration']:.1f} s "
        f"= **{w1080 / f1080['duration']:.2f}x** | {_met(w1080 / f1080['duration'] <= 0.5)} |",
        f"| >= 1.7x faster than plain `manim` (same nine beats, 1080p30, its defaults; "
        f"mean of 2 runs alternating with ours: {plain:.1f} s) | **{plain / w1080:.2f}x** "
        f"| {_met(plain / w1080 >= 1.7)} |",
        f"| re-render, nothing changed, >= 10x faster | {warm_wall:.1f} s: **"
        f"{w1080 / warm_wall:.1f}x** | {_met(w1080 / warm_wall >= 10)} |",
        "| `frames --beat all --at key --resolution 320x180`, cold cache, <= 15 s | "
        "the \"stills\" section | |",
        f"| key frames PSNR >= 40 dB at 1080p (final) | min **"
        f"{min(p for _, p, _ in final_quality):.1f} dB** | "
        f"{_met(min(p for _, p, _ in final_quality) >= 40)} |",
        "",
        "| setting | wall | video | wall / duration | size | H.264 level |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, (wall, facts) in [(k, results[k]) for k in ("480p", "1080p", "4k")
                                 if k in results]:
        lines.append(f"| {label} final | {wall:.1f} s | {facts['duration']:.1f} s | "
                     f"{wall / facts['duration']:.2f}x | {facts['bytes'] / 1e6:.1f} MB | "
                     f"{facts['level'] / 10:.1f} |")
    lines.append(f"| 1080p draft | {draft_wall:.1f} s | {draft_facts['duration']:.1f} s | "
                 f"{draft_wall / draft_facts['duration']:.2f}x | "
                 f"{draft_facts['bytes'] / 1e6:.1f} MB | {draft_facts['level'] / 10:.1f} |")
    lines += ["", "Key frames decoded from the 1080p MP4 against the raw frames drawn (the "
              "ceiling that yuv420p itself sets, before any encoder, is in the \"chroma\" "
              "section):", "",
              "| beat | final PSNR | final SSIM | draft PSNR | draft SSIM |",
              "| --- | ---: | ---: | ---: | ---: |"]
    for (beat, p, s), (_, dp, ds) in zip(final_quality, draft_quality):
        lines.append(f"| {beat} | {p:.1f} dB | {s:.4f} | {dp:.1f} dB | {ds:.4f} |")
    update_section("speed", "\n".join(lines))
    print("\n".join(lines))


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


if __name__ == "__main__":
    main()
