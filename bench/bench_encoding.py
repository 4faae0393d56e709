"""Benchmark: which x264 settings encode our frames fastest while holding the quality goal
(PSNR >= 40 dB against the raw frames), measured side by side in one run.

Each candidate renders the sparks beat (the busiest motion: arcs, a grid, numbers) at
1080p30 in its own process; we report its wall time and CPU time (drawing is the same for
all, so the differences are the encoder's), the file size, and PSNR/SSIM of the decoded
frames against the raw frames the renderer drew: the key frame and six frames in mid-
animation. The first row is manim's default (crf 23, x264's default preset medium).
Writes the "encoding" section of bench/RESULTS.md; `scenes/pipeline/encoding.py` uses the result.
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

CANDIDATES = [
    ("manim default (medium, crf 23)", {"crf": "23"}),
    ("veryfast, crf 23", {"preset": "veryfast", "crf": "23"}),
    ("veryfast, tune animation, crf 20", {"preset": "veryfast", "tune": "animation",
                                          "crf": "20"}),
    ("veryfast, tune animation, crf 18", {"preset": "veryfast", "tune": "animation",
                                          "crf": "18"}),
    ("... the same, deterministic (1 thread, x86-64-v2 SIMD)",
     {"preset": "veryfast", "tune": "animation", "crf": "20", "threads": "1",
      "x264-params": "asm=MMX2,SSE,SSE2,SSE2Fast,SSE3,SSSE3,SSE4.1,SSE4.2"}),
    ("superfast, tune animation, crf 20", {"preset": "superfast", "tune": "animation",
                                           "crf": "20"}),
    ("ultrafast, crf 23", {"preset": "ultrafast", "crf": "23"}),
]
BEAT, WIDTH, HEIGHT, FPS = "sparks", 1920, 1080, 30

WORKER = r'''
import json, sys
from pathlib import Path
import numpy as np
from manim import tempconfig
from PIL import Image
from attention_explainer.attention_core.trace import AttentionTrace
from attention_explainer.attention_core.trace import DEFAULT_TRACE as DEFAULT_TRACE_PATH
from attention_explainer.scenes.pipeline.capture import SegmentVideo, make_film, manim_config
options, out, beat, w, h, fps = json.loads(sys.argv[1])
trace = AttentionTrace.load(DEFAULT_TRACE_PATH)
out = Path(out)
out.mkdir(parents=True, exist_ok=True)
conf = manim_config(w, h, fps, fmt="none", media_dir=out / "media", output_file=None)
video = SegmentVideo(out / "v.mp4", width=w, height=h, fps=fps, options=options)
with tempconfig(conf):
    scene = make_film(trace, [beat], ends_film=False, video=video)
    writer = scene.renderer.file_writer
    for n in (20, 45, 70, 95, 120, 145):  # in mid-animation
        writer.want(n, f"raw:{n}")
    scene.render()
video.close()
raw = {label: frame for label, frame in writer.captured.items() if not label.startswith("end:")}
for label, frame in raw.items():
    Image.fromarray(np.asarray(frame)[..., :3]).save(out / f"{label.replace(':', '-')}.png")
index = {label: (int(label.split(":")[1]) if label.startswith("raw") else
                 int(round(scene.key_times[beat] * fps))) for label in raw}
(out / "index.json").write_text(json.dumps(index))
'''


def measure(options: dict, out: Path) -> dict:
    import av
    import numpy as np
    from PIL import Image
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", WORKER,
                    json.dumps([options, str(out), BEAT, WIDTH, HEIGHT, FPS])], check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    index = json.loads((out / "index.json").read_text())
    wanted = {n: label for label, n in index.items()}
    psnr, ssim = {}, {}
    from attention_explainer.scenes.pipeline.timeline import frames_in_time

    with av.open(str(out / "v.mp4")) as container:
        # a held frame is stored once (scenes/pipeline/timeline.py): one per 1/fps here
        stream = container.streams.video[0]
        total = int(round(stream.duration * stream.time_base * FPS))
        frames = 0
        for n, frame in enumerate(frames_in_time(container, stream, FPS, total)):
            frames += 1
            if n in wanted:
                label = wanted[n]
                raw = np.asarray(Image.open(out / f"{label.replace(':', '-')}.png"))
                got = frame.to_ndarray(format="rgb24")
                psnr[label] = peak_signal_noise_ratio(raw, got, data_range=255)
                ssim[label] = structural_similarity(raw, got, channel_axis=2, data_range=255)
    key = next((label for label in psnr if label.startswith("key")), None)
    if key is None:
        raise SystemExit(f"no key frame among {sorted(psnr)}; index {index}")
    mids = [label for label in psnr if label.startswith("raw")]
    return {"wall": wall, "cpu": cpu, "bytes": (out / "v.mp4").stat().st_size,
            "seconds": frames / FPS, "key_psnr": psnr[key], "key_ssim": ssim[key],
            "mid_psnr": min(psnr[m] for m in mids), "mid_ssim": min(ssim[m] for m in mids)}


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (label, options) in enumerate(CANDIDATES):
            result = measure(options, Path(tmp) / f"c{n}")
            rows.append((label, result))
            print(label, {k: round(v, 3) for k, v in result.items()}, flush=True)
    base = rows[0][1]
    lines = [
        "## encoding: x264 settings tried",
        "",
        f"Machine: {machine()}. The {BEAT} beat of the default sentence at {WIDTH}x{HEIGHT} "
        f"{FPS} fps ({base['seconds']:.1f} s of video), one process per setting (drawing is "
        "the same in each; the encoder runs in threads beside it). PSNR/SSIM: decoded "
        "frames against the raw frames drawn, at the key frame and the worst of six frames "
        "in mid-animation.",
        "",
        "| setting | wall | CPU | CPU vs manim default | size | key PSNR | key SSIM "
        "| mid PSNR (min) | mid SSIM (min) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, r in rows:
        lines.append(f"| {label} | {r['wall']:.1f} s | {r['cpu']:.1f} s | "
                     f"{r['cpu'] / base['cpu']:.2f} | {r['bytes'] / 1e6:.2f} MB | "
                     f"{r['key_psnr']:.1f} dB | {r['key_ssim']:.4f} | {r['mid_psnr']:.1f} dB | "
                     f"{r['mid_ssim']:.4f} |")
    lines += ["", "Chosen (scenes/pipeline/encoding.py): `final` = veryfast, tune animation, crf 20; "
              "`draft` = ultrafast, crf 23 — see the rows above for what each costs and keeps."]
    update_section("encoding", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
