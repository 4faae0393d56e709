"""Beat 7, heads: several heads side by side, each its own colour and its own pattern;
their outputs for the focus word are concatenated and mixed by W_O.

Works for 1 to 12 traced heads (``--heads all`` gives 12): the small grids are laid out
in up to 4 columns, and with many heads only the outer grids keep their token labels.
Helpers are module functions (``build`` also runs on the Explainer scene).
"""
from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, GrowFromCenter, LaggedStart,
                   MathTypst, Rectangle, TransformFromCopy, VGroup)

from scenes import style
from scenes.base import BeatScene
from scenes.components import (AttentionGrid, VectorColumn, baseline_text, focus_window,
                               label_text)

GRIDS_LEFT, GRIDS_RIGHT = -6.85, 1.35
GRIDS_TOP, GRIDS_BOTTOM = 2.75, -3.7


def grid_layout(n: int) -> tuple[int, int]:
    """(columns, rows) of the small grids for n heads."""
    if n <= 1:
        return 1, 1
    if n <= 4:
        return 2, math.ceil(n / 2)
    if n <= 9:
        return 3, math.ceil(n / 3)
    return 4, math.ceil(n / 4)


def fit_labels_to_cells(grid: AttentionGrid) -> None:
    """Shrink row labels taller than 0.8 of a cell and column labels wider than 0.9 of one,
    so neighbouring labels never touch (CJK glyphs fill their whole em box)."""
    cell = grid.cell
    for lab in grid.row_labels:
        if lab.height > 0.8 * cell:
            lab.scale(0.8 * cell / lab.height, about_point=lab.get_right())
    for c, lab in enumerate(grid.col_labels):
        if lab.width > 0.9 * cell:
            lab.scale(0.9 * cell / lab.width, about_point=lab.get_bottom())


def build_heads(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    H, T = len(trace.heads), trace.num_tokens
    focus = trace.focus_index
    start, stop = focus_window(T, focus)
    window = list(range(start, stop))
    tokens = [trace.display_tokens[i] for i in window]
    special = [trace.special[i] for i in window]
    focus_row = window.index(focus)
    total_heads = int(trace.meta.get("num_heads_total", H))

    heading = label_text("Several heads, each with its own pattern", style.FONT_BODY)
    heading.to_corner(UP + LEFT, buff=0.4)
    layer_tag = label_text(f"layer {scene.record_number('layer', (), 0)}", style.FONT_LABEL,
                           pal.soft).to_corner(UP + RIGHT, buff=0.45)

    # ---- the small grids ----------------------------------------------------------------
    cols, rows = grid_layout(H)
    many = H > 4
    font = style.FONT_SMALL if not many else 13
    area_w, area_h = GRIDS_RIGHT - GRIDS_LEFT, GRIDS_TOP - GRIDS_BOTTOM
    title_h, gap = 0.34, 0.3
    if many:
        # one cell size for all; only the left column names the query tokens and only
        # the top row names the key tokens, so the grids themselves can be larger
        probe = VGroup(*[scene.user_text(t, font) for t in tokens])
        label_w = max(m.width for m in probe) + 0.2
        cell = min((area_w - label_w - (cols - 1) * gap) / (cols * len(window)),
                   (area_h - label_w - rows * title_h - (rows - 1) * gap) / (rows * len(window)))
    grids, titles, dots, boxes = VGroup(), VGroup(), VGroup(), VGroup()
    for slot in range(H):
        c, r = slot % cols, slot // cols
        color = pal.head(trace.heads[slot])
        if many:
            grid = AttentionGrid(tokens, row_special=special, col_special=special,
                                 cell_size=cell, font_size=font, row_title=None,
                                 col_title=None)
            if r > 0:
                grid.remove(grid.col_labels)
            if c > 0:
                grid.remove(grid.row_labels)
            block = len(window) * cell
            top_left = np.array([GRIDS_LEFT + label_w + c * (block + gap),
                                 GRIDS_TOP - label_w - title_h - r * (block + title_h + gap), 0])
            grid.shift(top_left - grid.lines[0].get_start())
        else:
            grid = AttentionGrid(tokens, row_special=special, col_special=special,
                                 max_width=area_w / cols - 0.25,
                                 max_height=area_h / rows - 0.6,
                                 font_size=font, row_title=None, col_title=None)
            grid.move_to([GRIDS_LEFT + (c + 0.5) * area_w / cols,
                          GRIDS_TOP - (r + 0.5) * area_h / rows - 0.1, 0])
        fit_labels_to_cells(grid)
        title = label_text(f"head {scene.record_number('head', (slot,), 0)}",
                           font + 4, color)
        above = grid.col_labels if grid.col_labels in grid.submobjects else grid.lines
        title.next_to(above, UP, buff=0.08)
        title.set_x(grid.lines.get_x())
        w = trace.weights[slot][np.ix_(window, window)]
        dots.add(grid.weight_dots(w, color=color))
        box = grid.focus_box(focus_row, include_label=grid.row_labels in grid.submobjects)
        if many:    # small cells: a slimmer box that leaves the neighbouring rows readable
            box.stretch_to_fit_height(grid.cell * 1.04).set_stroke(width=2)
        boxes.add(box)
        grids.add(grid)
        titles.add(title)

    # what each head looks at most from the focus word (other tokens, not special)
    def favourite(slot: int) -> int | None:
        row = trace.weights[slot, focus]
        options = [j for j in np.argsort(-row, kind="stable")
                   if j != focus and not trace.special[j]]
        return int(options[0]) if options else None

    notes = []
    for slot in range(min(H, 3)):
        j = favourite(slot)
        if j is not None:
            notes.append(f"head {trace.heads[slot]} looks most at {trace.display_tokens[j]} "
                         f"({scene.record_number('weights', (slot, focus, j), 2)})")
    scene.add_subcaption("Same sentence, different heads: " + "; ".join(notes) + ".",
                         duration=3.5)
    scene.add(grids)
    scene.play(FadeIn(heading, shift=DOWN * 0.2), FadeIn(layer_tag), FadeIn(titles),
               run_time=0.8, rate_func=style.EASE)
    scene.play(LaggedStart(*[LaggedStart(*[GrowFromCenter(d) for d in head_dots],
                                         lag_ratio=style.LAG_MANY)
                             for head_dots in dots], lag_ratio=style.LAG_FEW),
               run_time=1.6, rate_func=style.EASE)
    scene.wait(0.8)
    scene.play(*[Create(b) for b in boxes], run_time=0.6, rate_func=style.EASE)
    scene.wait(0.6)

    # ---- concatenate the heads' outputs for the focus word --------------------------------
    seg_h = min(0.42, 4.6 / (total_heads if total_heads > H else H))
    concat = VGroup()
    for slot in range(H):
        seg = Rectangle(width=0.42, height=seg_h)
        seg.set_stroke(style.BACKGROUND, width=1.5)
        seg.set_fill(pal.head(trace.heads[slot]), opacity=0.9)
        concat.add(seg)
    missing = total_heads - H
    rest = None
    if missing > 0:
        rest = Rectangle(width=0.42, height=seg_h * missing)
        rest.set_stroke(style.BACKGROUND, width=1.5).set_fill(pal.faint, opacity=1.0)
    column = VGroup(*concat, *([rest] if rest else [])).arrange(DOWN, buff=0)
    column.move_to([2.35, -0.35, 0])
    concat_title = label_text("concat", style.FONT_SMALL, pal.soft).next_to(column, UP, buff=0.2)
    rest_note = None
    if rest is not None:
        rest_note = label_text(f"{missing} heads\nnot drawn", style.FONT_SMALL - 4, pal.dim)
        rest_note.next_to(rest, LEFT, buff=0.12)
    sources = VGroup(*[grids[slot].row_rect(focus_row).copy()
                       .set_stroke(width=0).set_fill(pal.head(trace.heads[slot]), opacity=0.6)
                       for slot in range(H)])
    d_k = scene.record_number("d_k", (), 0)
    scene.add_subcaption(f"Each head hands back a {d_k}-number vector for "
                         f"{trace.focus_word}; they are stacked end to end.", duration=2.6)
    scene.play(LaggedStart(*[TransformFromCopy(s, seg) for s, seg in zip(sources, concat)],
                           lag_ratio=style.LAG_FEW),
               FadeIn(concat_title), *([FadeIn(rest), FadeIn(rest_note)] if rest else []),
               run_time=1.6, rate_func=style.EASE)
    scene.wait(0.6)

    # ---- mixed by W_O ----------------------------------------------------------------------
    D = int(trace.output.shape[-1])
    out = VectorColumn.from_trace(scene, "output", (focus,), D, head=4, tail=1,
                                  bracket_color=pal.output)
    out.move_to([5.6, -0.35, 0])
    # words and the user's word on one baseline (each in its own font)
    lead, _, _ = baseline_text("output for", style.FONT_SMALL, pal.output)
    word, _, _ = baseline_text(trace.focus_word, style.FONT_SMALL, pal.output)
    word.shift(RIGHT * (lead.get_right()[0] + 0.12 - word.get_left()[0]))   # keep y
    out_title = VGroup(lead, word).next_to(out, UP, buff=0.2)
    out_size = label_text(f"{scene.record_number('d_model', (), 0)} numbers",
                          style.FONT_SMALL, pal.dim).next_to(out, DOWN, buff=0.15)
    mix = Arrow(column.get_right() + RIGHT * 0.15, out.get_left() + LEFT * 0.15, buff=0,
                color=pal.output, stroke_width=4, max_tip_length_to_length_ratio=0.15)
    w_o = MathTypst("W_O", color=pal.output, font_size=style.FONT_LABEL * 1.3)
    w_o.next_to(mix, UP, buff=0.1)
    scene.add_subcaption("W_O mixes all the heads into one output vector, the layer's "
                         "answer for this word.", duration=3.0)
    scene.play(Create(mix), FadeIn(w_o, shift=DOWN * 0.1), run_time=0.7, rate_func=style.EASE)
    scene.play(TransformFromCopy(column, out.entries), FadeIn(out.brackets),
               FadeIn(out_title), FadeIn(out_size),
               *([FadeIn(out.dots)] if out.dots is not None else []),
               run_time=1.3, rate_func=style.EASE)
    scene.mark_key_frame()
    scene.wait(1.5)
    scene.clear_stage()


class HeadsBeat(BeatScene):
    beat_name = "heads"
    beat_title = "Many heads, mixed by W_O"

    def build(self):
        build_heads(self)
