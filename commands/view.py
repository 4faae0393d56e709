"""`attention-explainer view`: every layer and head on the sentence as one interactive,
self-contained HTML page (no network): pick a head, hover a token, see its weights and
the query·key products behind them."""
from __future__ import annotations

from pathlib import Path

import click

from ..facts import DEFAULT_SENTENCE
from .common import report_files, say
from .options import TraceOptions, picture_options, trace_options

__all__ = ["command"]


@click.command("view", epilog="""\b
Examples:
  attention-explainer view "The cat ate the fish" -o cat-view.html
  attention-explainer view "The doctor called the nurse because she was late" \\
      --versus "The doctor called the nurse because he was late" -o pair-view.html
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("-o", "--output", "out_path", type=click.Path(dir_okay=False),
              default="view.html", show_default=True, metavar="FILE.html",
              help="The page to write: one file, its data and script inside.")
@click.option("--versus", metavar="SENTENCE", default=None,
              help="A second sentence (a minimal pair of the first): both views side by side, "
                   "kept at one layer and head, under what `compare` prints for the pair.")
@picture_options("page")
def command(sentence: str, out_path: str, versus: str | None, force: bool, theme: str,
            quiet: bool, tracing: TraceOptions):
    """Write every layer and head on the sentence as one interactive HTML page, offline:
    every head of a layer at once (a checkbox each), a token's weights as lines, the
    query·key products of a query and a key, a thumbnail of every layer × head with its
    pattern tag (click one to open it), and each head silenced (`inspect --ablation`); with
    --versus, a second sentence's view beside it."""
    from ..app.requests import ViewRequest
    from ..app.view import view

    files = view(ViewRequest(sentence=sentence, tracing=tracing, output=Path(out_path),
                             theme=theme, force=force, versus=versus), report=say)
    return report_files(files, quiet=quiet, as_json=False)
