"""Every number a scene draws is read here from the trace, formatted one way.

Scenes call :func:`lookup` (through ``BeatScene.number``) and record what they drew; the
test suite recomputes each record from the trace alone and compares the text, so a number
on screen that the model did not compute fails the tests.
"""
from __future__ import annotations

import math

import numpy as np

# Derived quantities a scene may show, each computed from trace fields only.
# index conventions: h = position on the head axis, i = query token, j = key token,
# c = vector component.


def _qk_dot(trace, h, i, j):          # raw q_i . k_j, before the 1/sqrt(d_k) scaling
    return float(np.dot(trace.q[h, i].astype(np.float64), trace.k[h, j].astype(np.float64)))


def _weight_sum(trace, h, i):         # sum of a row of weights (1 up to rounding)
    return float(trace.weights[h, i].astype(np.float64).sum())


def _masked_score(trace, h, i, j):    # the score after the mask (-inf where masked)
    return -math.inf if trace.mask[i, j] else float(trace.scores[h, i, j])


def _sqrt_dk(trace):
    return math.sqrt(trace.d_k)


def _weighted_value(trace, h, i, j, c):   # weights[h,i,j] * v[h,j,c]
    return float(trace.weights[h, i, j]) * float(trace.v[h, j, c])


DERIVED = {
    "qk_dot": _qk_dot,
    "weight_sum": _weight_sum,
    "masked_score": _masked_score,
    "sqrt_dk": _sqrt_dk,
    "weighted_value": _weighted_value,
    "d_k": lambda trace: trace.d_k,
    "d_model": lambda trace: int(trace.embeddings.shape[-1]),
    "num_tokens": lambda trace: trace.num_tokens,
    "layer": lambda trace: trace.layer,
    "head": lambda trace, h: trace.heads[h],
}
# ---- derived kinds of the pull, heads, mask and summary beats ----------------------------
def _causal_scores(trace, h, i):      # row i of the scores with future keys (j > i) at -inf
    row = trace.scores[h, i].astype(np.float64).copy()
    row[i + 1:] = -np.inf
    return row


def _causal_masked_score(trace, h, i, j):   # the score a causal mask would leave
    return float(_causal_scores(trace, h, i)[j])


def _causal_weight(trace, h, i, j):   # softmax over j <= i: the weights renormalised
    row = _causal_scores(trace, h, i)
    e = np.exp(row - row[: i + 1].max())
    return float(e[j] / e.sum())


def _value_view_percent(trace, h):    # % of the value vectors' squared length the 2-D view keeps
    from .projection import fit_pca
    return 100.0 * float(sum(fit_pca(trace.v[h]).explained))


DERIVED.update({
    "causal_masked_score": _causal_masked_score,
    "causal_weight": _causal_weight,
    "causal_weight_sum": lambda trace, h, i: float(sum(
        _causal_weight(trace, h, i, j) for j in range(trace.num_tokens))),
    "value_view_percent": _value_view_percent,
})


# ---- derived kinds of the heads beat --------------------------------------------------------
def _num_heads_total(trace):          # heads in the model's layer (traced or not)
    return int(trace.meta.get("num_heads_total", len(trace.heads)))


def _unmasked_weight(trace, h, i, j):   # softmax of row i of the scores with no mask at all
    row = trace.scores[h, i].astype(np.float64)
    e = np.exp(row - row.max())
    return float(e[j] / e.sum())


DERIVED.update({
    "unmasked_weight": _unmasked_weight,      # the mask beat's "before", on a masked trace
    "num_heads_total": _num_heads_total,
    "heads_not_drawn": lambda trace: _num_heads_total(trace) - len(trace.heads),
})


FIELDS = ("embeddings", "q", "k", "v", "scores", "weights", "context", "output")


def lookup(trace, kind: str, index: tuple = ()) -> float:
    """The value of ``kind`` at ``index``: a trace field or a derived quantity."""
    if kind in FIELDS:
        return float(getattr(trace, kind)[tuple(index)])
    if kind in DERIVED:
        return DERIVED[kind](trace, *index)
    raise KeyError(f"unknown number kind {kind!r}")


def format_number(value: float, decimals: int = 2, signed: bool = False) -> str:
    """Text of a number as drawn: fixed decimals, a real minus sign, optional plus."""
    if math.isinf(value):
        return "\u2212\u221e" if value < 0 else "\u221e"
    text = f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"
    if text.lstrip("+-").strip("0.") == "":     # -0.0 and +0.0 are drawn 0.0
        text = f"{0:.{decimals}f}"
        if signed:
            text = "+" + text
    return text.replace("-", "\u2212")
