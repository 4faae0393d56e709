"""Attention masks. Convention everywhere: True means "this query may NOT look at that key"."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .errors import InputError

MASK_HELP = "use none, causal or window:K (K a positive number of positions on each side)"


@dataclass(frozen=True)
class MaskSpec:
    kind: str            # "none" | "causal" | "window"
    window: int = 0      # for "window": how many positions each side a query may see

    @property
    def name(self) -> str:
        return f"window:{self.window}" if self.kind == "window" else self.kind


def parse_mask(spec: str | MaskSpec | None) -> MaskSpec:
    if isinstance(spec, MaskSpec):
        return spec
    text = (spec or "none").strip().lower()
    if text in ("none", "causal"):
        return MaskSpec(text)
    match = re.fullmatch(r"window:(\d+)", text)
    if match and int(match.group(1)) > 0:
        return MaskSpec("window", int(match.group(1)))
    raise InputError(f"--mask {spec!r} is not a mask; {MASK_HELP}.")


def build_mask(spec: MaskSpec, num_tokens: int) -> np.ndarray:
    """T x T boolean mask for one sequence (True = blocked)."""
    i = np.arange(num_tokens)[:, None]
    j = np.arange(num_tokens)[None, :]
    if spec.kind == "none":
        return np.zeros((num_tokens, num_tokens), dtype=bool)
    if spec.kind == "causal":
        return j > i
    return np.abs(i - j) > spec.window


def padding_mask(lengths: list[int], num_positions: int) -> np.ndarray:
    """B x 1 x T key-padding mask for a batch: keys past each sequence's length are blocked."""
    keys = np.arange(num_positions)[None, :]
    return (keys >= np.asarray(lengths)[:, None])[:, None, :]
