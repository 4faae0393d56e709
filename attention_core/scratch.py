"""The seed article's MultiHeadAttention, with its bugs fixed, for teaching head counts and masks.

Fixed from seed 000: ``_split_heads``/``_combine_heads`` used ``batch_size`` (a local of
``forward``) and ``self.d_model`` (never stored) — both now come from the tensor and the
module; the divisibility check is a user error raised before anything runs, not an assert
(which ``python -O`` strips); the mask convention is explicit (True = blocked) and masked
positions are set to -inf so their weight is exactly 0, not merely tiny (-1e9).
"""
from __future__ import annotations

import math

from .errors import InputError

__all__ = ["build_module", "check_shape", "seeded_input_projection", "seeded_module",
           "sinusoidal_positions"]


def check_shape(d_model: int, num_heads: int) -> None:
    if num_heads < 1 or d_model < 1:
        raise InputError(f"--d-model {d_model} and --num-heads {num_heads} must be positive.")
    if d_model % num_heads:
        divisors = [n for n in range(1, min(d_model, 64) + 1) if d_model % n == 0]
        raise InputError(f"--num-heads {num_heads} does not divide --d-model {d_model}; "
                         f"choose a divisor such as {', '.join(map(str, divisors[-6:]))}.")


def build_module(d_model: int = 512, num_heads: int = 8, d_head: int | None = None):
    """Return a MultiHeadAttention (defined here so importing this file needs no torch).

    ``d_head`` (default d_model / num_heads) lets the heads' total width differ from
    d_model, as seed 001's balance asks (24 heads of 21 dimensions at d_model 512): Q, K
    and V are then num_heads x d_head wide and the output map takes them back to d_model.
    """
    import torch
    import torch.nn as nn

    from .attention import attention

    if d_head is None:
        check_shape(d_model, num_heads)
        d_head = d_model // num_heads

    class MultiHeadAttention(nn.Module):
        def __init__(self, d_model: int, num_heads: int, d_head: int):
            super().__init__()
            self.d_model = d_model
            self.num_heads = num_heads
            self.d_k = d_head
            self.inner = num_heads * d_head
            # one fused layer makes Q, K and V at once (the seed's efficiency choice)
            self.qkv_proj = nn.Linear(d_model, 3 * self.inner)
            self.out_proj = nn.Linear(self.inner, d_model)

        def forward(self, x: torch.Tensor, blocked: torch.Tensor | None = None,
                    return_details: bool = False):
            """x: B x T x d_model; blocked: broadcastable to B x H x T x T, True = masked."""
            q, k, v = self.qkv_proj(x).chunk(3, dim=-1)
            q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
            scores, weights, context = attention(q, k, v, blocked)
            out = self.out_proj(self._combine_heads(context))
            if return_details:
                return out, {"q": q, "k": k, "v": v, "scores": scores,
                             "weights": weights, "context": context}
            return out

        def _split_heads(self, t: torch.Tensor) -> torch.Tensor:
            batch_size, seq_len, _ = t.shape
            return t.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)

        def _combine_heads(self, t: torch.Tensor) -> torch.Tensor:
            batch_size, _, seq_len, _ = t.shape
            return t.transpose(1, 2).contiguous().view(batch_size, seq_len, self.inner)

    return MultiHeadAttention(d_model, num_heads, d_head)


def seeded_module(d_model: int, num_heads: int, seed: int, device, dtype):
    """The module with weights drawn from a seeded generator (same seed, same weights)."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        module = build_module(d_model, num_heads)
    return module.to(device=device, dtype=dtype).eval()


def sinusoidal_positions(count: int, d_model: int, device=None, dtype=None):
    """The position vectors of "Attention Is All You Need" (Vaswani et al. 2017, 3.5),
    count x d_model: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...)
    of the same angle. The seed's module is attention alone; its input adds these."""
    import torch

    pos = torch.arange(count, dtype=torch.float64)[:, None]
    pair = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / torch.pow(10000.0, pair / d_model)
    table = torch.zeros(count, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, :d_model // 2])
    return table.to(device=device, dtype=dtype or torch.float32)


def seeded_input_projection(d_in: int, d_model: int, seed: int, device, dtype):
    """A fixed random map from the MiniLM embedding space (d_in) to d_model: the scratch
    model's input vectors are MiniLM's real word embeddings seen through it, plus the
    sine and cosine positions (:func:`sinusoidal_positions`)."""
    import torch

    gen = torch.Generator().manual_seed(10_000 + seed)
    proj = torch.randn(d_in, d_model, generator=gen) / math.sqrt(d_in)
    return proj.to(device=device, dtype=dtype)
