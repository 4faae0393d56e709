"""A minimal pair's noise floor: how much the focus word's weights move between A and a
pair that changes nothing the question is about. Random pairs of the same length are made
from A itself (two of its other words swapped, seeded), compared as the pair is (the same
model, layer, heads and focus word), and the largest change of each is kept: the pair's
own largest change then reads as inside or outside what any such pair moves."""
from __future__ import annotations

import dataclasses
import random

import numpy as np

from .errors import InputError

__all__ = ["PAIRS", "largest_change", "pair_noise"]

PAIRS = 12               # random pairs measured
SEED = 0


def largest_change(comparison, slot: int = 0) -> float:
    """The largest change (B minus A, either sign) of the focus word's weight on a word of
    both sentences, the focus's own word aside."""
    changes = [abs(comparison.change(p, slot)) for p in comparison.pairs
               if not p.changed and p is not comparison.focus_pair]
    return float(max(changes, default=0.0))


def pair_noise(req_a, comparison) -> dict | None:
    """The largest change of each of PAIRS random pairs of A (two of its other words
    swapped): their median and 90th percentile, and where the pair's own falls; None
    where A has too few words to swap."""
    from .api import trace_for
    from .compare import compare_sentences

    a = comparison.a
    focus = comparison.focus_pair.text
    words = a.sentence.split()
    movable = [n for n, w in enumerate(words) if focus.lower() not in w.lower()]
    swaps = [(m, n) for i, m in enumerate(movable) for n in movable[i + 1:]
             if words[m] != words[n]]
    if not swaps:
        return None
    random.Random(SEED).shuffle(swaps)
    fixed = dataclasses.replace(req_a, focus=focus, layer=int(a.layer),
                                heads=",".join(str(h) for h in a.heads))
    sizes = []
    for m, n in swaps[:PAIRS]:
        swapped = list(words)
        swapped[m], swapped[n] = swapped[n], swapped[m]
        try:
            other = compare_sentences(fixed, " ".join(swapped),
                                      compute=lambda req: a if req is fixed else trace_for(req))
        except InputError:          # a swap that moves the focus word's pieces: not a pair
            continue
        sizes.append(largest_change(other))
    if not sizes:
        return None
    own = largest_change(comparison)
    median, p90 = float(np.median(sizes)), float(np.percentile(sizes, 90))
    return {"pairs": len(sizes), "median": median, "p90": p90, "largest_change": own,
            "where": "above" if own > p90 else "within" if own >= median else "below"}
