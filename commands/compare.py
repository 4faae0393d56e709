"""`attention-explainer compare`: a minimal pair, as `inspect` prints one sentence: the same
model, layer, heads and focus word on two sentences, their words aligned, the focus word's
weights in both and their change, the update's shares in both."""
from __future__ import annotations

import click

from .common import echo
from .options import TraceOptions, trace_options

__all__ = ["command"]


@click.command("compare", epilog="""\b
Examples:
  attention-explainer compare "The cat ate the fish" "The fish ate the cat"
""")
@click.argument("sentence_a")
@click.argument("sentence_b")
@trace_options
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def command(sentence_a: str, sentence_b: str, as_json: bool, tracing: TraceOptions):
    """Compare the focus word's attention on two sentences (chosen on the first: its
    layer, heads and focus word are the second's too)."""
    import json

    from ..app.work import compare
    from ..attention_core import report

    comparison = compare(sentence_a, sentence_b, tracing)
    if as_json:
        echo(json.dumps(comparison.to_json(), ensure_ascii=False), json=True)
        return
    echo("\n".join(report.compare_lines(comparison)))
