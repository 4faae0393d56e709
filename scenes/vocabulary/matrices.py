"""Matrices in 3b1b's picture: a weight matrix's real entries (blue +, red -, brighter
when larger), and matrix times vector, a box sweeping each row while the result's entry
appears."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from manim import (LEFT, RIGHT, UP, Brace, Create, FadeIn, Mobject, SurroundingRectangle,
                   VGroup)

from . import colors, style
from .text import label_text
from .vectors import VectorColumn, bracket

__all__ = ["MatrixVectorProduct", "WeightMatrix", "counted_brace", "entries_of"]


class WeightMatrix(VGroup):
    """A few rows and columns of a weight matrix, written out: ``make(r, c)`` gives the
    Text of entry (r, c) for the shown ``rows`` and ``cols``; a ⋮ row and a ⋯ column
    stand where they skip. Each entry is coloured by its sign and size (``values(r, c)``).
    ``self.row(n)`` is the n-th shown row (for a sweep); entries are ``self.cells``.

    >>> from .text import label_text
    >>> m = WeightMatrix(lambda r, c: label_text("0.1"), lambda r, c: 0.1, [0, 1, 9], [0, 5])
    >>> len(m.cells)
    6
    """

    def __init__(self, make: Callable[[int, int], Mobject], values: Callable[[int, int], float],
                 rows: Sequence[int], cols: Sequence[int], *, pitch: tuple[float, float] = (0.72, 0.36),
                 font_size: float = style.FONT_SMALL):
        super().__init__()
        pal = style.PALETTE
        self.rows_shown, self.cols_shown = list(rows), list(cols)
        scale = max(abs(values(r, c)) for r in rows for c in cols) or 1.0
        row_gap = _gap(rows)
        col_gap = _gap(cols)
        self.cells, self.marks = VGroup(), VGroup()
        self.row_groups = []
        y = 0.0
        for n, r in enumerate(rows):
            row, x = VGroup(), 0.0
            for m, c in enumerate(cols):
                entry = make(r, c)
                # coloured by the number drawn: one that reads 0.00 has no sign
                drawn_zero = not getattr(entry, "text", "1").strip("+\u2212-0.")
                entry.set_color(pal.zero if drawn_zero else
                                colors.signed(values(r, c), scale, pal.positive, pal.negative))
                row.add(entry.move_to([x, y, 0]))
                x += pitch[0]
                if col_gap == m:
                    self.marks.add(label_text("\u22ef", font_size, pal.dim).move_to([x, y, 0]))
                    x += pitch[0]
            self.cells.add(*row)
            self.row_groups.append(row)
            y -= pitch[1]
            if row_gap == n:
                self.marks.add(label_text("\u22ee", font_size, pal.dim).move_to(
                    [(x - pitch[0]) / 2, y, 0]))
                y -= pitch[1]
        body = VGroup(self.cells, self.marks)
        height = body.height + 0.2
        self.brackets = VGroup(bracket(height, "left").next_to(body, LEFT, buff=0.12),
                               bracket(height, "right").next_to(body, RIGHT, buff=0.12))
        self.add(self.brackets, self.cells, self.marks)

    def row(self, n: int) -> VGroup:
        return self.row_groups[n]


def _gap(shown: Sequence[int]) -> int | None:
    """After which shown position the indices skip (a ⋮ or ⋯ goes there), if they do."""
    for n in range(len(shown) - 1):
        if shown[n + 1] != shown[n] + 1:
            return n
    return None


def counted_brace(mob: Mobject, direction, count: str, what: str = "") -> VGroup:
    """A brace along a side of ``mob`` and its count ("384 columns", or just "32")."""
    brace = Brace(mob, direction=direction, buff=0.08, color=style.PALETTE.dim)
    label = label_text(f"{count} {what}".strip(), style.FONT_SMALL, style.PALETTE.soft)
    brace.put_at_tip(label, buff=0.1)
    return VGroup(brace, label)


class MatrixVectorProduct(VGroup):
    """``matrix × vector (+ bias) = output``, laid out on one line with the output's rows
    level with the matrix's; :meth:`play_sweep` boxes each row of the matrix and the
    vector while that entry of the output appears."""

    def __init__(self, matrix: WeightMatrix, vector: VectorColumn, output: VectorColumn, *,
                 plus_bias: bool = True, buff: float = 0.22):
        super().__init__()
        pal = style.PALETTE
        self.matrix, self.vector, self.output = matrix, vector, output
        times = label_text("\u00d7", style.FONT_LABEL, pal.soft)
        vector.next_to(matrix, RIGHT, buff=buff + 0.45)
        times.move_to((matrix.get_right() + vector.get_left()) / 2)
        parts = [times]
        if plus_bias:
            bias = label_text("+ b", style.FONT_LABEL, pal.soft).next_to(vector, RIGHT, buff=buff)
            parts.append(bias)
        equals = label_text("=", style.FONT_LABEL, pal.soft).next_to(parts[-1] if plus_bias
                                                                     else vector, RIGHT, buff=buff)
        output.next_to(equals, RIGHT, buff=buff)
        # the output's entries level with the matrix's rows
        output.shift(UP * (matrix.row(0).get_y() - output.entries[0].get_y()))
        self.signs = VGroup(*parts, equals)
        self.add(matrix, self.signs, vector, output)

    def play_sweep(self, beat, *, time_per_row: float = style.T_ROW) -> None:
        """Box each row and the vector, the output's entry appearing as its row is done."""
        color = style.PALETTE.highlight
        row_box = SurroundingRectangle(self.matrix.row(0), color=color, buff=0.05, stroke_width=3)
        vec_box = SurroundingRectangle(self.vector.rows, color=color, buff=0.06, stroke_width=3)
        beat.play(Create(row_box), Create(vec_box), FadeIn(self.output.brackets),
                  *([FadeIn(self.output.dots)] if self.output.dots is not None else []),
                  run_time=style.T_QUICK)
        for n, entry in enumerate(self.output.entries):
            if n > 0:
                beat.play(row_box.animate.move_to(self.matrix.row(n)),
                          run_time=time_per_row * 0.5)
            beat.play(FadeIn(entry, shift=LEFT * 0.3), run_time=time_per_row * 0.5)
        beat.play(row_box.animate.set_stroke(opacity=0), vec_box.animate.set_stroke(opacity=0),
                  run_time=style.T_FLICK)
        beat.remove(row_box, vec_box)


def entries_of(book, kind: str, prefix: tuple) -> tuple[Callable, Callable]:
    """(make, values) for a WeightMatrix of the recorded numbers ``kind[prefix + (r, c)]``."""
    def make(r, c):      # two decimals: a weight matrix's entries are small
        return book.text_mobject(kind, (*prefix, r, c), decimals=2, signed=True,
                                 font_size=style.FONT_SMALL)

    def values(r, c):
        return book.value(kind, (*prefix, r, c))
    return make, values

