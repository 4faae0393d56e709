"""Beat 8, mask: future positions are blanked to −∞ and the weights renormalise.

If the trace was computed with a mask (``--mask causal`` or ``window:K``) the beat shows
that mask and the model's own weights. Otherwise it *illustrates* a causal mask: the
weights are recomputed from the trace's scores as softmax over j ≤ i
(``attention_core.derived.causal_weights``), and the screen says so — on a bidirectional
model such as MiniLM that is not what the model does.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, Create, FadeIn, FadeTransform, LaggedStart, Line,
                   Transform, VGroup)

from ...attention_core.derived import causal_mask, causal_weights, unmasked_weights
from .. import style
from ..film import Beat
from ..grid import make_grid
from ..headers import head_layer_tag, heading
from ..readouts import magnitude_decimals
from ..text import label_text, user_text
from ..tokens import focus_window, word_row

GRID_CENTER = np.array([-3.5, -0.55, 0.0])
TABLE_LEFT = 0.9
MAX_TABLE_COLUMNS = 9


class MaskBeat(Beat):
    name = "mask"
    hold = 1.3

    def script(self):
        self.choose_the_mask()
        self.lay_out_the_grid()
        self.lay_out_the_table()
        self.show_the_weights()
        self.mask_the_future()
        self.renormalise()

    def choose_the_mask(self):
        trace = self.trace
        self.slot, self.focus, T = trace.primary_slot, trace.focus_index, trace.num_tokens
        self.own_mask = bool(trace.mask.any())
        rows = range(T)
        if self.own_mask:
            self.mask = trace.mask.copy()
            self.after = trace.weights[self.slot].astype(np.float64)
            # what the grid shows "before": the softmax of the unmasked scores
            self.before = np.array([unmasked_weights(trace, self.slot, i) for i in rows])
            self.score_kind, self.weight_kind = "masked_score", "weights"
        else:
            self.mask = causal_mask(trace)
            self.before = trace.weights[self.slot].astype(np.float64)
            self.after = np.array([causal_weights(trace, self.slot, i) for i in rows])
            self.score_kind, self.weight_kind = "causal_masked_score", "causal_weight"
        self.kind = trace.mask_kind if self.own_mask else "causal"

    def illustration_notice(self):
        """Said on screen when the mask is not what the model did."""
        bidirectional = (self.trace.meta.get("model") == "minilm"
                         or bool(self.trace.meta.get("bidirectional", False)))
        text = ("Illustration only: this model reads in both\ndirections and uses no "
                "causal mask. These weights\nare recomputed from its own scores as if it did."
                if bidirectional else
                "Illustration: this run used no mask. These\nweights are recomputed from "
                "its own scores\nwith a causal mask.")
        notice = label_text(text, style.FONT_SMALL, style.PALETTE.mask)
        if notice.width > 6.0:
            notice.scale_to_fit_width(6.0)
        return notice.move_to([TABLE_LEFT, -1.6, 0], aligned_edge=LEFT)

    # ---- the grid of the primary head ----------------------------------------------------------
    def lay_out_the_grid(self):
        trace = self.trace
        head_color = style.PALETTE.head(trace.primary_head)
        self.heading = heading("The causal mask: no looking ahead" if self.kind == "causal"
                               else f"The mask ({self.kind}): some keys are off limits")
        self.head_tag = head_layer_tag(self.book, self.slot)
        self.notice = None if self.own_mask else self.illustration_notice()
        start, stop = focus_window(trace.num_tokens, self.focus)
        self.window = window = list(range(start, stop))
        tokens = [trace.display_tokens[i] for i in window]
        special = [trace.special[i] for i in window]
        self.grid = make_grid(tokens, special, max_width=6.6, max_height=6.3,
                              font_size=style.FONT_LABEL)
        self.grid.move_to(GRID_CENTER)
        sub = np.ix_(window, window)
        self.dots_before = self.grid.weight_dots(self.before[sub], color=head_color)
        self.dots_after = self.grid.weight_dots(self.after[sub], color=head_color)
        for d, m in zip(self.dots_after, self.mask[sub].ravel()):
            if m:   # forbidden cells: the dot shrinks to nothing
                d.scale(1e-3)
        self.red = self.grid.mask_cells(self.mask[sub])
        self.box = self.grid.focus_box(window.index(self.focus))

    # ---- the focus row in numbers --------------------------------------------------------------
    def table_columns(self) -> list[int]:
        window, row = self.window, self.window.index(self.focus)
        if len(window) <= MAX_TABLE_COLUMNS:
            return list(window)
        return window[max(0, row - MAX_TABLE_COLUMNS // 2):][:MAX_TABLE_COLUMNS]

    def cell_number(self, kind, j, y, decimals, signed, color):
        t = self.number(kind, (self.slot, self.focus, j), decimals=decimals, signed=signed,
                        font_size=style.FONT_SMALL, color=color)
        return t.move_to([self.xs[self.cols.index(j)], y, 0])

    def lay_out_the_table(self):
        trace, pal, focus, mask = self.trace, style.PALETTE, self.focus, self.mask
        self.cols = cols = self.table_columns()
        pitch = min(0.72, (6.75 - TABLE_LEFT - 1.45) / max(len(cols), 1))
        self.xs = [TABLE_LEFT + 1.45 + n * pitch for n in range(len(cols))]
        self.key_labels, _ = word_row([trace.display_tokens[j] for j in cols],
                                      [trace.special[j] for j in cols], self.xs, pitch=pitch,
                                      font_size=style.FONT_SMALL, bottom=1.5)
        self.more = VGroup()      # the table shows a window of the row: say where it continues
        if cols[0] > self.window[0]:
            self.more.add(label_text("…", style.FONT_SMALL, pal.dim).next_to(
                self.key_labels[0], LEFT, buff=0.1))
        if cols[-1] < self.window[-1]:
            self.more.add(label_text("…", style.FONT_SMALL, pal.dim).next_to(
                self.key_labels[-1], RIGHT, buff=0.1))
        self.names = VGroup(*[label_text(t, style.FONT_SMALL, c).move_to([TABLE_LEFT + 0.5, y, 0])
                              for t, c, y in (("score", pal.soft, 1.0), ("weight", pal.soft, 0.3))])
        query = user_text(trace.focus_word, style.FONT_LABEL, pal.query)
        self.query_note = VGroup(query, label_text("looks at:", style.FONT_SMALL, pal.soft))
        self.query_note.arrange(RIGHT, buff=0.15, aligned_edge=DOWN).move_to(
            [TABLE_LEFT, max(2.3, self.key_labels.get_top()[1] + 0.35), 0], aligned_edge=LEFT)
        score_dec = magnitude_decimals([float(trace.scores[self.slot, focus, j]) for j in cols],
                                       style.SCORE_DECIMALS)
        self.scores = VGroup(*[self.cell_number("scores", j, 1.0, score_dec, True, pal.text)
                               for j in cols])
        # only the forbidden scores change: they become a red minus infinity
        self.forbidden = [c for c, j in enumerate(cols) if mask[focus, j]]
        self.masked_scores = VGroup(*[self.cell_number(self.score_kind, cols[c], 1.0, score_dec,
                                                       True, pal.mask) for c in self.forbidden])
        self.w_before = VGroup(*[self.cell_number("unmasked_weight" if self.own_mask else "weights",
                                                  j, 0.3, style.WEIGHT_DECIMALS, False, pal.dim)
                                 for j in cols])
        self.w_after = VGroup(*[self.cell_number(self.weight_kind, j, 0.3, style.WEIGHT_DECIMALS,
                                                 False, pal.faint if mask[focus, j] else pal.text)
                                for j in cols])
        # narrow columns: shrink every number by one factor rather than let them collide
        table_numbers = [t for group in (self.scores, self.masked_scores, self.w_before,
                                         self.w_after) for t in group]
        widest = max(t.width for t in table_numbers)
        if widest > pitch * 0.88:
            for t in table_numbers:
                t.scale(pitch * 0.88 / widest)
        self.rule = Line([TABLE_LEFT, 0.65, 0], [self.xs[-1] + pitch / 2, 0.65, 0]).set_stroke(pal.grid, 1)
        row_sum = (self.record("weight_sum", (self.slot, focus), 2) if self.own_mask
                   else self.record("causal_weight_sum", (self.slot, focus), 2))
        self.total_after = label_text(
            f"the {'' if self.own_mask else 'renormalised '}weights still sum to {row_sum}",
            style.FONT_SMALL, pal.dim).move_to([TABLE_LEFT, -0.35, 0], aligned_edge=LEFT)
        # on a masked trace the "before" weights are not the model's: say so while they show
        self.before_note = label_text("grey: the weights as they would be without the mask",
                                      style.FONT_SMALL, pal.dim) if self.own_mask else None
        if self.before_note is not None:
            self.before_note.move_to([TABLE_LEFT, -0.35, 0], aligned_edge=LEFT)

    # ---- play ----------------------------------------------------------------------------------
    def show_the_weights(self):
        trace = self.trace
        self.add(self.grid)
        self.play(FadeIn(self.heading, shift=DOWN * 0.2), FadeIn(self.head_tag),
                  *([FadeIn(self.notice)] if self.notice else []),
                  LaggedStart(*[FadeIn(d) for d in self.dots_before], lag_ratio=style.LAG_MANY),
                  run_time=1.2, rate_func=style.EASE,
                  subcaption=(f"Head {trace.primary_head} as the model ran it: "
                              f"{trace.focus_word}'s scores and weights"
                              if not self.own_mask else
                              f"Head {trace.primary_head}'s scores for {trace.focus_word}, "
                              "before the mask"),
                  subcaption_duration=2.7)
        self.play(Create(self.box), FadeIn(self.query_note), FadeIn(self.key_labels),
                  FadeIn(self.names), FadeIn(self.scores), FadeIn(self.rule), FadeIn(self.more),
                  FadeIn(self.w_before),
                  *([FadeIn(self.before_note)] if self.before_note is not None else []),
                  run_time=style.T_STEP, rate_func=style.EASE)
        self.wait(0.7)

    def mask_the_future(self):
        word = self.trace.focus_word
        n_future = int(self.mask[self.focus].sum())
        self.play(LaggedStart(*[FadeIn(r, scale=0.6) for r in self.red], lag_ratio=style.LAG_MANY),
                  *[FadeTransform(self.scores[c], m)
                    for c, m in zip(self.forbidden, self.masked_scores)],
                  run_time=1.3, rate_func=style.EASE,
                  subcaption=(f"No looking ahead: {n_future} of {word}'s scores "
                              "become \u2212\u221e"
                              if self.kind == "causal" else
                              f"The mask forbids {n_future} of {word}'s keys: "
                              "their scores become \u2212\u221e"),
                  subcaption_duration=2.2)
        self.wait(style.T_PAUSE)

    def renormalise(self):
        trace = self.trace
        first = int(np.argmax(self.after[self.focus]))
        given = self.record(self.weight_kind, (self.slot, self.focus, first), 2)
        self.play(Transform(self.dots_before, self.dots_after),
                  *[FadeTransform(a, b) for a, b in zip(self.w_before, self.w_after)],
                  *([FadeTransform(self.before_note, self.total_after)]
                    if self.before_note is not None else []),
                  run_time=style.T_BUILD, rate_func=style.EASE,
                  subcaption=f"Softmax over what is left: the weights renormalise; "
                             f"{trace.focus_word} now gives {given} to "
                             f"{trace.display_tokens[first]}.",
                  subcaption_duration=3.2)
        if self.before_note is None:
            self.play(FadeIn(self.total_after), run_time=style.T_QUICK, rate_func=style.EASE)
        else:
            self.wait(style.T_BREATH)
