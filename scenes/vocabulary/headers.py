"""What sits at the top of a beat: its line (top left: what it does, in plain words, so the
film works with the sound off); and the names of heads and layers, recorded."""
from __future__ import annotations

from manim import VGroup

from . import stage, style
from .text import line_of

__all__ = ["beat_line", "head_name", "layer_name"]


def beat_line(*parts) -> VGroup:
    """A beat's opening line, top left: ``parts`` are text (ours), ("user", text) for the
    word being explained (in the query colour) or ("word", text) for other words of the
    user's (in the text colour)."""
    pal = style.PALETTE
    pieces = [(p[1], ("user", pal.query if p[0] == "user" else pal.text))
              if isinstance(p, tuple) else (p, pal.text) for p in parts]
    line = line_of(pieces, style.FONT_BODY)
    if line.width > stage.LINE_WIDTH:      # never below the smallest legible size
        line.scale(max(stage.LINE_WIDTH / line.width, style.MIN_FONT / style.FONT_BODY))
    # the line box (not the ink) is centred at y = 0: every beat's line sits on one baseline
    return line.shift([stage.LINE_LEFT[0] - line.get_left()[0], stage.LINE_LEFT[1], 0])


def head_name(book, slot: int) -> str:
    """'head 11': the model's index of the head on axis position ``slot``, recorded."""
    return "head " + book.text("head", (slot,), 0)


def layer_name(book) -> str:
    """'layer 5', recorded."""
    return "layer " + book.text("layer", (), 0)
