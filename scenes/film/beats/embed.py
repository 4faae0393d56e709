"""Beat 2, embed: each token becomes a vector, first as a column of its real numbers, then
as an arrow in a stated 2-D view of embedding space; the focus word is singled out. It
hands on the focus word's column (W_Q's input in the next beat) and the view (which
the next beat turns into queries and keys)."""
from __future__ import annotations

import numpy as np
from manim import DOWN, FadeIn, FadeTransform, GrowArrow, LaggedStart, Square, VGroup

from ...vocabulary import colors, stage, style
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import beat_line, layer_name
from ...vocabulary.scripts import reading_slot
from ...vocabulary.text import dimmed, fit_width, line_of
from ...vocabulary.vectors import VectorColumn, shown_components
from ..views import (drawn_indices, embedding_panel, embedding_plane, embedding_view,
                     input_column, reads_from_right, strip_row)
from ..wording import focus_name

__all__ = ["CELL", "EmbedBeat", "FOCUS_SCALE", "VIEW_SIZE", "line"]

FOCUS_SCALE = 1.25  # the focus word grows by this when it is singled out
VIEW_SIZE = (7.4, 3.1)
CELL = 0.26         # a number drawn as a cell (long sentences)
ATTEMPTS = 6        # drawings of the view, each smaller, until it fits above the edge


def line(book):
    return beat_line("Each token enters as a vector of ", book.text("d_model", (), 0),
                     " numbers")


class EmbedBeat(Beat):
    name = "embed"

    @classmethod
    def leaves(cls, film) -> Stage:
        book = film.book
        return Stage({Role.LINE: line(book), Role.MAP: FormulaMap(None),
                      Role.ROW: strip_row(film.trace), Role.COLUMN: input_column(book),
                      Role.VIEW: embedding_panel(book)})

    def script(self):
        self.open(line(self.book), None)
        self.columns_of_numbers()
        self.arrows_in_a_view()
        self.single_out_the_focus()

    # ---- each token's embedding as a column of its numbers ---------------------------------
    def columns_of_numbers(self):
        trace, row, pal = self.trace, self.stage[Role.ROW], style.PALETTE
        indices = drawn_indices(trace)
        d_model = int(trace.embeddings.shape[-1])
        # evenly spaced across the stage, each under its chip when the chips allow
        pitch = min(stage.TEXT_WIDTH / len(indices), 1.3)
        probe = VectorColumn.from_trace(self.book, "embeddings", (indices[0],), d_model)
        del self.book.shown[-len(probe.components):]              # a probe, not drawn
        # numbers when they stay legible in a column's room, else a cell per number
        self.as_cells = probe.width * style.MIN_FONT / style.FONT_NUMBER > 0.86 * pitch
        columns = VGroup()
        for i in indices:
            col = (self.cell_column(i, d_model) if self.as_cells
                   else VectorColumn.from_trace(self.book, "embeddings", (i,), d_model))
            if trace.special[i]:       # dimmed, not hidden (the brackets are open lines)
                dimmed(col.rows, 0.45)
                col.brackets.set_stroke(opacity=0.45)
            columns.add(col)
        fit_width(columns, 0.86 * pitch)
        rtl, count = reads_from_right(trace), len(indices)      # in the strip's order
        for n, col in enumerate(columns):
            col.move_to([(reading_slot(n, count, rtl) - (count - 1) / 2) * pitch, 0, 0])
        top = min(stage.BODY_TOP, row.get_bottom()[1] - 0.15) - 0.1     # under the strip's note
        columns.shift(DOWN * (columns.get_top()[1] - top))
        self.columns = columns
        if self.as_cells:
            key = line_of([("one cell per number: ", pal.dim),
                           (f"{pal.positive_name} +", pal.positive), (", ", pal.dim),
                           (f"{pal.negative_name} \u2212", pal.negative),
                           (", brighter = larger", pal.dim)], style.FONT_SMALL)
            key.next_to(columns, DOWN, buff=0.12)
            columns.add(key)
        self.say(f"Each token enters {layer_name(self.book)} as a vector of "
                 f"{self.record('d_model', (), 0)} numbers, its {trace.input_name[0]}")
        self.play(LaggedStart(*[FadeTransform(row.chip(i).word.copy(), col)
                                for i, col in zip(indices, columns)],
                              lag_ratio=style.lag_for(len(indices))),
                  *([FadeIn(columns[-1])] if self.as_cells else []),
                  run_time=style.T_WRITE)

    def cell_column(self, i: int, d_model: int) -> VectorColumn:
        """Token ``i``'s embedding as a column of cells, one per shown number: the
        palette's positive and negative colours, brighter for larger."""
        pal = style.PALETTE
        comps = shown_components(d_model)
        scale = max(abs(self.book.value("embeddings", (i, c))) for c in comps)

        def cell(c):
            value = self.book.value("embeddings", (i, c))
            return Square(CELL).set_stroke(width=0).set_fill(
                colors.signed(value, scale, pal.positive, pal.negative), 1.0)
        return VectorColumn(cell, length=d_model, color_by_magnitude=False,
                            row_height=CELL + 0.06, font_size=style.MIN_FONT)

    # ---- the same vectors as arrows in a stated 2-D projection -------------------------------
    def arrows_in_a_view(self):
        indices = drawn_indices(self.trace)
        _, points = embedding_view(self.trace)
        size = np.array(VIEW_SIZE, dtype=float)
        for attempt in range(ATTEMPTS):
            plane, arrows = embedding_plane(self.book, points, indices, width=size[0],
                                            height=size[1], focus_scale=FOCUS_SCALE)
            view = VGroup(plane, *arrows)
            view.next_to(self.columns, DOWN, buff=0.25)
            if view.get_bottom()[1] >= stage.BOTTOM_EDGE:
                break
            # too tall: the note keeps its size, wrapped under the plane, and the plane is
            # drawn again smaller (scaling the drawn one would shrink its words too)
            note = plane.wrap_note(stage.TEXT_WIDTH)
            plane.remove(note)
            room = view.get_top()[1] - stage.BOTTOM_EDGE - note.height - 0.15
            if view.height <= room or attempt == ATTEMPTS - 1:
                note.next_to(view, DOWN, buff=0.15)
                plane.add(note)
                break
            size *= room / view.height * 0.98    # its words reach past the plane's box
        self.arrows = arrows
        self.say(f"The same vectors as arrows: a 2-D view of "
                 f"{self.record('d_model', (), 0)}-D space")
        self.play(FadeIn(plane), run_time=style.T_STEP)
        self.play(LaggedStart(*[GrowArrow(a.arrow) for a in arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(VGroup(a.word, a.extras)) for a in arrows],
                              lag_ratio=style.LAG_FEW),
                  run_time=style.T_WRITE)

    # ---- the word we will follow --------------------------------------------------------------
    def single_out_the_focus(self):
        trace = self.trace
        f = trace.focus_index
        focus_arrow = self.arrows[drawn_indices(trace).index(f)]
        chip = self.stage[Role.ROW].chip(f)
        self.say(f"We follow {focus_name(trace)}")
        self.play(focus_arrow.arrow.animate.set_stroke(width=6),
                  focus_arrow.word.animate.scale(FOCUS_SCALE).set_color(style.PALETTE.query),
                  chip.animate.set_role_color(style.PALETTE.query, width=2.5),
                  run_time=style.T_SHORT)
