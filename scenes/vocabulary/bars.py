"""Bars for a row of numbers: scores, then the weights they become, stacked to one."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Line, Mobject, Rectangle, VGroup

from . import style
from .scripts import reading_slot

__all__ = ["SoftmaxBars"]


class SoftmaxBars(VGroup):
    """Bars for a row of numbers over a baseline, one label under each, in reading order
    (from the right where ``right_to_left``).

    Negative values hang below the baseline. ``value_labels`` (Text made by
    the number book) sit above each bar. :meth:`bars_for` gives bars of other values at
    the same places (Transform into them: scores become probabilities);
    :meth:`stacked` stacks the bars in one column whose height is their sum, so weights
    that sum to 1 visibly reach the "1" mark.
    """

    def __init__(self, values: Sequence[float], labels: Sequence[Mobject], *,
                 unit_height: float = 1.0, bar_width: float = 0.45, spacing: float = 0.9,
                 colors: Sequence[str] | str | None = None,
                 value_labels: Sequence[Mobject] | None = None, right_to_left: bool = False):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        self.unit_height = unit_height
        self.bar_width = bar_width
        n = len(self.values)
        # a sentence read from the right has its first bar at the right
        self.xs = (np.array([reading_slot(i, n, right_to_left) for i in range(n)])
                   - (n - 1) / 2) * spacing
        if colors is None or isinstance(colors, str):
            colors = [colors or style.PALETTE.soft] * n
        self.colors = list(colors)
        self.baseline = Line(LEFT * (n * spacing / 2), RIGHT * (n * spacing / 2))
        self.baseline.set_stroke(style.PALETTE.dim, width=1.5)
        self.bars = self.bars_for(self.values)
        self.labels = VGroup(*labels)
        for x, lab in zip(self.xs, self.labels):
            lab.move_to([x, 0, 0]).set_y(-0.12 - lab.height / 2
                                          + min(0.0, self.values.min()) * unit_height)
        self.value_labels = VGroup(*(value_labels or []))
        self.place_value_labels(self.value_labels, self.bars, self.values)
        self.add(self.baseline, self.bars, self.labels, self.value_labels)

    def _bar(self, x: float, value: float, height_scale: float, color: str) -> Rectangle:
        h = max(abs(value) * height_scale, 1e-3)
        bar = Rectangle(width=self.bar_width, height=h)
        bar.set_stroke(width=0).set_fill(color, opacity=0.9)
        y0 = self.baseline.get_y()
        bar.move_to([self.baseline.get_center()[0] + x, y0 + np.sign(value) * h / 2, 0])
        return bar

    def bars_for(self, values: Sequence[float], unit_height: float | None = None,
                 colors: Sequence[str] | None = None) -> VGroup:
        """Bars of ``values`` at this chart's positions (for a Transform)."""
        uh = self.unit_height if unit_height is None else unit_height
        cols = list(colors) if colors is not None else self.colors
        return VGroup(*[self._bar(x, v, uh, c) for x, v, c in zip(self.xs, values, cols)])

    @staticmethod
    def place_value_labels(value_labels: Sequence[Mobject], bars: VGroup,
                           values: Sequence[float]) -> None:
        """Write each value just beyond the end of its bar (below for negative values)."""
        for lab, bar, v in zip(value_labels, bars, values):
            lab.next_to(bar, UP if v >= 0 else DOWN, buff=0.08)

    def stacked(self, values: Sequence[float], x: float, bottom_y: float,
                total_height: float) -> VGroup:
        """The bars stacked in one column at ``x`` from ``bottom_y``; a value of 1 is
        ``total_height`` tall, so a set of weights summing to 1 fills it exactly."""
        out = VGroup()
        y = bottom_y
        for v, c in zip(values, self.colors):
            h = max(float(v) * total_height, 1e-3)
            bar = Rectangle(width=self.bar_width, height=h).set_stroke(style.PALETTE.background, width=1)
            bar.set_fill(c, opacity=0.9).move_to([x, y + h / 2, 0])
            out.add(bar)
            y += h
        return out
