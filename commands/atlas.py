"""`attention-explainer atlas`: every layer × head's weights on the sentence as one still
(PNG and SVG), each head tagged by the pattern its weights show, the film's head marked."""
from __future__ import annotations

from pathlib import Path

import click

from ..facts import DEFAULT_SENTENCE
from .common import report_files, say
from .options import TraceOptions, picture_options, trace_options

__all__ = ["command"]


@click.command("atlas", epilog="""\b
Examples:
  attention-explainer atlas "The cat ate the fish" --out atlas.png
  attention-explainer inspect "The cat ate the fish" --diagnose
  attention-explainer atlas "the cat sat" --model ./my-marian --attention cross --out cross.png
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default="atlas.png",
              show_default=True, metavar="FILE.png",
              help="The PNG to write; the SVG is written beside it (FILE.svg).")
@click.option("--attention", "attention", default=None,
              type=click.Choice(["cross", "self", "decoder"]),
              help="An encoder–decoder folder (Marian, BART, mBART, T5, mT5): which attention "
                   "to draw, cross (the default), self (the encoder's) or decoder (the "
                   "decoder's own, causal).")
@click.option("--target", "target", default=None, metavar="TEXT",
              help="An encoder–decoder's translation to read [default: the model's own].")
@picture_options("atlas")
def command(sentence: str, out_path: str, attention: str | None, target: str | None,
            force: bool, theme: str, quiet: bool, tracing: TraceOptions):
    """Draw every layer × head's weight matrix on the sentence as one picture (PNG and SVG)
    for a slide, each head tagged by the pattern its weights show (sink, previous, next,
    itself, punctuation, content, broad) with its share; the head the film would explain
    is outlined. --layer N draws that layer's heads alone. On an encoder–decoder folder it
    draws one kind of its attention (--attention), labelled as such."""
    from ..app import work
    from ..app.requests import AtlasRequest

    files = work.atlas(AtlasRequest(sentence=sentence, tracing=tracing, output=Path(out_path),
                                    theme=theme, force=force, attention=attention,
                                    target=target), report=say)
    return report_files(files, quiet=quiet, as_json=False)
