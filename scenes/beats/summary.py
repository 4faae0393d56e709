"""Beat 9, summary: the primary head's whole weight matrix as a heat map over the words,
the focus row marked and written out, and the formula softmax(QKᵀ/√d_k)V again.

The formula is our own fixed Typst source; user text never goes into Typst.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, LaggedStart, MathTypst, VGroup,
                   Write)

from scenes import style
from scenes.base import BeatScene
from scenes.components import AttentionGrid, focus_window, label_text

GRID_CENTER = np.array([-2.6, -0.45, 0.0])
FORMULA = '"softmax"((Q K^T) / sqrt(d_k)) V'


def build_summary(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    slot, focus, T = trace.primary_slot, trace.focus_index, trace.num_tokens
    head_color = pal.head(trace.primary_head)
    start, stop = focus_window(T, focus)
    window = list(range(start, stop))
    tokens = [trace.display_tokens[i] for i in window]
    special = [trace.special[i] for i in window]
    row = window.index(focus)
    weights = trace.weights[slot][np.ix_(window, window)].astype(np.float64)

    heading = label_text("Every word, every weight", style.FONT_BODY)
    heading.to_corner(UP + LEFT, buff=0.4)
    head_tag = label_text(f"head {scene.record_number('head', (slot,), 0)}  \u00b7  layer "
                          f"{scene.record_number('layer', (), 0)}", style.FONT_LABEL,
                          head_color).to_corner(UP + RIGHT, buff=0.45)

    grid = AttentionGrid(tokens, row_special=special, col_special=special, max_width=7.6,
                         max_height=6.0, font_size=style.FONT_SMALL)
    grid.move_to(GRID_CENTER)
    # heat: the head's colour, brighter for larger weights (sqrt: small weights stay visible)
    heat = VGroup()
    for r in range(len(window)):
        for c in range(len(window)):
            sq = grid.cell_square(r, c).scale(0.94)
            sq.set_stroke(width=0).set_fill(head_color, opacity=float(np.sqrt(weights[r, c])))
            heat.add(sq)
    box = grid.focus_box(row)
    # the focus row written out (only it: a full grid of numbers would be unreadable)
    numbers = VGroup()
    for c, j in enumerate(window):
        w = float(weights[row, c])
        t = scene.number("weights", (slot, focus, j), decimals=style.WEIGHT_DECIMALS,
                         font_size=style.FONT_SMALL,
                         color=style.BACKGROUND if w > 0.45 else pal.text)
        if w <= 0.45:
            t.set_stroke(style.BACKGROUND, width=4, background=True)
        numbers.add(grid.put(t, row, c, fill=0.84))

    formula = MathTypst(FORMULA, font_size=style.FONT_TITLE, color=pal.text)
    formula.move_to([4.3, 1.3, 0])
    if formula.width > 5.0:
        formula.scale_to_fit_width(5.0)
    legend = VGroup(
        label_text("each row: one word\u2019s attention", style.FONT_SMALL, pal.query),
        label_text("each column: a word it reads", style.FONT_SMALL, pal.key),
        label_text("brighter = more weight; every row sums to 1", style.FONT_SMALL, pal.soft),
    ).arrange(DOWN, aligned_edge=LEFT, buff=0.18)
    legend.next_to(formula, DOWN, buff=0.7)
    legend.set_x(formula.get_x())
    if legend.get_right()[0] > 6.9:
        legend.shift(LEFT * (legend.get_right()[0] - 6.9))

    scene.add_subcaption(f"All of head {trace.primary_head}'s weights at once: row "
                         f"{trace.focus_word} is the one we followed.", duration=3.0)
    scene.add(grid)
    scene.play(FadeIn(heading, shift=DOWN * 0.2), FadeIn(head_tag),
               LaggedStart(*[FadeIn(sq) for sq in heat], lag_ratio=style.LAG_MANY),
               run_time=1.6, rate_func=style.EASE)
    scene.wait(0.6)
    scene.play(Create(box), FadeIn(numbers), run_time=0.9, rate_func=style.EASE)
    scene.wait(0.8)
    scene.add_subcaption("One formula does it all: softmax of Q K transpose over root d k, "
                         "times V.", duration=3.0)
    scene.play(Write(formula), run_time=1.4, rate_func=style.EASE)
    scene.play(LaggedStart(*[FadeIn(m, shift=UP * 0.1) for m in legend],
                           lag_ratio=style.LAG_FEW), run_time=0.9, rate_func=style.EASE)
    scene.mark_key_frame()
    scene.wait(2.0)
    scene.clear_stage()


class SummaryBeat(BeatScene):
    beat_name = "summary"
    beat_title = "Summary: the whole weight matrix"

    def build(self):
        build_summary(self)
