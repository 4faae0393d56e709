"""The optional position beat: attention alone does not know the order of the words, so the
model adds a vector for each position to each token's embedding. A few of their dimensions
are drawn as waves over the positions the trace keeps (``trace.positions``): the ones
MiniLM learned, or the sines and cosines of Vaswani et al. (2017) that the scratch model
adds, each captioned as what it is. The sentence's own positions are marked, and the focus
word's values read out. It hands on the stage it was given (the title's), so the film
around it is the same with or without it.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, Create, Dot, FadeIn, LaggedStart, Line, Rectangle,
                   VGroup, VMobject)

from ....attention_core.derived import position_dims
from ....attention_core.trace_kinds import (POSITIONS_NONE, POSITIONS_RELATIVE, POSITIONS_ROTARY,
                                           POSITIONS_SINUSOIDAL)
from ...vocabulary import stage, style
from ...vocabulary.headers import beat_line
from ...vocabulary.text import label_text, line_of, wrapped
from ..beat import Beat, Stage
from .title import TitleBeat
from ..wording import focus_name

__all__ = ["PLOT_LEFT", "PLOT_RIGHT", "PositionBeat", "STRIP_GAP", "STRIP_H", "line"]

# the waves' x range (labels left, values right): "dimension 1023" keeps 20 px off the edge
PLOT_LEFT, PLOT_RIGHT = -4.6, 5.3
PLOT_TOP = 1.55
STRIP_H = 0.85                        # one dimension's strip
STRIP_GAP = 0.22


def line(trace):
    kind = trace.meta.get("positions")
    if kind == POSITIONS_ROTARY:
        return beat_line("Where each word stands: rotary positions, no vectors added")
    if kind == POSITIONS_NONE:
        return beat_line("Where each word stands: this layer uses no positions")
    if kind == POSITIONS_RELATIVE:
        return beat_line("Where each word stands: relative positions, in the scores")
    what = "sine and cosine" if kind == POSITIONS_SINUSOIDAL else "learned"
    return beat_line(f"Where each word stands: the {what} position vectors")


def without_vectors(trace) -> str:
    """What the beat says when the trace holds no position vectors, and why."""
    if trace.meta.get("positions") == POSITIONS_NONE:
        return ("This layer uses no positions at all: no vectors added, no queries or keys "
                "turned (the model's other layers turn them); word order reaches it only "
                "through the causal mask and what earlier layers made")
    if trace.meta.get("positions") == POSITIONS_RELATIVE:
        terms = " and ".join(trace.meta.get("score_terms") or ["terms"])
        return (f"No position vectors are added: the model\u2019s {terms} carry how far apart two words "
                "are into every score")
    if trace.meta.get("positions") == POSITIONS_ROTARY:
        return ("This model adds no position vectors: it turns each query and key by angles "
                "that grow with its position (rotary), so q\u00b7k depends on how far apart "
                "two words are")
    if trace.meta.get("positions"):
        return ("This model adds its position vectors in a smaller space, before a "
                "projection into the layer's: they are not drawn here")
    return ("This trace was saved before traces held the position vectors: write a fresh "
            "one with inspect --npz to see them")


class PositionBeat(Beat):
    name = "position"

    @classmethod
    def leaves(cls, film) -> Stage:
        # the title's stage, handed on: the beat after it starts as it would after the title
        return TitleBeat.leaves(film)

    def script(self):
        trace = self.trace
        if not trace.has_positions:
            said = without_vectors(trace)
            note = label_text(wrapped(said, stage.TEXT_WIDTH * 0.7, style.FONT_BODY),
                              style.FONT_BODY, style.PALETTE.soft)
            self.open(line(trace), None, FadeIn(note))
            self.say(said if trace.meta.get("positions") else
                     "This trace does not hold the position vectors: write a fresh one with "
                     "inspect --npz")
            return
        self.open(line(trace), None)
        self.the_waves()
        self.the_sentence()
        self.the_focus()

    # ---- the waves ------------------------------------------------------------------------
    def the_waves(self):
        trace, pal, book = self.trace, style.PALETTE, self.book
        table = trace.positions.astype(np.float64)
        self.count = int(book.value("num_positions"))
        self.dims = position_dims(trace)
        d_model = book.text("d_model", (), 0)
        # each strip to its own scale (its dimension's largest size, written beside it):
        # learned dimensions differ in size by more than tenfold
        self.ranges = [book.value("position_range", (dim,)) for dim in self.dims]
        self.strips, waves, names = VGroup(), VGroup(), VGroup()
        for n, dim in enumerate(self.dims):
            centre = self.centre(n)
            base = Line([PLOT_LEFT, centre, 0], [PLOT_RIGHT, centre, 0],
                        stroke_width=1, color=pal.grid)
            wave = VMobject(stroke_width=3, color=pal.text)
            wave.set_points_as_corners([self.at(p, table[p, dim], n)
                                        for p in range(self.count)])
            name = VGroup(
                label_text(f"dimension {book.text('position_dim', (n,), 0)}",
                           style.FONT_SMALL, pal.soft),
                label_text(f"±{book.text('position_range', (dim,), 2)}",
                           style.FONT_SMALL, pal.dim)).arrange(DOWN, buff=0.08,
                                                               aligned_edge=RIGHT)
            name.next_to([PLOT_LEFT, centre, 0], LEFT, buff=0.2)
            self.strips.add(base)
            waves.add(wave)
            names.add(name)
        self.waves = waves
        bottom = PLOT_TOP - len(self.dims) * (STRIP_H + STRIP_GAP) + STRIP_GAP
        self.bottom = bottom
        axis = VGroup(*[self.tick(p, bottom) for p in sorted({0, self.count - 1})])
        scale = label_text(f"positions 0 to {self.count - 1}; each strip to its own scale",
                           style.FONT_SMALL, pal.dim)
        scale.next_to([0, bottom - 0.45, 0], DOWN, buff=0.05)
        self.axis = VGroup(axis, scale)
        sines = trace.meta.get("positions") == POSITIONS_SINUSOIDAL
        model = trace.model_label
        if sines:
            self.say("Attention alone does not know the order of the words: this model adds "
                     "a vector for each position to each token's")
        else:
            self.say(f"Attention alone does not know the order of the words: {model} adds a "
                     "vector for each position to each token's embedding")
        self.play(FadeIn(self.strips), FadeIn(names), FadeIn(self.axis), run_time=style.T_STEP)
        self.play(LaggedStart(*[Create(w) for w in waves], lag_ratio=style.LAG_FEW),
                  run_time=style.T_WRITE)
        if sines:
            self.say(f"{len(self.dims)} of its {d_model} dimensions: sines and cosines of the "
                     "position (Vaswani et al. 2017), each pair slower than the last")
        else:
            self.say(f"{len(self.dims)} of its {d_model} dimensions, learned in training: the "
                     "ones that change most over the first "
                     f"{book.text('num_positions', (), 0)} positions (position 0 stands apart)")
        self.wait()

    def at(self, position: float, value: float, n: int) -> np.ndarray:
        """The point of ``value`` at ``position`` on strip ``n``."""
        x = PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * position / max(self.count - 1, 1)
        y = self.centre(n) + value / max(self.ranges[n], 1e-12) * (STRIP_H / 2)
        return np.array([x, y, 0.0])

    def tick(self, position: int, bottom: float) -> VGroup:
        x = self.at(position, 0.0, 0)[0]
        mark = Line([x, bottom - 0.02, 0], [x, bottom - 0.14, 0], stroke_width=1.5,
                    color=style.PALETTE.dim)
        number = label_text(str(position), style.FONT_SMALL, style.PALETTE.dim)
        number.next_to(mark, DOWN, buff=0.06)
        return VGroup(mark, number)

    # ---- the sentence's positions -----------------------------------------------------------
    def the_sentence(self):
        trace, pal = self.trace, style.PALETTE
        T = trace.num_tokens
        half = 0.5 * (PLOT_RIGHT - PLOT_LEFT) / max(self.count - 1, 1)
        left, right = self.at(0, 0, 0)[0] - half, self.at(T - 1, 0, 0)[0] + half
        band = Rectangle(width=right - left, height=PLOT_TOP - self.bottom + 0.1,
                         stroke_width=0, fill_color=pal.grid, fill_opacity=0.25)
        band.move_to([(left + right) / 2, (PLOT_TOP + self.bottom) / 2, 0])
        table = self.trace.positions.astype(np.float64)
        dots = VGroup(*[Dot(self.at(p, table[p, dim], n), radius=0.035,
                            color=pal.text)
                        for n, dim in enumerate(self.dims) for p in range(T)])
        self.band = band
        self.say(f"The sentence's {T} tokens take positions 0 to {T - 1}")
        self.play(FadeIn(band), LaggedStart(*[FadeIn(d, scale=0.5) for d in dots],
                                            lag_ratio=style.LAG_MANY),
                  run_time=style.T_BUILD)

    def centre(self, n: int) -> float:
        return PLOT_TOP - STRIP_H / 2 - n * (STRIP_H + STRIP_GAP)

    # ---- the focus word's own vector -----------------------------------------------------------
    def the_focus(self):
        trace, pal, book = self.trace, style.PALETTE, self.book
        f = trace.focus_index
        table = trace.positions.astype(np.float64)
        x = self.at(f, 0, 0)[0]
        marker = Line([x, PLOT_TOP + 0.05, 0], [x, self.bottom - 0.05, 0], stroke_width=2,
                      color=pal.highlight)
        dots = VGroup(*[Dot(self.at(f, table[f, dim], n), radius=0.06,
                            color=pal.highlight) for n, dim in enumerate(self.dims)])
        values = VGroup()
        for n, dim in enumerate(self.dims):
            value = book.text_mobject("positions", (f, dim), decimals=2, signed=True)
            value.next_to([PLOT_RIGHT, self.centre(n), 0], RIGHT, buff=0.25)
            values.add(value)
        where = line_of([("\u2018", pal.text), (trace.focus_word, ("user", pal.query)),
                         (f"\u2019 stands at position {f}", pal.text)], style.FONT_SMALL)
        where.next_to(self.axis, DOWN, buff=0.12).set_x(x)
        where.shift(RIGHT * (min(0.0, stage.RIGHT_EDGE - where.get_right()[0])
                             + max(0.0, stage.LEFT_EDGE - where.get_left()[0])))
        sines = trace.meta.get("positions") == POSITIONS_SINUSOIDAL
        then = ("added to its word's vector: the layer's input" if sines else
                "added to its word's vector, then a layer norm, before layer 0")
        terms = trace.meta.get("score_terms")       # MPNet: relative positions as well
        then += f"; each score gets its {' and '.join(terms)} too" if terms else ""
        self.say(f"{focus_name(trace)} stands at position {f}: this vector is {then}")
        self.play(Create(marker), FadeIn(dots, scale=0.5), FadeIn(where),
                  LaggedStart(*[FadeIn(v, shift=LEFT * 0.1) for v in values],
                              lag_ratio=style.LAG_FEW), run_time=style.T_STEP)
