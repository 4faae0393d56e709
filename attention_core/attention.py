"""Scaled dot-product attention, step by step: masks, scaled scores, the softmax, the
weighted sum of values, and the same softmax in numpy for quantities derived from a trace.

The one place the softmax is computed. Mask convention everywhere: True means "this query
may NOT look at that key"; a masked score is -inf, so its weight is exactly 0.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .errors import InputError

__all__ = ["MASK_HELP", "MaskSpec", "attend", "attention", "build_mask", "heads_blocked",
           "masked_softmax", "padding_blocked", "parse_mask", "resolve_mask", "scaled_scores",
           "topk_blocked"]

MASK_HELP = ("use none, causal, window:K (K positions on each side), "
             "global:TOKENS+window:K (TOKENS: token positions or texts, comma-separated, that "
             "see and are seen by all) or topk:K (each query keeps its K largest scores)")


# ---- masks ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MaskSpec:
    kind: str            # "none" | "causal" | "window" | "global+window" | "topk"
    window: int = 0      # for "window", "global+window": positions each side a query sees
    top: int = 0         # for "topk": how many keys each query keeps
    # for "global+window": the tokens that see and are seen by all, as given (positions or
    # texts) until resolved against a sentence's tokens (:func:`resolve_mask`), then positions
    global_tokens: tuple = ()

    @property
    def name(self) -> str:
        if self.kind == "window":
            return f"window:{self.window}"
        if self.kind == "global+window":
            named = ",".join(str(t) for t in self.global_tokens)
            return f"global:{named}+window:{self.window}"
        return f"topk:{self.top}" if self.kind == "topk" else self.kind

    @property
    def depends_on_scores(self) -> bool:
        """Whether which keys it blocks depends on the scores (top-k), not on positions."""
        return self.kind == "topk"


def parse_mask(spec: str | MaskSpec | None) -> MaskSpec:
    """'none', 'causal', 'window:K', 'global:TOKENS+window:K' or 'topk:K' (K >= 1)."""
    if isinstance(spec, MaskSpec):
        return spec
    raw = (spec or "none").strip()
    text = raw.lower()
    if text in ("none", "causal"):
        return MaskSpec(text)
    match = re.fullmatch(r"(window|topk):(\d+)", text)
    if match and int(match.group(2)) > 0:
        count = int(match.group(2))
        return MaskSpec("window", window=count) if match.group(1) == "window" else \
            MaskSpec("topk", top=count)
    match = re.fullmatch(r"global:(.+)\+window:(\d+)", raw, flags=re.IGNORECASE)
    if match and int(match.group(2)) > 0:
        named = tuple(t.strip() for t in match.group(1).split(","))
        if all(named):
            return MaskSpec("global+window", window=int(match.group(2)),
                            global_tokens=tuple(int(t) if t.isdigit() else t for t in named))
    raise InputError(f"--mask {spec!r} is not a mask; {MASK_HELP}.")


def resolve_mask(spec: MaskSpec, tokens: list[str], *also: list[str]) -> MaskSpec:
    """The mask with its global tokens as positions in ``tokens`` (the tokens' texts, as
    shown; ``also``: other texts of the same tokens, such as the tokenizer's own): a
    position is kept, a text names every token that is it (case aside)."""
    if spec.kind != "global+window":
        return spec
    texts = list(zip(tokens, *also))
    positions = set()
    for named in spec.global_tokens:
        if isinstance(named, int):
            if named >= len(tokens):
                raise InputError(f"--mask {spec.name}: position {named} is past the sentence's "
                                 f"{len(tokens)} tokens (0 to {len(tokens) - 1}).")
            positions.add(named)
            continue
        found = [j for j, names in enumerate(texts)
                 if any(t.strip().lower() == named.lower() for t in names)]
        if not found:
            raise InputError(f"--mask {spec.name}: no token is {named!r}; name a token as "
                             f"`inspect` shows it ({', '.join(tokens[:8])}…) or its position.")
        positions.update(found)
    return MaskSpec("global+window", window=spec.window, global_tokens=tuple(sorted(positions)))


def build_mask(spec: MaskSpec | str, num_tokens: int) -> np.ndarray:
    """T x T boolean mask for one sequence (True = blocked): the part of the mask that
    positions decide (a top-k mask blocks by scores: :func:`topk_blocked`)."""
    spec = parse_mask(spec)
    i = np.arange(num_tokens)[:, None]
    j = np.arange(num_tokens)[None, :]
    if spec.kind in ("none", "topk"):
        return np.zeros((num_tokens, num_tokens), dtype=bool)
    if spec.kind == "causal":
        return j > i
    blocked = np.abs(i - j) > spec.window
    if spec.kind == "global+window":
        if not all(isinstance(g, int) for g in spec.global_tokens):
            raise ValueError("a global mask's tokens must be resolved to positions first")
        globals_ = np.zeros(num_tokens, dtype=bool)
        globals_[[g for g in spec.global_tokens if g < num_tokens]] = True
        blocked &= ~(globals_[:, None] | globals_[None, :])
    return blocked


def topk_blocked(scores, own_blocked, top: int) -> np.ndarray:
    """Top-k attention's mask: for each query (last axis but one), every key but the
    ``top`` with the largest scores among those ``own_blocked`` (broadcast) leaves is
    blocked; ties go to the earlier key. The same function makes the model's rerun and
    any re-derivation from a trace, so both block the same keys."""
    x = np.where(np.asarray(own_blocked, dtype=bool), -np.inf, np.asarray(scores, np.float64))
    order = np.argsort(-x, axis=-1, kind="stable")
    rank = np.argsort(order, axis=-1, kind="stable")       # each key's place in that order
    return (rank >= top) | np.isneginf(x)


def padding_blocked(lengths, num_positions: int, device):
    """B x T x T torch mask: keys past each sequence's real length are blocked."""
    import torch

    positions = torch.arange(num_positions, device=device)
    pad = positions[None, :] >= torch.as_tensor(list(lengths), device=device)[:, None]
    return pad[:, None, :].expand(len(lengths), num_positions, num_positions)


# ---- attention in torch (the model's path) -------------------------------------------------
def scaled_scores(q, k):
    """QK^T / sqrt(d_k) for B x H x T x d_k inputs."""
    import torch

    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])


def heads_blocked(blocked):
    """A B x T x T mask (every head's) or B x H x T x T (each head its own: top-k) as
    B x H|1 x T x T, broadcast over the heads' scores."""
    return blocked[:, None] if blocked.dim() == 3 else blocked


def attend(scores, v, blocked):
    """Softmax of the masked scores and the weighted sum of values.

    blocked: broadcastable to scores, True = masked (set to -inf, so its weight is exactly 0).
    The softmax runs in float32 even for half-precision models, for stable weights.
    """
    import torch

    masked = scores.masked_fill(blocked, float("-inf")) if blocked is not None else scores
    weights = torch.softmax(masked.float(), dim=-1).to(v.dtype)
    return weights, torch.matmul(weights, v)


def attention(q, k, v, blocked):
    """Scaled dot-product attention with every step kept: (scores, weights, context)."""
    scores = scaled_scores(q, k)
    weights, context = attend(scores, v, blocked)
    return scores, weights, context


# ---- the same softmax in numpy (quantities derived from a saved trace) ----------------------
def masked_softmax(scores, blocked=None) -> np.ndarray:
    """Softmax of a row (or rows, last axis) of scores in float64, blocked entries -inf:
    the weights a mask leaves, renormalised over what is left."""
    x = np.asarray(scores, dtype=np.float64)
    if blocked is not None:          # broadcast: one mask for the rows of every head
        x = np.where(np.asarray(blocked, dtype=bool), -np.inf, x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
