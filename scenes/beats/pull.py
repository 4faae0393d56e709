"""Beat 6, the pull: the focus word's new vector is the weighted sum of the values.

In a 2-D view of the primary head's value space, every value vector v_j is an arrow with
its word. Each is scaled by its weight, the scaled arrows are chained tip to tail from the
origin, and the chain ends at the weighted sum (the head's output for the focus word).
The focus word's arrow then moves from its own value to that sum: pulled toward the
heavily weighted words, with the weights written on the pulls.

The view is an uncentred PCA of the head's value vectors: a linear map, so the picture of
a weighted sum is the weighted sum of the pictures (the weights sum to 1).
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, DashedLine, FadeIn, GrowArrow, Line,
                   MathTypst, ReplacementTransform, TransformFromCopy, VGroup, Write)

from ...attention_core.projection import fit_pca
from .. import stage, style
from ..film import Beat
from ..headers import head_layer_tag, heading
from ..labels import place_labels
from ..planes import LabelledArrow, Plane2D
from ..text import label_text, user_text
from ..vectors import vector_symbol
from ..views import LABEL_ALL_UP_TO   # beyond this only the focus and heavy words are named

PLANE_W, PLANE_H = 7.9, 6.3
PLANE_CENTER = np.array([-2.9, -0.35, 0.0])
CHAIN_SEGMENTS = 12      # beyond this the lightest contributions are drawn as one "rest"
PANEL_ROWS = 9           # beyond this the panel lists the heaviest words only
PANEL_LEFT = 1.7


def value_symbol(word: str, *, color: str, font_size: float = style.FONT_LABEL):
    """v with an arrow over it and the word as its subscript."""
    return vector_symbol("v", word, color=color, font_size=font_size, letter_scale=1.15,
                         index_scale=0.72, index_drop=0.07)


def weight_term(beat, j: int, *, color: str, font_size: float = style.FONT_LABEL) -> VGroup:
    """ "0.38 × v_fish": the weight (read from the trace and recorded) times the value."""
    trace = beat.trace
    w = beat.number("weights", (trace.primary_slot, trace.focus_index, j),
                    decimals=style.WEIGHT_DECIMALS, font_size=font_size, color=color)
    times = label_text("\u00d7", font_size, color)
    sym = value_symbol(trace.display_tokens[j], color=color, font_size=font_size)
    times.next_to(w, RIGHT, buff=0.1)
    sym.next_to(times, RIGHT, buff=0.1)
    sym.shift(UP * (w.get_bottom()[1] - sym[0].get_bottom()[1]) * 0.6)
    return VGroup(w, times, sym)


def layout_pull_labels(plane, arrows, focus, pull_labels, pull_anchors, pull_dirs, new_word,
                       end, segments) -> tuple[VGroup, VGroup]:
    """Lay out every label of the pull picture at once (shared ``place_labels``): the
    value arrows' words, the weights on the chain ("0.38 × v_fish") beside their segments
    and the focus word's new name at the weighted sum, clear of each other, of every
    arrow, chain segment and pull line, inside the plane. The arrows' leader lines go in
    their ``extras``; returns the extras of the weights and of the new name."""
    origin = plane.origin
    worded = [j for j, a in enumerate(arrows) if len(a.word.submobjects)]
    labels = [arrows[j].word for j in worded] + list(pull_labels) + [new_word]
    anchors = [arrows[j].tip_point for j in worded] + list(pull_anchors) + [end]
    dirs = [arrows[j].tip_point - origin for j in worded] + list(pull_dirs) + [end - origin]
    n_words, n_pull = len(worded), len(pull_labels)
    new_n = n_words + n_pull
    solo = [n for n, j in enumerate(worded) if j == focus] + list(range(n_words, new_n + 1))
    priority = ([100.0 + float(np.linalg.norm(arrows[j].tip_point - origin)) + 800 * (j == focus)
                 for j in worded] + [700.0 - n for n in range(n_pull)] + [1000.0])
    tips = [[*(a.tip_point[:2] - 0.1), *(a.tip_point[:2] + 0.1)] for a in arrows]
    owners = [worded.index(j) if j in worded else -1 for j in range(len(arrows))]
    tips.append([*(end[:2] - 0.12), *(end[:2] + 0.12)])
    owners.append(new_n)
    layout = place_labels(
        labels, anchors, directions=dirs,
        segments=[(a.arrow.get_start(), a.tip_point) for a in arrows] + list(segments),
        keep_clear=tips, keep_clear_owner=owners, bounds=plane.plane, priority=priority,
        solo=solo, gap=0.06)
    for n, j in enumerate(worded):
        arrows[j].extras.add(*layout.extras[n].submobjects)
    pull_extras = VGroup(*[m for n in range(n_words, new_n) for m in layout.extras[n]])
    return pull_extras, VGroup(*layout.extras[new_n].submobjects)


class PullBeat(Beat):
    name = "pull"
    hold = 1.5

    def script(self):
        trace = self.trace
        self.slot, self.focus = trace.primary_slot, trace.focus_index
        self.weights = trace.weights[self.slot, self.focus].astype(np.float64)
        self.tips = fit_pca(trace.v[self.slot])(trace.v[self.slot])   # T x 2, in the view
        # heavy words: the two largest weights on other, non-special tokens
        others = [j for j in np.argsort(-self.weights, kind="stable")
                  if j != self.focus and not trace.special[j]]
        self.heavy = [int(j) for j in others[:2]]
        self.lay_out_the_stage()
        self.lay_out_value_arrows()
        self.lay_out_the_chain()
        self.lay_out_the_pull()
        self.value_arrows_appear()
        self.weights_panel()
        self.scale_and_chain()
        self.focus_word_moves()

    # ---- the stage: heading, plane, projection note -------------------------------------------
    def lay_out_the_stage(self):
        pal = style.PALETTE
        self.heading = heading("Each word takes a weighted sum of the values")
        self.head_tag = head_layer_tag(self.book, self.slot)
        pct = self.record("value_view_percent", (self.slot,), 0)
        self.note = label_text(f"2-D view: uncentred PCA of this head\u2019s value vectors, "
                               f"keeping {pct} % of their squared length. The map is linear, "
                               "so a weighted sum stays a weighted sum.", style.FONT_SMALL, pal.dim)
        if self.note.width > stage.TEXT_WIDTH:
            self.note.scale_to_fit_width(stage.TEXT_WIDTH)
        self.note.to_edge(DOWN, buff=0.22)
        self.plane = Plane2D.cropped(self.tips, PLANE_W, PLANE_H, pad=0.7)
        self.plane.move_to(PLANE_CENTER)
        self.origin = self.plane.origin

    # ---- layout first (so every label can be kept clear of the others) ----------------------
    def lay_out_value_arrows(self):
        trace, pal, focus, weights = self.trace, style.PALETTE, self.focus, self.weights
        T = trace.num_tokens
        named = set(range(T)) if T <= LABEL_ALL_UP_TO else set(self.heavy) | {focus} | {
            int(j) for j in np.argsort(-weights, kind="stable")[:5]}
        self.arrows = []
        for j in range(T):
            la = LabelledArrow(self.plane, self.tips[j], trace.display_tokens[j], pal.value,
                               special=trace.special[j], font_size=style.FONT_LABEL,
                               stroke_width=5 if j == focus else 4)
            if j == focus:
                la.word.set_color(pal.query)        # the word being explained is the query's
                la.word.scale(1.15)
            if j not in named:                       # crowded: only the words that matter
                la.drop_word()
            self.arrows.append(la)

    def chain_arrow(self, start, vec_xy, color, width):
        stop = start + (self.plane.c2p(*vec_xy) - self.origin)
        if np.linalg.norm(stop - start) < 0.02:
            stop = start + RIGHT * 0.02
        return Arrow(start, stop, buff=0, color=color, stroke_width=width, tip_length=0.16,
                     max_tip_length_to_length_ratio=0.3, max_stroke_width_to_length_ratio=10)

    # the chain: scaled values tip to tail, heaviest first; the lightest lumped together
    def lay_out_the_chain(self):
        trace, pal, weights, tips = self.trace, style.PALETTE, self.weights, self.tips
        order = [int(j) for j in np.argsort(-weights, kind="stable")]
        self.shown, rest = order[:CHAIN_SEGMENTS], order[CHAIN_SEGMENTS:]
        self.scaled, self.chained = VGroup(), VGroup()
        partial = np.zeros(2)
        for j in self.shown:
            color = pal.special if trace.special[j] else pal.value
            self.scaled.add(self.chain_arrow(self.origin, weights[j] * tips[j], color, 5))
            self.chained.add(self.chain_arrow(self.plane.c2p(*partial), weights[j] * tips[j],
                                              color, 5))
            partial = partial + weights[j] * tips[j]
        self.rest_arrow = (self.chain_arrow(self.plane.c2p(*partial), weights[rest] @ tips[rest],
                                            pal.dim, 3) if rest else None)

    def lay_out_the_pull(self):
        trace, pal, weights, focus = self.trace, style.PALETTE, self.weights, self.focus
        # weights written on the heavy pulls, beside their segments, away from the total
        self.end = end = self.plane.c2p(*(weights @ self.tips))   # = view(context[slot, focus])
        self.pull_labels, pull_anchors, pull_dirs = VGroup(), [], []
        for j, seg in zip(self.shown, self.chained):
            if weights[j] < 0.08 or len(self.pull_labels) >= 4:
                continue
            lab = weight_term(self, j, color=pal.text, font_size=style.FONT_SMALL)
            d = seg.get_end() - seg.get_start()
            n = np.array([-d[1], d[0], 0.0])
            n = n / (np.linalg.norm(n) or 1.0)
            centre = (seg.get_start() + seg.get_end()) / 2
            if np.dot(n, centre - end) < 0:
                n = -n
            lab.set_stroke(style.BACKGROUND, width=5, background=True)
            self.pull_labels.add(lab)
            pull_anchors.append(centre)
            pull_dirs.append(n)
        # the focus word's new arrow: from the origin to the weighted sum
        old_tip = self.arrows[focus].tip_point
        self.moved = Arrow(self.origin, end, buff=0, color=pal.output, stroke_width=6,
                           tip_length=0.22, max_tip_length_to_length_ratio=0.25,
                           max_stroke_width_to_length_ratio=10)
        self.start_copy = Arrow(self.origin, old_tip, buff=0, color=pal.value, stroke_width=6,
                                tip_length=0.22, max_tip_length_to_length_ratio=0.25,
                                max_stroke_width_to_length_ratio=10)
        self.change = DashedLine(old_tip, end, dash_length=0.12).set_stroke(pal.highlight, width=3)
        self.new_word = VGroup(user_text(trace.focus_word, style.FONT_LABEL * 1.15, pal.output),
                               label_text("\u2032", style.FONT_LABEL * 1.15, pal.output))
        self.new_word.arrange(RIGHT, buff=0.02, aligned_edge=UP)
        self.new_word.set_stroke(style.BACKGROUND, width=5, background=True)
        self.magnets = VGroup(*[Line(end, self.arrows[j].tip_point).set_stroke(
            pal.highlight, width=1 + 4 * float(weights[j]), opacity=0.3 + 0.4 * float(weights[j]))
            for j in self.heavy])
        rest = self.rest_arrow
        self.pull_extras, self.new_extras = layout_pull_labels(
            self.plane, self.arrows, focus, self.pull_labels, pull_anchors, pull_dirs,
            self.new_word, end,
            segments=[(c.get_start(), c.get_end()) for c in self.chained]
            + ([(rest.get_start(), rest.get_end())] if rest else [])
            + [(self.origin, end), (old_tip, end)]
            + [(m.get_start(), m.get_end()) for m in self.magnets])

    # ---- value arrows appear ------------------------------------------------------------------
    def value_arrows_appear(self):
        self.add(self.plane, self.note)
        self.caption(f"The value vectors of head {self.trace.primary_head}, seen in a "
                     "2-D projection.", duration=3.0)
        self.play(FadeIn(self.heading, shift=DOWN * 0.2), FadeIn(self.head_tag),
                  run_time=style.T_SHORT, rate_func=style.EASE)
        self.wait(0.3)
        self.play(*[GrowArrow(a.arrow) for a in self.arrows],
                  *[FadeIn(VGroup(a.word, a.extras)) for a in self.arrows
                    if len(a.word.submobjects)],
                  run_time=style.T_MOVE, rate_func=style.EASE)
        self.wait(0.6)

    # ---- the weights panel --------------------------------------------------------------------
    def panel_rows(self) -> VGroup:
        trace, pal, weights = self.trace, style.PALETTE, self.weights
        T = trace.num_tokens
        if T <= PANEL_ROWS:
            self.rows_for = list(range(T))
        else:
            self.rows_for = sorted(int(j) for j in np.argsort(-weights, kind="stable")[:PANEL_ROWS - 1])
        rows = VGroup()
        for j in self.rows_for:
            strong = weights[j] >= 0.1
            color = pal.special if trace.special[j] else (pal.text if strong else pal.dim)
            rows.add(weight_term(self, j, color=color))
        row_pitch = min(0.48, 4.0 / max(len(rows), 1))
        times_x = PANEL_LEFT + 0.95
        for n, row in enumerate(rows):
            w, times, sym = row
            times.move_to([times_x, -n * row_pitch, 0])
            w.next_to(times, LEFT, buff=0.12)
            sym.next_to(times, RIGHT, buff=0.12)
            sym.shift(UP * (w.get_bottom()[1] - sym[0].get_bottom()[1]) * 0.5)
        return rows

    def weights_panel(self):
        trace, pal, slot, focus = self.trace, style.PALETTE, self.slot, self.focus
        T = trace.num_tokens
        panel_title = VGroup(user_text(trace.focus_word, style.FONT_LABEL, pal.query),
                             label_text("takes from each word:", style.FONT_LABEL, pal.soft))
        panel_title.arrange(RIGHT, buff=0.14, aligned_edge=DOWN)
        rows = self.panel_rows()
        rows.next_to(panel_title, DOWN, buff=0.3)
        rows.shift(RIGHT * (PANEL_LEFT + 0.95 - rows[0][1].get_x()))
        rule = Line(LEFT * 1.7, RIGHT * 1.7).set_stroke(pal.dim, width=1.5)
        rule.next_to(rows, DOWN, buff=0.15).align_to(rows, LEFT)
        total_num = self.number("weight_sum", (slot, focus), decimals=style.WEIGHT_DECIMALS,
                                font_size=style.FONT_LABEL, color=pal.soft)
        total_words = label_text("in all: the weights sum to one", style.FONT_SMALL, pal.dim)
        total_num.next_to(rule, DOWN, buff=0.18).align_to(rows[0][0], LEFT)
        total_words.next_to(total_num, RIGHT, buff=0.25)
        # baselines: "i" has no descender, so its bottom is the line's baseline
        total_words.shift(UP * (total_num.get_bottom()[1] - total_words[0].get_bottom()[1]))
        total_row = VGroup(total_num, total_words)
        extra = None
        if len(self.rows_for) < T:
            extra = label_text(f"+ {T - len(self.rows_for)} more words, each with a small weight",
                               style.FONT_SMALL, pal.dim).next_to(total_row, DOWN, buff=0.12)
            extra.align_to(total_row, LEFT)
        panel_title.align_to(np.array([PANEL_LEFT, 0, 0]), LEFT)
        panel = VGroup(panel_title, rows, rule, total_row, *([extra] if extra else []))
        panel.set_y(0.6)
        self.formula = VGroup(self.new_word.copy().set_stroke(width=0, background=True),
                              MathTypst("= sum_j w_j arrow(bold(v))_j", color=pal.output,
                                        font_size=style.FONT_LABEL * 1.2))
        self.formula.arrange(RIGHT, buff=0.15)
        self.formula.next_to(panel, DOWN, buff=0.45).align_to(panel, LEFT)
        if self.heavy:
            texts = [self.record("weights", (slot, focus, j), style.WEIGHT_DECIMALS)
                     for j in self.heavy]
            parts = [f"{texts[0]} of its attention to {trace.display_tokens[self.heavy[0]]}"]
            parts += [f"{t} to {trace.display_tokens[j]}"
                      for t, j in zip(texts[1:], self.heavy[1:])]
            self.caption(f"{trace.focus_word} gives " + ", ".join(parts) + ".", duration=2.5)
        self.play(FadeIn(panel_title, shift=LEFT * 0.2),
                  *[FadeIn(r, shift=LEFT * 0.2) for r in rows],
                  FadeIn(rule), FadeIn(total_row), *([FadeIn(extra)] if extra else []),
                  run_time=style.T_STEP, rate_func=style.EASE)
        self.wait(0.6)

    # ---- scale each value by its weight, then chain them tip to tail ---------------------------
    def scale_and_chain(self):
        self.caption("Each value vector is scaled by its weight\u2026", duration=1.8)
        self.play(*[a.animate.set_opacity(0.35) for a in self.arrows],
                  *[TransformFromCopy(self.arrows[j].arrow, s)
                    for j, s in zip(self.shown, self.scaled)],
                  run_time=1.2, rate_func=style.EASE)
        self.wait(style.T_BREATH)
        self.caption("\u2026and the scaled values are added, tip to tail.", duration=2.0)
        self.play(*[ReplacementTransform(s, c) for s, c in zip(self.scaled, self.chained)],
                  *([GrowArrow(self.rest_arrow)] if self.rest_arrow else []),
                  run_time=style.T_BUILD, rate_func=style.EASE)
        self.play(FadeIn(self.pull_labels), FadeIn(self.pull_extras), run_time=0.6,
                  rate_func=style.EASE)
        self.wait(0.6)

    # ---- the focus word's arrow moves to the weighted sum -------------------------------------
    def focus_word_moves(self):
        trace = self.trace
        heavy_words = " and ".join(trace.display_tokens[j] for j in self.heavy) or "its heavy words"
        self.caption(f"{trace.focus_word} is pulled toward {heavy_words}: its new vector "
                     "is the weighted sum.", duration=3.4)
        self.add(self.start_copy)
        self.play(self.chained.animate.set_opacity(0.5),
                  *([self.rest_arrow.animate.set_opacity(0.4)] if self.rest_arrow else []),
                  ReplacementTransform(self.start_copy, self.moved), FadeIn(self.change),
                  TransformFromCopy(self.arrows[self.focus].word, self.new_word),
                  FadeIn(self.new_extras), run_time=style.T_BUILD, rate_func=style.EASE)
        self.play(*[FadeIn(m) for m in self.magnets], Write(self.formula),
                  run_time=style.T_SHORT, rate_func=style.EASE)
