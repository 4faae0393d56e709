"""Beat 5, softmax: the focus row lifts out of QKᵀ, is divided by √d_k, passes through a
labelled softmax arrow and comes back as bars: the real weights, which visibly sum to 1.

Note: ``trace.scores`` are already divided by √d_k; the raw row shown first is "qk_dot".
On a masked trace the masked scores turn into a red −∞ before the softmax.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, FadeOut, FadeTransform,
                   GrowFromEdge, LaggedStart, Line, ManimColor, MathTypst, TransformFromCopy,
                   TransformMatchingShapes, VGroup, interpolate_color)

from .. import stage, style
from ..bars import SoftmaxBars
from ..film import Beat
from ..formula import role_colored
from ..readouts import magnitude_decimals
from ..text import fit_width, label_text, user_text
from ..tokens import word_row
from ..views import drawn_indices, token_word
from .sparks import full_qk_grid, grid_numbers

TOP_Y = 2.85            # the row of numbers
NUMBERS_RIGHT = 4.95    # the rightmost number (the stack of weights stands right of it)
LEFT_EDGE = -6.8


class SoftmaxBeat(Beat):
    name = "softmax"

    def script(self):
        trace = self.trace
        self.slot, self.f = trace.primary_slot, trace.focus_index
        self.indices = drawn_indices(trace)
        self.fr = self.indices.index(self.f)
        self.word = token_word(trace, self.f)
        self.n = len(self.indices)
        self.masked_row = np.array([bool(trace.mask[self.f, j]) for j in self.indices])
        self.small_grid_from_the_last_beat()
        self.lift_the_focus_row()
        self.divide_by_root_dk()
        if self.masked_row.any():
            self.masked_scores_become_minus_infinity()
        self.softmax_makes_weights()
        self.stacked_they_make_one()

    def row_decimals(self, kind, width, wanted):
        """Decimals for one row of numbers ``width`` apart (fewer when they would not fit)."""
        values = [self.book.value(kind, (self.slot, self.f, j)) for j in self.indices]
        wanted = magnitude_decimals(values, wanted)
        return self.book.legible_decimals(kind, [(self.slot, self.f, j) for j in self.indices],
                                          wanted, 0.8 * width)

    def row_of_numbers(self, kind: str, decimals: int) -> VGroup:
        """The focus row of ``kind`` written along the top, masked keys in red."""
        row = VGroup(*[self.number(kind, (self.slot, self.f, j), decimals=decimals, signed=True,
                                   font_size=style.FONT_LABEL,
                                   color=style.PALETTE.mask if m else None)
                       for j, m in zip(self.indices, self.masked_row)])
        fit_width(row, 0.8 * self.spacing)
        for x, m in zip(self.xs, row):
            m.move_to([x, TOP_Y, 0])
        return row

    # ---- the QKᵀ grid of the last beat, small, at the bottom left -----------------------------
    def small_grid_from_the_last_beat(self):
        # (the sparks beat's final grid, scaled down: the same numbers, the same look)
        self.grid, self.qk_decimals = full_qk_grid(self.book, self.indices)
        grid, fr = self.grid, self.fr
        self.cells = grid_numbers(self.book, "qk_dot", self.slot, self.indices, grid,
                                  self.qk_decimals)
        self.numbers = VGroup(*self.cells.values())
        for (r, _), mob in self.cells.items():
            if r != fr:
                mob.set_opacity(style.FAINT_ROW)
        VGroup(*grid.row_labels[:fr], *grid.row_labels[fr + 1:]).set_opacity(style.FAINT_ROW)
        self.box = grid.focus_box(fr)
        small = VGroup(grid, self.numbers, self.box)
        small.scale(min(5.0 / small.width, 3.7 / small.height))
        small.to_corner(DOWN + LEFT, buff=0.4)
        self.play(FadeIn(VGroup(grid, self.numbers, self.box)), run_time=style.T_QUICK,
                  rate_func=style.EASE)

    # ---- 1. the focus row lifts out -----------------------------------------------------------
    def lift_the_focus_row(self):
        pal, n, fr = style.PALETTE, self.n, self.fr
        self.raw_label = role_colored(MathTypst("{{ q : q }} dot {{ k : k }}", font_size=30,
                                                color=pal.text))
        self.scaled_label = role_colored(MathTypst("frac({{ q : q }} dot {{ k : k }}, sqrt(d_k))",
                                                   font_size=30, color=pal.text))
        tag = user_text(self.word, style.FONT_LABEL, pal.query)
        label_w = max(self.raw_label.width, self.scaled_label.width) + 0.3 + tag.width + 0.25
        self.spacing = min(1.15, (NUMBERS_RIGHT - (LEFT_EDGE + label_w)) / max(n - 0.5, 1))
        xs = NUMBERS_RIGHT - (n - 1 - np.arange(n)) * self.spacing
        if n <= 8:      # few words: centre them a little (the stack still fits at the right)
            xs = xs - min(0.6, (NUMBERS_RIGHT - xs[-1]) + 0.6)
        self.xs = xs
        self.raw = self.row_of_numbers("qk_dot", self.qk_decimals)
        tag.next_to([xs[0] - self.spacing / 2, TOP_Y, 0], LEFT, buff=0.15)
        self.raw_label.next_to(tag, LEFT, buff=0.3)
        self.play(LaggedStart(*[TransformFromCopy(self.cells[(fr, c)], self.raw[c], path_arc=-0.6)
                                for c in range(n)], lag_ratio=style.lag_for(n)),
                  TransformFromCopy(self.grid.row_labels[fr], tag),
                  FadeIn(self.raw_label), VGroup(self.grid, self.numbers).animate.set_opacity(0.3),
                  self.box.animate.set_stroke(opacity=0.3),
                  run_time=style.T_MOVE, rate_func=style.EASE,
                  subcaption=f"Lift {self.word}'s row out of QK\u1d40: its raw dot products",
                  subcaption_duration=1.8)
        self.wait(style.T_BREATH)

    # ---- 2. divided by sqrt(d_k) --------------------------------------------------------------
    def divide_by_root_dk(self):
        pal = style.PALETTE
        d_k = self.record("d_k", (), 0)
        root = self.record("sqrt_dk", (), 2)
        self.score_dec = self.row_decimals("scores", self.spacing, style.SCORE_DECIMALS)
        self.scaled = self.row_of_numbers("scores", self.score_dec)
        self.scaled_label.move_to(self.raw_label, aligned_edge=RIGHT)
        self.divisor = label_text(f"\u00f7 \u221a{d_k} = {root}", style.FONT_LABEL, pal.soft)
        self.divisor.next_to(VGroup(self.raw), DOWN, buff=0.28)
        self.play(FadeIn(self.divisor, shift=UP * 0.2), run_time=style.T_QUICK,
                  rate_func=style.EASE)
        self.play(LaggedStart(*[FadeTransform(a, b) for a, b in zip(self.raw, self.scaled)],
                              lag_ratio=style.LAG_MANY),
                  TransformMatchingShapes(self.raw_label, self.scaled_label),
                  run_time=style.T_STEP, rate_func=style.EASE,
                  subcaption=f"Divide by \u221ad_k = \u221a{d_k} = {root}: the scores",
                  subcaption_duration=1.5)
        self.wait(style.T_BREATH)

    # ---- 2b. a masked trace: the forbidden scores become -inf ---------------------------------
    def masked_scores_become_minus_infinity(self):
        pal = style.PALETTE
        infs, pairs = VGroup(), []
        for c, (j, m) in enumerate(zip(self.indices, self.masked_row)):
            if m:
                t = self.number("masked_score", (self.slot, self.f, j), decimals=self.score_dec,
                                signed=True, font_size=style.FONT_LABEL, color=pal.mask)
                t.move_to(self.scaled[c])
                infs.add(t)
                pairs.append((self.scaled[c], t))
        fit_width(infs, 0.8 * self.spacing)
        n_masked = int(self.masked_row.sum())
        self.play(*[FadeTransform(a, b) for a, b in pairs], run_time=style.T_STEP,
                  rate_func=style.EASE,
                  subcaption=f"The mask sets {n_masked} of them to \u2212\u221e: "
                             "no weight for those keys",
                  subcaption_duration=1.3)
        for a, b in pairs:
            self.scaled.submobjects[self.scaled.submobjects.index(a)] = b
        self.wait(style.T_BREATH)

    # ---- 3. through the softmax arrow, back as bars -------------------------------------------
    def softmax_makes_weights(self):
        trace, pal, n, xs = self.trace, style.PALETTE, self.n, self.xs
        self.weights = np.array([self.book.value("weights", (self.slot, self.f, j))
                                 for j in self.indices])
        weights = self.weights
        mid = float(xs.mean())
        arrow = Arrow([mid, TOP_Y - 0.7, 0], [mid, TOP_Y - 1.65, 0], buff=0,
                      color=pal.soft, stroke_width=4)
        arrow_label = label_text("softmax", style.FONT_BODY, pal.text).next_to(arrow, RIGHT, buff=0.2)
        # the grid has given its row: it leaves so the bars have the width
        self.play(FadeOut(self.divisor), FadeOut(VGroup(self.grid, self.numbers, self.box)),
                  Create(arrow), FadeIn(arrow_label), run_time=style.T_SHORT,
                  rate_func=style.EASE)
        words, turned = word_row([token_word(trace, j) for j in self.indices],
                                 [trace.special[j] for j in self.indices], xs,
                                 pitch=self.spacing, font_size=style.FONT_SMALL,
                                 bottom=stage.BOTTOM_EDGE)
        self.baseline_y = words.get_top()[1] + 0.12
        w_labels = VGroup(*[self.number("weights", (self.slot, self.f, j),
                                        decimals=style.WEIGHT_DECIMALS, font_size=style.FONT_NUMBER)
                            for j in self.indices])
        fit_width(w_labels, 0.92 * self.spacing)
        scale = max(weights.max(), 1e-6)
        colors = [interpolate_color(ManimColor(pal.faint), ManimColor("#FFFFFF"),
                                    float(w / scale) ** 0.7).to_hex() for w in weights]
        bar_h = min(2.8, (TOP_Y - 1.95) - self.baseline_y - 0.35)
        self.bars = SoftmaxBars(weights, [m.copy() for m in words], unit_height=bar_h / scale,
                                bar_width=min(0.5, self.spacing * 0.5), spacing=self.spacing,
                                colors=colors, value_labels=list(w_labels))
        bars = self.bars
        bars.remove(bars.labels)
        bars.shift([mid - bars.baseline.get_center()[0], self.baseline_y - bars.baseline.get_y(), 0])
        SoftmaxBars.place_value_labels(bars.value_labels, bars.bars, weights)
        order = np.argsort(-weights, kind="stable")
        top = int(order[0])
        second = int(order[1]) if n > 1 else top
        w_top = self.record("weights", (self.slot, self.f, self.indices[top]), style.WEIGHT_DECIMALS)
        w_second = self.record("weights", (self.slot, self.f, self.indices[second]),
                               style.WEIGHT_DECIMALS)
        self.play(FadeIn(bars.baseline), FadeIn(words), run_time=style.T_FLICK)
        self.play(LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars.bars],
                              lag_ratio=style.lag_for(n)),
                  LaggedStart(*[TransformFromCopy(s, w) for s, w in zip(self.scaled,
                                                                        bars.value_labels)],
                              lag_ratio=style.lag_for(n)),
                  run_time=style.T_BUILD, rate_func=style.EASE,
                  subcaption=f"Softmax makes them weights: "
                             f"{token_word(trace, self.indices[top])} {w_top}, "
                             f"{token_word(trace, self.indices[second])} {w_second}",
                  subcaption_duration=2.3)
        self.wait(style.T_SHORT)

    # ---- 4. stacked, they make exactly one ----------------------------------------------------
    def stacked_they_make_one(self):
        pal, bars, baseline_y = style.PALETTE, self.bars, self.baseline_y
        total = self.number("weight_sum", (self.slot, self.f), decimals=style.WEIGHT_DECIMALS,
                            font_size=style.FONT_LABEL)
        stack_x = min(bars.bars.get_right()[0] + 1.0, 6.2)
        stack_h = min(3.0, TOP_Y - 1.0 - baseline_y - 0.6)
        stack = bars.stacked(self.weights, stack_x, baseline_y, stack_h)
        one_tick = Line([stack_x - 0.4, baseline_y + stack_h, 0],
                        [stack_x + 0.4, baseline_y + stack_h, 0]).set_stroke(pal.highlight, 2)
        sum_label = VGroup(label_text("sum =", style.FONT_LABEL, pal.soft), total).arrange(RIGHT, buff=0.12)
        sum_label.next_to(one_tick, UP, buff=0.12)
        stage.keep_right_of(sum_label)
        self.play(LaggedStart(*[TransformFromCopy(b, s) for b, s in zip(bars.bars, stack)],
                              lag_ratio=style.lag_for(self.n)),
                  run_time=style.T_MOVE, rate_func=style.EASE,
                  subcaption=f"Stacked, the weights make exactly one: sum = {total.text}",
                  subcaption_duration=2.8)
        self.play(Create(one_tick), FadeIn(sum_label, shift=DOWN * 0.1), run_time=style.T_QUICK,
                  rate_func=style.EASE)
