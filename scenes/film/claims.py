"""The claims audit: everything the film says in words about its numbers (which word a head
gives the most to, the order of the answer's words, what the drawn parts add up to) is
recorded where it is drawn or said (``NumberBook.claim``) and re-derived here from the trace
and its words as written (``attention_core.word_model``): a word weighs the sum of its
pieces, and "the most" is among what the claim says it is among (the words drawn, or the
words that may answer). A caption that disagrees with a label, an answer that disagrees
with the weights, a drawn sum short of what is written: each is a fault, named.

Kinds of claim and their facts:

- ``heaviest``: (slot, (first, last), among): head ``slot`` gives the word of tokens
  first..last the most weight from the focus, among "drawn" (the window's words), "answer"
  (the words that may answer) or "all" words;
- ``ranked``: (slot, spans...): the words that may answer, most weight first, these the
  heaviest of them;
- ``update_ranked``: (spans...): the words adding the most to the focus's update, largest
  share first;
- ``adds_up``: (total, part, part, ...): drawn texts of numbers whose parts make the total
  as drawn (the units of its last decimal).
"""
from __future__ import annotations

import numpy as np

from ...attention_core import derived
from ...attention_core.word_model import WordModel

__all__ = ["KINDS", "claim_faults", "pieces_named_as_words"]

KINDS = ("heaviest", "ranked", "update_ranked", "adds_up")


def _units(text: str) -> tuple[int, int]:
    """A drawn number as whole units of its last decimal, and its decimals."""
    clean = text.replace("\u2212", "-").replace("%", "").replace("\u00a0", "").strip()
    decimals = len(clean.split(".")[1]) if "." in clean else 0
    return round(float(clean) * 10 ** decimals), decimals


def _among(trace, words: WordModel, among: str) -> list[int]:
    if among == "answer":
        return derived.answer_words(trace)
    if among == "drawn":
        from .views import drawn_words
        return drawn_words(trace)
    return list(range(len(words)))


def claim_faults(trace, claims) -> list[str]:
    """Each claim that the trace's numbers do not support, said in one line."""
    words = WordModel.of_trace(trace)
    f = trace.focus_index
    faults = []
    for c in claims:
        where = f"{c.beat}: {c.kind} {c.said!r}"
        if c.kind == "heaviest":
            slot, span, among = c.facts
            sums = words.sums(trace.weights[slot, f])
            pool = _among(trace, words, among)
            w = words.index_of(span[0])
            if words.words[w].span != tuple(span) or w not in pool:
                faults.append(f"{where}: {span} is not one of the {among} words")
            elif sums[w] < max(sums[v] for v in pool) - 1e-9:
                best = max(pool, key=lambda v: sums[v])
                faults.append(f"{where}: {words.words[best].text!r} weighs more "
                              f"({sums[best]:.3f} > {sums[w]:.3f})")
        elif c.kind == "ranked":
            slot, *spans = c.facts
            sums = words.sums(trace.weights[slot, f])
            named = [words.index_of(a) for a, _ in spans]
            pool = derived.answer_words(trace)
            got = [sums[w] for w in named]
            if any(w not in pool for w in named):
                faults.append(f"{where}: names a word that does not answer")
            elif got != sorted(got, reverse=True):
                faults.append(f"{where}: not in order of weight ({got})")
            elif named and max((sums[v] for v in pool if v not in named), default=-1.0) \
                    > min(got) + 1e-9:
                faults.append(f"{where}: leaves out a heavier word")
        elif c.kind == "update_ranked":
            shares = words.sums(np.linalg.norm(trace.contributions.astype(np.float64),
                                               axis=1))
            named = [words.index_of(a) for a, _ in c.facts]
            got = [shares[w] for w in named]
            rest = [shares[v] for v in range(len(words)) if v not in named]
            if got != sorted(got, reverse=True) or (rest and max(rest) > min(got) + 1e-12):
                faults.append(f"{where}: not the words adding the most, in order")
        elif c.kind == "adds_up":
            total, *parts = c.facts
            whole, d = _units(total)
            made = [_units(p) for p in parts]
            if any(pd != d for _, pd in made) or sum(u for u, _ in made) != whole:
                faults.append(f"{where}: {' + '.join(parts)} is not {total}")
        elif c.kind == "head_most":        # (influence key, head): the head has the most
            key, head = c.facts
            values = [derived.influence_of(trace, h, key)
                      for h in range(len(derived.influence(trace)["heads"]))]
            if values[head] < max(values) - 1e-12:
                faults.append(f"{where}: head {values.index(max(values))} has more "
                              f"({max(values):.4g} > {values[head]:.4g})")
        else:
            faults.append(f"{where}: unknown kind of claim")
    return faults


def pieces_named_as_words(trace, texts) -> list[str]:
    """Lines of ``texts`` (captions, notes) that quote a piece of a word in pieces as if it
    were a word: a piece is named with its word (‘n’ in ‘gestern’), never alone."""
    import re

    words = WordModel.of_trace(trace)
    whole = {w.text for w in words.words}
    pieces = {trace.display_tokens[j] for w in words.words if w.split for j in w.pieces}
    alone = pieces - whole
    faults = []
    for text in texts:
        for found in re.finditer("\u2018([^\u2019]+)\u2019( in \u2018)?", text):
            if found.group(1) in alone and not found.group(2):
                faults.append(f"{found.group(1)!r} named as a word: {text!r}")
    return faults
