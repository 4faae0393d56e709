"""`attention-explainer frames`: PNG stills of beats at chosen times, a contact sheet, or
a check of the stills against golden PNGs (exit 1 on a change)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..attention_core import DEFAULT_SENTENCE
from ..facts import BEAT_NAMES, DEFAULT_FPS, DEFAULT_RESOLUTION
from ..scenes.pipeline.regression import DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE
from .common import (beat_cache, compute_trace, drawable_sentence, interrupts_held, report_files,
                     saved_trace, say, use_theme)
from .options import (BEATS, FPS, RESOLUTION, TIMES, DrawingOptions, TraceOptions,
                      drawing_options, trace_options)

__all__ = ["command"]


@click.command("frames")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--beat", default="all", show_default=True, type=BEATS,
              help="Beat(s) to draw, comma-separated: " + ", ".join(BEAT_NAMES) + "; or all, "
                   "the default film's (an optional beat is drawn only when named).")
@click.option("--at", "times", default="key", show_default=True, type=TIMES,
              help="When, in seconds from the beat's start; key = the frame that best shows "
                   "the beat, end = its last frame.")
@click.option("--out", "out_dir", default="renders/frames", show_default=True,
              type=click.Path(file_okay=True), help="Folder for the PNGs (<beat>-<t>s.png).")
@click.option("--resolution", default=DEFAULT_RESOLUTION, show_default=True, type=RESOLUTION,
              help="Still size.")
@click.option("--fps", default=DEFAULT_FPS, show_default=True, type=FPS,
              help="Frame rate the times are counted in.")
@click.option("--contact-sheet", "sheet_path", type=click.Path(dir_okay=True), metavar="PATH",
              help="Also write one labelled grid of the beats' key frames (.png, .jpg or .webp).")
@click.option("--check", "golden_dir", type=click.Path(file_okay=True), metavar="GOLDEN_DIR",
              help="Compare each still with the golden PNG of the same name; exit 1 on change.")
@click.option("--tolerance", default=DEFAULT_TOLERANCE, show_default=True,
              type=click.IntRange(0, 255),
              help="--check: a pixel differs when a channel moves by more than this (the "
                   "default tolerates a new machine's rasteriser; 0 compares exactly).")
@click.option("--max-diff-share", default=DEFAULT_MAX_SHARE, show_default=True,
              type=click.FloatRange(0, 1),
              help="--check: share of differing pixels still accepted (0 = none).")
@click.option("--jobs", type=click.IntRange(1, 256), metavar="N",
              help="Beats drawn at once, each in its own process [default: the cores].")
@click.option("--no-cache", is_flag=True,
              help="Build every text afresh, without reading or filling the cache.")
@click.option("--force", is_flag=True,
              help="Replace stills and a contact sheet that exist (else they are refused).")
@click.option("--quiet", is_flag=True, help="Print nothing but what changed (with --check).")
@click.option("--json", "as_json", is_flag=True, help="Print the files written as JSON.")
@drawing_options
@click.pass_context
def command(ctx, sentence, beat, times, out_dir, resolution, fps, sheet_path, golden_dir,
            tolerance, max_diff_share, jobs, no_cache, force, quiet, as_json,
            tracing: TraceOptions, drawing: DrawingOptions):
    """Write PNG stills of beats at chosen times, a contact sheet, or check against goldens."""
    with interrupts_held():         # the first import of manim (see interrupts_held)
        from ..scenes.pipeline.stills import StillsJob

    width, height, _ = resolution
    job = StillsJob(beats=beat, times=times, out_dir=Path(out_dir), width=width, height=height,
                    fps=fps, sheet=Path(sheet_path) if sheet_path else None,
                    golden=Path(golden_dir) if golden_dir else None, jobs=jobs,
                    cache=beat_cache(no_cache), force=force).check()
    trace = saved_trace(ctx, drawing)
    if trace is None:
        drawable_sentence(sentence, tracing, drawing.max_tokens)
        trace = compute_trace(sentence, tracing, job.cache)
    use_theme(drawing.theme)
    written = job.run(trace, report=None if quiet else say)
    files = report_files(written, quiet=quiet, as_json=as_json)
    if job.golden is not None:
        failed = job.compare(tolerance=tolerance, max_share=max_diff_share)
        for line in failed:
            click.echo(f"changed: {line}", err=True)
        if failed:
            sys.exit(1)
        if not (quiet or as_json):
            say(f"all {len(job.stills)} frames match {job.golden}")
    return files
