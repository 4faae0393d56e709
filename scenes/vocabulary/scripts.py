"""Scripts as they are written: which way a sentence reads, which labels may turn on their
side, a piece of a right-to-left word drawn in the form it takes inside its word, and user
words isolated for a player's bidi.

The shaping is Pango's (HarfBuzz under it): ``text.baseline_text`` shapes an ``InWord``'s
whole word, each of its pieces in a marker colour of its own, and keeps the glyphs drawn in
this piece's colour, where the word put them (joined to their neighbours). No letter is
ever reordered by hand.
"""
from __future__ import annotations

import unicodedata


__all__ = ["FSI", "InWord", "PDI", "in_their_words", "isolated", "may_turn", "reading_slot", "reads_as_sign",
           "reads_right_to_left"]

_STRONG_RTL = ("R", "AL")
FSI, PDI = "\u2068", "\u2069"      # first strong isolate ... pop directional isolate


def reads_right_to_left(texts) -> bool:
    """Whether a sentence (its texts in order) reads right to left: its first strong
    letter is of a right-to-left script (Unicode's rule for a paragraph's direction)."""
    for text in texts:
        for ch in text:
            kind = unicodedata.bidirectional(ch)
            if kind in _STRONG_RTL:
                return True
            if kind == "L":
                return False
    return False


def reading_slot(index: int, count: int, right_to_left: bool) -> int:
    """Where item ``index`` of ``count`` stands, counted from the left: its place in
    reading order, from the right for a sentence read from the right (the grids' keys,
    the bars, the heads' table and the columns of numbers all place their items so)."""
    return count - 1 - index if right_to_left else index


def may_turn(text: str) -> bool:
    """Whether a label may be turned on its side to fit: Latin (letters, ASCII digits and
    the signs around them, the specials such as [CLS]) reads turned; ideographs, kana,
    Hangul, right-to-left and Indic scripts, and their digits and signs, never turn."""
    return all(ch.isascii() or "LATIN" in unicodedata.name(ch, "")
               or (unicodedata.category(ch)[0] in "PSZ"
                   and unicodedata.east_asian_width(ch) not in "WF")
               for ch in text)


def reads_as_sign(text: str) -> bool:
    """Whether a label is only signs (a comma, a hyphen): it stands upright where it fits,
    even among turned words."""
    return bool(text) and not any(ch.isalnum() for ch in text)


def isolated(text: str) -> str:
    """Every run of right-to-left words in ``text`` (from its first right-to-left letter to
    its last, with no left-to-right letter between) wrapped in a first-strong isolate
    (FSI … PDI), so a player shows a caption in its order around them: "‘ي’ in ‘الصغير’
    0.10" would otherwise be reordered as one right-to-left run.

    >>> isolated("‘ي’ in ‘الصغير’") == "‘\u2068ي\u2069’ in ‘\u2068الصغير\u2069’"
    True

    Text already isolated is left as it is (a caption isolated for the .srt, written again
    into a WebVTT file): ``isolated(isolated(t)) == isolated(t)``.
    """
    out, run, pending = [], [], []
    depth = 0                     # inside an isolate already in the text
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if depth or kind in ("FSI", "LRI", "RLI"):
            if run:
                out += [FSI, *run, PDI]
                run = []
            out += pending + [ch]
            pending = []
            depth += 1 if kind in ("FSI", "LRI", "RLI") else -1 if kind == "PDI" else 0
            continue
        if kind in _STRONG_RTL or (run and kind not in ("L", "FSI", "PDI") and ch not in "‘’“”"):
            if kind in _STRONG_RTL:
                run += pending + [ch]
                pending = []
            else:
                pending.append(ch)
            continue
        if run:
            out += [FSI, *run, PDI]
            run = []
        out += pending + [ch]
        pending = []
    if run:
        out += [FSI, *run, PDI]
    return "".join(out + pending)


class InWord(str):
    """A token's text that knows the written word it is a piece of: ``word`` (the pieces'
    texts joined) and its pieces' character spans ``spans``, ``at`` the index of this one.
    Drawn by ``text.baseline_text`` in the form it takes inside its word."""

    word: str
    spans: tuple
    at: int

    def __new__(cls, text: str, word: str, spans, at: int):
        made = super().__new__(cls, text)
        made.word, made.spans, made.at = word, tuple(spans), at
        return made

    def __getnewargs__(self):          # copies and pickles (to a worker) keep the word
        return str(self), self.word, self.spans, self.at


def _shaped_by_neighbours(pieces) -> bool:
    """Whether pieces of one word take their shape from each other: letters that join
    (a right-to-left script), or a cut at a combining mark, a virama or a joiner (an Indic
    vowel sign drawn alone sits on a dotted circle)."""
    if any(unicodedata.bidirectional(ch) in _STRONG_RTL for ch in "".join(pieces)):
        return True
    for before, after in zip(pieces, pieces[1:]):
        if not before or not after:
            continue
        if unicodedata.category(after[0])[0] == "M" or after[0] in "\u200c\u200d" \
                or unicodedata.combining(before[-1]) == 9 or before[-1] in "\u200c\u200d":
            return True
    return False


def in_their_words(texts, words) -> list:
    """Tokens' texts as drawn: each piece of a word whose pieces shape each other (joined
    letters of a right-to-left script, an Indic word cut at a vowel sign or a virama) as
    an :class:`InWord` (drawn in the form it takes inside its word), the others as they
    are; ``words`` is the sentence's ``WordModel``."""
    drawn = list(texts)
    for word in words.words:
        if not word.split:
            continue
        pieces = [texts[j] for j in word.pieces]
        if not _shaped_by_neighbours(pieces):
            continue
        ends = [0]
        for piece in pieces:
            ends.append(ends[-1] + len(piece))
        spans = list(zip(ends[:-1], ends[1:]))
        for n, j in enumerate(word.pieces):
            drawn[j] = InWord(pieces[n], "".join(pieces), spans, n)
    return drawn

