"""Ranked lists of words: the heaviest words a list, a side text or a panel names, each
weighing the sum of its pieces (a list ranks words, never pieces), grouped by the number
as drawn, and the claim that they are the heaviest (``claims``: "listed").
"""
from __future__ import annotations

from ...attention_core.derived import shown_kind
from ...attention_core.word_model import WordModel
from ..vocabulary import style
from .readouts import format_number
from .views import drawn_words
from .wording import word_quoted

__all__ = ["WORD_ROW_KINDS", "heavier_outside", "listed_claim", "outside_said",
           "ranked_words"]

# the word-level kind of each row of weights a list ranks (``derived``): a word weighs the
# sum of its pieces
WORD_ROW_KINDS = {"weights": "word_weight", "causal_weight": "causal_word_weight"}


def ranked_words(book, slot: int, among=None, kind: str = "weights",
                 decimals: int = style.WEIGHT_DECIMALS) -> list[list[int]]:
    """The words of ``among`` (indices in the trace's ``WordModel``; default: every word,
    drawn or not: a list is text, and "the heaviest" is of them all) grouped by the weight the focus gives each in head ``slot`` (``kind``: the row
    of weights, the model's or under the causal mask), each word the sum of its pieces and
    written with ``decimals``, heaviest first: words written with one number are a tie. A
    ranked list, a side text or a panel names these, never a piece."""
    trace = book.trace
    words = WordModel.of_trace(trace)
    among = range(len(words)) if among is None else list(among)
    index = {w: (slot, trace.focus_index, *words.words[w].span) for w in among}
    values = {w: book.value(WORD_ROW_KINDS[kind], index[w]) for w in among}
    # grouped by the number as drawn (a word's weight is rounded with its row of words),
    # heaviest first within a group too
    texts = {w: format_number(book.value(*shown_kind(WORD_ROW_KINDS[kind], index[w],
                                                     decimals)), decimals) for w in among}
    groups: dict[str, list[int]] = {}
    for w in sorted(among, key=lambda w: (-values[w], w)):
        groups.setdefault(texts[w], []).append(w)
    return list(groups.values())


def listed_claim(book, slot: int, groups, said: str, kind: str = "weights",
                 among: str = "all", decimals: int = style.WEIGHT_DECIMALS) -> None:
    """Record that ``said`` lists the words of ``groups`` (from :func:`ranked_words`), the
    heaviest of ``among`` in order (``claims``: "listed")."""
    words = WordModel.of_trace(book.trace)
    book.claim("listed", (kind, slot, among, decimals,
                          *[words.words[w].span for group in groups for w in group]), said)


# said under a list whose words outside the window are written in grey: the list names them
LISTED_OUTSIDE = "grey: outside the words drawn"


def outside_said(book, named, listed: bool = False) -> str:
    """The words of ``named`` (indices in the trace's ``WordModel``) that the window does
    not draw, said ("‘Мальчик’ lies outside the words drawn") and recorded (``claims``:
    "outside"); "" when every one is drawn; ``listed``: said under a list that writes
    them in grey (:data:`LISTED_OUTSIDE`). A list or a caption names the heaviest words
    of all; one the viewer cannot find is said to be elsewhere."""
    trace = book.trace
    words = WordModel.of_trace(trace)
    drawn = set(drawn_words(trace))
    outside = [w for w in dict.fromkeys(named) if w not in drawn]
    if not outside:
        return ""
    said = LISTED_OUTSIDE if listed else (
        ", ".join(word_quoted(words.words[w]) for w in outside)
        + (" lies" if len(outside) == 1 else " lie") + " outside the words drawn")
    book.claim("outside", tuple(words.words[w].span for w in outside), said)
    return said


def heavier_outside(book, slot: int, named, kind: str = "weights") -> list[int]:
    """The words the window leaves out that weigh more (as written) than the lightest of
    ``named`` in head ``slot``'s ``kind`` row: what a claim about the drawn words must say
    lies outside (``outside_said``), or it reads as a claim about every word."""
    trace = book.trace
    drawn = set(drawn_words(trace))
    groups = ranked_words(book, slot, kind=kind)
    rank = {w: n for n, group in enumerate(groups) for w in group}
    last = max(rank[w] for w in named)
    return [w for group in groups[:last] for w in group if w not in drawn]
