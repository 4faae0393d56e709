"""Plain-text and JSON views of a trace for the terminal (`inspect`)."""
from __future__ import annotations

import json

import numpy as np

from . import derived
from .grammar import ONE_ANSWER, TARGETS_SAID, UNTAGGED
from .trace import ARRAY_FIELDS, HINT, OPTIONAL_FIELDS, AttentionTrace
from .variants import head_blocked
from .word_model import PIECES_SUM_NOTE, WordModel

__all__ = ["BAR_WIDTH", "alignment_lines", "choice_lines", "compare_lines", "effect_line",
           "focus_table", "generation_lines", "influence_lines",
           "keeps_json", "keeps_lines", "matrix_lines", "summary_lines", "to_json", "update_lines",
           "word_lines", "words_json"]

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
        f"focus     {_focus_named(trace)} = token {trace.focus_index}",
        "tokens    " + " ".join(f"{n}:{t}" for n, t in enumerate(trace.tokens)),
    ]
    return lines


def _focus_named(trace: AttentionTrace) -> str:
    """The focus as inspect names it: its token, with its word where it is a piece of a
    word in several ('с' in 'съела': the query followed is the piece's)."""
    word = WordModel.of_trace(trace).word_of(trace.focus_index)
    first, last = trace.focus_span
    whole = trace.focus_span_text if last > first else (word.text if word.split else None)
    named = repr(trace.display_tokens[trace.focus_index])
    return f"{named} in {whole!r}" if whole and whole != trace.display_tokens[
        trace.focus_index] else named


# what a head's share of weight went to, by the kind of question (grammar.QUESTION_KINDS)
# inspect says what the looked-for words are for
TARGETS_FOR = {"pronoun": " that it may stand for", "verb": ", who or what it involves",
               "adjective": " that it may describe", "number": " that it may count",
               "noun": " that may say something of it"}


def choice_lines(trace: AttentionTrace) -> list[str]:
    """Why the explained head was chosen, and what the runner-up heads shown beside it do:
    the share of each one's weight from the focus that goes to the words that may answer
    the focus word's question (``grammar.Question``; ``selection.head_scores`` also asks that
    it be spread over them, but where one word answers), a word weighing the sum of its pieces,
    beside what a head spreading its weight evenly gives them (the chance level), and the
    two words it goes to most."""
    f = trace.focus_index
    asked = derived.question(trace)
    words = WordModel.of_trace(trace)
    answering = derived.answer_words(trace)
    if not answering:
        return ["why       the sentence has no other word: heads by their order"]
    kind = asked["kind"] if asked["kind"] in TARGETS_SAID else "word"
    said = TARGETS_SAID[kind] + TARGETS_FOR.get(kind, "")
    compared = int(derived.lookup(trace, "heads_compared"))
    lines = [f"question  {asked['kind']}: the answer is looked for in {said}: "
             + ", ".join(repr(words.words[w].text) + words.words[w].told_apart
                         for w in answering)]
    if asked["kind"] == "word" and not asked.get("tagger"):
        lines.append(f"          {UNTAGGED}")
    hidden = asked.get("hidden")
    if hidden:
        lines.append(f"          the mask hides {TARGETS_SAID[hidden]} from "
                     f"{trace.display_tokens[f]!r}: asked of what it sees instead")
    if words.any_split(answering):
        lines.append(f"          {PIECES_SUM_NOTE}")
    even = derived.uniform_target_weight(trace)
    for s, h in enumerate(trace.heads):
        sums = words.sums(trace.weights[s, f])
        top = sorted(answering, key=lambda w: (-sums[w], w))[:2]
        where = ", ".join(f"{words.words[w].text}{words.words[w].told_apart} {sums[w]:.2f}"
                          for w in top)
        given = trace.meta.get("head_choice", "auto") not in ("auto", "all")
        first = "chosen by --heads:" if given else f"chosen, the best of {compared} heads:"
        what = first if s == 0 else "next:".ljust(len(first))
        lead = "why       head" if s == 0 else "          head"
        spread = ", spread over them" if asked["kind"] not in ONE_ANSWER and len(answering) > 1 \
            else ""
        lines.append(f"{lead} {h:<3} {what} {derived.target_weight(trace, s):.2f} of the "
                     f"weight of {_focus_named(trace)} goes to {said} ({where}){spread}"
                     f"; an even spread: {even:.2f}")
    if "head_score_baseline" in trace.meta:
        scores = ", ".join(f"{x:.2f}" for x in trace.meta.get("head_scores", []))
        lines.append(f"          scores {scores}; a head spreading its weight evenly scores "
                     f"{trace.meta['head_score_baseline']:.2f}")
    return lines


def word_lines(trace: AttentionTrace) -> list[str]:
    """The sentence's words as written, each the run of tokens that make it, with the
    weight the focus gives it in each head (the sum of its pieces)."""
    f = trace.focus_index
    words = WordModel.of_trace(trace)
    sums = [words.sums(trace.weights[s, f]) for s in range(len(trace.heads))]
    width = max(8, max(len(w.text) for w in words.words) + 2)
    head_cols = "".join(f"{'head ' + str(h):>9}" for h in trace.heads)
    lines = [f"words as written (a word weighs the sum of its pieces), from "
             f"{trace.display_tokens[f]!r}:",
             f"  {'tokens':>7} {_cell('word', width)}{head_cols}"]
    for n, word in enumerate(words.words):
        span = f"{word.first}" if not word.split else f"{word.first}-{word.last}"
        kind = "" if word.kind == "word" else f"  ({word.kind})"
        lines.append(f"  {span:>7} {_cell(word.text, width)}"
                     + "".join(f"{sums[s][n]:9.4f}" for s in range(len(trace.heads))) + kind)
    return lines


def words_json(trace: AttentionTrace) -> list[dict]:
    """The words as written for ``--json``: text, token span, kind, the focus's weight on
    each in every shown head and its share of the update (sums of the pieces')."""
    f = trace.focus_index
    words = WordModel.of_trace(trace)
    sums = [words.sums(trace.weights[s, f]) for s in range(len(trace.heads))]
    out = []
    for n, word in enumerate(words.words):
        entry = {"text": word.text, "tokens": [word.first, word.last], "kind": word.kind,
                 "weights": [float(sums[s][n]) for s in range(len(trace.heads))]}
        if word.occurrence:         # which of the words written the same it is (1, 2, ...)
            entry["occurrence"] = word.occurrence
        if trace.has_update:
            entry["update_share"] = derived.word_update_share(trace, word.first, word.last)
        out.append(entry)
    return out


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
        blocked = head_blocked(trace, s)
        for i, tok in enumerate(trace.display_tokens):
            lines.append(f"{_cell(tok, width)} " + "".join(
                f"{'-inf' if blocked[i, j] else format(trace.weights[s, i, j], '.4f'):>8}"
                for j in range(trace.num_tokens)))
        lines.append("")
    return lines


def keeps_lines(trace: AttentionTrace, kept: list) -> list[str]:
    """What a cheaper attention keeps of each shown head (``keeps.keeps``): the weight the
    real and the variant's rows share, the output's relative error and cosine, for the
    focus word and over every row, and whether the question gets the same answer."""
    words = WordModel.of_trace(trace)
    focus = trace.display_tokens[trace.focus_index]

    def named(w):
        return "nothing" if w is None else repr(words.words[w].text) + words.words[w].told_apart

    lines = [f"what {kept[0].variant} keeps of the real head, as the model ran it (an "
             "illustration: the model was not trained with it)",
             f"head  weight kept ({focus} | all rows)  output error ({focus} | all)  "
             f"cosine ({focus} | all)  answer"]
    for k in kept:
        answer = (f"{named(k.answer)} stays" if k.same_answer
                  else f"{named(k.answer)} -> {named(k.answer_after)}")
        lines.append(f"{k.head:>4}  {100 * k.weight_kept:>9.1f} % | {100 * k.weight_kept_all:5.1f} %"
                     f"{100 * k.error:>15.1f} % | {100 * k.error_all:5.1f} %"
                     f"{k.cosine:>11.3f} | {k.cosine_all:.3f}  {answer}")
    return lines


def effect_line(effect) -> list[str]:
    """What silencing heads did to the model's output (``ablation.Effect``)."""
    heads = ", ".join(f"{layer}:{head}" for layer, head in effect.silenced)
    lines = [f"silenced  {heads} (outputs zeroed before W_O, in the model's own forward)"]
    if effect.kl is None:
        lines.append(f"effect    {effect.kind}: turned {effect.said()}; the focus word's "
                     f"final vector: cosine {effect.focus_cosine:.4f}")
        return lines + _floor_line(effect)
    lines.append(f"effect    {effect.kind}: KL(before || after) {effect.kl:.4f} nats; the "
                 f"focus word's final vector: cosine {effect.focus_cosine:.4f}")
    for name, top in (("before", effect.top_before), ("after", effect.top_after)):
        lines.append(f"  {name:<7} " + "  ".join(f"{t!r} {p:.3f}" for t, p in top))
    return lines + _floor_line(effect)


def _floor_line(effect) -> list[str]:
    """Where the effect stands against one head of the same layer silenced alone (the
    noise floor), in the effect's own unit: nats, or degrees."""
    import math

    if not effect.floor:
        return []
    median, p90, heads = effect.floor

    def said(size: float) -> str:
        if effect.kl is not None:
            return f"{size:.5f} nats"
        return f"{math.degrees(math.acos(max(-1.0, min(1.0, 1.0 - size)))):.3f}\u00b0"
    where = ("above its 90th percentile" if effect.size > p90 else
             "between its median and 90th percentile" if effect.size >= median else
             "below its median")
    lines = [f"noise     one head of the same layer silenced alone moves it by a median "
             f"{said(median)}, a 90th percentile {said(p90)} (its {heads} heads): this effect "
             f"is {where}"]
    if effect.mean_ablated is not None:
        lines.append(f"mean      the same heads mean-ablated (each output its mean over the "
                     f"sentence's positions, not zeroed): {said(effect.mean_ablated)}")
    return lines


ATTENTION_KINDS = {"cross": "cross-attention: the decoder's queries over the encoder's keys",
                   "self": "the encoder's self-attention",
                   "decoder": "the decoder's self-attention (causal)"}


def alignment_lines(alignment, focus: str | None = None) -> list[str]:
    """An encoder–decoder's attention (``seq2seq.Alignment``): for each query token, the
    keys its weights favour, the mean over the heads shown; with ``focus``, that token's
    row head by head too."""
    a = alignment
    mean = a.weights.mean(axis=0)
    whose = "the model's own (greedy)" if a.own_translation else "given"
    lines = [f"{a.model}, layer {a.layer}: {ATTENTION_KINDS[a.kind]}; heads "
             f"{', '.join(map(str, a.heads))} (their mean below)",
             f"source    {' '.join(repr(t) for t in a.source)}",
             f"target    {' '.join(repr(t) for t in a.target)}  (the translation: {whose})", ""]
    what = "target token (the query that wrote it)" if a.kind == "cross" else "token"
    lines.append(f"each {what}: the keys it weighs most")
    for n, query in enumerate(a.queries):
        best = np.argsort(-mean[n], kind="stable")[:3]
        lines.append(f"  {query!r:<14} " + ", ".join(f"{a.keys[k]!r} {mean[n, k]:.2f}"
                                                    for k in best))
    for n in (a.rows_of(focus) if focus else []):
        lines += ["", f"{a.queries[n]!r} (row {n}), head by head: the keys it weighs most"]
        for h, row in zip(a.heads, a.weights[:, n]):
            best = np.argsort(-row, kind="stable")[:3]
            lines.append(f"  head {h:<3} " + ", ".join(f"{a.keys[k]!r} {row[k]:.2f}"
                                                       for k in best))
    return lines


def generation_lines(generation) -> list[str]:
    """A decoder's writing (``generation.Generation``): each token as chosen, with its
    likeliest alternatives, then fed back in: each shown head's strongest key in the cache
    and the first token's share; an attention sink named where it is large."""
    from .generation import sink_line

    g = generation
    done = "; it wrote its end-of-text token" if g.stopped == "end of text" else ""
    lines = [f"{g.model}: {len(g.written)} token{'s' * (len(g.written) != 1)} written after "
             f"the prompt's {len(g.prompt)}, each the likeliest of its language-model head's "
             f"next-token distribution (greedy){done}",
             f"prompt    {''.join(g.prompt)!r}", f"written   {g.text!r}", "",
             f"each new token, fed back in: its query in layer {g.layer} over the cache of keys "
             f"(heads {', '.join(map(str, g.heads))})"]
    for n, w in enumerate(g.written, 1):
        then = ", ".join(f"{t!r} {p:.2f}" for t, p in w.top[1:4])
        lines.append(f"{n:>3}. {w.text!r} p {w.probability:.2f} (then {then}); {len(w.keys)} "
                     f"keys, the first takes {w.first_share.mean():.2f}")
        strongest = [f"{h}: {w.keys[int(np.argmax(row))]!r} {row.max():.2f}"
                     for h, row in zip(g.heads, w.weights)]
        lines.append("     strongest key by head  " + ", ".join(strongest))
    sink = sink_line(g)
    return lines + (["", sink] if sink else [])


def influence_lines(trace: AttentionTrace, rows: list) -> list[str]:
    """Weight is not influence: every head of the layer, by what silencing it alone does
    to the model's output, beside its weight on the focus word's answer and on special
    tokens (``ablation.ablation_table``)."""
    focus = trace.display_tokens[trace.focus_index]
    kind = rows[0].effect.kind if rows else "output"
    measure = "KL, nats" if rows and rows[0].effect.kl is not None else "degrees"
    lines = [f"weight vs influence in layer {trace.layer}: each head silenced alone, its effect "
             f"on the {kind} ({measure}), beside the weight {focus!r} gives",
             f"head  effect on {kind:<20} weight on the answer  on special tokens  "
             "focus vector cosine"]
    for r in rows:
        film = "  <- the film's head" if r.head == trace.primary_head else ""
        size = r.effect.size if r.effect.kl is not None else r.effect.degrees
        lines.append(f"{r.head:>4}  {size:>27.5f}  {r.answer_weight:>20.3f}  "
                     f"{r.special_weight:>17.3f}  {r.effect.focus_cosine:>19.4f}{film}")
    return lines


def noise_line(floor: dict | None) -> str:
    """A minimal pair's largest change beside its noise floor (``pair_noise``)."""
    if floor is None:
        return "noise     A has too few words to swap: no noise floor"
    return (f"noise     {floor['pairs']} random pairs of the same length (A with two of its "
            f"other words swapped) move a weight by at most a median {floor['median']:.3f}, "
            f"a 90th percentile {floor['p90']:.3f}; this pair's largest change, "
            f"{floor['largest_change']:.3f}, is "
            + {"above": "above that 90th percentile", "within": "within that range",
               "below": "below that median"}[floor["where"]])


def compare_lines(comparison) -> list[str]:
    """A minimal pair (``compare.Comparison``): both sentences, then each word's weight from
    the focus word in A and in B (the explained head), the change, and its share of the
    focus word's update in each; a word of one sentence alone is marked."""
    a, b = comparison.a, comparison.b
    lines = [f"A         {a.sentence}", f"B         {b.sentence}",
             f"model     {a.meta.get('model_name', a.meta['model'])}, layer {a.layer}, head "
             f"{a.primary_head} (chosen on A; heads {', '.join(map(str, a.heads))}), focus "
             f"{comparison.focus_pair.text!r}",
             f"{'word':<14} {'weight A':>9} {'weight B':>9} {'change':>8}   "
             f"{'update A':>8} {'update B':>8}"]

    def cell(value, width, signed=False, percent=False):
        if value is None:
            return "-".rjust(width)
        if percent:
            return f"{100 * value:.1f}%".rjust(width)
        return format(value, "+.3f" if signed else ".3f").rjust(width)
    for p in comparison.pairs:
        mark = "" if not p.changed else ("  only in A" if p.b is None else "  only in B")
        lines.append(f"{p.text[:14]:<14} {cell(comparison.weight('a', p), 9)} "
                     f"{cell(comparison.weight('b', p), 9)} "
                     f"{cell(comparison.change(p), 8, signed=True)}   "
                     f"{cell(comparison.share('a', p), 8, percent=True)} "
                     f"{cell(comparison.share('b', p), 8, percent=True)}{mark}")
    lines.append(comparison.summary() + ".")
    return lines


def diagnosis_lines(atlas) -> list[str]:
    """Every head's pattern, one line each, as the atlas tags it (``attention_core.atlas``):
    its share beside what a head spreading evenly scores (chance), the film's head marked."""
    from .atlas import ABOVE_CHANCE, PATTERNS, UNTAGGED

    lines = [f"heads of {atlas.model} on this sentence (mask: {atlas.mask}): the pattern "
             f"each head's weights show, tagged where its share exceeds chance (a head "
             f"spreading evenly) by {ABOVE_CHANCE:.2f}, and every pattern's share",
             "layer head  pattern       share  chance   "
             + " ".join(f"{p[:7]:>7}" for p in PATTERNS)
             + (f"  kept by {atlas.variant}" if atlas.kept is not None else "")]
    for p in atlas.patterns:
        film = "  <- the film's head" if (p.layer, p.head) == (atlas.film_layer,
                                                                atlas.film_head) else ""
        tag = p.tag if p.tag != UNTAGGED else f"({p.of})"
        lines.append(f"{p.layer:>5} {p.head:>4}  {tag:<12} {p.share:>6.2f} {p.chance:>7.2f}   "
                     + " ".join(f"{p.shares[k]:>7.2f}" for k in PATTERNS)
                     + (f"  {100 * atlas.kept_share(p.layer, p.head):>6.1f} %"
                        if atlas.kept is not None else "") + film)
    counts = {}
    for p in atlas.patterns:
        counts[p.tag] = counts.get(p.tag, 0) + 1
    lines.append("in all: " + ", ".join(
        f"{n} {'untagged (no pattern above chance)' if tag == UNTAGGED else tag}"
        for tag, n in sorted(counts.items(), key=lambda kv: -kv[1])))
    return lines


def keeps_json(kept: list) -> list[dict]:
    """``keeps_lines``' numbers, one object per head (answers as word indices)."""
    from dataclasses import asdict

    return [{**asdict(k), "same_answer": k.same_answer} for k in kept]


def to_json(trace: AttentionTrace, atlas=None, kept=None, extra=None) -> str:
    """The trace's numbers and metadata as one JSON document (same names as the .npz),
    with every head's pattern under "diagnosis" when an atlas is given, and what a
    cheaper attention keeps of each head under "keeps" when measured."""
    doc = {"tokens": list(trace.tokens), "meta": trace.meta, "words": words_json(trace)}
    if atlas is not None:
        doc["diagnosis"] = atlas.to_json()
    if kept:
        doc["keeps"] = keeps_json(kept)
    doc.update(extra or {})
    for name in ARRAY_FIELDS + OPTIONAL_FIELDS:
        arr = getattr(trace, name)
        if arr is None:
            continue
        doc[name] = arr.tolist() if arr.dtype == np.bool_ else np.asarray(arr, dtype=float).tolist()
    return json.dumps(doc, ensure_ascii=False)
