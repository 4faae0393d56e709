"""Benchmark: how close to its raw frames a yuv420p video can be at all, before any
encoder: each beat's 1080p key frame converted to yuv420p and back (PyAV/swscale, as the
encoder is fed), PSNR and SSIM against the raw frame; yuv444p for comparison. Beats with
thin saturated colour (the heat map, masked cells, head hues) lose to the half-resolution
chroma what no x264 setting can give back. Writes the "chroma" section of RESULTS.md.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402


def main() -> None:
    import av
    import numpy as np
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    from attention_explainer.attention_core.trace import DEFAULT_TRACE, AttentionTrace
    from attention_explainer.facts import FILM_BEATS
    from attention_explainer.scenes.pipeline.render import render_stills

    trace = AttentionTrace.load(DEFAULT_TRACE)
    rows = []
    with tempfile.TemporaryDirectory():
        for beat in FILM_BEATS:
            raw = np.asarray(render_stills(trace, beat=beat, times=["key"], width=1920,
                                           height=1080)["key"])
            frame = av.VideoFrame.from_ndarray(raw, format="rgb24")
            row = [beat]
            for pix_fmt in ("yuv420p", "yuv444p"):
                back = frame.reformat(format=pix_fmt).to_ndarray(format="rgb24")
                row += [peak_signal_noise_ratio(raw, back, data_range=255),
                        structural_similarity(raw, back, channel_axis=2, data_range=255)]
            rows.append(row)
            print(beat, [round(v, 3) for v in row[1:]], flush=True)
    lines = ["## chroma: the yuv420p ceiling, before any encoder", "",
             f"Machine: {machine()}. Each beat's key frame of the default sentence at 1080p, "
             "raw, converted to the pixel format and back (no encoder).", "",
             "| beat | yuv420p PSNR | yuv420p SSIM | yuv444p PSNR | yuv444p SSIM |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for beat, p420, s420, p444, s444 in rows:
        lines.append(f"| {beat} | {p420:.1f} dB | {s420:.4f} | {p444:.1f} dB | {s444:.4f} |")
    worst = min(rows, key=lambda r: r[1])
    lines += ["", f"The MP4 must stay yuv420p (players, PowerPoint, Keynote): on {worst[0]} no "
              f"encoder can exceed {worst[1]:.1f} dB, so the 40 dB goal cannot hold on every "
              "beat in that format. Read the encoded frames' PSNR (the \"speed\" section) "
              "against this ceiling: what the encoder loses is the difference."]
    update_section("chroma", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
