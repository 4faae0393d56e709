"""Beat 7, heads: several heads side by side, each its own colour and its own pattern;
their outputs for the focus word are concatenated (in the model's head order) and mixed
by W_O.

Works for 1 to 16 traced heads (``--heads all`` gives 12 on MiniLM): the small grids take
the whole frame first, in the arrangement that gives the largest cells; only the left
column names the queries and only the top row names the keys. When the concatenation
needs the room below them, they shrink.
"""
from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, GrowFromCenter,
                   LaggedStart, MathTypst, MoveToTarget, Rectangle, TransformFromCopy,
                   VGroup)

from .. import style
from ..film import Beat
from ..grid import LABEL_BUFF, AttentionGrid, label_plan, tidy_grid
from ..headers import heading, layer_tag
from ..text import baseline_text, fit_width, glyphs_of, label_text, line_box_height
from ..tokens import focus_window
from ..vectors import VectorColumn

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
    title_h = line_box_height(font_size + 4) + 0.1
    best = None
    for cols in range(1, n_heads + 1):
        rows = math.ceil(n_heads / cols)
        if cols * rows - n_heads >= cols:        # a whole empty row
            continue
        cell = 0.9
        for _ in range(10):
            scale, turned = label_plan(tokens, special, cell, font_size)
            col_h = (longest if turned else line_box_height(font_size)) * scale + LABEL_BUFF
            row_w = longest * min(1.0, 0.8 * cell / line_box_height(font_size)) + LABEL_BUFF
            new = min((AREA_RIGHT - AREA_LEFT - row_w - (cols - 1) * GAP) / (cols * n),
                      (AREA_TOP - AREA_BOTTOM - col_h - rows * title_h - (rows - 1) * GAP)
                      / (rows * n), 0.9)
            if abs(new - cell) < 1e-4:
                break
            cell = new
        if best is None or cell > best[2] + 1e-3:
            best = (cols, rows, cell, row_w, col_h, title_h)
    return best


class HeadsBeat(Beat):
    name = "heads"
    hold = 1.3

    def script(self):
        self.choose_window()
        self.lay_out_grids()
        self.show_the_patterns()
        self.lay_out_the_output()
        self.make_room_below()
        self.concatenate()
        self.mix_by_w_o()

    # ---- the small grids, as large as the frame allows -----------------------------------------
    def choose_window(self):
        """Many heads of a long sentence: a narrower window around the focus word keeps the
        cells (and their labels) legible."""
        trace = self.trace
        T, focus = trace.num_tokens, trace.focus_index
        size = len(range(*focus_window(T, focus)))
        while True:
            start, stop = focus_window(T, focus, size)
            window = list(range(start, stop))
            tokens = [trace.display_tokens[i] for i in window]
            special = [trace.special[i] for i in window]
            layout = grid_layout(len(trace.heads), tokens, special, style.FONT_SMALL)
            if layout[2] >= MIN_CELL or size <= MIN_WINDOW:
                break
            size -= 1
        self.narrowed = size < len(range(*focus_window(T, focus)))
        self.start, self.stop, self.window = start, stop, window
        self.tokens, self.special, self.layout = tokens, special, layout

    def lay_out_grids(self):
        trace, pal = self.trace, style.PALETTE
        H = len(trace.heads)
        cols, rows, cell, row_w, col_h, title_h = self.layout
        tokens, special, window = self.tokens, self.special, self.window
        n = len(window)
        self.focus_row = window.index(trace.focus_index)
        masked = np.asarray(trace.mask, dtype=bool)[np.ix_(window, window)]
        self.heading = heading("Several heads, each with its own pattern")
        self.layer_tag = layer_tag(self.book)
        block = n * cell
        block_w = row_w + cols * block + (cols - 1) * GAP
        x0 = (AREA_LEFT + AREA_RIGHT) / 2 - block_w / 2 + row_w
        block_h = col_h + rows * (title_h + block) + (rows - 1) * GAP
        y0 = AREA_TOP - max(0.0, (AREA_TOP - AREA_BOTTOM - block_h) / 2)   # centred at first
        title_font = max(style.MIN_FONT, min(style.FONT_LABEL, style.FONT_SMALL + 4))
        self.grids, self.titles, self.dots = VGroup(), VGroup(), VGroup()
        self.boxes, self.reds = VGroup(), VGroup()
        for slot in range(H):
            c, r = slot % cols, slot // cols
            color = pal.head(trace.heads[slot])
            grid = AttentionGrid(tokens, row_special=special, col_special=special,
                                 cell_size=cell, font_size=style.FONT_SMALL, row_title=None,
                                 col_title=None)
            tidy_grid(grid, tokens, tokens, row_special=special, col_special=special,
                      font_size=style.FONT_SMALL)
            top = y0 - title_h - col_h - r * (block + GAP + title_h)
            grid.shift(np.array([x0 + c * (block + GAP), top, 0]) - grid.lines.get_corner(UP + LEFT))
            if r > 0:
                grid.remove(grid.col_labels)
            if c > 0:
                grid.remove(grid.row_labels)
            title = label_text(f"head {self.record('head', (slot,), 0)}", title_font, color)
            above = grid.col_labels if r == 0 else grid.lines
            title.next_to(above, UP, buff=0.08).set_x(grid.lines.get_x())
            w = trace.weights[slot][np.ix_(window, window)]
            self.dots.add(grid.weight_dots(w, color=color))
            box = grid.focus_box(self.focus_row, include_label=(c == 0))
            if cell < 0.35:     # small cells: a slimmer box that leaves the neighbours readable
                box.stretch_to_fit_height(cell * 1.08).set_stroke(width=2)
            self.boxes.add(box)
            if masked.any():
                self.reds.add(grid.mask_cells(masked, opacity=0.28))
            self.grids.add(grid)
            self.titles.add(title)

    def favourite(self, slot: int) -> int | None:
        """What a head looks at most from the focus word (other tokens, not special)."""
        trace = self.trace
        row = trace.weights[slot, trace.focus_index]
        options = [j for j in np.argsort(-row, kind="stable")
                   if j != trace.focus_index and not trace.special[j]]
        return int(options[0]) if options else None

    def show_the_patterns(self):
        trace, pal = self.trace, style.PALETTE
        notes = []
        for slot in range(min(len(trace.heads), 2)):
            j = self.favourite(slot)
            if j is not None:
                notes.append(f"head {trace.heads[slot]} "
                             + ("looks most at " if not notes else "at ")
                             + f"{trace.display_tokens[j]} "
                             f"({self.record('weights', (slot, trace.focus_index, j), 2)})")
        window_note = None
        if self.narrowed or self.start > 0 or self.stop < trace.num_tokens:
            # say that only part of the sentence is drawn
            window_note = VGroup(*baseline_row_parts(["only the words around", trace.focus_word],
                                                     [pal.dim, pal.query], style.FONT_SMALL))
            window_note.next_to(self.layer_tag, LEFT, buff=0.5).align_to(self.layer_tag, DOWN)
        self.add(self.reds, self.grids)
        self.play(FadeIn(self.heading, shift=DOWN * 0.2), FadeIn(self.layer_tag),
                  FadeIn(self.titles),
                  *([FadeIn(window_note)] if window_note is not None else []),
                  run_time=style.T_SHORT, rate_func=style.EASE,
                  subcaption="Each head has its own pattern" + (
                      f": from {trace.focus_word}, " + ", ".join(notes) if notes else ""),
                  subcaption_duration=2.7)
        self.play(LaggedStart(*[LaggedStart(*[GrowFromCenter(d) for d in head_dots],
                                            lag_ratio=style.LAG_MANY)
                                for head_dots in self.dots], lag_ratio=style.LAG_FEW),
                  run_time=style.T_MOVE, rate_func=style.EASE)
        self.wait(0.6)
        self.play(*[Create(b) for b in self.boxes], run_time=style.T_QUICK, rate_func=style.EASE)
        self.wait(0.7)

    # ---- the output column (built first: the room it needs below the grids) -------------------
    def lay_out_the_output(self):
        trace, pal = self.trace, style.PALETTE
        D = int(trace.output.shape[-1])
        self.out = VectorColumn.from_trace(self.book, "output", (trace.focus_index,), D,
                                           head=4, tail=1, bracket_color=pal.output)
        self.out_title = VGroup(*baseline_row_parts(["output for", trace.focus_word],
                                                    [pal.output, pal.output], style.FONT_SMALL))
        self.out_size = label_text(f"{self.record('d_model', (), 0)} numbers",
                                   style.FONT_SMALL, pal.dim)
        self.out_block = VGroup(self.out_title, self.out, self.out_size)
        self.out_title.next_to(self.out, UP, buff=0.18)
        self.out_size.next_to(self.out, DOWN, buff=0.15)

    def make_room_below(self):
        everything = VGroup(self.reds, self.grids, self.titles, self.dots, self.boxes)
        floor = AREA_BOTTOM + self.out_block.height + 0.25
        if everything.get_bottom()[1] < floor - 1e-3:
            # one group on stage (GrowFromCenter and Create added the dots and boxes one by
            # one): moving a group that is not on stage would draw its members twice
            self.remove(*everything.get_family())
            self.add(everything)
            k = min(1.0, (AREA_TOP - floor) / everything.height)
            everything.generate_target()
            everything.target.scale(k, about_point=np.array(
                [everything.get_x(), everything.get_top()[1], 0]))
            if everything.target.get_bottom()[1] < floor:
                everything.target.shift(UP * (floor - everything.target.get_bottom()[1]))
            self.play(MoveToTarget(everything), run_time=style.T_SHORT, rate_func=style.EASE)
        self.shelf_top = everything.get_bottom()[1] - 0.15

    # ---- concatenate the heads' outputs for the focus word, in the model's order ---------------
    def concat_bar(self) -> VGroup:
        pal = style.PALETTE
        total_heads = int(self.record("num_heads_total", (), 0))
        self.seg_w = seg_w = min(0.62, 6.6 / total_heads)
        segments = VGroup()
        for model_head in range(total_heads):
            seg = Rectangle(width=seg_w, height=0.46).set_stroke(style.BACKGROUND, width=1.5)
            if model_head in self.drawn_at:
                seg.set_fill(pal.head(model_head), opacity=0.9)
            else:
                seg.set_fill(pal.faint, opacity=1.0)
            segments.add(seg)
        segments.arrange(RIGHT, buff=0)
        return segments

    def concatenate(self):
        trace, pal = self.trace, style.PALETTE
        H = len(trace.heads)
        self.drawn_at = {int(h): slot for slot, h in enumerate(trace.heads)}
        self.segments = segments = self.concat_bar()
        total_heads, out = len(segments), self.out
        middle = (self.shelf_top + AREA_BOTTOM) / 2
        self.out_block.move_to([OUT_X, middle, 0])
        if self.out_block.get_top()[1] > self.shelf_top:
            self.out_block.shift(DOWN * (self.out_block.get_top()[1] - self.shelf_top))
        arrow_len = 1.5
        bar_right = out.get_left()[0] - 0.3 - arrow_len - 0.2
        segments.move_to([bar_right - segments.width / 2, out.get_y(), 0])
        if segments.get_left()[0] < AREA_LEFT + 1.2:
            segments.shift(RIGHT * (AREA_LEFT + 1.2 - segments.get_left()[0]))
        concat_title = label_text("concat", style.FONT_SMALL, pal.soft)
        concat_title.next_to(segments, LEFT, buff=0.25)
        head_marks = VGroup()
        for model_head, slot in sorted(self.drawn_at.items()):
            mark = label_text(self.record("head", (slot,), 0), style.FONT_SMALL,
                              pal.head(model_head))
            fit_width([mark], 0.95 * self.seg_w)
            mark.next_to(segments[model_head], DOWN, buff=0.1)
            head_marks.add(mark)
        rest_note = None
        if total_heads > H:
            rest_note = label_text(
                f"all {total_heads} heads in order; grey: the "
                f"{self.record('heads_not_drawn', (), 0)} not drawn", style.FONT_SMALL, pal.dim)
            rest_note.next_to(head_marks if len(head_marks) else segments, DOWN, buff=0.12)
            rest_note.align_to(segments, LEFT)
        sources = VGroup(*[self.grids[slot].row_rect(self.focus_row).copy()
                           .set_stroke(width=0).set_fill(pal.head(trace.heads[slot]), opacity=0.6)
                           for slot in range(H)])
        drawn_segments = [segments[int(h)] for h in trace.heads]
        self.play(FadeIn(VGroup(*[s for h, s in enumerate(segments) if h not in self.drawn_at])),
                  LaggedStart(*[TransformFromCopy(s, seg)
                                for s, seg in zip(sources, drawn_segments)],
                              lag_ratio=style.LAG_FEW),
                  FadeIn(concat_title), FadeIn(head_marks),
                  *([FadeIn(rest_note)] if rest_note is not None else []),
                  run_time=style.T_MOVE, rate_func=style.EASE,
                  subcaption=f"Their outputs for {trace.focus_word} stack up, head by head",
                  subcaption_duration=2.1)
        self.wait(style.T_SHORT)

    # ---- mixed by W_O --------------------------------------------------------------------------
    def mix_by_w_o(self):
        trace, pal, out = self.trace, style.PALETTE, self.out
        mix = Arrow(self.segments.get_right() + RIGHT * 0.2, out.get_left() + LEFT * 0.3, buff=0,
                    color=pal.output, stroke_width=4, max_tip_length_to_length_ratio=0.15)
        w_o = MathTypst("W_O", color=pal.output, font_size=style.FONT_LABEL * 1.3)
        w_o.next_to(mix, UP, buff=0.1)
        self.play(Create(mix), FadeIn(w_o, shift=DOWN * 0.1), run_time=0.6, rate_func=style.EASE,
                  subcaption=f"W_O mixes them into one output: the layer's answer for "
                             f"{trace.focus_word}", subcaption_duration=3.0)
        # a ghost of the concatenation runs along the arrow and becomes the output column
        ghost = self.segments.copy()
        ghost.generate_target()
        ghost.target.stretch_to_fit_width(out.brackets.width * 0.5)
        ghost.target.stretch_to_fit_height(out.rows.height).move_to(out.rows).set_opacity(0)
        self.play(MoveToTarget(ghost), FadeIn(out.brackets, scale=0.8),
                  LaggedStart(*[FadeIn(m, shift=RIGHT * 0.3) for m in out.rows],
                              lag_ratio=style.LAG_FEW),
                  FadeIn(self.out_title), FadeIn(self.out_size), run_time=1.2,
                  rate_func=style.EASE)
        self.remove(ghost)
