"""What a trace keeps of one layer's capture beyond its weights: the focus word's update
(what each token adds through W_O, W_O's bias, and the vector it becomes) and the rows of
the explained head's W_Q, W_K and W_V."""
from __future__ import annotations

import numpy as np

from . import bert
from .trace import kept_projection_rows

__all__ = ["focus_update", "projection_rows"]


def focus_update(cap, focus: int, out_map, norm, out_norm=None):
    """The focus word's update from one layer's capture: what each token adds to its
    attention output (T x D: weight x value through the head's slice of W_O, summed over
    every head), W_O's bias, and E' (the residual E + dE, layer-normed where the model
    norms it; a pre-norm model's residual stream x + dE, or x + norm(dE) where the model
    norms dE first: ``out_norm``, its own module)."""
    import torch

    w_o, b_o = out_map
    weights, v = cap.weights[0], cap.v[0]             # H x T x T, H x T x d_k
    H, T, d_k = v.shape
    # token j's share of each head's context for the focus, heads side by side as the
    # concatenation lays them, then through W_O: exactly the output less its bias, split by j
    parts = (weights[:, focus, :, None] * v).transpose(0, 1).reshape(T, H * d_k)
    contributions = parts @ w_o.T
    base = cap.residual if cap.residual is not None else cap.embeddings
    added = cap.output[0, focus]
    if out_norm is not None:
        added = out_norm(cap.output[:, focus:focus + 1])[0, 0]
    updated = added + base[0, focus]
    if norm is not None:
        weight, bias, eps = norm
        updated = torch.nn.functional.layer_norm(updated, updated.shape, weight, bias, eps)
    return contributions, b_o, updated


def projection_rows(maps, head: int, d_k: int):
    """The rows of one head's W_Q, W_K, W_V (and biases) that a trace keeps
    (:func:`.trace.kept_projection_rows`): (row indices, 3 x R x D float32, 3 x R float32).
    ``maps`` are the (weight, bias) pairs of the three projections over all heads (head h
    owns rows h*d_k ... h*d_k + d_k - 1)."""
    rows = kept_projection_rows(d_k)
    picked = [head * d_k + r for r in rows]
    w = np.stack([bert.to_numpy(weight[picked]) for weight, _ in maps])
    b = np.stack([bert.to_numpy(bias[picked]) for _, bias in maps])
    return rows, w, b
