"""Box and segment arithmetic for the label placer (numpy only, vectorised over candidates)."""
from __future__ import annotations

import numpy as np
from manim import Mobject

__all__ = ["box_of", "clip_lengths", "overlap_areas"]


def box_of(mob) -> np.ndarray:
    """[x0, y0, x1, y1] of a Mobject, or a 4-sequence as is."""
    if isinstance(mob, Mobject):
        return np.array([mob.get_left()[0], mob.get_bottom()[1], mob.get_right()[0],
                         mob.get_top()[1]], dtype=float)
    return np.asarray(mob, dtype=float).reshape(4)


def overlap_areas(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Pairwise intersection areas, (C, 4) x (P, 4) -> (C, P)."""
    if len(others) == 0:
        return np.zeros((len(boxes), 0))
    ox = (np.minimum(boxes[:, None, 2], others[None, :, 2])
          - np.maximum(boxes[:, None, 0], others[None, :, 0]))
    oy = (np.minimum(boxes[:, None, 3], others[None, :, 3])
          - np.maximum(boxes[:, None, 1], others[None, :, 1]))
    return np.clip(ox, 0, None) * np.clip(oy, 0, None)


def clip_lengths(boxes: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """Length of each segment inside each box (Liang-Barsky), (C, 4) x (S, 4) -> (C, S)."""
    if len(segs) == 0:
        return np.zeros((len(boxes), 0))
    a, b = segs[:, :2], segs[:, 2:]
    d = b - a
    lo = np.zeros((len(boxes), len(segs)))
    hi = np.ones((len(boxes), len(segs)))
    for axis in (0, 1):
        p, dd = a[:, axis][None, :], d[:, axis][None, :]
        bmin, bmax = boxes[:, axis][:, None], boxes[:, axis + 2][:, None]
        flat = np.abs(dd) < 1e-12
        safe = np.where(flat, 1.0, dd)
        t1, t2 = (bmin - p) / safe, (bmax - p) / safe
        inside = (p >= bmin) & (p <= bmax)
        tmin = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
        tmax = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
        lo, hi = np.maximum(lo, tmin), np.minimum(hi, tmax)
    return np.clip(hi - lo, 0, None) * np.linalg.norm(d, axis=1)[None, :]
