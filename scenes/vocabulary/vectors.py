"""Vectors on screen: a bracketed column of real numbers, and a vector's symbol (q⃗_ate)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from manim import DOWN, LEFT, ORIGIN, RIGHT, Line, ManimColor, Mobject, VGroup, interpolate_color

from . import style
from .text import label_text, make_math, user_text

__all__ = [
    "VectorColumn", "VectorRow", "bracket", "magnitude_color", "shown_components",
    "vector_symbol",
]


def magnitude_color(magnitude: float, scale: float) -> str:
    """Entry brightness by magnitude: grey for small, the ink (white on a dark stage) for
    the largest."""
    share = 0.0 if scale <= 0 else min(abs(magnitude) / scale, 1.0)
    return interpolate_color(ManimColor(style.PALETTE.dim), ManimColor(style.PALETTE.ink),
                             share ** 0.75).to_hex()


def shown_components(length: int, head: int = 3, tail: int = 1) -> list[int]:
    """Which components of a vector to write: the first ``head`` and last ``tail``
    (all of them when the vector is short).

    >>> shown_components(384)
    [0, 1, 2, 383]
    """
    if length <= head + tail + 1:
        return list(range(length))
    return list(range(head)) + list(range(length - tail, length))


def bracket(height: float, side: str, *, arm: float = 0.12, color: str | None = None,
            stroke_width: float = 2.0) -> VGroup:
    """A square bracket as a three-segment line ('left' opens right, 'right' opens left)."""
    sign = 1 if side == "left" else -1
    h = height / 2
    # three Lines, not one polyline: a polyline would fill its inside under set_opacity
    b = VGroup(Line([sign * arm, h, 0], [0, h, 0]), Line([0, h, 0], [0, -h, 0]),
               Line([0, -h, 0], [sign * arm, -h, 0]))
    return b.set_stroke(color or style.PALETTE.soft, width=stroke_width)


class VectorColumn(VGroup):
    """A bracketed column of a vector's numbers: a few entries, a "⋮" row where
    components are skipped, entries right-aligned, brightness by magnitude.

    ``entries`` is either a sequence of ready Text mobjects (shown top to bottom; a ⋮
    goes after position ``gap_after`` when given), or a callable ``make(c) -> Mobject``
    called for each component in ``shown_components(length)`` (⋮ where they skip).
    ``magnitudes`` (same order as the shown entries) only sets brightness. Use
    :meth:`from_trace` to read entries through the scene's number book, so they are
    recorded.

    >>> col = VectorColumn(lambda c: label_text(str(c)), length=384)
    >>> col.components
    [0, 1, 2, 383]
    """

    def __init__(self, entries: Sequence[Mobject] | Callable[[int], Mobject], *,
                 length: int | None = None, head: int = 3, tail: int = 1,
                 gap_after: int | None = None, magnitudes: Sequence[float] | None = None,
                 row_height: float = 0.34, bracket_color: str | None = None,
                 color_by_magnitude: bool = True, font_size: float = style.FONT_NUMBER):
        super().__init__()
        if callable(entries):
            if length is None:
                raise ValueError("a callable of entries needs the vector length")
            self.components = shown_components(length, head, tail)
            mobs = [entries(c) for c in self.components]
            gaps = [n for n in range(len(self.components) - 1)
                    if self.components[n + 1] != self.components[n] + 1]
            gap_after = gaps[0] if gaps else None
        else:
            mobs = list(entries)
            self.components = list(range(len(mobs)))
        self.entries = VGroup(*mobs)
        if color_by_magnitude and magnitudes is not None and len(magnitudes) == len(mobs):
            scale = max((abs(m) for m in magnitudes), default=0.0)
            for mob, mag in zip(mobs, magnitudes):
                mob.set_color(magnitude_color(mag, scale))
        rows: list[Mobject] = []
        self.dots = None
        for n, mob in enumerate(mobs):
            rows.append(mob)
            if gap_after is not None and n == gap_after:
                self.dots = label_text("\u22ee", font_size, style.PALETTE.soft)
                rows.append(self.dots)
        # fixed row pitch so columns of different vectors line up row by row
        width = max((m.width for m in mobs), default=0.3)
        for r, mob in enumerate(rows):
            y = -r * row_height
            if mob is self.dots:
                mob.move_to([-width / 2, y, 0])
            else:
                mob.move_to([0, y, 0], aligned_edge=RIGHT)
                mob.set_x(-mob.width / 2)   # right edges at x = 0
        self.rows = VGroup(*rows)
        self.rows.move_to(ORIGIN)
        height = len(rows) * row_height + 0.1
        self.brackets = VGroup(
            bracket(height, "left", color=bracket_color).next_to(self.rows, LEFT, buff=0.1),
            bracket(height, "right", color=bracket_color).next_to(self.rows, RIGHT, buff=0.1),
        )
        self.brackets.set_y(self.rows.get_center()[1])
        self.add(self.brackets, self.rows)

    @classmethod
    def from_trace(cls, book, kind: str, prefix: tuple, length: int, *, head: int = 3,
                   tail: int = 1, font_size: float = style.FONT_NUMBER, **kwargs
                   ) -> "VectorColumn":
        """A column of ``kind[prefix + (c,)]`` for the shown components, each written by
        the number ``book`` (signed, ``style.VECTOR_DECIMALS``) so it is recorded."""
        comps = shown_components(length, head, tail)
        mags = [book.value(kind, tuple(prefix) + (c,)) for c in comps]
        return cls(lambda c: book.text_mobject(kind, tuple(prefix) + (c,),
                                               decimals=style.VECTOR_DECIMALS, signed=True,
                                               font_size=font_size),
                   length=length, head=head, tail=tail, magnitudes=mags,
                   font_size=font_size, **kwargs)

    def entry(self, component: int) -> Mobject:
        """The drawn entry of a vector component."""
        return self.entries[self.components.index(component)]


class VectorRow(VGroup):
    """A vector written across, in brackets: a few entries, "⋯" where components are
    skipped (for a vector that lies along a row of the picture). ``self.entries`` in
    order, the ⋯ among them; ``self.brackets``.

    >>> VectorRow([label_text("1"), label_text("2")]).entries[1].original_text
    '2'
    """

    def __init__(self, entries: Sequence[Mobject], *, gap_after: int | None = None,
                 bracket_color: str | None = None, buff: float = 0.22,
                 font_size: float = style.FONT_NUMBER):
        super().__init__()
        mobs = list(entries)
        if gap_after is not None:
            mobs.insert(gap_after + 1, label_text("\u22ef", font_size, style.PALETTE.soft))
        self.entries = VGroup(*mobs).arrange(RIGHT, buff=buff)
        for mob in mobs:         # one baseline: numbers of one height, centred alike
            mob.set_y(self.entries.get_y())
        height = self.entries.height + 0.2
        self.brackets = VGroup(
            bracket(height, "left", color=bracket_color).next_to(self.entries, LEFT, buff=0.1),
            bracket(height, "right", color=bracket_color).next_to(self.entries, RIGHT, buff=0.1))
        self.add(self.brackets, self.entries)

    @classmethod
    def from_trace(cls, book, kind: str, prefix: tuple, length: int, *, head: int = 3,
                   tail: int = 1, font_size: float = style.FONT_NUMBER, **kwargs
                   ) -> "VectorRow":
        """A row of ``kind[prefix + (c,)]`` for the shown components, each written by the
        number ``book`` (signed, ``style.VECTOR_DECIMALS``), brightness by magnitude."""
        comps = shown_components(length, head, tail)
        mags = [book.value(kind, tuple(prefix) + (c,)) for c in comps]
        scale = max((abs(m) for m in mags), default=0.0)
        mobs = [book.text_mobject(kind, tuple(prefix) + (c,), decimals=style.VECTOR_DECIMALS,
                                  signed=True, font_size=font_size,
                                  color=magnitude_color(m, scale))
                for c, m in zip(comps, mags)]
        gaps = [n for n in range(len(comps) - 1) if comps[n + 1] != comps[n] + 1]
        return cls(mobs, gap_after=gaps[0] if gaps else None, font_size=font_size, **kwargs)


def vector_symbol(letter: str, index_text: str | None = None, *, color: str | None = None,
                  font_size: float = style.FONT_LABEL, letter_scale: float = 1.2,
                  index_scale: float = 0.7, index_drop: float | None = None) -> VGroup:
    """A vector's name in 3b1b style: bold letter with an arrow over it, and an index
    written as user text (a word or a number) as a subscript. ``letter`` is our own
    symbol (q, k, v, E); the index never goes through Typst. ``letter_scale`` and
    ``index_scale`` size the letter and the subscript against ``font_size``.

    >>> len(vector_symbol("q", "ate"))
    2
    """
    col = color or style.PALETTE.text
    sym = make_math(f"arrow(bold({letter}))", color=col, font_size=font_size * letter_scale)
    group = VGroup(sym)
    if index_text is not None:
        # a subscript is smaller, but never below the legible minimum
        sub = user_text(index_text, max(font_size * index_scale, style.MIN_FONT), col)
        sub.next_to(sym, RIGHT, buff=0.04).align_to(sym, DOWN)
        # the subscript hangs a little below the letter's foot, like TeX's
        sub.shift(DOWN * 0.08 * font_size / 24 if index_drop is None else DOWN * index_drop)
        group.add(sub)
    return group
