"""`attention-explainer narration-script`: what to read aloud for each beat, and the time
each beat has today (a recording per beat then goes to `render --narration DIR`)."""
from __future__ import annotations

import click

from ..attention_core import DEFAULT_SENTENCE
from ..app.film_extras import with_measures
from ..app.work import (beat_cache, check_drawable, compute_trace, drawable_sentence,
                        interrupts_held, use_theme)
from .common import echo, saved_trace, say
from .options import (DrawingOptions, TraceOptions, VideoOptions, drawing_options,
                      trace_options, video_options)

__all__ = ["command"]


@click.command("narration-script", epilog="""\b
Examples:
  attention-explainer narration-script "The cat ate the fish"
  attention-explainer narration-script "The cat ate the fish" --beats title,sparks,pull
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@video_options
@drawing_options
@click.pass_context
def command(ctx: click.Context, sentence: str, tracing: TraceOptions, video: VideoOptions,
            drawing: DrawingOptions, trace_path: str | None, quiet: bool, as_json: bool):
    """Print the narration script: per beat its title, the seconds it lasts now and its
    captions, to read aloud into one recording per beat (title.wav, embed.wav, ...) or per
    caption (title-1.wav, title-2.wav, ...) for `render --narration DIR`. Each beat is timed by running its script without drawing a
    frame (or read from the beat cache, where a render left it): seconds, not minutes."""
    beat_cache(video.no_cache, peek=True)         # its variable checked before any work
    trace = saved_trace(ctx, trace_path)
    if trace is None:
        drawable_sentence(sentence, tracing, drawing.max_tokens)
        trace = compute_trace(sentence, tracing, beat_cache(video.no_cache, report=say))
    else:
        check_drawable(trace.num_tokens, drawing.max_tokens)
    # the measured beats' numbers (influence, flow, why), as a render adds them
    from ..scenes.film.registry import parse_beats

    trace = with_measures(trace, parse_beats(video.beats or "all"),
                          tracing if trace_path is None else None)
    with interrupts_held():          # the first import of manim
        from ..scenes.pipeline.join import TITLES
        from ..scenes.pipeline.narration import script
        from ..scenes.pipeline.render import film_timing

    use_theme(drawing.theme)
    cache = beat_cache(video.no_cache, report=say)
    beats = video.beats
    if video.length is not None:         # the script of the film --length makes
        from ..app.length import fitted_film
        from ..scenes.pipeline.render import default_workers

        fitted = fitted_film(trace, beats, video.length,
                             workers=video.jobs or default_workers(),
                             cache_folder=cache.folder if cache else None, width=video.width,
                             height=video.height, fps=video.fps, quality=video.quality)
        say(fitted.line())
        beats = fitted.kept
    segments, spans = film_timing(trace, beats=beats, width=video.width,
                                  height=video.height, fps=video.fps, jobs=video.jobs,
                                  cache=cache, quality=video.quality,
                                  brief=video.length is not None)
    echo(f"# Narration of \u201c{trace.sentence}\u201d: one recording per beat, or "
         "per caption, named as below\n")
    echo(script(segments, spans, TITLES))
