"""How the film is encoded: H.264 yuv420p in MP4 for every player and for PowerPoint and
Keynote, with the x264 settings chosen by measurement (bench/bench_encoding.py, figures in
bench/RESULTS.md, "encoding"). Our frames are flat colour on black: every preset tried
keeps the decoded frames within ~40.5 dB PSNR of the raw ones, a ceiling set by yuv420p's
half-resolution colour on thin coloured strokes rather than by the encoder, so the
encoder's CPU time and the file size decide:

- ``final`` (the default): ``preset=veryfast``, ``tune=animation``, crf 20 — about 0.8-0.9x
  the CPU of manim's default (medium, crf 23) at a similar size and quality;
- ``draft``: ``preset=ultrafast``, crf 23 — the least CPU (about 0.7x), files ~3x larger.

The level is set explicitly (the lowest H.264 level that fits the size and rate, never
above 5.1 up to 4k30) so that players with level limits accept the file.

The same frames give the same bytes (``deterministic_options``): x264 runs on one thread
and, on x86-64, with the SIMD set every x86-64-v2 CPU has. Measured: with the CPU's own set
(AVX-512 here) the same frames encoded in 8 fresh processes gave 2 different streams (an
x264 kernel reads memory it did not write: a heap left dirty by earlier work changes the
output); without AVX-512, or without mbtree, 8 of 8 were the same. A fixed set is also the
same code on every machine, and a fixed thread count the same frame-threading.
"""
from __future__ import annotations

import math
import platform
from functools import lru_cache
from pathlib import Path

from ...facts import QUALITIES

__all__ = ["deterministic_options", "h264_level", "options"]

_SETTINGS = {
    "final": {"preset": "veryfast", "tune": "animation", "crf": "20"},
    "draft": {"preset": "ultrafast", "crf": "23"},
}

# H.264 Annex A: (level, max macroblocks per frame, max macroblocks per second)
_LEVELS = [("3.0", 1620, 40500), ("3.1", 3600, 108000), ("3.2", 5120, 216000),
           ("4.0", 8192, 245760), ("4.1", 8192, 245760), ("4.2", 8704, 522240),
           ("5.0", 22080, 589824), ("5.1", 36864, 983040), ("5.2", 36864, 2073600),
           ("6.0", 139264, 4177920), ("6.1", 139264, 8355840), ("6.2", 139264, 16711680)]


def h264_level(width: int, height: int, fps: int) -> str:
    """The lowest H.264 level whose frame size and macroblock rate fit.

    >>> h264_level(1920, 1080, 30), h264_level(3840, 2160, 30), h264_level(320, 180, 10)
    ('4.0', '5.1', '3.0')
    """
    blocks = math.ceil(width / 16) * math.ceil(height / 16)
    for level, max_blocks, max_rate in _LEVELS:
        if blocks <= max_blocks and blocks * fps <= max_rate:
            return level
    return _LEVELS[-1][0]


def options(quality: str, width: int, height: int, fps: int) -> dict[str, str]:
    """The libx264 options for ``quality`` at this size and rate (manim's
    ``video_encoder_options``)."""
    if quality not in _SETTINGS:
        raise ValueError(f"quality {quality!r}: use one of {', '.join(QUALITIES)}")
    return {**_SETTINGS[quality], "level": h264_level(width, height, fps),
            **deterministic_options()}


# x264's names for the x86-64-v2 instruction sets, and the /proc/cpuinfo flags they need
_X86_64_V2 = (("MMX2", "mmx"), ("SSE", "sse"), ("SSE2", "sse2"), ("SSE2Fast", "sse2"),
              ("SSE3", "pni"), ("SSSE3", "ssse3"), ("SSE4.1", "sse4_1"), ("SSE4.2", "sse4_2"))


@lru_cache(maxsize=1)
def deterministic_options() -> dict[str, str]:
    """x264 options that make its output a function of its input frames alone: one thread,
    and on an x86-64 CPU that has them the x86-64-v2 instruction sets only."""
    found = {"threads": "1"}
    if platform.machine().lower() in ("x86_64", "amd64"):
        try:
            flags = next((line.split(":", 1)[1].split() for line in
                          Path("/proc/cpuinfo").read_text().splitlines()
                          if line.startswith("flags")), [])
        except OSError:
            flags = []
        if all(flag in flags for _, flag in _X86_64_V2):
            found["x264-params"] = "asm=" + ",".join(name for name, _ in _X86_64_V2)
    return found


