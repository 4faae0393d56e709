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
@click.option("--patch", "patch_heads", is_flag=True,
              help="Also patch each head of the layer from B's run into A's (its output at "
                   "every position) and print how far each moves A's output: the next "
                   "token's KL (a decoder) or the sentence embedding's angle.")
@click.option("--noise", is_flag=True,
              help="Also measure the noise floor: the largest change of the focus word's "
                   "weights in 12 random pairs of the same length (A with two of its other "
                   "words swapped), their median and 90th percentile beside this pair's.")
def command(sentence_a: str, sentence_b: str, as_json: bool, patch_heads: bool,
            noise: bool, tracing: TraceOptions):
    """Compare the focus word's attention on two sentences (chosen on the first: its
    layer, heads and focus word are the second's too)."""
    from ..app.inspection import pair_report

    result = pair_report(sentence_a, sentence_b, tracing, patch_heads=patch_heads, noise=noise)
    if as_json:
        echo(result.to_json(), json=True)
        return
    echo("\n".join(result.lines()))
