"""The ways a label (or a cluster's shared label) can be written as one block.

A single word is one block. A cluster's words make a shared label: a row "cat, fish", the
same list wrapped on two or three lines, or one word a line; wrapped lists align left or
right. Baselines are aligned, so "fish," and "[SEP]" sit on the line as text does.
"""
from __future__ import annotations

import math
import unicodedata

import numpy as np
from manim import Mobject, Text, VGroup

from .. import style
from ..text import make_text

__all__ = [
    "Shape", "baseline_drop", "cluster_shapes", "first_text", "label_color",
    "label_font_size", "single_shape",
]

_BASELINE_DROPS: dict[tuple, float] = {}


def first_text(mob: Mobject) -> Text | None:
    """The first Text in a mobject's family (a label may be a group around one)."""
    for m in mob.get_family():
        if isinstance(m, Text):
            return m
    return None


def baseline_drop(label: Mobject) -> float:
    """How far a label's ink reaches below its baseline (0 for "cat", more for "fish,"'s
    comma or "[SEP]"), in scene units at the label's current size; 0 when unknown."""
    text = label if isinstance(label, Text) else None
    if text is None or not text.submobjects or not getattr(text, "original_text", ""):
        return 0.0
    key = (text.original_text, text.font, round(text._font_size, 3))
    if key not in _BASELINE_DROPS:
        drop = 0.0
        try:
            ref = make_text("H" + text.original_text, font=text.font,
                            font_size=text._font_size, disable_ligatures=True)
            alone = make_text(text.original_text, font=text.font, font_size=text._font_size,
                              disable_ligatures=True)
            if len(ref.submobjects) == 1 + len(alone.submobjects) and alone.height > 0:
                glyphs = VGroup(*ref.submobjects[1:])
                drop = (ref.submobjects[0].get_bottom()[1] - glyphs.get_bottom()[1]) / glyphs.height
        except Exception:       # shaping quirks of rare scripts: centre on the ink instead
            drop = 0.0
        _BASELINE_DROPS[key] = drop
    return _BASELINE_DROPS[key] * label.height


def label_color(label: Mobject) -> tuple[str, float]:
    """(colour, opacity) of a label's first drawn part: its leader and commas match it."""
    for m in label.get_family():
        if m.has_points():
            return m.get_fill_color().to_hex(), float(m.get_fill_opacity())
    return style.PALETTE.text, 1.0


def label_font_size(label: Mobject) -> float:
    first = first_text(label)
    return first.font_size if first is not None else style.FONT_LABEL


class Shape:
    """One way to write a unit as a block: its size, each member's centre offset from the
    block's centre, and the separators (commas or middle dots) with their offsets."""

    def __init__(self, kind: str, width: float, height: float, offsets: np.ndarray,
                 commas: list[tuple[int, np.ndarray]] | None = None, cost: float = 0.0):
        self.kind, self.width, self.height = kind, width, height
        self.offsets = offsets
        self.commas = commas or []        # (member position, separator centre offset)
        self.cost = cost
        self.separator = ","


def single_shape(label: Mobject) -> Shape:
    return Shape("single", label.width, label.height, np.zeros((1, 2)))


def _is_punctuation(label: Mobject) -> bool:
    text = getattr(first_text(label), "original_text", "")
    core = text.replace("\u200e", "").strip()
    return bool(core) and all(unicodedata.category(ch)[0] in "PS" for ch in core)


def _separator(text: str, font_size: float) -> Text:
    return make_text(text, font=style.SERIF, font_size=font_size)


def _lines_of(k: int, n_lines: int) -> list[list[int]]:
    per = math.ceil(k / n_lines)
    return [list(range(a, min(a + per, k))) for a in range(0, k, per)]


def cluster_shapes(labels: list[Mobject], font_size: float, gap: float,
                   row_max_width: float, wrap_cost: float) -> list[Shape]:
    """Every way to write a cluster's words as one shared label (see the module)."""
    k = len(labels)
    ws = np.array([m.width for m in labels])
    hs = np.array([m.height for m in labels])
    drops = np.array([baseline_drop(m) for m in labels])
    comma = not any(_is_punctuation(m) for m in labels)
    sep = _separator("," if comma else "\u00b7", font_size)
    s_drop, s_w, s_h = baseline_drop(sep), sep.width, sep.height
    if not comma:       # a middle dot sits at mid-height, not on the baseline
        s_drop = -(0.5 * float(np.median(hs - drops)) - s_h / 2)
    space = 0.14 * font_size / style.FONT_LABEL
    tight = 0.02 * font_size / style.FONT_LABEL
    pitch = 1.12 * float((hs - drops).max() + drops.max()) + gap
    shapes = []
    for n_lines in sorted({1, 2, 3, k}):
        if n_lines > k:
            continue
        lines = _lines_of(k, n_lines)
        placed, seps, widths = _line_positions(lines, ws, k, comma, space, tight, s_w)
        width = max(widths)
        if n_lines < k and width > row_max_width:
            continue
        for align in (("left", "right") if len(lines) > 1 else ("row",)):
            shapes.append(_aligned_shape(align, lines, placed, seps, widths, width, hs, drops,
                                         pitch, s_drop, s_h, comma, k, wrap_cost))
    return shapes


def _line_positions(lines, ws, k, comma, space, tight, s_w):
    """x of each word's centre along its line, x of each separator, and each line's width;
    separators after every word but the last of the list."""
    placed, seps, widths = [], [], []
    for members in lines:
        x, row, row_seps = 0.0, [], []
        for m in members:
            if not comma and m != members[0]:     # " · " between words on a line
                row_seps.append(x + space + s_w / 2)
                x += 2 * space + s_w
            row.append(x + ws[m] / 2)
            x += ws[m]
            if comma and m < k - 1:
                row_seps.append(x + tight + s_w / 2)
                x += tight + s_w + (space if m != members[-1] else 0.0)
        placed.append(row)
        seps.append(row_seps)
        widths.append(x)
    return placed, seps, widths


def _aligned_shape(align, lines, placed, seps, widths, width, hs, drops, pitch, s_drop, s_h,
                   comma, k, wrap_cost) -> Shape:
    xs, ys, sx, sy = np.zeros(k), np.zeros(k), [], []
    for r, (members, row, row_seps, w_line) in enumerate(zip(lines, placed, seps, widths)):
        shift = (width - w_line) if align == "right" else 0.0
        base = -r * pitch
        for m, x in zip(members, row):
            xs[m], ys[m] = x + shift, base - drops[m] + hs[m] / 2
        for x in row_seps:
            sx.append(x + shift)
            sy.append(base - s_drop + s_h / 2)
    top = max(float((ys + hs / 2).max()), max(sy, default=-1e9) + s_h / 2)
    bottom = min(float((ys - hs / 2).min()), min(sy, default=1e9) - s_h / 2)
    cx, cy = width / 2, (top + bottom) / 2
    offsets = np.stack([xs - cx, ys - cy], axis=1)
    # each separator belongs to the word before it (it fades in with that word)
    owners = []
    for members, row_seps in zip(lines, seps):
        if comma:
            owners += [m for m in members if m < k - 1]
        else:
            owners += members[:-1]
    commas = [(o, np.array([x - cx, y - cy])) for o, x, y in zip(owners, sx, sy)]
    shape = Shape(align, width, top - bottom, offsets, commas,
                  cost=wrap_cost * (len(lines) - 1))
    shape.separator = "," if comma else "\u00b7"
    return shape
