"""`attention-explainer pack`: a lecture pack (the MP4 with chapters, a clip and poster
per beat, WebVTT chapters and captions, PowerPoint slides and an offline web deck)."""
from __future__ import annotations

from pathlib import Path

import click

from ..attention_core import DEFAULT_SENTENCE
from .common import (beat_cache, compute_trace, narration_for, plan_only, render_into,
                     report_files, sentence_and_trace, summary, video_facts)
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
            dry_run: bool):
    """Render a lecture pack: the MP4 with chapters, each beat as a clip with its poster,
    WebVTT chapters and captions, PowerPoint slides and an offline web deck."""
    from ..lecture_pack import LecturePack, pack_outputs
    from ..outputs import slugify

    sentence, trace = sentence_and_trace(ctx, sentence, tracing, video, drawing,
                                         peek=dry_run)
    if out_dir is None:
        out_dir = Path(video.output_dir) / f"{slugify(sentence)}-{video.label}-pack"
    outputs = pack_outputs(Path(out_dir), video.beats, force=video.force)
    voice = narration_for(narration, video)
    if trace is None:
        trace = compute_trace(sentence, tracing, beat_cache(video.no_cache, peek=dry_run),
                              keep=not dry_run)
    if dry_run:
        return plan_only(trace, video, drawing, outputs.files.values())
    result = render_into(trace, video, drawing, outputs, narration=voice,
                         also=LecturePack(trace, video.width, video.height))
    if video.chatty:
        summary(result)
    return report_files(list(outputs.files.values()), quiet=video.quiet, as_json=video.as_json,
                 facts=video_facts(result))
