"""Beat 4, sparks: the focus token's query meets every key. Each dot product flashes as a
spark whose width and brightness follow the real value; the values fill the focus row of
the QKᵀ grid, then the grid grows to the whole frame and every cell fills."""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, LaggedStart, MathTypst,
                   Succession, TransformFromCopy, VGroup, rate_functions)

from .. import stage, style
from ..film import Beat
from ..grid import AttentionGrid, make_grid
from ..headers import head_name
from ..readouts import magnitude_decimals
from ..sparks import Spark, SparkTravel, arc_angle
from ..text import fit_width, label_text
from ..views import drawn_indices, token_row, token_word

MAX_SAG = 0.85          # how far an arc may hang below the token row
SPARK_SEGMENTS = 36
SPARK_WIDTH = 22.0
QK_GRID_SIZE = (10.2, 7.3)   # the QKᵀ grid as the beat ends: most of the frame


def qk_grid(trace, indices, *, max_width: float, max_height: float,
            font_size: float = style.FONT_LABEL, titles: bool = True) -> AttentionGrid:
    """The QKᵀ grid over the drawn tokens (queries as rows, keys as columns)."""
    words = [token_word(trace, i) for i in indices]
    special = [trace.special[i] for i in indices]
    return make_grid(words, special, max_width=max_width, max_height=max_height,
                     font_size=font_size, titles=titles)


def grid_decimals(book, kind, slot, indices, cell: float | None = None) -> int:
    """One decimal (two for tiny values), fewer when the numbers would not fit a cell of
    ``cell`` legibly, none for three-digit values."""
    values = [book.value(kind, (slot, i, j)) for i in indices for j in indices]
    finite = [abs(v) for v in values if np.isfinite(v)]
    if max(finite, default=0.0) >= 99.95:
        return 0
    decimals = magnitude_decimals(finite, style.SCORE_DECIMALS)
    if cell is None:
        return decimals
    cells = [(slot, i, j) for i in indices for j in indices]
    return book.legible_decimals(kind, cells, decimals, 0.8 * cell)


def full_qk_grid(book, indices) -> tuple[AttentionGrid, int]:
    """The QKᵀ grid as the sparks beat ends (the whole frame) and the decimals of its
    numbers; the softmax beat starts from a small copy of it."""
    grid = qk_grid(book.trace, indices, max_width=QK_GRID_SIZE[0], max_height=QK_GRID_SIZE[1])
    return grid, grid_decimals(book, "qk_dot", book.trace.primary_slot, indices, grid.cell)


def grid_numbers(book, kind, slot, indices, grid, decimals: int | None = None,
                 font_size: float = style.FONT_NUMBER) -> dict:
    """Recorded numbers of ``kind`` (h, i, j) for every cell of ``grid``, all at one
    scale; keyed by (row, col)."""
    if decimals is None:
        decimals = grid_decimals(book, kind, slot, indices, grid.cell)
    placed = []
    for r, i in enumerate(indices):
        for c, j in enumerate(indices):
            mob = book.text_mobject(kind, (slot, i, j), decimals=decimals, signed=True,
                                    font_size=font_size)
            placed.append((mob, r, c))
    grid.put_all(placed)
    return {(r, c): mob for mob, r, c in placed}


class SparksBeat(Beat):
    name = "sparks"

    def script(self):
        trace = self.trace
        self.slot, self.f = trace.primary_slot, trace.focus_index
        self.indices = drawn_indices(trace)
        self.fr = self.indices.index(self.f)
        self.n = len(self.indices)
        self.word = token_word(trace, self.f)
        self.masked = np.asarray(trace.mask, dtype=bool)
        self.any_mask = bool(self.masked[np.ix_(self.indices, self.indices)].any())
        self.lay_out_row_and_grid()
        self.sparks_fly()
        self.values_fill_the_focus_row()
        self.grid_takes_the_frame()

    # ---- the stage: the token row, and the grid small below it ------------------------------
    def lay_out_row_and_grid(self):
        trace, pal, indices = self.trace, style.PALETTE, self.indices
        self.row = token_row(trace, max_width=stage.TEXT_WIDTH)
        self.row.to_edge(UP, buff=0.35)
        for i in indices:
            self.row.chip(i).set_role_color(pal.query if i == self.f else pal.key)
        # the grid at its final, full-frame size; it starts smaller under the sparks
        self.grid, self.decimals = full_qk_grid(self.book, indices)
        grid = self.grid
        title = MathTypst("{{ Q : q }} {{ K^T : k }}", font_size=40, color=pal.text)
        title.select("q").set_color(pal.query)
        title.select("k").set_color(pal.key)
        title_note = label_text("q \u00b7 k, before scaling", style.FONT_SMALL, pal.dim)
        self.cells = grid_numbers(self.book, "qk_dot", self.slot, indices, grid, self.decimals)
        self.box = grid.focus_box(self.fr)
        sub = np.ix_(indices, indices)
        self.red = grid.mask_cells(self.masked[sub], opacity=0.32) if self.any_mask else VGroup()
        self.red_note = (label_text("red: masked keys,\nset to \u2212\u221e before softmax",
                                    style.FONT_SMALL, pal.mask) if self.any_mask else None)
        VGroup(grid, VGroup(*self.cells.values()), self.box, self.red).move_to([-1.1, -0.05, 0])
        title.next_to(grid.lines, RIGHT, buff=0.45).align_to(grid.lines, UP)
        title_note.next_to(title, DOWN, buff=0.15, aligned_edge=LEFT)
        if self.red_note is not None:
            self.red_note.next_to(title_note, DOWN, buff=0.35, aligned_edge=LEFT)
        stage.keep_right_of(VGroup(title, title_note,
                                   *([self.red_note] if self.red_note is not None else [])))
        # the small placement: below the arcs that hang under the row
        room_top = self.row.chips.get_bottom()[1] - 0.42 - MAX_SAG - 0.1
        whole = VGroup(grid, title, title_note)
        self.k = min(1.0, (room_top - stage.BOTTOM_EDGE) / whole.height,
                     stage.TEXT_WIDTH / whole.width)
        self.pivot = np.array([whole.get_center()[0], whole.get_bottom()[1], 0])
        self.shift = np.array([-self.pivot[0], stage.BOTTOM_EDGE - self.pivot[1], 0])
        self.small = [grid, self.box, title, title_note,
                      *[self.cells[(self.fr, c)] for c in range(self.n)]]
        for m in self.small:
            m.scale(self.k, about_point=self.pivot).shift(self.shift)
        # static layers first: they are baked into the background
        self.add(self.row, grid, title, title_note)

    # ---- the sparks ----------------------------------------------------------------------------
    def sparks_fly(self):
        trace, pal, indices, f, row = self.trace, style.PALETTE, self.indices, self.f, self.row
        dots = np.array([self.book.value("qk_dot", (self.slot, f, j)) for j in indices])
        span = float(dots.max() - dots.min()) or 1.0
        strengths = (dots - dots.min()) / span
        sparks, self.under = [], VGroup()
        start = row.chip(f).get_bottom()
        for c, j in enumerate(indices):
            end = row.chip(j).get_bottom()
            if j == f:       # the query meets its own key: a small loop under the chip
                sp = Spark(start + LEFT * 0.25, start + RIGHT * 0.25, strengths[c],
                           angle=np.pi * 0.9, seed=c, max_width=SPARK_WIDTH,
                           n_segments=SPARK_SEGMENTS, burst_radius=0.12)
            else:
                chord = float(np.linalg.norm(end - start))
                sp = Spark(start, end, strengths[c], angle=arc_angle(chord, sag=MAX_SAG) / 1.15,
                           seed=c, max_width=SPARK_WIDTH, n_segments=SPARK_SEGMENTS,
                           burst_radius=0.12)
            if self.masked[f, j]:
                sp.tint(pal.mask)
            sparks.append(sp)
            value = self.number("qk_dot", (self.slot, f, j), decimals=self.decimals, signed=True,
                                font_size=style.FONT_NUMBER,
                                color=pal.mask if self.masked[f, j] else None)
            value.set_opacity(0.45 + 0.55 * strengths[c])
            self.under.add(value)
        pitch = min(abs(row.chip(b).get_x() - row.chip(a).get_x())
                    for a, b in zip(indices, indices[1:])) if self.n > 1 else 1.0
        fit_width(self.under, 0.92 * pitch)
        for value, j in zip(self.under, indices):
            value.next_to(row.chip(j), DOWN, buff=0.12)
        best = int(np.argmax(dots))
        best_text = self.record("qk_dot", (self.slot, f, indices[best]), self.decimals)
        spark_time = 3.0 if self.n <= style.FEW else 3.6
        self.play(LaggedStart(*[Succession(SparkTravel(sp, run_time=1.1),
                                           FadeIn(v, scale=1.3, run_time=0.4))
                                for sp, v in zip(sparks, self.under)],
                              lag_ratio=0.18 if self.n <= style.FEW else 0.1),
                  run_time=spark_time,
                  subcaption=f"{self.word}'s query meets each key; strongest: "
                             f"{token_word(trace, indices[best])}, {best_text}"
                             + (" (red: masked keys)" if self.masked[f].any() else ""),
                  subcaption_duration=spark_time + 0.5)
        self.remove(*sparks)
        self.wait(0.6)

    # ---- the values fly down into the focus row of the grid ---------------------------------
    def values_fill_the_focus_row(self):
        focus_cells = VGroup(*[self.cells[(self.fr, c)] for c in range(self.n)])
        self.play(LaggedStart(*[TransformFromCopy(v, cell)
                                for v, cell in zip(self.under, focus_cells)],
                              lag_ratio=style.lag_for(self.n, many=style.LAG_MANY * 2)),
                  Create(self.box), run_time=style.T_MOVE, rate_func=style.EASE,
                  subcaption=f"They fill {self.word}'s row of QK\u1d40 (queries down, keys "
                             "across)",
                  subcaption_duration=1.8)
        self.wait(style.T_BREATH)

    # ---- the grid takes the frame, and every query meets every key ----------------------------
    def grid_takes_the_frame(self):
        grid, fr, n = self.grid, self.fr, self.n
        early = rate_functions.squish_rate_func(style.EASE, 0.0, 0.45)   # gone before the grid arrives
        self.play(FadeOut(self.row, rate_func=early), FadeOut(self.under, rate_func=early),
                  *[m.animate.shift(-self.shift).scale(1 / self.k, about_point=self.pivot)
                    for m in self.small],
                  run_time=1.2, rate_func=style.EASE)
        others = VGroup(*[mob for (r, c), mob in self.cells.items() if r != fr])
        others.set_opacity(style.FAINT_ROW)
        faint_labels = VGroup(grid.row_labels[:fr], grid.row_labels[fr + 1:])
        self.play(LaggedStart(*[FadeIn(m, scale=0.6) for m in others], lag_ratio=style.LAG_MANY),
                  faint_labels.animate.set_opacity(style.FAINT_ROW),
                  run_time=style.T_BUILD, rate_func=style.EASE,
                  subcaption=f"Every query meets every key: all {n} \u00d7 {n} dot "
                             f"products of {head_name(self.book, self.slot)}",
                  subcaption_duration=2.3 if not self.any_mask else 1.5)
        if self.any_mask:
            self.red.set_fill(opacity=0)
            self.add(self.red)
            self.film.bring_to_back(self.red)
            self.play(self.red.animate.set_fill(opacity=0.32), FadeIn(self.red_note),
                      run_time=0.6, rate_func=style.EASE,
                      subcaption="Red cells are masked: softmax will see them as \u2212\u221e",
                      subcaption_duration=1.5)
