"""The rendering API: an AttentionTrace -> an MP4 (with its captions, poster and trace),
or stills. The CLI calls :func:`render_video` and :func:`render_stills`; nothing here
parses command lines.

A video is rendered in one direction, a step per module: ``plan`` (the beats as segment
tasks, checked), ``draw`` (each segment drawn in a worker process, or taken from the
beat cache), ``join`` (the segments joined into the film, its captions and its poster),
then the set of files committed here. Stills (``stills``) are drawn in this process.

``assemble`` (``join``), ``default_workers`` (``draw``), ``render_stills`` and
``still_label`` (``stills``) are importable from here too: the API in one place.
"""
from __future__ import annotations

import time as wallclock
from dataclasses import dataclass, field
from pathlib import Path

from ...facts import DEFAULT_QUALITY
from ...files.outputs import OutputSet, sigterm_as_interrupt, video_outputs
from ..film.readouts import ShownNumber
from .beat_cache import BeatCache
from .draw import default_workers, draw_segments, run_in_workers
from .estimate import LONG_WORK_SECONDS, Estimate, beat_weight, estimate
from .join import assemble, beat_spans, segment_starts
from .plan import SegmentJob, plan_film
from .segments import timed_segment
from .stills import render_stills, still_label

__all__ = ["RenderProgress", "RenderResult", "assemble", "default_workers",
           "discarded_line", "film_estimate", "film_result", "film_timing", "render_stills",
           "render_video", "still_label"]


@dataclass
class RenderResult:
    """What a render wrote (the set's four files) and what it showed, when."""

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

    def long_work(self, estimate: Estimate) -> None:
        """The render is long work (its estimate passes ``LONG_WORK_SECONDS``): told before
        :meth:`start`, so that a watcher with no bar (a log) can say each beat as it is
        done."""

    def on_segment(self, segment) -> None:
        """One beat's segment is ready (drawn or taken from the cache)."""

    def finishing(self) -> None:
        """Every segment is ready; the film is being joined."""

    def done(self) -> None:
        """The set is written."""


def render_video(trace, *, beats, width: int, height: int, fps: int, output: Path | None = None,
                 force: bool = False, outputs: OutputSet | None = None,
                 progress: RenderProgress | None = None,
                 report=None, audit: bool = False, jobs: int | None = None,
                 cache: BeatCache | None = None, quality: str = DEFAULT_QUALITY,
                 also=None, narration=None) -> RenderResult:
    """Render the explainer's ``beats`` for ``trace`` into ``output`` (an .mp4).

    Writes, beside it, ``<name>.srt`` (captions), ``<name>.png`` (the poster: the pull
    beat's key frame, else the last beat's) and ``<name>.npz`` (the trace), as one set
    (``outputs``, checked beforehand by the caller, or made from ``output`` and ``force``):
    all new or, after a failure or an interrupt (Ctrl-C, SIGTERM), all as before.

    Each beat is its own task (``plan``): ``jobs`` worker processes (default: one per
    core) draw the beats the ``cache`` does not hold yet (``draw``), and the segments are
    joined without re-encoding (``join``); ``progress`` is told of each
    (``RenderProgress``). ``quality`` is "final" or "draft" (``encoding``). ``report``
    receives one-line notes (stale files removed, damaged cache entries discarded).
    ``audit`` (tests) checks every step for small texts and glyph morphs and keeps the
    texts seen on screen. ``also(segments, starts, paths, sound)`` writes more files of
    the set before it is committed (a lecture pack). ``narration``
    (``narration.Narration``): each beat's voice, the film's sound; a beat whose voice
    outlasts it is drawn again with its last picture held longer.
    """
    tasks = plan_film(trace, beats, width=width, height=height, fps=fps, quality=quality,
                      audit=audit)
    workers = default_workers() if jobs is None else max(1, int(jobs))
    if outputs is None:
        outputs = video_outputs(output, force=force).check()
    guess = film_estimate(tasks, workers, cache)
    bar = progress or RenderProgress()
    if guess.seconds > LONG_WORK_SECONDS and report is not None:
        report(guess.line())         # long work never starts silently
        bar.long_work(guess)
    started = wallclock.perf_counter()
    with sigterm_as_interrupt(), outputs.opened(report=report), bar:
        bar.start([task.beat for task in tasks], workers)
        segments = draw_segments(tasks, trace, workers=workers,
                                 scratch=outputs.scratch / "segments",
                                 cache_folder=cache.folder if cache else None,
                                 on_done=bar.on_segment)
        if narration is not None:
            narration = narration.voices_for(segments)
            tasks, segments = _stretched(tasks, segments, trace, narration, workers=workers,
                                         scratch=outputs.scratch / "stretched",
                                         cache_folder=cache.folder if cache else None)
        for segment in segments:
            if segment.discarded and report is not None:
                report(discarded_line(segment))
        bar.finishing()
        assemble(segments, trace, {kind: outputs.path(kind) for kind in outputs.files}, also,
                 narration)
        finals = outputs.commit()
        bar.done()
    if cache is not None:
        cache.trim()
    return film_result(segments, finals, tasks[0], seconds=wallclock.perf_counter() - started)


def film_estimate(tasks: list[SegmentJob], workers: int, cache: BeatCache | None) -> Estimate:
    """About how long drawing ``tasks`` takes on ``workers``, the beats ``cache`` holds
    taken from it (``estimate``)."""
    return estimate(tasks, workers, cached=lambda job: cache is not None
                    and not job.audit and cache.holds(job.key()))


def film_timing(trace, *, beats, width: int, height: int, fps: int, jobs: int | None = None,
                cache: BeatCache | None = None, quality: str = DEFAULT_QUALITY):
    """The film's segments as a render would make them, for their times and captions,
    without drawing a frame (``segments.timed_segment``: each beat's script run, or its
    entry in the ``cache`` read), ``jobs`` beats at once. (segments, spans): each beat's
    span in the film, in seconds."""
    tasks = plan_film(trace, beats, width=width, height=height, fps=fps, quality=quality)
    workers = default_workers() if jobs is None else max(1, int(jobs))
    with sigterm_as_interrupt():
        segments = run_in_workers(timed_segment,
                                  [(job, trace, cache.folder if cache else None)
                                   for job in tasks],
                                  workers=workers, weights=[beat_weight(job.beat)
                                                            for job in tasks])
    return segments, beat_spans(segments, segment_starts(segments))


def _stretched(tasks, segments, trace, narration, **drawing):
    """The tasks and segments of the film with each beat whose voice outlasts its span
    drawn again, its last picture held longer (``narration.extra_holds``)."""
    from dataclasses import replace

    from .narration import extra_holds

    extras = extra_holds(segments, beat_spans(segments, segment_starts(segments)), narration)
    if not extras:
        return tasks, segments
    again = [n for n, task in enumerate(tasks) if task.beat in extras]
    redone = draw_segments([replace(tasks[n], hold_extra=extras[tasks[n].beat])
                            for n in again], trace, **drawing)
    tasks, segments = list(tasks), list(segments)
    for n, segment in zip(again, redone):
        tasks[n] = replace(tasks[n], hold_extra=extras[tasks[n].beat])
        segments[n] = segment
    return tasks, segments


def discarded_line(segment) -> str:
    """The one line that says a damaged cache entry of the segment's beat was not used."""
    return (f"beat cache: the entry of the {segment.beat} beat was {segment.discarded} "
            "and rendered again")


def film_result(segments, finals, job: SegmentJob, seconds: float) -> RenderResult:
    """The RenderResult of a film assembled from ``segments`` into ``finals``, at the
    size and rate of its planned jobs (``job``: the first one)."""
    starts = segment_starts(segments)
    video, captions, poster, trace_file = finals[:4]
    return RenderResult(
        video=video, captions=captions, poster=poster, trace=trace_file,
        width=job.width, height=job.height, fps=job.fps,
        duration=sum(s.frames for s in segments) / job.fps, beats=[s.beat for s in segments],
        # a beat's span: from the motion into its stage to its held end state
        beat_times={s.beat: span for s, span in zip(segments, beat_spans(segments, starts))},
        key_times={s.beat: start + s.key_time for s, start in zip(segments, starts)},
        shown_numbers=[ShownNumber(**n) for s in segments for n in s.shown_numbers],
        render_seconds=seconds,
        audit_log=[tuple(entry) for s in segments for entry in s.audit_log],
        screen_texts={s.beat: set(s.screen_texts) for s in segments},
        cached_beats=[s.beat for s in segments if s.from_cache],
        discarded={s.beat: s.discarded for s in segments if s.discarded})
