"""Rendering API: an AttentionTrace -> an MP4 (plus captions, poster and trace), or stills.

The CLI calls :func:`render_video` and :func:`render_stills`; nothing here parses command
lines. A video is rendered beat by beat (``segments``: worker processes, the beat cache)
and joined; stills are drawn in this process. Manim is configured per call with
``tempconfig`` and the scene is constructed inside that block (manim 0.22 fixes the output
plan and encoder size in ``Scene.__init__``).

Frames for posters and stills are the renderer's raw RGBA frames (``capture``), never
decoded from the MP4.
"""
from __future__ import annotations

import contextlib
import os
import time as wallclock
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...attention_core.errors import InputError
from ...outputs import OutputSet, scratch_folder, sigterm_as_interrupt, video_outputs
from .beat_cache import BeatCache
from .capture import make_film, manim_config
from .encoding import QUALITIES
from .formats import check_fps, check_size
from ..film.readouts import ShownNumber
from ..film.registry import BEATS, parse_beats
from .segments import KEY_FRAME, VIDEO, SegmentJob, join_segments, render_segments

BEAT_TITLES = {entry.name: entry.title for entry in BEATS}


# ---- video -----------------------------------------------------------------------------
@dataclass
class RenderResult:
    video: Path
    captions: Path | None
    poster: Path
    trace: Path
    width: int
    height: int
    fps: int
    duration: float                                   # seconds of video
    beats: list[str]
    beat_times: dict[str, tuple[float, float]]        # beat -> (start, end) seconds
    key_times: dict[str, float]                       # beat -> key frame time
    shown_numbers: list = field(default_factory=list)  # readouts.ShownNumber records
    render_seconds: float = 0.0                        # wall time of the render
    audit_log: list = field(default_factory=list)      # with audit=True: (beat, problem, detail)
    screen_texts: dict = field(default_factory=dict)   # with audit=True: beat -> texts seen
    cached_beats: list = field(default_factory=list)   # beats taken from the beat cache
    discarded: dict = field(default_factory=dict)      # beat -> why its entry was not used


class RenderProgress:
    """Whoever watches a render is told of it through these (the command line draws a
    bar on a terminal); each does nothing here."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def start(self, beats: list[str], workers: int) -> None:
        """The render of ``beats`` begins, on ``workers`` processes."""

    def on_segment(self, segment) -> None:
        """One beat's segment is ready (drawn or taken from the cache)."""

    def finishing(self) -> None:
        """Every segment is ready; the film is being joined."""

    def done(self) -> None:
        """The set is written."""


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def write_captions(segments, starts: list[float], path: Path) -> None:
    """The segments' captions, moved to their places in the film, as one SRT file."""
    import datetime

    import srt

    def at(seconds: float) -> datetime.timedelta:
        return datetime.timedelta(seconds=round(seconds, 3))

    subtitles = [srt.Subtitle(index=0, start=at(start + a), end=at(start + b), content=text)
                 for segment, start in zip(segments, starts)
                 for a, b, text in segment.captions]
    path.write_text(srt.compose(subtitles, reindex=True) if subtitles else "",
                    encoding="utf-8")


def plan_segments(trace, names: list[str], *, width: int, height: int, fps: int,
                  quality: str = "final", audit: bool = False) -> list[SegmentJob]:
    """The film's beats as tasks (``SegmentJob``), in order: the last one ends the film."""
    from ..vocabulary import style

    if quality not in QUALITIES:
        raise InputError(f"--quality {quality!r}: use {' or '.join(QUALITIES)}.")
    fingerprint = trace.fingerprint()
    return [SegmentJob(beat=name, hands_off=n < len(names) - 1, width=width, height=height,
                       fps=fps, theme=style.theme_name(), quality=quality,
                       trace_fingerprint=fingerprint, audit=audit)
            for n, name in enumerate(names)]


def segment_starts(segments) -> list[float]:
    """Each segment's start in the joined film, in seconds (whole frames)."""
    fps = segments[0].fps
    return [sum(s.frames for s in segments[:n]) / fps for n in range(len(segments))]


def assemble(segments, trace, paths: dict, also=None) -> None:
    """Write the film from its rendered segments: ``paths["video"]`` (joined, with chapter
    marks), "captions", "poster" and "trace"; then ``also(segments, starts, paths)`` (a
    lecture pack's files). Runs wherever the segments' folders can be read; each file is
    read through the check of what its segment recorded (``BeatSegment.opened``)."""
    starts = segment_starts(segments)
    chapters = [(start, start + s.duration, BEAT_TITLES[s.beat])
                for s, start in zip(segments, starts)]
    with contextlib.ExitStack() as stack:
        videos = [stack.enter_context(s.opened(VIDEO)) for s in segments]
        join_segments(videos, paths["video"], chapters)
    write_captions(segments, starts, paths["captions"])
    names = [s.beat for s in segments]
    poster = segments[names.index("pull") if "pull" in names else -1]
    paths["poster"].write_bytes(poster.read(KEY_FRAME))
    trace.save(paths["trace"])
    if also is not None:
        also(segments, starts, paths)


def film_result(segments, finals, *, width: int, height: int, fps: int,
                seconds: float) -> RenderResult:
    """The RenderResult of a film assembled from ``segments`` into ``finals``."""
    starts = segment_starts(segments)
    video, captions, poster, trace_file = finals[:4]
    return RenderResult(
        video=video, captions=captions, poster=poster, trace=trace_file,
        width=width, height=height, fps=fps,
        duration=sum(s.frames for s in segments) / fps, beats=[s.beat for s in segments],
        beat_times={s.beat: (start, start + s.duration) for s, start in zip(segments, starts)},
        key_times={s.beat: start + s.key_time for s, start in zip(segments, starts)},
        shown_numbers=[ShownNumber(**n) for s in segments for n in s.shown_numbers],
        render_seconds=seconds,
        audit_log=[tuple(entry) for s in segments for entry in s.audit_log],
        screen_texts={s.beat: set(s.screen_texts) for s in segments},
        cached_beats=[s.beat for s in segments if s.from_cache],
        discarded={s.beat: s.discarded for s in segments if s.discarded})


def render_video(trace, *, beats, width: int, height: int, fps: int, output: Path | None = None,
                 force: bool = False, outputs: OutputSet | None = None,
                 progress: RenderProgress | None = None,
                 report=None, audit: bool = False, jobs: int | None = None,
                 cache: BeatCache | None = None, quality: str = "final",
                 also=None) -> RenderResult:
    """Render the explainer's ``beats`` for ``trace`` into ``output`` (an .mp4).

    Writes, beside it, ``<name>.srt`` (captions), ``<name>.png`` (the poster: the pull
    beat's key frame, else the last beat's) and ``<name>.npz`` (the trace), as one set
    (``outputs``, checked beforehand by the caller, or made from ``output`` and ``force``):
    all new or, after a failure or an interrupt (Ctrl-C, SIGTERM), all as before.

    Each beat is its own task (``segments``): ``jobs`` worker processes (default: one per
    core) render the beats the ``cache`` does not hold yet, and the segments are joined
    without re-encoding; ``progress`` is told of each (``RenderProgress``). ``quality`` is "final" or "draft" (``encoding``). ``report``
    receives one-line notes (stale files removed, damaged cache entries discarded).
    ``audit`` (tests) checks every step for small texts and glyph morphs and keeps the
    texts seen on screen. ``also(segments, starts, paths)`` writes more files of the set
    before it is committed (a lecture pack).
    """
    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats(beats)
    tasks = plan_segments(trace, names, width=width, height=height, fps=fps, quality=quality,
                          audit=audit)
    workers = default_workers() if jobs is None else max(1, int(jobs))
    if outputs is None:
        outputs = video_outputs(output, force=force).check()
    started = wallclock.perf_counter()
    bar = progress or RenderProgress()
    with sigterm_as_interrupt(), outputs.opened(report=report), bar:
        bar.start(names, workers)
        segments = render_segments(tasks, trace, workers=workers,
                                   scratch=outputs.scratch / "segments",
                                   cache_folder=cache.folder if cache else None,
                                   on_done=bar.on_segment)
        for segment in segments:
            if segment.discarded and report is not None:
                report(discarded_line(segment))
        bar.finishing()
        assemble(segments, trace, {kind: outputs.path(kind) for kind in outputs.files}, also)
        finals = outputs.commit()
        bar.done()
    if cache is not None:
        cache.trim()
    return film_result(segments, finals, width=width, height=height, fps=fps,
                       seconds=wallclock.perf_counter() - started)


def discarded_line(segment) -> str:
    """The one line that says a damaged cache entry of the segment's beat was not used."""
    return (f"beat cache: the entry of the {segment.beat} beat was {segment.discarded} "
            "and rendered again")


# ---- stills ----------------------------------------------------------------------------
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
                     theme: str, texts: Path | None) -> dict:
    """:func:`render_stills` in a worker process, told the theme and where texts are kept."""
    from ..vocabulary import style
    from ..vocabulary.text import keep_texts_in
    from .text_store import TextStore

    style.set_theme(theme)
    keep_texts_in(TextStore(texts) if texts is not None else None)
    return render_stills(trace, beat=beat, times=times, width=width, height=height, fps=fps)


def render_stills(trace, *, beat: str, times: list[float | str], width: int, height: int,
                  fps: int = 30) -> dict:
    """Raw frames of one beat, rendered alone, drawing only the frames asked for.

    ``times``: seconds from the beat's start (frame round(t * fps)), "key" (the beat's key
    frame) or "end" (its last frame, before the stage clears). Everything between is
    skipped, not animated, so a still costs little more than building the beat. Returns
    {still_label(t): RGB image}, each exactly the frame a video render would show there.
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
        scene = make_film(trace, names, stills=True, want_ends="end" in wanted)
        writer = scene.renderer.file_writer
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
            raise InputError(f"--at {label}: the {beat} beat is only {duration:.2f} s long "
                             f"({writer.frames_written} frames at {fps} fps); ask for a time "
                             f"from 0 to {max(duration - 1 / fps, 0):.2f}, key or end.")
        stills[label] = Image.fromarray(np.asarray(frame)[..., :3].copy())
    return stills
