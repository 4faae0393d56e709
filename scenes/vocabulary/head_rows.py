"""Head rows: one word's weights in several heads, a row per head and a column per key,
with the head's name before its row and a note after it; the keys' words along the top
follow the grids' one rule (:class:`~.grid.LabelFit`)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, Dot, Line, Rectangle, VGroup

from . import stage, style
from .grid import LabelFit, dot_radius, tier_centre, tier_line, tiers_height
from .scripts import may_turn, reading_slot
from .text import glyphs_of, line_box_height

__all__ = ["BAND_GAP", "HEAD_ROWS_FIT", "HeadRows", "NAME_GAP", "WORDS_BUFF"]

NAME_GAP = 0.2            # between a head's name and its row, and its row and its note
WORDS_BUFF = 0.1          # between the rows and the keys' words above them
BAND_GAP = 0.12           # the keys' words' band: their height and this
BOX_SIDE = 0.12           # between the boxed row's name or note and the box's side
ROW_GAP = 0.1             # between one row's name (or note) and the next row's
# the head rows' words stand upright at full size when each takes at most 0.95 of a cell
# (a long special token may shrink to the legible minimum), else they all turn, full size
HEAD_ROWS_FIT = LabelFit(share=0.95, min_scale=1.0, special_share=0.95,
                         special_min_scale=style.MIN_FONT / style.FONT_LABEL,
                         special_turns_alone=False, turned_share=None)


class HeadRows(VGroup):
    """``weights[n, c]`` as a dot per cell whose area is the weight, in ``colors[n]``: a
    row per head, its ``names[n]`` before it and its ``notes[n]`` after it, a column per
    key, the keys' ``words`` on top (their ``special`` tokens dimmed). Fitted between
    ``top`` (the words' top) and ``bottom`` (the last row's), the whole as wide as the stage
    allows, a cell at most ``max_cell``. ``self.rows[n]`` covers row n's cells; ``self.box``
    marks row ``boxed``; ``self.dots[n]`` are row n's dots."""

    def __init__(self, names: Sequence, notes: Sequence, words: Sequence[str],
                 special: Sequence[bool], weights, colors: Sequence[str], *, boxed: int,
                 top: float, bottom: float, max_cell: float, lowest: float | None = None,
                 right_to_left: bool = False):
        super().__init__()
        self.right_to_left = right_to_left       # the keys run from the right
        self.names, self.notes = list(names), list(notes)
        self.words = [glyphs_of(w, style.FONT_LABEL, sp) for w, sp in zip(words, special)]
        self.texts = [str(w) for w in words]
        self.drawn_texts = list(words)          # as drawn: a piece knows its word
        self.special = list(special)
        self.fit_cell(top, bottom, max_cell, bottom if lowest is None else lowest)
        name_w = max(m.width for m in self.names)
        note_w = max(m.width for m in self.notes)
        self.width_drawn = len(self.words) * self.cell
        self.left = -(name_w + NAME_GAP + self.width_drawn + NAME_GAP + note_w) / 2 \
            + name_w + NAME_GAP
        self.grid_top = top - self.band
        self.lines = self.draw_lines(len(self.names))
        self.labels = self.place_words()
        self.dots, self.rows = self.fill_rows(np.asarray(weights, dtype=float), colors)
        # a margin round the row, as far as the next rows' names and notes leave room
        marked = VGroup(self.names[boxed], self.rows[boxed], self.notes[boxed])
        ink = max(m.height for m in self.names + self.notes)
        margin = float(np.clip((self.row_height - ink) / 2 - 0.02, 0.0, 0.06))
        # beside the name and the note, room for the stroke and a clear gap (a note ending
        # at the stroke reads as touching it)
        self.box = Rectangle(width=marked.width + 2 * BOX_SIDE,
                             height=self.row_height + 2 * margin).move_to(
            [marked.get_center()[0], self.rows[boxed].get_y(), 0])
        self.box.set_stroke(style.PALETTE.highlight, width=3)
        self.add(self.lines, self.labels, VGroup(*self.names), self.dots, VGroup(*self.notes),
                 self.box)

    def fit_cell(self, top: float, bottom: float, max_cell: float, lowest: float) -> None:
        """The cell: as wide as the stage allows beside the names and notes, then as tall
        as the rows allow under the words' band (down to ``bottom``, or to ``lowest`` where
        the names and notes need it); the words upright or turned."""
        name_w = max(m.width for m in self.names)
        note_w = max(m.width for m in self.notes)
        room_w = stage.TEXT_WIDTH - name_w - note_w - 2 * NAME_GAP
        # a column as wide as the stage allows (its turned word needs the width), a row
        # as tall as the rows allow: square cells while both allow it
        cell = min(max_cell, room_w / len(self.words))
        widths = [w.width for w in self.words]
        upright_only = not all(may_turn(t) for t in self.texts)
        self.scale, self.turned = HEAD_ROWS_FIT.plan(
            widths, self.special, cell, style.FONT_LABEL, upright_only)
        # words of a script never turned stand upright, in tiers where they need it
        self.tiers = HEAD_ROWS_FIT.tiers(widths, self.special, self.scale, cell) \
            if upright_only else 1
        self.band = (max(widths) if self.turned
                     else max([tiers_height(self.tiers, tier_line(
                                 self.drawn_texts, self.special, style.FONT_LABEL) * self.scale)]
                              + [w for w in widths   # a long special token turns alone
                                 if HEAD_ROWS_FIT.special_scale(
                                     w * self.scale, cell * self.tiers) is None])
                     ) + BAND_GAP
        self.cell = cell
        rows = len(self.names)
        # a row is at least as tall as its name and note need to keep apart from the next
        # row's: many heads reach down to ``lowest`` rather than crowd
        need = max(m.height for m in self.names + self.notes) + ROW_GAP
        room = (top - self.band - bottom) / rows
        self.row_height = max(min(cell, room), min(need, (top - self.band - lowest) / rows))

    def column_x(self, c: int) -> float:
        """The centre of key ``c``'s column (in reading order: from the right for a
        sentence read from the right)."""
        return self.left + (reading_slot(c, len(self.words), self.right_to_left) + 0.5) * self.cell

    def draw_lines(self, n_rows: int) -> VGroup:
        left, top, cell, width = self.left, self.grid_top, self.cell, self.width_drawn
        h = self.row_height
        return VGroup(*[Line([left, top - r * h, 0], [left + width, top - r * h, 0])
                        for r in range(n_rows + 1)],
                      *[Line([left + c * cell, top, 0], [left + c * cell, top - n_rows * h, 0])
                        for c in range(len(self.words) + 1)]).set_stroke(style.PALETTE.grid,
                                                                          width=1.0)

    def place_words(self) -> VGroup:
        """The keys' words over their columns: turned, or upright on one baseline (a long
        special token shrunk to its cell, or turned on its own if it cannot shrink so)."""
        labels = VGroup()
        for c, word in enumerate(self.words):
            x = self.column_x(c)
            if self.turned:
                word.rotate(style.TURNED)
                # its line as wide as its column at most, never below the legible size
                fit = HEAD_ROWS_FIT.special_share * self.cell / word.width
                word.scale(min(1.0, max(fit, HEAD_ROWS_FIT.special_min_scale)))
                word.move_to([x, self.grid_top + WORDS_BUFF, 0], aligned_edge=DOWN)
            elif (self.tiers > 1 or self.scale < 1.0) and HEAD_ROWS_FIT.special_scale(
                    word.width * self.scale, self.cell * self.tiers) is not None:
                # in its tier, a long special token shrinks to its tier's room
                word.scale(self.scale * HEAD_ROWS_FIT.special_scale(
                    word.width * self.scale, self.cell * self.tiers), about_point=np.zeros(3))
                word.shift([x, self.grid_top + WORDS_BUFF + tier_centre(
                    c % self.tiers, tier_line(self.drawn_texts, self.special, style.FONT_LABEL)
                    * self.scale), 0])
            elif HEAD_ROWS_FIT.special_scale(word.width * self.scale,
                                             self.cell * self.tiers) is None:
                # too long for its cell (its tier) even shrunk: a special token among short
                # words, Latin, so it may turn
                word.scale(self.scale, about_point=np.zeros(3))
                word.rotate(style.TURNED).move_to([x, self.grid_top + WORDS_BUFF, 0],
                                               aligned_edge=DOWN)
            else:
                shrink = HEAD_ROWS_FIT.special_scale(word.width, self.cell)
                if shrink < 1.0:
                    word.scale(shrink, about_point=np.zeros(3))
                # the line box sits on the grid, so the words share a baseline
                word.shift([x, self.grid_top + WORDS_BUFF
                            + line_box_height(style.FONT_LABEL) / 2, 0])
            labels.add(word)
        return labels

    def fill_rows(self, weights: np.ndarray, colors: Sequence[str]) -> tuple[VGroup, list]:
        """Each row's dots, its name and note beside it; the rectangles over the rows."""
        left, cell, width = self.left, self.cell, self.width_drawn
        dots, rows = VGroup(), []
        for n, color in enumerate(colors):
            y = self.grid_top - (n + 0.5) * self.row_height
            self.names[n].move_to([left - NAME_GAP, y, 0], aligned_edge=RIGHT)
            self.notes[n].move_to([left + width + NAME_GAP, y, 0], aligned_edge=LEFT)
            dots.add(VGroup(*[Dot([self.column_x(c), y, 0], color=color,
                                  radius=max(dot_radius(float(w), 0.46 * min(
                                      cell, self.row_height)), 1e-4))
                              for c, w in enumerate(weights[n])]))
            rows.append(Rectangle(width=width, height=self.row_height).move_to(
                [left + width / 2, y, 0]))
        return dots, rows
