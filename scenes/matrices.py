"""Matrix times vector in 3b1b's picture: a box sweeps the matrix's rows while each entry
of the result appears."""
from __future__ import annotations

from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, Create, FadeIn, Mobject, Square,
                   SurroundingRectangle, VGroup)

from . import style
from .text import label_text
from .vectors import VectorColumn, bracket


class MatrixVectorSweep(VGroup):
    """A matrix block times a VectorColumn, equal to an output VectorColumn, with a
    yellow box sweeping the matrix's rows (and the vector) while each output entry
    appears (3b1b's matrix-vector picture).

    The matrix is drawn as a block of blank cells, a few rows shown with ⋮ / ⋯ where
    rows and columns are skipped: the weights themselves are not in the trace, so none
    is written. Its rows line up with the output's shown entries. ``matrix_label`` names
    it (e.g. MathTypst "W_Q"); ``size_note`` states its real size.
    Add ``self.static`` first, then call :meth:`play_sweep`.
    """

    def __init__(self, matrix_label: Mobject, vector: VectorColumn, output: VectorColumn, *,
                 n_cols_shown: int = 6, color: str | None = None,
                 size_note: Mobject | None = None, buff: float = 0.25):
        super().__init__()
        pal = style.PALETTE
        color = color or pal.highlight
        self.vector, self.output = vector, output
        # rows: one per output row (entries and the ⋮ row)
        out_rows = list(output.rows)
        pitch = (out_rows[0].get_y() - out_rows[1].get_y()) if len(out_rows) > 1 else 0.34
        cell = min(pitch * 0.86, 0.3)
        cols = n_cols_shown
        gap_col = cols - 2           # a ⋯ column before the last one
        self.matrix_rows = VGroup()
        blocks = VGroup()
        for r, row_mob in enumerate(out_rows):
            row = VGroup()
            is_gap_row = row_mob is output.dots
            for c in range(cols):
                x = c * cell * 1.12
                if is_gap_row or c == gap_col:
                    if is_gap_row and c == gap_col:
                        continue
                    mark = label_text("\u22ee" if is_gap_row else "\u22ef", style.FONT_SMALL, pal.dim)
                    mark.move_to([x, -r * pitch, 0])
                    row.add(mark)
                    continue
                sq = Square(cell).set_stroke(pal.dim, width=1).set_fill(pal.faint, 0.8)
                row.add(sq.move_to([x, -r * pitch, 0]))
            if not is_gap_row:
                self.matrix_rows.add(row)
            blocks.add(row)
        height = len(out_rows) * pitch + 0.1
        blocks.move_to(ORIGIN)
        self.matrix = VGroup(bracket(height, "left").next_to(blocks, LEFT, buff=0.1), blocks,
                             bracket(height, "right").next_to(blocks, RIGHT, buff=0.1))
        self.matrix_label = matrix_label.next_to(self.matrix, UP, buff=0.2)
        times = label_text("\u00d7", style.FONT_BODY, pal.soft)
        equals = label_text("=", style.FONT_BODY, pal.soft)
        vector.next_to(self.matrix, RIGHT, buff=buff + 0.5)
        times.move_to((self.matrix.get_right() + vector.get_left()) / 2)
        equals.next_to(vector, RIGHT, buff=buff)
        output.next_to(equals, RIGHT, buff=buff)
        # align the output's rows with the matrix's rows
        output.shift(UP * (blocks[0].get_y() - out_rows[0].get_y()))
        self.signs = VGroup(times, equals)
        self.size_note = size_note
        if size_note is not None:
            size_note.next_to(self.matrix, DOWN, buff=0.2)
        self.row_box = SurroundingRectangle(self.matrix_rows[0], color=color, buff=0.05,
                                            stroke_width=3)
        self.vector_box = SurroundingRectangle(vector.rows, color=color, buff=0.06,
                                               stroke_width=3)
        self.static = VGroup(self.matrix, self.matrix_label, self.signs, vector,
                             output.brackets)
        if output.dots is not None:
            self.static.add(output.dots)
        if size_note is not None:
            self.static.add(size_note)
        self.add(self.static, output.entries)

    def play_sweep(self, scene, *, time_per_row: float = 0.55) -> None:
        """Sweep the box down the rows; each output entry appears as its row is done."""
        # the boxes are fitted now: the group may have been moved or scaled since built
        color, width = self.row_box.get_stroke_color(), self.row_box.get_stroke_width()
        self.row_box = SurroundingRectangle(self.matrix_rows[0], color=color, buff=0.05,
                                            stroke_width=width)
        self.vector_box = SurroundingRectangle(self.vector.rows, color=color, buff=0.06,
                                               stroke_width=width)
        scene.play(Create(self.row_box), Create(self.vector_box), run_time=0.5,
                   rate_func=style.EASE)
        for n, (row, entry) in enumerate(zip(self.matrix_rows, self.output.entries)):
            if n > 0:
                scene.play(self.row_box.animate.move_to(row), run_time=time_per_row * 0.5,
                           rate_func=style.EASE)
            scene.play(FadeIn(entry, shift=LEFT * 0.3), run_time=time_per_row * 0.5,
                       rate_func=style.EASE)
        scene.play(*[m.animate.set_stroke(opacity=0) for m in (self.row_box, self.vector_box)],
                   run_time=0.4)
        scene.remove(self.row_box, self.vector_box)
