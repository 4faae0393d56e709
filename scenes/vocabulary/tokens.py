"""Tokens on screen: a token in a chip, a row of chips, a row of words on one baseline."""
from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

from manim import DOWN, ORIGIN, RIGHT, Line, Rectangle, RoundedRectangle, VGroup, VMobject, config

from . import style
from .grid import tier_centre, tier_line
from .scripts import may_turn, reads_as_sign
from .fastcopy import copy_mobject
from .text import baseline_text, glyphs_of, label_text, line_box_height

__all__ = ["PIECE_GAP", "TokenChip", "TokenRow", "rounded_box", "word_row"]

PIECE_GAP = 0.3     # between the pieces of one word, against the gap between words
_BOXES: OrderedDict = OrderedDict()
_BOXES_KEPT = 1024


def rounded_box(width: float, height: float, corner_radius: float) -> RoundedRectangle:
    """``RoundedRectangle(corner_radius=, width=, height=)`` at the origin, built once per
    size and copied afterwards: manim rounds the corners with arcs built and fitted in
    Python (profiled: 10 ms a box, most of the time a row of tokens takes), and a film
    builds the same rows again in every beat that shows them. A copy is exact."""
    key = (float(width), float(height), float(corner_radius))
    if key in _BOXES:
        _BOXES.move_to_end(key)
    else:
        _BOXES[key] = RoundedRectangle(corner_radius=corner_radius, width=width, height=height)
        if len(_BOXES) > _BOXES_KEPT:
            _BOXES.popitem(last=False)
    return copy_mobject(_BOXES[key])


class TokenChip(VGroup):
    """A token written in a rounded box.

    Special tokens ([CLS], [SEP], ...) are drawn dimmed, never hidden. ``self.word`` is
    the text glyphs, ``self.box`` the rounded rectangle, ``self.token_text`` the string.
    All chips of one font size have the same height, and their words share a baseline.

    >>> bool(TokenChip("cat").box.height == TokenChip("fish").box.height)
    True
    """

    def __init__(self, text: str, *, special: bool = False,
                 font_size: float = style.FONT_TOKEN, color: str | None = None,
                 box_color: str | None = None, min_width: float = 0.0, pad: float = 0.22):
        super().__init__()
        pal = style.PALETTE
        self.token_text = text
        self.special = special
        text_color = pal.special if special else (color or pal.text)
        self.word, top, bottom = baseline_text(text, font_size, text_color)
        pad_x = pad * font_size / 30
        pad_y = 0.14 * font_size / 30
        # one height for every chip of a size, whatever the script (rows mix fonts)
        height = line_box_height(font_size) + 2 * pad_y
        width = max(self.word.width + 2 * pad_x, min_width, height)
        self.box = rounded_box(width, height, 0.1 * font_size / 30)
        self.box.move_to([0, (top + bottom) / 2, 0])
        edge = box_color or (pal.special if special else pal.dim)
        self.box.set_stroke(edge, width=1.5, opacity=0.6 if special else 1.0)
        self.box.set_fill(style.PALETTE.background, opacity=1.0)
        self.add(self.box, self.word)

    @property
    def shaped(self) -> bool:
        """Whether this is a piece drawn in the form its whole word gives it."""
        return getattr(self.word, "word_edges", None) is not None

    def set_role_color(self, color: str, width: float | None = None) -> "TokenChip":
        """Tint the box edge (e.g. the focus token in the query colour); a piece drawn in
        the form its word gives it tints its glyphs instead: its box's edges are cuts
        through a word whose letters overhang each other (an Indic vowel sign, joined
        Arabic), never drawn."""
        if self.shaped:
            self.word.set_color(color)
        else:
            self.box.set_stroke(color, width=width, opacity=1.0)
        return self


def _span(unit) -> tuple[float, float]:
    return (min(m.get_left()[0] for m in unit), max(m.get_right()[0] for m in unit))


class TokenRow(VGroup):
    """A row of TokenChips fitted to the frame width.

    ``indices`` are the token positions drawn (default: all); where they skip positions,
    or stop short of either end, a "…" says the sentence goes on, and a note under the row
    (``self.window_note``) says how many of how many tokens are shown. ``joined`` are runs
    of token positions (first, last) that are pieces of one word: drawn closer, with a
    bracket under them (``self.joins``).
    ``self.chip(i)`` is the chip of token position ``i`` (None when not drawn).

    >>> row = TokenRow(["[CLS]", "the", "cat", "[SEP]"], [True, False, False, True])
    >>> row.chip(2).token_text
    'cat'
    """

    def __init__(self, tokens: Sequence[str], special: Sequence[bool] | None = None, *,
                 indices: Sequence[int] | None = None, max_width: float | None = None,
                 font_size: float = style.FONT_TOKEN, buff: float = 0.18,
                 joined: Sequence[tuple[int, int]] = (), right_to_left: bool = False):
        super().__init__()
        tokens = list(tokens)
        self.joined = [(int(a), int(b)) for a, b in joined]
        self.right_to_left = right_to_left
        special = list(special) if special is not None else [False] * len(tokens)
        self.num_tokens = len(tokens)
        self.indices = list(range(len(tokens))) if indices is None else sorted(indices)
        limit = max_width if max_width is not None else config.frame_width - 1.0
        self._build(tokens, special, font_size, buff, 0.22)
        self.drawn_size = font_size         # the words' font size as drawn
        if self.width > limit:
            # a long row: smaller words (never below the legible minimum), then tighter
            # chips and gaps, and only then smaller still (the film draws fewer tokens
            # rather than that: see views.legible_count)
            size = max(style.MIN_FONT, font_size * limit / self.width)
            self._build(tokens, special, size, buff * 0.4, 0.1)
            self.drawn_size = size
            if self.width > limit:
                self.drawn_size *= limit / self.width
                self.scale_to_fit_width(limit)
        self.move_to(ORIGIN)
        self.window_note = None
        if self.windowed:
            self.window_note = label_text(
                f"showing {len(self.indices)} of the {len(tokens)} tokens", style.FONT_SMALL,
                style.PALETTE.dim)
            self.window_note.next_to(self.chips, DOWN, buff=0.2)
            self.add(self.window_note)

    def _build(self, tokens, special, font_size: float, buff: float, pad: float) -> None:
        self.remove(*self.submobjects)
        self.chips = VGroup(*[TokenChip(tokens[i], special=special[i], font_size=font_size,
                                        pad=pad) for i in self.indices])
        items, self.ellipses = [], VGroup()
        for n, (i, chip) in enumerate(zip(self.indices, self.chips)):
            before = self.indices[n - 1] if n else -1
            if i > before + 1:                   # the sentence goes on here
                dots = label_text("\u2026", font_size)
                self.ellipses.add(dots)
                items.append(dots)
            items.append(chip)
        if self.indices and self.indices[-1] < len(tokens) - 1:
            dots = label_text("\u2026", font_size)
            self.ellipses.add(dots)
            items.append(dots)
        together = {(a, b) for first, last in self.joined for a, b in
                    zip(range(first, last), range(first + 1, last + 1))}
        x, previous, sign = 0.0, None, -1 if self.right_to_left else 1
        for unit in self._units(items, together):
            token = self._token_of(unit[0])
            gap = buff * PIECE_GAP if (previous, token) in together else buff
            if previous is not None or x:
                x += sign * gap
            width = self._lay_unit(unit, pad * font_size / 30)
            left, right = _span(unit)
            # a right-to-left sentence reads from the right: each unit left of the last
            shift = x - (right if self.right_to_left else left)
            for item in unit:
                item.shift(RIGHT * shift)
            x += sign * width
            previous = self._token_of(unit[-1])
        for dots in self.ellipses:               # on the chips' baseline, not their middle
            dots.set_y(self.chips[0].word.get_bottom()[1] + dots.height / 2)
        self.joins = VGroup()
        for first, last in self.joined:
            pieces = [self.chip(i) for i in range(first, last + 1)]
            if any(p is None for p in pieces):
                continue
            y = self.chips.get_bottom()[1] - 0.07 * font_size / 30
            tick = 0.07 * font_size / 30
            left = min(p.box.get_left()[0] for p in pieces) + 0.05
            right = max(p.box.get_right()[0] for p in pieces) - 0.05
            bracket = VMobject().set_points_as_corners([[left, y + tick, 0], [left, y, 0],
                                                        [right, y, 0], [right, y + tick, 0]])
            self.joins.add(bracket.set_stroke(style.PALETTE.dim, width=2))
            if all(p.shaped for p in pieces):    # one word drawn whole: its pieces marked
                for cut in sorted(p.box.get_left()[0] for p in pieces)[1:]:
                    mark = Line([cut, y, 0], [cut, y + 1.6 * tick, 0])
                    self.joins.add(mark.set_stroke(style.PALETTE.dim, width=2))
        self.add(self.chips, self.ellipses, self.joins)

    def _token_of(self, item):
        return self.indices[list(self.chips).index(item)] if item in self.chips else None

    def _units(self, items, together):
        """The items in runs laid out as one: the pieces of a word drawn whole (each piece
        in the form its word gives it), or one item."""
        units = []
        for item in items:
            token = self._token_of(item)
            if units and item in self.chips and getattr(item, "shaped", False) \
                    and getattr(units[-1][-1], "shaped", False) \
                    and (self._token_of(units[-1][-1]), token) in together \
                    and units[-1][-1].token_text.word == item.token_text.word:
                units[-1].append(item)
            else:
                units.append([item])
        return units

    def _lay_unit(self, unit, pad_x: float) -> float:
        """Set the pieces of a word drawn whole where its shaping put them, their boxes
        meeting between them, one outline round the word; returns the unit's width."""
        if len(unit) == 1 and not getattr(unit[0], "shaped", False):
            return unit[0].width
        for chip in unit:                       # each glyph where the whole word has it
            left_of_word = chip.word.get_center()[0] + chip.word.word_edges[0]
            chip.shift(RIGHT * -left_of_word)
        order = sorted(unit, key=lambda c: c.word.get_center()[0])
        word_right = unit[0].word.word_edges[1] - unit[0].word.word_edges[0]
        cuts = [-pad_x]
        cuts += [(a.word.get_right()[0] + b.word.get_left()[0]) / 2
                 for a, b in zip(order, order[1:])]
        cuts.append(word_right + pad_x)
        height = unit[0].box.height
        y = unit[0].box.get_center()[1]
        for chip, x0, x1 in zip(order, cuts, cuts[1:]):
            box = Rectangle(width=max(x1 - x0, 1e-3), height=height).move_to([(x0 + x1) / 2, y, 0])
            box.set_stroke(chip.box.get_stroke_color(), width=1.5, opacity=0.0)
            box.set_fill(style.PALETTE.background, opacity=1.0)
            chip.remove(chip.box)
            chip.box = box
            chip.submobjects.insert(0, box)
        outline = rounded_box(cuts[-1] - cuts[0], height, 0.1 * height / 0.5).move_to([(cuts[0] + cuts[-1]) / 2, y, 0])
        outline.set_stroke(style.PALETTE.dim, width=1.5).set_fill(opacity=0)
        order[0].add(outline)       # drawn, moved and faded with the word's first piece
        return cuts[-1] - cuts[0]

    @property
    def windowed(self) -> bool:
        return len(self.indices) < self.num_tokens

    def chip(self, token_index: int) -> TokenChip | None:
        if token_index in self.indices:
            return self.chips[self.indices.index(token_index)]
        return None


def word_row(texts: Sequence[str], special: Sequence[bool], xs: Sequence[float], *,
             pitch: float, font_size: float, top: float | None = None,
             bottom: float | None = None, colors: Sequence[str | None] | None = None
             ) -> tuple[VGroup, bool]:
    """Words centred on ``xs`` on one baseline, one size for all; turned (reading upward,
    ``style.TURNED``) when they would shrink below ``style.MIN_LABEL_SCALE`` upright, or any
    of them (a long special token) below ``style.MIN_FONT`` — unless a word is of a script
    that is not read turned (``scripts.may_turn``): then all stand upright, never below the
    legible size, in staggered tiers where they need more than their pitch. A sign (a
    comma) stands upright wherever it fits. Hung from ``top`` (their line box top, or for
    turned words the top the longest reaches: they all start on one line) or stood on
    ``bottom``. Returns (words, turned)."""
    colors = list(colors) if colors is not None else [None] * len(texts)
    glyphs = []
    for t, sp, col in zip(texts, special, colors):
        g = glyphs_of(t, font_size, sp)
        if col is not None:
            g.set_color(col)
        glyphs.append(g)
    widths = [g.width for g, sp in zip(glyphs, special) if not sp] or [g.width for g in glyphs]
    widest = max(widths, default=0.0)
    scale = min(1.0, 0.9 * pitch / widest) if widest > 0 else 1.0
    line = line_box_height(font_size)
    longest = max((g.width for g in glyphs), default=0.0)
    special_scale = min(scale, 0.95 * pitch / longest) if longest > 0 else scale
    turned = (scale < style.MIN_LABEL_SCALE
              or font_size * special_scale < style.MIN_FONT - 1e-6)
    tiers = 1
    if turned and not all(may_turn(t) for t in texts):
        turned = False
        scale = max(scale, style.MIN_LABEL_SCALE, min(1.0, style.MIN_FONT / font_size))
        tiers = max(1, math.ceil(longest * scale / (0.9 * pitch) - 1e-9))
    if turned:
        # turned, a word's ink across the row is its height: the tallest word's sets the
        # size (the line box, with room for any accent and descender, is needlessly tall)
        ink = max((g.height for g in glyphs), default=line) or line
        scale = min(1.0, 0.9 * pitch / ink)
    # hung from ``top``, turned words start on one line as far under it as the longest reaches
    reach = max((g.width for g in glyphs), default=0.0) * scale
    for n, (g, x, t) in enumerate(zip(glyphs, xs, texts)):
        g.scale(scale, about_point=ORIGIN)
        if turned and not (reads_as_sign(t) and g.width <= 0.9 * pitch):
            g.rotate(style.TURNED, about_point=ORIGIN)      # as every turned word
            start = (top - reach) if top is not None else bottom
            g.shift([x, start - g.get_bottom()[1], 0])
        else:
            if g.width > 0.95 * pitch * tiers:               # a long special token
                g.scale(0.95 * pitch * tiers / g.width, about_point=ORIGIN)
            lift = tier_centre(n % tiers, tier_line(texts, special, font_size) * scale)
            y = (top - lift) if top is not None else (bottom + lift)
            g.shift([x, y, 0])
    return VGroup(*glyphs), turned
