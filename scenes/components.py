"""Shared drawing components of the beats, each written once.

Every component is a VGroup subclass (or a small factory) that only *lays out* mobjects:
numbers are never formatted here. A component that shows trace numbers takes Text
mobjects made by ``BeatScene.number`` (which records them for the tests), or a callable
that makes them, so each number on screen stays traceable to the model.

Per-frame cost matters (see DESIGN, "Engineering notes"): a moving VMobject costs about
0.1 ms per frame, so components keep their moving parts few and expose static parts that
a beat can add first.
"""
from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np
from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, Animation, ArcBetweenPoints, Arrow, CapStyleType, ManimColor,
                   Create, Dot, FadeIn, Line, Mobject, NumberPlane, Rectangle,
                   RoundedRectangle, Square, SurroundingRectangle, Text, VGroup, VMobject,
                   config, interpolate_color)

from scenes import style

# ---- text --------------------------------------------------------------------------------


def user_text(text: str, font_size: float = style.FONT_TOKEN, color: str | None = None,
              **kwargs) -> Text:
    """User text (tokens, words): plain text, never markup, font chosen by script.

    Same rules as ``BeatScene.user_text``; here so components need no scene.
    """
    return style.user_text_mobject(text, font_size=font_size,
                                   color=color or style.PALETTE.text, **kwargs)


def label_text(text: str, font_size: float = style.FONT_LABEL, color: str | None = None,
               **kwargs) -> Text:
    """Our own fixed wording in Computer Modern (never user text)."""
    return Text(text, font=style.SERIF, font_size=font_size,
                color=color or style.PALETTE.text, **kwargs)


_BASELINE_REF = "Hg"   # cap height + descender: fixes a line box independent of the word


def baseline_text(text: str, font_size: float = style.FONT_TOKEN, color: str | None = None
                  ) -> tuple[VGroup, float, float]:
    """User text whose vertical placement follows the font's baseline, not its ink.

    Centring each word by its ink would make "the", "jumped" and "fish" sit at different
    heights in a row. We render the word after a reference pair ("Hg") in one Text and
    drop the reference glyphs: what is left keeps the shared baseline. Returns the glyphs
    and the y of the line box's top and bottom (from the reference glyphs).
    """
    font = style.font_for(text)
    whole = style.user_text_mobject(_BASELINE_REF + text, font=font, font_size=font_size,
                                    color=color or style.PALETTE.text)
    alone = style.user_text_mobject(text, font=font, font_size=font_size)
    n_ref = len(_BASELINE_REF)
    if len(whole.submobjects) == n_ref + len(alone.submobjects) and len(alone.submobjects):
        ref = VGroup(*whole.submobjects[:n_ref])
        glyphs = VGroup(*whole.submobjects[n_ref:])
        top, bottom = ref.get_top()[1], ref.get_bottom()[1]
        shift = -np.array([glyphs.get_center()[0], (top + bottom) / 2, 0])
        glyphs.shift(shift)
        return glyphs, top + shift[1], bottom + shift[1]
    # shaping merged glyphs (rare scripts): fall back to centring the ink
    alone.set_color(color or style.PALETTE.text).move_to(ORIGIN)
    return VGroup(*alone.submobjects) if alone.submobjects else VGroup(alone), \
        alone.get_top()[1], alone.get_bottom()[1]


_LINE_BOX: dict[float, float] = {}


def line_box_height(font_size: float) -> float:
    """The tallest reference line box ("Hg") among the fonts a token may use."""
    if font_size not in _LINE_BOX:
        _LINE_BOX[font_size] = max(
            Text(_BASELINE_REF, font=font, font_size=font_size).height
            for font in (style.SERIF, style.CJK))
    return _LINE_BOX[font_size]


# ---- tokens ------------------------------------------------------------------------------


class TokenChip(VGroup):
    """A token written in a rounded box.

    Special tokens ([CLS], [SEP], ...) are drawn dimmed, never hidden. ``self.word`` is
    the text glyphs, ``self.box`` the rounded rectangle, ``self.token_text`` the string.
    All chips of one font size have the same height, and their words share a baseline.
    """

    def __init__(self, text: str, *, special: bool = False,
                 font_size: float = style.FONT_TOKEN, color: str | None = None,
                 box_color: str | None = None, min_width: float = 0.0):
        super().__init__()
        pal = style.PALETTE
        self.token_text = text
        self.special = special
        text_color = pal.special if special else (color or pal.text)
        self.word, top, bottom = baseline_text(text, font_size, text_color)
        pad_x = 0.22 * font_size / 30
        pad_y = 0.14 * font_size / 30
        # one height for every chip of a size, whatever the script (rows mix fonts)
        height = line_box_height(font_size) + 2 * pad_y
        width = max(self.word.width + 2 * pad_x, min_width, height)
        self.box = RoundedRectangle(corner_radius=0.1 * font_size / 30, width=width,
                                    height=height)
        self.box.move_to([0, (top + bottom) / 2, 0])
        edge = box_color or (pal.special if special else pal.dim)
        self.box.set_stroke(edge, width=1.5, opacity=0.6 if special else 1.0)
        self.box.set_fill(style.BACKGROUND, opacity=1.0)
        self.add(self.box, self.word)

    def set_role_color(self, color: str) -> "TokenChip":
        """Tint the box edge (e.g. the focus token in the query colour)."""
        self.box.set_stroke(color, opacity=1.0)
        return self


def focus_window(num_tokens: int, focus_index: int | None,
                 max_tokens: int | None = None) -> tuple[int, int]:
    """The half-open range of token positions to draw: all of them when they fit, else
    ``max_tokens`` (default ``style.MAX_TOKENS_DRAWN``) positions around the focus token,
    shifted to stay inside the sentence."""
    max_tokens = style.MAX_TOKENS_DRAWN if max_tokens is None else max_tokens
    if num_tokens <= max_tokens:
        return 0, num_tokens
    focus = 0 if focus_index is None else int(focus_index)
    start = min(max(focus - max_tokens // 2, 0), num_tokens - max_tokens)
    return start, start + max_tokens


class TokenRow(VGroup):
    """A row of TokenChips fitted to the frame width.

    With more than ``max_tokens`` tokens only a window around ``focus_index`` is drawn,
    with "…" where the sentence continues and a small note under the row stating the
    window (``self.window_note``). ``self.indices`` lists the token positions drawn;
    ``self.chip(i)`` is the chip of token position ``i`` (None outside the window).
    """

    def __init__(self, tokens: Sequence[str], special: Sequence[bool] | None = None, *,
                 focus_index: int | None = None, max_tokens: int | None = None,
                 max_width: float | None = None, font_size: float = style.FONT_TOKEN,
                 buff: float = 0.18):
        super().__init__()
        tokens = list(tokens)
        special = list(special) if special is not None else [False] * len(tokens)
        self.num_tokens = len(tokens)
        self.window = focus_window(len(tokens), focus_index, max_tokens)
        start, stop = self.window
        self.indices = list(range(start, stop))
        self.chips = VGroup(*[TokenChip(tokens[i], special=special[i], font_size=font_size)
                              for i in self.indices])
        self.chips.arrange(RIGHT, buff=buff)
        self.add(self.chips)
        self.ellipses = VGroup()
        if start > 0:
            self.ellipses.add(label_text("…", font_size).next_to(self.chips, LEFT, buff=buff))
        if stop < len(tokens):
            self.ellipses.add(label_text("…", font_size).next_to(self.chips, RIGHT, buff=buff))
        self.add(self.ellipses)
        self.window_note = None
        if self.windowed:
            self.window_note = label_text(
                f"showing tokens {start + 1}\u2013{stop} of {len(tokens)}, around the focus word",
                style.FONT_SMALL, style.PALETTE.dim)
            self.window_note.next_to(self.chips, DOWN, buff=0.25)
            self.add(self.window_note)
        limit = max_width if max_width is not None else config.frame_width - 1.0
        if self.width > limit:
            self.scale_to_fit_width(limit)
        self.move_to(ORIGIN)

    @property
    def windowed(self) -> bool:
        return self.window != (0, self.num_tokens)

    def chip(self, token_index: int) -> TokenChip | None:
        if token_index in self.indices:
            return self.chips[self.indices.index(token_index)]
        return None


# ---- vectors -----------------------------------------------------------------------------


def magnitude_color(magnitude: float, scale: float) -> str:
    """Entry brightness by magnitude: grey for small, white for the largest."""
    share = 0.0 if scale <= 0 else min(abs(magnitude) / scale, 1.0)
    return interpolate_color(ManimColor(style.PALETTE.dim), ManimColor("#FFFFFF"), share ** 0.75).to_hex()


def shown_components(length: int, head: int = 3, tail: int = 1) -> list[int]:
    """Which components of a vector to write: the first ``head`` and last ``tail``
    (all of them when the vector is short)."""
    if length <= head + tail + 1:
        return list(range(length))
    return list(range(head)) + list(range(length - tail, length))


def bracket(height: float, side: str, *, arm: float = 0.12, color: str | None = None,
            stroke_width: float = 2.0) -> VGroup:
    """A square bracket as a three-segment line ('left' opens right, 'right' opens left)."""
    sign = 1 if side == "left" else -1
    h = height / 2
    # three Lines, not one polyline: a polyline would fill its inside under set_opacity
    b = VGroup(Line([sign * arm, h, 0], [0, h, 0]), Line([0, h, 0], [0, -h, 0]),
               Line([0, -h, 0], [sign * arm, -h, 0]))
    return b.set_stroke(color or style.PALETTE.soft, width=stroke_width)


class VectorColumn(VGroup):
    """A bracketed column of a vector's numbers: a few entries, a "⋮" row where
    components are skipped, entries right-aligned, brightness by magnitude.

    ``entries`` is either a sequence of ready Text mobjects (shown top to bottom; a ⋮
    goes after position ``gap_after`` when given), or a callable ``make(c) -> Mobject``
    called for each component in ``shown_components(length)`` (⋮ where they skip).
    ``magnitudes`` (same order as the shown entries) only sets brightness. Use
    :meth:`from_trace` to read entries through ``scene.number`` so they are recorded.
    """

    def __init__(self, entries: Sequence[Mobject] | Callable[[int], Mobject], *,
                 length: int | None = None, head: int = 3, tail: int = 1,
                 gap_after: int | None = None, magnitudes: Sequence[float] | None = None,
                 row_height: float = 0.34, bracket_color: str | None = None,
                 color_by_magnitude: bool = True, font_size: float = style.FONT_NUMBER):
        super().__init__()
        if callable(entries):
            if length is None:
                raise ValueError("a callable of entries needs the vector length")
            self.components = shown_components(length, head, tail)
            mobs = [entries(c) for c in self.components]
            gaps = [n for n in range(len(self.components) - 1)
                    if self.components[n + 1] != self.components[n] + 1]
            gap_after = gaps[0] if gaps else None
        else:
            mobs = list(entries)
            self.components = list(range(len(mobs)))
        self.entries = VGroup(*mobs)
        if color_by_magnitude and magnitudes is not None and len(magnitudes) == len(mobs):
            scale = max((abs(m) for m in magnitudes), default=0.0)
            for mob, mag in zip(mobs, magnitudes):
                mob.set_color(magnitude_color(mag, scale))
        rows: list[Mobject] = []
        self.dots = None
        for n, mob in enumerate(mobs):
            rows.append(mob)
            if gap_after is not None and n == gap_after:
                self.dots = label_text("\u22ee", font_size, style.PALETTE.soft)
                rows.append(self.dots)
        # fixed row pitch so columns of different vectors line up row by row
        width = max((m.width for m in mobs), default=0.3)
        for r, mob in enumerate(rows):
            y = -r * row_height
            if mob is self.dots:
                mob.move_to([-width / 2, y, 0])
            else:
                mob.move_to([0, y, 0], aligned_edge=RIGHT)
                mob.set_x(-mob.width / 2)   # right edges at x = 0
        self.rows = VGroup(*rows)
        self.rows.move_to(ORIGIN)
        height = len(rows) * row_height + 0.1
        self.brackets = VGroup(
            bracket(height, "left", color=bracket_color).next_to(self.rows, LEFT, buff=0.1),
            bracket(height, "right", color=bracket_color).next_to(self.rows, RIGHT, buff=0.1),
        )
        self.brackets.set_y(self.rows.get_center()[1])
        self.add(self.brackets, self.rows)

    @classmethod
    def from_trace(cls, scene, kind: str, prefix: tuple, length: int, *, head: int = 3,
                   tail: int = 1, font_size: float = style.FONT_NUMBER, **kwargs
                   ) -> "VectorColumn":
        """A column of ``kind[prefix + (c,)]`` for the shown components, each written by
        ``scene.number`` (signed, ``style.VECTOR_DECIMALS``) so it is recorded."""
        from scenes.numbers import lookup
        comps = shown_components(length, head, tail)
        mags = [lookup(scene.trace, kind, tuple(prefix) + (c,)) for c in comps]
        return cls(lambda c: scene.number(kind, tuple(prefix) + (c,),
                                          decimals=style.VECTOR_DECIMALS, signed=True,
                                          font_size=font_size),
                   length=length, head=head, tail=tail, magnitudes=mags,
                   font_size=font_size, **kwargs)

    def entry(self, component: int) -> Mobject:
        """The drawn entry of a vector component."""
        return self.entries[self.components.index(component)]


def vector_symbol(letter: str, index_text: str | None = None, *, color: str | None = None,
                  font_size: float = style.FONT_LABEL) -> VGroup:
    """A vector's name in 3b1b style: bold letter with an arrow over it, and an index
    written as user text (a word or a number) as a subscript. ``letter`` is our own
    symbol (q, k, v, E); the index never goes through Typst."""
    from manim import MathTypst
    col = color or style.PALETTE.text
    sym = MathTypst(f"arrow(bold({letter}))", color=col, font_size=font_size * 1.2)
    group = VGroup(sym)
    if index_text is not None:
        sub = user_text(index_text, font_size * 0.7, col)
        sub.next_to(sym, RIGHT, buff=0.04).align_to(sym, DOWN).shift(DOWN * 0.08 * font_size / 24)
        group.add(sub)
    return group


# ---- 2-D views ---------------------------------------------------------------------------


def _nice_step(extent: float) -> float:
    """A round grid step giving about four lines on each side of the origin."""
    raw = max(extent, 1e-9) / 4
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power


class Plane2D(VGroup):
    """A faint coordinate plane for a 2-D view of vectors, with a note saying which
    projection it is (honesty rule: a 2-D picture of a high-dimensional vector says so).

    ``points`` (N x 2) set the view: the plane spans their bounding box and the origin,
    with a margin, at equal units on both axes, within ``width`` x ``height``; or give
    ``extent`` for a square view from -extent to +extent. ``self.plane`` is a manim
    NumberPlane (``ApplyMatrix`` works on it); ``self.c2p(x, y)`` maps view coordinates
    to the scene.
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
        step = _nice_step(float(max(hi[0] - lo[0], hi[1] - lo[1])) / 2)
        self.plane = NumberPlane(
            x_range=[lo[0], hi[0], step], y_range=[lo[1], hi[1], step],
            x_length=width, y_length=height,
            background_line_style={"stroke_color": style.PALETTE.grid,
                                   "stroke_width": 1, "stroke_opacity": line_opacity},
            faded_line_ratio=1,
            axis_config={"stroke_color": style.PALETTE.dim, "stroke_width": 1.5,
                         "include_ticks": False, "include_tip": False},
        )
        self.add(self.plane)
        self.note = None
        if note is not None:
            self.note = note if isinstance(note, Mobject) else label_text(
                note, note_font_size, style.PALETTE.dim)
            self.note.next_to(self.plane, DOWN, buff=0.15)
            self.add(self.note)

    def c2p(self, x: float, y: float) -> np.ndarray:
        return self.plane.c2p(x, y)

    @property
    def origin(self) -> np.ndarray:
        return self.plane.c2p(0, 0)

    def view_matrix_in_scene(self, m2x2) -> np.ndarray:
        """A 3x3 scene matrix doing the view's 2x2 linear map about the plane's origin
        (NumberPlane units are equal on both axes, so the same matrix applies)."""
        out = np.eye(3)
        out[:2, :2] = np.asarray(m2x2, dtype=float)
        return out


def place_label_at_tip(label: Mobject, tail: np.ndarray, tip: np.ndarray,
                       buff: float = 0.1) -> Mobject:
    """Put a label just beyond an arrow's tip, along its direction, without touching it."""
    d = np.asarray(tip, float) - np.asarray(tail, float)
    n = np.linalg.norm(d[:2])
    u = np.array([1.0, 0.0, 0.0]) if n < 1e-9 else d / n
    support = 0.5 * (label.width * abs(u[0]) + label.height * abs(u[1]))
    label.move_to(np.asarray(tip, float) + u * (support + buff))
    return label


def spread_labels(labels: Sequence[Mobject], *, gap: float = 0.04, iterations: int = 60) -> None:
    """Push apart labels whose boxes overlap (vertically, smallest move first); deterministic.

    For words at arrow tips in a 2-D view use :func:`place_labels` /
    :func:`place_arrow_labels`, which also keep clear of arrows and bounds."""
    mobs = list(labels)
    for _ in range(iterations):
        moved = False
        for a in range(len(mobs)):
            for b in range(a + 1, len(mobs)):
                A, B = mobs[a], mobs[b]
                dx = abs(A.get_x() - B.get_x()) - (A.width + B.width) / 2
                dy = abs(A.get_y() - B.get_y()) - (A.height + B.height) / 2
                if dx < -gap / 2 and dy < -gap / 2:
                    push = (-dy + gap) / 2
                    up = 1.0 if A.get_y() >= B.get_y() else -1.0
                    if A.get_y() == B.get_y():
                        up = 1.0 if a < b else -1.0
                    A.shift(UP * push * up)
                    B.shift(DOWN * push * up)
                    moved = True
        if not moved:
            return


# ---- label layout for 2-D views ------------------------------------------------------------
#
# Words at arrow tips crowd when vectors nearly coincide. ``place_labels`` lays them out once,
# at scene-build time: each label (or one shared label for a cluster of coincident tips) tries
# candidate spots around its anchor and takes the cheapest, greedily in priority order, then
# a few rounds of re-placing each with all the others fixed. The cost penalises overlapping
# placed labels, covering arrow tips, crossing arrow shafts, leaving the bounds, and distance
# and turn away from the label's natural spot beyond its tip. Deterministic (no randomness,
# ties broken by candidate order). A label that had to move far gets a thin leader line to
# its tip, in its own colour at low opacity.

_BASELINE_DROPS: dict[tuple, float] = {}


def _first_text(mob: Mobject) -> Text | None:
    for m in mob.get_family():
        if isinstance(m, Text):
            return m
    return None


def baseline_drop(label: Mobject) -> float:
    """How far a label's ink reaches below its baseline (0 for "cat", more for "fish,"'s
    comma or "[SEP]"), in scene units at the label's current size; 0 when unknown."""
    text = label if isinstance(label, Text) else None
    if text is None or not text.submobjects or not getattr(text, "original_text", ""):
        return 0.0
    key = (text.original_text, text.font, round(text._font_size, 3))
    if key not in _BASELINE_DROPS:
        drop = 0.0
        try:
            ref = Text("H" + text.original_text, font=text.font, font_size=text._font_size,
                       disable_ligatures=True)
            alone = Text(text.original_text, font=text.font, font_size=text._font_size,
                         disable_ligatures=True)
            if len(ref.submobjects) == 1 + len(alone.submobjects) and alone.height > 0:
                glyphs = VGroup(*ref.submobjects[1:])
                drop = (ref.submobjects[0].get_bottom()[1] - glyphs.get_bottom()[1]) / glyphs.height
        except Exception:       # shaping quirks of rare scripts: centre on the ink instead
            drop = 0.0
        _BASELINE_DROPS[key] = drop
    return _BASELINE_DROPS[key] * label.height


def _label_color(label: Mobject) -> tuple[str, float]:
    for m in label.get_family():
        if m.has_points():
            return m.get_fill_color().to_hex(), float(m.get_fill_opacity())
    return style.PALETTE.text, 1.0


def _box_of(mob) -> np.ndarray:
    """[x0, y0, x1, y1] of a Mobject, or a 4-sequence as is."""
    if isinstance(mob, Mobject):
        return np.array([mob.get_left()[0], mob.get_bottom()[1], mob.get_right()[0],
                         mob.get_top()[1]], dtype=float)
    return np.asarray(mob, dtype=float).reshape(4)


def _overlap_areas(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Pairwise intersection areas, (C, 4) x (P, 4) -> (C, P)."""
    if len(others) == 0:
        return np.zeros((len(boxes), 0))
    ox = np.minimum(boxes[:, None, 2], others[None, :, 2]) - np.maximum(boxes[:, None, 0], others[None, :, 0])
    oy = np.minimum(boxes[:, None, 3], others[None, :, 3]) - np.maximum(boxes[:, None, 1], others[None, :, 1])
    return np.clip(ox, 0, None) * np.clip(oy, 0, None)


def _clip_lengths(boxes: np.ndarray, segs: np.ndarray) -> np.ndarray:
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


class LabelLayout:
    """What :func:`place_labels` decided: final label ``boxes`` ([x0, y0, x1, y1] each),
    the ``clusters`` of labels shown as one shared label, and for each label its
    ``extras`` (a VGroup: the leader line and the commas of a shared label, possibly
    empty) that must be shown with it."""

    def __init__(self, n: int):
        self.boxes = np.zeros((n, 4))
        self.clusters: list[list[int]] = []
        self.extras = [VGroup() for _ in range(n)]
        self.leaders: list[Line | None] = [None] * n

    def all_extras(self) -> VGroup:
        return VGroup(*[e for e in self.extras if e.submobjects])


class _Shape:
    """One way to write a unit (a label, or a cluster's shared label) as a block:
    its size, and each member's centre offset from the block's centre."""

    def __init__(self, kind: str, width: float, height: float, offsets: np.ndarray,
                 commas: list[tuple[int, np.ndarray]] | None = None, cost: float = 0.0):
        self.kind, self.width, self.height = kind, width, height
        self.offsets = offsets
        self.commas = commas or []        # (member position, separator centre offset)
        self.cost = cost
        self.separator = ","


def _is_punctuation(label: Mobject) -> bool:
    text = getattr(_first_text(label), "original_text", "")
    core = text.replace("\u200e", "").strip()
    return bool(core) and all(unicodedata.category(ch)[0] in "PS" for ch in core)


def _separator(text: str, font_size: float) -> Text:
    return Text(text, font=style.SERIF, font_size=font_size)


def _cluster_shapes(labels: list[Mobject], font_size: float, gap: float,
                    row_max_width: float) -> list[_Shape]:
    """The ways to write a cluster's words as one shared label: a row "cat, fish", the
    same list wrapped on two or three lines, or one word a line; wrapped lists align
    left or right. Baselines are aligned. Words keep their own colours; the separators
    (commas, or a middle dot when a word is itself punctuation) are made at the end."""
    k = len(labels)
    ws = np.array([m.width for m in labels])
    hs = np.array([m.height for m in labels])
    drops = np.array([baseline_drop(m) for m in labels])
    comma = not any(_is_punctuation(m) for m in labels)
    sep = _separator("," if comma else "\u00b7", font_size)
    s_drop, s_w, s_h = baseline_drop(sep), sep.width, sep.height
    if not comma:       # a middle dot sits at mid-height, not on the baseline
        s_drop = -(0.5 * float(np.median(hs - drops)) - s_h / 2)
    space = 0.14 * font_size / style.FONT_LABEL
    tight = 0.02 * font_size / style.FONT_LABEL
    pitch = 1.12 * float((hs - drops).max() + drops.max()) + gap
    shapes = []
    for n_lines in sorted({1, 2, 3, k}):
        if n_lines > k:
            continue
        per = math.ceil(k / n_lines)
        lines = [list(range(a, min(a + per, k))) for a in range(0, k, per)]
        # x along each line; separators after every word but the last of the list
        placed, seps, widths = [], [], []
        for members in lines:
            x, row, row_seps = 0.0, [], []
            for m in members:
                if not comma and m != members[0]:     # " · " between words on a line
                    row_seps.append(x + space + s_w / 2)
                    x += 2 * space + s_w
                row.append(x + ws[m] / 2)
                x += ws[m]
                if comma and m < k - 1:
                    row_seps.append(x + tight + s_w / 2)
                    x += tight + s_w + (space if m != members[-1] else 0.0)
            placed.append(row)
            seps.append(row_seps)
            widths.append(x)
        width = max(widths)
        if n_lines < k and width > row_max_width:
            continue
        for align in (("left", "right") if len(lines) > 1 else ("row",)):
            xs, ys, sx, sy = np.zeros(k), np.zeros(k), [], []
            for r, (members, row, row_seps, w_line) in enumerate(zip(lines, placed, seps, widths)):
                shift = (width - w_line) if align == "right" else 0.0
                base = -r * pitch
                for m, x in zip(members, row):
                    xs[m], ys[m] = x + shift, base - drops[m] + hs[m] / 2
                for x in row_seps:
                    sx.append(x + shift)
                    sy.append(base - s_drop + s_h / 2)
            top = max(float((ys + hs / 2).max()), max(sy, default=-1e9) + s_h / 2)
            bottom = min(float((ys - hs / 2).min()), min(sy, default=1e9) - s_h / 2)
            cx, cy = width / 2, (top + bottom) / 2
            offsets = np.stack([xs - cx, ys - cy], axis=1)
            # each separator belongs to the word before it (it fades in with that word)
            owners = []
            for members, row_seps in zip(lines, seps):
                if comma:
                    owners += [m for m in members if m < k - 1]
                else:
                    owners += members[:-1]
            commas = [(o, np.array([x - cx, y - cy])) for o, x, y in zip(owners, sx, sy)]
            shp = _Shape(align, width, top - bottom, offsets, commas,
                         cost=0.3 * (len(lines) - 1))
            shp.separator = "," if comma else "\u00b7"
            shapes.append(shp)
    return shapes


def place_labels(labels: Sequence[Mobject], anchors, *, directions=None,
                 segments=(), keep_clear=(), keep_clear_owner: Sequence[int] | None = None,
                 bounds=None, priority: Sequence[float] | None = None,
                 solo: Sequence[int] = (), merge_within: float = 0.3, gap: float = 0.05,
                 leader_from: float = 0.45, leader_opacity: float = 0.45,
                 row_max_width: float = 2.6, rounds: int = 3) -> LabelLayout:
    """Place labels near their anchors without overlapping each other, the given arrow
    shafts and tips, or the bounds. Moves the labels; returns a :class:`LabelLayout`.

    ``anchors``: one scene point per label (an arrow tip, or a segment's middle);
    ``directions``: the way each label would naturally sit from its anchor (the arrow's
    direction; default: up-right). ``segments``: shafts to keep clear of, as
    (start, end) pairs of points. ``keep_clear``: boxes ([x0, y0, x1, y1] or Mobjects:
    tips, dots) to stay off; ``keep_clear_owner[i]`` names the label a box belongs to (its
    own tip), or -1. ``bounds``: a box (or Mobject) every label must stay inside.
    ``priority``: placed highest first (default: in order). Labels whose anchors lie within
    ``merge_within`` of each other, none of them in ``solo``, share one label: a row
    "cat, fish" or a stacked list, each word keeping its own colour; the commas are in
    ``layout.extras``. A label placed farther than ``leader_from`` from its anchor gets a
    leader line (also in ``extras``). Deterministic.
    """
    labels = list(labels)
    n = len(labels)
    layout = LabelLayout(n)
    if n == 0:
        return layout
    anchors = np.array([np.asarray(a, float)[:2] for a in anchors])
    if directions is None:
        dirs = np.tile([1.0, 1.0], (n, 1))
    else:
        dirs = np.array([np.asarray(d, float)[:2] for d in directions])
    norms = np.linalg.norm(dirs, axis=1)
    dirs = np.where(norms[:, None] > 1e-9, dirs / np.maximum(norms, 1e-9)[:, None],
                    np.array([1.0, 0.0]))
    seg_arr = np.array([[*np.asarray(s, float)[:2], *np.asarray(e, float)[:2]]
                        for s, e in segments]).reshape(-1, 4)
    clear = np.array([_box_of(b) for b in keep_clear]).reshape(-1, 4)
    owner = np.full(len(clear), -1) if keep_clear_owner is None else np.asarray(keep_clear_owner)
    bbox = None if bounds is None else _box_of(bounds)
    prio = np.zeros(n) if priority is None else np.asarray(priority, float)
    solo = set(int(i) for i in solo)

    # ---- clusters: agglomerative, complete linkage on the anchors (closest pair first) --
    dist = np.linalg.norm(anchors[:, None, :] - anchors[None, :, :], axis=2)
    clusters: list[list[int]] = [[i] for i in range(n)]
    while True:
        best = None
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                ca, cb = clusters[a], clusters[b]
                if solo & {*ca, *cb}:
                    continue
                d = float(dist[np.ix_(ca, cb)].max())
                if d < merge_within and (best is None or d < best[0] - 1e-12):
                    best = (d, a, b)
        if best is None:
            break
        _, a, b = best
        clusters[a] = sorted(clusters[a] + clusters[b])
        del clusters[b]
    layout.clusters = [c for c in clusters if len(c) > 1]

    units = []
    for c in clusters:
        mobs = [labels[i] for i in c]
        if len(c) == 1:
            m = mobs[0]
            shapes = [_Shape("single", m.width, m.height, np.zeros((1, 2)))]
        else:
            first = _first_text(mobs[0])
            font = first.font_size if first is not None else style.FONT_LABEL
            shapes = _cluster_shapes(mobs, font, gap, row_max_width)
        anchor = anchors[c].mean(axis=0)
        radius = float(max(np.linalg.norm(anchors[j] - anchor) for j in c))
        d = dirs[c].sum(axis=0)
        d = d / np.linalg.norm(d) if np.linalg.norm(d) > 1e-9 else dirs[c[0]]
        units.append(dict(members=c, shapes=shapes, anchor=anchor, radius=radius, dir=d,
                          prio=float(max(prio[j] for j in c)), choice=None))
    order = sorted(range(len(units)), key=lambda u: (-units[u]["prio"], u))

    gaps = np.array([0.05, 0.13, 0.24, 0.38, 0.56, 0.8, 1.1, 1.5])
    n_dir = 32

    def candidates(u):
        unit = units[u]
        base = math.atan2(unit["dir"][1], unit["dir"][0])
        # angles alternate around the natural direction: 0, +1, -1, +2, -2, ...
        steps = [0] + [s for k in range(1, n_dir // 2 + 1) for s in (k, -k)][:n_dir - 1]
        ang = base + np.array(steps) * (2 * math.pi / n_dir)
        us = np.stack([np.cos(ang), np.sin(ang)], axis=1)
        rows = []
        for si, shp in enumerate(unit["shapes"]):
            support = 0.5 * (shp.width * np.abs(us[:, 0]) + shp.height * np.abs(us[:, 1]))
            for g in gaps:
                centres = unit["anchor"] + us * (support + unit["radius"] + g)[:, None]
                for a in range(len(ang)):
                    rows.append((si, g, a, centres[a], us[a]))
        si = np.array([r[0] for r in rows])
        g = np.array([r[1] for r in rows])
        c = np.array([r[3] for r in rows])
        uu = np.array([r[4] for r in rows])
        w = np.array([unit["shapes"][s].width for s in si])
        h = np.array([unit["shapes"][s].height for s in si])
        boxes = np.stack([c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2], 1)
        # how far the label really is from its anchor (a diagonal spot is farther than its
        # gap): this sets the distance cost and whether a leader line is drawn
        near = np.clip(unit["anchor"], boxes[:, :2], boxes[:, 2:])
        dist = np.linalg.norm(near - unit["anchor"], axis=1)
        return si, dist, c, uu, boxes

    cand = [candidates(u) for u in range(len(units))]
    placed_box: dict[int, np.ndarray] = {}
    placed_leader: dict[int, np.ndarray] = {}

    def cost(u):
        si, g, c, uu, boxes = cand[u]
        unit = units[u]
        pad = np.array([-gap, -gap, gap, gap])
        total = np.zeros(len(boxes))
        others = [placed_box[v] for v in placed_box if v != u]
        if others:
            others = np.array(others)
            ov = _overlap_areas(boxes + pad, others)
            total += 600 * ov.sum(1) + 60 * (ov > 1e-9).sum(1)
            # this label's own leader (when it would need one) must not cut a placed label
            far = g > leader_from
            if far.any():
                near = np.clip(unit["anchor"], boxes[far, :2], boxes[far, 2:])
                legs = np.hstack([np.tile(unit["anchor"], (int(far.sum()), 1)), near])
                ln = _clip_lengths(others, legs).T
                total[far] += 8 * ln.sum(1) + 3 * (ln > 1e-6).sum(1)
        if len(clear):
            mine = np.isin(owner, unit["members"])
            ov = _overlap_areas(boxes, clear[~mine])
            total += 300 * ov.sum(1) + 12 * (ov > 1e-9).sum(1)
        if len(seg_arr):
            ln = _clip_lengths(boxes + pad * 0.6, seg_arr)
            total += 6 * ln.sum(1) + 1.5 * (ln > 1e-6).sum(1)
        leaders = [placed_leader[v] for v in placed_leader if v != u]
        if leaders:
            ln = _clip_lengths(boxes, np.array(leaders))
            total += 3 * ln.sum(1) + 1.0 * (ln > 1e-6).sum(1)
        if bbox is not None:
            inside = _overlap_areas(boxes, bbox[None, :])[:, 0]
            area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
            out = np.clip(area - inside, 0, None)
            total += 2000 * out + 200 * (out > 1e-9)
        total += 4.0 * g + 1.0 * (g > leader_from)  # g: distance to the anchor
        total += 1.2 * (1 - uu @ unit["dir"])
        kinds = [unit["shapes"][s].kind for s in si]
        total += np.array([unit["shapes"][s].cost for s in si])
        # a stacked list reads from its aligned edge: left-aligned to the right of the tips
        total += 0.4 * np.array([(k == "left" and x < -0.2) or (k == "right" and x > 0.2)
                                 for k, x in zip(kinds, uu[:, 0])])
        return total

    def leader_segment(u, box):
        anchor = units[u]["anchor"]
        near = np.clip(anchor, box[:2], box[2:])
        return np.array([*anchor, *near])

    def choose(u):
        total = cost(u)
        best = int(np.argmin(total))     # first minimum: ties go to the earlier candidate
        units[u]["choice"] = best
        _, g, _, _, boxes = cand[u]
        placed_box[u] = boxes[best]
        if g[best] > leader_from:
            placed_leader[u] = leader_segment(u, boxes[best])
        else:
            placed_leader.pop(u, None)

    for u in order:
        choose(u)
    for _ in range(max(rounds - 1, 0)):
        before = [units[u]["choice"] for u in order]
        for u in order:
            choose(u)
        if before == [units[u]["choice"] for u in order]:
            break

    # ---- move the mobjects, make commas and leaders --------------------------------------
    for u, unit in enumerate(units):
        si, g, c, uu, boxes = cand[u]
        best = unit["choice"]
        shp = unit["shapes"][si[best]]
        centre = c[best]
        for m, off in zip(unit["members"], shp.offsets):
            labels[m].move_to([centre[0] + off[0], centre[1] + off[1], labels[m].get_z()])
            layout.boxes[m] = _box_of(labels[m])
        for pos, off in shp.commas:
            owner_label = labels[unit["members"][pos]]
            color, opacity = _label_color(owner_label)
            first = _first_text(owner_label)
            font = first.font_size if first is not None else style.FONT_LABEL
            comma = Text(shp.separator, font=style.SERIF, font_size=font, color=color)
            comma.set_opacity(opacity)
            comma.set_stroke(style.BACKGROUND, width=5, background=True)
            comma.move_to([centre[0] + off[0], centre[1] + off[1], 0])
            layout.extras[unit["members"][pos]].add(comma)
        if g[best] > leader_from:
            seg = leader_segment(u, boxes[best])
            a, b = np.array([*seg[:2], 0.0]), np.array([*seg[2:], 0.0])
            span = np.linalg.norm(b - a)
            if span > 0.1:
                unit_v = (b - a) / span
                first = unit["members"][0]
                color, opacity = _label_color(labels[first])
                leader = Line(a + unit_v * 0.06, b - unit_v * 0.04)
                leader.set_stroke(color, width=1.5, opacity=leader_opacity * opacity)
                layout.leaders[first] = leader
                layout.extras[first].add(leader)
    return layout


def place_arrow_labels(arrows: Sequence["LabelledArrow"], *, bounds=None, solo: Sequence[int] = (),
                       segments=(), keep_clear=(), priority: Sequence[float] | None = None,
                       **kwargs) -> LabelLayout:
    """:func:`place_labels` for LabelledArrows (arrows without a word are obstacles only):
    anchors at the tips, natural direction along each arrow, every shaft and tip kept
    clear; the leader lines and commas go into each arrow's ``extras``. ``solo`` and
    ``priority`` index ``arrows``. Default priority: solo labels first, then ordinary words
    before special tokens, then longer arrows first (the crowd near the origin fits round
    them)."""
    arrows = list(arrows)
    worded = [n for n, a in enumerate(arrows) if a.word.has_points() or
              any(m.has_points() for m in a.word.get_family())]
    segs = [(a.arrow.get_start(), a.tip_point) for a in arrows] + list(segments)
    tips = [[*(a.tip_point[:2] - 0.1), *(a.tip_point[:2] + 0.1)] for a in arrows]
    owners = [worded.index(n) if n in worded else -1 for n in range(len(arrows))]
    extra_clear = [_box_of(b) for b in keep_clear]
    solo = set(solo)
    if priority is None:
        priority = [1000.0 * (n in solo) + 100.0 * (not arrows[n].special)
                    + float(np.linalg.norm(arrows[n].tip_point - arrows[n].arrow.get_start()))
                    for n in range(len(arrows))]
    layout = place_labels(
        [arrows[n].word for n in worded], [arrows[n].tip_point for n in worded],
        directions=[arrows[n].tip_point - arrows[n].arrow.get_start() for n in worded],
        segments=segs, keep_clear=tips + extra_clear,
        keep_clear_owner=owners + [-1] * len(extra_clear), bounds=bounds,
        priority=[priority[n] for n in worded],
        solo=[worded.index(n) for n in solo if n in worded], **kwargs)
    for k, n in enumerate(worded):
        arrows[n].extras.remove(*arrows[n].extras.submobjects)
        arrows[n].extras.add(*layout.extras[k].submobjects)
    return layout


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
            self.word.set_opacity(0.5)
        # a black outline keeps the word legible over crossing arrows and grid lines
        self.word.set_stroke(style.BACKGROUND, width=5, background=True)
        place_label_at_tip(self.word, start, end)
        self.extras = VGroup()
        self.add(self.arrow, self.word, self.extras)

    def arrow_between(self, start, end) -> Arrow:
        """A fresh arrow in this one's style (for motion that must not distort its head)."""
        start, end = np.asarray(start, float), np.asarray(end, float)
        if np.linalg.norm(end - start) < 0.02:
            end = start + RIGHT * 0.02
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


class CarryPlane(Animation):
    """Carries a plane's grid and its arrows through a path of 2x2 linear maps about the
    plane's origin: ``path(t)`` (t from 0 to 1 after easing; the identity at 0) is applied
    to the grid's points as they were at the start, and each arrow is redrawn from the
    origin to its mapped tip, so arrow heads keep their shape. Text is never mapped: fade
    the words out first and lay them out afresh where the arrows end.

    ``grid`` is any VMobject (e.g. ``Plane2D.plane``); ``arrows`` are LabelledArrows.
    ``shift(t)``, when given, moves the origin along (a 3-vector, zero at 0): the plane is
    carried towards where another view's origin is while it turns.
    """

    def __init__(self, grid: VMobject, arrows: Sequence["LabelledArrow"], origin,
                 path: Callable[[float], np.ndarray],
                 shift: Callable[[float], np.ndarray] | None = None, **kwargs):
        kwargs.setdefault("rate_func", style.EASE)
        self.grid, self.labelled = grid, list(arrows)
        self.origin = np.asarray(origin, dtype=float)
        self.path = path
        self.shift = shift
        self.grid_start = [m.points.copy() for m in grid.family_members_with_points()]
        self.tips_start = [a.tip_point - self.origin for a in self.labelled]
        super().__init__(VGroup(grid, *[a.arrow for a in self.labelled]), **kwargs)

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
            mob.points = here + (pts - self.origin) @ m.T
        for a, tip in zip(self.labelled, self.tips_start):
            a.arrow.become(a.arrow_between(here, here + m @ tip))


# ---- the attention grid ------------------------------------------------------------------


def dot_radius(weight: float, max_radius: float) -> float:
    """Radius of a weight dot: its AREA follows the weight (radius ∝ √weight)."""
    return max_radius * math.sqrt(min(max(float(weight), 0.0), 1.0))


class AttentionGrid(VGroup):
    """Rows are queries, columns are keys: thin grey lines, token labels on both axes.

    Cells hold what a beat puts in them (:meth:`put` scales a mobject to fit), then grey
    dots whose area follows the weight (:meth:`weight_dots`). :meth:`focus_box` boxes a
    row in yellow, :meth:`row_mobjects` helps fading the other rows to ~35 %, and
    :meth:`mask_cells` makes red squares for masked entries.
    """

    def __init__(self, row_tokens: Sequence[str], col_tokens: Sequence[str] | None = None, *,
                 row_special: Sequence[bool] | None = None,
                 col_special: Sequence[bool] | None = None,
                 cell_size: float | None = None, max_width: float = 8.0,
                 max_height: float = 6.0, font_size: float = style.FONT_LABEL,
                 row_title: str | None = "queries", col_title: str | None = "keys"):
        super().__init__()
        col_tokens = list(row_tokens if col_tokens is None else col_tokens)
        row_tokens = list(row_tokens)
        row_special = list(row_special) if row_special is not None else [False] * len(row_tokens)
        col_special = list(col_special) if col_special is not None else [False] * len(col_tokens)
        pal = style.PALETTE
        self.n_rows, self.n_cols = len(row_tokens), len(col_tokens)

        def word(t, sp):
            return user_text(t, font_size, pal.special if sp else pal.text)

        self.row_labels = VGroup(*[word(t, s) for t, s in zip(row_tokens, row_special)])
        self.col_labels = VGroup(*[word(t, s) for t, s in zip(col_tokens, col_special)])
        label_w = max(m.width for m in self.row_labels) + 0.3
        label_h = max(m.height for m in self.col_labels) + 0.3
        if cell_size is None:
            cell_size = min((max_width - label_w) / self.n_cols,
                            (max_height - label_h) / self.n_rows, 1.0)
        self.cell_size = cell_size
        # the column labels must not collide: shrink them a little, or rotate them when
        # a cell is far too narrow for the widest word
        widest = max(m.width for m in self.col_labels)
        shrink = 0.92 * cell_size / widest if widest > 0 else 1.0
        if 0.7 <= shrink < 1.0:
            for lab in self.col_labels:
                lab.scale(shrink)
        # only words still wider than a cell are turned (CJK characters stay upright)
        self.rotated_cols = [c for c, lab in enumerate(self.col_labels)
                             if lab.width > 0.92 * cell_size]
        w, h = self.n_cols * cell_size, self.n_rows * cell_size
        self.top_left = np.array([-w / 2, h / 2, 0.0])
        lines = [Line(self.top_left + RIGHT * c * cell_size,
                      self.top_left + RIGHT * c * cell_size + DOWN * h) for c in range(self.n_cols + 1)]
        lines += [Line(self.top_left + DOWN * r * cell_size,
                       self.top_left + DOWN * r * cell_size + RIGHT * w) for r in range(self.n_rows + 1)]
        self.lines = VGroup(*lines).set_stroke(pal.grid, width=1.0)
        for r, lab in enumerate(self.row_labels):
            lab.next_to(self.cell_center(r, 0), LEFT, buff=cell_size / 2 + 0.15)
        for c, lab in enumerate(self.col_labels):
            if c in self.rotated_cols:
                lab.rotate(math.pi / 2)
            lab.next_to(self.cell_center(0, c), UP, buff=cell_size / 2 + 0.12)
        self.add(self.lines, self.row_labels, self.col_labels)
        self.titles = VGroup()
        if col_title:
            t = label_text(col_title, style.FONT_SMALL, pal.key)
            t.next_to(self.col_labels, UP, buff=0.15)
            self.titles.add(t)
        if row_title:
            t = label_text(row_title, style.FONT_SMALL, pal.query).rotate(math.pi / 2)
            t.next_to(self.row_labels, LEFT, buff=0.15)
            self.titles.add(t)
        self.add(self.titles)

    @property
    def cell(self) -> float:
        """The current cell size (follows the group when it is scaled)."""
        return float(np.linalg.norm(self.lines[0].get_end() - self.lines[0].get_start())) / self.n_rows

    def cell_center(self, row: int, col: int) -> np.ndarray:
        # measured from the first vertical line, so it follows moves and scaling
        s = self.cell
        return self.lines[0].get_start() + np.array([(col + 0.5) * s, -(row + 0.5) * s, 0])

    def cell_square(self, row: int, col: int) -> Square:
        """An unstyled square covering one cell."""
        return Square(self.cell).move_to(self.cell_center(row, col))

    def put(self, mob: Mobject, row: int, col: int, fill: float = 0.8) -> Mobject:
        """Centre a mobject in a cell, shrinking it to fit when it is too big."""
        limit = self.cell * fill
        if mob.width > limit:
            mob.scale_to_fit_width(limit)
        if mob.height > limit:
            mob.scale_to_fit_height(limit)
        return mob.move_to(self.cell_center(row, col))

    def put_all(self, placed: Sequence[tuple[Mobject, int, int]], fill: float = 0.8) -> VGroup:
        """Place several mobjects in cells at ONE common scale (numbers of one grid should
        not change size from cell to cell); ``placed`` is (mobject, row, col) triples."""
        limit = self.cell * fill
        widest = max((m.width for m, _, _ in placed), default=0.0)
        tallest = max((m.height for m, _, _ in placed), default=0.0)
        factor = min(1.0, limit / widest if widest else 1.0, limit / tallest if tallest else 1.0)
        for mob, r, c in placed:
            mob.scale(factor).move_to(self.cell_center(r, c))
        return VGroup(*[m for m, _, _ in placed])

    def weight_dot(self, row: int, col: int, weight: float, color: str | None = None) -> Dot:
        """A dot whose area follows the weight (a full cell's dot at weight 1)."""
        r = dot_radius(weight, 0.46 * self.cell)
        return Dot(self.cell_center(row, col), radius=max(r, 1e-4),
                   color=color or style.PALETTE.soft)

    def weight_dots(self, weights, color: str | None = None) -> VGroup:
        """One dot per cell, row-major, for a rows x cols array of weights."""
        w = np.asarray(weights)
        return VGroup(*[self.weight_dot(r, c, w[r, c], color)
                        for r in range(self.n_rows) for c in range(self.n_cols)])

    def row_rect(self, row: int) -> Rectangle:
        """A rectangle over one row's cells."""
        s = self.cell
        rect = Rectangle(width=self.n_cols * s, height=s)
        return rect.move_to((self.cell_center(row, 0) + self.cell_center(row, self.n_cols - 1)) / 2)

    def focus_box(self, row: int, color: str | None = None, include_label: bool = True
                  ) -> SurroundingRectangle:
        """A yellow box around a row (and its label): the row being explained."""
        target = VGroup(self.row_rect(row), self.row_labels[row]) if include_label else self.row_rect(row)
        return SurroundingRectangle(target, color=color or style.PALETTE.highlight,
                                    buff=0.06, stroke_width=3)

    def mask_cells(self, mask, opacity: float = 0.55) -> VGroup:
        """Red squares on the masked (forbidden) cells of a rows x cols boolean array."""
        m = np.asarray(mask, dtype=bool)
        squares = VGroup()
        for r in range(self.n_rows):
            for c in range(self.n_cols):
                if m[r, c]:
                    sq = self.cell_square(r, c)
                    sq.scale(0.96).set_stroke(width=0).set_fill(style.PALETTE.mask, opacity)
                    squares.add(sq)
        return squares


# ---- sparks ------------------------------------------------------------------------------

SPARK_HUES = ("#FFD27F", "#FFB347", "#FF9F40", "#FFC857", "#FFE08A")   # warm


class Spark(VGroup):
    """A tapered glow that travels along an arc from ``start`` to ``end``.

    ManimCE has no tapered flash, so the arc is cut into short segments whose stroke
    width and opacity follow a moving bump (a long tail behind, a short head in front),
    each drawn as a wide faint halo and a thin bright core; a small burst flares at the
    end as the bump arrives. ``strength`` in [0, 1] sets width and brightness (most thin,
    the strong ones bold). The hue and the arc's bend are jittered with a seeded
    Generator (``style.SEED`` and ``seed``), so a spark is the same in every render.
    Animate it with :class:`SparkTravel`.
    """

    def __init__(self, start, end, strength: float, *, angle: float = math.pi / 3,
                 side=DOWN, n_segments: int = 22, seed: int = 0, max_width: float = 14.0,
                 burst_radius: float = 0.22):
        super().__init__()
        rng = np.random.default_rng([style.SEED, int(seed)])
        self.strength = float(min(max(strength, 0.0), 1.0))
        hue = SPARK_HUES[int(rng.integers(len(SPARK_HUES)))]
        start, end = np.asarray(start, float), np.asarray(end, float)
        if np.linalg.norm(end - start) < 1e-6:
            end = end + RIGHT * 1e-3
        # bow the arc toward ``side`` whichever way it runs (a counter-clockwise arc
        # bulges to the right of its chord)
        chord = end - start
        right_of_chord = np.array([chord[1], -chord[0], 0.0])
        sign = 1.0 if np.dot(right_of_chord, np.asarray(side, float)) >= 0 else -1.0
        bend = sign * abs(angle) * float(rng.uniform(0.85, 1.15))
        path = ArcBetweenPoints(start, end, angle=bend)
        ts = np.linspace(0, 1, n_segments + 1)
        pts = [path.point_from_proportion(t) for t in ts]
        self.params = (ts[:-1] + ts[1:]) / 2
        self.halo_color = hue
        self.core_color = interpolate_color(ManimColor(hue), ManimColor("#FFFFFF"), 0.55).to_hex()
        self.max_width = max_width
        self.halo = VGroup(*[Line(pts[n], pts[n + 1]) for n in range(n_segments)])
        self.core = VGroup(*[Line(pts[n], pts[n + 1]) for n in range(n_segments)])
        for seg in [*self.halo, *self.core]:     # round caps hide the joints between steps
            seg.set_cap_style(CapStyleType.ROUND)
        self.burst = Dot(end, radius=burst_radius * (0.35 + 0.65 * self.strength), color=hue)
        self.add(self.halo, self.core, self.burst)
        self.set_progress(-1.0)

    @staticmethod
    def bump(t: np.ndarray, position: float, tail: float = 0.22, head: float = 0.06
             ) -> np.ndarray:
        """Brightness along the arc for a glow whose front is at ``position``."""
        d = np.asarray(t, float) - position
        width = np.where(d <= 0, tail, head)
        return np.exp(-(d / width) ** 2)

    def profile(self, position: float) -> tuple[np.ndarray, np.ndarray]:
        """(stroke widths, opacities) of the core segments at a bump position."""
        b = self.bump(self.params, position)
        width = self.max_width * (0.15 + 0.85 * self.strength) * b
        opacity = (0.35 + 0.65 * self.strength) * b
        return width, opacity

    def set_progress(self, position: float) -> "Spark":
        """Place the glow's front at ``position`` (0 = start, 1 = end of the arc)."""
        width, opacity = self.profile(position)
        for seg, w, o in zip(self.core, width, opacity):
            seg.set_stroke(self.core_color, width=float(w) * 0.4, opacity=float(o))
        for seg, w, o in zip(self.halo, width, opacity):
            seg.set_stroke(self.halo_color, width=float(w), opacity=float(o) * 0.35)
        arrive = float(np.exp(-((position - 1.0) / 0.12) ** 2))
        self.burst.set_fill(self.halo_color, opacity=(0.3 + 0.7 * self.strength) * arrive)
        self.burst.set_stroke(width=0)
        return self


class SparkTravel(Animation):
    """Runs a Spark's glow from before its start to past its end (it ends invisible)."""

    def __init__(self, spark: Spark, **kwargs):
        kwargs.setdefault("rate_func", style.EASE)
        kwargs.setdefault("run_time", 1.2)
        super().__init__(spark, **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        self.mobject.set_progress(-0.25 + 1.5 * alpha)


# ---- bars --------------------------------------------------------------------------------


class SoftmaxBars(VGroup):
    """Bars for a row of numbers over a baseline, one label under each.

    Negative values hang below the baseline. ``value_labels`` (Text made by
    ``scene.number``) sit above each bar. :meth:`bars_for` gives bars of other values at
    the same places (Transform into them: scores become probabilities);
    :meth:`stacked` stacks the bars in one column whose height is their sum, so weights
    that sum to 1 visibly reach the "1" mark.
    """

    def __init__(self, values: Sequence[float], labels: Sequence[Mobject], *,
                 unit_height: float = 1.0, bar_width: float = 0.45, spacing: float = 0.9,
                 colors: Sequence[str] | str | None = None,
                 value_labels: Sequence[Mobject] | None = None):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        self.unit_height = unit_height
        self.bar_width = bar_width
        n = len(self.values)
        self.xs = (np.arange(n) - (n - 1) / 2) * spacing
        if colors is None or isinstance(colors, str):
            colors = [colors or style.PALETTE.soft] * n
        self.colors = list(colors)
        self.baseline = Line(LEFT * (n * spacing / 2), RIGHT * (n * spacing / 2))
        self.baseline.set_stroke(style.PALETTE.dim, width=1.5)
        self.bars = self.bars_for(self.values)
        self.labels = VGroup(*labels)
        for x, lab in zip(self.xs, self.labels):
            lab.move_to([x, 0, 0]).set_y(-0.12 - lab.height / 2
                                          + min(0.0, self.values.min()) * unit_height)
        self.value_labels = VGroup(*(value_labels or []))
        self.place_value_labels(self.value_labels, self.bars, self.values)
        self.add(self.baseline, self.bars, self.labels, self.value_labels)

    def _bar(self, x: float, value: float, height_scale: float, color: str) -> Rectangle:
        h = max(abs(value) * height_scale, 1e-3)
        bar = Rectangle(width=self.bar_width, height=h)
        bar.set_stroke(width=0).set_fill(color, opacity=0.9)
        y0 = self.baseline.get_y()
        bar.move_to([self.baseline.get_center()[0] + x, y0 + np.sign(value) * h / 2, 0])
        return bar

    def bars_for(self, values: Sequence[float], unit_height: float | None = None,
                 colors: Sequence[str] | None = None) -> VGroup:
        """Bars of ``values`` at this chart's positions (for a Transform)."""
        uh = self.unit_height if unit_height is None else unit_height
        cols = list(colors) if colors is not None else self.colors
        return VGroup(*[self._bar(x, v, uh, c) for x, v, c in zip(self.xs, values, cols)])

    @staticmethod
    def place_value_labels(value_labels: Sequence[Mobject], bars: VGroup,
                           values: Sequence[float]) -> None:
        """Write each value just beyond the end of its bar (below for negative values)."""
        for lab, bar, v in zip(value_labels, bars, values):
            lab.next_to(bar, UP if v >= 0 else DOWN, buff=0.08)

    def stacked(self, values: Sequence[float], x: float, bottom_y: float,
                total_height: float) -> VGroup:
        """The bars stacked in one column at ``x`` from ``bottom_y``; a value of 1 is
        ``total_height`` tall, so a set of weights summing to 1 fills it exactly."""
        out = VGroup()
        y = bottom_y
        for v, c in zip(values, self.colors):
            h = max(float(v) * total_height, 1e-3)
            bar = Rectangle(width=self.bar_width, height=h).set_stroke(style.BACKGROUND, width=1)
            bar.set_fill(c, opacity=0.9).move_to([x, y + h / 2, 0])
            out.add(bar)
            y += h
        return out


# ---- matrix times vector -----------------------------------------------------------------


class MatrixVectorSweep(VGroup):
    """A matrix block times a VectorColumn, equal to an output VectorColumn, with a
    yellow box sweeping the matrix's rows (and the vector) while each output entry
    appears (3b1b's matrix-vector picture).

    The matrix is drawn as a block of blank cells, a few rows shown with ⋮ / ⋯ where
    rows and columns are skipped: the weights themselves are not in the trace, so none
    is written. Its rows line up with the output's shown entries. ``matrix_label`` names
    it (e.g. MathTypst "W_Q"); ``size_note`` states its real size.
    Add ``self.static`` first, then call :meth:`play_sweep`.
    """

    def __init__(self, matrix_label: Mobject, vector: VectorColumn, output: VectorColumn, *,
                 n_cols_shown: int = 6, color: str | None = None,
                 size_note: Mobject | None = None, buff: float = 0.25):
        super().__init__()
        pal = style.PALETTE
        color = color or pal.highlight
        self.vector, self.output = vector, output
        # rows: one per output row (entries and the ⋮ row)
        out_rows = list(output.rows)
        pitch = (out_rows[0].get_y() - out_rows[1].get_y()) if len(out_rows) > 1 else 0.34
        cell = min(pitch * 0.86, 0.3)
        cols = n_cols_shown
        gap_col = cols - 2           # a ⋯ column before the last one
        self.matrix_rows = VGroup()
        blocks = VGroup()
        for r, row_mob in enumerate(out_rows):
            row = VGroup()
            is_gap_row = row_mob is output.dots
            for c in range(cols):
                x = c * cell * 1.12
                if is_gap_row or c == gap_col:
                    if is_gap_row and c == gap_col:
                        continue
                    mark = label_text("\u22ee" if is_gap_row else "\u22ef", style.FONT_SMALL, pal.dim)
                    mark.move_to([x, -r * pitch, 0])
                    row.add(mark)
                    continue
                sq = Square(cell).set_stroke(pal.dim, width=1).set_fill(pal.faint, 0.8)
                row.add(sq.move_to([x, -r * pitch, 0]))
            if not is_gap_row:
                self.matrix_rows.add(row)
            blocks.add(row)
        height = len(out_rows) * pitch + 0.1
        blocks.move_to(ORIGIN)
        self.matrix = VGroup(bracket(height, "left").next_to(blocks, LEFT, buff=0.1), blocks,
                             bracket(height, "right").next_to(blocks, RIGHT, buff=0.1))
        self.matrix_label = matrix_label.next_to(self.matrix, UP, buff=0.2)
        times = label_text("\u00d7", style.FONT_BODY, pal.soft)
        equals = label_text("=", style.FONT_BODY, pal.soft)
        vector.next_to(self.matrix, RIGHT, buff=buff + 0.5)
        times.move_to((self.matrix.get_right() + vector.get_left()) / 2)
        equals.next_to(vector, RIGHT, buff=buff)
        output.next_to(equals, RIGHT, buff=buff)
        # align the output's rows with the matrix's rows
        output.shift(UP * (blocks[0].get_y() - out_rows[0].get_y()))
        self.signs = VGroup(times, equals)
        self.size_note = size_note
        if size_note is not None:
            size_note.next_to(self.matrix, DOWN, buff=0.2)
        self.row_box = SurroundingRectangle(self.matrix_rows[0], color=color, buff=0.05,
                                            stroke_width=3)
        self.vector_box = SurroundingRectangle(vector.rows, color=color, buff=0.06,
                                               stroke_width=3)
        self.static = VGroup(self.matrix, self.matrix_label, self.signs, vector,
                             output.brackets)
        if output.dots is not None:
            self.static.add(output.dots)
        if size_note is not None:
            self.static.add(size_note)
        self.add(self.static, output.entries)

    def play_sweep(self, scene, *, time_per_row: float = 0.55) -> None:
        """Sweep the box down the rows; each output entry appears as its row is done."""
        # the boxes are fitted now: the group may have been moved or scaled since built
        color, width = self.row_box.get_stroke_color(), self.row_box.get_stroke_width()
        self.row_box = SurroundingRectangle(self.matrix_rows[0], color=color, buff=0.05,
                                            stroke_width=width)
        self.vector_box = SurroundingRectangle(self.vector.rows, color=color, buff=0.06,
                                               stroke_width=width)
        scene.play(Create(self.row_box), Create(self.vector_box), run_time=0.5,
                   rate_func=style.EASE)
        for n, (row, entry) in enumerate(zip(self.matrix_rows, self.output.entries)):
            if n > 0:
                scene.play(self.row_box.animate.move_to(row), run_time=time_per_row * 0.5,
                           rate_func=style.EASE)
            scene.play(FadeIn(entry, shift=LEFT * 0.3), run_time=time_per_row * 0.5,
                       rate_func=style.EASE)
        scene.play(*[m.animate.set_stroke(opacity=0) for m in (self.row_box, self.vector_box)],
                   run_time=0.4)
        scene.remove(self.row_box, self.vector_box)
