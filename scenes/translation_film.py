"""The film of a translation's cross-attention (``attention_core.translation.CrossView``):
two rows of tokens as the Illustrated Transformer draws them, the source (the encoder's,
where the keys and values come from) above and the target (the decoder's, where the
queries come from) below.

Its beats: the question (which source words does the focus word draw on?), the sparks
from its query to every source key, the weights they carry (bars, the heaviest written),
the masks (the decoder's causal one; cross-attention has none but padding), the heads of
the layer, the alignment matrix and the answer. Every number drawn is recorded in
``shown`` and every claim in ``claims``, so the tests re-derive them from the view.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, GrowFromEdge, LaggedStart,
                   Line, Rectangle, VGroup, VMobject, Write)

from ..attention_core.word_model import PIECES_SUM_NOTE
from ..facts import TRANSLATION_BEATS
from .film.readouts import format_number
from .film.scene import FilmScene
from .vocabulary import style
from .translation_views import (WRITTEN, drawn_windows, fitted_grid, mark_focus, row,
                                rows_box)
from .vocabulary.scripts import in_their_words
from .vocabulary.sparks import Spark, SparkTravel
from .vocabulary.text import label_text, line_of, wrapped

__all__ = ["BEATS", "TranslationFilm", "poster_frame", "write_translation_film"]

BEATS = TRANSLATION_BEATS
SOURCE_Y, TARGET_Y = 1.15, -1.35
BAR_HEIGHT = 1.1          # a weight of 1 stands this tall above its source word
# the grids' beats: a grid on the left under the title, words in a column on the right
GRID_WIDTH, GRID_HEIGHT, GRID_Y = 8.6, 6.5, -0.45
SIDE_X, SIDE_WIDTH = 2.3, 4.4
SIDE_ROOM = 6.9 - SIDE_X    # to the frame's edge, its margin kept
SIDE_TOP = 2.55             # under the title
SHOWN_CHARS = 14          # a word quoted in our wording is cut to this many characters


def _word(text: str) -> str:
    """A word as our wording quotes it: whole, or its start and an ellipsis where it is
    longer than a caption can hold (an untrained model's translation may be one long run)."""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "\u2026"


def _quote(text: str) -> str:
    return f"\u2018{_word(text)}\u2019"


class TranslationFilm(FilmScene):
    """The cross-attention film of ``view``; ``shown`` holds (beat, what, index, text) of
    every number drawn, ``claims`` (beat, kind, facts, said) of every claim in words."""

    def __init__(self, view, **kwargs):
        self.view = view
        # a piece of a right-to-left word is drawn in the form its word gives it
        self.source_texts = in_their_words(view.source, view.source_words)
        self.target_texts = in_their_words(view.target, view.target_words)
        self.src, self.tgt = drawn_windows(view)
        self.grid_src, self.grid_tgt = drawn_windows(view, grid=True)
        self.shown: list[tuple] = []
        self.claims: list[tuple] = []
        super().__init__(trace=view, beats=["title"], **kwargs)

    # ---- what is drawn, once --------------------------------------------------------------
    def number(self, what: str, index: tuple, value: float, **kwargs):
        text = format_number(value, 2)
        self.shown.append((self.book.beat, what, tuple(index), text))
        return label_text(text, **kwargs)

    def begin(self, beat: str) -> None:
        self.book.beat = beat
        self.beat_times[beat] = (self.renderer.time, self.renderer.time)

    def end(self, beat: str, hold: float = style.T_HOLD) -> None:
        self.mark_key_frame(beat)
        self.wait(hold)
        self.beat_times[beat] = (self.beat_times[beat][0], self.renderer.time)

    # ---- the film ----------------------------------------------------------------------------
    def construct(self) -> None:
        self.rows = self._rows()
        for beat, hold in (("question", style.T_HOLD), ("sparks", style.T_PAUSE),
                           ("weights", style.T_HOLD), ("mask", style.T_HOLD)):
            self.begin(beat)
            getattr(self, "_" + beat)()
            self.end(beat, hold)
        # the grids take the stage: the rows and the note go, the title stays
        self.play(*[FadeOut(m) for m in self.mobjects
                    if isinstance(m, VMobject) and m is not self.title],
                  run_time=style.T_SHORT)
        self.begin("heads")
        shown = self._heads()
        self.end("heads")
        self.play(FadeOut(shown), run_time=style.T_SHORT)
        self.begin("alignment")
        self._alignment()
        self.end("alignment")
        self.begin("answer")
        self._answer()
        self.end("answer", style.T_LAST_HOLD)
        if self.audit:
            self.settle_faults()

    def _rows(self):
        view = self.view
        rows = (row(self.source_texts, view.source_special, self.src, view.source_words),
                row(self.target_texts, view.target_special, self.tgt, view.target_words))
        return rows[0].set_y(SOURCE_Y), rows[1].set_y(TARGET_Y)

    def _question(self) -> None:
        view, pal = self.view, style.PALETTE
        source, target = self.rows
        self.title = label_text(f"Cross-attention: {view.model}, layer {view.layer}, "
                                f"head {view.head}", style.FONT_BODY).to_edge(UP, buff=0.35)
        if self.title.width > 13.2:
            self.title.scale_to_fit_width(13.2)
        said = ("untrained weights: this draws the mechanism, not a trained model's choices"
                if view.untrained else f"the translation: {view.translation}")
        self.note = VGroup(*[label_text(line, style.FONT_SMALL, pal.soft)
                             for line in (said, self._window_note().strip(" ()"),
                                          self._unknown_note()) if line])
        self.note.arrange(DOWN, buff=0.1).next_to(self.title, DOWN, 0.15)
        self.source_label = label_text("source: the encoder's tokens, its keys and values",
                                       style.FONT_SMALL, pal.key)
        self.source_label.next_to(source, UP, buff=0.3).set_x(0)
        self.target_label = label_text("target: the decoder's tokens, its queries",
                                       style.FONT_SMALL, pal.query)
        self.target_label.next_to(target, DOWN, buff=0.3).set_x(0)
        mark_focus(target, view.focus)
        self.question = line_of([(_quote(view.focus_text)[:1], pal.text),
                                 (_word(view.focus_text), ("user", pal.query)),
                                 ("\u2019: which source words does it draw on?", pal.text)],
                                style.FONT_BODY)
        self.question.to_edge(DOWN, buff=0.5).set_x(0)
        self.play(Write(self.title), FadeIn(self.note), run_time=style.T_SHORT)
        self.play(FadeIn(source), FadeIn(self.source_label), run_time=style.T_STEP)
        self.play(FadeIn(target), FadeIn(self.target_label), run_time=style.T_STEP)
        self.play(FadeIn(self.question, shift=UP * 0.1), run_time=style.T_SHORT)

    def _query_point(self):
        target = self.rows[1]
        chips = VGroup(*[target.chip(j) for j in self.view.focus])
        return chips.get_top() + UP * 0.05

    def _sparks(self) -> None:
        view = self.view
        source = self.rows[0]
        row = view.row()
        top = float(row.max())
        sparks = [Spark(self._query_point(), source.chip(j).get_bottom() + DOWN * 0.05,
                        float(row[j]) / top, angle=math.pi / 8, side=LEFT, seed=j)
                  for j in self.src]
        self.add(*sparks)
        self.play(LaggedStart(*[SparkTravel(s) for s in sparks], lag_ratio=0.08),
                  run_time=style.T_BUNDLE)
        self.remove(*sparks)

    def _weights(self) -> None:
        """A bar over each source word, as tall as the focus word's weight on it; the
        heaviest few written; the row's sum said."""
        view, pal = self.view, style.PALETTE
        source = self.rows[0]
        sums = view.word_weights()
        bars, numbers = VGroup(), VGroup()
        written = view.ranked_words()[:WRITTEN]
        base = source.chips.get_top()[1] + 0.08
        for w, word in enumerate(view.source_words.words):
            if word.first not in self.src:
                continue
            chips = VGroup(*[source.chip(j) for j in word.pieces])
            width = min(0.45, 0.8 * chips.width)
            height = max(0.02, BAR_HEIGHT * float(sums[w]))
            bar = Rectangle(width=width, height=height, stroke_width=0,
                            fill_color=pal.key, fill_opacity=0.85)
            bar.move_to([chips.get_x(), base + height / 2, 0])
            bars.add(bar)
            if w in written:
                numbers.add(self.number("word_weight", (view.head, w), float(sums[w]),
                                        font_size=style.FONT_NUMBER).next_to(bar, UP, 0.08))
        self._spread(numbers)
        total = self.number("row_sum", (view.head,), float(sums.sum()),
                            font_size=style.FONT_SMALL)
        pieces = len(view.focus)
        said = label_text(f"the {len(view.source)} weights of {_quote(view.focus_text)}"
                          + (f" (its {pieces} pieces averaged)" if pieces > 1 else "")
                          + " add up to", style.FONT_SMALL, pal.soft)
        line = VGroup(VGroup(said, total).arrange(RIGHT, buff=0.12))
        if any(view.source_words.words[w].split for w in view.ranked_words()[:WRITTEN]):
            line.add(label_text(PIECES_SUM_NOTE, style.FONT_SMALL, pal.soft))
        line.arrange(DOWN, buff=0.1).next_to(self.rows[1], DOWN, buff=0.3)
        self.play(FadeOut(self.source_label), FadeOut(self.target_label),
                  run_time=style.T_QUICK)
        self.play(*[GrowFromEdge(b, DOWN) for b in bars], run_time=style.T_BUILD)
        self.play(FadeIn(numbers), FadeIn(line), run_time=style.T_QUICK)
        self.bars, self.numbers, self.sum_line = bars, numbers, line

    @staticmethod
    def _spread(numbers) -> None:
        """Written weights side by side never touch: a later one steps up a line."""
        placed = []
        for n in sorted(numbers, key=lambda m: m.get_x()):
            while any(abs(n.get_x() - p.get_x()) < (n.width + p.width) / 2 + 0.08
                      and abs(n.get_y() - p.get_y()) < n.height + 0.05 for p in placed):
                n.shift(UP * (n.height + 0.08))
            placed.append(n)

    def _heads(self):
        view, pal = self.view, style.PALETTE
        rows = np.stack([view.row(h)[self.grid_src] for h in range(view.num_heads)])
        grid = self._side_grid([f"head {h}" for h in range(view.num_heads)],
                               [self.source_texts[j] for j in self.grid_src],
                               [False] * view.num_heads,
                               [view.source_special[j] for j in self.grid_src], None,
                               "source keys")
        dots = grid.weight_dots(rows, pal.key)
        box = rows_box(grid, [view.head])
        said = _side_text([[(f"the query of {_quote(view.focus_text)[:1]}", pal.soft),
                            (_word(view.focus_text), ("user", pal.query)),
                            (_quote(view.focus_text)[-1:], pal.soft)]]
                          + _wrapped_lines(f"in each of the {view.num_heads} heads of layer "
                                           f"{view.layer}: each head reads the source its own "
                                           f"way; the film follows head {view.head}"
                                           + self._window_note(("source",), grid=True),
                                           pal.soft))
        self.play(FadeIn(grid), run_time=style.T_STEP)
        self.play(LaggedStart(*[FadeIn(d) for d in dots], lag_ratio=0.01),
                  run_time=style.T_BUILD)
        self.play(Create(box), FadeIn(said), run_time=style.T_QUICK)
        return VGroup(grid, dots, box, said)

    def _unknown_note(self) -> str:
        """Where the model read text as its unknown token: what that token is, and how many."""
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

    def _window_note(self, kinds=("source", "target"), grid: bool = False) -> str:
        view, notes = self.view, []
        src, tgt = (self.grid_src, self.grid_tgt) if grid else (self.src, self.tgt)
        for what, drawn, count in (("source", src, len(view.source)),
                                   ("target", tgt, len(view.target))):
            if what in kinds and len(drawn) < count:
                notes.append(f"{len(drawn)} of the {count} {what} tokens")
        return f" (showing {' and '.join(notes)})" if notes else ""

    def _side_grid(self, rows, cols, row_special, col_special, row_title, col_title):
        """A grid on the left of the stage, under the title; the right is for words."""
        grid = fitted_grid(rows, cols, row_special, col_special, max_width=GRID_WIDTH,
                           max_height=GRID_HEIGHT, row_title=row_title, col_title=col_title)
        grid.move_to([-6.9 + GRID_WIDTH / 2, GRID_Y, 0])
        return grid.shift(RIGHT * (GRID_WIDTH - grid.width) / 2)

    def _mask(self) -> None:
        """The decoder's own mask on the target row (what is not written yet is hidden
        from the query that writes the focus word); the source row has none."""
        view, pal = self.view, style.PALETTE
        source, target = self.rows
        first = view.focus[0]
        later = [target.chip(j) for j in self.tgt if j >= first]
        y = target.chips.get_bottom()[1] - 0.12
        hidden = VGroup(*later)
        line = Line([hidden.get_left()[0], y, 0], [hidden.get_right()[0], y, 0],
                    stroke_width=6, color=pal.mask)
        top = Line([source.chips.get_left()[0], source.chips.get_bottom()[1] - 0.12, 0],
                   [source.chips.get_right()[0], source.chips.get_bottom()[1] - 0.12, 0],
                   stroke_width=6, color=pal.key)
        said = VGroup(*[_centred_lines(text, 13.2, pal.soft) for text in (
            "the decoder's own attention is masked: writing "
            f"{_quote(view.focus_text)}, it has read only the tokens before it",
            "cross-attention has no mask: every source token is open to it "
            "(one sentence, no padding)")])
        said.arrange(DOWN, buff=0.12).to_edge(DOWN, buff=0.35)
        self.play(FadeOut(self.bars), FadeOut(self.numbers), FadeOut(self.sum_line),
                  FadeOut(self.question), run_time=style.T_QUICK)
        self.play(*[chip.word.animate.set_opacity(0.3) for chip in later], Create(line),
                  FadeIn(said[0]),
                  run_time=style.T_STEP)
        self.play(Create(top), FadeIn(said[1]), run_time=style.T_STEP)

    def _alignment(self):
        view, pal = self.view, style.PALETTE
        tgt, src = self.grid_tgt, self.grid_src
        grid = self._side_grid([self.target_texts[i] for i in tgt],
                               [self.source_texts[j] for j in src],
                               [view.target_special[i] for i in tgt],
                               [view.source_special[j] for j in src], "target", "source")
        dots = grid.weight_dots(view.weights[view.head][np.ix_(tgt, src)], pal.key)
        boxes = rows_box(grid, [tgt.index(i) for i in view.focus])
        said = _side_text(_wrapped_lines(f"the alignment of head {view.head}: each target "
                                         "token's weights over the source, as translators "
                                         "draw it" + self._window_note(grid=True), pal.soft))
        self.play(FadeIn(grid), run_time=style.T_STEP)
        self.play(LaggedStart(*[FadeIn(d) for d in dots], lag_ratio=0.004),
                  run_time=style.T_BUILD)
        self.play(Create(boxes), FadeIn(said), run_time=style.T_QUICK)
        self.alignment_said = said

    def _answer(self) -> None:
        view, pal = self.view, style.PALETTE
        words = view.source_words.words
        ranked = view.ranked_words()
        sums = view.word_weights()

        def written(w):
            return self.number("word_weight", (view.head, w), float(sums[w])).text

        def named_line(lead, w):
            return [(lead + "\u2018", pal.text), (_word(words[w].text), ("user", pal.key)),
                    (f"\u2019{words[w].told_apart} ({written(w)})", pal.text)]

        if view.untrained:
            self._even_answer(sums)
            return
        first = ranked[0]
        lines = [[("\u2018", pal.text), (_word(view.focus_text), ("user", pal.query)),
                  ("\u2019", pal.text), (" draws most on", pal.text)], named_line("", first)]
        named = [first]
        # a runner-up is named only where its weight, as written, is above the next one's
        if len(ranked) > 2 and format_number(sums[ranked[1]]) != format_number(sums[ranked[2]]):
            lines.append(named_line("then ", ranked[1]))
            named.append(ranked[1])
        answer = _side_text(lines, style.FONT_BODY)
        if words[first].kind == "special":
            answer.add(*_side_text(_wrapped_lines(
                f"({_quote(words[first].text)} is added by the tokenizer: a head with "
                "nothing to look for parks its weight on such a token)", pal.soft)))
            answer.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
        if any(words[w].split for w in named):
            answer.add(*_side_text(_wrapped_lines(f"({PIECES_SUM_NOTE})", pal.soft)))
            answer.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
        self.claims.append(("answer", "most", (view.head, *named),
                            " ".join(line.original_text for line in answer)))
        answer.next_to(self.alignment_said, DOWN, buff=0.5, aligned_edge=LEFT)
        self.play(FadeIn(answer, shift=UP * 0.1), run_time=style.T_SHORT)


    def _even_answer(self, sums) -> None:
        """An untrained model's answer: no winner named (its weights are noise around an
        even spread), but how far its weights on the source's words lie from an even one,
        each word's even share being its pieces' share of the source tokens."""
        view, pal = self.view, style.PALETTE
        words = view.source_words.words
        count = sum(len(w.pieces) for w in words)
        gaps = [float(sums[w]) - len(words[w].pieces) / count for w in range(len(words))]
        low, high = min(range(len(gaps)), key=gaps.__getitem__), \
            max(range(len(gaps)), key=gaps.__getitem__)
        lowest = self.number("word_weight", (view.head, low), float(sums[low])).text
        highest = self.number("word_weight", (view.head, high), float(sums[high])).text
        even = format_number(1 / count, 2)
        # "near evenly" where every word has between half and twice its even share
        near = all(0.5 <= float(sums[w]) * count / len(words[w].pieces) <= 2.0
                   for w in range(len(words)))
        answer = _side_text([[("\u2018", pal.text), (_word(view.focus_text), ("user", pal.query)),
                              ("\u2019 spreads its", pal.text),
                              (" weight " + ("near evenly" if near else "unevenly"), pal.text)]],
                            style.FONT_BODY)
        answer.add(*_side_text(_wrapped_lines(
            f"from {lowest} to {highest} a word, where an even spread gives {even} a token: "
            "untrained, its weights are chance, not a choice", pal.soft)))
        answer.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
        self.claims.append(("answer", "even", (view.head, low, high),
                            " ".join(line.original_text for line in answer)))
        answer.next_to(self.alignment_said, DOWN, buff=0.5, aligned_edge=LEFT)
        self.play(FadeIn(answer, shift=UP * 0.1), run_time=style.T_SHORT)


def _centred_lines(text: str, width: float, colour: str) -> VGroup:
    """Our wording wrapped to ``width``, each line centred under the one before."""
    lines = VGroup(*[label_text(line, style.FONT_SMALL, colour)
                     for line in wrapped(text, width, style.FONT_SMALL).split("\n")])
    return lines.arrange(DOWN, buff=0.1)


def _wrapped_lines(text: str, colour: str) -> list:
    return [[(line, colour)] for line in wrapped(text, SIDE_WIDTH, style.FONT_SMALL).split("\n")]


def _flowed(lines, font_size: float) -> list:
    """Each line of parts as drawn, broken between its parts where it is wider than the
    stage's right column (a long quoted word goes to a line of its own)."""
    drawn = []
    for parts in lines:
        current: list = []
        for part in parts:
            if current and line_of(current + [part], font_size).width > SIDE_ROOM:
                drawn.append(line_of(current, font_size))
                current = [(part[0].lstrip(), part[1])]
            else:
                current.append(part)
        drawn.append(line_of(current, font_size))
    return drawn


def _side_text(lines, font_size: float = style.FONT_SMALL) -> VGroup:
    """Lines of words (``line_of``'s parts each) left-aligned in the stage's right column."""
    group = VGroup(*_flowed(lines, font_size))
    group.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
    return group.move_to([SIDE_X + group.width / 2, SIDE_TOP - group.height / 2, 0])


def write_translation_film(view, target: Path, *, width: int, height: int, fps: int,
                           scratch: Path, poster: Path | None = None) -> None:
    """Render the film of ``view`` to ``target`` (an MP4, the film's own encoding), its
    media in ``scratch``; ``poster``: the answer's key frame (the alignment and what it
    says) as a PNG."""
    from .pipeline.capture import render_alone

    scene = render_alone(lambda renderer: TranslationFilm(view, renderer=renderer), target,
                         width=width, height=height, fps=fps, scratch=scratch)
    if poster is not None:
        poster_frame(target, scene.key_times["answer"], poster)


def poster_frame(film: Path, at: float, png: Path) -> None:
    """The film's frame at ``at`` seconds, as a PNG."""
    import av

    with av.open(str(film)) as box:
        stream = box.streams.video[0]
        for frame in box.decode(stream):
            if frame.time is not None and frame.time >= at:
                frame.to_image().save(png, format="PNG")
                return
    raise RuntimeError("the film has no frame at its poster's time")
