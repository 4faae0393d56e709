"""`attention-explainer inspect`: the tokens, the chosen layer and heads and the focus
token's attention, as text or JSON, and the trace saved with --npz."""
from __future__ import annotations

from pathlib import Path

import click

from ..facts import DEFAULT_SENTENCE, MAX_NEW_TOKENS_RANGE, TRANSLATION_DEFAULTS
from .common import echo, note_settings, say
from .options import TraceOptions, trace_options

__all__ = ["command"]


@click.command("inspect")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--matrix", is_flag=True, help="Also print every head's whole weight matrix.")
@click.option("--json", "as_json", is_flag=True, help="Print the trace's numbers as JSON.")
@click.option("--npz", "npz_path", type=click.Path(dir_okay=True), metavar="PATH",
              help="Save the trace (.npz, the AttentionTrace field names as keys).")
@click.option("--force", is_flag=True, help="Overwrite an existing --npz file.")
@click.option("--diagnose", is_flag=True,
              help="Also tag every layer's every head by the pattern its weights show (sink, "
                   "previous, next, itself, punctuation, content, broad), as `atlas` draws them.")
@click.option("--approx", default="none", show_default=True, metavar="none|lowrank:R",
              help="Also measure what the scores' best rank-R approximation keeps of the "
                   "shown heads (as a --mask asked for is measured).")
@click.option("--ablate", default=None, metavar="L:H[,L:H...]|L:all",
              help="Silence these heads (their outputs zeroed before W_O) in the model's own "
                   "forward and print the effect on its output: the sentence embedding "
                   "(MiniLM) or the next token's distribution (a decoder).")
@click.option("--ablation", is_flag=True,
              help="Silence each head of the shown layer alone and rank them by their effect "
                   "on the model's output, beside their weight on the focus word's answer.")
@click.option("--flow", "flow_method", default=None, metavar="rollout|flow|value-zeroing|norms",
              help="Also carry the focus word's attention through every layer (attention "
                   "rollout, attention flow, value zeroing or norms), beside the last layer's "
                   "own weights, and say how far leave-one-out bears it out (Kendall's tau).")
@click.option("--why", "why", is_flag=True,
              help="Also split the explained head's score of the focus word with each key "
                   "into the parts of the residual stream that make the key (token "
                   "embedding, position, each earlier layer's attention and MLP): a pre-norm "
                   "model's (GPT-2, Llama, ...).")
@click.option("--generate", "generate", type=int, default=None, metavar="N",
              help="A decoder (GPT-2, Llama, Mistral, Qwen2 folder) continues the sentence by "
                   "N greedy tokens with its language-model head; for each, its query in the "
                   "layer (auto: the last) over the growing cache of keys, per head, and the "
                   "next token's likeliest choices.")
@click.option("--attention", "attention", default=None,
              type=click.Choice(["cross", "self", "decoder"]),
              help="An encoder–decoder folder (Marian, BART, mBART, T5, mT5): which attention "
                   "to print, "
                   "cross (the decoder's queries over the source; the default), self (the "
                   "encoder's) or decoder (the decoder's own, causal).")
@click.option("--target", "target", default=None, metavar="TEXT",
              help="An encoder–decoder's translation to read (teacher-forced) [default: the "
                   "model's own greedy translation].")
@click.option("--max-new-tokens", "max_new_tokens",
              default=TRANSLATION_DEFAULTS["max_new_tokens"], show_default=True,
              type=click.IntRange(*MAX_NEW_TOKENS_RANGE),
              help="The longest translation the model writes.")
def command(sentence: str, matrix: bool, as_json: bool, npz_path: str | None, force: bool,
            diagnose: bool, approx: str, ablate: str | None, ablation: bool,
            flow_method: str | None, why: bool, generate: int | None, attention: str | None, target: str | None,
            max_new_tokens: int, tracing: TraceOptions):
    """Print the tokens, the chosen layer and heads and the focus token's attention."""
    from ..app.inspection import (InspectRequest, alignment_report, check_flow_method,
                                  inspection, is_seq2seq, writing_report)

    check_flow_method(flow_method)
    others = {"--matrix": matrix, "--npz": npz_path, "--diagnose": diagnose,
              "--approx": approx != "none", "--ablate": ablate is not None,
              "--ablation": ablation, "--mask": tracing.mask not in ("none", "causal"),
              "--focus": bool(tracing.focus), "--flow": flow_method is not None,
              "--why": why}
    if not is_seq2seq(tracing.model):
        asked = "--attention" if attention is not None else "--target" if target else None
        if asked:
            raise click.UsageError(f"{asked} reads an encoder–decoder folder (Marian, BART, "
                                   f"mBART, T5, mT5); {tracing.model} is not one.")
    else:
        alone("an encoder–decoder's attention is printed alone",
              {**others, "--generate": generate is not None, "--focus": False})
        echo(alignment_report(sentence, tracing, attention=attention, target=target,
                              max_new_tokens=max_new_tokens, as_json=as_json), json=as_json)
        return
    if generate is not None:
        alone("--generate prints what the model writes, token by token", others)
        echo(writing_report(sentence, generate, tracing, as_json=as_json), json=as_json)
        return
    result = inspection(InspectRequest(
        sentence, tracing, matrix=matrix, diagnose=diagnose, approx=approx, ablate=ablate,
        ablation=ablation, flow_method=flow_method, why=why,
        npz=Path(npz_path) if npz_path else None, force=force), report=say)
    if as_json:
        echo(result.to_json(), json=True)
        return
    echo("\n".join(result.lines()))
    if result.saved is not None:
        note_settings()


def alone(what: str, others: dict) -> None:
    """Refuse the first of the ``others`` options given: ``what`` is printed alone."""
    given = [name for name, on in others.items() if on]
    if given:
        raise click.UsageError(f"{what}; drop {given[0]}.")
