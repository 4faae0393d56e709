"""The flow beat (optional, ``--beats …,flow``): where the focus word's information comes
from, through every layer. The sentence's words as rows, once per layer boundary as
columns (the input at the left, the last layer's output at the right). First the last
layer's own weights from the focus word (its heads' mean) as streams into it; then
rollout (Abnar & Zuidema 2020: each layer's heads averaged, half of each word kept for
the residual, the shares multiplied from the first layer up) as a river from the focus
word back to the input, each stream as wide as the share it carries; the input words'
shares written; and how far leave-one-out bears rollout out (Kendall's τ).

Every number is read from ``meta["flow"]`` (``attention_core.flow.with_flow``, run before
the film: the drawing runs no model).
"""
from __future__ import annotations

import numpy as np
from manim import (LEFT, RIGHT, UP, Create, CubicBezier, Dot, FadeIn, FadeOut,
                   LaggedStart, VGroup)

from ....attention_core.derived_flow import flow
from ....attention_core.word_model import WordModel
from ...vocabulary import style
from ...vocabulary.headers import beat_line
from ...vocabulary.text import label_text, line_of
from ..beat import Beat, Role
from ..wording import focus_name, focus_parts, quoted, told_parts

__all__ = ["FlowBeat", "MAX_ROWS", "rows_drawn"]

MAX_ROWS = 8                      # words drawn as rows; the rest share one row
X_FIRST, X_LAST = -2.2, 5.9       # the input column and the last layer's
ROW_TOP, ROW_BOTTOM = 2.05, -2.35
LABEL_RIGHT = X_FIRST - 1.05      # the words' labels end here; their shares sit between
STREAM_WIDTH = 30.0               # a stream carrying the whole word (share 1)
THINNEST = 0.01                   # a stream of a smaller share is not drawn


def rows_drawn(trace) -> list[int]:
    """The words drawn as rows (indices, in sentence order): the focus word's, then the
    words with the largest shares at the input and in the last layer's own weights, at
    most MAX_ROWS; the others share one row under them."""
    found = flow(trace)
    words = WordModel.of_trace(trace)
    focus = words.index_of(trace.focus_index)
    shares, raw = np.asarray(found["shares"][0]), np.asarray(found["raw"])
    chosen = [focus]
    for w in np.lexsort((np.arange(len(shares)), -np.maximum(shares, raw))):
        if len(chosen) >= MAX_ROWS:
            break
        if int(w) not in chosen:
            chosen.append(int(w))
    return sorted(chosen)


class FlowBeat(Beat):
    name = "flow"

    def script(self):
        trace = self.trace
        self.found = flow(trace)
        self.words = WordModel.of_trace(trace)
        self.rows = rows_drawn(trace)
        self.rest = len(self.words.words) > len(self.rows)
        leaving = [FadeOut(m) for role, m in self.stage.items()
                   if role not in Role.OVERLAY and m in self.film.mobjects]
        for role in [r for r in self.stage if r not in Role.OVERLAY]:
            self.roles.pop(role, None)
        layers = self.record("flow_layers", (), 0)
        self.open(beat_line("Where ", *focus_parts(trace), " gets its information: all ",
                            layers, " layers"), None, *leaving)
        self.the_columns(layers)
        self.the_last_layer()
        self.the_river(layers)
        self.the_shares()

    # ---- the picture ------------------------------------------------------------------------
    def y(self, w: int) -> float:
        """The row of word ``w`` (the others' row for a word not drawn)."""
        count = len(self.rows) + self.rest
        pitch = (ROW_TOP - ROW_BOTTOM) / max(count - 1, 1)
        slot = self.rows.index(w) if w in self.rows else len(self.rows)
        return ROW_TOP - slot * pitch

    def x(self, column: int) -> float:
        count = len(self.found["columns"])
        return X_FIRST + (X_LAST - X_FIRST) * column / max(count - 1, 1)

    def the_columns(self, layers: str):
        pal = style.PALETTE
        focus = self.words.index_of(self.trace.focus_index)
        labels = VGroup()
        for w in self.rows:
            word = self.words.words[w]
            color = pal.query if w == focus else pal.text
            label = line_of([(word.text, ("user", color)), *told_parts(word, pal.soft)],
                            style.FONT_LABEL)
            labels.add(label.move_to([LABEL_RIGHT, self.y(w), 0], aligned_edge=RIGHT))
        if self.rest:
            other = len(self.words.words) - len(self.rows)
            labels.add(label_text(f"the other {other}", style.FONT_LABEL, pal.soft)
                       .move_to([LABEL_RIGHT, self.y(-1), 0], aligned_edge=RIGHT))
        dots = VGroup(*[Dot([self.x(k), self.y(w), 0], radius=0.035, color=pal.dim)
                        for k in range(len(self.found["columns"]))
                        for w in [*self.rows, *([-1] if self.rest else [])]])
        heads = VGroup(label_text("input", style.FONT_SMALL, pal.soft),
                       label_text(f"layer {layers}", style.FONT_SMALL, pal.soft))
        heads[0].move_to([self.x(0), ROW_TOP + 0.45, 0])
        heads[1].move_to([self.x(len(self.found["columns"]) - 1), ROW_TOP + 0.45, 0])
        # each column's layer under the rows (a deep model's are not every layer)
        bottom = self.bottom = min(self.y(w) for w in [*self.rows, *([-1] if self.rest else [])])
        numbers = VGroup(*[label_text(str(c), style.FONT_SMALL, pal.dim)
                           .move_to([self.x(k), bottom - 0.42, 0])
                           for k, c in enumerate(self.found["columns"]) if k])
        numbers.add(label_text("after layer", style.FONT_SMALL, pal.dim)
                    .move_to([LABEL_RIGHT, bottom - 0.42, 0], aligned_edge=RIGHT))
        heads.add(numbers)
        self.labels = labels
        self.say("The sentence once for every layer: the input at the left, the last "
                 "layer's output at the right")
        self.play(FadeIn(labels), FadeIn(dots), FadeIn(heads), run_time=style.T_STEP)

    def stream(self, lower: int, upper: int, w_from: int, w_to: int, share: float,
               color: str | None = None):
        """A stream from word ``w_from`` at column ``lower`` into ``w_to`` at ``upper``."""
        start = np.array([self.x(lower), self.y(w_from), 0.0])
        end = np.array([self.x(upper), self.y(w_to), 0.0])
        bend = (end[0] - start[0]) / 2
        curve = CubicBezier(start, start + RIGHT * bend, end + LEFT * bend, end)
        return curve.set_stroke(color or style.PALETTE.value,
                                width=max(STREAM_WIDTH * share, 1.2), opacity=0.75)

    def streams(self, k: int, edges, color: str | None = None) -> VGroup:
        """The streams between columns k and k + 1, words not drawn joined in one row."""
        drawn = {}
        for above, below, share in edges:
            key = (below if below in self.rows else -1, above if above in self.rows else -1)
            drawn[key] = drawn.get(key, 0.0) + share
        return VGroup(*[self.stream(k, k + 1, below, above, share, color)
                        for (below, above), share in sorted(drawn.items())
                        if share >= THINNEST])

    # ---- the last layer alone, then rollout ----------------------------------------------
    def the_last_layer(self):
        raw = self.found["raw"]
        focus = self.words.index_of(self.trace.focus_index)
        last = len(self.found["columns"]) - 1
        top = [w for w in sorted(self.rows, key=lambda w: (-raw[w], w)) if w != focus][:2]
        self.raw_streams = self.streams(last - 1, [[focus, w, raw[w]] for w in range(len(raw))],
                                        style.PALETTE.arc)
        named = " and ".join(f"{self.record('flow_raw', (w,))} from {self.called(w)}"
                             for w in top)
        self.say(f"The last layer alone (its heads' mean weights, in orange): {self.subject} "
                 f"draws {named}")
        self.play(LaggedStart(*[Create(s) for s in self.raw_streams], lag_ratio=0.05),
                  run_time=style.T_MOVE)

    def the_river(self, layers: str):
        transitions = [self.streams(k, edges) for k, edges in enumerate(self.found["edges"])]
        # what a gap in a row means: a stream too thin to draw, said once
        self.say(f"Rollout carries it through all {layers} layers: each layer's heads "
                 "averaged, half of each word kept for the residual, the shares multiplied "
                 f"from the first layer up (a stream under {THINNEST:g} is not drawn)")
        self.play(FadeOut(self.raw_streams), run_time=style.T_SHORT)
        self.play(LaggedStart(*[LaggedStart(*[Create(s) for s in group], lag_ratio=0.02)
                                for group in transitions[::-1]], lag_ratio=0.35),
                  run_time=style.T_BUILD)

    def the_shares(self):
        pal = style.PALETTE
        shares = self.found["shares"][0]
        top = sorted(self.rows, key=lambda w: (-shares[w], w))[:3]
        x = (LABEL_RIGHT + X_FIRST) / 2
        # every drawn row's share, the others' as the rest of 1 as written
        numbers = VGroup(*[self.number("flow_share", (0, w), decimals=2,
                                       font_size=style.FONT_LABEL, color=pal.value)
                           .move_to([x, self.y(w), 0]) for w in self.rows])
        if self.rest:
            numbers.add(self.number("flow_rest", (0, *self.rows), decimals=2,
                                    font_size=style.FONT_LABEL, color=pal.value)
                        .move_to([x, self.y(-1), 0]))
        named = ", ".join(f"{self.record('flow_share', (0, w))} from {self.called(w)}"
                          for w in top)
        self.say(f"At the input, {self.subject} draws {named}")
        self.play(LaggedStart(*[FadeIn(n, shift=LEFT * 0.1) for n in numbers],
                              lag_ratio=0.2), run_time=style.T_STEP)
        tau = self.found.get("tau")
        if tau is None:
            self.say("Leave-one-out cannot rank these words (every change the same)")
            return
        number = self.number("flow_tau", (), decimals=2, signed=True,
                             font_size=style.FONT_LABEL, color=pal.text)
        how = ("bears its order out" if tau >= 0.5 else "bears it out in part" if tau >= 0.2
               else "hardly bears it out" if tau >= 0 else "goes against its order")
        shown = VGroup(label_text("rollout against leave-one-out, Kendall\u2019s \u03c4 =",
                                  style.FONT_SMALL, pal.soft), number).arrange(RIGHT, buff=0.15)
        shown.move_to([X_LAST, self.bottom - 0.85, 0], aligned_edge=RIGHT)
        self.say(f"Leave-one-out (each word's value zeroed in every layer) {how}: Kendall's "
                 f"\u03c4 = {self.record('flow_tau', (), 2, signed=True)}")
        self.play(FadeIn(shown, shift=UP * 0.1), run_time=style.T_STEP)

    @property
    def subject(self) -> str:
        return focus_name(self.trace)

    def called(self, w: int) -> str:
        word = self.words.words[w]
        return quoted(word.text) + word.told_apart + (" itself" if w == self.words.index_of(
            self.trace.focus_index) else "")
