"""A decoder writes, one token at a time (``attention_core.generation.Generation``): the
cache of keys drawn as a row that grows by a token each step. At each step the model's
next-token distribution (its five likeliest, the chosen one the likeliest: greedy), the new
token taking its place at the end of the row, its query's sparks to every key of the cache
(the mean weight of the heads shown) and the first token's share; the cache then holds its
key too. Last, where the first token takes most of the weight, the attention sink named,
with why. Its beats (``facts.WRITING_BEAT_FACTS``: the prompt, a step per token, the sink)
run on the explainer's film and pipeline; every number drawn is recorded in the film's
book and every claim too, for the claims audit (``claims``).
"""
from __future__ import annotations

import math
from manim import (DOWN, LEFT, RIGHT, UP, FadeIn, FadeOut, LaggedStart, Rectangle, VGroup,
                   Write)

from ..attention_core.generation import SINK_SHARE
from ..attention_core.word_model import SPACE_TOKEN
from .film.beat import Stage, ViewBeat
from .film.scene import FilmScene
from .vocabulary import style
from .vocabulary.scripts import reads_right_to_left
from .vocabulary.sparks import Spark, SparkTravel
from .vocabulary.text import label_text, line_of, wrapped
from .vocabulary.tokens import TokenRow

__all__ = ["WritingFilm", "drawn_tokens"]

ROW_Y = 0.75
ROW_WIDTH = 13.0
PANEL_TOP, PANEL_X = -1.1, -6.4
BAR_WIDTH = 3.2           # a probability of 1 is this long


def _shown(text: str) -> str:
    """A token as drawn: its spaces trimmed (a space alone, the space token), a control
    character as its Unicode picture (U+2400 on), never an invisible glyph."""
    text = "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else "\u2421" if c == "\x7f"
                   else c for c in text.strip())
    return text or SPACE_TOKEN


def drawn_tokens(generation) -> list[int]:
    """The positions of the final cache a row draws: all where they fit legibly (at most
    ``style.MAX_TOKENS_DRAWN``); else the first token (where a sink parks weight), then
    every token written and as many of the prompt's last as fit."""
    texts = [_shown(t) for t in generation.written[-1].keys]
    every = list(range(len(texts)))

    def fits(indices):
        row = TokenRow(texts, indices=indices, max_width=ROW_WIDTH)
        return len(indices) <= style.MAX_TOKENS_DRAWN and \
            row.drawn_size >= style.MIN_FONT - 1e-6
    if fits(every):
        return every
    prompt = len(generation.prompt)
    chosen = sorted({0, *range(prompt, len(texts))})
    for j in range(prompt - 1, 0, -1):
        if not fits(sorted({*chosen, j})):
            break
        chosen = sorted({*chosen, j})
    return chosen


class WritingFilm(FilmScene):
    """The film of ``generation``, every beat (or ``beats``): the explainer's film on the
    writing film's storyboard."""

    def __init__(self, generation, beats=None, **kwargs):
        super().__init__(trace=generation, beats=beats, **kwargs)


class Layout:
    """What every beat of one generation's film draws alike: its row of tokens, the title
    and the cache's label."""

    def __init__(self, generation):
        self.generation = generation
        self.drawn = drawn_tokens(generation)
        self.texts = [_shown(t) for t in generation.written[-1].keys]
        self.prompt = len(generation.prompt)

    def row(self) -> TokenRow:
        row = TokenRow(self.texts, indices=self.drawn, max_width=ROW_WIDTH,
                       right_to_left=reads_right_to_left(self.texts)).set_y(ROW_Y)
        if row.window_note is not None:
            row.remove(row.window_note)
        return row

    def title(self) -> VGroup:
        g, pal = self.generation, style.PALETTE
        title = label_text(f"One token at a time: {g.model}, layer {g.layer}",
                           style.FONT_BODY).to_edge(UP, buff=0.35)
        heads = len(g.heads)
        note = VGroup(*[label_text(line, style.FONT_SMALL, pal.soft) for line in wrapped(
            "greedy: each token is the likeliest of the model's next-token distribution; "
            f"sparks: the new token's query, the mean of {heads} head{'s' * (heads != 1)}"
            + (f"; showing {len(self.drawn)} of the {len(self.texts)} tokens"
               if len(self.drawn) < len(self.texts) else ""), 13.0).split("\n")])
        note.arrange(DOWN, buff=0.08).next_to(title, DOWN, 0.15)
        return VGroup(title, note)

    def cache(self, steps: int, row: TokenRow | None = None) -> VGroup:
        """The cache after ``steps`` tokens written: the prompt's chips (and the window's
        ellipses), then each token written, its key joined (of ``row``: a new one)."""
        row = row or self.row()
        written = [row.chip(j) for j in range(self.prompt, len(self.texts))]
        for chip in written[:steps]:
            chip.set_role_color(style.PALETTE.query)
            chip.box.set_stroke(style.PALETTE.key)
        return VGroup(*[c for c in row.chips if c not in written], *row.ellipses,
                      *written[:steps])

    @staticmethod
    def label(cache) -> VGroup:
        return label_text("the cache: a key for every token so far", style.FONT_SMALL,
                          style.PALETTE.key).next_to(cache, UP, buff=0.75)

    def first_share(self, book_number, n: int, row: TokenRow) -> VGroup:
        """"first token: x", over the first token, for step ``n`` (0-based)."""
        pal = style.PALETTE
        first = VGroup(label_text("first token:", style.FONT_SMALL, pal.soft),
                       book_number("first_share", (n,), font_size=style.FONT_SMALL))
        first.arrange(RIGHT, buff=0.12).next_to(row.chip(0), UP, buff=0.15)
        return first.align_to(row.chip(0), LEFT)


class WritingBeat(ViewBeat):
    """A beat of the writing film: its generation and layout at hand."""
    layout_class = Layout

    def __init__(self, film, stage: Stage):
        super().__init__(film, stage)
        self.generation = film.trace


def layout_of(film) -> Layout:
    """The film's :class:`Layout`, made once."""
    return WritingBeat.layout_of(film)


class PromptBeat(WritingBeat):
    name = "prompt"
    hold = style.T_PAUSE

    @classmethod
    def leaves(cls, film) -> Stage:
        layout = layout_of(film)
        cache = layout.cache(0)
        return Stage(title=layout.title(), label=layout.label(cache), row=cache)

    def script(self) -> None:
        stage = self.leaves(self.film)
        self.roles.update(stage)
        self.say("The prompt's tokens: the cache, a key for every token so far, which each "
                 "new token's query reads")
        self.play(Write(stage["title"][0]), FadeIn(stage["title"][1]), run_time=style.T_SHORT)
        self.play(FadeIn(stage["row"]), FadeIn(stage["label"]), run_time=style.T_STEP)


class StepBeat(WritingBeat):
    """Step n: the next-token distribution, the new token in its place, its query's
    sparks to every key before it, the first token's share, its key joining the cache."""
    name = "step1"

    @classmethod
    def handles(cls, name: str) -> bool:
        return name.startswith("step") and name[4:].isdigit()

    @classmethod
    def step(cls) -> int:
        return int(cls.name[4:])

    @classmethod
    def leaves(cls, film) -> Stage:
        layout, n = layout_of(film), cls.step()
        row = layout.row()
        cache = layout.cache(n, row)
        return Stage(title=layout.title(), label=layout.label(cache), row=cache,
                     first=layout.first_share(film.book.text_mobject, n - 1, row))

    def script(self) -> None:
        g, layout, pal = self.generation, self.layout, style.PALETTE
        n = self.step() - 1
        w = g.written[n]
        row = layout.row()
        chip = row.chip(layout.prompt + n)
        chip.set_role_color(pal.query)
        panel = self._panel(n)
        self.say(f"Token {n + 1}: \u2018{_shown(w.text)}\u2019, the likeliest "
                 f"({self.record('probability', (n, 0))})")
        self.play(FadeIn(panel), run_time=style.T_SHORT)
        self.play(FadeIn(chip, shift=DOWN * 0.15), run_time=style.T_SHORT)
        mean = w.weights.mean(axis=0)
        own = len(w.keys) - 1
        top = float(mean.max()) or 1.0
        sparks = [Spark(chip.get_bottom() + DOWN * 0.05,
                        row.chip(j).get_bottom() + DOWN * 0.05, float(mean[j]) / top,
                        angle=math.pi / 2.2, side=DOWN, seed=j)
                  for j in layout.drawn if j < own]
        first = layout.first_share(self.number, n, row)
        self.say(f"Its query reads the cache; the first token takes "
                 f"{first[1].original_text}")
        if sparks:
            self.add(*sparks)
            self.play(LaggedStart(*[SparkTravel(s) for s in sparks], lag_ratio=0.06),
                      run_time=style.T_BUNDLE / 2)
            self.remove(*sparks)
        old = self.roles.get("first")
        self.play(FadeIn(first), *([FadeOut(old)] if old is not None else []),
                  run_time=style.T_QUICK)
        self.play(chip.box.animate.set_stroke(pal.key), FadeOut(panel),
                  run_time=style.T_QUICK)      # its key joins the cache
        self.remove(chip)
        self.roles["row"].add(chip)
        self.roles["first"] = first

    def _panel(self, n: int) -> VGroup:
        """The next-token distribution's five likeliest, the chosen one first."""
        pal = style.PALETTE
        w = self.generation.written[n]
        heading = label_text("next token, as the model's head gives it:", style.FONT_SMALL,
                             pal.soft)
        heading.move_to([PANEL_X + heading.width / 2, PANEL_TOP - heading.height / 2, 0])
        lines = VGroup(heading)
        for rank, (text, p) in enumerate(w.top):
            colour = pal.query if rank == 0 else pal.text
            word = line_of([("\u2018", pal.text), (_shown(text), ("user", colour)),
                            ("\u2019", pal.text)], style.FONT_SMALL)
            bar = Rectangle(width=max(0.02, BAR_WIDTH * p), height=0.22, stroke_width=0,
                            fill_color=colour, fill_opacity=0.85)
            value = self.number("probability", (n, rank), font_size=style.FONT_SMALL)
            # the words right-aligned against one column of bars, a line each
            y = heading.get_bottom()[1] - 0.32 - 0.42 * rank
            word.move_to([PANEL_X + 1.7 - word.width / 2, y, 0])
            bar.move_to([PANEL_X + 1.95 + bar.width / 2, y, 0])
            value.next_to(bar, RIGHT, buff=0.15)
            lines.add(VGroup(word, bar, value))
        self.book.claim("greedy", (n,), w.text)
        return lines


class SinkBeat(WritingBeat):
    """The first token's share over every step: named an attention sink, with why, where
    it takes most; else what it took."""
    name = "sink"

    @classmethod
    def leaves(cls, film) -> Stage:
        from .film.registry import load_beat

        return load_beat(f"step{film.trace.steps}").leaves(film)

    def script(self) -> None:
        g, pal = self.generation, style.PALETTE
        share = g.mean_first_share()
        value = self.record("mean_first_share")
        if share > SINK_SHARE:
            said = (f"The first token took {value} of each new token's weight on average: an "
                    "attention sink. A softmax must give a row's whole weight somewhere; a head "
                    "with nothing to look for parks it on the first token, which every query "
                    "can see.")
        else:
            said = (f"The first token took {value} of each new token's weight on average: "
                    "no sink here (a sink takes more than half).")
        self.book.claim("sink", (share > SINK_SHARE,), said)
        text = VGroup(*[label_text(line, style.FONT_SMALL, pal.text)
                        for line in wrapped(said, 12.6).split("\n")])
        text.arrange(DOWN, buff=0.1).to_edge(DOWN, buff=0.6)
        self.roles["sink"] = text
        self.say(said)
        last = self.roles.pop("first", None)    # the last step's share: not the mean said
        self.play(FadeIn(text), *([FadeOut(last)] if last is not None else []),
                  run_time=style.T_STEP)
