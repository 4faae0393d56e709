"""Beat 5, softmax: the focus row lifts out of QKᵀ, is divided by √d_k, passes through a
labelled softmax arrow and comes back as bars: the real weights, which visibly sum to 1.

Note: ``trace.scores`` are already divided by √d_k; the raw row shown first is "qk_dot".
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, FadeOut, GrowFromEdge,
                   LaggedStart, Line, MathTypst, ReplacementTransform, TransformFromCopy,
                   VGroup, interpolate_color, ManimColor)

from scenes import style
from scenes.base import BeatScene
from scenes.beats.sparks import grid_decimals, grid_numbers, qk_grid
from scenes.components import SoftmaxBars, user_text
from scenes.numbers import lookup
from scenes.views import drawn_indices, token_word


class SoftmaxBeat(BeatScene):
    beat_name = "softmax"
    beat_title = "Softmax: scores become weights"

    def build(self):
        trace = self.trace
        pal = style.PALETTE
        slot, f = trace.primary_slot, trace.focus_index
        indices = drawn_indices(trace)
        fr = indices.index(f)
        word = token_word(trace, f)
        n = len(indices)

        # the QK^T grid of the last beat, small, at the bottom left
        grid = qk_grid(self, indices, max_width=5.2, max_height=3.6, font_size=style.FONT_SMALL)
        cells = grid_numbers(self, "qk_dot", slot, indices, grid)
        numbers = VGroup(*cells.values())
        for (r, _), mob in cells.items():
            if r != fr:
                mob.set_opacity(style.FAINT_ROW)
        box = grid.focus_box(fr)
        VGroup(grid, numbers, box).to_corner(DOWN + LEFT, buff=0.4)
        self.play(FadeIn(VGroup(grid, numbers, box)), run_time=0.6, rate_func=style.EASE)

        # 1. the focus row lifts out
        spacing = min(1.15, 10.0 / n)
        # centred right of the middle, leaving room at the right edge for the stack
        center = min(1.2, 4.6 - (n - 1) / 2 * spacing)
        xs = (np.arange(n) - (n - 1) / 2) * spacing + center
        top_y = 2.9
        raw = VGroup(*[self.number("qk_dot", (slot, f, j),
                                   decimals=grid_decimals(self, "qk_dot", slot, indices),
                                   signed=True, font_size=style.FONT_LABEL) for j in indices])
        for x, m in zip(xs, raw):
            m.move_to([x, top_y, 0])
        raw_label = MathTypst("q dot k", font_size=30, color=pal.text)
        raw_label.next_to(raw, LEFT, buff=0.5)
        self.play(LaggedStart(*[TransformFromCopy(cells[(fr, c)], raw[c], path_arc=-0.6)
                                for c in range(n)], lag_ratio=style.LAG_FEW),
                  FadeIn(raw_label), VGroup(grid, numbers).animate.set_opacity(0.3),
                  box.animate.set_stroke(opacity=0.3),
                  run_time=1.6, rate_func=style.EASE,
                  subcaption=f"Lift {word}'s row out of QK\u1d40: its raw dot products",
                  subcaption_duration=2.2)
        self.wait(style.T_PAUSE * 0.6)

        # 2. divided by sqrt(d_k)
        d_k = self.record_number("d_k", (), 0)
        root = self.record_number("sqrt_dk", (), 2)
        scaled = VGroup(*[self.number("scores", (slot, f, j), decimals=style.SCORE_DECIMALS,
                                      signed=True, font_size=style.FONT_LABEL) for j in indices])
        for x, m in zip(xs, scaled):
            m.move_to([x, top_y, 0])
        scaled_label = MathTypst("frac(q dot k, sqrt(d_k))", font_size=30, color=pal.text)
        scaled_label.move_to(raw_label, aligned_edge=RIGHT)
        divisor = self.label(f"\u00f7 \u221a{d_k} = {root}", style.FONT_LABEL, pal.soft)
        divisor.next_to(raw, DOWN, buff=0.28)
        scores = np.array([lookup(trace, "scores", (slot, f, j)) for j in indices])
        best = int(np.argmax(scores))
        best_text = self.record_number("scores", (slot, f, indices[best]), style.SCORE_DECIMALS)
        self.play(FadeIn(divisor, shift=UP * 0.2), run_time=0.6, rate_func=style.EASE)
        self.play(ReplacementTransform(raw, scaled), ReplacementTransform(raw_label, scaled_label),
                  run_time=1.2, rate_func=style.EASE,
                  subcaption=f"Divide by \u221ad_k = \u221a{d_k} = {root}: the scores; the "
                             f"largest is {token_word(trace, indices[best])}, {best_text}",
                  subcaption_duration=2.6)
        self.wait(style.T_PAUSE * 0.6)

        # 3. through the softmax arrow, back as bars
        weights = np.array([lookup(trace, "weights", (slot, f, j)) for j in indices])
        arrow = Arrow([xs.mean(), top_y - 0.75, 0], [xs.mean(), top_y - 1.75, 0], buff=0,
                      color=pal.soft, stroke_width=4)
        arrow_label = self.label("softmax", style.FONT_BODY, pal.text).next_to(arrow, RIGHT, buff=0.2)
        # the grid has given its row: it leaves so the bars have the width
        self.play(FadeOut(divisor), FadeOut(VGroup(grid, numbers, box)), Create(arrow),
                  FadeIn(arrow_label), run_time=0.8,
                  rate_func=style.EASE)
        labels = [user_text(token_word(trace, j), style.FONT_SMALL,
                            pal.special if trace.special[j] else pal.text) for j in indices]
        w_labels = [self.number("weights", (slot, f, j), decimals=style.WEIGHT_DECIMALS,
                                font_size=style.FONT_NUMBER) for j in indices]
        scale = max(weights.max(), 1e-6)
        colors = [interpolate_color(ManimColor(pal.faint), ManimColor("#FFFFFF"),
                                    float(w / scale) ** 0.7).to_hex() for w in weights]
        bars = SoftmaxBars(weights, labels, unit_height=2.2 / scale, bar_width=min(0.5, spacing * 0.5),
                           spacing=spacing, colors=colors, value_labels=w_labels)
        bars.shift([xs.mean() - bars.baseline.get_center()[0], -3.0 - bars.baseline.get_y(), 0])
        for lab in bars.labels:
            lab.set_y(bars.baseline.get_y() - 0.12 - lab.height / 2)
        SoftmaxBars.place_value_labels(bars.value_labels, bars.bars, weights)
        top = int(np.argsort(-weights)[0])
        second = int(np.argsort(-weights)[1]) if n > 1 else top
        w_top = self.record_number("weights", (slot, f, indices[top]), style.WEIGHT_DECIMALS)
        w_second = self.record_number("weights", (slot, f, indices[second]), style.WEIGHT_DECIMALS)
        self.play(FadeIn(bars.baseline), FadeIn(bars.labels), run_time=0.4)
        self.play(LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars.bars], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[TransformFromCopy(s, w) for s, w in zip(scaled, bars.value_labels)],
                              lag_ratio=style.LAG_FEW),
                  run_time=1.8, rate_func=style.EASE,
                  subcaption=f"Softmax turns scores into weights, the votes: "
                             f"{token_word(trace, indices[top])} {w_top}, "
                             f"{token_word(trace, indices[second])} {w_second}",
                  subcaption_duration=2.6)
        self.wait(style.T_PAUSE * 0.6)

        # 4. stacked, they make exactly one
        total = self.number("weight_sum", (slot, f), decimals=style.WEIGHT_DECIMALS,
                            font_size=style.FONT_LABEL)
        stack_x = min(bars.bars.get_right()[0] + 1.1, 6.1)
        stack_h = 2.6
        stack = bars.stacked(weights, stack_x, bars.baseline.get_y(), stack_h)
        one_tick = Line([stack_x - 0.4, bars.baseline.get_y() + stack_h, 0],
                        [stack_x + 0.4, bars.baseline.get_y() + stack_h, 0]).set_stroke(pal.highlight, 2)
        sum_label = VGroup(self.label("sum =", style.FONT_LABEL, pal.soft), total).arrange(RIGHT, buff=0.12)
        sum_label.next_to(one_tick, UP, buff=0.12)
        if sum_label.get_right()[0] > 6.9:
            sum_label.shift(LEFT * (sum_label.get_right()[0] - 6.9))
        self.play(LaggedStart(*[TransformFromCopy(b, s) for b, s in zip(bars.bars, stack)],
                              lag_ratio=style.LAG_FEW),
                  run_time=1.6, rate_func=style.EASE,
                  subcaption=f"Stacked, the weights make exactly one: sum = {total.text}",
                  subcaption_duration=2.6)
        self.play(Create(one_tick), FadeIn(sum_label, shift=DOWN * 0.1), run_time=0.6,
                  rate_func=style.EASE)
        self.mark_key_frame()
        self.wait(style.T_PAUSE)
        self.clear_stage()
