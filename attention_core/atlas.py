"""The atlas: every layer's every head on one sentence, each tagged by the pattern its
weights show, measured (seed 001, §7.1: heads that fixate on punctuation or on a special
token are found by looking at all of them).

A head's shares are averages over its query rows (the sentence's own tokens, not the
special ones, and not the first token, which in a causal model can look only at itself):

- sink: the weight on special tokens and on the first token (BOS, [CLS], a decoder's
  first word: where heads park weight they have no use for);
- previous / next / self: the weight on the token just before, just after, the token itself;
- punctuation: the weight on punctuation tokens other than itself;
- content: the weight on content words other than itself;
- broad: how evenly a row spreads (its entropy over the keys it may see, as a share of
  the most it could be).

Every share is measured against what a head spreading each row evenly over the keys it
may see scores on the same sentence and mask (its ``baseline``: an even head puts 1/n on
each of n keys, so a sentence of few words gives "content" 0.6 by chance alone). A head
is tagged with the pattern whose share most exceeds its baseline, when that excess is
``ABOVE_CHANCE`` at least; a head with no pattern above chance (one whose rows spread
almost evenly among them: its "broad" share is reported, never a tag) is untagged
(``UNTAGGED``).
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

__all__ = ["ABOVE_CHANCE", "Atlas", "HeadPattern", "PATTERNS", "UNTAGGED", "cross_patterns_of",
           "even_weights", "head_pattern", "patterns_of", "punctuation_tokens"]

PATTERNS = ("sink", "previous", "next", "self", "punctuation", "content", "broad")
ABOVE_CHANCE = 0.15       # a pattern's share above an even head's, for a head to be tagged
UNTAGGED = "none"         # the tag of a head with no pattern above chance


@dataclass(frozen=True)
class HeadPattern:
    layer: int
    head: int
    tag: str                      # one of PATTERNS (not broad), or UNTAGGED
    share: float                  # the tagged pattern's share (untagged: the largest excess's)
    shares: dict                  # every pattern's share
    baseline: dict                # every pattern's share in an even head (the chance level)
    of: str = ""                  # the pattern ``share`` is of (the tag, when tagged)

    @property
    def chance(self) -> float:
        """The baseline of the pattern ``share`` is of."""
        return self.baseline[self.of or self.tag]

    def to_json(self) -> dict:
        return {"layer": self.layer, "head": self.head, "tag": self.tag,
                "share": round(self.share, 4), "pattern": self.of or self.tag,
                "baseline": round(self.chance, 4),
                "shares": {k: round(v, 4) for k, v in self.shares.items()},
                "baselines": {k: round(v, 4) for k, v in self.baseline.items()}}


@dataclass(frozen=True)
class Atlas:
    """Every head's weights on one sentence (L x H x T x T, float32) and their patterns, for
    the model's layers ``layers`` (all of them, or the one asked for)."""
    sentence: str
    model: str                    # as the screen names it
    tokens: tuple                 # the user's text of each token (display tokens)
    special: tuple
    weights: np.ndarray
    patterns: tuple               # a HeadPattern per layer and head, layer-major
    film_layer: int               # the head the film would explain
    film_head: int
    mask: str                     # the model's own mask: "none" or "causal", ...
    layers: tuple = ()            # the model's index of each layer of ``weights``
    # a cheaper attention asked for (``variants``): its name, and each head's weight kept
    # under it (L x H, the mean over rows of the weight its rows share with the real ones)
    variant: str = ""
    kept: np.ndarray | None = None
    # an encoder–decoder's kind of attention: the line said under the title instead of the
    # film's head (film_layer -1: none outlined), and the rows' name ("decoder layer")
    caption: str = ""
    row_name: str = "layer"
    key: str = ""                 # the patterns' key, where not every pattern can be

    def pattern(self, layer: int, head: int) -> HeadPattern:
        """The pattern of the model's ``layer``, ``head``."""
        return self.patterns[self.layers.index(layer) * self.weights.shape[1] + head]

    def kept_share(self, layer: int, head: int) -> float | None:
        """The weight the variant keeps of the model's ``layer``, ``head`` (None: none asked)."""
        return None if self.kept is None else float(self.kept[self.layers.index(layer), head])

    def to_json(self) -> dict:
        heads = [p.to_json() for p in self.patterns]
        if self.kept is not None:
            heads = [{**h, "kept": self.kept_share(p.layer, p.head)}
                     for h, p in zip(heads, self.patterns)]
        doc = {"sentence": self.sentence, "model": self.model, "tokens": list(self.tokens),
               "mask": self.mask, "film": {"layer": self.film_layer, "head": self.film_head},
               "heads": heads}
        return {**doc, "variant": self.variant} if self.variant else doc


def punctuation_tokens(tokens) -> np.ndarray:
    """Whether each token (its text as written) is punctuation alone."""
    return np.array([bool(t.strip()) and all(unicodedata.category(c).startswith("P")
                                             for c in t.strip()) for t in tokens])


def _shares(w: np.ndarray, special, content, punctuation) -> dict:
    """Every pattern's share of one head's weights (T x T, rows sum to 1)."""
    T = w.shape[0]
    special = np.asarray(special, dtype=bool)
    rows = [i for i in range(1, T) if not special[i]] or list(range(T))
    sink = special.copy()
    sink[0] = True

    def mean(values):
        return float(np.mean(values)) if len(values) else 0.0

    def others(i, kind):
        keep = np.asarray(kind, dtype=bool).copy()
        keep[i] = False
        return w[i, keep].sum()

    def spread(i):
        seen = w[i] > 0
        n = int(seen.sum())
        if n < 2:
            return 0.0
        p = w[i, seen]
        return float(-(p * np.log(p)).sum() / np.log(n))

    return {
        "sink": mean([w[i, sink].sum() for i in rows]),
        "previous": mean([w[i, i - 1] for i in rows if i >= 1]),
        "next": mean([w[i, i + 1] for i in rows if i + 1 < T]),
        "self": mean([w[i, i] for i in rows]),
        "punctuation": mean([others(i, punctuation) for i in rows]),
        "content": mean([others(i, content) for i in rows]),
        "broad": mean([spread(i) for i in rows]),
    }


def _cross_shares(w: np.ndarray, query_special, special, content, punctuation) -> dict:
    """The shares of one head of cross-attention (target x source, rows sum to 1): where
    the queries are another sentence's, the positional patterns (previous, next, itself)
    mean nothing, and the sink is the source's special tokens."""
    rows = [i for i in range(w.shape[0]) if not query_special[i]] or list(range(w.shape[0]))
    keys = {"sink": np.asarray(special, bool), "punctuation": np.asarray(punctuation, bool),
            "content": np.asarray(content, bool)}
    shares = {k: float(np.mean([w[i, keep].sum() for i in rows])) for k, keep in keys.items()}
    return {**shares, "previous": 0.0, "next": 0.0, "self": 0.0, "broad": 0.0}


def cross_patterns_of(weights: np.ndarray, query_special, special, content, punctuation,
                      layers=None) -> tuple:
    """A HeadPattern for every head of cross-attention weights (L x H x Q x K), against an
    even head's shares: sink (the source's special tokens), punctuation or content."""
    L, H, Q, K = weights.shape
    layers = list(range(L)) if layers is None else list(layers)
    baseline = _cross_shares(np.full((Q, K), 1.0 / K), query_special, special, content,
                             punctuation)
    out = []
    for n in range(L):
        for h in range(H):
            shares = _cross_shares(np.asarray(weights[n, h], np.float64), query_special,
                                   special, content, punctuation)
            excess = {k: shares[k] - baseline[k] for k in ("sink", "punctuation", "content")}
            best = max(excess, key=lambda k: (excess[k], -PATTERNS.index(k)))
            tag = best if excess[best] >= ABOVE_CHANCE else UNTAGGED
            out.append(HeadPattern(layers[n], h, tag, shares[best], shares, baseline, best))
    return tuple(out)


def even_weights(blocked: np.ndarray) -> np.ndarray:
    """The weights of a head that spreads each row evenly over the keys it may see."""
    seen = ~np.asarray(blocked, dtype=bool)
    return seen / np.maximum(seen.sum(axis=-1, keepdims=True), 1)


def head_pattern(weights: np.ndarray, layer: int, head: int, special, content,
                 punctuation, blocked=None, baseline: dict | None = None) -> HeadPattern:
    """The pattern of one head's weights (T x T, rows sum to 1), against an even head's
    under the mask ``blocked`` (T x T, True where a key is hidden; default: none)."""
    w = np.asarray(weights, dtype=np.float64)
    T = w.shape[0]
    if baseline is None:
        blocked = np.zeros((T, T), dtype=bool) if blocked is None else blocked
        baseline = _shares(even_weights(blocked), special, content, punctuation)
    shares = _shares(w, special, content, punctuation)
    excess = {k: shares[k] - baseline[k] for k in PATTERNS if k != "broad"}
    best = max(excess, key=lambda k: (excess[k], -PATTERNS.index(k)))
    tag = best if excess[best] >= ABOVE_CHANCE else UNTAGGED
    return HeadPattern(layer, head, tag, shares[best], shares, baseline, best)


def patterns_of(weights: np.ndarray, special, content, punctuation, layers=None,
                blocked=None) -> tuple:
    """A HeadPattern for every head of ``weights`` (L x H x T x T), layer-major; ``layers``
    the model's index of each (default 0 to L - 1); ``blocked`` the mask of each layer
    (L x T x T, default none), which the even head a pattern is measured against obeys."""
    L, H, T = weights.shape[0], weights.shape[1], weights.shape[-1]
    layers = list(range(L)) if layers is None else list(layers)
    blocked = np.zeros((L, T, T), dtype=bool) if blocked is None else np.asarray(blocked, bool)
    out = []
    for n in range(L):
        baseline = _shares(even_weights(blocked[n]), special, content, punctuation)
        out += [head_pattern(weights[n, h], layers[n], h, special, content, punctuation,
                             baseline=baseline) for h in range(H)]
    return tuple(out)
