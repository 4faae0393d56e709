"""Beat 6, the pull: the focus word's output is the weighted sum of the values.

The weights sum to one, so Σ w_j v_j is the centre of mass of the value points with
masses w_j. In a 2-D view of the primary head's value space each value is a point whose
area is its mass, joined to the centre by a spring as thick as its weight. The picture
starts at a very high softmax temperature, where every weight is the same and the centre
is the plain average, and cools to temperature 1, the model's own weights: the masses
grow and shrink and the centre is pulled toward the heavy words. Real arithmetic
throughout (softmax(scores / T) of the trace's scores, under its mask).

The view is an uncentred PCA of the drawn tokens' value vectors (``views.value_view``): a
linear map, so the picture's centre of mass is the picture of the output (stated on
screen). No pull is drawn in
embedding space: the model's numbers do not show one there.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Animation, Circle, Dot, FadeIn,
                   FadeTransform, LaggedStart, Line, VGroup, Write)

from ....attention_core.derived import lookup, shown_kind, temperature_weights
from ...vocabulary import stage, style
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import beat_line, head_name
from ...vocabulary.labels import place_labels
from ...vocabulary.planes import Plane2D
from ...vocabulary.text import label_text, line_of, make_math, make_text, outlined, user_text
from ..readouts import format_number
from ....attention_core.word_model import WordModel
from ..ranking import heavier_outside, listed_claim, outside_said, ranked_words
from ..head_table import head_rows
from ..views import drawn_indices, drawn_words, named_indices, plot_label, value_view
from ..wording import focus_name, focus_parts, mark_label, word_quoted

__all__ = [
    "COLUMN_GAP", "Cool", "LIST_RIGHT", "ListedWeights", "MASS_RADIUS", "ORIGIN_POINT", "PLANE_CENTER",
    "PLANE_H", "PLANE_W", "PullBeat", "PullView", "SLOTS", "line", "temperature_readout",
    "temperature_text",
]

PLANE_W, PLANE_H = 5.6, 4.6
PLANE_CENTER = np.array([-3.4, -0.2, 0.0])
LIST_RIGHT = 0.85            # the weights list moves here, right of the plane (its numbers' right)
COLUMN_GAP = 0.55            # between the list and the column of formulas
MASS_RADIUS = 0.34           # a weight of 1 is a dot this big (area follows the weight)
ORIGIN_POINT = np.zeros(3)


def line(trace):
    return beat_line("The output of ", *focus_parts(trace), ": the centre of mass of the values")


class PullView(VGroup):
    """The value points as masses, the springs to their centre of mass and the centre
    itself, for the weights at a softmax temperature (:meth:`set_temperature`)."""

    def __init__(self, book):
        super().__init__()
        trace, pal = book.trace, style.PALETTE
        self.trace = trace
        self.slot, self.focus = trace.primary_slot, trace.focus_index
        self.indices = drawn_indices(trace)
        _, self.value_points = value_view(trace, self.slot)             # N x 2
        self.plane = Plane2D.cropped(self.value_points, PLANE_W, PLANE_H, pad=0.75)
        self.plane.move_to(PLANE_CENTER)
        self.anchors = np.array([self.plane.c2p(*p) for p in self.value_points])
        colours = [pal.special if trace.special[j] else pal.value for j in self.indices]
        self.dots = VGroup(*[Dot(a, radius=0.05, color=c) for a, c in zip(self.anchors, colours)])
        self.springs = VGroup(*[Line(a, a + RIGHT * 0.01) for a in self.anchors])
        self.centre = VGroup(Dot(ORIGIN_POINT, radius=0.11, color=pal.output),
                             Circle(radius=0.17, color=pal.output, stroke_width=2))
        self.add(self.plane, self.springs, self.dots, self.centre)
        self.set_temperature(1.0)

    def weights_at(self, temperature: float) -> np.ndarray:
        w = temperature_weights(self.trace, self.slot, self.focus, temperature)
        return w[self.indices]

    def set_temperature(self, temperature: float) -> "PullView":
        w = self.weights_at(temperature)
        centre = (w / w.sum()) @ self.anchors            # the drawn keys' centre of mass
        for dot, anchor, weight in zip(self.dots, self.anchors, w):
            radius = max(MASS_RADIUS * float(np.sqrt(weight)), 0.02)
            dot.set(width=2 * radius).move_to(anchor)
        for spring, anchor, weight in zip(self.springs, self.anchors, w):
            spring.put_start_and_end_on(centre, anchor + 1e-4 * RIGHT)
            spring.set_stroke(style.PALETTE.output, width=0.6 + 9.0 * float(weight),
                              opacity=0.25 + 0.75 * min(float(weight) * 2.5, 1.0))
        self.centre.move_to(centre)
        return self


class ListedWeights:
    """The weights list handed on by the softmax, rewritten for a softmax temperature:
    each listed weight and the rest's total, rounded with their row as the film rounds
    every row (``derived.shown_row``). Glyphs are set in place (same count: "0.38" and
    "0.14" both have four), so the list is the same objects all through the sweep."""

    def __init__(self, weights: VGroup, trace):
        self.trace, self.weights = trace, weights
        self.slot, self.focus = trace.primary_slot, trace.focus_index
        self.numbers = [entry[0] for entry in weights.entries]
        self.more = weights.more
        self.settled = [m.copy() for m in self.targets()]       # the model's own, T = 1
        self.is_rest = [m is self.more for m in self.targets()]
        # each target's size against a fresh build of its own text (the list may be scaled)
        self.scales = [home.height / self.build(rest, home.original_text).height
                       for home, rest in zip(self.settled, self.is_rest)]

    def targets(self) -> list:
        return self.numbers + ([self.more] if self.more is not None else [])

    @staticmethod
    def build(rest: bool, text: str):
        if rest:
            return label_text(text, style.FONT_SMALL)
        return make_text(text, font=style.SERIF, font_size=style.FONT_LABEL)

    def where(self, temperature: float) -> list[tuple[str, tuple]]:
        """(kind, index) of each listed number at ``temperature`` (derived's own)."""
        at, words = (self.slot, self.focus), WordModel.of_trace(self.trace)
        kinds = [("temperature_word_weight", (*at, *words.word_of(j).span, temperature))
                 for j in self.weights.keys]
        if self.more is not None:
            kinds.append(("temperature_word_rest", (*at, temperature, *self.weights.keys)))
        return kinds

    def texts_at(self, temperature: float) -> list[str]:
        """The list's texts at ``temperature``, as the book would write them."""
        texts = []
        for kind, index in self.where(temperature):
            value = lookup(self.trace, *shown_kind(kind, index, style.WEIGHT_DECIMALS))
            number = format_number(value, style.WEIGHT_DECIMALS)
            texts.append(self.weights.more_text(number) if kind == "temperature_word_rest"
                         else number)
        return texts

    def record(self, book, temperature: float) -> None:
        """Record the list's numbers at ``temperature`` as drawn (one rounding, the row's)."""
        for kind, index in self.where(temperature):
            book.text(kind, index, style.WEIGHT_DECIMALS)

    def set_temperature(self, temperature: float, opacity: float = 1.0) -> None:
        at_one = abs(temperature - 1.0) < 1e-9
        texts = [m.original_text for m in self.settled] if at_one else self.texts_at(temperature)
        for mob, text, home, scale, rest in zip(self.targets(), texts, self.settled,
                                                self.scales, self.is_rest):
            made = home if at_one else self.build(rest, text).scale(scale)
            # numbers keep their right edge (a column of figures), the rest line its left
            edge = LEFT if rest else RIGHT
            made = made.copy().move_to(home, aligned_edge=edge + DOWN)
            if len(made.submobjects) == len(mob.submobjects):   # else cannot be set in place
                for glyph, new in zip(mob.submobjects, made.submobjects):
                    glyph.set_points(new.points)
            mob.set_opacity(opacity)


class Retemper(Animation):
    """The listed weights fade, are rewritten for ``temperature`` in place, and return."""

    def __init__(self, listed: ListedWeights, temperature: float, **kwargs):
        self.listed, self.temperature, self.done = listed, temperature, False
        super().__init__(VGroup(*listed.targets()), **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        a = self.rate_func(alpha)
        for mob in self.listed.targets():
            mob.set_opacity(abs(1.0 - 2.0 * a))
        if a >= 0.5 and not self.done:
            self.listed.set_temperature(self.temperature, opacity=2.0 * a - 1.0)
            self.done = True


class Cool(Animation):
    """Lower the softmax temperature from ``start`` to 1 (geometrically); the masses, the
    springs, the centre, the listed weights and the temperature's readout follow.

    Manim draws the members an animation has when it begins, so the readout's number is
    redrawn each frame into a fixed set of glyph slots (a number's glyph count changes as
    it falls); :meth:`settle` puts the final readout in place afterwards."""

    def __init__(self, view: PullView, readout: VGroup, start: float,
                 listed: "ListedWeights | None" = None, **kwargs):
        self.view, self.readout, self.start, self.listed = view, readout, start, listed
        digits = readout[1]
        self.slots = [digits[0].copy() for _ in range(SLOTS)]
        readout.remove(digits)
        readout.add(VGroup(*self.slots))
        members = [view, readout] + (listed.targets() if listed is not None else [])
        super().__init__(VGroup(*members), **kwargs)

    def placed(self, t: float) -> VGroup:
        """The readout of ``t`` in the old one's place and size ("T =" stays put)."""
        fresh = temperature_readout(t)
        fresh.scale(self.readout[0].width / fresh[0].width, about_point=fresh[0].get_left())
        return fresh.shift(self.readout[0].get_left() - fresh[0].get_left())

    def interpolate_mobject(self, alpha: float) -> None:
        t = self.start ** (1.0 - self.rate_func(alpha))
        self.view.set_temperature(t)
        if self.listed is not None:
            self.listed.set_temperature(t)
        glyphs = self.placed(t)[1]
        for n, slot in enumerate(self.slots):
            slot.set_points(glyphs[n].points if n < len(glyphs) else np.zeros((0, 3)))

    def settle(self) -> None:
        """The readout at T = 1 as a proper word again (not slots)."""
        self.readout.remove(self.readout[1])
        self.readout.add(self.placed(1.0)[1])


SLOTS = 6        # glyphs the temperature's number may need ("1000.0" at most)


def temperature_text(t: float) -> str:
    """A temperature as the readout writes it: "1.0", "200"."""
    return f"{t:.1f}" if t < 100 else f"{t:.0f}"


def temperature_readout(t: float) -> VGroup:
    """ "temperature T = 1.0", on one baseline."""
    return line_of([("temperature T = ", style.PALETTE.soft),
                    (temperature_text(t), style.PALETTE.text)], style.FONT_LABEL)


class PullBeat(Beat):
    name = "pull"

    @classmethod
    def leaves(cls, film) -> Stage:
        # the followed head's row of the heads beat's table, which the weights list becomes
        book = film.book
        recorded = len(book.shown)
        row = head_rows(book).dots[film.trace.primary_slot]
        del book.shown[recorded:]           # the table's notes are drawn by the heads beat
        return Stage({Role.LINE: line(film.trace), Role.MAP: FormulaMap("values"),
                      Role.WEIGHTS: row})

    def hand_off(self) -> None:
        """The list of weights becomes the followed head's row of the table the heads
        beat opens on: each listed weight goes into its key's dot; the rest goes."""
        target = self.film.stage_left_by(type(self))
        weights = self.roles[Role.WEIGHTS]
        listed = dict(zip(weights.keys, weights.entries))
        moves, taken = self.overlay_moves(target)
        for j, dot in zip(drawn_indices(self.trace), target[Role.WEIGHTS]):
            if j in listed:
                moves.append(FadeTransform(listed[j], dot))
                taken.add(id(listed[j]))
            else:
                moves.append(FadeIn(dot))
        self.play_hand_off(moves, taken)

    def script(self):
        trace = self.trace
        self.word = trace.focus_word
        self.open(line(trace), "values")
        where = (trace.primary_slot, trace.focus_index)
        self.hot = float(self.book.value("hot_temperature", where))
        self.record("hot_temperature", where, 1 if self.hot < 100 else 0)   # the readout's
        self.view = PullView(self.book)
        self.the_values_as_points()
        self.equal_masses()
        self.cool_to_the_real_weights()
        self.the_sum()

    # ---- the values as points in a stated 2-D view ----------------------------------------
    def the_values_as_points(self):
        trace, view, pal = self.trace, self.view, style.PALETTE
        # the share the drawn view keeps: fitted on the drawn tokens, as views.value_view is
        pct = self.record("value_view_percent", (trace.primary_slot, *drawn_indices(trace)), 0)
        note = label_text(f"2-D view: uncentred PCA of {head_name(self.book, trace.primary_slot)}'s"
                          f" values\n({pct} % of their length). A linear map, so the\n"
                          "points' centre of mass is the output's picture", style.FONT_SMALL,
                          pal.dim)
        weights = self.stage[Role.WEIGHTS]
        # under the plane, at its left or else its right: wherever the weight list, moved
        # beside the plane, leaves it clear
        listed = weights.copy().shift(
            RIGHT * (LIST_RIGHT - weights.entries[0][0].get_right()[0]))
        for side in (LEFT, RIGHT):
            note.next_to(view.plane.plane, DOWN, buff=0.15).align_to(view.plane.plane, side)
            if note.get_bottom()[1] < stage.BOTTOM_EDGE:
                note.shift(UP * (stage.BOTTOM_EDGE - note.get_bottom()[1]))
            note.shift(RIGHT * max(0.0, stage.LEFT_EDGE - note.get_left()[0]))
            stage.keep_right_of(note)
            if not _boxes_meet(note, listed):
                break
        self.words = self.word_labels()
        view.set_temperature(self.hot)
        self.say(f"Each word's value is a point, in a 2-D view of {head_name(self.book, trace.primary_slot)}'s values")
        self.play(FadeIn(view.plane), FadeIn(note),
                  weights.animate.shift(RIGHT * (LIST_RIGHT - weights.entries[0][0].get_right()[0])),
                  run_time=style.T_SHORT)
        self.play(LaggedStart(*[FadeIn(d, scale=0.4) for d in view.dots], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(w) for w in self.words], lag_ratio=style.LAG_FEW),
                  run_time=style.T_MOVE)

    def word_labels(self) -> VGroup:
        trace, view = self.trace, self.view
        named = named_indices(trace)
        labels, anchors = [], []
        for n, j in enumerate(view.indices):
            if j not in named:
                continue
            color = style.PALETTE.query if j == view.focus else (
                style.PALETTE.special if trace.special[j] else style.PALETTE.text)
            label = user_text(mark_label(plot_label(trace, j)), style.FONT_SMALL, color)
            outlined(label)
            labels.append(label)
            anchors.append(view.anchors[n])
        # every dot as large as the sweep ever draws it (a light one is at its largest
        # when hot, a heavy one cooled): a label stays off it all through
        hot_view = view.set_temperature(self.hot)
        hot = [d.width for d in hot_view.dots]
        # the springs where the picture holds still: hot (an even pull) and at T = 1
        held = [(s.get_start().copy(), s.get_end().copy()) for s in hot_view.springs]
        final = view.set_temperature(1.0)
        boxes = [[*(d.get_center()[:2] - r / 2 - 0.04), *(d.get_center()[:2] + r / 2 + 0.04)]
                 for d, r in zip(final.dots, np.maximum(hot, [d.width for d in final.dots]))]
        # a label stays off every dot, its own too: the anchor is the dot's centre
        layout = place_labels(labels, anchors, directions=[a - final.centre.get_center()
                                                           for a in anchors],
                              segments=[(s.get_start(), s.get_end()) for s in final.springs]
                              + held + view.plane.axes,
                              keep_clear=boxes, bounds=view.plane.plane,
                              solo=range(len(labels)))
        return VGroup(*[VGroup(label, layout.extras[n]) for n, label in enumerate(labels)])

    # ---- equal masses: the plain average ----------------------------------------------------
    def equal_masses(self):
        view, pal = self.view, style.PALETTE
        weights = self.stage[Role.WEIGHTS]
        self.readout = temperature_readout(self.hot)
        formula = make_math("w = op(\"softmax\")(op(\"scores\") \\/ T)", font_size=32,
                            color=pal.soft)
        self.column = VGroup(formula, self.readout).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        self.column.next_to(weights, RIGHT, buff=COLUMN_GAP).align_to(weights, UP)
        self.fit_column()
        self.clear_of_long_words(weights)
        self.listed = ListedWeights(weights, self.trace)
        self.listed.record(self.book, self.hot)
        self.say(f"At T = {temperature_text(self.hot)} the weights are all nearly equal: "
                 "the centre is the plain average")
        self.play(LaggedStart(*[FadeIn(s) for s in view.springs], lag_ratio=style.LAG_MANY),
                  FadeIn(view.centre, scale=0.5), FadeIn(self.column),
                  Retemper(self.listed, self.hot), run_time=style.T_MOVE)

    def fit_column(self):
        """Keep the column of formulas on the stage: shrink it (never below the smallest
        font) when the weights list's words push it past the right edge."""
        room = stage.RIGHT_EDGE - self.column.get_left()[0]
        self.column_scale = min(1.0, max(room / self.column.width,
                                         style.MIN_FONT / style.FONT_LABEL))
        self.column.scale(self.column_scale, about_edge=LEFT)
        stage.keep_right_of(self.column)

    def clear_of_long_words(self, weights):
        """A long word in the list (a word as written, "Straßenbahnhaltestelle") may leave
        the column no room beside it: the column then stands below the last row that
        reaches under it, beside the shorter rows."""
        rows = [*weights.entries, *([weights.more] if weights.more is not None else [])]
        reaching = [n for n, row in enumerate(rows)
                    if row.get_right()[0] + COLUMN_GAP > self.column.get_left()[0]]
        if not reaching:
            return
        self.column.shift(UP * (rows[reaching[-1]].get_bottom()[1] - COLUMN_GAP
                                - self.column.get_top()[1]))

    # ---- cool to temperature 1: the model's own weights ---------------------------------------
    def cool_to_the_real_weights(self):
        trace, words = self.trace, WordModel.of_trace(self.trace)
        # the two heaviest words drawn, each the sum of its pieces (never a piece): the
        # picture's centre is the drawn keys'; a heavier word the window leaves out is
        # said to lie outside it
        slot = trace.primary_slot
        groups = [[w] for group in ranked_words(self.book, slot, among=drawn_words(trace))
                  for w in group][:2]
        heavy = " and ".join(word_quoted(words.words[w]) for w, in groups)
        listed_claim(self.book, slot, groups, heavy, among="drawn")
        outside = outside_said(self.book, heavier_outside(self.book, slot,
                                                          [w for w, in groups]))
        self.say(f"Cooled to T = {temperature_text(1.0)}, the model's own weights: the centre "
                 f"is pulled toward {heavy}" + (f" ({outside})" if outside else ""))
        cooling = Cool(self.view, self.readout, start=self.hot, listed=self.listed)
        self.play(cooling, run_time=style.T_COOL, rate_func=style.EASE)
        cooling.settle()

    # ---- the output, written ------------------------------------------------------------------
    def the_sum(self):
        pal, view = style.PALETTE, self.view
        name = line_of([(self.word, ("user", pal.output)), ("\u2032", pal.output)],
                       style.FONT_LABEL)
        # beside the centre, clear of every word, dot, spring and axis (as the words are)
        others = [w for w in self.words if w.has_points() or w.submobjects]
        place_labels([name], [view.centre.get_center()],
                     segments=[(sp.get_start(), sp.get_end()) for sp in view.springs]
                     + view.plane.axes,
                     keep_clear=[*others, *view.dots, view.centre], keep_clear_owner=None,
                     bounds=view.plane.plane, solo=[0])
        outlined(name)
        equation = VGroup(name.copy().set_stroke(width=0, background=True),
                          make_math("= sum_j w_j arrow(bold(v))_j", color=pal.output,
                                    font_size=style.FONT_LABEL * 1.2))
        equation.arrange(RIGHT, buff=0.15)
        equation.scale(self.column_scale)
        equation.next_to(self.column, DOWN, buff=0.5).align_to(self.column, LEFT)
        stage.keep_right_of(equation)
        self.say(f"The output of {focus_name(self.trace)} is that centre: the weighted sum of "
                 "the values")
        self.play(FadeIn(name, shift=UP * 0.1), Write(equation), run_time=style.T_STEP)


def _boxes_meet(a, b, gap: float = 0.1) -> bool:
    """Whether the boxes of ``a`` and ``b`` come within ``gap`` of each other."""
    return not (a.get_right()[0] + gap < b.get_left()[0]
                or b.get_right()[0] + gap < a.get_left()[0]
                or a.get_top()[1] + gap < b.get_bottom()[1]
                or b.get_top()[1] + gap < a.get_bottom()[1])
