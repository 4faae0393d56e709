"""Beat 9, summary: the primary head's whole weight matrix as a heat map over the words,
the focus row marked and written out, and the formula softmax(QKᵀ/√d_k)V again.

The formula is our own fixed Typst source; user text never goes into Typst.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, UP, Create, FadeIn, LaggedStart, VGroup, Write

from .. import stage, style
from ..film import Beat
from ..formula import attention_formula
from ..grid import make_grid
from ..headers import head_layer_tag, heading
from ..text import label_text
from ..tokens import focus_window

GRID_CENTER = np.array([-2.7, -0.42, 0.0])
WRITTEN_WHEN_CROWDED = 3     # cells too small for every number: the largest few only


class SummaryBeat(Beat):
    name = "summary"
    hold = 1.6

    def script(self):
        trace = self.trace
        self.slot, self.focus = trace.primary_slot, trace.focus_index
        start, stop = focus_window(trace.num_tokens, self.focus)
        self.window = list(range(start, stop))
        self.row = self.window.index(self.focus)
        self.weights = trace.weights[self.slot][np.ix_(self.window, self.window)].astype(np.float64)
        self.lay_out_the_heat_map()
        self.lay_out_the_focus_row()
        self.lay_out_the_legend()
        self.show_it()

    # ---- the heat map: the head's colour, brighter for larger weights ----------------------------
    def lay_out_the_heat_map(self):
        trace, window = self.trace, self.window
        head_color = style.PALETTE.head(trace.primary_head)
        self.heading = heading("Every word, every weight")
        self.head_tag = head_layer_tag(self.book, self.slot)
        tokens = [trace.display_tokens[i] for i in window]
        special = [trace.special[i] for i in window]
        self.grid = make_grid(tokens, special, max_width=8.0, max_height=6.6,
                              font_size=style.FONT_LABEL)
        self.grid.move_to(GRID_CENTER)
        self.masked = np.asarray(trace.mask, dtype=bool)[np.ix_(window, window)]
        self.red = self.grid.mask_cells(self.masked, opacity=0.3) if self.masked.any() else VGroup()
        # sqrt: small weights stay visible
        self.heat = VGroup()
        for r in range(len(window)):
            for c in range(len(window)):
                sq = self.grid.cell_square(r, c).scale(0.94)
                sq.set_stroke(width=0).set_fill(head_color,
                                                opacity=float(np.sqrt(self.weights[r, c])))
                self.heat.add(sq)
        self.box = self.grid.focus_box(self.row)

    # ---- the focus row written out -------------------------------------------------------------
    def lay_out_the_focus_row(self):
        """Only the focus row (a full grid of numbers would be unreadable); when the cells
        are too small for every number to stay legible, only the largest few."""
        pal, row, weights = style.PALETTE, self.row, self.weights
        probe = label_text("0.00", style.FONT_SMALL)
        fits = probe.width * (style.MIN_FONT + 2) / style.FONT_SMALL <= 0.84 * self.grid.cell
        self.crowded = probe.width > 0.84 * self.grid.cell and not fits
        order = [int(c) for c in np.argsort(-weights[row], kind="stable")]
        written = (sorted(order[:WRITTEN_WHEN_CROWDED]) if self.crowded
                   else list(range(len(self.window))))
        self.numbers = VGroup()
        for c in written:
            w = float(weights[row, c])
            t = self.number("weights", (self.slot, self.focus, self.window[c]),
                            decimals=style.WEIGHT_DECIMALS, font_size=style.FONT_SMALL,
                            color=style.BACKGROUND if w > 0.45 else pal.text)
            if w <= 0.45:
                t.set_stroke(style.BACKGROUND, width=4, background=True)
            self.numbers.add(t)
        neighbours = any(b - a == 1 for a, b in zip(written, written[1:]))
        self.grid.put_all([(t, row, c) for t, c in zip(self.numbers, written)],
                          fill=0.84 if not self.crowded else (0.98 if neighbours else 1.6))

    # ---- the formula and what the picture means --------------------------------------------------
    def lay_out_the_legend(self):
        pal = style.PALETTE
        self.formula = attention_formula(style.FONT_TITLE, full=False)
        self.formula.move_to([4.3, 1.3, 0])
        if self.formula.width > 5.0:
            self.formula.scale_to_fit_width(5.0)
        lines = [
            label_text("each row: one word\u2019s attention", style.FONT_SMALL, pal.query),
            label_text("each column: a word it reads", style.FONT_SMALL, pal.key),
            label_text("brighter = more weight; every row sums to 1", style.FONT_SMALL, pal.soft),
        ]
        if self.crowded:
            lines.append(label_text(f"numbers: the {WRITTEN_WHEN_CROWDED} largest weights of "
                                    "the row", style.FONT_SMALL, pal.soft))
        if self.masked.any():
            lines.append(label_text(f"red: masked ({self.trace.mask_kind})", style.FONT_SMALL,
                                    pal.mask))
        self.legend = VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.18)
        self.legend.next_to(self.formula, DOWN, buff=0.7)
        self.legend.set_x(self.formula.get_x())
        stage.keep_right_of(self.legend)

    def show_it(self):
        trace = self.trace
        self.caption(f"All of head {trace.primary_head}'s weights at once: row "
                     f"{trace.focus_word} is the one we followed.", duration=3.0)
        self.add(self.red, self.grid)
        self.play(FadeIn(self.heading, shift=DOWN * 0.2), FadeIn(self.head_tag),
                  LaggedStart(*[FadeIn(sq) for sq in self.heat], lag_ratio=style.LAG_MANY),
                  run_time=style.T_BUILD, rate_func=style.EASE)
        self.wait(style.T_BREATH)
        self.play(Create(self.box), FadeIn(self.numbers), run_time=style.T_SHORT,
                  rate_func=style.EASE)
        self.wait(0.7)
        self.caption("One formula does it all: softmax of Q K transpose over root d k, "
                     "times V.", duration=3.0)
        self.play(Write(self.formula), run_time=1.3, rate_func=style.EASE)
        self.play(LaggedStart(*[FadeIn(m, shift=UP * 0.1) for m in self.legend],
                              lag_ratio=style.LAG_FEW), run_time=style.T_SHORT,
                  rate_func=style.EASE)
