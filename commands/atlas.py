"""`attention-explainer atlas`: every layer × head's weights on the sentence as one still
(PNG and SVG), each head tagged by the pattern its weights show, the film's head marked."""
from __future__ import annotations

from pathlib import Path

import click

from ..attention_core import DEFAULT_SENTENCE
from ..attention_core.errors import InputError
from ..facts import DEFAULT_THEME, THEMES
from .common import interrupts_held, report_files, say, use_theme
from .options import TraceOptions, trace_options

__all__ = ["command"]


@click.command("atlas", epilog="""\b
Examples:
  attention-explainer atlas "The cat ate the fish" --out atlas.png
  attention-explainer inspect "The cat ate the fish" --diagnose
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default="atlas.png",
              show_default=True, metavar="FILE.png",
              help="The PNG to write; the SVG is written beside it (FILE.svg).")
@click.option("--force", is_flag=True, help="Overwrite an existing atlas.")
@click.option("--theme", default=DEFAULT_THEME, show_default=True, type=click.Choice(list(THEMES)),
              help="The stage's colours, as the film's.")
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
def command(sentence: str, out_path: str, force: bool, theme: str, quiet: bool,
            tracing: TraceOptions):
    """Draw every layer × head's weight matrix on the sentence as one picture (PNG and SVG)
    for a slide, each head tagged by the pattern its weights show (sink, previous, next,
    itself, punctuation, content, broad) with its share; the head the film would explain
    is outlined. --layer N draws that layer's heads alone."""
    from ..outputs import OutputSet

    if (tracing.mask or "none").strip().lower() != "none":
        raise InputError(f"--mask {tracing.mask}: the atlas draws the model's own attention "
                         "(a decoder's causal mask included), not a mask added to teach with; "
                         "drop --mask.")
    png = Path(out_path)
    if png.suffix.lower() != ".png":
        raise InputError(f"--out {out_path!r} must name a .png file (the SVG goes beside "
                         "it); e.g. --out atlas.png.")
    outputs = OutputSet({"atlas": png, "svg": png.with_suffix(".svg")}, force=force,
                        what="atlas", hint="choose another --out or add --force").check()
    with interrupts_held():
        from ..attention_core.api import atlas_for

        atlas = atlas_for(tracing.request(sentence))
    use_theme(theme)
    from ..scenes.atlas import MAX_PIXELS, picture_size, write_atlas

    width, height = picture_size(atlas)
    if width * height > MAX_PIXELS:
        raise InputError(f"the atlas of {len(atlas.layers)} layers x {atlas.weights.shape[1]} "
                         f"heads would be {width}x{height} pixels, too large for one picture; "
                         "draw one layer at a time with --layer N.")

    with outputs.opened(report=say):
        write_atlas(atlas, outputs.path("atlas"), outputs.path("svg"))
        outputs.commit()
    return report_files(outputs.files.values(), quiet=quiet, as_json=False)
