"""The narration script (`narration-script`): per beat its title, the seconds it lasts and
its captions, timed as the film would be (its beats' scripts run without drawing a frame,
or read from the beat cache where a render left them), to read aloud into one recording per
beat or per caption for `render --narration DIR`."""
from __future__ import annotations

from .film_extras import with_measures
from .requests import DrawingOptions, TraceOptions, VideoOptions
from .work import (Report, beat_cache, check_drawable, compute_trace, drawable_sentence,
                   interrupts_held, use_theme)

__all__ = ["narration_script"]


def narration_script(sentence: str, tracing: TraceOptions | None, video: VideoOptions,
                     drawing: DrawingOptions, trace=None, *, settings=None,
                     report: Report = None) -> str:
    """The script of the film of ``sentence`` (or of the saved ``trace``; ``tracing``
    None then), fitted to ``video.length`` where one is asked, drawn with ``settings``
    (``FilmSettings``: its pace times its captions; None: the defaults)."""
    beat_cache(video.no_cache, peek=True)         # its variable checked before any work
    if trace is None:
        drawable_sentence(sentence, tracing, drawing.max_tokens)
        trace = compute_trace(sentence, tracing, beat_cache(video.no_cache, report=report))
    else:
        check_drawable(trace.num_tokens, drawing.max_tokens)
    with interrupts_held():          # the first import of manim
        from ..scenes.film.registry import parse_beats
        from ..scenes.pipeline.join import TITLES
        from ..scenes.pipeline.narration import script
        from ..scenes.pipeline.render import default_workers, film_timing

    # the measured beats' numbers (influence, flow, why), as a render adds them
    trace = with_measures(trace, parse_beats(video.beats or "all"), tracing)
    use_theme(drawing.theme)
    cache = beat_cache(video.no_cache, report=report)
    beats = video.beats
    if video.length is not None:         # the script of the film --length makes
        from .length import fitted_film

        fitted = fitted_film(trace, beats, video.length,
                             workers=video.jobs or default_workers(),
                             cache_folder=cache.folder if cache else None, width=video.width,
                             height=video.height, fps=video.fps, quality=video.quality,
                             settings=settings)
        if report is not None:
            report(fitted.line())
        beats = fitted.kept
    segments, spans = film_timing(trace, beats=beats, width=video.width,
                                  height=video.height, fps=video.fps, jobs=video.jobs,
                                  cache=cache, quality=video.quality,
                                  brief=video.length is not None, settings=settings)
    return (f"# Narration of \u201c{trace.sentence}\u201d: one recording per beat, or "
            "per caption, named as below\n\n" + script(segments, spans, TITLES))
