"""`attention-explainer inspect`: the tokens, the chosen layer and heads and the focus
token's attention, as text or JSON, and the trace saved with --npz."""
from __future__ import annotations

from pathlib import Path

import click

from ..attention_core import DEFAULT_SENTENCE
from ..app.work import beat_cache, compute_trace, interrupts_held
from ..facts import MAX_NEW_TOKENS_RANGE, TRANSLATION_DEFAULTS
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
    from ..attention_core import report
    from ..attention_core.flow import check_method
    from ..attention_core.variants import parse_approx
    from ..files.outputs import OutputSet

    if flow_method is not None:
        check_method(flow_method)
    others = {"--matrix": matrix, "--npz": npz_path, "--diagnose": diagnose,
              "--approx": approx != "none", "--ablate": ablate is not None,
              "--ablation": ablation, "--mask": tracing.mask not in ("none", "causal"),
              "--focus": bool(tracing.focus), "--flow": flow_method is not None,
              "--why": why}
    if translated(sentence, tracing, attention, target, max_new_tokens, as_json,
                  {**others, "--generate": generate is not None, "--focus": False}):
        return None
    if generate is not None:
        return written(sentence, generate, tracing, as_json, others)
    approximation = parse_approx(approx)
    saving = None
    if npz_path:
        saving = OutputSet({"trace": Path(npz_path)}, force=force, what="trace",
                           hint="choose another --npz").check()
    trace = compute_trace(sentence, tracing, beat_cache(False, renders=False))
    atlas = None
    if diagnose:
        with interrupts_held():
            from ..attention_core.api import atlas_for

            atlas = atlas_for(tracing.request(sentence))
    kept = measured_variant(trace, approximation)
    effect, table = silenced_heads(sentence, tracing, trace, ablate, ablation)
    flowed, split = across_layers(sentence, tracing, flow_method, why)
    if saving is not None:
        with saving.opened(report=say):
            trace.save(saving.path("trace"))
            saving.commit()
    if as_json:
        extra = {"ablation": effect.to_json()} if effect is not None else {}
        if flowed is not None:
            extra["flow"] = flowed.to_json()
        if split is not None:
            extra["why"] = split.to_json()
        if table:
            extra["influence"] = [{"layer": r.layer, "head": r.head,
                                   "answer_weight": r.answer_weight,
                                   "special_weight": r.special_weight, **r.effect.to_json()}
                                  for r in table]
        echo(report.to_json(trace, atlas, kept, extra), json=True)
        return
    lines = report.summary_lines(trace) + report.choice_lines(trace) + [""] \
        + report.focus_table(trace) + [""] + report.update_lines(trace)
    if matrix:
        lines += [""] + report.matrix_lines(trace)
    if kept:
        lines += [""] + report.keeps_lines(trace, kept)
    if effect is not None:
        lines += [""] + report.effect_line(effect)
    if table:
        lines += [""] + report.influence_lines(trace, table)
    if flowed is not None:
        lines += [""] + flowed.lines()
    if split is not None:
        lines += [""] + split.lines()
    if atlas is not None:
        lines += [""] + report.diagnosis_lines(atlas)
    if saving is not None:
        lines += ["", f"trace saved to {saving.files['trace']}"]
    echo("\n".join(lines))
    if saving is not None:
        note_settings()


def translated(sentence: str, tracing: TraceOptions, attention: str | None,
               target: str | None, max_new_tokens: int, as_json: bool, others: dict) -> bool:
    """An encoder–decoder folder's attention (printed; True), or False for any other
    model (refusing --attention and --target there)."""
    import json

    from ..attention_core import report
    from ..attention_core.seq2seq import seq2seq_files

    files = seq2seq_files(tracing.model)
    if files is None:
        asked = "--attention" if attention is not None else "--target" if target else None
        if asked:
            raise click.UsageError(f"{asked} reads an encoder–decoder folder (Marian, BART, "
                                   f"mBART, T5, mT5); {tracing.model} is not one.")
        return False
    given = [name for name, on in others.items() if on]
    if given:
        raise click.UsageError(f"an encoder–decoder's attention is printed alone; drop "
                               f"{given[0]}.")
    with interrupts_held():
        from ..attention_core.device import resolve_device, resolve_dtype
        from ..attention_core.seq2seq import align

        result = align(files, sentence, target=target, kind=attention or "cross",
                       layer=tracing.layer, heads=tracing.heads,
                       max_new_tokens=max_new_tokens, device=resolve_device(tracing.device),
                       dtype=resolve_dtype(tracing.dtype))
    if as_json:
        doc = result.to_json()
        if tracing.focus:
            doc["focus_rows"] = result.rows_of(tracing.focus)
        echo(json.dumps(doc, ensure_ascii=False), json=True)
    else:
        echo("\n".join(report.alignment_lines(result, tracing.focus or None)))
    return True


def written(sentence: str, count: int, tracing: TraceOptions, as_json: bool,
            others: dict) -> None:
    """`inspect --generate N`: what a decoder writes, token by token (alone: the options
    about one sentence's trace are refused)."""
    import json

    from ..attention_core import report

    given = [name for name, on in others.items() if on]
    if given:
        raise click.UsageError(f"--generate prints what the model writes, token by token; "
                               f"drop {given[0]}.")
    with interrupts_held():
        from ..attention_core.generation import generate

        generation = generate(tracing.request(sentence), count)
    if as_json:
        echo(json.dumps(generation.to_json(), ensure_ascii=False), json=True)
        return
    echo("\n".join(report.generation_lines(generation)))


def measured_variant(trace, approximation) -> list:
    """What the cheaper attention asked for keeps of each shown head: the approximation,
    else the mask asked for where it is not the model's own; none when neither."""
    from ..attention_core.keeps import keeps

    if approximation is not None:
        return keeps(trace, approximation)
    if trace.meta.get("mask_is_illustration"):
        return keeps(trace, trace.mask_kind)
    return []


def across_layers(sentence: str, tracing: TraceOptions, flow_method: str | None, why: bool):
    """The focus word's sources through every layer (``--flow``) and its scores split by
    the stream's parts (``--why``): (Flow or None, ScoreParts or None)."""
    flowed = split = None
    with interrupts_held():
        if flow_method is not None:
            from ..attention_core.flow import flow_for

            flowed = flow_for(tracing.request(sentence), flow_method)
        if why:
            from ..attention_core.why import why_for

            split = why_for(tracing.request(sentence))
    return flowed, split


def silenced_heads(sentence: str, tracing: TraceOptions, trace, ablate: str | None,
                   ablation: bool):
    """The effect of silencing the heads ``ablate`` names, and (``ablation``) every head
    of the trace's layer ranked by its own: (Effect or None, rows or [])."""
    if ablate is None and not ablation:
        return None, []
    with interrupts_held():
        from ..attention_core import ablation as silencing

        request = tracing.request(sentence)
        effect = silencing.ablation_effect(request, ablate) if ablate is not None else None
        table = silencing.ablation_table(trace, request) if ablation else []
    return effect, table
