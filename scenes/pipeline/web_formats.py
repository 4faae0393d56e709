"""The film for web pages: a VP9 WebM or a GIF, re-encoded from the joined MP4.

The MP4 is the film as drawn (its segments joined without re-encoding); a WebM or a GIF
is made from its decoded frames, in the output set's staging folder, so it is committed
with its sidecars as one set like the MP4. A GIF's frame rate and width are capped
(``facts.GIF_MAX_FPS``, ``GIF_MAX_WIDTH``) and its frames share one palette of 256
colours, taken from frames spread over the whole film, so a colour keeps its role from
frame to frame. No manim here.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...facts import GIF_MAX_FPS, GIF_MAX_WIDTH
from .timeline import frames_in_time

__all__ = ["PALETTE_SAMPLES", "VP9_OPTIONS", "gif_size", "transcode"]

# libvpx-vp9 in constant quality; "good" at speed 5 with row threads keeps a 1080p film
# close to the H.264 render's time
PALETTE_SAMPLES = 48      # frames a GIF's palette is taken from
VP9_OPTIONS = {"crf": "32", "b": "0", "deadline": "good", "cpu-used": "5", "row-mt": "1"}


def transcode(source: Path, target: Path, *, fps: int, frames: int) -> None:
    """Re-encode the MP4 ``source`` (``frames`` frames at ``fps``, a held one stored once:
    ``timeline``) into ``target``, a .webm or a .gif (by its suffix)."""
    kind = target.suffix.lower()
    if kind == ".webm":
        _webm(source, target, fps, frames)
    elif kind == ".gif":
        _gif(source, target, fps, frames)
    else:
        raise ValueError(f"no web format for {target.name!r}")


def _webm(source: Path, target: Path, fps: int, frames: int) -> None:
    """VP9, and the film's sound (if it has one) as Opus."""
    import av

    from .narration import decode, encode_sound, sound_stream_in

    sound = decode(source) if _has_sound(source) else None
    with av.open(str(source)) as src, av.open(str(target), "w", format="webm") as out:
        stream = src.streams.video[0]
        vp9 = out.add_stream("libvpx-vp9", rate=fps)
        vp9.width, vp9.height, vp9.pix_fmt = stream.width, stream.height, "yuv420p"
        vp9.options = dict(VP9_OPTIONS)
        opus = sound_stream_in(out, "libopus") if sound is not None else None
        for n, frame in enumerate(frames_in_time(src, stream, fps, frames)):
            frame.pts, frame.time_base = n, Fraction(1, fps)
            for packet in vp9.encode(frame):
                out.mux(packet)
        for packet in vp9.encode():
            out.mux(packet)
        if opus is not None:
            encode_sound(out, opus, sound)


def _has_sound(path: Path) -> bool:
    import av

    with av.open(str(path)) as container:
        return bool(container.streams.audio)


def gif_size(width: int, height: int) -> tuple[int, int]:
    """A GIF's size: the film's, narrowed to GIF_MAX_WIDTH keeping its shape (even)."""
    if width <= GIF_MAX_WIDTH:
        return width, height
    return GIF_MAX_WIDTH, max(2, round(height * GIF_MAX_WIDTH / width / 2) * 2)


def _palette(source: Path, size: tuple[int, int], fps: int, total: int):
    """One palette of 256 colours for the whole GIF, from PALETTE_SAMPLES frames spread
    evenly over the film."""
    import av
    from PIL import Image

    step = max(1, total // PALETTE_SAMPLES)
    frames = []
    with av.open(str(source)) as src:
        for n, frame in enumerate(frames_in_time(src, src.streams.video[0], fps, total)):
            if n % step == 0:
                frames.append(frame.to_image(threads=1).resize(size, Image.Resampling.LANCZOS))
    sheet = Image.new("RGB", (size[0], size[1] * len(frames)))
    for n, image in enumerate(frames):
        sheet.paste(image, (0, n * size[1]))
    return sheet.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


@lru_cache(maxsize=1)
def _pal8_order() -> tuple[int, ...]:
    """Where red, green, blue and alpha go in a pal8 palette entry as PyAV reads it (its
    layout is not documented and has changed): the order that gives a test colour back."""
    import av

    probe = (10, 20, 30)
    for order in ((1, 2, 3, 0), (0, 1, 2, 3), (2, 1, 0, 3)):     # ARGB, RGBA, BGRA
        entry = np.zeros((256, 4), np.uint8)
        entry[0, list(order)] = (*probe, 255)
        frame = av.VideoFrame.from_ndarray((np.zeros((2, 2), np.uint8), entry), format="pal8")
        if tuple(frame.to_ndarray(format="rgba", threads=1)[0, 0]) == (*probe, 255):
            return order
    raise RuntimeError("PyAV's pal8 palette layout is not one we know")


def _pal8_entries(rgb: np.ndarray) -> np.ndarray:
    """256 opaque palette entries of the colours ``rgb`` (256 x 3) in PyAV's layout."""
    entries = np.zeros((256, 4), np.uint8)
    entries[:, list(_pal8_order())] = np.column_stack([rgb, np.full(256, 255, np.uint8)])
    return entries


def _gif(source: Path, target: Path, film_fps: int, frames: int) -> None:
    import av
    from PIL import Image

    with av.open(str(source)) as src:
        stream = src.streams.video[0]
        rate = Fraction(film_fps)
        fps = min(rate, Fraction(GIF_MAX_FPS))
        size = gif_size(stream.width, stream.height)
    palette = _palette(source, size, film_fps, frames)
    rgb = np.zeros((256, 3), np.uint8)
    used = np.array(palette.getpalette()[:768], np.uint8).reshape(-1, 3)
    rgb[:len(used)] = used
    colours = _pal8_entries(rgb)
    with av.open(str(source)) as src, av.open(str(target), "w", format="gif") as out:
        stream = src.streams.video[0]
        gif = out.add_stream("gif", rate=fps)
        gif.width, gif.height, gif.pix_fmt = size[0], size[1], "pal8"
        shown = 0                            # GIF frames written so far
        for n, frame in enumerate(frames_in_time(src, stream, film_fps, frames)):
            # the film's frame n is on screen from n / rate: keep those the GIF's clock
            # reaches (at its capped rate, frames are dropped evenly)
            if n / rate + 1e-9 < shown / fps:
                continue
            image = frame.to_image(threads=1).resize(size, Image.Resampling.LANCZOS)
            indices = np.asarray(image.quantize(palette=palette, dither=Image.Dither.NONE))
            out_frame = av.VideoFrame.from_ndarray((indices, colours), format="pal8")
            out_frame.pts, out_frame.time_base = shown, 1 / fps
            shown += 1
            for packet in gif.encode(out_frame):
                out.mux(packet)
        for packet in gif.encode():
            out.mux(packet)
