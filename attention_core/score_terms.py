"""The terms a model adds to each score of its own, besides QKᵀ scaled and the mask (MPNet's
relative position bias): a trace keeps them as ``score_terms`` (S x H x T x T), named in
``meta["score_terms"]``, and its ``scores`` count them. The film writes QKᵀ scaled, each
term, and their sum, the scores: :data:`SCORE_TERMS_DERIVED` gives each number it draws.
"""
from __future__ import annotations

import numpy as np

from .errors import InputError

__all__ = ["SCORE_TERMS_DERIVED", "check_score_terms", "scaled_qk", "term_names"]

# how far the scores may be from QKᵀ scaled plus the terms, relative to their size: the
# float32 rounding of a sum of a few numbers
TERMS_TOLERANCE = 1e-4


def term_names(trace) -> list[str]:
    """The names of the terms the trace's scores count, in order (none: [])."""
    return list(trace.meta.get("score_terms") or []) if trace.score_terms is not None else []


def scaled_qk(trace) -> np.ndarray:
    """H x T x T: q·k scaled as the model scales it (√d_k, or its own scale), before any
    term is added: the scores less their terms."""
    scores = trace.scores.astype(np.float64)
    if trace.score_terms is None:
        return scores
    return scores - trace.score_terms.astype(np.float64).sum(axis=0)


def check_score_terms(trace) -> None:
    """The optional terms: float32 S x H x T x T, finite, each named, and the scores are
    q·k scaled plus their sum (what the film writes as a sum is one)."""
    terms = trace.score_terms
    names = trace.meta.get("score_terms")
    if terms is None:
        if names is not None:
            raise InputError("trace meta names score_terms the trace does not hold")
        return
    if not (isinstance(names, list) and names and all(isinstance(n, str) and 0 < len(n) <= 60
                                                       for n in names)):
        raise InputError("trace meta score_terms must name each term the scores count (a list "
                         "of short texts)")
    if terms.dtype != np.float32 or terms.shape != (len(names), *trace.scores.shape):
        raise InputError(f"trace score_terms must be a float32 array of {len(names)} x H x T "
                         "x T, a term per name")
    if not np.isfinite(terms).all():
        raise InputError("trace score_terms hold non-finite numbers")
    scale = trace.meta.get("score_scale") or trace.d_k ** -0.5
    qk = np.einsum("htd,hsd->hts", trace.q.astype(np.float64), trace.k.astype(np.float64))
    gap = np.abs(scaled_qk(trace) - qk * float(scale))
    if (gap > TERMS_TOLERANCE * (1.0 + np.abs(trace.scores))).any():
        raise InputError("trace scores are not q·k scaled plus their score_terms")


SCORE_TERMS_DERIVED = {
    # q·k as the model scales it, before its terms; a term of the scores
    "scaled_qk": lambda trace, h, i, j: float(scaled_qk(trace)[h, i, j]),
    "score_term": lambda trace, t, h, i, j: float(trace.score_terms[t, h, i, j]),
}
