"""The heads beat's table (and the row the pull beat hands on as): the focus word's weights
in each drawn head, a row per head, and after each row the word that head weighs most (of
every word: one the window leaves out is written in grey)."""
from __future__ import annotations

from ...attention_core.word_model import WordModel
from ..vocabulary import style
from ..vocabulary.head_rows import HeadRows
from ..vocabulary.headers import head_name
from ..vocabulary.text import label_text, line_of
from .views import drawn_indices, drawn_tokens, head_color, reads_from_right
from .wording import mark_label, told_parts

__all__ = ["MAX_CELL", "TABLE_BOTTOM", "TABLE_LOWEST", "TABLE_TOP", "head_rows",
           "heaviest_word"]

TABLE_TOP = 2.75          # the heads beat's table: the key labels' top
TABLE_BOTTOM = -1.45      # ... the last head's row
TABLE_LOWEST = -2.0       # ... the last row of many heads, whose names need the height
MAX_CELL = 0.85


def heaviest_word(trace, slot: int):
    """The word head ``slot`` gives the most weight to from the focus word, a word
    weighing the sum of its pieces: of every word (the window draws it where it fits,
    ``drawn_indices``; one that does not fit is said to lie outside)."""
    words = WordModel.of_trace(trace)
    sums = words.sums(trace.weights[slot, trace.focus_index])
    return words.words[max(range(len(words)), key=lambda w: (sums[w], -w))]


def head_rows(book) -> HeadRows:
    """The focus word's weights in each drawn head: a row per head (its name in its
    colour), a column per drawn key, a dot per cell whose area is the weight, and after
    the row the key the head weighs most, with the weight; the primary head boxed."""
    trace, pal = book.trace, style.PALETTE
    keys, f = drawn_indices(trace), trace.focus_index
    H = len(trace.heads)
    colors = [head_color(trace, h) for h in trace.heads]
    name_font = style.FONT_LABEL if H <= 6 else style.FONT_SMALL
    names = [label_text(head_name(book, s), name_font, colors[s]) for s in range(H)]
    notes = []
    drawn = set(drawn_indices(trace))
    for s in range(H):
        word = heaviest_word(trace, s)
        weight = book.text("word_weight", (s, f, *word.span), style.WEIGHT_DECIMALS)
        book.claim("heaviest", (s, word.span, "all"), f"\u2192 {word.text}{word.told_apart} {weight}")
        # a word the window leaves out is written in grey (the beat says it lies outside)
        shade = colors[s] if word.first in drawn else pal.dim
        notes.append(line_of([("\u2192 ", colors[s]),
                              (mark_label(word.text), ("user", shade)),
                              *told_parts(word, shade),
                              (f" {weight}", colors[s])], style.FONT_SMALL))
    return HeadRows(names, notes, [drawn_tokens(trace)[j] for j in keys],
                    [trace.special[j] for j in keys], trace.weights[:, f][:, keys], colors,
                    boxed=trace.primary_slot, top=TABLE_TOP, bottom=TABLE_BOTTOM,
                    max_cell=MAX_CELL, lowest=TABLE_LOWEST,
                    right_to_left=reads_from_right(trace))
