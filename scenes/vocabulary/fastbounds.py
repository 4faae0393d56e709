"""Faster bounding boxes: the same numbers as manim's, read with numpy in one go.

Every ``get_center``, ``get_top``, ``next_to`` and ``width`` measures a mobject's family,
and a film measures hundreds of thousands of times (placing labels, and the layout audit
reading every text's box at the middle and end of every play). manim gathers a VMobject's
anchors as a Python list of rows, one tuple per point, and finds a width with Python's
``max`` over each member's points in turn; profiled, those two were about a sixth of an
audited film. Here the anchors are interleaved by slicing and the extremes taken by
numpy: no arithmetic changes, so every value is the one manim computes (the tests compare
both on text, shapes and empty groups).
"""
from __future__ import annotations

import numpy as np
from manim import Mobject, VMobject

__all__ = ["critical_point", "manims_boundary", "manims_critical", "manims_reduce", "patches"]

manims_boundary = VMobject.get_points_defining_boundary   # manim's own (the tests compare)
manims_reduce = Mobject.reduce_across_dimension
manims_critical = Mobject.get_critical_point
_manims_anchors = VMobject.get_anchors


def boundary_points(self: VMobject) -> np.ndarray:
    """``VMobject.get_points_defining_boundary``: every member's anchors, in order (a
    curve's start, then its end), as one array; ``np.array(())`` when there are none."""
    parts = []
    for member in self.get_family():
        if type(member).get_anchors is not _manims_anchors:
            parts.append(np.asarray(member.get_anchors(), dtype=float).reshape(-1, 3))
            continue
        points = member.points
        if points.shape[0] == 1:
            parts.append(points)
            continue
        n = member.n_points_per_cubic_curve
        starts, ends = points[::n], points[n - 1::n]
        if len(starts) != len(ends):             # manim's zip(strict=True) refuses it
            return manims_boundary(self)
        if len(starts):
            both = np.empty((2 * len(starts), points.shape[1]), dtype=points.dtype)
            both[0::2], both[1::2] = starts, ends
            parts.append(both)
    parts = [p for p in parts if len(p)]
    if not parts:
        return np.array(())
    return parts[0].copy() if len(parts) == 1 else np.concatenate(parts)


def reduce_across(self: Mobject, reduce_func, dim: int):
    """``Mobject.reduce_across_dimension`` for Python's ``max`` and ``min`` (what
    ``width``, ``height`` and ``length_over_dim`` ask): the extreme coordinate ``dim`` of
    every point of the family, None when no member has points. Other reducers go to
    manim's own."""
    if reduce_func is not max and reduce_func is not min:
        return manims_reduce(self, reduce_func, dim)
    assert 0 <= dim <= 2
    pick = np.ndarray.max if reduce_func is max else np.ndarray.min
    members = self.get_family() if self.submobjects else (self,)
    found = [pick(m.points[:, dim]) for m in members if len(m.points)]
    if not found:
        return None
    return found[0] if len(found) == 1 else reduce_func(found)


def critical_point(self: Mobject, direction) -> np.ndarray:
    """``Mobject.get_critical_point`` (``get_center``, ``get_top``, a corner): the boundary
    points gathered once and each coordinate's extremes taken together, where manim
    gathers them and walks them again for each coordinate (a sixth of an audited film's
    time went to ``get_center``). The same sums: the middle is ``(min + max) / 2``."""
    result = np.zeros(self.dim)
    points = self.get_points_defining_boundary()
    if len(points) == 0:
        return result
    low, high = points.min(axis=0), points.max(axis=0)
    for dim in range(self.dim):
        key = direction[dim]
        result[dim] = low[dim] if key < 0 else high[dim] if key > 0 \
            else (low[dim] + high[dim]) / 2
    return result


def patches() -> list[tuple]:
    """VMobject's boundary and Mobject's extremes and critical points as the functions
    above, while we draw (``patches.our_drawing``)."""
    return [(VMobject, "get_points_defining_boundary", boundary_points),
            (Mobject, "reduce_across_dimension", reduce_across),
            (Mobject, "get_critical_point", critical_point)]
