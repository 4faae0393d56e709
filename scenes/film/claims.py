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

Three read what is drawn and when: :func:`one_value_per_number` (a weight printed twice
with different digits, a change that is not the difference printed), :func:`window_faults`
(a window that breaks the rule its label states, or a label that miscounts) and
:func:`captions_out_of_step` (a caption past the film's end, across a chapter mark, or
before the first picture). The glyph rule (a text drawn with no font covering it) is the
craft audit's ``craft.texts_without_glyphs``.
"""
from __future__ import annotations

import numpy as np

from ...attention_core import derived
from ...attention_core.word_model import WordModel

__all__ = ["KINDS", "captions_out_of_step", "claim_faults", "named_not_drawn",
           "one_value_per_number", "pieces_named_as_words", "window_faults",
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
    """Each claim that the trace's numbers do not support, said in one line (a
    translation's or a writing's film: ``view_claims``)."""
    if hasattr(trace, "storyboard"):
        from .view_claims import view_claim_faults

        return view_claim_faults(trace, claims)
    words = WordModel.of_trace(trace)
    f = trace.focus_index
    said_outside = _said_outside(words, claims)
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
            elif among == "drawn":
                # the most of the drawn words is the most of all, or the heavier word is
                # said to lie outside the window: a viewer reads "the most" as of them all
                heavier = [v for v in range(len(words)) if sums[v] > sums[w] + 1e-9
                           and v not in said_outside]
                if heavier:
                    faults.append(f"{where}: {words.words[heavier[0]].text!r} weighs more "
                                  "and lies outside the window, unsaid")
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
            faults += _listed_faults(trace, words, where, said_outside, *c.facts)
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


def _said_outside(words: WordModel, claims) -> set[int]:
    """The words the film says lie outside the window it draws (``outside`` claims)."""
    return {words.index_of(a) for c in claims if c.kind == "outside" for a, _ in c.facts}


def named_not_drawn(trace, claims) -> list[str]:
    """The answer's words (``ranked`` claims) that are neither drawn in the window nor said
    to lie outside it (an ``outside`` claim): a word named where the viewer cannot find it."""
    words = WordModel.of_trace(trace)
    drawn = set(_among(trace, words, "drawn"))
    said_outside = _said_outside(words, claims)
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


def _listed_faults(trace, words: WordModel, where: str, said_outside: set[int],
                   row_kind: str, slot: int, among: str, decimals: int, *spans) -> list[str]:
    """The faults of a ``listed`` claim: a piece listed as a word, a word out of its
    pool, out of order as written, a heavier word left out, or (a list of the drawn
    words) a heavier word the window leaves out and the film does not say so."""
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
    if named and among in ("drawn", "open"):
        heavier = [v for v in range(len(words)) if sums[v] > min(got) and v not in pool
                   and v not in said_outside]
        if heavier:
            return [f"{where}: {words.words[heavier[0]].text!r} weighs more and lies "
                    "outside the window, unsaid"]
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


def words_not_written(trace, texts, versus=None) -> list[str]:
    """Words quoted in ``texts`` (captions, notes) that are not words of the written
    sentence (the rule "word boundaries"): each must be a word of its Unicode segmentation
    (``word_model.written_segments``), touching words of letters that a token joins (in a
    script written without spaces), what the user named with --focus, or a token the model
    adds or could not read. A piece named with its word (‘n’ in ‘gestern’) is checked as
    its word; what the model reads a word as (‘で’ as ‘て’) names no word. A trace whose
    words are not Unicode's (saved before they were) is not checked. ``versus``: a minimal
    pair's sentence B, whose words the film names too."""
    import re

    from ...attention_core.word_model import UNICODE_WORD_BREAKS, written_segments

    if trace.meta.get("word_breaks") != UNICODE_WORD_BREAKS:
        return []
    written: set[str] = set()
    for one in (trace,) if versus is None else (trace, versus):
        sentence = one.sentence
        spans = written_segments(sentence)
        written |= {sentence[a:b] for a, b in spans}
        for n in range(len(spans)):         # letters touching letters: no space between
            for m in range(n + 1, len(spans)):
                if spans[m][0] != spans[m - 1][1] or not sentence[spans[m][0]].isalpha() \
                        or not sentence[spans[m - 1][1] - 1].isalpha():
                    break
                written.add(sentence[spans[n][0]:spans[m][1]])
        written |= {w.text for w in WordModel.of_trace(one).words if w.kind != "word"}
        written.add(one.focus_span_text)
    faults = []
    for text in texts:
        for found in re.finditer(f"( as )?{_QUOTED}( in {_QUOTED})?", text):
            named = found.group(4) if found.group(3) else found.group(2)
            if found.group(1) or named in written:
                continue
            faults.append(f"{named!r} is not a word of the sentence as written: {text!r}")
    return faults


# the kinds of drawn weights that are one quantity, whatever list or row draws them: a
# token's entry (index h, i, j, *extra, decimals) and a word's sum (h, i, first, last,
# *extra, decimals), of one row of weights
_ENTRY_OF = {"shown_weights": "weights", "shown_causal_weight": "causal_weight",
             "shown_temperature_weight": "temperature_weight"}
_WORD_OF = {"shown_word_weight": "weights", "shown_causal_word_weight": "causal_weight",
            "shown_temperature_word_weight": "temperature_weight"}


def _quantity(kind: str, index: tuple) -> tuple | None:
    """What a drawn weight is a number of, and its decimals: (row, h, i, extra, first,
    last), decimals; None for a number of another kind."""
    side, _, kind = kind.rpartition(":")
    if kind in _ENTRY_OF:
        h, i, j, *extra, d = index
        return (side, _ENTRY_OF[kind], h, i, tuple(extra), j, j), d
    if kind in _WORD_OF:
        h, i, first, last, *extra, d = index
        return (side, _WORD_OF[kind], h, i, tuple(extra), first, last), d
    return None


def one_value_per_number(trace, shown) -> list[str]:
    """Numbers drawn or said more than once with different digits (the rule "one value per
    number"): a word's weight from the focus printed as a token in one list and as a word
    in another, or in two beats, to the same decimals; and a minimal pair's change that is
    not the difference of the two weights printed above it."""
    printed: dict[tuple, dict[str, str]] = {}
    for n in shown:
        found = _quantity(n.kind, n.index)
        if found is not None:
            printed.setdefault(found, {}).setdefault(n.text, n.beat)
    faults = []
    for (quantity, d), texts in printed.items():
        if len(texts) > 1:
            first, last = quantity[-2:]
            name = "".join(trace.display_tokens[first:last + 1])
            faults.append(f"{name!r}: one weight printed as " + ", ".join(
                f"{t} ({beat})" for t, beat in texts.items()))
    for n in shown:
        if n.kind != "shown_pair:change":
            continue
        s, fa, a0, a1, fb, b0, b1, d = n.index
        a = printed.get((("", "weights", s, fa, (), a0, a1), d))
        b = printed.get((("versus", "weights", s, fb, (), b0, b1), d))
        if a and b and len(a) == len(b) == 1:
            made = _units(next(iter(b)))[0] - _units(next(iter(a)))[0]
            if _units(n.text)[0] != made:
                faults.append(f"{n.beat}: change {n.text} is not {next(iter(b))} less "
                              f"{next(iter(a))}")
    return faults


def window_faults(trace, drawn: list[int], limit: int, label: str | None) -> list[str]:
    """Where the window (the tokens ``drawn`` of at most ``limit``) breaks the rule its
    label states (``views.WINDOW_RULE``): a word cut, the focus left out, a word of the
    rule (each head's heaviest, the answer's words, the followed head's heaviest keys) left
    out while it would fit, a nearer neighbour left out for a farther one no longer; and a
    label missing where tokens are left out, or counting other than what is drawn."""
    from .question import answer_named
    from .views import HEAVY_KEYS, WINDOW_RULE

    T, f = trace.num_tokens, trace.focus_index
    if len(drawn) == T:
        return [] if label is None else ["every token is drawn, yet the window is labelled"]
    words = WordModel.of_trace(trace)
    kept = set(words.words_of(drawn))
    faults = []
    if sorted(drawn) != sorted(j for w in kept for j in words.words[w].pieces):
        faults.append("the window cuts a word")
    own = words.index_of(f)
    if own not in kept:
        faults.append("the window leaves out the focus")
    room = limit - len(drawn)

    def fits(w: int) -> bool:
        return len(words.words[w].pieces) <= room
    rule = {int(np.argmax(words.sums(trace.weights[s, f]))) for s in range(len(trace.heads))}
    rule |= {words.index_of(span[0]) for span, _ in answer_named(trace)}
    sums = words.sums(trace.weights[trace.primary_slot, f])
    rule |= {int(w) for w in np.argsort(-sums, kind="stable")[:HEAVY_KEYS]}
    faults += [f"the window leaves out {words.words[w].text!r}, a word of its rule, with "
               "room for it" for w in sorted(rule - kept) if fits(w)]
    for near in set(range(len(words))) - kept:
        for far in kept - rule - {own}:
            if abs(near - own) < abs(far - own) and \
                    len(words.words[near].pieces) <= len(words.words[far].pieces):
                faults.append(f"the window draws {words.words[far].text!r} and not the "
                              f"nearer {words.words[near].text!r}")
                break
    expected = f"{len(drawn)} of {T} tokens: {WINDOW_RULE}"
    if label is None or " ".join(label.split()) != expected:
        faults.append(f"the window's label {label!r} is not {expected!r}")
    return faults


def captions_out_of_step(captions, spans, duration: float, first_picture: float
                         ) -> list[str]:
    """Captions ((start, end, text), in seconds) out of step with the film (the rule
    "caption timing"): one that outlasts the film (``duration``), one not inside one beat's
    span (its chapter: ``spans`` of (start, end)), or the first before the first picture
    (``first_picture``: when the film first draws)."""
    faults = []
    for start, end, text in captions:
        if end > duration + 1e-6:
            faults.append(f"{text[:40]!r} ends at {end:.2f} s, after the film ({duration:.2f} s)")
        elif not any(a - 1e-6 <= start and end <= b + 1e-6 for a, b in spans):
            faults.append(f"{text[:40]!r} ({start:.2f}-{end:.2f} s) crosses a chapter mark")
    if captions and captions[0][0] < first_picture - 1e-6:
        faults.append(f"the first caption starts at {captions[0][0]:.2f} s, before the first "
                      f"picture ({first_picture:.2f} s)")
    return faults
