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
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("-o", "--output", "out_path", type=click.Path(dir_okay=False),
              default="view.html", show_default=True, metavar="FILE.html",
              help="The page to write: one file, its data and script inside.")
@picture_options("page")
def command(sentence: str, out_path: str, force: bool, theme: str, quiet: bool,
            tracing: TraceOptions):
    """Write every layer and head on the sentence as one interactive HTML page, offline:
    every head of a layer at once (a checkbox each), a token's weights as lines, the
    query·key products of a query and a key, a thumbnail of every layer × head with its
    pattern tag (click one to open it), and each head silenced (`inspect --ablation`)."""
    from ..app.requests import ViewRequest
    from ..app.view import view

    files = view(ViewRequest(sentence=sentence, tracing=tracing, output=Path(out_path),
                                  theme=theme, force=force), report=say)
    return report_files(files, quiet=quiet, as_json=False)
