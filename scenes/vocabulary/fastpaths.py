"""A VMobject's outline handed to Cairo, worked out once per shape.

Cairo is handed each VMobject's outline once per frame: manim finds where the outline
breaks into subpaths (a dozen numpy calls on a small array) and then calls Cairo once per
Bézier curve from Python (a glyph has dozens). Profiled on the default film, building
paths was a third of drawing a frame. Between frames most outlines drawn are unchanged — a
play redraws everything above what moves, a fade redraws them as they were; measured at
1080p, 94 % of the mask beat's outlines and 63 % of the update beat's — so each answer is
kept on the mobject with the exact points it was found for, and reused only for the same
points, to the bit:

- the subpath breaks (:func:`split_indices`);
- the Cairo path itself (:func:`set_cairo_context_path`), also for the same transform of
  the context: Cairo keeps a path in device space on a 1/256-pixel grid, and a path copied
  and appended under the same transform lands on the same grid points, so the pixels are
  those of the path built afresh (a test compares).
"""
from __future__ import annotations

from manim import Camera, VMobject

from .fastcopy import Unchanging

__all__ = ["manims_set_cairo_context_path", "manims_split_indices", "patches",
           "set_cairo_context_path", "split_indices"]

manims_split_indices = VMobject.get_subpath_split_indices_from_points   # (the tests compare)
manims_set_cairo_context_path = Camera.set_cairo_context_path


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


class _KeptPath(Unchanging):
    """A Cairo path kept for the points it was built from: shared by every copy of the
    mobject (a path is never changed), and left behind when the mobject is pickled."""

    __slots__ = ("key", "raw", "path")

    def __init__(self, key: tuple, raw: bytes, path):
        self.key, self.raw, self.path = key, raw, path

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (type(None), ())


def set_cairo_context_path(self: Camera, ctx, vmobject: VMobject):
    """``Camera.set_cairo_context_path``, the path built once for the same points, the same
    camera's way of placing them and the same transform of the context."""
    points = vmobject.points
    if len(points) == 0:                 # manim leaves the context's path as it was
        return manims_set_cairo_context_path(self, ctx, vmobject)
    raw = points.tobytes()
    key = (type(self).transform_points_pre_display, tuple(ctx.get_matrix()),
           vmobject.n_points_per_cubic_curve, vmobject.tolerance_for_point_equality,
           points.shape, points.dtype)
    kept = vmobject.__dict__.get("_path_kept")
    if kept is not None and kept.key == key and kept.raw == raw:
        ctx.new_path()
        ctx.append_path(kept.path)
        return self
    manims_set_cairo_context_path(self, ctx, vmobject)
    vmobject.__dict__["_path_kept"] = _KeptPath(key, raw, ctx.copy_path())
    return self


def patches() -> list[tuple]:
    """VMobject's subpath breaks by :func:`split_indices` and the camera's paths by
    :func:`set_cairo_context_path`, while we draw."""
    return [(VMobject, "get_subpath_split_indices_from_points", split_indices),
            (Camera, "set_cairo_context_path", set_cairo_context_path)]
