"""Numbers as drawn: a row of weights rounded as a whole, so what is printed adds up as
printed, and (grouped by words) so a number printed twice prints the same digits."""
from __future__ import annotations

import numpy as np

__all__ = ["shown_row"]


def shown_row(values, decimals: int, groups=None) -> np.ndarray:
    """A row of weights rounded to ``decimals`` as a whole (largest remainder): each entry
    is rounded down, and the units still missing to the row's own rounded total go to the
    entries that lost the most (ties: the larger weight, then the earlier key). So the
    numbers drawn add up to the total drawn, which a row rounded entry by entry need not
    (0.99 beside "sum = 1.00"). With ``groups`` (each entry's group: a token's word), the
    groups' sums are rounded as the row first and each group's units then shared among its
    entries the same way: a word of one token prints the same digits as a token or as a
    word, and a word's pieces add up to the word as drawn (one value per number). For
    display only: the trace keeps its numbers."""
    row = np.asarray(values, dtype=np.float64)
    unit = 10.0 ** decimals
    scaled = np.where(np.isfinite(row), row, 0.0) * unit
    if groups is None:
        return _largest_remainder(row, scaled, int(round(float(scaled.sum())))) / unit
    groups = np.asarray(groups)
    sums = np.zeros(int(groups.max()) + 1 if groups.size else 0, dtype=np.float64)
    np.add.at(sums, groups, scaled)
    group_units = _largest_remainder(sums / unit, sums, int(round(float(scaled.sum()))))
    out = np.zeros_like(scaled)
    for g, units in enumerate(group_units):
        members = np.flatnonzero(groups == g)
        out[members] = _largest_remainder(row[members], scaled[members], int(units))
    return out / unit


def _largest_remainder(row: np.ndarray, scaled: np.ndarray, total: int) -> np.ndarray:
    """Whole units for ``scaled`` (``row`` in units) that make ``total``: each rounded
    down, the units missing going to those that lost the most."""
    # a hair of tolerance: 0.145 stored as 0.14499999 is still "15 hundredths less 0"
    floors = np.floor(scaled + 1e-9)
    missing = total - int(floors.sum())
    order = sorted(range(row.size), key=lambda j: (-(scaled[j] - floors[j]), -row[j], j))
    for j in order[:max(missing, 0)]:
        floors[j] += 1
    return floors
