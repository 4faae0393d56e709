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
  as drawn (the units of its last decimal);
- ``outside``: (spans...): words the film says lie outside the window it draws;
- ``listed``: (row, slot, among, decimals, spans...): a ranked list, side text or panel
  names these words, heaviest first, in head ``slot``'s ``row`` of weights from the focus
  ("weights", or "causal_weight" under the illustrated mask) as written with
  ``decimals``, the heaviest of ``among`` ("drawn", "open": the drawn words the mask
  leaves, "answer" or "all"). A span that is a piece of a word is a fault: a list names
  words, each the sum of its pieces (the rule "pieces in lists").

And one rule across claims, named but not drawn: every word the answer (``ranked``) names
is drawn (in the window, ``views.drawn_words``) or said to lie outside it (``outside``).

Two rules read the film's texts rather than its records: :func:`pieces_named_as_words`
(a caption or label that quotes a piece as a word, or lists a piece with a weight) and
:func:`words_not_written` (a word named that is not a word of the written sentence's
Unicode segmentation: the rule "word boundaries").
"""
from __future__ import annotations

import numpy as np

from ...attention_core import derived
from ...attention_core.word_model import WordModel

__all__ = ["KINDS", "claim_faults", "named_not_drawn", "pieces_named_as_words",
           "words_not_written"]

KINDS = ("heaviest", "ranked", "update_ranked", "adds_up", "outside", "listed")


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
        elif c.kind == "listed":
            faults += _listed_faults(trace, words, where, *c.facts)
        elif c.kind == "head_most":        # (influence key, head): the head has the most
            key, head = c.facts
            values = [derived.influence_of(trace, h, key)
                      for h in range(len(derived.influence(trace)["heads"]))]
            if values[head] < max(values) - 1e-12:
                faults.append(f"{where}: head {values.index(max(values))} has more "
                              f"({max(values):.4g} > {values[head]:.4g})")
        elif c.kind == "outside":
            drawn = set(_among(trace, words, "drawn"))
            if any(words.index_of(a) in drawn for a, _ in c.facts):
                faults.append(f"{where}: says a drawn word lies outside the window")
        else:
            faults.append(f"{where}: unknown kind of claim")
    return faults + named_not_drawn(trace, claims)


def named_not_drawn(trace, claims) -> list[str]:
    """The answer's words (``ranked`` claims) that are neither drawn in the window nor said
    to lie outside it (an ``outside`` claim): a word named where the viewer cannot find it."""
    words = WordModel.of_trace(trace)
    drawn = set(_among(trace, words, "drawn"))
    said_outside = {words.index_of(a) for c in claims if c.kind == "outside"
                    for a, _ in c.facts}
    faults = []
    for c in claims:
        if c.kind != "ranked":
            continue
        for a, _ in c.facts[1:]:
            w = words.index_of(a)
            if w not in drawn and w not in said_outside:
                faults.append(f"{c.beat}: ranked {c.said!r}: names "
                              f"{words.words[w].text!r}, neither drawn nor said to lie "
                              "outside the window")
    return faults


def _listed_faults(trace, words: WordModel, where: str, row_kind: str, slot: int,
                   among: str, decimals: int, *spans) -> list[str]:
    """The faults of a ``listed`` claim: a piece listed as a word, a word out of its
    pool, out of order as written, or a heavier word left out."""
    row = derived.ROWS[row_kind](trace, slot, trace.focus_index)
    sums = np.round(words.sums(row), int(decimals))
    if among == "open":         # the drawn words the mask leaves the focus
        pool = [w for w in _among(trace, words, "drawn")
                if any(row[j] > 0 for j in words.words[w].pieces)]
    else:
        pool = _among(trace, words, among)
    named = [words.index_of(a) for a, _ in spans]
    pieces = [tuple(span) for span, w in zip(spans, named)
              if words.words[w].span != tuple(span)]
    if pieces:
        return [f"{where}: lists a piece as a word (pieces in lists): {pieces}"]
    got = [float(sums[w]) for w in named]
    if any(w not in pool for w in named):
        return [f"{where}: lists a word that is not one of the {among} words"]
    if got != sorted(got, reverse=True):
        return [f"{where}: not in order of weight ({got})"]
    if named and max((sums[v] for v in pool if v not in named), default=-1.0) > min(got):
        return [f"{where}: leaves out a heavier word"]
    return []


# a drawn weight after a name, in a list ("‘ich’ 0.11", "ster 0.13,")
_WEIGHT_AFTER = r"\s+[0-9]+[.,][0-9]+"
_QUOTED = "\u2018([^\u2019]+)\u2019"


def pieces_named_as_words(trace, texts) -> list[str]:
    """Lines of ``texts`` (captions, notes, drawn labels) that name a piece of a word in
    pieces as if it were a word: quoted alone (a piece is named with its word, ‘n’ in
    ‘gestern’), or in a list of weights at all, with its word or not (a list ranks words,
    each the sum of its pieces: "‘ster’ in ‘gestern’ 0.13", "ster 0.13, ich 0.11")."""
    import re

    words = WordModel.of_trace(trace)
    whole = {w.text for w in words.words}
    pieces = {trace.display_tokens[j] for w in words.words if w.split for j in w.pieces}
    alone = pieces - whole
    faults = []
    for text in texts:
        for found in re.finditer(f"{_QUOTED}( in {_QUOTED})?({_WEIGHT_AFTER})?", text):
            if found.group(2) and found.group(4):
                faults.append(f"{found.group(1)!r} listed with a weight: {text!r}")
            elif found.group(1) in alone and not found.group(2):
                faults.append(f"{found.group(1)!r} named as a word: {text!r}")
        # a list written without quotes (a side text): "name 0.13, name 0.11"
        for found in re.finditer(f"(?:^|[:,]\\s*)([^\\s,:\u2018\u2019]+){_WEIGHT_AFTER}",
                                 text):
            if found.group(1) in alone:
                faults.append(f"{found.group(1)!r} listed as a word: {text!r}")
    return faults


def words_not_written(trace, texts) -> list[str]:
    """Words quoted in ``texts`` (captions, notes) that are not words of the written
    sentence (the rule "word boundaries"): each must be a word of its Unicode segmentation
    (``word_model.written_segments``), touching words of letters that a token joins (in a
    script written without spaces), what the user named with --focus, or a token the model
    adds or could not read. A piece named with its word (‘n’ in ‘gestern’) is checked as
    its word; what the model reads a word as (‘で’ as ‘て’) names no word. A trace whose
    words are not Unicode's (saved before they were) is not checked."""
    import re

    from ...attention_core.word_model import UNICODE_WORD_BREAKS, written_segments

    if trace.meta.get("word_breaks") != UNICODE_WORD_BREAKS:
        return []
    sentence = trace.sentence
    spans = written_segments(sentence)
    written = {sentence[a:b] for a, b in spans}
    for n in range(len(spans)):             # letters touching letters: no space between
        for m in range(n + 1, len(spans)):
            if spans[m][0] != spans[m - 1][1] or not sentence[spans[m][0]].isalpha() \
                    or not sentence[spans[m - 1][1] - 1].isalpha():
                break
            written.add(sentence[spans[n][0]:spans[m][1]])
    words = WordModel.of_trace(trace)
    written |= {w.text for w in words.words if w.kind != "word"}
    written.add(trace.focus_span_text)
    faults = []
    for text in texts:
        for found in re.finditer(f"( as )?{_QUOTED}( in {_QUOTED})?", text):
            named = found.group(4) if found.group(3) else found.group(2)
            if found.group(1) or named in written:
                continue
            faults.append(f"{named!r} is not a word of the sentence as written: {text!r}")
    return faults
