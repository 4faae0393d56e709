"""The attention grid: queries as rows, keys as columns, thin grey lines, the words on
both axes; cells that hold numbers, dots whose area follows a weight, red masked cells.

:func:`make_grid` fits a square grid to a space and tidies its labels: one size for all,
on one baseline, upright when they fit at ``style.MIN_LABEL_SCALE`` of their size or more,
else all turned (special tokens alone may turn).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from manim import (DL, DOWN, LEFT, ORIGIN, RIGHT, UP, UR, Dot, Line, Mobject, Rectangle,
                   Square, VGroup)

from . import style
from .scripts import may_turn, reading_slot, reads_as_sign
from .text import glyphs_of, label_text, line_box_height, user_text

__all__ = ["AttentionGrid", "GRID_FIT", "LABEL_BUFF", "LINE_SHARE", "LabelFit", "TIER_PITCH",
           "TITLE_BUFF", "column_words", "dot_radius", "grid_cell", "make_grid",
           "place_column_word", "tidy_grid", "tier_centre", "tier_line", "tiers_height"]

LABEL_BUFF = 0.12      # between a grid and its labels
TITLE_BUFF = 0.12      # between the labels and "keys" / "queries"
# a row label's (or a turned column label's) line box may take this share of a cell: the
# line box is taller than the ink, so neighbouring words still do not touch
LINE_SHARE = 0.95


@dataclass(frozen=True)
class LabelFit:
    """The one rule for the words along a grid's top, with the shares each grid uses (named
    where it is used). The content words stand upright at one scale, ``share`` of a cell
    wide at most, when that scale is ``min_scale`` or more; else every word turns (its line
    box ``turned_share`` of a cell, or its full size when None). Upright, a special token
    wider than ``special_share`` of a cell shrinks to it when that keeps ``special_min_scale``
    of its size; else it turns on its own (``special_turns_alone``) or all the words turn."""
    share: float = 0.82                # a gap between upright words
    min_scale: float = style.MIN_LABEL_SCALE
    special_share: float = 0.86
    special_min_scale: float = style.MIN_LABEL_SCALE
    special_turns_alone: bool = True
    turned_share: float | None = LINE_SHARE

    def plan(self, widths: Sequence[float], special: Sequence[bool], cell: float,
             font_size: float, upright_only: bool = False) -> tuple[float, bool]:
        """(scale, turned) for words of these ``widths`` (at ``font_size``) at a cell size;
        words that must not turn (``upright_only``: ideographs, right-to-left scripts,
        digits) stay upright, never below the legible size, in tiers (:meth:`tiers`)."""
        content = [w for w, sp in zip(widths, special) if not sp] or list(widths)
        widest = max(content, default=0.0)
        upright = min(1.0, self.share * cell / widest) if widest > 0 else 1.0
        specials_fit = self.special_turns_alone or all(
            self.special_scale(w * upright, cell) is not None
            for w, sp in zip(widths, special) if sp)
        if upright >= self.min_scale and specials_fit:
            return upright, False
        if upright_only:
            return legible(max(upright, self.min_scale), font_size), False
        if self.turned_share is None:
            return 1.0, True
        return legible(min(1.0, self.turned_share * cell / line_box_height(font_size)),
                       font_size), True

    def tiers(self, widths: Sequence[float], special: Sequence[bool], scale: float,
              cell: float) -> int:
        """In how many staggered tiers upright words of these ``widths`` at ``scale`` stand
        so that each keeps clear of the next in its tier (1: one line). The content words
        decide: a special token too long for its tier turns on its own (it is Latin), as
        one [CLS] stacked the letters of a whole Arabic sentence three tiers high."""
        content = [w for w, sp in zip(widths, special) if not sp] or list(widths)
        widest = max(content, default=0.0) * scale
        return max(1, math.ceil(widest / (self.share * cell) - 1e-9))

    def special_scale(self, width: float, cell: float) -> float | None:
        """How an upright word ``width`` wide shrinks to fit its cell: 1.0 when it fits,
        less for a long special token, None when it must turn."""
        room = self.special_share * cell
        if width <= room:
            return 1.0
        return room / width if room / width >= self.special_min_scale else None


GRID_FIT = LabelFit()      # the attention grids: QKᵀ, the mask's and the summary's
TIER_PITCH = 1.15          # line boxes from one tier of upright words to the next (a
#                            bracket's ink reaches past the line box)


def tier_centre(tier: int, line: float) -> float:
    """How far above the words' baseline band tier ``tier``'s line box centre stands, for
    line boxes ``line`` tall."""
    return line * (0.5 + TIER_PITCH * tier)


_TIER_LINES: dict = {}


def tier_line(texts: Sequence[str], special: Sequence[bool], font_size: float) -> float:
    """The line that tiers of upright ``texts`` step by (:func:`tier_centre`): the line box,
    or taller where a word's ink reaches past it (a Devanagari vowel sign over its
    headline, a descender under it), so the ink of one tier never meets the next's."""
    key = (tuple((str(t), getattr(t, "word", None), getattr(t, "at", None)) for t in texts),
           tuple(special), font_size)
    if key not in _TIER_LINES:
        line = line_box_height(font_size)
        above = below = 0.0
        for t, sp in zip(texts, special):
            g = glyphs_of(t, font_size, sp)             # its line box centred at the origin
            if g.has_points() or g.submobjects:
                above = max(above, g.get_top()[1] - line / 2)
                below = max(below, -line / 2 - g.get_bottom()[1])
        gap = (TIER_PITCH - 1.0) * line
        if len(_TIER_LINES) > 256:
            _TIER_LINES.clear()
        _TIER_LINES[key] = max(line, (line + above + below + gap) / TIER_PITCH)
    return _TIER_LINES[key]


def tiers_height(tiers: int, line: float) -> float:
    """The height of ``tiers`` tiers of line boxes ``line`` tall."""
    return line * (1 + TIER_PITCH * (tiers - 1))


def legible(scale: float, font_size: float) -> float:
    """A label's scale fitted to its line box's room, never below the legible size: a
    word's ink is well inside its line box, so labels at the floor keep apart where
    their line boxes would touch (the layout audit checks the ink)."""
    return max(scale, min(1.0, style.MIN_FONT / font_size))


def dot_radius(weight: float, max_radius: float) -> float:
    """Radius of a weight dot: its AREA follows the weight (radius ∝ √weight)."""
    return max_radius * math.sqrt(min(max(float(weight), 0.0), 1.0))


class AttentionGrid(VGroup):
    """Rows are queries, columns are keys: thin grey lines, token labels on both axes
    (laid out by :func:`tidy_grid` with the rule ``fit``), "queries" and "keys" beside them.

    Cells hold what a beat puts in them (:meth:`put_all` scales numbers to fit, at one
    scale), then dots whose area follows the weight (:meth:`weight_dots`). :meth:`focus_box`
    boxes a row in the highlight colour, :meth:`row_rect` covers a row, and
    :meth:`mask_cells` makes red squares for masked entries.
    """

    def __init__(self, row_tokens: Sequence[str], col_tokens: Sequence[str] | None = None, *,
                 row_special: Sequence[bool] | None = None,
                 col_special: Sequence[bool] | None = None,
                 cell_size: float | None = None, max_width: float = 8.0,
                 max_height: float = 6.0, font_size: float = style.FONT_LABEL,
                 row_title: str | None = "queries", col_title: str | None = "keys",
                 fit: LabelFit = GRID_FIT, right_to_left: bool = False):
        super().__init__()
        self.right_to_left = right_to_left      # the keys run from the right
        col_tokens = list(row_tokens if col_tokens is None else col_tokens)
        row_tokens = list(row_tokens)
        row_special = list(row_special) if row_special is not None else [False] * len(row_tokens)
        col_special = list(col_special) if col_special is not None else [False] * len(col_tokens)
        pal = style.PALETTE
        self.n_rows, self.n_cols = len(row_tokens), len(col_tokens)
        if cell_size is None:     # a rough fit by the words' widths and heights
            def word(t, sp):
                return user_text(t, font_size, pal.special if sp else pal.text)
            label_w = max(word(t, s).width for t, s in zip(row_tokens, row_special)) + 0.3
            label_h = max(word(t, s).height for t, s in zip(col_tokens, col_special)) + 0.3
            cell_size = min((max_width - label_w) / self.n_cols,
                            (max_height - label_h) / self.n_rows, 1.0)
        self.cell_size = cell_size
        w, h = self.n_cols * cell_size, self.n_rows * cell_size
        self.top_left = np.array([-w / 2, h / 2, 0.0])
        lines = [Line(self.top_left + RIGHT * c * cell_size,
                      self.top_left + RIGHT * c * cell_size + DOWN * h) for c in range(self.n_cols + 1)]
        lines += [Line(self.top_left + DOWN * r * cell_size,
                       self.top_left + DOWN * r * cell_size + RIGHT * w) for r in range(self.n_rows + 1)]
        self.lines = VGroup(*lines).set_stroke(pal.grid, width=1.0)
        self.row_labels, self.col_labels = VGroup(), VGroup()     # drawn by tidy_grid
        self.add(self.lines, self.row_labels, self.col_labels)
        self.titles = VGroup()
        if col_title:
            self.titles.add(label_text(col_title, style.FONT_SMALL, pal.key))
        if row_title:
            title = label_text(row_title, style.FONT_SMALL, pal.query)
            self.titles.add(title.rotate(style.TURNED))
        self.add(self.titles)
        tidy_grid(self, row_tokens, col_tokens, row_special=row_special,
                  col_special=col_special, font_size=font_size, fit=fit)

    @property
    def cell(self) -> float:
        """The current cell size (follows the group when it is scaled)."""
        return float(np.linalg.norm(self.lines[0].get_end() - self.lines[0].get_start())) / self.n_rows

    def cell_center(self, row: int, col: int) -> np.ndarray:
        # measured from the first vertical line, so it follows moves and scaling; the keys
        # of a sentence read from the right run from the right
        s = self.cell
        col = reading_slot(col, self.n_cols, self.right_to_left)
        return self.lines[0].get_start() + np.array([(col + 0.5) * s, -(row + 0.5) * s, 0])

    def cell_square(self, row: int, col: int) -> Square:
        """An unstyled square covering one cell."""
        return Square(self.cell).move_to(self.cell_center(row, col))

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

    FOCUS_BUFF = 0.06     # between a focus box and what it surrounds
    FOCUS_CLEAR = 0.03    # between a focus box and the labels of the rows beside it

    def focus_box(self, row: int, color: str | None = None, include_label: bool = True
                  ) -> Rectangle:
        """A yellow box around a row (and its label): the row being explained. Its edges
        keep clear of the labels of the rows beside it (and of the keys' labels over the
        first row): in a long grid the labels are as tall as a row, and a box with a
        margin all round would run through them. The row's cells stay inside."""
        cells = self.row_rect(row)
        target = VGroup(cells, self.row_labels[row]) if include_label else cells
        x0, y0 = target.get_corner(DL)[:2] - self.FOCUS_BUFF
        x1, y1 = target.get_corner(UR)[:2] + self.FOCUS_BUFF
        above = [self.row_labels[row - 1]] if row > 0 else list(self.col_labels)
        below = [self.row_labels[row + 1]] if row + 1 < self.n_rows else []
        ink = [m for m in above if m.has_points() or m.submobjects]
        if include_label and ink:
            y1 = max(min(y1, min(m.get_bottom()[1] for m in ink) - self.FOCUS_CLEAR),
                     cells.get_top()[1])
        ink = [m for m in below if m.has_points() or m.submobjects]
        if include_label and ink:
            y0 = min(max(y0, max(m.get_top()[1] for m in ink) + self.FOCUS_CLEAR),
                     cells.get_bottom()[1])
        box = Rectangle(width=x1 - x0, height=y1 - y0).move_to([(x0 + x1) / 2, (y0 + y1) / 2, 0])
        return box.set_stroke(color or style.PALETTE.highlight, width=3)

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


# ---- tidy labels ------------------------------------------------------------------
def _widths(texts: Sequence[str], special: Sequence[bool], font_size: float) -> list[float]:
    return [glyphs_of(t, font_size, s).width for t, s in zip(texts, special)]


def _row_plan(texts, special, cell: float, font_size: float) -> tuple[float, int]:
    """The row words' one scale and in how many staggered tiers they stand: their line box
    ``LINE_SHARE`` of a row, and no taller than the row where one row's ink would reach the
    next's above or below it (a hamza over an alef under a letter's tail: judged glyph by
    glyph, where the right-aligned words overlap across); where the legible size is still
    too tall, alternate rows step left."""
    reach = _row_reach(tuple(texts), tuple(special), font_size)
    by_ink = 0.95 * cell / reach if reach > 0 else 1.0
    scale = legible(min(1.0, LINE_SHARE * cell / line_box_height(font_size), by_ink), font_size)
    return scale, max(1, math.ceil(reach * scale / (0.95 * cell) - 1e-9))


_REACH: dict = {}


def _row_reach(texts, special, font_size: float) -> float:
    """How far (at full size) one row's ink reaches toward the next row's, at most: the
    lower word's top above the upper word's bottom, glyph by glyph where they overlap
    across. Kept per row of words: a grid's cell is settled in rounds over the same words."""
    # a piece of a right-to-left word is drawn as its word shapes it: the word is its key too
    key = (tuple((str(t), getattr(t, "word", None), getattr(t, "at", None)) for t in texts),
           special, font_size)
    if key in _REACH:
        return _REACH[key]
    boxes = []
    for t, sp in zip(texts, special):
        g = glyphs_of(t, font_size, sp)            # its line box centred at the origin
        g.shift([-g.get_right()[0], 0, 0])          # right-aligned, as drawn
        boxes.append(np.array([[*m.get_corner(DL)[:2], *m.get_corner(UR)[:2]]
                               for m in g.get_family() if m.has_points() and not m.submobjects]
                              ).reshape(-1, 4))
    reach = 0.0
    for upper, lower in zip(boxes, boxes[1:]):
        if not len(upper) or not len(lower):
            continue
        across = ((upper[:, None, 0] < lower[None, :, 2]) & (lower[None, :, 0] < upper[:, None, 2]))
        if across.any():          # the lower word's top over the upper word's bottom
            reach = max(reach, float((lower[None, :, 3] - upper[:, None, 1])[across].max()))
    if len(_REACH) > 256:
        _REACH.clear()
    _REACH[key] = reach
    return reach


def grid_cell(tokens: Sequence[str], special: Sequence[bool], *, max_width: float,
              max_height: float, font_size: float, titles: bool = True,
              row_labels: bool = True, col_labels: bool = True,
              limit: float = 1.0, fit: LabelFit = GRID_FIT,
              cols: Sequence[str] | None = None,
              col_special: Sequence[bool] | None = None) -> float:
    """The largest cell for a grid of ``tokens`` by ``tokens`` (or by ``cols``: the keys
    of another sentence) whose labels (as :func:`tidy_grid` draws them) and titles fit in
    max_width x max_height."""
    cols = list(tokens if cols is None else cols)
    col_special = list(special if col_special is None else col_special)
    widths = _widths(cols, col_special, font_size)
    row_w = max(_widths(tokens, special, font_size))
    title = (line_box_height(style.FONT_SMALL) + TITLE_BUFF) if titles else 0.0
    longest = max(widths)
    cell = limit
    upright_only = not all(may_turn(t) for t in cols)
    for _ in range(8):       # the label plan depends on the cell: settle it
        scale, turned = fit.plan(widths, col_special, cell, font_size, upright_only)
        tiers = fit.tiers(widths, col_special, scale, cell) if upright_only else 1
        col_h = ((longest if turned else tiers_height(tiers, tier_line(cols, col_special,
                                                                       font_size)))
                 * scale if col_labels else 0.0)
        if col_labels and not turned:       # a long special token turns on its own
            alone = [w * scale for w in widths]
            col_h = max([col_h] + [w for w in alone if (
                w > fit.special_share * cell * tiers if upright_only
                else fit.special_scale(w, cell) is None)])
        row_scale, row_tiers = _row_plan(tokens, special, cell, font_size)
        w_used = ((row_w * row_scale + LABEL_BUFF) * row_tiers + title) if row_labels else 0.0
        h_used = (col_h + LABEL_BUFF + title) if col_labels else 0.0
        new = min((max_width - w_used) / len(cols), (max_height - h_used) / len(tokens), limit)
        if abs(new - cell) < 1e-4:
            break
        cell = new
    return max(cell, 0.05)


def column_words(texts: Sequence[str], special: Sequence[bool], cell: float,
                 font_size: float, fit: LabelFit = GRID_FIT) -> list[tuple[VGroup, bool, float]]:
    """The words along a grid's top for cells ``cell`` wide, laid out by ``fit``: each as
    (glyphs at the origin, turned, its scale), for :func:`place_column_word`; an upright
    word that needs more than its column stands in a tier of its own (``g.tier``)."""
    widths = _widths(texts, special, font_size)
    upright_only = not all(may_turn(t) for t in texts)
    scale, turned = fit.plan(widths, special, cell, font_size, upright_only)
    # tiers only for words that may not turn (Latin turns, or a long special token does)
    tiers = fit.tiers(widths, special, scale, cell) if upright_only else 1
    line = tier_line(texts, special, font_size)
    words = []
    for c, (t, sp) in enumerate(zip(texts, special)):
        g = glyphs_of(t, font_size, sp).scale(scale, about_point=ORIGIN)
        size = scale
        # in tiers, a long special token has its tier's room, as every word has
        shrink = None if turned or upright_only else fit.special_scale(g.width, cell)
        if shrink is not None and shrink < 1.0:                     # a long special token
            size *= shrink
            g.scale(shrink, about_point=ORIGIN)
        # ... turns only when far too long (and in a script that reads turned); a sign
        # (a comma, a hyphen) stands upright wherever it fits
        turn = turned or (g.width > fit.special_share * cell * tiers and may_turn(t))
        if turn and reads_as_sign(t) and g.width <= fit.share * cell:
            turn = False
        if turn:
            if not turned and fit.turned_share is not None:
                g.scale(legible(min(1.0, fit.turned_share * cell
                                    / (line_box_height(font_size) * scale)),
                                font_size * size), about_point=ORIGIN)
            g.rotate(style.TURNED, about_point=ORIGIN)
        g.tier, g.tier_line = (0 if turn else c % tiers), line
        words.append((g, turn, size))
    return words


def place_column_word(g: VGroup, turned: bool, size: float, x: float, bottom: float,
                      font_size: float) -> None:
    """Put a word of :func:`column_words` over its column at ``x``: a turned word starts at
    ``bottom``; upright words share the baseline of line boxes standing on it."""
    if turned:
        g.shift([x, bottom - g.get_bottom()[1], 0])
    else:
        tier = getattr(g, "tier", 0)
        line = getattr(g, "tier_line", line_box_height(font_size))
        g.shift([x, bottom + tier_centre(tier, line * size), 0])


def tidy_grid(grid: AttentionGrid, row_texts: Sequence[str], col_texts: Sequence[str], *,
              row_special: Sequence[bool], col_special: Sequence[bool],
              font_size: float, fit: LabelFit = GRID_FIT) -> AttentionGrid:
    """Lay out a grid's labels by ``fit``: one size, one baseline, one direction (a long
    special token may turn on its own); the titles placed beside them."""
    cell = grid.cell
    top = grid.lines.get_top()[1]
    left = grid.lines.get_left()[0]
    # columns
    new_cols, turned_cols = [], []
    for c, (g, turn, size) in enumerate(column_words(col_texts, col_special, cell, font_size, fit)):
        place_column_word(g, turn, size, grid.cell_center(0, c)[0], top + LABEL_BUFF, font_size)
        if turn:
            turned_cols.append(c)
        new_cols.append(g)
    grid.col_labels.submobjects = new_cols
    grid.rotated_cols = turned_cols
    # rows: one size, line boxes centred on the rows, right-aligned against the grid (in
    # staggered tiers where even the legible size reaches into the next row)
    row_scale, row_tiers = _row_plan(row_texts, row_special, cell, font_size)
    step = max((glyphs_of(t, font_size, sp).width for t, sp in zip(row_texts, row_special)),
               default=0.0) * row_scale + LABEL_BUFF
    new_rows = []
    for r, (t, sp) in enumerate(zip(row_texts, row_special)):
        g = glyphs_of(t, font_size, sp).scale(row_scale, about_point=ORIGIN)
        y = grid.cell_center(r, 0)[1]
        g.shift([left - LABEL_BUFF - step * (r % row_tiers) - g.get_right()[0], y, 0])
        new_rows.append(g)
    grid.row_labels.submobjects = new_rows
    # titles: "keys" above the column labels, "queries" left of the row labels
    pal = style.PALETTE
    for t in list(grid.titles):
        is_keys = t.width >= t.height
        if is_keys:
            above = grid.col_labels if len(grid.col_labels) else grid.lines
            t.next_to(above, UP, buff=TITLE_BUFF).set_x(grid.lines.get_x())
            t.set_color(pal.key)
        else:
            beside = grid.row_labels if len(grid.row_labels) else grid.lines
            t.next_to(beside, LEFT, buff=TITLE_BUFF).set_y(grid.lines.get_y())
            t.set_color(pal.query)
    return grid


def make_grid(tokens: Sequence[str], special: Sequence[bool], *, max_width: float,
              max_height: float, font_size: float = style.FONT_SMALL, titles: bool = True,
              limit: float = 1.0, right_to_left: bool = False) -> AttentionGrid:
    """A square attention grid over ``tokens`` fitted to the space, labels tidied: the
    grid as drawn, labels and titles included, fits max_width x max_height (the estimate
    of :func:`grid_cell` is checked against the drawing, and the cells shrink until it
    holds: a grid is never cropped by the frame)."""
    cell = grid_cell(tokens, special, max_width=max_width, max_height=max_height,
                     font_size=font_size, titles=titles, limit=limit)
    for _ in range(6):
        grid = AttentionGrid(list(tokens), row_special=list(special),
                             col_special=list(special), cell_size=cell, font_size=font_size,
                             row_title="queries" if titles else None,
                             col_title="keys" if titles else None,
                             right_to_left=right_to_left)
        over = max(grid.width - max_width, grid.height - max_height)
        if over <= 1e-3:
            break
        cell -= over / len(tokens) + 1e-3     # the labels take what the cells leave
    return grid
