"""Quantities a scene may show that are not trace fields, each computed from a trace alone.

The drawing side reads every number through :func:`lookup`; the tests recompute each drawn
number with it, so a number on screen that the model did not compute fails them.
Index conventions: h = position on the head axis, i = query token, j = key token,
c = vector component.
"""
from __future__ import annotations

import math

import numpy as np

from .attention import build_mask, masked_softmax
from .projection import fit_pca
from .variants import head_blocked, real_weights
from .word_model import WordModel
from .rounding import shown_row
from .derived_flow import FLOW_DERIVED
from .score_terms import SCORE_TERMS_DERIVED

__all__ = ["DERIVED", "FIELDS", "causal_mask", "causal_masked_score", "causal_weights",
           "answer_words", "illustrated_row", "influence", "influence_angle", "influence_of", "kept_percent", "output_error_percent", "closeness_after", "closeness_before", "word_weight", "word_update_share",
           "word_mean_weight", "uniform_target_weight", "mean_weight", "position_dims", "question", "question_targets",
           "target_weight", "hot_temperature", "lookup", "masked_score", "num_heads_total", "projection",
           "projection_bias", "qk_dot", "shown_kind", "shown_row", "temperature_weights", "unmasked_weights",
           "update_share", "value_view_percent", "weight_rest", "WORD_ROWS"]

FIELDS = ("embeddings", "q", "k", "v", "scores", "weights", "context", "output", "positions")
POSITION_WAVES = 4        # dimensions of the position vectors the position beat draws


def qk_dot(trace, h, i, j) -> float:
    """Raw q_i · k_j, before the 1/√d_k scaling."""
    return float(np.dot(trace.q[h, i].astype(np.float64), trace.k[h, j].astype(np.float64)))


def masked_score(trace, h, i, j) -> float:
    """The score after the head's own mask (-inf where masked)."""
    return -math.inf if head_blocked(trace, h)[i, j] else float(trace.scores[h, i, j])


def causal_mask(trace) -> np.ndarray:
    """The causal mask over the trace's tokens (True = a later key, not seen)."""
    return build_mask("causal", trace.num_tokens)


def causal_masked_score(trace, h, i, j) -> float:
    """The score a causal mask would leave (-inf for a later key)."""
    return -math.inf if causal_mask(trace)[i, j] else float(trace.scores[h, i, j])


def causal_weights(trace, h, i) -> np.ndarray:
    """Row i of head h's weights under a causal mask: the softmax over keys j <= i."""
    return masked_softmax(trace.scores[h, i], causal_mask(trace)[i])


def unmasked_weights(trace, h, i) -> np.ndarray:
    """Row i of head h's weights with no mask at all (a masked trace's "before")."""
    return masked_softmax(trace.scores[h, i])


def num_heads_total(trace) -> int:
    """Heads in the model's layer, traced or not."""
    return int(trace.meta.get("num_heads_total", len(trace.heads)))


def value_view_percent(trace, h, *tokens) -> float:
    """% of head h's value vectors' squared length that their 2-D view keeps: the view
    fitted on the values of ``tokens`` (the tokens drawn; default: all of them)."""
    values = trace.v[h, list(tokens)] if tokens else trace.v[h]
    return 100.0 * float(sum(fit_pca(values).explained))


def projection(trace, p: int, r: int, c: int) -> float:
    """Entry (r, c) of the primary head's W_Q (p = 0), W_K (1) or W_V (2): row r of the
    map (a component of the query, key or value), column c (a component of the input)."""
    return float(trace.projection_rows[p, trace.meta["projection_rows"].index(r), c])


def projection_bias(trace, p: int, r: int) -> float:
    return float(trace.projection_bias[p, trace.meta["projection_rows"].index(r)])


def projected(trace, p: int, i: int, r: int) -> float:
    """Component r of W x + b for token i's input x, by the primary head's W_Q (p = 0),
    W_K or W_V: in a rotary model the query and key before they are turned by position
    (the trace's q and k are turned)."""
    n = trace.meta["projection_rows"].index(r)
    return float(trace.projection_rows[p, n].astype(np.float64)
                 @ trace.embeddings[i].astype(np.float64) + trace.projection_bias[p, n])


def temperature_weights(trace, h: int, i: int, temperature: float) -> np.ndarray:
    """Row i of head h's weights at a softmax temperature: softmax(scores / T) under the
    trace's mask; T = 1 gives the model's weights, a large T the plain average."""
    return masked_softmax(trace.scores[h, i] / temperature, head_blocked(trace, h)[i])


def hot_temperature(trace, h: int, i: int, spread: float = 1.05) -> float:
    """The smallest round temperature (1, 2 or 5 times a power of ten) at which row i of
    head h's unmasked weights are all within a factor ``spread`` of each other: the
    "nearly equal" weights of a hot softmax, stated, not assumed."""
    scores = trace.scores[h, i][~head_blocked(trace, h)[i]].astype(np.float64)
    needed = float(scores.max() - scores.min()) / math.log(spread) if scores.size else 1.0
    exponent = math.floor(math.log10(max(needed, 1.0)))
    for base in (10 ** exponent, 2 * 10 ** exponent, 5 * 10 ** exponent, 10 ** (exponent + 1)):
        if base >= needed:
            return float(base)
    return float(10 ** (exponent + 1))


def weight_rest(trace, h: int, i: int, *listed: int) -> float:
    """Row i of head h's weights summed over the keys not in ``listed``."""
    row = trace.weights[h, i].astype(np.float64)
    return float(row.sum() - row[list(listed)].sum()) if listed else float(row.sum())


def position_dims(trace, count: int = POSITION_WAVES) -> list[int]:
    """The dimensions of the position vectors drawn as waves, in order. Sines and cosines
    (Vaswani et al.): the sine of each of ``count`` pairs whose periods are nearest to
    1/8, 1/4, 1/2 and 1 times the positions kept, so each wave is slower than the last.
    Learned vectors: the dimensions that vary most from position 1 on (position 0, the
    first special token's in every sentence, stands apart in many dimensions), each taken
    only if it is not much like one already taken (|correlation| < 0.5), in index order."""
    table = trace.positions.astype(np.float64)
    N, D = table.shape
    if trace.meta.get("positions") == "sinusoidal":
        # pair i's period is 2*pi * 10000^(2i/D)
        dims = []
        for n in range(count):
            period = N / 2 ** (count - 1 - n)
            i = round(D / 2 * math.log(max(period / (2 * math.pi), 1.0)) / math.log(10000.0))
            dim = 2 * min(max(i, 0), D // 2 - 1)
            if dim not in dims:
                dims.append(dim)
        return dims
    centred = table[1:] - table[1:].mean(0)
    spread = (centred ** 2).mean(0)
    norms = np.sqrt(np.maximum((centred ** 2).sum(0), 1e-30))
    dims: list[int] = []
    for d in sorted(range(D), key=lambda d: (-spread[d], d)):
        if all(abs(float(centred[:, d] @ centred[:, e]) / (norms[d] * norms[e])) < 0.5
               for e in dims):
            dims.append(d)
        if len(dims) == count:
            break
    return sorted(dims)


def question(trace) -> dict:
    """What the focus word asks (``meta["question"]``: kind, targets, tagger). A trace saved
    before traces held it asks the question of a content word, its targets the other
    content words (as its head was chosen then)."""
    if isinstance(trace.meta.get("question"), dict):
        return trace.meta["question"]
    from .selection import content_tokens
    from .words import content_words

    m = trace.meta
    if "word_ids" in m and "words" in m:
        content = content_tokens(trace.special, trace.word_ids, trace.words,
                                 m.get("written_words", ()))
    else:       # no word grouping saved: each token judged as a word of its own
        content = np.array(content_words(trace.display_tokens)) & ~np.array(trace.special)
    content[trace.focus_index] = False
    return {"kind": "word", "targets": [int(j) for j in np.flatnonzero(content)],
            "tagger": None}


def question_targets(trace) -> list[int]:
    """The tokens whose weight answers the focus word's question, the focus left out."""
    return [int(j) for j in question(trace)["targets"] if int(j) != trace.focus_index]


def answer_words(trace) -> list[int]:
    """The words (indices in the trace's :class:`WordModel`) that may answer the focus
    word's question: every word a target token is a piece of, the focus's own word never."""
    words = WordModel.of_trace(trace)
    own = words.index_of(trace.focus_index)
    return [w for w in words.words_of(question_targets(trace)) if w != own]


def target_weight(trace, h: int) -> float:
    """The share of the focus word's weight that head h (on the head axis) gives to the
    words that may answer its question (each the sum of its pieces): what the head choice
    measured."""
    words = WordModel.of_trace(trace)
    row = trace.weights[h, trace.focus_index]
    return float(sum(words.total(row, w) for w in answer_words(trace)))


def word_weight(trace, h: int, i: int, first: int, last: int) -> float:
    """The weight query i gives, in head h, to the word of tokens ``first`` to ``last``:
    the sum of its pieces' weights."""
    return float(trace.weights[h, i, int(first):int(last) + 1].astype(np.float64).sum())


def word_update_share(trace, first: int, last: int) -> float:
    """A word's share of the focus word's update: the sum of its pieces' shares."""
    return float(sum(update_share(trace, j) for j in range(int(first), int(last) + 1)))


def word_update_percent(trace, first: int, last: int) -> float:
    """A word's share of the update in whole percents as drawn: every word's share rounded
    as one row (largest remainder, :func:`shown_row`), so the words' drawn shares make
    100 %, which shares rounded one by one need not (46 + 31 + 24)."""
    words = WordModel.of_trace(trace)
    norms = np.linalg.norm(trace.contributions.astype(np.float64), axis=1)
    percents = 100.0 * words.sums(norms) / max(float(norms.sum()), 1e-30)
    return float(shown_row(percents, 0)[words.index_of(int(first))])


def word_mean_weight(trace, first: int, last: int) -> float:
    """A word's weight from the focus averaged over every head: its pieces' sum."""
    return float(sum(mean_weight(trace, j) for j in range(int(first), int(last) + 1)))


def uniform_target_weight(trace) -> float:
    """What a head spreading the focus word's weight evenly over the keys it sees would
    give to the words that may answer: the chance level of ``target_weight``."""
    words = WordModel.of_trace(trace)
    row = (~np.asarray(trace.mask[trace.focus_index], bool)).astype(np.float64)
    row /= max(row.sum(), 1.0)
    return float(sum(words.total(row, w) for w in answer_words(trace)))


def mean_weight(trace, j: int) -> float:
    """Token j's weight from the focus word, averaged over every head of the layer (the
    heads the update sums over); NaN for a trace without those rows."""
    rows = trace.focus_weights_all
    return float("nan") if rows is None else float(rows[:, j].astype(np.float64).mean())


def update_share(trace, j: int) -> float:
    """Token j's share of the focus word's update: the norm of what it adds, over the sum of
    every token's (Kobayashi et al.'s norm-based view: weight is not influence)."""
    norms = np.linalg.norm(trace.contributions.astype(np.float64), axis=1)
    return float(norms[j] / max(norms.sum(), 1e-30))


def _cosine(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-30))


def closeness_before(trace, j: int) -> float:
    """Cosine of the focus word's input vector with token j's."""
    return _cosine(trace.embeddings[trace.focus_index], trace.embeddings[j])


def closeness_after(trace, j: int) -> float:
    """Cosine of the focus word's updated vector (E') with token j's input vector."""
    return _cosine(trace.updated, trace.embeddings[j])


def illustrated_row(trace, h: int, i: int) -> np.ndarray:
    """Row i of head h as the mask beat shows it after its mask: the trace's weights under
    a mask asked for, else (a trace with no mask) under the causal mask it illustrates."""
    if trace.meta.get("mask_is_illustration"):
        return trace.weights[h, i].astype(np.float64)
    return causal_weights(trace, h, i)


def kept_percent(trace, h: int, i: int) -> float:
    """% of row i's real weight (as the model runs: the model's own mask) that the mask
    illustrated keeps: the weight the real row and the masked one share."""
    real = real_weights(trace)[h, i]
    return 100.0 * float(np.minimum(real, illustrated_row(trace, h, i)).sum())


def output_error_percent(trace, h: int, i: int) -> float:
    """How far row i's output (weights times values) moves under the mask illustrated:
    ‖o' − o‖ / ‖o‖ in %, o the output as the model runs."""
    values = trace.v[h].astype(np.float64)
    real = real_weights(trace)[h, i] @ values
    moved = illustrated_row(trace, h, i) @ values
    return 100.0 * float(np.linalg.norm(moved - real) / (np.linalg.norm(real) or 1.0))


def influence(trace) -> dict:
    """Every head of the layer silenced in turn (``meta["influence"]``, made by
    ``ablation.with_influence``), checked: the output, its measure, a row per head."""
    from ..facts import beat_facts
    from .errors import InputError

    found = trace.meta.get("influence")
    heads = found.get("heads") if isinstance(found, dict) else None
    if not isinstance(heads, list) or len(heads) != num_heads_total(trace) or not all(
            isinstance(h, dict) and all(isinstance(h.get(k), (int, float)) and
                                        math.isfinite(h[k]) for k in INFLUENCE_KEYS)
            for h in heads) or [h["head"] for h in heads] != list(range(len(heads))):
        raise InputError(f"the influence beat needs {beat_facts('influence').needs}; a trace "
                         "saved without them cannot draw it.")
    return found


INFLUENCE_KEYS = ("head", "effect", "answer_weight", "special_weight")


def influence_of(trace, head: int, key: str) -> float:
    return float(influence(trace)["heads"][int(head)][key])


def influence_angle(trace, head: int) -> float:
    """How far silencing ``head`` turns the sentence embedding, in degrees."""
    return math.degrees(math.acos(max(-1.0, min(1.0, 1.0 - influence_of(trace, head,
                                                                          "effect")))))


DERIVED = {
    "qk_dot": qk_dot,
    "projected": projected,
    "weight_sum": lambda trace, h, i: float(trace.weights[h, i].astype(np.float64).sum()),
    "masked_score": masked_score,
    # what the scores are q·k divided by: √d_k, or the model's own scale's inverse
    "sqrt_dk": lambda trace: (math.sqrt(trace.d_k) if trace.meta.get("score_scale") is None
                              else 1.0 / float(trace.meta["score_scale"])),
    "weighted_value": lambda trace, h, i, j, c: float(trace.weights[h, i, j]) * float(trace.v[h, j, c]),
    "d_k": lambda trace: trace.d_k,
    "d_model": lambda trace: int(trace.embeddings.shape[-1]),
    "num_tokens": lambda trace: trace.num_tokens,
    "layer": lambda trace: trace.layer,
    "head": lambda trace, h: trace.heads[h],
    "causal_masked_score": causal_masked_score,
    "causal_weight": lambda trace, h, i, j: float(causal_weights(trace, h, i)[j]),
    "causal_weight_sum": lambda trace, h, i: float(sum(
        float(w) for w in causal_weights(trace, h, i))),
    "unmasked_weight": lambda trace, h, i, j: float(unmasked_weights(trace, h, i)[j]),
    "real_weight": lambda trace, h, i, j: float(real_weights(trace)[h, i, j]),
    "kept_percent": kept_percent,
    "influence_effect": lambda trace, h: influence_of(trace, h, "effect"),
    "influence_head": lambda trace, h: influence_of(trace, h, "head"),
    "influence_answer_weight": lambda trace, h: influence_of(trace, h, "answer_weight"),
    "influence_special_weight": lambda trace, h: influence_of(trace, h, "special_weight"),
    "influence_angle": influence_angle,
    "output_error_percent": output_error_percent,
    "value_view_percent": value_view_percent,
    "num_heads_total": num_heads_total,
    "projection": projection,
    "projection_bias": projection_bias,
    "temperature_weight": lambda trace, h, i, j, t: float(temperature_weights(trace, h, i, t)[j]),
    "heads_not_drawn": lambda trace: num_heads_total(trace) - len(trace.heads),
    "hot_temperature": hot_temperature,
    "weight_rest": weight_rest,
    "update_share": update_share,
    "update_percent": lambda trace, j: 100.0 * update_share(trace, j),
    # the share of the tokens not listed, as the listed are drawn (whole percents): the
    # drawn shares then make 100 %
    "update_rest_percent": lambda trace, *listed: 100.0 - sum(
        round(100.0 * update_share(trace, j)) for j in listed),
    "closeness_before": closeness_before,
    "target_weight": target_weight,
    "uniform_target_weight": uniform_target_weight,
    "word_weight": word_weight,
    "word_update_share": word_update_share,
    "word_update_percent": word_update_percent,
    "word_mean_weight": word_mean_weight,
    # the share of what the words not listed add (spans as first, last, first, last, ...),
    # as the listed words' shares are drawn (whole percents): the drawn shares make 100 %
    "word_update_rest_percent": lambda trace, *spans: 100.0 - sum(
        word_update_percent(trace, a, b) for a, b in zip(spans[::2], spans[1::2])),
    "head_score_baseline": lambda trace: float(trace.meta.get("head_score_baseline", 0.0)),
    "position_dim": lambda trace, n: position_dims(trace)[int(n)],
    "num_positions": lambda trace: int(trace.positions.shape[0]),
    # the largest size of position dimension d over the positions kept: its strip's scale
    "position_range": lambda trace, d: float(np.abs(trace.positions[:, int(d)]).max()),
    "mean_weight": mean_weight,
    "heads_compared": lambda trace: int(trace.meta.get("heads_compared",
                                                       num_heads_total(trace))),
    "closeness_after": closeness_after,
    "input_norm": lambda trace: float(np.linalg.norm(trace.update_base)),
    "update_norm": lambda trace: float(np.linalg.norm(
        trace.output[trace.focus_index].astype(np.float64))),
    **FLOW_DERIVED,                  # the flow beat's, from meta["flow"]
    **SCORE_TERMS_DERIVED,           # a model's own score terms (MPNet's position bias)
}


def _token_words(trace) -> tuple:
    """Each token's word (``WordModel``): a row of token weights is rounded word by word."""
    return WordModel.of_trace(trace).token_words


# rows of weights, each (trace, h, i, *extra) -> the whole row over the keys
ROWS = {
    "weights": lambda trace, h, i: trace.weights[h, i],
    "causal_weight": causal_weights,
    "unmasked_weight": unmasked_weights,
    "real_weight": lambda trace, h, i: real_weights(trace)[h, i],
    "temperature_weight": lambda trace, h, i, t: temperature_weights(trace, h, i, t),
}
# a row's sums, drawn as the sum of its drawn entries
ROW_SUMS = {"weight_sum": "weights", "causal_weight_sum": "causal_weight"}


def _shown_entry(row_kind):
    def entry(trace, h, i, j, *rest):
        *extra, decimals = rest
        return float(shown_row(ROWS[row_kind](trace, h, i, *extra), int(decimals),
                               _token_words(trace))[int(j)])
    return entry


def _shown_sum(row_kind):
    def total(trace, h, i, decimals):
        return float(shown_row(ROWS[row_kind](trace, h, i), int(decimals),
                               _token_words(trace)).sum())
    return total


def _shown_rest(trace, row, decimals: int, listed) -> float:
    shown = shown_row(row, int(decimals), _token_words(trace))
    return float(shown.sum() - shown[list(listed)].sum()) if listed else float(shown.sum())


def shown_weight_rest(trace, h: int, i: int, decimals: int, *listed: int) -> float:
    """The drawn weights of row i of head h summed over the keys not in ``listed``."""
    return _shown_rest(trace, trace.weights[h, i], decimals, listed)


def shown_temperature_rest(trace, h: int, i: int, temperature: float, decimals: int,
                           *listed: int) -> float:
    """As :func:`shown_weight_rest`, for the weights at a softmax temperature."""
    return _shown_rest(trace, temperature_weights(trace, h, i, temperature), decimals, listed)


# a word's part (its pieces' sum) of a row of weights, index (h, i, first, last, *extra)
WORD_ROWS = {"word_weight": "weights", "causal_word_weight": "causal_weight",
             "temperature_word_weight": "temperature_weight"}


def _shown_words(trace, row, decimals: int) -> np.ndarray:
    """A row's word sums rounded as one row (:func:`shown_row`): a list adds up as drawn."""
    return shown_row(WordModel.of_trace(trace).sums(row), int(decimals))


def _word_kinds(row_kind):
    """A word's part of ``row_kind`` (its pieces' sum), and that part as drawn."""
    def part(trace, h, i, first, last, *extra):
        return float(ROWS[row_kind](trace, h, i, *extra)[int(first):int(last) + 1].sum())

    def shown(trace, h, i, first, last, *rest):
        *extra, decimals = rest
        row = _shown_words(trace, ROWS[row_kind](trace, h, i, *extra), decimals)
        return float(row[WordModel.of_trace(trace).index_of(int(first))])
    return part, shown


def _shown_word_rest(trace, row, decimals: int, firsts) -> float:
    """The drawn weights of the words not listed (each named by its first token)."""
    words, shown = WordModel.of_trace(trace), _shown_words(trace, row, decimals)
    return float(shown.sum() - sum(shown[words.index_of(int(j))] for j in firsts))


for _kind, _row in WORD_ROWS.items():
    DERIVED.setdefault(_kind, _word_kinds(_row)[0])
    DERIVED[f"shown_{_kind}"] = _word_kinds(_row)[1]
DERIVED["shown_word_rest"] = lambda trace, h, i, decimals, *firsts: _shown_word_rest(
    trace, trace.weights[h, i], decimals, firsts)
DERIVED["shown_temperature_word_rest"] = lambda trace, h, i, t, decimals, *firsts: \
    _shown_word_rest(trace, temperature_weights(trace, h, i, t), decimals, firsts)
DERIVED.update({f"shown_{kind}": _shown_entry(kind) for kind in ROWS})
DERIVED.update({f"shown_{kind}": _shown_sum(row) for kind, row in ROW_SUMS.items()})
DERIVED["shown_weight_rest"] = shown_weight_rest
DERIVED["shown_temperature_rest"] = shown_temperature_rest


def shown_kind(kind: str, index: tuple, decimals: int) -> tuple[str, tuple]:
    """The kind and index under which a number of ``kind`` is drawn: an entry or a sum of a
    row of weights (or of words) is drawn rounded with its row (:func:`shown_row`), so its
    decimals join its index, and so does a pair's change (B's drawn weight less A's); a pair's B as A (``versus:``); any other number as it is."""
    if kind.startswith("versus:"):
        shown, at = shown_kind(kind.removeprefix("versus:"), index, decimals)
        return f"versus:{shown}", at
    if kind in ROWS or kind in ROW_SUMS or kind in WORD_ROWS or kind == "pair:change":
        return f"shown_{kind}", (*index, decimals)
    if kind == "word_rest":                 # (h, i, *first tokens of the listed words)
        return "shown_word_rest", (*index[:2], decimals, *index[2:])
    if kind == "temperature_word_rest":     # (h, i, T, *first tokens)
        return "shown_temperature_word_rest", (*index[:3], decimals, *index[3:])
    if kind == "weight_rest":
        return "shown_weight_rest", (*index[:2], decimals, *index[2:])
    if kind == "temperature_rest":          # (h, i, T, *listed)
        return "shown_temperature_rest", (*index[:3], decimals, *index[3:])
    return kind, tuple(index)


def lookup(trace, kind: str, index: tuple = ()) -> float:
    """The value of ``kind`` at ``index``: a trace field or a derived quantity."""
    if kind in FIELDS:
        return float(getattr(trace, kind)[tuple(index)])
    if kind in DERIVED:
        return DERIVED[kind](trace, *index)
    raise KeyError(f"unknown number kind {kind!r}")
