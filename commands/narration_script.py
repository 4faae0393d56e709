"""`attention-explainer narration-script`: what to read aloud for each beat, and the time
each beat has today (a recording per beat then goes to `render --narration DIR`)."""
from __future__ import annotations

import click

from ..facts import DEFAULT_SENTENCE
from .common import echo, saved_trace, say
from .options import (DrawingOptions, FilmSettings, TraceOptions, VideoOptions,
                      drawing_options, film_settings_options, trace_options, video_options)

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
@film_settings_options
@click.pass_context
def command(ctx: click.Context, sentence: str, tracing: TraceOptions, video: VideoOptions,
            drawing: DrawingOptions, settings: FilmSettings, trace_path: str | None,
            quiet: bool, as_json: bool):
    """Print the narration script: per beat its title, the seconds it lasts now and its
    captions, to read aloud into one recording per beat (title.wav, embed.wav, ...) or per
    caption (title-1.wav, title-2.wav, ...) for `render --narration DIR`. Each beat is timed by running its script without drawing a
    frame (or read from the beat cache, where a render left it): seconds, not minutes."""
    from ..app.narration_script import narration_script

    trace = saved_trace(ctx, trace_path)
    echo(narration_script(sentence, tracing if trace is None else None, video, drawing, trace,
                          settings=settings, report=say))
