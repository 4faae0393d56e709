"""The sentence's words as written, each the run of tokens that make it: one word model for
every claim the film, the notes, ``inspect`` and ``--json`` make about a word.

A tokenizer cuts a word into pieces (WordPiece's ``##``, byte-level BPE's ``Ġ`` and the
bytes of one character, SentencePiece's ``▁``); the model attends to pieces, but a person
asks about words. So a word's weight, score share and update share are the sums of its
pieces' (a word is one of the keys the focus can look at, as much as all its pieces are),
the focus word's own pieces are never "another word", and a piece is never named as a
word. Words of scripts written without spaces are their characters' tokens (no segmenter
here ships its data for every such script), which the screen says where it matters.

Built from a trace's metadata alone (``written_words``: the runs the tokenizer's offsets
join, :func:`selection.written_words`), so a saved trace reads the same words.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SPACE_TOKEN", "Word", "WordModel", "PIECES_SUM_NOTE"]

# how a token that is only white space (a byte-level BPE's lone "Ġ") is drawn and named
SPACE_TOKEN = "\u2423"
# said once where a word in pieces is drawn: what its weight is
PIECES_SUM_NOTE = "a word in pieces weighs the sum of its pieces"


@dataclass(frozen=True)
class Word:
    """One word as written: tokens ``first`` to ``last`` (a special token, a space token or
    a punctuation mark is a word of one token), named ``text``; ``kind`` is "word",
    "special" (added by the model), "space" (white space alone) or "unknown" (read by the
    model as its unknown token: it never saw what is written)."""
    first: int
    last: int
    text: str
    kind: str = "word"

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

    def __init__(self, words: list[Word], num_tokens: int):
        self.words = tuple(words)
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
