"""Beat 4, sparks: the focus token's query meets every key. Each dot product flashes as a
spark whose width and brightness follow the real value; the values fill the focus row of
the QKᵀ grid, then the whole grid fills."""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, LaggedStart, MathTypst,
                   Succession, TransformFromCopy, VGroup)

from scenes import style
from scenes.base import BeatScene
from scenes.components import AttentionGrid, Spark, SparkTravel
from scenes.numbers import lookup
from scenes.views import drawn_indices, head_name, token_row, token_word


def qk_grid(scene, indices, **kwargs) -> AttentionGrid:
    """The QKᵀ grid over the drawn tokens (queries as rows, keys as columns)."""
    trace = scene.trace
    words = [token_word(trace, i) for i in indices]
    special = [trace.special[i] for i in indices]
    return AttentionGrid(words, row_special=special, col_special=special, **kwargs)


def grid_decimals(scene, kind, slot, indices) -> int:
    """One decimal, or none when three-digit values would shrink past legibility."""
    biggest = max(abs(lookup(scene.trace, kind, (slot, i, j))) for i in indices for j in indices)
    return 0 if biggest >= 99.95 else style.SCORE_DECIMALS


def grid_numbers(scene, kind, slot, indices, grid) -> dict:
    """Recorded numbers of ``kind`` (h, i, j) for every cell of ``grid``, all at one
    scale; keyed by (row, col)."""
    decimals = grid_decimals(scene, kind, slot, indices)
    placed = []
    for r, i in enumerate(indices):
        for c, j in enumerate(indices):
            mob = scene.number(kind, (slot, i, j), decimals=decimals, signed=True,
                               font_size=style.FONT_NUMBER)
            placed.append((mob, r, c))
    grid.put_all(placed)
    return {(r, c): mob for mob, r, c in placed}


class SparksBeat(BeatScene):
    beat_name = "sparks"
    beat_title = "Queries meet keys"

    def build(self):
        trace = self.trace
        pal = style.PALETTE
        slot, f = trace.primary_slot, trace.focus_index
        indices = drawn_indices(trace)
        fr = indices.index(f)
        word = token_word(trace, f)

        row = token_row(trace, max_width=12.5)
        row.to_edge(UP, buff=0.35)
        for i in indices:
            row.chip(i).set_role_color(pal.query if i == f else pal.key)
        grid = qk_grid(self, indices, max_width=9.0, max_height=5.0)
        grid.to_edge(DOWN, buff=0.3)
        title = MathTypst("Q K^T", font_size=34, color=pal.text)
        title.next_to(grid.lines, RIGHT, buff=0.4).align_to(grid.lines, UP)
        title_note = self.label("q \u00b7 k, before scaling", style.FONT_SMALL, pal.dim)
        title_note.next_to(title, DOWN, buff=0.15, aligned_edge=LEFT)
        # static layers first: they are baked into the background
        self.add(row, grid, title, title_note)

        dots = np.array([lookup(trace, "qk_dot", (slot, f, j)) for j in indices])
        span = float(dots.max() - dots.min()) or 1.0
        strengths = (dots - dots.min()) / span
        decimals = grid_decimals(self, "qk_dot", slot, indices)
        sparks, under = [], VGroup()
        start = row.chip(f).get_bottom()
        for n, j in enumerate(indices):
            end = row.chip(j).get_bottom()
            if j == f:       # the query meets its own key: a small loop under the chip
                sp = Spark(start + LEFT * 0.25, start + RIGHT * 0.25, strengths[n],
                           angle=np.pi * 0.9, seed=n, max_width=22.0)
            else:
                sp = Spark(start, end, strengths[n], angle=np.pi * 0.7, seed=n, max_width=22.0)
            sparks.append(sp)
            value = self.number("qk_dot", (slot, f, j), decimals=decimals,
                                signed=True, font_size=style.FONT_NUMBER)
            value.set_opacity(0.45 + 0.55 * strengths[n])
            value.next_to(row.chip(j), DOWN, buff=0.12)
            under.add(value)
        # the loop and arcs hang under the row: keep the numbers clear of them
        best = int(np.argmax(dots))
        best_text = self.record_number("qk_dot", (slot, f, indices[best]), decimals)
        self.play(LaggedStart(*[Succession(SparkTravel(sp, run_time=1.1),
                                           FadeIn(v, scale=1.3, run_time=0.4))
                                for sp, v in zip(sparks, under)],
                              lag_ratio=0.18),
                  run_time=3.0,
                  subcaption=f"{word}'s query meets each key: one dot product per word; "
                             f"the strongest is {token_word(trace, indices[best])}, "
                             f"{best_text}",
                  subcaption_duration=3.5)
        self.remove(*sparks)
        self.wait(style.T_PAUSE)

        # the values fly down into the focus row of the grid
        cells = grid_numbers(self, "qk_dot", slot, indices, grid)
        focus_cells = VGroup(*[cells[(fr, c)] for c in range(len(indices))])
        box = grid.focus_box(fr)
        self.play(LaggedStart(*[TransformFromCopy(v, cell) for v, cell in zip(under, focus_cells)],
                              lag_ratio=style.LAG_FEW),
                  Create(box), run_time=1.6, rate_func=style.EASE,
                  subcaption=f"They fill {word}'s row of QK\u1d40 (queries down, keys across)",
                  subcaption_duration=2.2)
        self.wait(style.T_PAUSE * 0.6)

        # every query against every key
        others = VGroup(*[mob for (r, c), mob in cells.items() if r != fr])
        others.set_opacity(style.FAINT_ROW + 0.25)
        n_tok = len(indices)
        self.play(FadeOut(under),
                  LaggedStart(*[FadeIn(m, scale=0.6) for m in others], lag_ratio=style.LAG_MANY),
                  run_time=1.8, rate_func=style.EASE,
                  subcaption=f"Every word's query meets every key: all {n_tok} \u00d7 {n_tok} "
                             f"dot products of {head_name(self)}",
                  subcaption_duration=2.4)
        self.play(others.animate.set_opacity(style.FAINT_ROW),
                  VGroup(grid.row_labels[:fr], grid.row_labels[fr + 1:]).animate.set_opacity(
                      style.FAINT_ROW),
                  run_time=0.6, rate_func=style.EASE)
        self.mark_key_frame()
        self.wait(style.T_PAUSE)
        self.clear_stage()
