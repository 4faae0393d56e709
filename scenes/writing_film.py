"""A decoder writes, one token at a time (``attention_core.generation.Generation``): the
cache of keys drawn as a row that grows by a token each step. At each step the model's
next-token distribution (its five likeliest, the chosen one the likeliest: greedy), the new
token taking its place at the end of the row, its query's sparks to every key of the cache
(the mean weight of the heads shown) and the first token's share; the cache then holds its
key too. Last, where the first token takes most of the weight, the attention sink named,
with why. Every number drawn is recorded in ``shown`` and every claim in ``claims``.
"""
from __future__ import annotations

import math
from pathlib import Path

from manim import (DOWN, LEFT, RIGHT, UP, FadeIn, FadeOut, LaggedStart, Rectangle, VGroup,
                   Write)

from ..attention_core.generation import SINK_SHARE
from ..attention_core.word_model import SPACE_TOKEN
from .film.readouts import format_number
from .film.scene import FilmScene
from .vocabulary import style
from .vocabulary.scripts import reads_right_to_left
from .vocabulary.sparks import Spark, SparkTravel
from .vocabulary.text import label_text, line_of, wrapped
from .vocabulary.tokens import TokenRow

__all__ = ["WritingFilm", "drawn_tokens", "write_writing_film"]

ROW_Y = 0.75
ROW_WIDTH = 13.0
PANEL_TOP, PANEL_X = -1.1, -6.4
BAR_WIDTH = 3.2           # a probability of 1 is this long


def _shown(text: str) -> str:
    return text.strip() or SPACE_TOKEN


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
    """The film of ``generation``; ``shown`` holds (beat, what, index, text) of every
    number drawn, ``claims`` (beat, kind, facts, said) of every claim in words."""

    def __init__(self, generation, **kwargs):
        self.generation = generation
        self.shown: list[tuple] = []
        self.claims: list[tuple] = []
        self.drawn = drawn_tokens(generation)
        super().__init__(trace=generation, beats=["title"], **kwargs)

    def number(self, what: str, index: tuple, value: float, **kwargs):
        text = format_number(value, 2)
        self.shown.append((self.book.beat, what, tuple(index), text))
        return label_text(text, **kwargs)

    def construct(self) -> None:
        g, pal = self.generation, style.PALETTE
        self.book.beat = "cache"
        texts = [_shown(t) for t in g.written[-1].keys]
        self.row = TokenRow(texts, indices=self.drawn, max_width=ROW_WIDTH,
                            right_to_left=reads_right_to_left(texts)).set_y(ROW_Y)
        if self.row.window_note is not None:
            self.row.remove(self.row.window_note)
        prompt = len(g.prompt)
        title = label_text(f"One token at a time: {g.model}, layer {g.layer}",
                           style.FONT_BODY).to_edge(UP, buff=0.35)
        heads = len(g.heads)
        note = VGroup(*[label_text(line, style.FONT_SMALL, pal.soft) for line in wrapped(
            "greedy: each token is the likeliest of the model's next-token distribution; "
            f"sparks: the new token's query, the mean of {heads} head{'s' * (heads != 1)}"
            + (f"; showing {len(self.drawn)} of the {len(texts)} tokens"
               if len(self.drawn) < len(texts) else ""), 13.0).split("\n")])
        note.arrange(DOWN, buff=0.08).next_to(title, DOWN, 0.15)
        label = label_text("the cache: a key for every token so far", style.FONT_SMALL,
                           pal.key).next_to(self.row, UP, buff=0.75)
        written = [self.row.chip(j) for j in range(prompt, len(texts))]
        prompt_part = VGroup(*[c for c in self.row.chips if c not in written],
                             *self.row.ellipses)
        self.play(Write(title), FadeIn(note), run_time=style.T_SHORT)
        self.play(FadeIn(prompt_part), FadeIn(label), run_time=style.T_STEP)
        self.mark_key_frame("cache")
        self.wait(style.T_PAUSE)
        self.first = None
        for n, chip in enumerate(written):
            self.book.beat = f"step {n + 1}"
            self._step(n, chip)
        self.book.beat = "sink"
        self._sink()
        self.mark_key_frame("sink")
        self.wait(style.T_LAST_HOLD)
        if self.audit:
            self.settle_faults()

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
            value = self.number("probability", (n, rank), p, font_size=style.FONT_SMALL)
            # the words right-aligned against one column of bars, a line each
            y = heading.get_bottom()[1] - 0.32 - 0.42 * rank
            word.move_to([PANEL_X + 1.7 - word.width / 2, y, 0])
            bar.move_to([PANEL_X + 1.95 + bar.width / 2, y, 0])
            value.next_to(bar, RIGHT, buff=0.15)
            lines.add(VGroup(word, bar, value))
        self.claims.append((self.book.beat, "greedy", (n,), w.text))
        return lines

    def _step(self, n: int, chip) -> None:
        g, pal = self.generation, style.PALETTE
        w = g.written[n]
        panel = self._panel(n)
        chip.set_role_color(pal.query)
        self.play(FadeIn(panel), run_time=style.T_SHORT)
        self.play(FadeIn(chip, shift=DOWN * 0.15), run_time=style.T_SHORT)
        mean = w.weights.mean(axis=0)
        own = len(w.keys) - 1
        top = float(mean.max()) or 1.0
        sparks = [Spark(chip.get_bottom() + DOWN * 0.05,
                        self.row.chip(j).get_bottom() + DOWN * 0.05, float(mean[j]) / top,
                        angle=math.pi / 2.2, side=DOWN, seed=j)
                  for j in self.drawn if j < own]
        if sparks:
            self.add(*sparks)
            self.play(LaggedStart(*[SparkTravel(s) for s in sparks], lag_ratio=0.06),
                      run_time=style.T_BUNDLE / 2)
            self.remove(*sparks)
        first = VGroup(label_text("first token:", style.FONT_SMALL, pal.soft),
                       self.number("first_share", (n,), float(mean[0]),
                                   font_size=style.FONT_SMALL))
        first.arrange(RIGHT, buff=0.12).next_to(self.row.chip(0), UP, buff=0.15)
        first.align_to(self.row.chip(0), LEFT)
        shown = [FadeIn(first)] + ([FadeOut(self.first)] if self.first is not None else [])
        self.play(*shown, run_time=style.T_QUICK)
        self.first = first
        self.play(chip.box.animate.set_stroke(pal.key), FadeOut(panel),
                  run_time=style.T_QUICK)      # its key joins the cache

    def _sink(self) -> None:
        """The first token's share over every step: named an attention sink, with why,
        where it takes most; else what it took."""
        g, pal = self.generation, style.PALETTE
        share = g.mean_first_share()
        value = format_number(share, 2)
        self.shown.append(("sink", "mean_first_share", (), value))
        if share > SINK_SHARE:
            said = (f"The first token took {value} of each new token's weight on average: an "
                    "attention sink. A softmax must give a row's whole weight somewhere; a head "
                    "with nothing to look for parks it on the first token, which every query "
                    "can see.")
        else:
            said = (f"The first token took {value} of each new token's weight on average: "
                    "no sink here (a sink takes more than half).")
        self.claims.append(("sink", "sink", (share > SINK_SHARE,), said))
        text = VGroup(*[label_text(line, style.FONT_SMALL, pal.text)
                        for line in wrapped(said, 12.6).split("\n")])
        text.arrange(DOWN, buff=0.1).to_edge(DOWN, buff=0.6)
        self.play(FadeIn(text), run_time=style.T_STEP)


def write_writing_film(generation, target: Path, *, width: int, height: int, fps: int,
                       scratch: Path, poster: Path | None = None) -> None:
    """Render the film of ``generation`` to ``target`` (an MP4, the film's own encoding),
    its media in ``scratch``; ``poster``: its last picture as a PNG."""
    from .pipeline.capture import render_alone
    from .translation_film import poster_frame

    scene = render_alone(lambda renderer: WritingFilm(generation, renderer=renderer), target,
                         width=width, height=height, fps=fps, scratch=scratch)
    if poster is not None:
        poster_frame(target, scene.key_times["sink"], poster)
