"""A film rendered into the user's files: the output set checked (or made from ``output``),
opened, the drawing's segments drawn and joined into its staging paths, then committed
whole. The one place a render writes a user's file; the command line, the Python API and
the tests call it through ``work``, or directly.
"""
from __future__ import annotations

import time as wallclock
from dataclasses import replace
from pathlib import Path

from ..facts import DEFAULT_QUALITY
from ..files.outputs import OutputSet, sigterm_as_interrupt, video_outputs
from ..scenes.pipeline import encoding
from ..scenes.pipeline.beat_cache import BeatCache
from ..scenes.pipeline.burn import drawn_size
from ..scenes.pipeline.estimate import LONG_WORK_SECONDS
from ..scenes.pipeline.render import (RenderProgress, RenderResult, assemble, default_workers,
                                      discarded_line, draw_segments, film_estimate,
                                      film_result, plan_film, segment_starts, stretched,
                                      timed_segments)
from .captions import captions_language

__all__ = ["render_video"]


def render_video(trace, *, beats, width: int, height: int, fps: int, output: Path | None = None,
                 force: bool = False, outputs: OutputSet | None = None,
                 progress: RenderProgress | None = None,
                 report=None, audit: bool = False, jobs: int | None = None,
                 cache: BeatCache | None = None, quality: str = DEFAULT_QUALITY,
                 also=None, narration=None, captions=None,
                 length: float | None = None, burn_captions: bool = False,
                 settings=None) -> RenderResult:
    """Render the explainer's ``beats`` for ``trace`` into ``output`` (an .mp4).

    Writes, beside it, ``<name>.srt`` (captions), ``<name>.png`` (the poster: the pull
    beat's key frame, else the last beat's) and ``<name>.npz`` (the trace), as one set
    (``outputs``, checked beforehand by the caller, or made from ``output`` and ``force``;
    or a function of the beats planned that makes it, for a set that depends on them):
    all new or, after a failure or an interrupt (Ctrl-C, SIGTERM), all as before.

    Each beat is its own task (``plan``): ``jobs`` worker processes (default: one per
    core) draw the beats the ``cache`` does not hold yet (``draw``), and the segments are
    joined without re-encoding (``join``); ``progress`` is told of each
    (``RenderProgress``). ``quality`` is "final" or "draft" (``encoding``). ``report``
    receives one-line notes (stale files removed, damaged cache entries discarded).
    ``audit`` (tests) checks every step for small texts and glyph morphs and keeps the
    texts seen on screen. ``also(segments, starts, paths, sound)`` writes more files of
    the set before it is committed (a lecture pack). ``narration``
    (``narration.Narration``): each beat's voice, the film's sound; a beat whose recording
    outlasts it is drawn again with its last picture held longer. A draft voice speaks
    each caption: the film is timed first (no frame drawn), its captions spoken, then
    drawn with each caption up as long as its voice and a pause. ``captions``: (the .srt's
    path, its texts), the user's words for the film's captions (``app.captions``), fitted
    to the timed film's captions before anything is drawn. ``length``: seconds the film is
    fitted to (``app.length``: fewer beats, holds at their floor; said to ``report``).
    ``burn_captions``: the beats are drawn smaller and each frame is their picture above a
    band with its caption (``burn``), the film still ``width`` x ``height``. ``settings``: how
    the beats are drawn (``FilmSettings``; None: the defaults), --pace among them.
    """
    workers = default_workers() if jobs is None else max(1, int(jobs))
    if outputs is None:
        outputs = video_outputs(output, force=force).check()
    with sigterm_as_interrupt():                 # before anything is written
        drawn_width, drawn_height = drawn_size(width, height, burn_captions)
        tasks, narration = _planned(trace, beats, dict(width=drawn_width, height=drawn_height,
                                                       fps=fps, quality=quality, audit=audit,
                                                       settings=settings),
                                    workers, cache, report, length, captions, narration)
    if callable(outputs):        # a set that depends on the beats planned (a fitted pack)
        outputs = outputs([task.beat for task in tasks])
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
            narration = narration.voices_for(segments, segment_starts(segments))
            tasks, segments = stretched(tasks, segments, trace, narration, workers=workers,
                                         scratch=outputs.scratch / "stretched",
                                         cache_folder=cache.folder if cache else None)
        for segment in segments:
            if segment.discarded and report is not None:
                report(discarded_line(segment))
        bar.finishing()
        burn = (width, height, encoding.options(quality, width, height, fps)) \
            if burn_captions else None
        assemble(segments, trace, {kind: outputs.path(kind) for kind in outputs.files}, also,
                 narration, burn, captions_language(captions))
        finals = outputs.commit()
        bar.done()
    if cache is not None:
        cache.trim()
    result = film_result(segments, finals, tasks[0], seconds=wallclock.perf_counter() - started)
    return replace(result, width=width, height=height)


def _spoken(tasks, trace, narration, workers: int, cache, said: dict | None):
    """The tasks with each caption held as long as its voice, and the narration holding
    those voices: each beat's captions (``said``, or the film timed for what the beats
    say) spoken by the draft voice or matched with its recording."""
    from dataclasses import replace

    if said is None:
        said = _said(timed_segments(tasks, trace, workers, cache.folder if cache else None))
    narration = narration.spoken_for(said)
    return [replace(task, caption_seconds=narration.caption_seconds(task.beat))
            for task in tasks], narration


def _planned(trace, beats, plan: dict, workers: int, cache, report, length, captions,
             narration):
    """(the film's tasks, its narration): planned (``plan``: plan_film's size, rate,
    quality, audit), fitted to ``length``, in the user's ``captions``, each caption held
    for its voice; what each step decides is checked before anything is drawn."""
    tasks, said = plan_film(trace, beats, **plan), None     # said: each beat's captions
    if length is not None:
        from .length import fitted_film

        fitted = fitted_film(trace, beats, length, workers=workers,
                             cache_folder=cache.folder if cache else None, **plan)
        tasks, said = fitted.tasks, _said(fitted.timed)
        if report is not None:
            report(fitted.line())
    if captions is not None:
        tasks, said = _in_their_words(tasks, trace, captions, workers, cache, said)
        if narration is not None and narration.speak:
            from .captions import words_language

            narration = narration.read_in(words_language(captions[1]))
    if narration is not None and narration.per_caption:
        tasks, narration = _spoken(tasks, trace, narration, workers, cache, said)
    return tasks, narration


def _said(timed) -> dict[str, list[str]]:
    """Each timed segment's captions, by beat."""
    return {s.beat: [text for _, _, text in s.captions] for s in timed}


def _in_their_words(tasks, trace, captions, workers: int, cache, said: dict | None):
    """(the tasks with the user's words for their captions, those words by beat): the
    film's own captions (``said``, or the film timed for them) and the user's checked
    against them (count, order, numbers)."""
    from dataclasses import replace

    from .captions import fitted_captions

    if said is None:
        said = _said(timed_segments(tasks, trace, workers, cache.folder if cache else None))
    words = fitted_captions(captions[0], said, captions[1])
    return ([replace(task, caption_words=words.get(task.beat, ())) for task in tasks],
            {beat: list(words.get(beat, ())) for beat in said})
