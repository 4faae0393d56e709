"""Stills: raw frames of one beat drawn in this process, drawing only the frames asked for
(:func:`render_stills`), as pictures in memory (``stills_in_worker``: in a worker
process). Writing them into a lecture repo's folder is the application's
(``app.stills.StillsJob``). A still is the renderer's raw frame, never decoded from an
MP4.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...attention_core.errors import InputError
from ...facts import DEFAULT_FPS
from ...files.outputs import scratch_folder
from ..film.registry import parse_beats
from ..film.settings import FilmSettings
from ..vocabulary import style
from .capture import make_film, manim_config
from .formats import check_fps, check_size

__all__ = ["render_stills", "still_label", "stills_in_worker"]


def still_label(when: float | str) -> str:
    """The name of a requested still: "key", "end", or seconds like "2.50s"."""
    if isinstance(when, str):
        return when
    return f"{float(when) + 0.0:.2f}s"      # + 0.0: -0 is written 0.00


def _wanted_frames(times, fps: int) -> dict[str, int | str]:
    wanted: dict[str, int | str] = {}
    for when in times:
        if isinstance(when, str):
            if when not in ("key", "end"):
                raise InputError(f"still time {when!r}: use seconds, 'key' or 'end'.")
            wanted[when] = when
        else:
            seconds = float(when)
            if not np.isfinite(seconds) or seconds < 0:
                raise InputError(f"still time {when!r} must be seconds >= 0.")
            wanted[still_label(when)] = int(round(seconds * fps))
    if not wanted:
        raise InputError("no still times given.")
    return wanted


def stills_in_worker(trace, beat: str, times: list, width: int, height: int, fps: int,
                     theme: str, texts: Path | None, vector: tuple | None = None,
                     settings: FilmSettings | None = None) -> dict:
    """:func:`render_stills` in a worker process, told the theme and where texts are kept;
    with ``vector`` (("svg" or "pdf", its width in mm or None)), each still's vector
    picture too, as ``vectors``; ``settings``: the film's (None: the defaults)."""
    from ..vocabulary.text import keep_texts_in
    from .text_store import TextStore

    style.set_theme(theme)
    keep_texts_in(TextStore(texts) if texts is not None else None)
    vectors: dict = {}
    images = render_stills(trace, beat=beat, times=times, width=width, height=height, fps=fps,
                           vector=vector, vectors=vectors, settings=settings)
    return {"images": images, "vectors": vectors}


def render_stills(trace, *, beat: str, times: list[float | str], width: int, height: int,
                  fps: int = DEFAULT_FPS, vector: str | tuple | None = None,
                  vectors: dict | None = None, settings: FilmSettings | None = None) -> dict:
    """Raw frames of one beat, rendered alone, drawing only the frames asked for.

    ``times``: seconds from the beat's start (frame round(t * fps)), "key" (the beat's key
    frame) or "end" (its last frame, before the stage clears). Everything between is
    skipped, not animated, so a still costs little more than building the beat. Returns
    {still_label(t): RGB image}, each exactly the frame a video render would show there.
    With ``vector`` ("svg" or "pdf", or that and the picture's width on paper in mm) the
    same frames are drawn as vector graphics too, into ``vectors`` ({still_label(t): bytes}).
    ``settings``: how the film is drawn (``FilmSettings``; None: the defaults).
    """
    from manim import tempconfig
    from PIL import Image

    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats([beat])
    if len(names) != 1:
        raise InputError("render_stills draws one beat.")
    wanted = _wanted_frames(times, fps)
    with scratch_folder("stills-") as scratch, \
            tempconfig(manim_config(width, height, fps, fmt="none", media_dir=scratch,
                                    output_file=None)):
        scene = make_film(trace, names, stills=True, want_ends="end" in wanted,
                          settings=settings or FilmSettings())
        writer = scene.renderer.file_writer
        writer.vector = (vector, None) if isinstance(vector, str) else vector
        for label, index in wanted.items():
            if isinstance(index, int):
                writer.want(index, label)
            writer.expected.add(label if isinstance(index, int) else f"{index}:{names[0]}")
        scene.render()
    stills = {}
    for label, index in wanted.items():
        frame = writer.captured.get(f"{index}:{names[0]}" if isinstance(index, str) else label)
        if frame is None:
            duration = writer.frames_written / fps
            raise InputError(f"still time {label}: the {beat} beat is only {duration:.2f} s long "
                             f"({writer.frames_written} frames at {fps} fps); ask for a time "
                             f"from 0 to {max(duration - 1 / fps, 0):.2f}, key or end.")
        stills[label] = Image.fromarray(np.asarray(frame)[..., :3].copy())
        if vector is not None and vectors is not None:
            key = f"{index}:{names[0]}" if isinstance(index, str) else label
            vectors[label] = writer.vectors[key]
    return stills
