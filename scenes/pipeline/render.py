"""The drawing's side of a render: an AttentionTrace -> a film's segments and what they
show, drawn into the staging paths the application hands over (``app.film.render_video``
opens the user's output set, calls these, and commits it: nothing here writes a user's
file or parses a command line).

A video is drawn in one direction, a step per module: ``plan`` (the beats as segment
tasks, checked), ``draw`` (each segment drawn in a worker process, or taken from the
beat cache), ``join`` (the segments joined into the film, its captions and its poster, in
staging). Stills (``stills``) are drawn in this process.

``assemble`` (``join``), ``default_workers`` (``draw``), ``render_stills`` and
``still_label`` (``stills``) are importable from here too: the API in one place.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...facts import DEFAULT_QUALITY
from ...files.outputs import sigterm_as_interrupt
from ..film.readouts import ShownNumber
from .beat_cache import BeatCache
from .draw import default_workers, draw_segments, run_in_workers
from .estimate import Estimate, beat_weight, estimate
from .join import assemble, beat_spans, segment_starts
from .plan import SegmentJob, plan_film
from .segments import timed_segment
from .stills import render_stills, still_label

__all__ = ["RenderProgress", "RenderResult", "assemble", "default_workers", "draw_segments",
           "discarded_line", "film_estimate", "film_result", "film_timing", "plan_film",
           "render_stills", "segment_starts", "still_label", "stretched", "timed_segments"]


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


def film_estimate(tasks: list[SegmentJob], workers: int, cache: BeatCache | None) -> Estimate:
    """About how long drawing ``tasks`` takes on ``workers``, the beats ``cache`` holds
    taken from it (``estimate``)."""
    return estimate(tasks, workers, cached=lambda job: cache is not None
                    and not job.audit and cache.holds(job.key()))


def film_timing(trace, *, beats, width: int, height: int, fps: int, jobs: int | None = None,
                cache: BeatCache | None = None, quality: str = DEFAULT_QUALITY,
                brief: bool = False, settings=None):
    """The film's segments as a render would make them, for their times and captions,
    without drawing a frame (``segments.timed_segment``: each beat's script run, or its
    entry in the ``cache`` read), ``jobs`` beats at once, drawn with ``settings`` (the
    film's, ``FilmSettings``; None: the defaults). (segments, spans): each beat's span in
    the film, in seconds."""
    tasks = plan_film(trace, beats, width=width, height=height, fps=fps, quality=quality,
                      brief=brief, settings=settings)
    workers = default_workers() if jobs is None else max(1, int(jobs))
    segments = timed_segments(tasks, trace, workers, cache.folder if cache else None)
    return segments, beat_spans(segments, segment_starts(segments))


def timed_segments(tasks, trace, workers: int, cache_folder: Path | None) -> list:
    """The segments of ``tasks`` timed without drawing a frame (``segments.timed_segment``),
    ``workers`` beats at once."""
    with sigterm_as_interrupt():
        return run_in_workers(timed_segment, [(job, trace, cache_folder) for job in tasks],
                              workers=workers, weights=[beat_weight(job.beat) for job in tasks])


def stretched(tasks, segments, trace, narration, **drawing):
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
