"""Legible text for the beats' grids and rows (used by sparks, softmax, heads, mask, summary),
and captions that stay up long enough to be read.

``AttentionGrid`` sizes each label on its own (a few rotated, a few shrunk) and centres it
by its ink, so "[CLS]" rides higher than "cat" and long sentences get labels of mixed
sizes and directions. :func:`make_grid` picks a cell size from the space given, then
rebuilds the labels: one size for all, on one baseline, upright when they fit at
``MIN_SCALE`` or more, else all turned (special tokens alone may turn). Module functions,
not methods: a beat's ``build()`` also runs on the combined explainer scene.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from manim import LEFT, ORIGIN, UP, Mobject, VGroup

from scenes import style
from scenes.components import AttentionGrid, baseline_text

MIN_FONT = 12          # smallest text drawn: digits about 16 px tall at 1080p
MIN_SCALE = 0.62       # labels shrink to this share of their size before they turn
LABEL_BUFF = 0.12      # between a grid and its labels
TITLE_BUFF = 0.12      # between the labels and "keys" / "queries"


def glyphs_of(text: str, font_size: float, special: bool) -> VGroup:
    """A word whose line box is centred at the origin (so words share a baseline)."""
    pal = style.PALETTE
    glyphs, _, _ = baseline_text(text, font_size, pal.special if special else pal.text)
    return glyphs


def line_h(font_size: float) -> float:
    from scenes.components import line_box_height
    return line_box_height(font_size)


def label_plan(col_texts: Sequence[str], col_special: Sequence[bool], cell: float,
               font_size: float) -> tuple[float, bool]:
    """(scale, turned) for a grid's column labels at a cell size: one scale for all;
    turned when the content words would shrink below ``MIN_SCALE`` to stand upright."""
    widths = [glyphs_of(t, font_size, s).width for t, s in zip(col_texts, col_special)
              if not s] or [glyphs_of(t, font_size, s).width for t, s in zip(col_texts, col_special)]
    widest = max(widths, default=0.0)
    upright = min(1.0, 0.82 * cell / widest) if widest > 0 else 1.0     # a gap between words
    if upright >= MIN_SCALE:
        return upright, False
    return min(1.0, 0.8 * cell / line_h(font_size)), True


def grid_cell(tokens: Sequence[str], special: Sequence[bool], *, max_width: float,
              max_height: float, font_size: float, titles: bool = True,
              row_labels: bool = True, col_labels: bool = True,
              limit: float = 1.0) -> float:
    """The largest cell for an n x n grid whose labels (as :func:`tidy_grid` draws them)
    and titles fit in max_width x max_height."""
    n = len(tokens)
    row_w = max(glyphs_of(t, font_size, s).width for t, s in zip(tokens, special))
    title = (line_h(style.FONT_SMALL) + TITLE_BUFF) if titles else 0.0
    longest = max(glyphs_of(t, font_size, s).width for t, s in zip(tokens, special))
    cell = limit
    for _ in range(8):       # the label plan depends on the cell: settle it
        scale, turned = label_plan(tokens, special, cell, font_size)
        col_h = (longest if turned else line_h(font_size)) * scale if col_labels else 0.0
        row_scale = min(1.0, 0.8 * cell / line_h(font_size))
        w_used = (row_w * row_scale + LABEL_BUFF + title) if row_labels else 0.0
        h_used = (col_h + LABEL_BUFF + title) if col_labels else 0.0
        new = min((max_width - w_used) / n, (max_height - h_used) / n, limit)
        if abs(new - cell) < 1e-4:
            break
        cell = new
    return max(cell, 0.05)


def tidy_grid(grid: AttentionGrid, row_texts: Sequence[str], col_texts: Sequence[str], *,
              row_special: Sequence[bool], col_special: Sequence[bool],
              font_size: float) -> AttentionGrid:
    """Rebuild a grid's labels: one size, one baseline, one direction; titles re-placed."""
    cell = grid.cell
    top = grid.lines.get_top()[1]
    left = grid.lines.get_left()[0]
    # columns
    scale, turned = label_plan(col_texts, col_special, cell, font_size)
    new_cols, turned_cols = [], []
    for c, (t, sp) in enumerate(zip(col_texts, col_special)):
        g = glyphs_of(t, font_size, sp).scale(scale, about_point=ORIGIN)
        x = grid.cell_center(0, c)[0]
        size = scale
        if not turned and g.width > 0.86 * cell and 0.86 * cell / g.width >= MIN_SCALE:
            size *= 0.86 * cell / g.width                           # a long special token
            g.scale(0.86 * cell / g.width, about_point=ORIGIN)
        turn = turned or g.width > 0.86 * cell       # ... turns only when far too long
        if turn:
            if not turned:
                g.scale(min(1.0, 0.9 * cell / (line_h(font_size) * scale)), about_point=ORIGIN)
            g.rotate(math.pi / 2, about_point=ORIGIN)
            g.shift([x, top + LABEL_BUFF - g.get_bottom()[1], 0])
            turned_cols.append(c)
        else:
            g.shift([x, top + LABEL_BUFF + line_h(font_size) * size / 2, 0])
        new_cols.append(g)
    grid.col_labels.submobjects = new_cols
    grid.rotated_cols = turned_cols
    # rows: one size, line boxes centred on the rows, right-aligned against the grid
    row_scale = min(1.0, 0.8 * cell / line_h(font_size))
    new_rows = []
    for r, (t, sp) in enumerate(zip(row_texts, row_special)):
        g = glyphs_of(t, font_size, sp).scale(row_scale, about_point=ORIGIN)
        y = grid.cell_center(r, 0)[1]
        g.shift([left - LABEL_BUFF - g.get_right()[0], y, 0])
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
              limit: float = 1.0) -> AttentionGrid:
    """A square attention grid over ``tokens`` fitted to the space, labels tidied."""
    cell = grid_cell(tokens, special, max_width=max_width, max_height=max_height,
                     font_size=font_size, titles=titles, limit=limit)
    grid = AttentionGrid(list(tokens), row_special=list(special), col_special=list(special),
                         cell_size=cell, font_size=font_size,
                         row_title="queries" if titles else None,
                         col_title="keys" if titles else None)
    return tidy_grid(grid, tokens, tokens, row_special=special, col_special=special,
                     font_size=font_size)


# ---- rows of numbers and words -------------------------------------------------------------
def fit_width(mobs: Sequence[Mobject], limit: float) -> float:
    """Shrink every mobject by ONE factor so the widest is at most ``limit``; returns it."""
    widest = max((m.width for m in mobs), default=0.0)
    factor = min(1.0, limit / widest) if widest > 0 else 1.0
    for m in mobs:
        m.scale(factor)
    return factor


def word_row(texts: Sequence[str], special: Sequence[bool], xs: Sequence[float], *,
             pitch: float, font_size: float, top: float | None = None,
             bottom: float | None = None, colors: Sequence[str | None] | None = None
             ) -> tuple[VGroup, bool]:
    """Words centred on ``xs`` on one baseline, one size for all; turned (reading upward)
    when they would shrink below ``MIN_SCALE`` upright. Hung from ``top`` (their line box
    top, or the turned words' tops) or stood on ``bottom``. Returns (words, turned)."""
    colors = list(colors) if colors is not None else [None] * len(texts)
    glyphs = []
    for t, sp, col in zip(texts, special, colors):
        g = glyphs_of(t, font_size, sp)
        if col is not None:
            g.set_color(col)
        glyphs.append(g)
    widths = [g.width for g, sp in zip(glyphs, special) if not sp] or [g.width for g in glyphs]
    widest = max(widths, default=0.0)
    scale = min(1.0, 0.9 * pitch / widest) if widest > 0 else 1.0
    line = line_h(font_size)
    turned = scale < MIN_SCALE
    if turned:
        scale = min(1.0, 0.9 * pitch / line)
    for g, x in zip(glyphs, xs):
        g.scale(scale, about_point=ORIGIN)
        if turned:
            g.rotate(-math.pi / 2, about_point=ORIGIN)      # reads downward, hangs
            if top is not None:
                g.shift([x, top - g.get_top()[1], 0])
            else:
                g.shift([x, bottom - g.get_bottom()[1], 0])
        else:
            if g.width > 0.95 * pitch:                       # a long special token
                g.scale(0.95 * pitch / g.width, about_point=ORIGIN)
            y = (top - line * scale / 2) if top is not None else (bottom + line * scale / 2)
            g.shift([x, y, 0])
    return VGroup(*glyphs), turned


def legible_decimals(scene, kind: str, indices: Sequence[tuple], decimals: int, width: float,
                     font_size: float = style.FONT_NUMBER) -> int:
    """The most decimals (<= ``decimals``) whose widest number fits ``width`` at no less
    than ``MIN_FONT``; 0 when none does."""
    from scenes.numbers import format_number, lookup
    from manim import Text
    values = [lookup(scene.trace, kind, tuple(i)) for i in indices]
    for d in range(decimals, -1, -1):
        texts = {format_number(v, d, signed=True) for v in values}
        widest = max(Text(t, font=style.SERIF, font_size=MIN_FONT).width for t in texts)
        if widest <= width:
            return d
    return 0


def magnitude_decimals(values: Sequence[float], decimals: int) -> int:
    """Enough decimals that small values do not all read 0.0 (scratch models), at most 2."""
    biggest = max((abs(v) for v in values if np.isfinite(v)), default=0.0)
    if biggest < 0.95 and decimals < 2:
        return 2
    return decimals


# ---- captions ------------------------------------------------------------------------------
def caption_mark(scene) -> int:
    """Where this beat's captions start in the scene's caption list (see hold_captions)."""
    return len(scene.renderer.file_writer.subcaptions)


def hold_captions(scene, first: int, tail: float = 0.75) -> None:
    """Keep each caption added since ``first`` on screen until the next one starts, the last
    until the stage starts to clear (+ ``tail``, less than ``clear_stage``'s fade): a
    caption then lasts as long as the steps it explains. Only lengthens, never overlaps."""
    import datetime
    subs = scene.renderer.file_writer.subcaptions[first:]
    last_end = scene.renderer.time + tail
    for a, b in zip(subs, [*subs[1:], None]):
        end = (b.start.total_seconds() - 0.05) if b is not None else last_end
        if end > a.end.total_seconds():
            a.end = datetime.timedelta(seconds=end)
