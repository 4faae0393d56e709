"""Trace-aware layout shared by several beats: which tokens are drawn, and the 2-D views
of embeddings and of one head's queries, keys and values.

Kept apart from the vocabulary (which never reads a trace) so a beat and the beat after
it draw the same picture of the same vectors.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, VGroup

from ..attention_core.projection import Projection2D, fit_pca
from . import style
from .labels import place_arrow_labels
from .planes import LabelledArrow, Plane2D
from .text import label_text
from .tokens import TokenRow, focus_window


def drawn_indices(trace) -> list[int]:
    """Token positions drawn in full (a window around the focus for long sentences)."""
    start, stop = focus_window(trace.num_tokens, trace.focus_index)
    return list(range(start, stop))


def token_row(trace, **kwargs) -> TokenRow:
    """The sentence's tokens as chips, special tokens dimmed, windowed around the focus."""
    return TokenRow(trace.display_tokens, trace.special, focus_index=trace.focus_index,
                    **kwargs)


LABEL_ALL_UP_TO = 10    # drawn tokens; beyond this a crowded view names the words that matter
LABEL_TOP = 5           # ... the focus and the words it attends to most


def named_indices(trace, slot: int | None = None, *, limit: int = LABEL_ALL_UP_TO,
                  top: int = LABEL_TOP) -> set[int]:
    """Token positions whose words are written in a crowded 2-D view: all drawn tokens
    when there are at most ``limit``, else the focus token and the ``top`` drawn tokens
    it gives the most weight to (in the primary head, or ``slot``)."""
    idx = drawn_indices(trace)
    if len(idx) <= limit:
        return set(idx)
    slot = trace.primary_slot if slot is None else slot
    w = trace.weights[slot, trace.focus_index]
    drawn = set(idx)
    order = [int(j) for j in np.argsort(-w, kind="stable") if int(j) in drawn]
    return {int(trace.focus_index)} | set(order[:top])


def embedding_view(trace) -> tuple[Projection2D, np.ndarray]:
    """Uncentred PCA of the drawn tokens' embeddings and their 2-D points (N x 2)."""
    idx = drawn_indices(trace)
    proj = fit_pca(trace.embeddings[idx])
    return proj, proj(trace.embeddings[idx])


def qk_view(trace, slot: int) -> tuple[Projection2D, np.ndarray, np.ndarray]:
    """One PCA fitted jointly on a head's queries and keys (as AttentionViz does), so
    q·k pictures compare in one space; returns it and the q and k points."""
    idx = drawn_indices(trace)
    proj = fit_pca(np.vstack([trace.q[slot, idx], trace.k[slot, idx]]))
    return proj, proj(trace.q[slot, idx]), proj(trace.k[slot, idx])


def value_view(trace, slot: int) -> tuple[Projection2D, np.ndarray]:
    """Uncentred PCA of a head's value vectors (values live in their own space)."""
    idx = drawn_indices(trace)
    proj = fit_pca(trace.v[slot, idx])
    return proj, proj(trace.v[slot, idx])


def token_word(trace, index: int) -> str:
    """The user's text for a token (for captions and labels)."""
    return trace.display_tokens[index]


def embedding_plane(book, points, indices, *, width=7.0, height=3.6, focus_scale=1.0):
    """The embedding view of the embed and project beats: plane, note and arrows.

    The words are laid out by ``place_arrow_labels`` (inside the plane, clear of each
    other and of the arrows); the focus word is laid out at ``focus_scale`` times its size,
    the size a beat may grow it to later."""
    trace = book.trace
    d_model = book.text("d_model", (), 0)
    n = book.text("num_tokens", (), 0) if len(indices) == trace.num_tokens else str(len(indices))
    note = label_text(f"2-D view of {d_model}-D embeddings: their top two principal "
                      f"directions (uncentred PCA of these {n})", style.FONT_SMALL,
                      style.PALETTE.dim)
    plane = Plane2D(points, width=width, height=height, note=note)
    arrows = [LabelledArrow(plane, points[n_], token_word(trace, i), style.PALETTE.text,
                            special=trace.special[i], font_size=style.FONT_LABEL)
              for n_, i in enumerate(indices)]
    f = indices.index(trace.focus_index) if trace.focus_index in indices else None
    if f is not None:
        arrows[f].word.scale(focus_scale)
    place_arrow_labels(arrows, bounds=plane.plane, solo=[f] if f is not None else [])
    if f is not None:
        arrows[f].word.scale(1 / focus_scale)
    note.next_to(VGroup(plane.plane, *arrows), DOWN, buff=0.15)
    return plane, arrows
