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

__all__ = ["MASK_HELP", "MaskSpec", "attend", "attention", "build_mask", "masked_softmax",
           "padding_blocked", "parse_mask", "scaled_scores"]

MASK_HELP = "use none, causal or window:K (K a positive number of positions on each side)"


# ---- masks ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MaskSpec:
    kind: str            # "none" | "causal" | "window"
    window: int = 0      # for "window": how many positions each side a query may see

    @property
    def name(self) -> str:
        return f"window:{self.window}" if self.kind == "window" else self.kind


def parse_mask(spec: str | MaskSpec | None) -> MaskSpec:
    """'none', 'causal' or 'window:K' (K >= 1)."""
    if isinstance(spec, MaskSpec):
        return spec
    text = (spec or "none").strip().lower()
    if text in ("none", "causal"):
        return MaskSpec(text)
    match = re.fullmatch(r"window:(\d+)", text)
    if match and int(match.group(1)) > 0:
        return MaskSpec("window", int(match.group(1)))
    raise InputError(f"--mask {spec!r} is not a mask; {MASK_HELP}.")


def build_mask(spec: MaskSpec | str, num_tokens: int) -> np.ndarray:
    """T x T boolean mask for one sequence (True = blocked)."""
    spec = parse_mask(spec)
    i = np.arange(num_tokens)[:, None]
    j = np.arange(num_tokens)[None, :]
    if spec.kind == "none":
        return np.zeros((num_tokens, num_tokens), dtype=bool)
    if spec.kind == "causal":
        return j > i
    return np.abs(i - j) > spec.window


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
