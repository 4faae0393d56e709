"""The sentence's words as written, each the run of tokens that make it: one word model for
every claim the film, the notes, ``inspect`` and ``--json`` make about a word.

A tokenizer cuts a word into pieces (WordPiece's ``##``, byte-level BPE's ``Ġ`` and the
bytes of one character, SentencePiece's ``▁``); the model attends to pieces, but a person
asks about words. So a word's weight, score share and update share are the sums of its
pieces' (a word is one of the keys the focus can look at, as much as all its pieces are),
the focus word's own pieces are never "another word", and a piece is never named as a
word.

The words are the written sentence's own: Unicode's word segmentation (UAX #29, the
``regex`` module's default word boundaries) of the text as the user typed it, mapped to
the tokens by the tokenizer's character offsets (:func:`words_as_written`) — never the
tokenizer's pre-split nor its normaliser's output, which may drop a word's marks (MiniLM's
drops Devanagari's vowel signs and virama, and its pieces of ‘बिल्ली’ would otherwise read
as three words). Words of scripts written without spaces are then their characters (UAX
#29 has no dictionary: no segmenter here ships its data for every such script), which the
screen says where it matters.

Built from a trace's metadata alone (``written_words``: the words of several tokens,
:func:`selection.written_words`), so a saved trace reads the same words; ``word_breaks``
says they are Unicode's (an older trace's are the runs its tokenizer's offsets joined).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

__all__ = ["SPACE_TOKEN", "UNICODE_WORD_BREAKS", "Word", "WordModel", "PIECES_SUM_NOTE",
           "ordinal", "words_as_written", "written_runs", "written_segments"]

# how a token that is only white space (a byte-level BPE's lone "Ġ") is drawn and named
SPACE_TOKEN = "\u2423"
# said once where a word in pieces is drawn: what its weight is
PIECES_SUM_NOTE = "a word in pieces weighs the sum of its pieces"
# a trace's meta ``word_breaks``: its words are the Unicode segmentation of its sentence
UNICODE_WORD_BREAKS = "unicode"


def written_segments(sentence: str) -> list[tuple[int, int]]:
    """The words of ``sentence`` as written, (start, end) character spans in order: the
    runs between Unicode's default word boundaries (UAX #29) that are not white space, so a
    punctuation mark is a word of its own ("Moon" "!"), "didn't", "0.25" and "U.S" one
    word each. An initialism keeps its closing full stop ("U.S." and "e.g.": letters one
    by one, each followed by a stop), which UAX #29 leaves apart."""
    import regex

    bounds = [m.start() for m in regex.finditer(r"\b", sentence, flags=regex.WORD | regex.V1)]
    bounds = sorted({0, len(sentence), *bounds})
    spans = [(a, b) for a, b in zip(bounds, bounds[1:])
             if b > a and not sentence[a:b].isspace()]
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and sentence[a:b] == "." and out[-1][1] == a and \
                regex.fullmatch(r"(?:\p{L}\.)+\p{L}", sentence[out[-1][0]:out[-1][1]]):
            out[-1] = (out[-1][0], b)
            continue
        out.append((a, b))
    return out


def words_as_written(sentence: str, offsets, special) -> list[tuple[int, int, str]]:
    """Every word of ``sentence`` (:func:`written_segments`) that the tokens read, as the
    run of tokens that make it: (first, last, text), in order, the text the word as
    written (its marks included where the normaliser dropped them)."""
    return [(a, b, sentence[start:end])
            for a, b, start, end in written_runs(sentence, offsets, special)]


def written_runs(sentence: str, offsets, special) -> list[tuple[int, int, int, int]]:
    """Every word of ``sentence`` that the tokens read: (first token, last token, start,
    end) with the word's characters start..end as written. A token belongs to each word
    its span (``offsets``, in characters) overlaps, and words one token joins are one (a
    byte-level token of two ideographs, an unknown token over a whole phrase); special
    tokens, and tokens that cover no character, belong to none."""
    segments = written_segments(sentence)
    seg_at = [-1] * len(sentence)
    for n, (a, b) in enumerate(segments):
        for c in range(a, b):
            seg_at[c] = n
    parent = list(range(len(segments)))

    def root(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n
    touched: list[list[int]] = []
    for (start, end), sp in zip(offsets, special):
        hit = [] if sp else sorted({seg_at[c] for c in range(start, min(end, len(sentence)))
                                    if seg_at[c] >= 0})
        for n in hit[1:]:
            parent[root(n)] = root(hit[0])
        touched.append(hit)
    words: list[tuple[int, int, int, int]] = []
    run: list[int] = []         # the tokens of the word being read

    def close() -> None:
        if run:
            segs = [n for j in run for n in touched[j]]
            words.append((run[0], run[-1], segments[min(segs)][0], segments[max(segs)][1]))
            run.clear()
    for j, hit in enumerate(touched):
        if not hit:
            close()
            continue
        if run and root(touched[run[-1]][0]) != root(hit[0]):
            close()
        run.append(j)
    close()
    return words


def ordinal(n: int) -> str:
    """English's short ordinal of ``n``.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102, 111)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd', '111th']
    """
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Word:
    """One word as written: tokens ``first`` to ``last`` (a special token, a space token or
    a punctuation mark is a word of one token), named ``text``; ``kind`` is "word",
    "special" (added by the model), "space" (white space alone) or "unknown" (read by the
    model as its unknown token: it never saw what is written). ``occurrence``: which of the
    sentence's words written the same this one is (1, 2, ...), 0 where no other is, so that
    a list can tell ‘the’ (1st) from ‘the’ (2nd)."""
    first: int
    last: int
    text: str
    kind: str = "word"
    occurrence: int = 0

    @property
    def told_apart(self) -> str:
        """What tells the word from others written the same, said after its name:
        " (2nd)", or nothing for a word written once."""
        return f"\u00a0({ordinal(self.occurrence)})" if self.occurrence else ""

    @property
    def pieces(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def split(self) -> bool:
        """Whether the tokenizer cut the word into more than one token."""
        return self.last > self.first

    @property
    def span(self) -> tuple[int, int]:
        return self.first, self.last


class WordModel:
    """Every token's word: ``words`` in sentence order, and the word of each token."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{w.text}{w.told_apart} [{w.first}" +
                          (f"-{w.last}]" if w.split else "]") for w in self.words)
        return f"WordModel({len(self.words)} words: {shown})"

    def __init__(self, words: list[Word], num_tokens: int):
        written = Counter(w.text for w in words)
        seen: Counter = Counter()
        told = []
        for word in words:
            seen[word.text] += 1
            told.append(replace(word, occurrence=seen[word.text] if written[word.text] > 1
                                else 0))
        self.words = tuple(told)
        of = [-1] * num_tokens
        for n, word in enumerate(self.words):
            for j in word.pieces:
                of[j] = n
        if any(n < 0 for n in of):
            raise ValueError("every token belongs to a word")
        self._of = tuple(of)

    # ---- building ----------------------------------------------------------------------------
    @classmethod
    def from_parts(cls, display_tokens, special, written_words, unknown=()) -> "WordModel":
        """From the tokens as drawn, which are special, the runs of several tokens that are
        one written word ((first, last, text)) and the tokens the model read as unknown."""
        T = len(display_tokens)
        unknown = set(int(j) for j in unknown)
        runs = {int(a): (int(a), int(b), str(t)) for a, b, t in written_words}
        words, j = [], 0
        while j < T:
            if j in runs and not special[j]:
                a, b, text = runs[j]
                kind = "unknown" if any(n in unknown for n in range(a, b + 1)) else "word"
                if kind == "unknown":       # named as the model read it, the pieces known
                    text = "".join(display_tokens[n] for n in range(a, b + 1))
                words.append(Word(a, b, text, kind))
                j = b + 1
                continue
            text = display_tokens[j]
            kind = ("special" if special[j] else "unknown" if j in unknown
                    else "space" if text == SPACE_TOKEN else "word")
            words.append(Word(j, j, text, kind))
            j += 1
        return cls(words, T)

    @classmethod
    def of_trace(cls, trace) -> "WordModel":
        cached = trace.__dict__.get("_word_model")
        if cached is None:
            cached = cls.from_parts(trace.display_tokens, trace.special, trace.written_words,
                                    trace.meta.get("unknown_tokens", ()))
            trace.__dict__["_word_model"] = cached      # a trace is frozen, and never changes
        return cached

    # ---- reading -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.words)

    @property
    def token_words(self) -> tuple[int, ...]:
        """Each token's word (its index), in token order."""
        return self._of

    def index_of(self, token: int) -> int:
        """The index of the word token ``token`` is a piece of."""
        return self._of[int(token)]

    def word_of(self, token: int) -> Word:
        return self.words[self._of[int(token)]]

    def words_of(self, tokens) -> list[int]:
        """The words (indices, in sentence order) that any of ``tokens`` is a piece of."""
        return sorted({self._of[int(j)] for j in tokens})

    def sums(self, row) -> np.ndarray:
        """A row over the tokens (weights, shares) summed over each word's pieces."""
        row = np.asarray(row, dtype=np.float64)
        out = np.zeros(len(self.words), dtype=np.float64)
        np.add.at(out, np.asarray(self._of), row)
        return out

    def total(self, row, w: int) -> float:
        """Word ``w``'s part of a row over the tokens: the sum over its pieces."""
        word = self.words[w]
        return float(np.asarray(row, dtype=np.float64)[word.first:word.last + 1].sum())

    def whole(self, tokens) -> list[int]:
        """``tokens`` grown to whole words: every piece of every word any of them is in."""
        return sorted({j for w in self.words_of(tokens) for j in self.words[w].pieces})

    def any_split(self, words=None) -> bool:
        """Whether any of ``words`` (indices; default all) is in several pieces."""
        chosen = range(len(self.words)) if words is None else words
        return any(self.words[w].split for w in chosen)
