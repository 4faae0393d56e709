"""The numbers a lecturer quotes for each beat (a pack's speaker notes), read from the trace:
the largest dot products and weights of the focus word, the heads beside it, the largest
weight of the whole matrix. Numbers only; the wording of the rest of the notes is the
pack's."""
from __future__ import annotations

import numpy as np

from .trace import AttentionTrace
from .variants import head_blocked
from .word_model import WordModel

__all__ = ["TOP", "beat_quotes"]

TOP = 2          # the strongest keys a note names


def _quoted(text: str) -> str:
    return f"\u2018{text}\u2019"


def _word(trace: AttentionTrace, j: int) -> str:
    """Token ``j`` named: a word as written, or a piece named with its word (‘n’ in
    ‘gestern’): a piece is never named as a word; a word written twice is told apart
    (‘the’ (2nd))."""
    word = WordModel.of_trace(trace).word_of(j)
    if word.split:
        return f"{_quoted(trace.display_tokens[j])} in {_quoted(word.text)}{word.told_apart}"
    return _quoted(word.text) + word.told_apart


def _whole(word) -> str:
    return (word.text if word.kind == "special" else _quoted(word.text)) + word.told_apart


def _strongest(row: np.ndarray, allowed: np.ndarray, count: int = TOP) -> list[int]:
    """The ``count`` largest entries of ``row`` among ``allowed`` (ties: the first)."""
    order = sorted((j for j in range(row.size) if allowed[j]), key=lambda j: (-row[j], j))
    return order[:count]


def beat_quotes(trace: AttentionTrace) -> dict[str, list[str]]:
    """Per beat, the numbers worth quoting, each a short line read from ``trace``."""
    f, s, head = trace.focus_index, trace.primary_slot, trace.primary_head
    focus = _word(trace, f)
    seen = ~head_blocked(trace, s)[f]           # the keys the focus may attend to
    dots = trace.q[s, f].astype(np.float64) @ trace.k[s].astype(np.float64).T
    weights = trace.weights[s, f].astype(np.float64)
    top_dots = _strongest(dots, seen)
    top_weights = _strongest(weights, seen)
    words = WordModel.of_trace(trace)
    sums = [words.sums(trace.weights[n, f]) for n in range(len(trace.heads))]
    quotes = {
        "title": [f"{trace.model_label}, layer {trace.layer}, head {head}; "
                  f"{trace.num_tokens} tokens, {sum(trace.special)} added by the model"],
        "embed": [f"each token enters as {trace.embeddings.shape[-1]} numbers"],
        "project": [f"a query, a key and a value of {trace.d_k} numbers per word in head "
                    f"{head}"],
        "sparks": [f"q\u00b7k of {focus} with {_word(trace, j)}: {dots[j]:+.1f}"
                   for j in top_dots],
        "softmax": [f"weight of {_word(trace, j)}: {weights[j]:.2f}" for j in top_weights]
                   + [f"\u221ad_k = {np.sqrt(trace.d_k):.2f}; the weights sum to 1"],
        "pull": [f"the output of {focus}: "
                 + " + ".join(f"{weights[j]:.2f}\u00b7v{_word(trace, j)}"
                              for j in top_weights) + " + \u2026"],
        "heads": [f"head {h}: most weight from {focus} to {_whole(words.words[w])} "
                  f"({sums[n][w]:.2f})"
                  for n, h in enumerate(trace.heads)
                  for w in [int(np.argmax(sums[n]))]],
        "mask": [f"{focus} is token {f} of {trace.num_tokens}: a causal mask hides the "
                 f"{trace.num_tokens - 1 - f} after it"],
    }
    matrix = trace.weights[s].astype(np.float64)
    i, j = np.unravel_index(int(np.argmax(matrix)), matrix.shape)
    quotes["summary"] = [f"the largest weight of head {head}: {_word(trace, int(i))} \u2192 "
                         f"{_word(trace, int(j))}, {matrix[i, j]:.2f}"]
    # words, each the sum of its pieces, the focus's own word left out
    own = words.index_of(f)
    seen_words = np.array([any(seen[j] for j in w.pieces) and n != own
                           for n, w in enumerate(words.words)])
    top_words = _strongest(sums[s], seen_words)
    quotes["update"] = [f"{focus} weighs {_whole(words.words[w])} {sums[s][w]:.2f}"
                        + (" (the sum of its pieces)" if words.words[w].split else "")
                        for w in top_words]
    return quotes
