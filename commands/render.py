"""`attention-explainer render`: the explainer video (MP4, WebM or GIF, with .srt captions,
a poster .png and the .npz trace)."""
from __future__ import annotations

import click

from ..facts import DEFAULT_SENTENCE
from ..facts import GIF_MAX_FPS, GIF_MAX_WIDTH
from .common import film_command
from .options import (burn_captions_option, captions_option, drawing_options, dry_run_option,
                      film_settings_options,
                      narration_option, trace_options, versus_option, video_options)

__all__ = ["command"]


@click.command("render", epilog="""\b
Examples:
  attention-explainer render "The cat ate the fish" --resolution 720p
  attention-explainer render "我爱北京天安门" --focus 北京 --beats sparks,pull -o beijing.mp4
  attention-explainer render --trace talk.npz --quality draft --jobs 2
  attention-explainer render "The cat ate the fish" -o talk.webm
  attention-explainer render "The cat ate the fish" --burn-captions -o talk.mp4
  attention-explainer render "The cat ate the fish" --narration my-voice/ -o talk.mp4
  attention-explainer render "The cat ate the fish" --versus "The fish ate the cat"
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@video_options
@click.option("-o", "--output", type=click.Path(dir_okay=True), metavar="PATH",
              help="Output video (default renders/<slug>-<resolution>.mp4): .mp4 (H.264, for "
                   "slides and players), .webm (VP9) or .gif (at most "
                   f"{GIF_MAX_FPS} fps and {GIF_MAX_WIDTH} px wide, one palette of 256 "
                   "colours); its .srt, .png and .npz are written beside it.")
@drawing_options
@film_settings_options
@narration_option
@captions_option
@burn_captions_option
@versus_option
@dry_run_option
@click.pass_context
def command(ctx: click.Context, output: str | None, **options):
    """Render the explainer video (MP4, WebM or GIF, with .srt captions, a poster .png and
    the .npz trace)."""
    return film_command(ctx, output=output, pack=False, **options)
