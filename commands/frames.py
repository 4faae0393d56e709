"""`attention-explainer frames`: PNG stills of beats at chosen times, a contact sheet, or
a check of the stills against golden PNGs (exit 1 on a change)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..facts import DEFAULT_MAX_SHARE, DEFAULT_SENTENCE, DEFAULT_STILLS_DIR, DEFAULT_TOLERANCE
from ..facts import BEAT_NAMES, DEFAULT_FPS, DEFAULT_RESOLUTION, STILL_FORMATS
from .common import report_files, saved_trace, say
from .options import (BEATS, FPS, MILLIMETRES, RESOLUTION, TIMES, DrawingOptions, FilmSettings,
                      TraceOptions, film_settings_options,
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
@click.option("--out", "out_dir", default=DEFAULT_STILLS_DIR, show_default=True,
              type=click.Path(file_okay=True), help="Folder for the PNGs (<beat>-<t>s.png).")
@click.option("--resolution", default=DEFAULT_RESOLUTION, show_default=True, type=RESOLUTION,
              help="Still size.")
@click.option("--fps", default=DEFAULT_FPS, show_default=True, type=FPS,
              help="Frame rate the times are counted in.")
@click.option("--format", "still_format", default="png", show_default=True,
              type=click.Choice(list(STILL_FORMATS)),
              help="png, or the same picture as vector graphics for print: svg or pdf "
                   "(drawn by Cairo as the PNG is, every label as text).")
@click.option("--width-mm", type=MILLIMETRES,
              help="svg/pdf: the figure's width on paper, in millimetres (its height in "
                   "proportion) [default: a pixel of --resolution is a px (svg), a pt (pdf)].")
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
@film_settings_options
@click.pass_context
def command(ctx, sentence, beat, times, out_dir, resolution, fps, still_format, width_mm, sheet_path,
            golden_dir, tolerance, max_diff_share, jobs, no_cache, force, quiet, as_json,
            tracing: TraceOptions, drawing: DrawingOptions, trace_path,
            settings: FilmSettings):
    """Write stills of beats at chosen times (PNG, or SVG or PDF for print), a contact sheet,
    or check against goldens."""
    from ..app import work
    from ..app.requests import StillsRequest

    trace = saved_trace(ctx, trace_path)
    request = StillsRequest(source=sentence if trace is None else trace,
                            tracing=None if trace is not None else tracing, drawing=drawing,
                            beats=beat, times=times, out_dir=Path(out_dir),
                            resolution=resolution, fps=fps,
                            sheet=Path(sheet_path) if sheet_path else None,
                            golden=Path(golden_dir) if golden_dir else None, jobs=jobs,
                            no_cache=no_cache, force=force, format=still_format,
                            width_mm=width_mm, settings=settings)
    made = work.stills(request, report=None if quiet else say, tolerance=tolerance,
                       max_share=max_diff_share)
    files = report_files(made.files, quiet=quiet, as_json=as_json)
    if request.golden is not None:
        for line in made.changed:
            say(f"changed: {line}")
        if made.changed:
            sys.exit(1)
        if not (quiet or as_json):
            say(f"all {made.compared} frames match {request.golden}")
    return files
