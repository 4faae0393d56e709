"""`attention-explainer pack`: a lecture pack (the MP4 with chapters, a clip and poster
per beat, WebVTT chapters and captions, PowerPoint slides and an offline web deck)."""
from __future__ import annotations

import click

from ..attention_core import DEFAULT_SENTENCE
from .common import film_command
from .options import (DrawingOptions, TraceOptions, VideoOptions, drawing_options,
                      dry_run_option, narration_option, trace_options, video_options)

__all__ = ["command"]


@click.command("pack", epilog="""\b
Examples:
  attention-explainer pack "The cat ate the fish" --out lecture/attention --resolution 720p
  attention-explainer pack "我爱北京天安门" --focus 北京 --out lecture/beijing --json
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@video_options
@click.option("--out", "out_dir", type=click.Path(file_okay=True), metavar="DIR",
              help="Folder of the pack (default renders/<slug>-<resolution>-pack).")
@drawing_options
@narration_option
@dry_run_option
@click.pass_context
def command(ctx: click.Context, sentence: str, out_dir: str | None, tracing: TraceOptions,
            video: VideoOptions, drawing: DrawingOptions, narration: str | None,
            dry_run: bool, trace_path: str | None, quiet: bool, as_json: bool):
    """Render a lecture pack: the MP4 with chapters, each beat as a clip with its poster,
    WebVTT chapters and captions, PowerPoint slides and an offline web deck."""
    return film_command(ctx, sentence, tracing=tracing, video=video, drawing=drawing,
                        trace_path=trace_path, output=out_dir, narration=narration,
                        dry_run=dry_run, quiet=quiet, as_json=as_json, pack=True)
