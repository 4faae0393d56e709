"""What sits at the top of a beat: its heading (top left) and the tag naming the head and
layer it shows (top right), in the head's colour."""
from __future__ import annotations

from manim import LEFT, RIGHT, UP, Text

from . import stage, style
from .text import label_text


def heading(text: str) -> Text:
    """A beat's heading, top left (our own wording)."""
    return label_text(text, style.FONT_BODY).to_corner(UP + LEFT, buff=stage.CORNER_BUFF)


def head_name(book, slot: int) -> str:
    """'head 11': the model's index of the head on axis position ``slot``, recorded."""
    return "head " + book.text("head", (slot,), 0)


def layer_name(book) -> str:
    """'layer 5', recorded."""
    return "layer " + book.text("layer", (), 0)


def head_layer_tag(book, slot: int) -> Text:
    """'head 11 · layer 5' in the head's colour, top right."""
    color = style.PALETTE.head(book.trace.heads[slot])
    tag = label_text(f"{head_name(book, slot)}  \u00b7  {layer_name(book)}", style.FONT_LABEL,
                     color)
    return tag.to_corner(UP + RIGHT, buff=stage.TAG_BUFF)


def layer_tag(book) -> Text:
    """'layer 5', top right (the heads beat shows several heads)."""
    return label_text(layer_name(book), style.FONT_LABEL,
                      style.PALETTE.soft).to_corner(UP + RIGHT, buff=stage.TAG_BUFF)
