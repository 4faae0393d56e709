"""Beat 9, summary: the primary head's whole weight matrix as a heat map over the words,
the focus row marked and written out, and the formula softmax(QKᵀ/√d_k)V again.

The formula is our own fixed Typst source; user text never goes into Typst.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, LaggedStart, VGroup, Write

from scenes import style
from scenes.base import BeatScene
from scenes.beats.tidy import MIN_FONT, caption_mark, hold_captions, make_grid
from scenes.beats.title import attention_formula
from scenes.components import focus_window, label_text

GRID_CENTER = np.array([-2.7, -0.42, 0.0])
WRITTEN_WHEN_CROWDED = 3     # cells too small for every number: the largest few only


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

    grid = make_grid(tokens, special, max_width=8.0, max_height=6.6,
                     font_size=style.FONT_LABEL)
    grid.move_to(GRID_CENTER)
    masked = np.asarray(trace.mask, dtype=bool)[np.ix_(window, window)]
    red = grid.mask_cells(masked, opacity=0.3) if masked.any() else VGroup()
    # heat: the head's colour, brighter for larger weights (sqrt: small weights stay visible)
    heat = VGroup()
    for r in range(len(window)):
        for c in range(len(window)):
            sq = grid.cell_square(r, c).scale(0.94)
            sq.set_stroke(width=0).set_fill(head_color, opacity=float(np.sqrt(weights[r, c])))
            heat.add(sq)
    box = grid.focus_box(row)
    # the focus row written out (only it: a full grid of numbers would be unreadable); when
    # the cells are too small for every number to stay legible, only the largest few
    probe = label_text("0.00", style.FONT_SMALL)
    fits = probe.width * (MIN_FONT + 2) / style.FONT_SMALL <= 0.84 * grid.cell
    crowded = probe.width > 0.84 * grid.cell and not fits
    order = [int(c) for c in np.argsort(-weights[row], kind="stable")]
    written = sorted(order[:WRITTEN_WHEN_CROWDED]) if crowded else list(range(len(window)))
    numbers = VGroup()
    for c in written:
        j = window[c]
        w = float(weights[row, c])
        t = scene.number("weights", (slot, focus, j), decimals=style.WEIGHT_DECIMALS,
                         font_size=style.FONT_SMALL,
                         color=style.BACKGROUND if w > 0.45 else pal.text)
        if w <= 0.45:
            t.set_stroke(style.BACKGROUND, width=4, background=True)
        numbers.add(t)
    neighbours = any(b - a == 1 for a, b in zip(written, written[1:]))
    grid.put_all([(t, row, c) for t, c in zip(numbers, written)],
                 fill=0.84 if not crowded else (0.98 if neighbours else 1.6))

    formula = attention_formula(style.FONT_TITLE, full=False)
    formula.move_to([4.3, 1.3, 0])
    if formula.width > 5.0:
        formula.scale_to_fit_width(5.0)
    lines = [
        label_text("each row: one word\u2019s attention", style.FONT_SMALL, pal.query),
        label_text("each column: a word it reads", style.FONT_SMALL, pal.key),
        label_text("brighter = more weight; every row sums to 1", style.FONT_SMALL, pal.soft),
    ]
    if crowded:
        lines.append(label_text(f"numbers: the {WRITTEN_WHEN_CROWDED} largest weights of "
                                "the row", style.FONT_SMALL, pal.soft))
    if masked.any():
        lines.append(label_text(f"red: masked ({trace.mask_kind})", style.FONT_SMALL,
                                pal.mask))
    legend = VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.18)
    legend.next_to(formula, DOWN, buff=0.7)
    legend.set_x(formula.get_x())
    if legend.get_right()[0] > 6.9:
        legend.shift(LEFT * (legend.get_right()[0] - 6.9))

    first_caption = caption_mark(scene)
    scene.add_subcaption(f"All of head {trace.primary_head}'s weights at once: row "
                         f"{trace.focus_word} is the one we followed.", duration=3.0)
    scene.add(red, grid)
    scene.play(FadeIn(heading, shift=DOWN * 0.2), FadeIn(head_tag),
               LaggedStart(*[FadeIn(sq) for sq in heat], lag_ratio=style.LAG_MANY),
               run_time=1.5, rate_func=style.EASE)
    scene.wait(0.5)
    scene.play(Create(box), FadeIn(numbers), run_time=0.8, rate_func=style.EASE)
    scene.wait(0.7)
    scene.add_subcaption("One formula does it all: softmax of Q K transpose over root d k, "
                         "times V.", duration=3.0)
    scene.play(Write(formula), run_time=1.3, rate_func=style.EASE)
    scene.play(LaggedStart(*[FadeIn(m, shift=UP * 0.1) for m in legend],
                           lag_ratio=style.LAG_FEW), run_time=0.8, rate_func=style.EASE)
    scene.mark_key_frame()
    scene.wait(1.6)
    hold_captions(scene, first_caption)
    scene.clear_stage()


class SummaryBeat(BeatScene):
    beat_name = "summary"
    beat_title = "Summary: the whole weight matrix"

    def build(self):
        build_summary(self)
