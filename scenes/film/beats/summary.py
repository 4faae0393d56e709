"""Beat 9, summary: the primary head's whole weight matrix as a heat map over the words (a
perceptually uniform ramp, with its scale), every weight written in its cell when the
cells are big enough, the focus row marked, and the formula softmax(QKᵀ/√d_k)V, whole
again, as the film's last picture.

The formula is our own fixed Typst source; user text never goes into Typst.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, LaggedStart, Rectangle, VGroup

from ...vocabulary import colors, stage, style
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import ROOT_DK, FormulaMap, attention_formula, divisor
from ...vocabulary.headers import beat_line, head_name
from ...vocabulary.text import label_text, line_of
from ....attention_core.score_terms import term_names
from ....attention_core.word_model import WordModel
from ..ranking import listed_claim, outside_said, ranked_words
from ..views import drawn_words, sentence_grid, shown_tokens_note
from ..wording import LQ, RQ, focus_whole, told_parts

__all__ = ["LEGEND_GAP", "RAMP_STEPS", "RAMP_TICKS", "SIDE_WORDS", "SummaryBeat", "heat_ramp", "line"]

LEGEND_GAP = 0.7
SIDE_WORDS = 3      # the heaviest words written beside a map too small for its numbers
RAMP_TICKS = (0.0, 0.1, 0.5, 1.0)     # on the ramp's square-root scale these spread out
RAMP_STEPS = 48


def line(book):
    return beat_line(f"Every word's weights at once: {head_name(book, book.trace.primary_slot)}")


def heat_ramp(height: float = 2.6, width: float = 0.32) -> VGroup:
    """The heat map's scale: the ramp from weight 0 (bottom) to 1 (top), ticks written."""
    cells = VGroup(*[Rectangle(width=width, height=height / RAMP_STEPS)
                     .set_stroke(width=0).set_fill(colors.heat(((n + 0.5) / RAMP_STEPS) ** 2), 1.0)
                     for n in range(RAMP_STEPS)]).arrange(UP, buff=0)
    ticks = VGroup()
    for w in RAMP_TICKS:
        y = cells.get_bottom()[1] + height * np.sqrt(w)
        tick = label_text(f"{w:g}", style.FONT_SMALL, style.PALETTE.soft)
        tick.move_to([cells.get_right()[0] + 0.15, y, 0], aligned_edge=LEFT)
        ticks.add(tick)
    return VGroup(cells, ticks)


class SummaryBeat(Beat):
    name = "summary"

    @classmethod
    def leaves(cls, film) -> Stage:
        return Stage({Role.LINE: line(film.book), Role.MAP: FormulaMap(None),
                      Role.GRID: sentence_grid(film.trace)})

    def script(self):
        trace = self.trace
        self.slot, self.focus = trace.primary_slot, trace.focus_index
        self.open(line(self.book), None)
        self.grid = self.stage.get(Role.GRID) or sentence_grid(trace)
        if Role.GRID not in self.roles:
            self.add(self.grid)
        self.roles[Role.GRID] = self.grid
        self.idx = self.grid.indices
        self.row = self.idx.index(self.focus)
        self.the_heat_map()
        self.the_numbers()
        self.the_formula()

    # ---- the heat map --------------------------------------------------------------------------
    def the_heat_map(self):
        trace, grid, idx = self.trace, self.grid, self.idx
        self.weights = trace.weights[self.slot][np.ix_(idx, idx)].astype(np.float64)
        self.cells = VGroup()
        for r in range(len(idx)):
            for c in range(len(idx)):
                square = grid.cell_square(r, c).scale(0.94).set_stroke(width=0)
                self.cells.add(square.set_fill(colors.heat(self.weights[r, c]), 1.0))
        self.box = grid.focus_box(self.row)
        self.formula = attention_formula(style.FONT_TITLE, full=False)
        room = stage.RIGHT_EDGE - (grid.get_right()[0] + LEGEND_GAP)
        if self.formula.width > room:
            self.formula.scale_to_fit_width(room)
        self.formula.next_to(grid, RIGHT, buff=LEGEND_GAP).align_to(grid, UP)
        stage.keep_right_of(self.formula)
        self.beside = self.beside_the_map()
        # the scale fills what is left under the formula and the notes, on the grid's floor
        above = (self.beside if len(self.beside) else self.formula).get_bottom()[1] - 0.45
        ramp = heat_ramp(min(2.0, above - 0.45 - grid.lines.get_bottom()[1]))
        ramp_title = label_text("weight", style.FONT_SMALL, style.PALETTE.soft)
        ramp_title.next_to(ramp, UP, buff=0.15).align_to(ramp, LEFT)
        self.ramp = VGroup(ramp, ramp_title)
        self.ramp.next_to(grid.lines, RIGHT, buff=LEGEND_GAP).align_to(grid.lines, DOWN)
        self.say(f"All of {head_name(self.book, self.slot)}'s weights at once: "
                 "each row, one word's")
        self.play(LaggedStart(*[FadeIn(sq) for sq in self.cells], lag_ratio=style.LAG_MANY),
                  FadeIn(self.ramp), Create(self.box), run_time=style.T_BUILD)

    # ---- the weights written in their cells ----------------------------------------------------
    def beside_the_map(self) -> VGroup:
        """Every weight goes in its cell when the cells hold a legible number; else the
        focus word's three heaviest words drawn (each the sum of its pieces: a side text
        ranks words, never pieces) are written beside the map (under the formula), with a
        note of the tokens left out, if any."""
        trace, grid, pal = self.trace, self.grid, style.PALETTE
        self.in_cells = label_text("0.00", style.MIN_FONT).width <= 0.84 * grid.cell
        self.outside = ""
        beside = VGroup()
        if not self.in_cells:
            words = WordModel.of_trace(trace)
            order = [w for group in ranked_words(self.book, self.slot)
                     for w in group][:SIDE_WORDS]
            parts = [(LQ, pal.query), (trace.focus_word, ("user", pal.query)), (RQ, pal.query)]
            whole = focus_whole(trace)
            if whole and whole != trace.focus_word:         # the focus is a piece: said so
                parts += [(f" in {LQ}", pal.text), (whole, ("user", pal.text)),
                          (RQ, pal.text)]
            # told apart in the colour of the word it follows
            parts += told_parts(words.word_of(trace.focus_index),
                                pal.text if whole and whole != trace.focus_word else pal.query)
            parts.append((":", pal.query))
            # a word a line: words as written may be long ("Straßenbahnhaltestelle")
            rows = [line_of(parts, style.FONT_SMALL)]
            drawn = set(drawn_words(trace))
            for w in order:
                number = self.record("word_weight", (self.slot, self.focus,
                                                     *words.words[w].span),
                                     style.WEIGHT_DECIMALS)
                # a word the window leaves out in grey, and said to be
                shade = pal.text if w in drawn else pal.dim
                # the focus's own word is said to be (its weight on itself)
                itself = " itself" if w == words.index_of(self.focus) else ""
                rows.append(line_of([(words.words[w].text, ("user", shade)),
                                     *told_parts(words.words[w], shade),
                                     (f"{itself} {number}", pal.text)], style.FONT_SMALL))
            listed_claim(self.book, self.slot, [[w] for w in order],
                         " ".join(row.original_text for row in rows))
            self.outside = outside_said(self.book, order)       # said as it is written
            beside.add(VGroup(*rows).arrange(DOWN, buff=0.12, aligned_edge=LEFT))
        note = shown_tokens_note(trace)
        if note is not None:
            beside.add(note)
        if len(beside):
            beside.arrange(DOWN, buff=0.25, aligned_edge=LEFT)
            beside.next_to(self.formula, DOWN, buff=0.45).align_to(self.formula, LEFT)
            stage.keep_right_of(beside)
        return beside

    def the_numbers(self):
        grid, idx = self.grid, self.idx
        written = VGroup()
        if self.in_cells:
            for r, i in enumerate(idx):
                for c, j in enumerate(idx):
                    number = self.number("weights", (self.slot, i, j),
                                         decimals=style.WEIGHT_DECIMALS,
                                         font_size=style.FONT_SMALL,
                                         color=colors.text_on(colors.heat(self.weights[r, c])))
                    written.add(number.move_to(grid.cell_center(r, c)))
        written.add(*self.beside)
        self.say("Every weight in its cell; brighter is more" if self.in_cells
                 else "Brighter is more weight" + (f"; in grey, {self.outside}"
                                                   if self.outside else ""))
        self.play(LaggedStart(*[FadeIn(m) for m in written], lag_ratio=style.LAG_MANY),
                  run_time=style.T_MOVE)

    # ---- the formula, whole --------------------------------------------------------------------
    def the_formula(self):
        over = "\u221ad_k" if divisor() == ROOT_DK else divisor()
        cap = self.trace.meta.get("score_softcap")     # Gemma 2 caps the scores first
        capped = "" if cap is None else f" (capped at \u00b1{cap:g})"
        # a model's own terms of the scores (MPNet's relative position bias), as B
        names = term_names(self.trace)
        capped += "" if not names else f", plus B (its {' and '.join(names)})"
        self.say(f"One formula does all of it: softmax of QK\u1d40 over {over}{capped}, "
                 "times V")
        # the film's map, in the corner all along, grows into the formula beside the map
        corner = self.roles[Role.MAP]
        self.play(corner.animate.scale(self.formula.width / corner.formula.width)
                  .shift(self.formula.get_center() - corner.formula.get_center()),
                  run_time=style.T_WRITE)
