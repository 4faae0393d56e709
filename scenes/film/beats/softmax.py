"""Beat 5, softmax: the focus row lifts out of QKᵀ with its keys' names, is divided by
√d_k, passes through a labelled softmax arrow and comes back as bars: the real weights,
which stack to exactly 1. The bars hand on as the list of weights the pull beat weighs
the values with.

Note: ``trace.scores`` are already divided by √d_k; the raw row shown first is "qk_dot".
On a masked trace the masked scores turn into −∞ in the mask's colour before the softmax.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, FadeOut, FadeTransform,
                   GrowFromEdge, LaggedStart, Line, ManimColor, TransformFromCopy,
                   TransformMatchingShapes, VGroup, interpolate_color)

from ...vocabulary import stage, style
from ...vocabulary.bars import SoftmaxBars
from ....attention_core.variants import head_blocked
from ..beat import Beat, Role, Stage, replace_in_place
from ...vocabulary.formula import FormulaMap, divisor, role_colored
from ...vocabulary.headers import beat_line
from ...vocabulary.labels.geometry import box_of, overlap_areas
from ..readouts import magnitude_decimals
from ....attention_core.score_terms import term_names
from ...vocabulary.scripts import reading_slot
from ...vocabulary.text import fit_width, label_text, line_of, make_math, wrapped
from ...vocabulary.tokens import word_row
from ....attention_core.word_model import WordModel
from ..ranking import listed_claim, outside_said, ranked_words
from ..views import drawn_indices, drawn_words, reads_from_right, tied, token_word
from ..wording import focus_name, focus_parts, mark_label, told_parts, word_quoted

__all__ = [
    "BASELINE_Y", "LABEL_ROOM", "LABEL_Y", "LEFT_EDGE", "LIST_LEFT", "LIST_ROWS",
    "LIST_TOP", "MIN_PITCH", "more_line", "NUMBERS_RIGHT", "ROW_Y", "SoftmaxBeat", "line",
    "weight_order", "weights_list",
]

ROW_Y = 1.35            # the lifted row of numbers
LABEL_Y = 1.95          # its keys' names, above it
STAGGER = 0.42          # a second line of numbers where they need two columns' room
LEFT_EDGE = -6.8
NUMBERS_RIGHT = 4.6
BASELINE_Y = -2.75      # the bars stand on this line
LABEL_ROOM = 2.2        # the row's name (q·k/√d_k) beside the row
MIN_PITCH = 0.72        # ... unless the numbers would get less room than this each
LIST_LEFT = 2.6         # the list of weights the beat hands on (right side)
LIST_TOP = 1.3
LIST_ROWS = 8
LIST_NOTE_WIDTH = 3.4   # the list's note (of words outside the window) wraps to this
# what a model's own term of its scores is, said after its name
TERM_GLOSS = {"relative position bias": ", a number it learned for each distance between "
                                        "two tokens (far ones share one)",
              "content-to-position term": " (the query times a learned vector of its "
                                          "distance to the key)",
              "position-to-content term": " (the key times a learned vector of its "
                                          "distance to the query)"}


def line(trace):
    return beat_line("Softmax turns the scores of ", *focus_parts(trace),
                     " into weights that add up to 1")


def weight_order(book) -> list[int]:
    """Every word (indices in the trace's ``WordModel``), heaviest first, each the sum of
    its pieces (the list of weights: drawn or not, a word is listed by its weight)."""
    return [w for group in ranked_words(book, book.trace.primary_slot) for w in group]


def weights_list(book) -> VGroup:
    """The focus word's heaviest words as a list, "0.38  fish", each weighing the sum of its
    pieces (a list ranks words, never pieces): what the softmax hands on to the pull (at
    most LIST_ROWS, then the rest in one line). ``keys``: each listed word's first token."""
    trace, pal = book.trace, style.PALETTE
    slot, f = trace.primary_slot, trace.focus_index
    words = WordModel.of_trace(trace)
    order = weight_order(book)[:LIST_ROWS]
    shown = [words.words[w] for w in order]
    drawn = set(drawn_words(trace))
    rows, entries = VGroup(), []
    for n, (w, word) in enumerate(zip(order, shown)):
        number = book.text_mobject("word_weight", (slot, f, *word.span),
                                   decimals=style.WEIGHT_DECIMALS, font_size=style.FONT_LABEL)
        # a word outside the window is listed in grey, and said to be
        color = pal.dim if w not in drawn else pal.special if word.kind == "special" \
            else pal.text
        label = line_of([(mark_label(word.text), ("user", color)), *told_parts(word, color)],
                        style.FONT_LABEL)
        number.move_to([LIST_LEFT, LIST_TOP - n * 0.5, 0], aligned_edge=RIGHT)
        label.next_to(number, RIGHT, buff=0.3)
        entries.append(VGroup(number, label))
        rows.add(entries[-1])
    keys = [word.first for word in shown]
    listed_claim(book, slot, [[words.index_of(j)] for j in keys],
                 ", ".join(f"{e[0].original_text} {e[1].original_text}" for e in entries))
    rest = len(words) - len(shown)
    more = None
    if rest > 0:
        total = book.text("word_rest", (slot, f, *keys), decimals=style.WEIGHT_DECIMALS)
        more = label_text(more_line(rest, total), style.FONT_SMALL, pal.dim)
        more.next_to(rows, DOWN, buff=0.2).align_to(rows, LEFT)
        rows.add(more)
    outside = outside_said(book, order, listed=True)       # the grey rows name them
    if outside:
        note = label_text(wrapped(outside, LIST_NOTE_WIDTH), style.FONT_SMALL, pal.dim)
        rows.add(stage.keep_on_stage(note.next_to(rows, DOWN, buff=0.2).align_to(rows, LEFT)))
    title = label_text("weights", style.FONT_LABEL, pal.soft).next_to(rows, UP, buff=0.3)
    rows.add(title.align_to(rows, LEFT))
    rows.entries, rows.keys, rows.more = entries, keys, more
    rows.more_text = lambda total: more_line(rest, total)
    return rows


def more_line(rest: int, total: str) -> str:
    """The list's last line: the words not listed, and their weight together."""
    return f"+ {rest} more: {total} in all"


class SoftmaxBeat(Beat):
    name = "softmax"

    @classmethod
    def leaves(cls, film) -> Stage:
        return Stage({Role.LINE: line(film.trace), Role.MAP: FormulaMap("softmax"),
                      Role.WEIGHTS: weights_list(film.book)})

    def script(self):
        trace = self.trace
        self.slot, self.f = trace.primary_slot, trace.focus_index
        self.indices = drawn_indices(trace)
        self.word = token_word(trace, self.f)
        self.n = len(self.indices)
        blocked = head_blocked(trace, self.slot)[self.f]
        self.masked_row = np.array([bool(blocked[j]) for j in self.indices])
        self.open(line(trace), "softmax")
        self.lift_the_focus_row()
        self.divide_by_root_dk()
        if term_names(trace):
            self.add_the_models_terms()
        if self.masked_row.any():
            self.masked_scores_become_minus_infinity()
        self.softmax_makes_weights()
        self.stacked_they_make_one()

    def row_of_numbers(self, kind: str, decimals: int) -> VGroup:
        """The focus row of ``kind``, one number under each key, masked keys in red; in two
        staggered lines where the numbers need two columns' room (:meth:`decimals_for`)."""
        row = VGroup(*[self.number(kind, (self.slot, self.f, j), decimals=decimals, signed=True,
                                   font_size=style.FONT_LABEL,
                                   color=style.PALETTE.mask if m else None)
                       for j, m in zip(self.indices, self.masked_row)])
        fit_width(row, 0.86 * self.spacing * (2 if self.staggered else 1))
        for n, (x, m) in enumerate(zip(self.xs, row)):
            m.move_to([x, ROW_Y - STAGGER * (self.staggered and n % 2 == 1), 0])
        return row

    def decimals_for(self, kind: str, wanted: int) -> int:
        """The decimals a row of ``kind`` is written with: ``wanted`` where they fit a
        column, else staggered in two lines (each number two columns wide) where that
        keeps more of them: scores written whole would read alike where the weights they
        make differ (+2 beside +2 for 0.27 and 0.17)."""
        at = [(self.slot, self.f, j) for j in self.indices]
        one = self.book.legible_decimals(kind, at, wanted, 0.86 * self.spacing)
        if one < wanted and not self.staggered:
            two = self.book.legible_decimals(kind, at, wanted, 2 * 0.86 * self.spacing)
            if two > one:
                self.staggered = True
                return two
        return one if not self.staggered else \
            self.book.legible_decimals(kind, at, wanted, 2 * 0.86 * self.spacing)

    # ---- 1. the focus row lifts out, with its keys' names -----------------------------------
    def lift_the_focus_row(self):
        pal, n = style.PALETTE, self.n
        grid = self.stage.get(Role.GRID)
        self.label = role_colored(make_math("{{ q : q }} dot {{ k : k }}", font_size=34,
                                            color=pal.text))
        # the row's name goes beside it when the numbers still get room, else below it
        # a window that leaves tokens out keeps a column for them all, the last: what is
        # drawn then adds up to what is written
        self.rest = self.trace.num_tokens - n
        slots = n + (1 if self.rest else 0)
        beside = (NUMBERS_RIGHT - LEFT_EDGE - LABEL_ROOM) / max(slots, 1) >= MIN_PITCH
        room = NUMBERS_RIGHT - LEFT_EDGE - (LABEL_ROOM if beside else 0.0)
        self.spacing = min(1.3, room / max(slots, 1))
        centre = 0.3 if beside else (LEFT_EDGE + NUMBERS_RIGHT) / 2
        # in reading order: from the right for a sentence read from the right
        rtl = reads_from_right(self.trace)
        self.xs = centre + (np.array([reading_slot(i, slots, rtl) for i in range(slots)])
                            - (slots - 1) / 2) * self.spacing
        self.keys, _ = word_row([token_word(self.trace, j) for j in self.indices],
                                [self.trace.special[j] for j in self.indices], self.xs,
                                pitch=self.spacing, font_size=style.FONT_SMALL,
                                bottom=LABEL_Y - 0.2)
        self.staggered = False
        if grid is not None and grid.decimals is not None:
            decimals = grid.decimals           # as the grid wrote them
        else:                                  # one decimal if it fits, else whole
            decimals = self.decimals_for("qk_dot", 1)
        self.raw = self.row_of_numbers("qk_dot", decimals)
        if beside:
            self.label.next_to([self.xs.min() - self.spacing / 2, ROW_Y, 0], LEFT, buff=0.2)
        else:          # under the row, clear of its second line where it takes two
            self.label.next_to(VGroup(*self.raw), DOWN, buff=0.25)
            self.label.align_to([LEFT_EDGE, 0, 0], LEFT)
        self.say(f"Lift the row of {focus_name(self.trace)} out of QK\u1d40: its raw dot products")
        if grid is not None:           # the row rises out of the grid, the rest sinks away
            lifted = grid.row_cells(grid.focus_row)
            self.play(*[FadeIn(b, target_position=a.get_center())
                        for a, b in zip(lifted, self.raw)],
                      *[FadeIn(b, target_position=a.get_center())
                        for a, b in zip(grid.grid.col_labels, self.keys)],
                      FadeOut(grid, shift=DOWN * 0.4), FadeIn(self.label), run_time=style.T_MOVE)
        else:
            self.play(FadeIn(self.raw), FadeIn(self.keys), FadeIn(self.label),
                      run_time=style.T_MOVE)

    # ---- 2. divided by sqrt(d_k) --------------------------------------------------------------
    def divide_by_root_dk(self):
        pal = style.PALETTE
        d_k = self.record("d_k", (), 0)
        meta = self.trace.meta
        own, cap = meta.get("score_scale"), meta.get("score_softcap")
        # a model's own divisor is said as the formulas write it (÷ 128, ÷ 4.899): one value
        written = divisor().partition(".")[2]
        root = self.record("sqrt_dk", (), 2 if own is None else len(written))
        # a model that adds terms of its own to each score (MPNet) is divided first, and
        # its terms added next (add_the_models_terms)
        kind = "scaled_qk" if term_names(self.trace) else "scores"
        values = [self.book.value(kind, (self.slot, self.f, j)) for j in self.indices]
        self.score_dec = self.decimals_for(kind, magnitude_decimals(values, style.SCORE_DECIMALS))
        self.scaled = self.row_of_numbers(kind, self.score_dec)
        scaled_label = role_colored(make_math(
            f"frac({{{{ q : q }}}} dot {{{{ k : k }}}}, {divisor()})", font_size=34,
            color=pal.text))
        self.place_label(scaled_label)
        # a model that scales its scores its own way (Gemma 2, Granite) is divided by its
        # number, named; one that caps them (Gemma 2) says so, and the row is capped
        capped = "" if cap is None else f", capped at \u00b1{cap:g}"
        parts = meta.get("score_scale_parts")       # DeBERTa's √(3·d_k)
        shown = f"\u00f7 \u221a{d_k} = {root}" if own is None else \
            f"\u00f7 \u221a({parts}\u00b7{d_k}) = {root}" if parts else f"\u00f7 {root}"
        self.divisor = label_text(shown + capped, style.FONT_LABEL, pal.soft)
        self.divisor.next_to(VGroup(self.raw), DOWN, buff=0.3)
        by = (f"\u221ad_k = \u221a{d_k} = {root}" if own is None else
              f"{root}, the model\u2019s own scale ({meta.get('score_scale_setting')}), "
              f"not \u221ad_k")
        then = "" if cap is None else (f", then cap them as {cap:g}\u00b7tanh(s/{cap:g}), "
                                       f"so none passes \u00b1{cap:g}")
        self.say(f"Divide by {by}{then}" + ("" if term_names(self.trace)
                                            else ": these are the scores"))
        self.play(FadeIn(self.divisor, shift=UP * 0.2), run_time=style.T_QUICK)
        self.play(LaggedStart(*[replace_in_place(a, b) for a, b in zip(self.raw, self.scaled)],
                              lag_ratio=style.LAG_MANY),
                  # the name grows into its new form: q·k moves up over the bar, √d_k comes in
                  TransformMatchingShapes(self.label, scaled_label), run_time=style.T_STEP)
        self.label = scaled_label

    def label_below(self) -> bool:
        """Whether the row's name stands under the row (no room beside it)."""
        return self.label.get_y() < ROW_Y - 0.3

    def place_label(self, label) -> None:
        """The row's new name where its old one stood: beside the row, ending where the row
        begins; under it, from the left edge, clear of the row as it is now written (its
        numbers may have taken a second line)."""
        if self.label_below():
            label.next_to(VGroup(*self.scaled), DOWN, buff=0.25)
            label.align_to([LEFT_EDGE, 0, 0], LEFT)
        else:
            label.move_to(self.label, aligned_edge=RIGHT)

    # ---- 2a. a model's own terms, each a row under the scores, added in ---------------------
    def add_the_models_terms(self):
        """Each term the model adds to every score (MPNet's relative position bias), its row
        written under the scaled scores and named, then summed into them: the scores."""
        pal, trace = style.PALETTE, self.trace
        names = term_names(trace)
        label_below = self.label_below()
        below = min(self.label.get_bottom()[1], VGroup(*self.scaled).get_bottom()[1]) \
            if label_below else VGroup(*self.scaled).get_bottom()[1]
        rows, names_drawn = [], []
        top = below - 0.32
        for t, name in enumerate(names):       # each row, its name under it
            row = VGroup(*[self.number("score_term", (t, self.slot, self.f, j),
                                       decimals=self.score_dec, signed=True,
                                       font_size=style.FONT_LABEL, color=pal.soft)
                           for j in self.indices])
            fit_width(row, 0.86 * self.spacing * (2 if self.staggered else 1))
            for n, (x, m) in enumerate(zip(self.xs, row)):
                m.move_to([x, top - STAGGER * (self.staggered and n % 2 == 1), 0])
            named = label_text(f"+ {name}", style.FONT_SMALL, pal.soft)
            named.next_to(row, DOWN, buff=0.12).set_x(float(self.xs.mean()))
            stage.keep_right_of(named)
            rows.append(row)
            names_drawn.append(named)
            top = named.get_bottom()[1] - 0.3
        # a caption and a row for each term
        for t, (name, row, named) in enumerate(zip(names, rows, names_drawn)):
            lead = ("Then the model adds its " if len(names) == 1 else
                    f"Then the model adds {len(names)} terms of its own: its " if t == 0
                    else "And its ")
            self.say(lead + name + TERM_GLOSS.get(name, ""))
            self.play(*([FadeOut(self.divisor)] if t == 0 else []),
                      FadeIn(row, shift=DOWN * 0.15), FadeIn(named), run_time=style.T_STEP)
        self.divisor = VGroup()
        self.sum_the_terms(rows, VGroup(*names_drawn), names, label_below)

    def sum_the_terms(self, rows, names_drawn, names, label_below: bool) -> None:
        """Each column's terms rise into its scaled score: the scores. The row's name says
        q·k/√d_k + b, and under it what b is. The terms' names go first, and a name under
        the row steps aside while the numbers pass it."""
        pal = style.PALETTE
        summed = self.row_of_numbers("scores", self.score_dec)
        label = role_colored(make_math(
            f"frac({{{{ q : q }}}} dot {{{{ k : k }}}}, {divisor()}) + b", font_size=34,
            color=pal.text))
        scaled, self.scaled = self.scaled, summed     # placed under the summed row
        self.place_label(label)
        self.scaled = scaled
        what = names[0] if len(names) == 1 else f"its {len(names)} position terms" \
            if all("position" in n for n in names) else f"its {len(names)} terms"
        note = label_text(f"b: {what}", style.FONT_SMALL, pal.soft)
        note.next_to(label, DOWN, buff=0.12).align_to(label, LEFT)
        self.say(f"Each column summed: these are the scores, b its {what.removeprefix('its ')}")
        self.play(FadeOut(names_drawn), *([FadeOut(self.label)] if label_below else []),
                  run_time=style.T_QUICK)
        self.play(*[replace_in_place(a, b) for a, b in zip(self.scaled, summed)],
                  *[FadeOut(m, target_position=a.get_center())
                    for row in rows for m, a in zip(row, summed)],
                  *([] if label_below else [TransformMatchingShapes(self.label, label)]),
                  run_time=style.T_STEP)
        self.play(*([FadeIn(label)] if label_below else []), FadeIn(note, shift=UP * 0.1),
                  run_time=style.T_QUICK)
        self.scaled, self.label = summed, VGroup(label, note)

    # ---- 2b. a masked trace: the forbidden scores become -inf ---------------------------------
    def masked_scores_become_minus_infinity(self):
        pal = style.PALETTE
        pairs = []
        for c, (j, m) in enumerate(zip(self.indices, self.masked_row)):
            if m:
                t = self.number("masked_score", (self.slot, self.f, j), decimals=self.score_dec,
                                signed=True, font_size=style.FONT_LABEL, color=pal.mask)
                pairs.append((self.scaled[c], t.move_to(self.scaled[c])))
        self.say("The mask sets the forbidden ones to \u2212\u221e: no weight for those keys")
        self.play(*[replace_in_place(a, b) for a, b in pairs], run_time=style.T_STEP)
        for a, b in pairs:
            self.scaled.submobjects[self.scaled.submobjects.index(a)] = b

    # ---- 3. through the softmax arrow, back as bars -------------------------------------------
    def softmax_makes_weights(self):
        pal, xs = style.PALETTE, self.xs
        self.weights = np.array([self.book.value("weights", (self.slot, self.f, j))
                                 for j in self.indices])
        rest_label = None
        if self.rest:           # the tokens the window leaves out, as one bar: their sum
            rest_label = self.number("weight_rest", (self.slot, self.f, *self.indices),
                                     decimals=style.WEIGHT_DECIMALS, font_size=style.FONT_SMALL)
            self.weights = np.append(self.weights, self.book.value(
                "weight_rest", (self.slot, self.f, *self.indices)))
        weights = self.weights
        mid = float(xs.mean())
        arrow = Arrow([mid, ROW_Y - 0.75, 0], [mid, ROW_Y - 1.55, 0], buff=0,
                      color=pal.soft, stroke_width=4)
        arrow_label = label_text("softmax", style.FONT_BODY, pal.text).next_to(arrow, RIGHT,
                                                                               buff=0.2)
        w_labels = VGroup(*[self.number("weights", (self.slot, self.f, j),
                                        decimals=style.WEIGHT_DECIMALS,
                                        font_size=style.FONT_SMALL) for j in self.indices],
                          *([rest_label] if rest_label is not None else []))
        fit_width(w_labels, 0.94 * self.spacing)
        scale = max(weights.max(), 1e-6)
        colours = [interpolate_color(ManimColor(pal.faint), ManimColor(pal.ink),
                                     float(w / scale) ** 0.7).to_hex() for w in weights]
        if self.rest:           # the others' bar is not one key's: drawn in the dim colour
            colours[-1] = pal.dim
        bar_h = (ROW_Y - 2.4) - BASELINE_Y - 0.45
        self.bars = SoftmaxBars(weights, [], unit_height=bar_h / scale,
                                bar_width=min(0.5, self.spacing * 0.5), spacing=self.spacing,
                                colors=colours, value_labels=list(w_labels),
                                right_to_left=reads_from_right(self.trace))
        bars = self.bars
        bars.shift([mid - bars.baseline.get_center()[0], BASELINE_Y - bars.baseline.get_y(), 0])
        SoftmaxBars.place_value_labels(bars.value_labels, bars.bars, weights)
        said = self.heaviest()
        self.clear_of_the_paths(arrow, arrow_label, bars.value_labels)
        self.arrow = VGroup(arrow, arrow_label)
        others = []
        if self.rest:
            name = label_text(f"other {self.rest}", style.FONT_SMALL, pal.dim)
            name.next_to(bars.baseline, DOWN, buff=0.15).set_x(float(xs[-1]))
            stage.keep_right_of(name)
            others = [FadeIn(name)]
            said += (f"; the other {self.rest} tokens, not drawn, "
                     f"{rest_label.text} together")
        self.say(f"Softmax makes them weights: {said}")
        self.play(FadeOut(self.divisor), Create(arrow), FadeIn(arrow_label),
                  FadeIn(bars.baseline), *others, run_time=style.T_SHORT)
        self.play(LaggedStart(*[GrowFromEdge(b, DOWN) for b in bars.bars],
                              lag_ratio=style.lag_for(self.n)),
                  LaggedStart(*[FadeTransform(s.copy(), w) for s, w in zip(self.scaled,
                                                                           bars.value_labels)],
                              *[FadeIn(w) for w in bars.value_labels[len(self.scaled):]],
                              lag_ratio=style.lag_for(self.n)),
                  run_time=style.T_BUILD)

    def heaviest(self) -> str:
        """The two heaviest words, each the sum of its pieces (a list ranks words,
        never pieces), "fish 0.38, cat 0.37"; words weighing alike as written named
        together ("cat and fish, 0.37 each")."""
        words = WordModel.of_trace(self.trace)
        parts, listed = [], []
        for group in ranked_words(self.book, self.slot)[:2]:
            names = tied([word_quoted(words.words[w]) for w in group])
            number = self.record("word_weight", (self.slot, self.f, *words.words[group[0]].span),
                                 style.WEIGHT_DECIMALS)
            parts.append(f"{names}, {number} each" if len(group) > 1 else f"{names} {number}")
            listed.append(group)
            if len(group) > 1:
                break               # a tie at the top is the news
        said = ", ".join(parts)
        listed_claim(self.book, self.slot, listed, said)
        outside = outside_said(self.book, [w for group in listed for w in group])
        if outside:
            said += f" ({outside})"
        return said

    def clear_of_the_paths(self, arrow, label, targets) -> None:
        """The softmax arrow and its word stand where no score passes on its way down to
        its bar: beside the arrow if that is clear of every column, else left of the
        columns, else right of them (if neither has room, where it was)."""
        def crosses(mob) -> bool:
            x0, x1 = mob.get_left()[0] - 0.1, mob.get_right()[0] + 0.1
            return any(min(a.get_right()[0], b.get_right()[0]) > x0
                       and max(a.get_left()[0], b.get_left()[0]) < x1
                       for a, b in zip(self.scaled, targets))
        if not crosses(label):
            return
        pair = VGroup(arrow, label)
        left = min(m.get_left()[0] for m in [*self.scaled, *targets])
        right = max(m.get_right()[0] for m in [*self.scaled, *targets])
        if left - stage.LEFT_EDGE >= label.width + 0.6:
            label.next_to(arrow, LEFT, buff=0.2)
            pair.shift(RIGHT * (left - 0.25 - arrow.get_right()[0]))
        elif stage.RIGHT_EDGE - right >= label.width + 0.6:
            pair.shift(RIGHT * (right + 0.25 - arrow.get_left()[0]))

    # ---- 4. stacked, they make exactly one ----------------------------------------------------
    def stacked_they_make_one(self):
        pal, bars = style.PALETTE, self.bars
        total = self.number("weight_sum", (self.slot, self.f), decimals=style.WEIGHT_DECIMALS,
                            font_size=style.FONT_LABEL)
        stack_x = min(bars.bars.get_right()[0] + 1.1, 6.3)
        stack_h = min(3.2, ROW_Y - 0.9 - BASELINE_Y)
        stack = bars.stacked(self.weights, stack_x, BASELINE_Y, stack_h)
        one_tick = Line([stack_x - 0.4, BASELINE_Y + stack_h, 0],
                        [stack_x + 0.4, BASELINE_Y + stack_h, 0]).set_stroke(pal.highlight, 2)
        sum_label = VGroup(label_text("sum =", style.FONT_LABEL, pal.soft), total)
        sum_label.arrange(RIGHT, buff=0.12, aligned_edge=DOWN).next_to(one_tick, UP, buff=0.12)
        stage.keep_right_of(sum_label)
        # the softmax arrow has done its work: it goes where the stack needs its place
        needed = box_of(VGroup(stack, one_tick, sum_label)) + np.array([-0.2, -0.2, 0.2, 0.2])
        away = ([FadeOut(self.arrow)]
                if overlap_areas(box_of(self.arrow)[None], needed[None])[0, 0] > 0 else [])
        self.book.claim("adds_up", (total.text, *[m.text for m in bars.value_labels]),
                        f"sum = {total.text}")
        self.say(f"Stacked, the weights make exactly one: sum = {total.text}")
        self.play(LaggedStart(*[TransformFromCopy(b, s) for b, s in zip(bars.bars, stack)],
                              lag_ratio=style.lag_for(self.n)),
                  *away, run_time=style.T_MOVE)
        self.play(Create(one_tick), FadeIn(sum_label, shift=DOWN * 0.1), run_time=style.T_QUICK)
        self.roles[Role.WEIGHTS] = VGroup(bars.value_labels)

    def hand_off(self) -> None:
        """The weights written on the bars gather into the list the pull beat weighs the
        values with, a word's pieces into its one line; the rest goes."""
        target = weights_list(self.book)
        words = WordModel.of_trace(self.trace)
        moves, taken = [], set()
        for j, row in zip(target.keys, target.entries):
            pieces = [self.bars.value_labels[self.indices.index(p)]
                      for p in words.word_of(j).pieces if p in self.indices]
            if not pieces:              # a word the window leaves out: no bar of its own
                moves.append(FadeIn(row))
                continue
            moves.append(FadeTransform(pieces[0], row))
            moves += [FadeOut(label, target_position=row.get_center()) for label in pieces[1:]]
            taken |= {id(m) for m in pieces}
        extra = [m for m in target if m not in target.entries]
        leaving = [m for m in self.film.mobjects
                   if m not in [self.roles[role] for role in Role.OVERLAY]]
        self.play(*moves, *[FadeIn(m) for m in extra],
                  *[FadeOut(m) for m in leaving if id(m) not in taken],
                  run_time=style.T_HANDOFF)
