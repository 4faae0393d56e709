"""The why beat (optional, ``--beats …,why``; a pre-norm model): why the followed head
attends where it does. A score is q·k; with the query kept whole, each key is made of the
parts of the residual stream the layer reads (the token's embedding, its position, what
each earlier layer's attention and MLP wrote) through the norm and W_K. The focus word's
highest-scoring keys are rows; each score is a stacked bar of those parts by kind (the
positive ones to the right of zero, the negative to the left), ending where the score is,
its number beside it.

Every number is read from ``meta["why"]`` (``attention_core.why.with_why``, run before the
film: the drawing runs no model).
"""
from __future__ import annotations

from manim import (LEFT, RIGHT, UP, FadeIn, FadeOut, GrowFromEdge, LaggedStart, Line, Rectangle,
                   VGroup)

from ....attention_core.derived_flow import why
from ....attention_core.word_model import WordModel, ordinal
from ...vocabulary import stage, style
from ...vocabulary.headers import beat_line, head_name, layer_name
from ...vocabulary.text import label_text, line_of
from ..beat import Beat, Role
from ...vocabulary.formula import ROOT_DK, divisor
from ..wording import focus_name, focus_parts, told_parts, word_name

__all__ = ["WhyBeat"]

BARS_RIGHT = 4.0                  # the bars end here at most (their scores after it)
LABEL_GAP = 0.4                   # between the keys' labels and the bars
MARGIN = 0.25                     # the labels' left edge in from the stage's
SEEN = 0.005                      # a kind of part smaller than this in every bar: no legend
ROW_TOP, ROW_BOTTOM = 1.75, -1.75
BAR_HEIGHT = 0.34
SAID = {"token embedding": "its token embedding", "position": "its position vector",
        "earlier attention": "what earlier layers' attention wrote into it",
        "earlier MLPs": "what earlier layers' MLPs wrote into it",
        "norm and key bias": "the constant the norm and W_K add"}


class WhyBeat(Beat):
    name = "why"

    def script(self):
        trace = self.trace
        self.found = why(trace)
        self.words = WordModel.of_trace(trace)
        leaving = [FadeOut(m) for role, m in self.stage.items()
                   if role not in Role.OVERLAY and m in self.film.mobjects]
        for role in [r for r in self.stage if r not in Role.OVERLAY]:
            self.roles.pop(role, None)
        self.open(beat_line("Why ", *focus_parts(trace), " looks where it does"), None,
                  *leaving)
        over = "\u221ad_k" if divisor() == ROOT_DK else divisor()
        self.say(f"A score is q\u00b7k/{over}. Keep the query of {self.subject} whole, and "
                 f"split each key into what made it, in {layer_name(self.book)}, "
                 f"{head_name(self.book, trace.primary_slot)}: the six highest scores")
        self.the_rows()
        self.the_bars()
        self.the_reading()

    @property
    def subject(self) -> str:
        return focus_name(self.trace)

    def y(self, n: int) -> float:
        count = len(self.found["keys"])
        return ROW_TOP - (ROW_TOP - ROW_BOTTOM) * n / max(count - 1, 1)

    def color(self, group: str) -> str:
        """A colour per kind of part (the heads' colours: no role's), the constant grey."""
        from ....attention_core.why import GROUPS

        pal = style.PALETTE
        if group == GROUPS[-1]:
            return pal.dim
        # four of the heads' colours far apart in hue: green, pink, blue, orange (3b1b's)
        return pal.heads[(0, 1, 3, 4)[GROUPS.index(group)] % len(pal.heads)]

    def the_rows(self):
        pal = style.PALETTE
        labels = self.labels = VGroup()
        for j in self.found["keys"]:
            word = self.words.word_of(j)
            text = self.trace.display_tokens[j]
            parts = [(text, ("user", pal.text))]
            # a piece written the same as another piece of its word: which one
            twins = [k for k in word.pieces if self.trace.display_tokens[k] == text]
            if len(twins) > 1:
                parts.append((f"\u00a0({ordinal(twins.index(j) + 1)})", pal.soft))
            if word.split:               # a piece of a word: the word it is in
                parts += [(" in ", pal.soft), (word.text, ("user", pal.soft))]
            parts += told_parts(word, pal.soft)
            if j == self.trace.focus_index:
                parts.append((" itself", pal.soft))
            labels.add(line_of(parts, style.FONT_LABEL))
        right = stage.LEFT_EDGE + MARGIN + max(label.width for label in labels)
        for n, label in enumerate(labels):
            label.move_to([right, self.y(n), 0], aligned_edge=RIGHT)
        self.bars_left = right + LABEL_GAP
        zero = Line([self.zero_x, ROW_TOP + 0.45, 0], [self.zero_x, ROW_BOTTOM - 0.45, 0],
                    stroke_width=2, color=pal.dim)
        shown = [g for g in self.found["groups"]
                 if max(abs(x) for x in self.found["parts"][g]) >= SEEN]
        names = [label_text(g, style.FONT_SMALL, pal.soft) for g in shown]
        legend = VGroup(*[VGroup(Rectangle(width=0.26, height=0.2).set_fill(
            self.color(g), 0.9).set_stroke(width=0), name).arrange(RIGHT, buff=0.12)
            for g, name in zip(shown, names)])
        legend.arrange(RIGHT, buff=0.4)
        for entry in legend:             # one line of text: their tops level, not centres
            entry[1].align_to(legend[0][1], UP)
            entry[0].move_to([entry[0].get_x(), legend[0][0].get_y(), 0])
        if legend.width > stage.TEXT_WIDTH:           # two rows, never smaller text
            legend.arrange_in_grid(rows=2, buff=(0.4, 0.18), col_alignments="l" * 3)
        legend.move_to([0, ROW_BOTTOM - 0.95 - (legend.height - 0.3) / 2, 0])
        self.legend = legend
        self.play(FadeIn(labels), FadeIn(zero), FadeIn(legend), run_time=style.T_STEP)

    @property
    def extents(self) -> tuple[float, float]:
        """The longest stack of negative parts and of positive ones, over the keys."""
        found, keys = self.found, range(len(self.found["keys"]))
        return (max(sum(-min(v[n], 0) for v in found["parts"].values()) for n in keys),
                max(sum(max(v[n], 0) for v in found["parts"].values()) for n in keys))

    @property
    def unit(self) -> float:
        return (BARS_RIGHT - self.bars_left) / (sum(self.extents) or 1.0)

    @property
    def zero_x(self) -> float:
        return self.bars_left + self.extents[0] * self.unit

    def the_bars(self):
        found, unit, zero_x = self.found, self.unit, self.zero_x
        bars, numbers = VGroup(), VGroup()
        for n in range(len(found["keys"])):
            right = left = zero_x
            for g in found["groups"]:
                value = found["parts"][g][n]
                width = abs(value) * unit
                if width < 0.01:
                    continue
                bar = Rectangle(width=width, height=BAR_HEIGHT).set_stroke(width=0)
                bar.set_fill(self.color(g), 0.9)
                if value > 0:
                    bar.move_to([right + width / 2, self.y(n), 0])
                    right += width
                else:
                    bar.move_to([left - width / 2, self.y(n), 0])
                    left -= width
                bars.add(bar)
            score = self.number("why_score", (n,), decimals=2, signed=True,
                                font_size=style.FONT_LABEL, color=style.PALETTE.text)
            numbers.add(score.next_to([right + 0.15, self.y(n), 0], RIGHT, buff=0))
        self.say("Each bar is one key's score, its parts stacked: right of the line they "
                 "raise it, left they lower it")
        self.play(LaggedStart(*[GrowFromEdge(b, LEFT if b.get_center()[0] > zero_x
                                             else RIGHT) for b in bars], lag_ratio=0.03),
                  run_time=style.T_BUILD)
        self.play(LaggedStart(*[FadeIn(s, shift=LEFT * 0.1) for s in numbers],
                              lag_ratio=0.1), run_time=style.T_STEP)

    def the_reading(self):
        """The highest score, and the kind of part that gives it the most."""
        found = self.found
        best = max(range(len(found["keys"])), key=lambda n: (found["scores"][n], -n))
        group = max(found["groups"], key=lambda g: (found["parts"][g][best], g))
        key = word_name(self.trace, found["keys"][best])
        part = self.record("why_part", (best, found["groups"].index(group)), 2, signed=True)
        score = self.record("why_score", (best,), 2, signed=True)
        self.say(f"The highest score here, {score} with {key}: {part} of it comes from "
                 f"{SAID[group]}")
        self.wait(style.T_STEP)
