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

from scenes import style
from scenes.base import BeatScene
from scenes.beats.sparks import full_qk_grid, grid_numbers
from scenes.beats.tidy import (caption_mark, fit_width, hold_captions, legible_decimals,
                               magnitude_decimals, word_row)
from scenes.components import SoftmaxBars, user_text
from scenes.numbers import lookup
from scenes.views import drawn_indices, token_word

TOP_Y = 2.85            # the row of numbers
NUMBERS_RIGHT = 4.95    # the rightmost number (the stack of weights stands right of it)
LEFT_EDGE = -6.8


def role_colored(formula: MathTypst) -> MathTypst:
    """A formula with its q and k parts (labelled "q", "k") in the query and key colours."""
    formula.select("q").set_color(style.PALETTE.query)
    formula.select("k").set_color(style.PALETTE.key)
    return formula


def row_decimals(scene, kind, slot, f, indices, width, wanted):
    """Decimals for one row of numbers ``width`` apart (fewer when they would not fit)."""
    values = [lookup(scene.trace, kind, (slot, f, j)) for j in indices]
    wanted = magnitude_decimals(values, wanted)
    return legible_decimals(scene, kind, [(slot, f, j) for j in indices], wanted, 0.8 * width)


def build_softmax(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    slot, f = trace.primary_slot, trace.focus_index
    indices = drawn_indices(trace)
    fr = indices.index(f)
    word = token_word(trace, f)
    n = len(indices)
    masked_row = np.array([bool(trace.mask[f, j]) for j in indices])
    any_masked = bool(masked_row.any())

    first_caption = caption_mark(scene)
    # the QK^T grid of the last beat, small, at the bottom left
    # (the sparks beat's final grid, scaled down: the same numbers, the same look)
    grid, qk_decimals = full_qk_grid(scene, indices)
    cells = grid_numbers(scene, "qk_dot", slot, indices, grid, qk_decimals)
    numbers = VGroup(*cells.values())
    for (r, _), mob in cells.items():
        if r != fr:
            mob.set_opacity(style.FAINT_ROW)
    VGroup(*grid.row_labels[:fr], *grid.row_labels[fr + 1:]).set_opacity(style.FAINT_ROW)
    box = grid.focus_box(fr)
    small = VGroup(grid, numbers, box)
    small.scale(min(5.0 / small.width, 3.7 / small.height))
    small.to_corner(DOWN + LEFT, buff=0.4)
    scene.play(FadeIn(VGroup(grid, numbers, box)), run_time=0.5, rate_func=style.EASE)

    # ---- 1. the focus row lifts out ---------------------------------------------------------
    raw_label = role_colored(MathTypst("{{ q : q }} dot {{ k : k }}", font_size=30,
                                       color=pal.text))
    scaled_label = role_colored(MathTypst("frac({{ q : q }} dot {{ k : k }}, sqrt(d_k))",
                                          font_size=30, color=pal.text))
    tag = user_text(word, style.FONT_LABEL, pal.query)
    label_w = max(raw_label.width, scaled_label.width) + 0.3 + tag.width + 0.25
    spacing = min(1.15, (NUMBERS_RIGHT - (LEFT_EDGE + label_w)) / max(n - 0.5, 1))
    xs = NUMBERS_RIGHT - (n - 1 - np.arange(n)) * spacing
    if n <= 8:      # few words: centre them a little (the stack still fits at the right)
        xs = xs - min(0.6, (NUMBERS_RIGHT - xs[-1]) + 0.6)
    raw_dec = qk_decimals       # as the sparks beat wrote them
    raw = VGroup(*[scene.number("qk_dot", (slot, f, j), decimals=raw_dec, signed=True,
                                font_size=style.FONT_LABEL,
                                color=pal.mask if m else None)
                   for j, m in zip(indices, masked_row)])
    fit_width(raw, 0.8 * spacing)
    for x, m in zip(xs, raw):
        m.move_to([x, TOP_Y, 0])
    tag.next_to([xs[0] - spacing / 2, TOP_Y, 0], LEFT, buff=0.15)
    raw_label.next_to(tag, LEFT, buff=0.3)
    scene.play(LaggedStart(*[TransformFromCopy(cells[(fr, c)], raw[c], path_arc=-0.6)
                             for c in range(n)], lag_ratio=style.LAG_FEW if n <= 9 else 0.05),
               TransformFromCopy(grid.row_labels[fr], tag),
               FadeIn(raw_label), VGroup(grid, numbers).animate.set_opacity(0.3),
               box.animate.set_stroke(opacity=0.3),
               run_time=1.4, rate_func=style.EASE,
               subcaption=f"Lift {word}'s row out of QK\u1d40: its raw dot products",
               subcaption_duration=1.8)
    scene.wait(0.5)

    # ---- 2. divided by sqrt(d_k) -------------------------------------------------------------
    d_k = scene.record_number("d_k", (), 0)
    root = scene.record_number("sqrt_dk", (), 2)
    score_dec = row_decimals(scene, "scores", slot, f, indices, spacing, style.SCORE_DECIMALS)
    scaled = VGroup(*[scene.number("scores", (slot, f, j), decimals=score_dec, signed=True,
                                   font_size=style.FONT_LABEL,
                                   color=pal.mask if m else None)
                      for j, m in zip(indices, masked_row)])
    fit_width(scaled, 0.8 * spacing)
    for x, m in zip(xs, scaled):
        m.move_to([x, TOP_Y, 0])
    scaled_label.move_to(raw_label, aligned_edge=RIGHT)
    divisor = scene.label(f"\u00f7 \u221a{d_k} = {root}", style.FONT_LABEL, pal.soft)
    divisor.next_to(VGroup(raw), DOWN, buff=0.28)
    scene.play(FadeIn(divisor, shift=UP * 0.2), run_time=0.5, rate_func=style.EASE)
    scene.play(LaggedStart(*[FadeTransform(a, b) for a, b in zip(raw, scaled)],
                           lag_ratio=style.LAG_MANY),
               TransformMatchingShapes(raw_label, scaled_label),
               run_time=1.1, rate_func=style.EASE,
               subcaption=f"Divide by \u221ad_k = \u221a{d_k} = {root}: the scores",
               subcaption_duration=1.5)
    scene.wait(0.5)

    # ---- 2b. a masked trace: the forbidden scores become -inf --------------------------------
    if any_masked:
        infs = VGroup()
        pairs = []
        for c, (j, m) in enumerate(zip(indices, masked_row)):
            if m:
                t = scene.number("masked_score", (slot, f, j), decimals=score_dec,
                                 signed=True, font_size=style.FONT_LABEL, color=pal.mask)
                t.move_to(scaled[c])
                infs.add(t)
                pairs.append((scaled[c], t))
        fit_width(infs, 0.8 * spacing)
        n_masked = int(masked_row.sum())
        scene.play(*[FadeTransform(a, b) for a, b in pairs], run_time=0.9,
                   rate_func=style.EASE,
                   subcaption=f"The mask sets {n_masked} of them to \u2212\u221e: "
                              "no weight for those keys",
                   subcaption_duration=1.3)
        for a, b in pairs:
            scaled.submobjects[scaled.submobjects.index(a)] = b
        scene.wait(0.5)

    # ---- 3. through the softmax arrow, back as bars -------------------------------------------
    weights = np.array([lookup(trace, "weights", (slot, f, j)) for j in indices])
    mid = float(xs.mean())
    arrow = Arrow([mid, TOP_Y - 0.7, 0], [mid, TOP_Y - 1.65, 0], buff=0,
                  color=pal.soft, stroke_width=4)
    arrow_label = scene.label("softmax", style.FONT_BODY, pal.text).next_to(arrow, RIGHT, buff=0.2)
    # the grid has given its row: it leaves so the bars have the width
    scene.play(FadeOut(divisor), FadeOut(VGroup(grid, numbers, box)), Create(arrow),
               FadeIn(arrow_label), run_time=0.7, rate_func=style.EASE)
    words, turned = word_row([token_word(trace, j) for j in indices],
                             [trace.special[j] for j in indices], xs, pitch=spacing,
                             font_size=style.FONT_SMALL, bottom=-3.85)
    baseline_y = words.get_top()[1] + 0.12
    w_labels = VGroup(*[scene.number("weights", (slot, f, j), decimals=style.WEIGHT_DECIMALS,
                                     font_size=style.FONT_NUMBER) for j in indices])
    fit_width(w_labels, 0.92 * spacing)
    scale = max(weights.max(), 1e-6)
    colors = [interpolate_color(ManimColor(pal.faint), ManimColor("#FFFFFF"),
                                float(w / scale) ** 0.7).to_hex() for w in weights]
    bar_h = min(2.8, (TOP_Y - 1.95) - baseline_y - 0.35)
    bars = SoftmaxBars(weights, [m.copy() for m in words], unit_height=bar_h / scale,
                       bar_width=min(0.5, spacing * 0.5), spacing=spacing, colors=colors,
                       value_labels=list(w_labels))
    bars.remove(bars.labels)
    bars.shift([mid - bars.baseline.get_center()[0], baseline_y - bars.baseline.get_y(), 0])
    SoftmaxBars.place_value_labels(bars.value_labels, bars.bars, weights)
    order = np.argsort(-weights, kind="stable")
    top = int(order[0])
    second = int(order[1]) if n > 1 else top
    w_top = scene.record_number("weights", (slot, f, indices[top]), style.WEIGHT_DECIMALS)
    w_second = scene.record_number("weights", (slot, f, indices[second]), style.WEIGHT_DECIMALS)
    scene.play(FadeIn(bars.baseline), FadeIn(words), run_time=0.4)
    scene.play(LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars.bars],
                           lag_ratio=style.LAG_FEW if n <= 9 else 0.05),
               LaggedStart(*[TransformFromCopy(s, w) for s, w in zip(scaled, bars.value_labels)],
                           lag_ratio=style.LAG_FEW if n <= 9 else 0.05),
               run_time=1.6, rate_func=style.EASE,
               subcaption=f"Softmax makes them weights: "
                          f"{token_word(trace, indices[top])} {w_top}, "
                          f"{token_word(trace, indices[second])} {w_second}",
               subcaption_duration=2.3)
    scene.wait(0.8)

    # ---- 4. stacked, they make exactly one ----------------------------------------------------
    total = scene.number("weight_sum", (slot, f), decimals=style.WEIGHT_DECIMALS,
                         font_size=style.FONT_LABEL)
    stack_x = min(bars.bars.get_right()[0] + 1.0, 6.2)
    stack_h = min(3.0, TOP_Y - 1.0 - baseline_y - 0.6)
    stack = bars.stacked(weights, stack_x, baseline_y, stack_h)
    one_tick = Line([stack_x - 0.4, baseline_y + stack_h, 0],
                    [stack_x + 0.4, baseline_y + stack_h, 0]).set_stroke(pal.highlight, 2)
    sum_label = VGroup(scene.label("sum =", style.FONT_LABEL, pal.soft), total).arrange(RIGHT, buff=0.12)
    sum_label.next_to(one_tick, UP, buff=0.12)
    if sum_label.get_right()[0] > 6.9:
        sum_label.shift(LEFT * (sum_label.get_right()[0] - 6.9))
    scene.play(LaggedStart(*[TransformFromCopy(b, s) for b, s in zip(bars.bars, stack)],
                           lag_ratio=style.LAG_FEW if n <= 9 else 0.05),
               run_time=1.4, rate_func=style.EASE,
               subcaption=f"Stacked, the weights make exactly one: sum = {total.text}",
               subcaption_duration=2.8)
    scene.play(Create(one_tick), FadeIn(sum_label, shift=DOWN * 0.1), run_time=0.5,
               rate_func=style.EASE)
    scene.mark_key_frame()
    scene.wait(style.T_PAUSE)
    hold_captions(scene, first_caption)
    scene.clear_stage()


class SoftmaxBeat(BeatScene):
    beat_name = "softmax"
    beat_title = "Softmax: scores become weights"

    def build(self):
        build_softmax(self)
