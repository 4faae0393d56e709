"""Plain-text and JSON views of a trace for the terminal (`inspect`)."""
from __future__ import annotations

import json

import numpy as np

from . import derived
from .grammar import TARGETS_SAID
from .trace import ARRAY_FIELDS, HINT, OPTIONAL_FIELDS, AttentionTrace

__all__ = ["BAR_WIDTH", "choice_lines", "focus_table", "matrix_lines", "summary_lines", "to_json",
           "update_lines"]

BAR_WIDTH = 24


def _cell(text: str, width: int) -> str:
    return text[:width].ljust(width)


def summary_lines(trace: AttentionTrace) -> list[str]:
    m = trace.meta
    heads = ", ".join(str(h) for h in trace.heads)
    lines = [
        f"sentence  {trace.sentence}",
        f"model     {m.get('model_name', m['model'])}  (weights sha256 {m['weights_sha256'][:12]}…)",
        f"device    {m['device']}, {m['dtype']}",
        f"layer     {trace.layer} of 0..{m.get('num_layers', trace.layer + 1) - 1}"
        f"{'  (auto: the layer with the best head)' if m.get('layer_choice') == 'auto' else ''}",
        f"heads     {heads}  (explained: head {trace.primary_head}; choice: {m.get('head_choice', '?')})",
        f"mask      {trace.mask_kind}"
        + ("  (an illustration: this model is bidirectional)" if m.get("mask_is_illustration") else ""),
        f"focus     {trace.focus_word!r} = token {trace.focus_index}",
        "tokens    " + " ".join(f"{n}:{t}" for n, t in enumerate(trace.tokens)),
    ]
    return lines


# what a head's share of weight went to, by the kind of question (grammar.QUESTION_KINDS)
# inspect says what the looked-for words are for
TARGETS_FOR = {"pronoun": " that it may stand for", "verb": ", who or what it involves"}


def choice_lines(trace: AttentionTrace) -> list[str]:
    """Why the explained head was chosen, and what the runner-up heads shown beside it do:
    the share of each one's weight from the focus that goes to the words that may answer
    the focus word's question (``grammar.Question``; ``selection.head_scores`` also asks that
    it be spread over them, but for a pronoun's), and the two words it goes to most."""
    f = trace.focus_index
    asked = derived.question(trace)
    targets = derived.question_targets(trace)
    if not targets:
        return ["why       the sentence has no other word: heads by their order"]
    kind = asked["kind"] if asked["kind"] in TARGETS_SAID else "word"
    said = TARGETS_SAID[kind] + TARGETS_FOR.get(kind, "")
    compared = int(derived.lookup(trace, "heads_compared"))
    lines = [f"question  {asked['kind']}: the answer is looked for in {said}: "
             + ", ".join(repr(trace.display_tokens[j]) for j in targets)]
    for s, h in enumerate(trace.heads):
        row = trace.weights[s, f].astype(np.float64)
        top = sorted(targets, key=lambda j: (-row[j], j))[:2]
        where = ", ".join(f"{trace.display_tokens[j]} {row[j]:.2f}" for j in top)
        given = trace.meta.get("head_choice", "auto") not in ("auto", "all")
        first = "chosen by --heads:" if given else f"chosen, the best of {compared} heads:"
        what = first if s == 0 else "next:".ljust(len(first))
        lead = "why       head" if s == 0 else "          head"
        spread = ", spread over them" if asked["kind"] != "pronoun" and len(targets) > 1 else ""
        lines.append(f"{lead} {h:<3} {what} {derived.target_weight(trace, s):.2f} of the "
                     f"weight of {trace.display_tokens[f]!r} goes to {said} ({where}){spread}")
    return lines


def focus_table(trace: AttentionTrace) -> list[str]:
    """The focus token's weights onto every token, one column per head, a bar for the
    explained head."""
    f = trace.focus_index
    width = max(8, max(len(t) for t in trace.display_tokens) + 2)
    head_cols = "".join(f"{'head ' + str(h):>9}" for h in trace.heads)
    lines = [f"attention from {trace.display_tokens[f]!r} (row {f}; rows sum to 1):",
             f"  {'#':>3} {_cell('token', width)}{head_cols}   head {trace.primary_head}"]
    slot = trace.primary_slot
    for j, tok in enumerate(trace.display_tokens):
        vals = "".join(f"{trace.weights[s, f, j]:9.4f}" for s in range(len(trace.heads)))
        w = float(trace.weights[slot, f, j])
        bar = "█" * int(round(w * BAR_WIDTH))
        lines.append(f"  {j:>3} {_cell(tok, width)}{vals}   {bar}")
    return lines


def update_lines(trace: AttentionTrace) -> list[str]:
    """What the layer's attention adds to the focus word (over every head, through W_O):
    each token's share of that update and how close the word comes to each token."""
    word = trace.display_tokens[trace.focus_index]
    if not trace.has_update:
        return [f"update of {word!r}: not in this trace (saved before traces held it); {HINT}"]
    width = max(8, max(len(t) for t in trace.display_tokens) + 2)
    # a pre-norm model adds dE to the residual stream x, not to E (what attention read):
    # x + dE and the other tokens' E are not in one space, so no closeness is told
    prenorm = trace.residual is not None
    base = "x" if prenorm else "E"
    lines = [f"update of {word!r} by layer {trace.layer}'s attention (all "
             f"{derived.num_heads_total(trace)} heads, through W_O): |{base}| "
             f"{derived.lookup(trace, 'input_norm'):.1f}, |dE| "
             f"{derived.lookup(trace, 'update_norm'):.1f}, "
             + (f"the new {word!r} = x + dE" if prenorm else
                f"E' = {trace.meta.get('update', '?')}"),
             f"  {'#':>3} {_cell('token', width)}{'share of dE':>12}"
             + ("" if prenorm else f"   cosine with {word!r}: E -> E'")]
    for j, tok in enumerate(trace.display_tokens):
        lines.append(f"  {j:>3} {_cell(tok, width)}{100 * derived.update_share(trace, j):11.1f}%"
                     + ("" if prenorm else f"   {derived.closeness_before(trace, j):+.3f} -> "
                                           f"{derived.closeness_after(trace, j):+.3f}"))
    return lines


def matrix_lines(trace: AttentionTrace) -> list[str]:
    """The whole weight matrix of every selected head (rows: queries, columns: keys)."""
    width = max(6, min(10, max(len(t) for t in trace.display_tokens) + 1))
    lines = []
    for s, h in enumerate(trace.heads):
        lines.append(f"head {h} weights (row = query, column = key):")
        lines.append(" " * (width + 1) + "".join(f"{_cell(t, 7):>8}" for t in trace.display_tokens))
        for i, tok in enumerate(trace.display_tokens):
            lines.append(f"{_cell(tok, width)} " + "".join(
                f"{'-inf' if trace.mask[i, j] else format(trace.weights[s, i, j], '.4f'):>8}"
                for j in range(trace.num_tokens)))
        lines.append("")
    return lines


def diagnosis_lines(atlas) -> list[str]:
    """Every head's pattern, one line each, as the atlas tags it (``attention_core.atlas``),
    the film's head marked."""
    from .atlas import PATTERNS

    lines = [f"heads of {atlas.model} on this sentence (mask: {atlas.mask}): the pattern "
             "each head's weights show, and every pattern's share",
             "layer head  pattern       share   " + " ".join(f"{p[:7]:>7}" for p in PATTERNS)]
    for p in atlas.patterns:
        film = "  <- the film's head" if (p.layer, p.head) == (atlas.film_layer,
                                                                atlas.film_head) else ""
        lines.append(f"{p.layer:>5} {p.head:>4}  {p.tag:<12} {p.share:>6.2f}   "
                     + " ".join(f"{p.shares[k]:>7.2f}" for k in PATTERNS) + film)
    counts = {}
    for p in atlas.patterns:
        counts[p.tag] = counts.get(p.tag, 0) + 1
    lines.append("in all: " + ", ".join(f"{n} {tag}" for tag, n in
                                        sorted(counts.items(), key=lambda kv: -kv[1])))
    return lines


def to_json(trace: AttentionTrace, atlas=None) -> str:
    """The trace's numbers and metadata as one JSON document (same names as the .npz),
    with every head's pattern under "diagnosis" when an atlas is given."""
    doc = {"tokens": list(trace.tokens), "meta": trace.meta}
    if atlas is not None:
        doc["diagnosis"] = atlas.to_json()
    for name in ARRAY_FIELDS + OPTIONAL_FIELDS:
        arr = getattr(trace, name)
        if arr is None:
            continue
        doc[name] = arr.tolist() if arr.dtype == np.bool_ else np.asarray(arr, dtype=float).tolist()
    return json.dumps(doc, ensure_ascii=False)
