"""The film of a translation's cross-attention (``attention_core.translation.CrossView``):
two rows of tokens as the Illustrated Transformer draws them, the source (the encoder's,
where the keys and values come from) above and the target (the decoder's, where the
queries come from) below.

Its beats (``facts.TRANSLATION_BEAT_FACTS``), each a :class:`Beat` on the explainer's
film and pipeline (beat cache, segments, captions, chapters, voice, --length, the pack):
the question (which source words does the focus word draw on?), the sparks from its query
to every source key, the weights they carry (bars, the heaviest written), the masks (the
decoder's causal one; cross-attention has none but padding), every head's row, the
alignment and the answer. Every number drawn is recorded in the film's book and every
claim too, so the claims audit re-derives them from the view (``claims``).
"""
from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, GrowFromEdge, LaggedStart,
                   Line, Rectangle, VGroup, Write)

from ..attention_core.word_model import PIECES_SUM_NOTE
from ..facts import TRANSLATION_BEATS
from .film.beat import Stage, ViewBeat
from .film.readouts import format_number
from .film.scene import FilmScene
from .vocabulary import style
from .translation_views import (WRITTEN, centred_lines, drawn_windows, fitted_grid,
                                mark_focus, row, rows_box, side_lines, side_text,
                                spark_trail, spread_numbers)
from .vocabulary.scripts import in_their_words
from .vocabulary.sparks import Spark, SparkTravel
from .vocabulary.text import label_text, line_of

__all__ = ["BEATS", "TranslationFilm"]

BEATS = TRANSLATION_BEATS
SOURCE_Y, TARGET_Y = 1.15, -1.35
BAR_HEIGHT = 1.1          # a weight of 1 stands this tall above its source word
# the grids' beats: a grid on the left under the title, words in a column on the right
GRID_WIDTH, GRID_HEIGHT, GRID_Y = 8.6, 6.5, -0.45
SHOWN_CHARS = 14          # a word quoted in our wording is cut to this many characters


def _word(text: str) -> str:
    """A word as our wording quotes it: whole, or its start and an ellipsis where it is
    longer than a caption can hold (an untrained model's translation may be one long run)."""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "\u2026"


def _quote(text: str) -> str:
    return f"\u2018{_word(text)}\u2019"


class TranslationFilm(FilmScene):
    """The cross-attention film of ``view``, every beat (or ``beats``): the explainer's
    film on the translation's storyboard."""

    def __init__(self, view, beats=None, **kwargs):
        super().__init__(trace=view, beats=beats, **kwargs)


class Layout:
    """What every beat of one view's film draws alike: the tokens' texts and the windows
    of its rows and grids."""

    def __init__(self, view):
        self.view = view
        # a piece of a right-to-left word is drawn in the form its word gives it
        self.source_texts = in_their_words(view.source, view.source_words)
        self.target_texts = in_their_words(view.target, view.target_words)
        self.src, self.tgt = drawn_windows(view)
        self.grid_src, self.grid_tgt = drawn_windows(view, grid=True)

    def window_note(self, kinds=("source", "target"), grid: bool = False) -> str:
        view, notes = self.view, []
        src, tgt = (self.grid_src, self.grid_tgt) if grid else (self.src, self.tgt)
        for what, drawn, count in (("source", src, len(view.source)),
                                   ("target", tgt, len(view.target))):
            if what in kinds and len(drawn) < count:
                notes.append(f"{len(drawn)} of the {count} {what} tokens")
        return f" (showing {' and '.join(notes)})" if notes else ""

    def unknown_note(self) -> str:
        """Where the model read text as its unknown token: what that token is, how many."""
        view = self.view
        counts = [(sum(unknown), what) for unknown, what in ((view.source_unknown, "source"),
                                                            (view.target_unknown, "target"))
                  if any(unknown)]
        if not counts:
            return ""
        name = next(view.source[j] for j, u in enumerate(view.source_unknown) if u) \
            if any(view.source_unknown) else \
            next(view.target[j] for j, u in enumerate(view.target_unknown) if u)
        said = " and ".join(f"{n} {what} token{'s' * (n != 1)}" for n, what in counts)
        return f"{_quote(name)} is the model's unknown token, for text it never saw: {said}"

    def title(self):
        """The title: the model, the layer and the head followed."""
        view = self.view
        title = label_text(f"Cross-attention: {view.model}, layer {view.layer}, "
                           f"head {view.head}", style.FONT_BODY).to_edge(UP, buff=0.35)
        if title.width > 13.2:
            title.scale_to_fit_width(13.2)
        return title

    def note(self) -> VGroup:
        """Under the title, while the rows are drawn: what the translation is, the rows'
        windows, the unknown token."""
        view, pal = self.view, style.PALETTE
        said = ("untrained weights: this draws the mechanism, not a trained model's choices"
                if view.untrained else f"the translation: {view.translation}")
        note = VGroup(*[label_text(line, style.FONT_SMALL, pal.soft)
                        for line in (said, self.window_note().strip(" ()"),
                                     self.unknown_note()) if line])
        return note.arrange(DOWN, buff=0.1).next_to(self.title(), DOWN, 0.15)

    def rows(self) -> VGroup:
        """The source row above, the target row below, the focus word marked in it."""
        view = self.view
        source = row(self.source_texts, view.source_special, self.src, view.source_words)
        target = row(self.target_texts, view.target_special, self.tgt, view.target_words)
        mark_focus(target, view.focus)
        return VGroup(source.set_y(SOURCE_Y), target.set_y(TARGET_Y))

    @staticmethod
    def labels(rows) -> VGroup:
        pal = style.PALETTE
        source = label_text("source: the encoder's tokens, its keys and values",
                            style.FONT_SMALL, pal.key).next_to(rows[0], UP, buff=0.3).set_x(0)
        target = label_text("target: the decoder's tokens, its queries",
                            style.FONT_SMALL, pal.query).next_to(rows[1], DOWN, buff=0.3)
        return VGroup(source, target.set_x(0))

    def question(self):
        view, pal = self.view, style.PALETTE
        line = line_of([(_quote(view.focus_text)[:1], pal.text),
                        (_word(view.focus_text), ("user", pal.query)),
                        ("\u2019: which source words does it draw on?", pal.text)],
                       style.FONT_BODY)
        return line.to_edge(DOWN, buff=0.5).set_x(0)

    def side_grid(self, rows, cols, row_special, col_special, row_title, col_title):
        """A grid on the left of the stage, under the title; the right is for words."""
        grid = fitted_grid(rows, cols, row_special, col_special, max_width=GRID_WIDTH,
                           max_height=GRID_HEIGHT, row_title=row_title, col_title=col_title)
        grid.move_to([-6.9 + GRID_WIDTH / 2, GRID_Y, 0])
        return grid.shift(RIGHT * (GRID_WIDTH - grid.width) / 2)

    def alignment(self) -> VGroup:
        """The followed head's weights from every drawn target token over the source, the
        focus word's rows boxed, and what it is, on the right."""
        view, pal = self.view, style.PALETTE
        tgt, src = self.grid_tgt, self.grid_src
        grid = self.side_grid([self.target_texts[i] for i in tgt],
                              [self.source_texts[j] for j in src],
                              [view.target_special[i] for i in tgt],
                              [view.source_special[j] for j in src], "target", "source")
        dots = grid.weight_dots(view.weights[view.head][np.ix_(tgt, src)], pal.key)
        boxes = rows_box(grid, [tgt.index(i) for i in view.focus])
        said = side_text(side_lines(f"the alignment of head {view.head}: each target "
                                         "token's weights over the source, as translators "
                                         "draw it" + self.window_note(grid=True), pal.soft))
        return VGroup(grid, dots, boxes, said)


class CrossBeat(ViewBeat):
    """A beat of the translation's film: its view and layout at hand."""
    layout_class = Layout

    def __init__(self, film, stage: Stage):
        super().__init__(film, stage)
        self.view = film.trace

    @property
    def focus(self) -> str:
        return _quote(self.view.focus_text)

    def reveal(self, grid, dots, box, said, lag: float) -> None:
        """A grid of weights drawn: the grid, its dots one after another, then the rows
        boxed and what it shows."""
        self.play(FadeIn(grid), run_time=style.T_STEP)
        self.play(LaggedStart(*[FadeIn(d) for d in dots], lag_ratio=lag),
                  run_time=style.T_BUILD)
        self.play(Create(box), FadeIn(said), run_time=style.T_QUICK)


def layout_of(film) -> Layout:
    """The film's :class:`Layout`, made once."""
    return CrossBeat.layout_of(film)


class QuestionBeat(CrossBeat):
    name = "question"

    @classmethod
    def leaves(cls, film) -> Stage:
        layout = layout_of(film)
        rows = layout.rows()
        return Stage(title=layout.title(), note=layout.note(), rows=rows,
                     labels=layout.labels(rows), question=layout.question())

    def script(self) -> None:
        stage = self.leaves(self.film)
        title, note, rows = stage["title"], stage["note"], stage["rows"]
        labels, question = stage["labels"], stage["question"]
        self.roles.update(stage)
        self.say("A translation: the encoder reads the source, above; the decoder writes "
                 "the target, below")
        self.play(Write(title), FadeIn(note), run_time=style.T_SHORT)
        self.play(FadeIn(rows[0]), FadeIn(labels[0]), run_time=style.T_STEP)
        self.play(FadeIn(rows[1]), FadeIn(labels[1]), run_time=style.T_STEP)
        self.say(f"Writing {self.focus}, which source words does the decoder draw on?")
        self.play(FadeIn(question, shift=UP * 0.1), run_time=style.T_SHORT)


class KeysBeat(CrossBeat):
    name = "keys"
    hold = style.T_PAUSE

    @classmethod
    def leaves(cls, film) -> Stage:
        return QuestionBeat.leaves(film)

    def script(self) -> None:
        view, rows = self.view, self.roles["rows"]
        source, target = rows
        weights = view.row()
        top = float(weights.max())
        start = VGroup(*[target.chip(j) for j in view.focus]).get_top() + UP * 0.05
        sparks = [Spark(start, source.chip(j).get_bottom() + DOWN * 0.05,
                        float(weights[j]) / top, angle=math.pi / 8, side=LEFT, seed=j)
                  for j in self.layout.src]
        # where each spark went stays drawn: an arc as bold as its weight (the key frame)
        arcs = VGroup(*[spark_trail(s) for s in sparks])
        self.say(f"The query of {self.focus} reaches out to every source key, each spark as "
                 "bold as the weight it carries")
        self.add(*sparks)
        self.play(LaggedStart(*[SparkTravel(s) for s in sparks], lag_ratio=0.08),
                  run_time=style.T_BUNDLE)
        self.remove(*sparks)
        self.play(FadeIn(arcs), run_time=style.T_QUICK)


class WeightsBeat(CrossBeat):
    """A bar over each source word, as tall as the focus word's weight on it; the
    heaviest few written; the row's sum said."""
    name = "weights"

    @classmethod
    def leaves(cls, film) -> Stage:
        stage = QuestionBeat.leaves(film)
        return Stage(title=stage["title"], note=stage["note"], rows=stage["rows"])

    def script(self) -> None:
        view, pal = self.view, style.PALETTE
        source = self.roles["rows"][0]
        sums = view.word_weights()
        bars, numbers = VGroup(), VGroup()
        written = view.ranked_words()[:WRITTEN]
        base = source.chips.get_top()[1] + 0.08
        for w, word in enumerate(view.source_words.words):
            if word.first not in self.layout.src:
                continue
            chips = VGroup(*[source.chip(j) for j in word.pieces])
            width = min(0.45, 0.8 * chips.width)
            height = max(0.02, BAR_HEIGHT * float(sums[w]))
            bar = Rectangle(width=width, height=height, stroke_width=0,
                            fill_color=pal.key, fill_opacity=0.85)
            bar.move_to([chips.get_x(), base + height / 2, 0])
            bars.add(bar)
            if w in written:
                numbers.add(self.number("word_weight", (view.head, w),
                                        font_size=style.FONT_NUMBER).next_to(bar, UP, 0.08))
        spread_numbers(numbers)
        total = self.number("row_sum", (view.head,), font_size=style.FONT_SMALL)
        pieces = len(view.focus)
        said = label_text(f"the {len(view.source)} weights of {self.focus}"
                          + (f" (its {pieces} pieces averaged)" if pieces > 1 else "")
                          + " add up to", style.FONT_SMALL, pal.soft)
        line = VGroup(VGroup(said, total).arrange(RIGHT, buff=0.12))
        hidden = [w for w, word in enumerate(view.source_words.words)
                  if word.first not in self.layout.src]
        if hidden:          # the window's tokens left out hold the rest: said, with its weight
            rest = self.number("words_sum", (view.head, *hidden), font_size=style.FONT_SMALL)
            tokens = sum(len(view.source_words.words[w].pieces) for w in hidden)
            line.add(VGroup(label_text(f"the {tokens} source token{'s' * (tokens != 1)} not "
                                       "drawn hold", style.FONT_SMALL, pal.soft),
                            rest).arrange(RIGHT, buff=0.12))
        if any(view.source_words.words[w].split for w in written):
            line.add(label_text(PIECES_SUM_NOTE, style.FONT_SMALL, pal.soft))
        line.arrange(DOWN, buff=0.1).next_to(self.roles["rows"][1], DOWN, buff=0.3)
        self.say(f"A bar over each source word, as tall as the weight {self.focus} gives "
                 f"it; together they add up to {total.original_text}")
        self.play(FadeOut(self.roles.pop("labels")), run_time=style.T_QUICK)
        self.play(*[GrowFromEdge(b, DOWN) for b in bars], run_time=style.T_BUILD)
        self.play(FadeIn(numbers), FadeIn(line), run_time=style.T_QUICK)


class MasksBeat(CrossBeat):
    """The decoder's own mask on the target row (what is not written yet is hidden from
    the query that writes the focus word); the source row has none."""
    name = "masks"

    @classmethod
    def leaves(cls, film) -> Stage:
        return Stage(title=layout_of(film).title())

    def script(self) -> None:
        view, pal = self.view, style.PALETTE
        source, target = self.roles["rows"]
        first = view.focus[0]
        later = [target.chip(j) for j in self.layout.tgt if j >= first]
        y = target.chips.get_bottom()[1] - 0.12
        hidden = VGroup(*later)
        line = Line([hidden.get_left()[0], y, 0], [hidden.get_right()[0], y, 0],
                    stroke_width=6, color=pal.mask)
        top = Line([source.chips.get_left()[0], source.chips.get_bottom()[1] - 0.12, 0],
                   [source.chips.get_right()[0], source.chips.get_bottom()[1] - 0.12, 0],
                   stroke_width=6, color=pal.key)
        said = VGroup(*[centred_lines(text, 13.2, pal.soft) for text in (
            "the decoder's own attention is masked: writing "
            f"{self.focus}, it has read only the tokens before it",
            "cross-attention has no mask: every source token is open to it "
            "(one sentence, no padding)")])
        said.arrange(DOWN, buff=0.12).to_edge(DOWN, buff=0.35)
        self.say(f"The decoder's own attention is masked: writing {self.focus}, it has read "
                 "only the target tokens before it")
        self.play(*[chip.word.animate.set_opacity(0.3) for chip in later], Create(line),
                  FadeIn(said[0]), run_time=style.T_STEP)
        self.say("Cross-attention has no mask: every source token is open to it")
        self.play(Create(top), FadeIn(said[1]), run_time=style.T_STEP)


class RowsBeat(CrossBeat):
    """The focus word's row in each head of the layer, the head followed boxed."""
    name = "rows"

    @classmethod
    def leaves(cls, film) -> Stage:
        return MasksBeat.leaves(film)

    def script(self) -> None:
        view, layout, pal = self.view, self.layout, style.PALETTE
        rows = np.stack([view.row(h)[layout.grid_src] for h in range(view.num_heads)])
        grid = layout.side_grid([f"head {h}" for h in range(view.num_heads)],
                                [layout.source_texts[j] for j in layout.grid_src],
                                [False] * view.num_heads,
                                [view.source_special[j] for j in layout.grid_src], None,
                                "source keys")
        dots = grid.weight_dots(rows, pal.key)
        box = rows_box(grid, [view.head])
        said = side_text([[(f"the query of {self.focus[:1]}", pal.soft),
                            (_word(view.focus_text), ("user", pal.query)),
                            (self.focus[-1:], pal.soft)]]
                          + side_lines(f"in each of the {view.num_heads} heads of layer "
                                           f"{view.layer}: each head reads the source its own "
                                           f"way; the film follows head {view.head}"
                                           + layout.window_note(("source",), grid=True),
                                           pal.soft))
        self.say(f"The row of {self.focus} in each of the {view.num_heads} heads of layer "
                 f"{view.layer}; the film follows head {view.head}")
        self.reveal(grid, dots, box, said, lag=0.01)


class AlignmentBeat(CrossBeat):
    name = "alignment"

    @classmethod
    def leaves(cls, film) -> Stage:
        layout = layout_of(film)
        return Stage(title=layout.title(), alignment=layout.alignment())

    def script(self) -> None:
        alignment = self.layout.alignment()
        grid, dots, boxes, said = alignment
        self.roles["alignment"] = alignment
        self.say(f"Head {self.view.head}'s alignment: every target token's weights over the "
                 "source, as translators draw one")
        self.reveal(grid, dots, boxes, said, lag=0.004)


class AnswerBeat(CrossBeat):
    name = "answer"

    @classmethod
    def leaves(cls, film) -> Stage:
        return AlignmentBeat.leaves(film)

    def script(self) -> None:
        view, pal = self.view, style.PALETTE
        words = view.source_words.words
        ranked = view.ranked_words()
        sums = view.word_weights()
        if view.untrained:
            answer = self._even(sums)
        else:
            def named_line(lead, w):
                return [(lead + "\u2018", pal.text), (_word(words[w].text), ("user", pal.key)),
                        (f"\u2019{words[w].told_apart} "
                         f"({self.record('word_weight', (view.head, w))})", pal.text)]

            first = ranked[0]
            lines = [[("\u2018", pal.text), (_word(view.focus_text), ("user", pal.query)),
                      ("\u2019", pal.text), (" draws most on", pal.text)],
                     named_line("", first)]
            named = [first]
            # a runner-up is named only where its weight, as written, is above the next one's
            if len(ranked) > 2 and format_number(sums[ranked[1]]) != \
                    format_number(sums[ranked[2]]):
                lines.append(named_line("then ", ranked[1]))
                named.append(ranked[1])
            answer = side_text(lines, style.FONT_BODY)
            if words[first].kind == "special":
                answer.add(*side_text(side_lines(
                    f"({_quote(words[first].text)} is added by the tokenizer: a head with "
                    "nothing to look for parks its weight on such a token)", pal.soft)))
            if any(words[w].split for w in named):
                answer.add(*side_text(side_lines(f"({PIECES_SUM_NOTE})", pal.soft)))
            answer.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
            self.book.claim("most", (view.head, *named),
                            " ".join(line.original_text for line in answer))
        answer.next_to(self.roles["alignment"][-1], DOWN, buff=0.5, aligned_edge=LEFT)
        self.roles["answer"] = answer
        if not self.film.follows_last:        # the alignment was not introduced: say what it is
            self.say(f"Head {view.head}'s alignment: every target token's weights over the "
                     "source")
            self.wait(style.T_PAUSE)
        self.say(" ".join(line.original_text for line in answer))
        self.play(FadeIn(answer, shift=UP * 0.1), run_time=style.T_SHORT)

    def _even(self, sums) -> VGroup:
        """An untrained model's answer: no winner named (its weights are noise around an
        even spread), but how far its weights on the source's words lie from an even one,
        each word's even share being its pieces' share of the source tokens."""
        view, pal = self.view, style.PALETTE
        words = view.source_words.words
        count = sum(len(w.pieces) for w in words)
        ratios = [view.number("even_ratio", (view.head, w)) for w in range(len(words))]
        low, high = min(range(len(ratios)), key=ratios.__getitem__), \
            max(range(len(ratios)), key=ratios.__getitem__)
        lowest = self.record("even_ratio", (view.head, low), decimals=1)
        highest = self.record("even_ratio", (view.head, high), decimals=1)
        even = format_number(1 / count, 2)
        # "near evenly" where every word has between half and twice its even share
        near = all(0.5 <= view.number("even_ratio", (view.head, w)) <= 2.0
                   for w in range(len(words)))
        answer = side_text([[("\u2018", pal.text), (_word(view.focus_text), ("user", pal.query)),
                              ("\u2019 spreads its", pal.text),
                              (" weight " + ("near evenly:" if near else "unevenly:"),
                               pal.text)]],
                            style.FONT_BODY)
        answer.add(*side_text(side_lines(
            f"each source word gets {lowest} to {highest} times an even share (an even "
            f"spread gives each of its {count} tokens {even}): untrained, its weights are "
            "chance, not a choice", pal.soft)))
        answer.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
        self.book.claim("even", (view.head, low, high),
                        " ".join(line.original_text for line in answer))
        return answer
