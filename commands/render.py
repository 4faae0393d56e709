"""`attention-explainer render`: the explainer video (MP4, WebM or GIF, with .srt captions,
a poster .png and the .npz trace)."""
from __future__ import annotations

from pathlib import Path

import click

from ..attention_core import DEFAULT_SENTENCE
from ..facts import GIF_MAX_FPS, GIF_MAX_WIDTH
from .common import (beat_cache, compute_trace, narration_for, plan_only, render_into,
                     report_files, sentence_and_trace, summary, video_facts)
from .options import (DrawingOptions, TraceOptions, VideoOptions, drawing_options,
                      dry_run_option, narration_option, trace_options, video_options)

__all__ = ["command"]


@click.command("render", epilog="""\b
Examples:
  attention-explainer render "The cat ate the fish" --resolution 720p
  attention-explainer render "我爱北京天安门" --focus 北京 --beats sparks,pull -o beijing.mp4
  attention-explainer render --trace talk.npz --quality draft --jobs 2
  attention-explainer render "The cat ate the fish" -o talk.webm
  attention-explainer render "The cat ate the fish" --narration my-voice/ -o talk.mp4
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
@narration_option
@dry_run_option
@click.pass_context
def command(ctx: click.Context, sentence: str, output: str | None, tracing: TraceOptions,
            video: VideoOptions, drawing: DrawingOptions, narration: str | None,
            dry_run: bool):
    """Render the explainer video (MP4, WebM or GIF, with .srt captions, a poster .png and
    the .npz trace)."""
    from ..outputs import slugify, video_outputs

    sentence, trace = sentence_and_trace(ctx, sentence, tracing, video, drawing,
                                         peek=dry_run)
    if output is None:
        output = Path(video.output_dir) / f"{slugify(sentence)}-{video.label}.mp4"
    outputs = video_outputs(Path(output), force=video.force).check()
    voice = narration_for(narration, video)
    if trace is None:
        trace = compute_trace(sentence, tracing, beat_cache(video.no_cache, peek=dry_run),
                              keep=not dry_run)
    if dry_run:
        return plan_only(trace, video, drawing, outputs.files.values())
    result = render_into(trace, video, drawing, outputs, narration=voice)
    if video.chatty:
        summary(result)
    return report_files([result.video, result.captions, result.poster, result.trace],
                 quiet=video.quiet, as_json=video.as_json, facts=video_facts(result))
