"""The claims audit of the films whose numbers are not an AttentionTrace's: a
translation's (``attention_core.translation.CrossView``) and a decoder's writing
(``attention_core.generation.Generation``). Each claim recorded (``NumberBook.claim``) is
re-derived from the view:

- ``most``: (head, word, word...): the focus word gives the first source word the most
  weight in ``head`` (a word the sum of its pieces), each named word no less than the next;
- ``even``: (head, low, high): an untrained model's answer names no winner but the least
  and the most of its words' weights over their even shares (a word's even share its
  pieces' share of the tokens), and says "near evenly" exactly where every word has half
  to twice its share;
- ``greedy``: (step,): the token written at ``step`` is its distribution's likeliest;
- ``sink``: (named,): the first token is named an attention sink exactly where its mean
  share of each new token's weight is above ``SINK_SHARE``.
"""
from __future__ import annotations

__all__ = ["view_claim_faults"]


def view_claim_faults(view, claims) -> list[str]:
    """Each claim the view's numbers do not support, said in one line."""
    faults = []
    for c in claims:
        where = f"{c.beat}: {c.kind} {c.said!r}"
        check = _CHECKS.get(c.kind)
        fault = check(view, c) if check is not None else "unknown kind of claim"
        if fault:
            faults.append(f"{where}: {fault}")
    return faults


def _most(view, claim) -> str | None:
    head, *named = claim.facts
    sums = view.word_weights(head)
    if not named or sums[named[0]] < max(sums) - 1e-12:
        return "the first word named is not the heaviest"
    if any(sums[a] < sums[b] - 1e-12 for a, b in zip(named, named[1:])):
        return "the words named are not heaviest first"
    words = view.source_words.words
    if any(words[w].text[:10] not in claim.said for w in named):
        return "a word counted is not the word said"
    return None


def _even(view, claim) -> str | None:
    head, low, high = claim.facts
    ratios = [view.number("even_ratio", (head, w)) for w in range(len(view.source_words.words))]
    if ratios[low] > min(ratios) + 1e-12 or ratios[high] < max(ratios) - 1e-12:
        return "not the words furthest below and above an even share"
    near = all(0.5 <= r <= 2.0 for r in ratios)
    if ("near evenly" in claim.said) != near or "draws most" in claim.said:
        return "says the spread is other than it is"
    return None


def _greedy(view, claim) -> str | None:
    step, = claim.facts
    written = view.written[step]
    top = max(p for _, p in written.top)
    if written.text != written.top[0][0] or written.top[0][1] < top:
        return "the token written is not its distribution's likeliest"
    return None


def _sink(view, claim) -> str | None:
    from ...attention_core.generation import SINK_SHARE

    named, = claim.facts
    if bool(named) != (view.mean_first_share() > SINK_SHARE) or \
            ("an attention sink" in claim.said) != bool(named):
        return "names a sink the shares do not make (or misses one)"
    return None


_CHECKS = {"most": _most, "even": _even, "greedy": _greedy, "sink": _sink}
