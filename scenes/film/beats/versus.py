"""The versus beat (optional, ``--versus``): a minimal pair. Sentence A's words in a row,
sentence B's below, the same word joined across them (a word that moves is joined to
itself, so a swap draws a cross); under A's words the weight the focus word gives each
in A, over B's the weight in B (the same model, layer, head and focus word), under B's
the change, B minus A. A word of one sentence alone is boxed. Where the words do not all
fit, the focus word, the words of one sentence alone and the heaviest are drawn, the
others elided (…). The caption says the measured change, or that nothing much changes.

Every number is read from the two traces (``attention_core.compare.pair_lookup``).
"""
from __future__ import annotations

from manim import DOWN, UP, Create, FadeIn, FadeOut, LaggedStart, Line, SurroundingRectangle, VGroup

from ....attention_core.compare import SHOWN, Comparison, align_pair
from ....attention_core.derived import shown_kind
from ....attention_core.errors import InputError
from ....attention_core.word_model import WordModel
from ....facts import beat_facts
from ...vocabulary import stage, style
from ...vocabulary.headers import beat_line, head_name
from ...vocabulary.scripts import reads_right_to_left
from ...vocabulary.text import label_text, line_of, user_text
from ..beat import Beat, Role

__all__ = ["ROW_Y", "VersusBeat", "drawn_pairs", "row_width"]

ROW_Y = {"a": 1.55, "a_weight": 0.95, "b_weight": -0.95, "b": -1.55, "change": -2.2}
GAP = 0.45              # between two words of a row
ELLIPSIS = 0.35         # the width of "…", where words are left out
LABEL_SPACE = 0.9       # the rows' names, A and B, at the left


def row_width(positions: list[int], widths: list[float], total: int) -> float:
    """The width of a row drawing the words at ``positions`` (of ``total``, with those
    ``widths``): the words, an ellipsis wherever words are left out, a gap between each."""
    items, last = 0, -1
    for n in sorted(positions):
        items += 1 + (n > last + 1)
        last = n
    items += last < total - 1
    marks = items - len(positions)
    return sum(widths) + marks * ELLIPSIS + GAP * max(items - 1, 0)


def drawn_pairs(pairs, widths_a, widths_b, totals, must, weight, room: float) -> list:
    """The word pairs drawn: every one where both rows fit in ``room``, else those
    ``must`` names and then the heaviest (``weight``), while both rows fit."""
    def fits(chosen):
        for side, widths in (("a", widths_a), ("b", widths_b)):
            drawn = [p for p in chosen if (p.a if side == "a" else p.b) is not None]
            at = [p.a if side == "a" else p.b for p in drawn]
            if row_width(at, [widths[p] for p in drawn], totals[side]) > room:
                return False
        return True
    if fits(pairs):
        return list(pairs)
    chosen = [p for p in pairs if p in must]
    for p in sorted((p for p in pairs if p not in must), key=lambda p: -weight(p)):
        if fits(chosen + [p]):
            chosen.append(p)
    return [p for p in pairs if p in chosen]


class VersusBeat(Beat):
    name = "versus"

    def script(self):
        film = self.film
        if film.versus is None:
            raise InputError(f"the versus beat needs {beat_facts('versus').needs}.")
        self.a, self.b = self.trace, film.versus
        self.words = {"a": WordModel.of_trace(self.a), "b": WordModel.of_trace(self.b)}
        self.pairs = align_pair(self.a, self.b)
        slot = self.a.primary_slot
        leaving = [FadeOut(m) for role, m in self.stage.items()
                   if role not in (Role.LINE, Role.MAP) and m in film.mobjects]
        for role in [r for r in self.stage if r not in (Role.LINE, Role.MAP)]:
            self.roles.pop(role, None)
        self.open(beat_line("Two sentences, one head: the weights of ", *self.focus_said()),
                  None, *leaving)
        self.draw_rows(slot)
        self.say_the_change(slot)

    @property
    def focus_pair(self):
        """The focus word's pair: A's word, and B's (``text_b`` where the pair changes it)."""
        own = self.words["a"].index_of(self.a.focus_index)
        return next(p for p in self.pairs if p.a == own)

    def focus_said(self) -> list:
        """The focus as the line names it: A's word, and B's where the pair changes it
        (‘she’, ‘he’ in B)."""
        pair = self.focus_pair
        said = [("user", pair.text)]
        if pair.text_b is not None:
            said += [" (", ("user", pair.text_b), " in B)"]
        return said

    # ---- the two rows, their weights, the joins and the changes ---------------------------
    def _texts(self, side: str):
        trace = self.a if side == "a" else self.b
        focus = self.words[side].index_of(trace.focus_index)
        texts = {}
        for p in self.pairs:
            n = p.a if side == "a" else p.b
            if n is not None:
                word = self.words[side].words[n]
                color = style.PALETTE.query if n == focus else (
                    style.PALETTE.special if word.kind == "special" else style.PALETTE.text)
                texts[p] = user_text(word.text, style.FONT_TOKEN, color)
        return texts

    def _index(self, side: str, p, slot: int) -> tuple:
        trace = self.a if side == "a" else self.b
        word = self.words[side].words[p.a if side == "a" else p.b]
        return (slot, trace.focus_index, word.first, word.last)

    def _row(self, side: str, texts: dict, chosen: list) -> tuple[dict, list]:
        """x of each drawn word of ``side``, in its sentence's order and direction, and the
        x of an ellipsis wherever words of the sentence are left out."""
        def at(p):
            return p.a if side == "a" else p.b
        order = sorted((p for p in chosen if at(p) is not None), key=at)
        total = len(self.words[side].words)
        items, last = [], -1
        for p in order:
            if at(p) > last + 1:
                items.append(None)                 # words left out before this one
            items.append(p)
            last = at(p)
        if last < total - 1:
            items.append(None)
        trace = self.a if side == "a" else self.b
        if reads_right_to_left(t for t, sp in zip(trace.display_tokens, trace.special)
                               if not sp):
            items.reverse()
        widths = [ELLIPSIS if p is None else texts[p].width for p in items]
        x = LABEL_SPACE / 2 - (sum(widths) + GAP * (len(items) - 1)) / 2
        where, marks = {}, []
        for p, w in zip(items, widths):
            if p is None:
                marks.append(x + w / 2)
            else:
                where[p] = x + w / 2
            x += w + GAP
        return where, marks

    def draw_rows(self, slot: int):
        pal, book = style.PALETTE, self.book
        texts = {"a": self._texts("a"), "b": self._texts("b")}
        must = {self.focus_pair} | {p for p in self.pairs if p.changed}

        def weight(p):
            return max(book.value(*self._kind_index(side, p, slot))
                       for side in "ab" if (p.a if side == "a" else p.b) is not None)
        room = stage.TEXT_WIDTH - LABEL_SPACE
        totals = {side: len(self.words[side].words) for side in "ab"}
        chosen = drawn_pairs(self.pairs, {p: t.width for p, t in texts["a"].items()},
                             {p: t.width for p, t in texts["b"].items()}, totals, must, weight,
                             room)
        rows_at = {side: self._row(side, texts[side], chosen) for side in "ab"}
        xs = {side: rows_at[side][0] for side in "ab"}
        rows, numbers, joins, changes = VGroup(), VGroup(), VGroup(), VGroup()
        for side in "ab":
            for p, x in xs[side].items():
                rows.add(texts[side][p].move_to([x, ROW_Y[side], 0]))
                kind, index = self._kind_index(side, p, slot)
                number = self.number(kind, index, decimals=SHOWN, font_size=style.FONT_NUMBER)
                numbers.add(number.move_to([x, ROW_Y[f"{side}_weight"], 0]))
                if p.changed:
                    rows.add(SurroundingRectangle(texts[side][p], buff=0.08, color=pal.highlight,
                                                  stroke_width=2))
        for p in chosen:
            if p.changed:
                continue
            change = book.value("pair:change", self._pair_index(p, slot))
            # the change as drawn: B's drawn weight less A's (one value per number); a
            # change drawn as 0.00 has no sign and no hue
            shown = book.value(*shown_kind("pair:change", self._pair_index(p, slot), SHOWN))
            color = pal.positive if shown > 0 else pal.negative if shown < 0 else pal.zero
            joins.add(Line([xs["a"][p], ROW_Y["a_weight"] - 0.25, 0],
                           [xs["b"][p], ROW_Y["b_weight"] + 0.25, 0],
                           stroke_width=2 + 4 * min(1.0, abs(change) * 10), color=color))
            changes.add(self.number("pair:change", self._pair_index(p, slot), decimals=SHOWN,
                                    signed=shown != 0, font_size=style.FONT_NUMBER, color=color)
                        .move_to([xs["b"][p], ROW_Y["change"], 0]))
        for p in chosen:
            if p.a is None:
                changes.add(label_text("new", style.FONT_SMALL, pal.soft)
                            .move_to([xs["b"][p], ROW_Y["change"], 0]))
        names = VGroup(*[label_text(n, style.FONT_LABEL, pal.soft).move_to(
            [stage.LEFT_EDGE + 0.3, ROW_Y[side], 0]) for n, side in (("A", "a"), ("B", "b"))])
        elided = VGroup(*[label_text("\u2026", style.FONT_LABEL, pal.soft)
                          .move_to([x, ROW_Y[side], 0])
                          for side in "ab" for x in rows_at[side][1]])
        key = line_of([(f"{head_name(book, slot)}, layer {book.text('layer', (), 0)}: the weight "
                        "each word gets, A above and B below; under B, B \u2212 A", pal.soft)],
                      style.FONT_SMALL)
        key.move_to([0, ROW_Y["change"] - 0.75, 0])
        stage.keep_on_stage(key)
        pair = self.focus_pair
        # a pair that changes the focus word asks of its word in each sentence
        asked = "the same focus word" if pair.text_b is None else \
            f"the word the pair changes, \u2018{pair.text}\u2019 and \u2018{pair.text_b}\u2019"
        self.say(f"The same head on a second sentence: {head_name(book, slot)} of layer "
                 f"{book.text('layer', (), 0)}, {asked}")
        self.play(LaggedStart(*[FadeIn(m, shift=DOWN * 0.1) for m in rows], lag_ratio=0.05),
                  FadeIn(names), FadeIn(elided), FadeIn(key), run_time=style.T_BUILD)
        self.play(LaggedStart(*[FadeIn(n, shift=UP * 0.1) for n in numbers], lag_ratio=0.05),
                  run_time=style.T_BUILD)
        self.play(LaggedStart(*[Create(j) for j in joins], lag_ratio=0.05),
                  LaggedStart(*[FadeIn(c) for c in changes], lag_ratio=0.05),
                  run_time=style.T_BUILD)
        self.drawn = chosen

    def _kind_index(self, side: str, p, slot: int) -> tuple[str, tuple]:
        kind = "word_weight" if side == "a" else "versus:word_weight"
        return kind, self._index(side, p, slot)

    def _pair_index(self, p, slot: int) -> tuple:
        return (*self._index("a", p, slot), *self._index("b", p, slot)[1:])

    # ---- the caption: the measured change -------------------------------------------------
    def say_the_change(self, slot: int):
        book = self.book
        # the words whose weight grew and fell most, as `compare` finds them
        comparison = Comparison(self.a, self.b, self.pairs)
        movers = comparison.movers(slot)
        new = [p for p in self.pairs if p.a is None]
        pair = self.focus_pair
        focus = f"\u2018{pair.text}\u2019" + (
            "" if pair.text_b is None else f" (\u2018{pair.text_b}\u2019 in B)")
        parts = []
        if new:
            heaviest = max(new, key=lambda p: book.value(*self._kind_index("b", p, slot)))
            given = book.text(*self._kind_index("b", heaviest, slot), SHOWN)
            parts.append(f"the new {comparison.named(heaviest)} gets {given}")
        for p in movers:
            if p is not None:
                moved = book.text("pair:change", self._pair_index(p, slot), SHOWN, True)
                parts.append(f"{comparison.named(p)} changes by {moved}")
        if not parts:
            self.say(f"No word's weight from {focus} changes by 0.01 or more: this "
                     "head reads both sentences alike")
        else:
            self.say(f"From A to B, in the weights of {focus}: " + "; ".join(parts))
        self.wait()
