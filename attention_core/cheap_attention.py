"""The seeds' cheaper attentions, each computed as cheaply as it is meant to be (torch, one
sequence: H x T x d), to measure what it costs as the sentence grows (bench/attention_cost.py).

``full`` is the explicit path (QKᵀ/√d, softmax, times V: T x T per head), ``fused`` PyTorch's
``scaled_dot_product_attention`` (the same numbers, the kernel fused, as seed 000's "算子融合"
advises). ``window`` reads the 2w + 1 keys around each query, in dense blocks of w queries (3w keys
each), and never makes the T x T scores; ``global_window`` adds ``g`` global tokens (the first) that every query reads and
that read every key (Longformer); ``topk`` keeps each query's k largest scores (it still
makes every score: it saves the weighted sum, not the product); ``linformer`` projects the
keys and values to R rows (a fixed projection stands in for the learned one: the cost is
the same). The masked variants equal full attention under :func:`.attention.build_mask`'s
and :func:`.attention.topk_blocked`'s masks (tests check it).
"""
from __future__ import annotations

import math

__all__ = ["VARIANTS", "full", "fused", "global_window", "linformer", "topk", "window"]


def full(q, k, v):
    import torch

    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def fused(q, k, v):
    import torch.nn.functional as F

    return F.scaled_dot_product_attention(q[None], k[None], v[None])[0]


def _blocks(q, k, v, w: int):
    """The window's dense blocks: the queries in blocks of ``w`` (H x n x w x d, zeros past
    the end) and, for each, the keys and values it may read, w before to w after
    (H x n x 3w x d, zeros past the ends), and the keys' positions (n x 3w): each block a
    small matrix product, never the T x T scores."""
    import torch
    import torch.nn.functional as F

    H, T, d = q.shape
    n = -(-T // w)
    tail = n * w - T
    queries = F.pad(q, (0, 0, 0, tail)).view(H, n, w, d)

    def around(x):
        return F.pad(x, (0, 0, w, w + tail)).unfold(1, 3 * w, w).transpose(-2, -1)

    where = torch.arange(n, device=q.device)[:, None] * w - w \
        + torch.arange(3 * w, device=q.device)[None]
    return queries, around(k), around(v), where


def _windowed(q, k, v, w: int, g: int):
    """Window attention (``g`` = 0) or its Longformer form: the first ``g`` tokens are read
    by every query (as global, not again in its window) and read every key."""
    import torch

    H, T, d = q.shape
    scale = 1.0 / math.sqrt(d)
    queries, keys, values, where = _blocks(q, k, v, w)
    n = queries.shape[1]
    rows = torch.arange(n * w, device=q.device).view(n, w)
    # a key is out of reach past the window, past the sentence, or (as a global) read apart
    off = ((rows[..., None] - where[:, None]).abs() > w) | (where[:, None] < g) \
        | (where[:, None] >= T)
    band = (queries @ keys.transpose(-2, -1)) * scale                      # H x n x w x 3w
    band = band.masked_fill(off, float("-inf"))
    if not g:
        weights = torch.softmax(band, dim=-1)
        return (weights @ values).reshape(H, n * w, d)[:, :T]
    to_global = (queries @ k[:, :g].transpose(-2, -1)[:, None]) * scale    # H x n x w x g
    weights = torch.softmax(torch.cat([to_global, band], dim=-1), dim=-1)
    out = (weights[..., :g] @ v[:, None, :g] + weights[..., g:] @ values).reshape(H, n * w, d)
    out = out[:, :T].clone()
    out[:, :g] = full(q[:, :g], k, v)                    # the global tokens read everything
    return out


def window(q, k, v, w: int):
    """Sliding-window attention: query i reads keys i - w … i + w."""
    return _windowed(q, k, v, w, 0)


def global_window(q, k, v, w: int, g: int):
    """Longformer's pattern: the first ``g`` tokens read and are read by every token; the
    others read their window."""
    return _windowed(q, k, v, w, g)


def topk(q, k, v, keep: int):
    """Each query keeps its ``keep`` largest scores (ties: as torch.topk orders them)."""
    import torch

    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    best, which = scores.topk(min(keep, scores.shape[-1]), dim=-1)      # H x T x k
    weights = torch.softmax(best, dim=-1)
    H, T, d = v.shape
    chosen = torch.gather(v[:, None].expand(H, T, T, d), 2,
                          which[..., None].expand(*which.shape, d))    # H x T x k x d
    return torch.einsum("htk,htkd->htd", weights, chosen)


def linformer(q, k, v, projection):
    """Linformer: the keys and values projected to R rows (``projection``: R x T) first."""
    import torch

    k_r, v_r = projection @ k, projection @ v                             # H x R x d
    scores = q @ k_r.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v_r


VARIANTS = ("full", "fused", "window", "global_window", "topk", "linformer")
