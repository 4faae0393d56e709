"""2-D views: a faint coordinate plane, arrows from its origin with a word at the tip, and
the motion that carries a plane through a linear map.

A 2-D picture of a high-dimensional vector is a projection, and says so: a plane takes a
``note`` written under it.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Animation, Arrow, Dot, Mobject, NumberPlane, VGroup,
                   VMobject)

from . import stage, style
from .text import dimmed, label_text, outlined, user_text, wrapped

__all__ = ["CarryPlane", "LabelledArrow", "Plane2D", "nice_step", "place_label_at_tip"]


def nice_step(extent: float, lines_per_side: float = 4) -> float:
    """A round grid step (1, 2 or 5 times a power of ten) giving about
    ``lines_per_side`` lines over ``extent``.

    >>> nice_step(3.7)
    1.0
    """
    raw = max(extent, 1e-9) / lines_per_side
    power = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power


def _plane_style(line_opacity: float = 0.35) -> dict:
    return dict(
        background_line_style={"stroke_color": style.PALETTE.grid,
                               "stroke_width": 1, "stroke_opacity": line_opacity},
        faded_line_ratio=1,
        axis_config={"stroke_color": style.PALETTE.dim, "stroke_width": 1.5,
                     "include_ticks": False, "include_tip": False})


class Plane2D(VGroup):
    """A faint coordinate plane for a 2-D view of vectors, with a note saying which
    projection it is (honesty rule: a 2-D picture of a high-dimensional vector says so).

    ``points`` (N x 2) set the view: the plane spans their bounding box and the origin,
    with a margin, at equal units on both axes, within ``width`` x ``height``; or give
    ``extent`` for a square view from -extent to +extent. ``self.plane`` is a manim
    NumberPlane; ``self.c2p(x, y)`` maps view coordinates to the scene.
    :meth:`cropped` makes a plane over just the range some points use.

    >>> plane = Plane2D(np.array([[1.0, 2.0], [-0.5, 0.3]]), width=4, height=3)
    >>> bool(np.allclose(plane.origin, plane.c2p(0, 0)))
    True
    """

    def __init__(self, points=None, *, width: float = 6.0, height: float = 6.0,
                 extent: float | None = None, note: str | Mobject | None = None,
                 note_font_size: float = style.FONT_SMALL, line_opacity: float = 0.35,
                 margin: float = 1.25):
        super().__init__()
        if extent is not None:
            extent = extent if extent > 1e-9 else 1.0
            lo, hi = np.array([-extent, -extent]), np.array([extent, extent])
        else:
            pts = np.zeros((1, 2)) if points is None else np.asarray(points, float).reshape(-1, 2)
            lo = np.minimum(pts.min(axis=0), 0.0)
            hi = np.maximum(pts.max(axis=0), 0.0)
            span = max(float((hi - lo).max()), 1e-9)
            pad = (margin - 1.0) * span / 2 + 1e-9
            lo, hi = lo - pad, hi + pad
            extent = float(np.abs(np.vstack([lo, hi])).max())
        self.extent = extent
        # equal units on both axes: grow the short side of the box to the frame's shape
        unit = min(width / (hi[0] - lo[0]), height / (hi[1] - lo[1]))
        extra_x = (width / unit - (hi[0] - lo[0])) / 2
        extra_y = (height / unit - (hi[1] - lo[1])) / 2
        lo, hi = lo - [extra_x, extra_y], hi + [extra_x, extra_y]
        step = nice_step(float(max(hi[0] - lo[0], hi[1] - lo[1])) / 2)
        self.plane = NumberPlane(x_range=[lo[0], hi[0], step], y_range=[lo[1], hi[1], step],
                                 x_length=width, y_length=height, **_plane_style(line_opacity))
        self.add(self.plane)
        self.note = None
        self.note_font_size = note_font_size
        if note is not None:
            self.note = note if isinstance(note, Mobject) else label_text(
                note, note_font_size, style.PALETTE.dim)
            self.note.next_to(self.plane, DOWN, buff=0.15)
            self.add(self.note)

    @classmethod
    def cropped(cls, points: np.ndarray, width: float, height: float, pad: float) -> "Plane2D":
        """A plane fitted to the points and the origin with ``pad`` scene units to spare
        around them, over just the range they use (at most ``width`` x ``height``): value
        vectors often lean one way, and a plane symmetric about the origin would waste
        half the room."""
        lo = np.minimum(points.min(axis=0), 0.0)
        hi = np.maximum(points.max(axis=0), 0.0)
        span = np.maximum(hi - lo, 1e-6)
        scale = min((width - 2 * pad) / span[0], (height - 2 * pad) / span[1])
        lo, hi = lo - pad / scale, hi + pad / scale
        step = nice_step(max(float((hi - lo).max()), 1e-9), lines_per_side=6)
        lo = np.floor(lo / step) * step
        hi = np.ceil(hi / step) * step
        scale = min(width / (hi[0] - lo[0]), height / (hi[1] - lo[1]))
        plane = cls(extent=float(np.abs(np.concatenate([lo, hi])).max()), width=width,
                    height=height)
        plane.remove(plane.plane)
        plane.plane = NumberPlane(x_range=[lo[0], hi[0], step], y_range=[lo[1], hi[1], step],
                                  x_length=(hi[0] - lo[0]) * scale,
                                  y_length=(hi[1] - lo[1]) * scale, **_plane_style())
        plane.add(plane.plane)
        return plane

    def c2p(self, x: float, y: float) -> np.ndarray:
        return self.plane.c2p(x, y)

    @property
    def origin(self) -> np.ndarray:
        return self.plane.c2p(0, 0)

    def wrap_note(self, width: float) -> Mobject:
        """Wrap the note to ``width`` (a new Text in its place, same size and colour):
        a note keeps the legible size and takes more lines rather than shrink."""
        if self.note is not None and self.note.width > width:
            wrapped_note = label_text(wrapped(self.note.original_text, width),
                                      self.note_font_size, style.PALETTE.dim)
            wrapped_note.move_to(self.note, aligned_edge=UP)
            self.remove(self.note)
            self.note = wrapped_note
            self.add(wrapped_note)
        return self.note

    @property
    def axes(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The two axes as (start, end) scene points: labels keep clear of them as of
        arrow shafts (a word struck through by an axis is hard to read)."""
        (x0, x1), (y0, y1) = self.plane.x_range[:2], self.plane.y_range[:2]
        return [(self.c2p(x0, 0), self.c2p(x1, 0)), (self.c2p(0, y0), self.c2p(0, y1))]


def place_label_at_tip(label: Mobject, tail: np.ndarray, tip: np.ndarray,
                       buff: float = 0.1) -> Mobject:
    """Put a label just beyond an arrow's tip, along its direction, without touching it."""
    d = np.asarray(tip, float) - np.asarray(tail, float)
    n = np.linalg.norm(d[:2])
    u = np.array([1.0, 0.0, 0.0]) if n < 1e-9 else d / n
    support = 0.5 * (label.width * abs(u[0]) + label.height * abs(u[1]))
    label.move_to(np.asarray(tip, float) + u * (support + buff))
    return label


class ShortVector(Dot):
    """A vector shorter than ``style.MIN_ARROW``: an arrow of a few pixels reads as
    nothing, so its tip is drawn as a dot. Its start and end are where the vector's are
    (``get_start``, ``get_end``), so it is placed, labelled and grown as an arrow is."""

    def __init__(self, start, end, color: str):
        super().__init__(np.asarray(end, float), radius=0.06, color=color)
        self.reach = np.asarray(end, float) - np.asarray(start, float)

    def get_end(self) -> np.ndarray:
        return self.get_center()

    def scale(self, scale_factor: float, scale_tips: bool = False, **kwargs):
        # grown as an arrow is (GrowArrow scales its tip too): a dot has only its tip
        return super().scale(scale_factor, **kwargs)

    def get_start(self) -> np.ndarray:
        return self.get_center() - self.reach


class LabelledArrow(VGroup):
    """An arrow from a plane's origin to a 2-D point, with the word at its tip.

    One colour per role (query yellow, key teal, value red...). Special tokens are drawn
    dimmed. ``self.arrow``, ``self.word``; ``self.xy`` the view coordinates;
    ``self.extras`` holds what :func:`place_arrow_labels` adds for the word (a leader
    line, the comma of a shared label): show it with the word.
    """

    def __init__(self, plane: Plane2D, xy, word: str | Mobject, color: str, *,
                 special: bool = False, font_size: float = style.FONT_LABEL,
                 stroke_width: float = 4.0):
        super().__init__()
        self.xy = np.asarray(xy, dtype=float)[:2]
        self.special = special
        start = plane.origin
        end = plane.c2p(*self.xy)
        if np.linalg.norm(end - start) < 0.02:    # a zero vector still needs a direction
            end = start + RIGHT * 0.02
        self._arrow_color, self._arrow_width = color, stroke_width
        self.arrow = self.arrow_between(start, end)
        self.word = word if isinstance(word, Mobject) else user_text(word, font_size, color)
        if special:     # dimmed but still in its role colour (the arrow already is)
            dimmed(self.word, 0.5)
        # a black outline keeps the word legible over crossing arrows and grid lines
        outlined(self.word)
        place_label_at_tip(self.word, start, end)
        self.extras = VGroup()
        self.add(self.arrow, self.word, self.extras)

    def arrow_between(self, start, end) -> Arrow:
        """A fresh arrow in this one's style (for motion that must not distort its head); a
        vector too short to be seen as an arrow is a dot at its tip (``ShortVector``)."""
        start, end = np.asarray(start, float), np.asarray(end, float)
        if np.linalg.norm(end - start) < style.MIN_ARROW:
            dot = ShortVector(start, end, self._arrow_color)
            return dot.set_opacity(0.4) if self.special else dot
        arrow = Arrow(start, end, buff=0, stroke_width=self._arrow_width, color=self._arrow_color,
                      max_tip_length_to_length_ratio=0.2, max_stroke_width_to_length_ratio=8,
                      tip_length=0.2)
        if self.special:
            arrow.set_opacity(0.4)
        return arrow

    @property
    def tip_point(self) -> np.ndarray:
        return self.arrow.get_end()

    def drop_word(self) -> "LabelledArrow":
        """Leave the arrow unnamed (a crowded view names only the words that matter)."""
        self.remove(self.word)
        self.word = VGroup()
        return self


# the grid of a carried plane is cut where the stage ends: stretched, it would run off
# the frame's edge (x0, y0, x1, y1)
STAGE_BOX = (stage.LEFT_EDGE, stage.BOTTOM_EDGE, stage.RIGHT_EDGE, -stage.BOTTOM_EDGE)


def _clipped(points: np.ndarray, box) -> np.ndarray:
    """A straight stroke's points cut to ``box`` (Liang-Barsky on its end points; what is
    left is the same straight stroke, shorter); a curved one is left as it is."""
    if len(points) < 2:
        return points
    a, b = points[0], points[-1]
    d = b - a
    length = float(np.hypot(d[0], d[1]))
    if length < 1e-9:
        return points
    rel = points[:, :2] - a[:2]
    off_line = np.abs(d[0] * rel[:, 1] - d[1] * rel[:, 0]) / length
    if off_line.max() > 1e-6:
        return points
    t0, t1 = 0.0, 1.0
    x0, y0, x1, y1 = box
    for p, q in ((-d[0], a[0] - x0), (d[0], x1 - a[0]), (-d[1], a[1] - y0), (d[1], y1 - a[1])):
        if abs(p) < 1e-12:
            if q < 0:
                t0, t1 = 0.0, 0.0           # parallel to this edge, and outside it
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
    if t1 <= t0:                              # wholly outside: nothing left to draw
        t0 = t1 = min(max(t0, 0.0), 1.0)
    # the stroke's own parameter along its points, so their spacing (and count) stays
    ts = np.clip((points[:, :2] - a[:2]) @ d[:2] / length ** 2, 0.0, 1.0)
    return a + np.outer(t0 + (t1 - t0) * ts, d)


class CarryPlane(Animation):
    """Carries a plane's grid and its arrows through a path of 2x2 linear maps about the
    plane's origin: ``path(t)`` (t from 0 to 1 after easing; the identity at 0) is applied
    to the grid's points as they were at the start, and each arrow is redrawn from the
    origin to its mapped tip, so arrow heads keep their shape. Text is never mapped: with
    ``carry_words`` each word rides, unturned, at its tip; lay them out afresh at the end.

    ``grid`` is any VMobject (e.g. ``Plane2D.plane``); ``arrows`` are LabelledArrows.
    ``shift(t)``, when given, moves the origin along (a 3-vector, zero at 0): the plane is
    carried towards where another view's origin is while it turns.
    """

    def __init__(self, grid: VMobject, arrows: Sequence["LabelledArrow"], origin,
                 path: Callable[[float], np.ndarray],
                 shift: Callable[[float], np.ndarray] | None = None,
                 carry_words: bool = False, avoid: Sequence[Mobject] = (), **kwargs):
        kwargs.setdefault("rate_func", style.EASE)
        self.avoid = list(avoid)        # what riding words give way to (notes), besides
        #                                 each other and the stage's edge
        self.grid, self.labelled = grid, list(arrows)
        self.origin = np.asarray(origin, dtype=float)
        self.path = path
        self.shift = shift
        self.grid_start = [m.points.copy() for m in grid.family_members_with_points()]
        self.tips_start = [a.tip_point - self.origin for a in self.labelled]
        # words ride on their tips, unturned (text is never mapped)
        self.words = [a.word for a in self.labelled
                      if carry_words and (a.word.has_points() or len(a.word.submobjects))]
        self.word_offsets = [a.word.get_center() - a.tip_point for a in self.labelled
                             if a.word in self.words]
        moving = VGroup(grid, *[a.arrow for a in self.labelled], *self.words)
        super().__init__(moving, **kwargs)

    def _scene_matrix(self, t: float) -> np.ndarray:
        m = np.eye(3)
        m[:2, :2] = np.asarray(self.path(t), dtype=float).reshape(2, 2)
        return m

    def interpolate_mobject(self, alpha: float) -> None:
        t = self.rate_func(alpha)
        m = self._scene_matrix(t)
        here = self.origin + (np.zeros(3) if self.shift is None
                              else np.asarray(self.shift(t), dtype=float))
        for mob, pts in zip(self.grid.family_members_with_points(), self.grid_start):
            mob.points = _clipped(here + (pts - self.origin) @ m.T, STAGE_BOX)
        for a, tip in zip(self.labelled, self.tips_start):
            a.arrow.become(a.arrow_between(here, here + m @ tip))
        riding = [a for a in self.labelled if a.word in self.words]
        for a, offset in zip(riding, self.word_offsets):
            a.word.move_to(a.tip_point + offset)
        self._give_way(t)

    # riding words that come near each other fade, the later ones giving way to the earlier
    # (the arrows' order: the caller puts what matters first), and so do words coming near
    # a note to avoid or the stage's edge: never two texts drawn over each other, nothing
    # cut by the frame, and nothing popping in or out
    CLEAR = 0.18            # scene units: a word fades over this last stretch before touching

    def _give_way(self, t: float) -> None:
        if not self.words:
            return
        if not hasattr(self, "_word_opacity"):
            self._word_opacity = [[(m, m.get_fill_opacity(), m.get_stroke_opacity(),
                                    m.get_stroke_opacity(background=True))
                                   for m in w.get_family() if m.has_points()]
                                  for w in self.words]
        boxes = [_box_of(w) for w in self.words]
        fixed = [_box_of(m) for m in self.avoid if m.has_points() or m.submobjects]
        x0, y0, x1, y1 = STAGE_BOX
        for n, leaves in enumerate(self._word_opacity):
            b = boxes[n]
            inside = min(b[0] - x0, x1 - b[2], b[1] - y0, y1 - b[3])
            share = float(np.clip(inside / self.CLEAR, 0.0, 1.0))
            for other in boxes[:n] + fixed:
                gap = _box_gap(b, other)
                share = min(share, float(np.clip(gap / self.CLEAR, 0.0, 1.0)))
            if t <= 0:
                share = 1.0
            for m, fill, stroke, background in leaves:
                m.set_fill(opacity=fill * share)
                m.set_stroke(opacity=stroke * share)
                m.set_stroke(opacity=background * share, background=True)


def _box_of(mob) -> np.ndarray:
    return np.concatenate([mob.get_corner(DOWN + LEFT)[:2], mob.get_corner(UP + RIGHT)[:2]])


def _box_gap(a, b) -> float:
    """The distance between two boxes (x0, y0, x1, y1); 0 when they touch or overlap."""
    dx = max(a[0] - b[2], b[0] - a[2], 0.0)
    dy = max(a[1] - b[3], b[1] - a[3], 0.0)
    return float(np.hypot(dx, dy))

