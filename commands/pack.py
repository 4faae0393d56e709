"""`attention-explainer pack`: a lecture pack (the MP4 with chapters, a clip and poster
per beat, WebVTT chapters and captions, PowerPoint slides and an offline web deck)."""
from __future__ import annotations

import click

from ..facts import DEFAULT_SENTENCE
from .common import film_command
from .options import (burn_captions_option, captions_option, drawing_options, dry_run_option,
                      film_settings_options,
                      narration_option, pauses_option, trace_options, versus_option,
                      video_options)

__all__ = ["command"]


@click.command("pack", epilog="""\b
Examples:
  attention-explainer pack "The cat ate the fish" --out lecture/attention --resolution 720p
  attention-explainer pack "我爱北京天安门" --focus 北京 --out lecture/beijing --json
  attention-explainer pack "The cat ate the fish" --pauses steps --out lecture/steps
  attention-explainer pack "The cat ate the fish" --burn-captions --out lecture/burnt
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@video_options
@click.option("--out", "out_dir", type=click.Path(file_okay=True), metavar="DIR",
              help="Folder of the pack (default renders/<slug>-<resolution>-pack).")
@drawing_options
@film_settings_options
@narration_option
@captions_option
@burn_captions_option
@pauses_option
@versus_option
@dry_run_option
@click.pass_context
def command(ctx: click.Context, out_dir: str | None, **options):
    """Render a lecture pack: the MP4 with chapters, each beat as a clip with its poster,
    WebVTT chapters and captions, PowerPoint slides and an offline web deck."""
    return film_command(ctx, output=out_dir, pack=True, **options)
