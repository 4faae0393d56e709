"""Beat 7, heads: several heads side by side, each its own colour and its own pattern;
their outputs for the focus word are concatenated (in the model's head order) and mixed
by W_O.

Works for 1 to 16 traced heads (``--heads all`` gives 12 on MiniLM): the small grids take
the whole frame first, in the arrangement that gives the largest cells; only the left
column names the queries and only the top row names the keys. When the concatenation
needs the room below them, they shrink. Helpers are module functions (``build`` also runs
on the Explainer scene).
"""
from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, GrowFromCenter,
                   LaggedStart, MathTypst, MoveToTarget, Rectangle, TransformFromCopy,
                   VGroup)

from scenes import style
from scenes.base import BeatScene
from scenes.beats.tidy import (LABEL_BUFF, MIN_FONT, caption_mark, fit_width, glyphs_of,
                               hold_captions, label_plan, line_h, tidy_grid)
from scenes.components import (AttentionGrid, VectorColumn, baseline_text, focus_window,
                               label_text)

AREA_LEFT, AREA_RIGHT = -6.85, 6.85
AREA_TOP, AREA_BOTTOM = 2.95, -3.8
GAP = 0.32                # between neighbouring grids
MIN_CELL = 0.27           # below this the grids show a narrower window of the sentence
MIN_WINDOW = 8
OUT_X = 5.35              # the output column's centre


def baseline_row_parts(texts, colors, font_size: float) -> list:
    """Words (ours and the user's, each in its own font) side by side on one baseline."""
    parts, x = [], 0.0
    for t, col in zip(texts, colors):
        g, _, _ = baseline_text(t, font_size, col)
        g.shift(RIGHT * (x - g.get_left()[0]))       # keep y: the baselines agree
        x = g.get_right()[0] + 0.12
        parts.append(g)
    return parts


def grid_layout(n_heads: int, tokens, special, font_size: float
                ) -> tuple[int, int, float, float, float, float]:
    """(columns, rows, cell, row-label width, column-label height, title height) of the
    arrangement of ``n_heads`` square grids that gives the largest cells in the frame."""
    n = len(tokens)
    widths = [glyphs_of(t, font_size, s).width for t, s in zip(tokens, special)]
    longest = max(widths)
    title_h = line_h(font_size + 4) + 0.1
    best = None
    for cols in range(1, n_heads + 1):
        rows = math.ceil(n_heads / cols)
        if cols * rows - n_heads >= cols:        # a whole empty row
            continue
        cell = 0.9
        for _ in range(10):
            scale, turned = label_plan(tokens, special, cell, font_size)
            col_h = (longest if turned else line_h(font_size)) * scale + LABEL_BUFF
            row_w = longest * min(1.0, 0.8 * cell / line_h(font_size)) + LABEL_BUFF
            new = min((AREA_RIGHT - AREA_LEFT - row_w - (cols - 1) * GAP) / (cols * n),
                      (AREA_TOP - AREA_BOTTOM - col_h - rows * title_h - (rows - 1) * GAP)
                      / (rows * n), 0.9)
            if abs(new - cell) < 1e-4:
                break
            cell = new
        if best is None or cell > best[2] + 1e-3:
            best = (cols, rows, cell, row_w, col_h, title_h)
    return best


def build_heads(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    H, T = len(trace.heads), trace.num_tokens
    focus = trace.focus_index
    # ---- the small grids, as large as the frame allows -----------------------------------
    # many heads of a long sentence: a narrower window around the focus word keeps the
    # cells (and their labels) legible
    font = style.FONT_SMALL
    size = len(range(*focus_window(T, focus)))
    while True:
        start, stop = focus_window(T, focus, size)
        window = list(range(start, stop))
        tokens = [trace.display_tokens[i] for i in window]
        special = [trace.special[i] for i in window]
        cols, rows, cell, row_w, col_h, title_h = grid_layout(H, tokens, special, font)
        if cell >= MIN_CELL or size <= MIN_WINDOW:
            break
        size -= 1
    narrowed = size < len(range(*focus_window(T, focus)))
    n = len(window)
    focus_row = window.index(focus)
    masked = np.asarray(trace.mask, dtype=bool)[np.ix_(window, window)]

    heading = label_text("Several heads, each with its own pattern", style.FONT_BODY)
    heading.to_corner(UP + LEFT, buff=0.4)
    layer_tag = label_text(f"layer {scene.record_number('layer', (), 0)}", style.FONT_LABEL,
                           pal.soft).to_corner(UP + RIGHT, buff=0.45)

    block = n * cell
    block_w = row_w + cols * block + (cols - 1) * GAP
    x0 = (AREA_LEFT + AREA_RIGHT) / 2 - block_w / 2 + row_w
    block_h = col_h + rows * (title_h + block) + (rows - 1) * GAP
    y0 = AREA_TOP - max(0.0, (AREA_TOP - AREA_BOTTOM - block_h) / 2)   # centred at first
    title_font = max(MIN_FONT, min(style.FONT_LABEL, font + 4))
    grids, titles, dots, boxes, reds = VGroup(), VGroup(), VGroup(), VGroup(), VGroup()
    for slot in range(H):
        c, r = slot % cols, slot // cols
        color = pal.head(trace.heads[slot])
        grid = AttentionGrid(tokens, row_special=special, col_special=special,
                             cell_size=cell, font_size=font, row_title=None, col_title=None)
        tidy_grid(grid, tokens, tokens, row_special=special, col_special=special,
                  font_size=font)
        top = y0 - title_h - col_h - r * (block + GAP + title_h)
        grid.shift(np.array([x0 + c * (block + GAP), top, 0]) - grid.lines.get_corner(UP + LEFT))
        if r > 0:
            grid.remove(grid.col_labels)
        if c > 0:
            grid.remove(grid.row_labels)
        title = label_text(f"head {scene.record_number('head', (slot,), 0)}", title_font, color)
        above = grid.col_labels if r == 0 else grid.lines
        title.next_to(above, UP, buff=0.08).set_x(grid.lines.get_x())
        w = trace.weights[slot][np.ix_(window, window)]
        dots.add(grid.weight_dots(w, color=color))
        box = grid.focus_box(focus_row, include_label=(c == 0))
        if cell < 0.35:     # small cells: a slimmer box that leaves the neighbours readable
            box.stretch_to_fit_height(cell * 1.08).set_stroke(width=2)
        boxes.add(box)
        if masked.any():
            reds.add(grid.mask_cells(masked, opacity=0.28))
        grids.add(grid)
        titles.add(title)

    # what each head looks at most from the focus word (other tokens, not special)
    def favourite(slot: int) -> int | None:
        row = trace.weights[slot, focus]
        options = [j for j in np.argsort(-row, kind="stable")
                   if j != focus and not trace.special[j]]
        return int(options[0]) if options else None

    notes = []
    for slot in range(min(H, 2)):
        j = favourite(slot)
        if j is not None:
            notes.append(f"head {trace.heads[slot]} "
                         + ("looks most at " if not notes else "at ")
                         + f"{trace.display_tokens[j]} "
                         f"({scene.record_number('weights', (slot, focus, j), 2)})")
    first_caption = caption_mark(scene)
    window_note = None
    if narrowed or start > 0 or stop < T:     # say that only part of the sentence is drawn
        window_note = VGroup(*baseline_row_parts(["only the words around", trace.focus_word],
                                                 [pal.dim, pal.query], style.FONT_SMALL))
        window_note.next_to(layer_tag, LEFT, buff=0.5).align_to(layer_tag, DOWN)
    scene.add(reds, grids)
    scene.play(FadeIn(heading, shift=DOWN * 0.2), FadeIn(layer_tag), FadeIn(titles),
               *([FadeIn(window_note)] if window_note is not None else []),
               run_time=0.7, rate_func=style.EASE,
               subcaption="Each head has its own pattern" + (
                   f": from {trace.focus_word}, " + ", ".join(notes) if notes else ""),
               subcaption_duration=2.7)
    scene.play(LaggedStart(*[LaggedStart(*[GrowFromCenter(d) for d in head_dots],
                                         lag_ratio=style.LAG_MANY)
                             for head_dots in dots], lag_ratio=style.LAG_FEW),
               run_time=1.5, rate_func=style.EASE)
    scene.wait(0.6)
    scene.play(*[Create(b) for b in boxes], run_time=0.5, rate_func=style.EASE)
    scene.wait(0.7)

    # the output column (built first: the room it needs below the grids)
    D = int(trace.output.shape[-1])
    out = VectorColumn.from_trace(scene, "output", (focus,), D, head=4, tail=1,
                                  bracket_color=pal.output)
    out_title = VGroup(*baseline_row_parts(["output for", trace.focus_word],
                                           [pal.output, pal.output], style.FONT_SMALL))
    out_size = label_text(f"{scene.record_number('d_model', (), 0)} numbers",
                          style.FONT_SMALL, pal.dim)
    out_block = VGroup(out_title, out, out_size)
    out_title.next_to(out, UP, buff=0.18)
    out_size.next_to(out, DOWN, buff=0.15)
    # ---- make room below for the concatenation ------------------------------------------------
    everything = VGroup(reds, grids, titles, dots, boxes)
    floor = AREA_BOTTOM + out_block.height + 0.25
    if everything.get_bottom()[1] < floor - 1e-3:
        # one group on stage (GrowFromCenter and Create added the dots and boxes one by
        # one): moving a group that is not on stage would draw its members twice
        scene.remove(*everything.get_family())
        scene.add(everything)
        k = min(1.0, (AREA_TOP - floor) / everything.height)
        everything.generate_target()
        everything.target.scale(k, about_point=np.array(
            [everything.get_x(), everything.get_top()[1], 0]))
        if everything.target.get_bottom()[1] < floor:
            everything.target.shift(UP * (floor - everything.target.get_bottom()[1]))
        scene.play(MoveToTarget(everything), run_time=0.8, rate_func=style.EASE)
    shelf_top = everything.get_bottom()[1] - 0.15

    # ---- concatenate the heads' outputs for the focus word, in the model's order ---------------
    total_heads = int(scene.record_number("num_heads_total", (), 0))
    missing = total_heads - H
    seg_w = min(0.62, 6.6 / total_heads)
    seg_h = 0.46
    drawn_at = {int(h): slot for slot, h in enumerate(trace.heads)}
    segments = VGroup()
    for model_head in range(total_heads):
        seg = Rectangle(width=seg_w, height=seg_h).set_stroke(style.BACKGROUND, width=1.5)
        if model_head in drawn_at:
            seg.set_fill(pal.head(model_head), opacity=0.9)
        else:
            seg.set_fill(pal.faint, opacity=1.0)
        segments.add(seg)
    segments.arrange(RIGHT, buff=0)
    middle = (shelf_top + AREA_BOTTOM) / 2
    out_block.move_to([OUT_X, middle, 0])
    if out_block.get_top()[1] > shelf_top:
        out_block.shift(DOWN * (out_block.get_top()[1] - shelf_top))
    arrow_len = 1.5
    bar_right = out.get_left()[0] - 0.3 - arrow_len - 0.2
    segments.move_to([bar_right - segments.width / 2, out.get_y(), 0])
    if segments.get_left()[0] < AREA_LEFT + 1.2:
        segments.shift(RIGHT * (AREA_LEFT + 1.2 - segments.get_left()[0]))
    concat_title = label_text("concat", style.FONT_SMALL, pal.soft)
    concat_title.next_to(segments, LEFT, buff=0.25)
    head_marks = VGroup()
    for model_head, slot in sorted(drawn_at.items()):
        mark = label_text(scene.record_number("head", (slot,), 0), style.FONT_SMALL,
                          pal.head(model_head))
        fit_width([mark], 0.95 * seg_w)
        mark.next_to(segments[model_head], DOWN, buff=0.1)
        head_marks.add(mark)
    rest_note = None
    if missing > 0:
        rest_note = label_text(
            f"all {total_heads} heads in order; grey: the "
            f"{scene.record_number('heads_not_drawn', (), 0)} not drawn",
            style.FONT_SMALL, pal.dim)
        rest_note.next_to(head_marks if len(head_marks) else segments, DOWN, buff=0.12)
        rest_note.align_to(segments, LEFT)
    sources = VGroup(*[grids[slot].row_rect(focus_row).copy()
                       .set_stroke(width=0).set_fill(pal.head(trace.heads[slot]), opacity=0.6)
                       for slot in range(H)])
    drawn_segments = [segments[int(h)] for h in trace.heads]
    scene.play(FadeIn(VGroup(*[s for h, s in enumerate(segments) if h not in drawn_at])),
               LaggedStart(*[TransformFromCopy(s, seg)
                             for s, seg in zip(sources, drawn_segments)],
                           lag_ratio=style.LAG_FEW),
               FadeIn(concat_title), FadeIn(head_marks),
               *([FadeIn(rest_note)] if rest_note is not None else []),
               run_time=1.4, rate_func=style.EASE,
               subcaption=f"Their outputs for {trace.focus_word} stack up, head by head",
               subcaption_duration=2.1)
    scene.wait(0.8)

    # ---- mixed by W_O ----------------------------------------------------------------------
    mix = Arrow(segments.get_right() + RIGHT * 0.2, out.get_left() + LEFT * 0.3, buff=0,
                color=pal.output, stroke_width=4, max_tip_length_to_length_ratio=0.15)
    w_o = MathTypst("W_O", color=pal.output, font_size=style.FONT_LABEL * 1.3)
    w_o.next_to(mix, UP, buff=0.1)
    scene.play(Create(mix), FadeIn(w_o, shift=DOWN * 0.1), run_time=0.6, rate_func=style.EASE,
               subcaption=f"W_O mixes them into one output: the layer's answer for "
                          f"{trace.focus_word}", subcaption_duration=3.0)
    # a ghost of the concatenation runs along the arrow and becomes the output column
    ghost = segments.copy()
    ghost.generate_target()
    ghost.target.stretch_to_fit_width(out.brackets.width * 0.5)
    ghost.target.stretch_to_fit_height(out.rows.height).move_to(out.rows).set_opacity(0)
    scene.play(MoveToTarget(ghost),
               FadeIn(out.brackets, scale=0.8),
               LaggedStart(*[FadeIn(m, shift=RIGHT * 0.3) for m in out.rows],
                           lag_ratio=style.LAG_FEW),
               FadeIn(out_title), FadeIn(out_size), run_time=1.2, rate_func=style.EASE)
    scene.remove(ghost)
    scene.mark_key_frame()
    scene.wait(1.3)
    hold_captions(scene, first_caption)
    scene.clear_stage()


class HeadsBeat(BeatScene):
    beat_name = "heads"
    beat_title = "Many heads, mixed by W_O"

    def build(self):
        build_heads(self)
