"""Tokens on screen: a token in a chip, a row of chips, a row of words on one baseline."""
from __future__ import annotations

import math
from collections.abc import Sequence

from manim import DOWN, ORIGIN, RIGHT, RoundedRectangle, VGroup, VMobject, config

from . import style
from .text import baseline_text, glyphs_of, label_text, line_box_height

__all__ = ["PIECE_GAP", "TokenChip", "TokenRow", "word_row"]

PIECE_GAP = 0.3     # between the pieces of one word, against the gap between words


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
        self.box = RoundedRectangle(corner_radius=0.1 * font_size / 30, width=width,
                                    height=height)
        self.box.move_to([0, (top + bottom) / 2, 0])
        edge = box_color or (pal.special if special else pal.dim)
        self.box.set_stroke(edge, width=1.5, opacity=0.6 if special else 1.0)
        self.box.set_fill(style.PALETTE.background, opacity=1.0)
        self.add(self.box, self.word)

    def set_role_color(self, color: str) -> "TokenChip":
        """Tint the box edge (e.g. the focus token in the query colour)."""
        self.box.set_stroke(color, opacity=1.0)
        return self


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
                 joined: Sequence[tuple[int, int]] = ()):
        super().__init__()
        tokens = list(tokens)
        self.joined = [(int(a), int(b)) for a, b in joined]
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
        x, previous = 0.0, None
        for item in items:          # pieces of one word sit closer together
            token = self.indices[list(self.chips).index(item)] if item in self.chips else None
            gap = buff * PIECE_GAP if (previous, token) in together else buff
            if previous is not None or x:
                x += gap
            item.shift(RIGHT * (x - item.get_left()[0]))
            x, previous = item.get_right()[0], token
        for dots in self.ellipses:               # on the chips' baseline, not their middle
            dots.set_y(self.chips[0].word.get_bottom()[1] + dots.height / 2)
        self.joins = VGroup()
        for first, last in self.joined:
            a, b = self.chip(first), self.chip(last)
            if a is None or b is None or any(self.chip(i) is None for i in range(first, last)):
                continue
            y = self.chips.get_bottom()[1] - 0.07 * font_size / 30
            tick = 0.07 * font_size / 30
            left, right = a.box.get_left()[0] + 0.05, b.box.get_right()[0] - 0.05
            bracket = VMobject().set_points_as_corners([[left, y + tick, 0], [left, y, 0],
                                                        [right, y, 0], [right, y + tick, 0]])
            self.joins.add(bracket.set_stroke(style.PALETTE.dim, width=2))
        self.add(self.chips, self.ellipses, self.joins)

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
    """Words centred on ``xs`` on one baseline, one size for all; turned (reading
    downward) when they would shrink below ``style.MIN_LABEL_SCALE`` upright, or any of
    them (a long special token) below ``style.MIN_FONT``. Hung from ``top`` (their line
    box top, or the turned words' tops) or stood on ``bottom``. Returns (words, turned)."""
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
    if turned:
        # turned, a word's ink across the row is its height: the tallest word's sets the
        # size (the line box, with room for any accent and descender, is needlessly tall)
        ink = max((g.height for g in glyphs), default=line) or line
        scale = min(1.0, 0.9 * pitch / ink)
    for g, x in zip(glyphs, xs):
        g.scale(scale, about_point=ORIGIN)
        if turned:
            g.rotate(-math.pi / 2, about_point=ORIGIN)      # reads downward, hangs
            if top is not None:
                g.shift([x, top - g.get_top()[1], 0])
            else:
                g.shift([x, bottom - g.get_bottom()[1], 0])
        else:
            if g.width > 0.95 * pitch:                       # a long special token
                g.scale(0.95 * pitch / g.width, about_point=ORIGIN)
            y = (top - line * scale / 2) if top is not None else (bottom + line * scale / 2)
            g.shift([x, y, 0])
    return VGroup(*glyphs), turned
