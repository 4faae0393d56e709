"""Numbers on screen: read from the trace, written one way, recorded for the tests.

A beat asks its :class:`NumberBook` for every number it draws; the book reads it through
``attention_core.derived.lookup`` and keeps a :class:`ShownNumber` record. The tests
recompute each record from the trace alone and compare the text, so a number on screen
that the model did not compute fails them.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from manim import Text

from ...attention_core.derived import lookup, shown_kind
from ..vocabulary import style
from ..vocabulary.text import make_text

__all__ = ["Claim", "NumberBook", "ShownNumber", "format_number", "magnitude_decimals"]


@dataclass(frozen=True)
class ShownNumber:
    """One number drawn on screen and where it came from."""
    beat: str
    kind: str           # a trace field or a derived quantity (attention_core.derived)
    index: tuple
    decimals: int
    signed: bool
    text: str           # exactly what was drawn


def format_number(value: float, decimals: int = 2, signed: bool = False) -> str:
    """Text of a number as drawn: fixed decimals, a real minus sign, optional plus.

    >>> format_number(-0.0, 1), format_number(-1.25, 1, signed=True)
    ('0.0', '−1.2')
    """
    if math.isinf(value):
        return "\u2212\u221e" if value < 0 else "\u221e"
    text = f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"
    if text.lstrip("+-").strip("0.") == "":     # -0.0 and +0.0 are drawn 0.0
        text = f"{0:.{decimals}f}"
        if signed:
            text = "+" + text
    return text.replace("-", "\u2212")


@dataclass(frozen=True)
class Claim:
    """One thing the film says about the numbers in words (the largest, the most, a ranking,
    a sum), recorded where it is drawn or said so that :mod:`.claims` re-derives it from
    the trace: ``kind`` (one of ``claims.KINDS``), its ``facts`` and what was ``said``."""
    beat: str
    kind: str
    facts: tuple
    said: str


class NumberBook:
    """The numbers a film shows: each read from ``trace``, formatted, recorded under the
    beat being drawn (``self.beat``); and the claims it makes about them (``claims``)."""

    def __init__(self, trace, versus=None):
        self.trace = trace
        self.versus = versus          # a minimal pair's sentence B (``compare.pair_lookup``)
        self.shown: list[ShownNumber] = []
        self.claims: list[Claim] = []
        self.beat = "beat"

    def claim(self, kind: str, facts: tuple, said: str) -> None:
        """Record a claim drawn or said (re-derived by ``claims.claim_faults``)."""
        self.claims.append(Claim(self.beat, kind, tuple(facts), said))

    def value(self, kind: str, index: tuple = ()) -> float:
        """The number itself (not drawn, not recorded): for sizes, colours, order."""
        if self.versus is not None:
            from ...attention_core.compare import pair_lookup

            return pair_lookup(self.trace, self.versus, kind, tuple(index))
        if hasattr(self.trace, "number"):       # a translation's or a writing's own numbers
            return float(self.trace.number(kind, tuple(index)))
        return lookup(self.trace, kind, tuple(index))

    def text(self, kind: str, index: tuple = (), decimals: int = 2,
             signed: bool = False) -> str:
        """The text of a number that is drawn (or said in a caption), recorded. A weight
        is drawn rounded with its row, so a row's drawn weights add up to its drawn sum."""
        if not hasattr(self.trace, "number"):
            kind, index = shown_kind(kind, tuple(index), decimals)
        text = format_number(self.value(kind, index), decimals, signed)
        self.shown.append(ShownNumber(self.beat, kind, index, decimals, signed, text))
        return text

    def text_mobject(self, kind: str, index: tuple = (), *, decimals: int = 2,
                     signed: bool = False, font_size: float = style.FONT_NUMBER,
                     color: str | None = None, **text_kwargs) -> Text:
        """A Text of a number read from the trace, recorded."""
        return make_text(self.text(kind, index, decimals, signed), font=style.SERIF,
                         font_size=font_size, color=color or style.PALETTE.text, **text_kwargs)

    def legible_decimals(self, kind: str, indices: Sequence[tuple], decimals: int,
                         width: float) -> int:
        """The most decimals (<= ``decimals``) whose widest number fits ``width`` at no
        less than ``style.MIN_FONT``; 0 when none does."""
        values = [self.value(kind, tuple(i)) for i in indices]
        for d in range(decimals, -1, -1):
            texts = {format_number(v, d, signed=True) for v in values}
            widest = max(make_text(t, font=style.SERIF, font_size=style.MIN_FONT).width
                         for t in texts)
            if widest <= width:
                return d
        return 0


def magnitude_decimals(values: Sequence[float], decimals: int) -> int:
    """Enough decimals that small values do not all read 0.0 (scratch models), at most 2."""
    biggest = max((abs(v) for v in values if np.isfinite(v)), default=0.0)
    if biggest < 0.95 and decimals < 2:
        return 2
    return decimals
