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
    import dataclasses
    import json

    from ..app.work import compare, noise_floor, patch
    from ..attention_core import report
    from ..attention_core.patching import patch_lines

    comparison = compare(sentence_a, sentence_b, tracing)
    # patched at the pair's own focus word (compare may choose the word the pair changes)
    asked = dataclasses.replace(tracing, focus=str(comparison.a.meta["focus"]))
    rows, streams = patch(sentence_a, sentence_b, asked, int(comparison.a.layer)) \
        if patch_heads else (None, None)
    floor = noise_floor(sentence_a, tracing, comparison) if noise else None
    if as_json:
        doc = comparison.to_json()
        if rows is not None:
            doc["patch"] = [r.to_json() for r in rows]
            doc["patch_stream"] = [{"layer": n, **{k: v for k, v in e.to_json().items()
                                                   if k != "silenced"}} for n, e in streams]
        if noise:
            doc["noise"] = floor
        echo(json.dumps(doc, ensure_ascii=False), json=True)
        return
    lines = report.compare_lines(comparison)
    if rows is not None:
        lines += [""] + patch_lines(rows, sentence_a, sentence_b, streams,
                                    comparison.a.display_tokens[comparison.a.focus_index])
    if noise:
        lines += ["", report.noise_line(floor)]
    echo("\n".join(lines))
