"""The parts of attention, read from a model that transformers runs (:mod:`.hf_models`):
each head's Q, K and V as the model's attention was given them, the scores as the model
makes them (its own scale, a soft cap), W_Q, W_K, W_V and W_O as it keeps them (fused
weights cut by rule, a residual scale counted in W_O), its norms around attention, its
position table and the layers that use no positions. Where a family keeps each part is
its row of facts (:mod:`.model_families`). ``files`` is always an
:class:`.hf_models.HFModelFiles`, ``watch`` a :class:`.hf_models.LayerWatch`."""
from __future__ import annotations

import math
from .errors import InputError

__all__ = ["check_scaling", "heads_and_mask", "layer_module", "model_scores", "module_at",
           "out_map", "output_norm", "own_scale", "position_table", "post_norm", "qkv_maps",
           "residual_scale", "unpositioned_layers"]


def module_at(root, path: str):
    for part in path.split("."):
        root = getattr(root, part)
    return root


def unpositioned_layers(files) -> frozenset:
    """The layers that turn neither query nor key (SmolLM3's NoPE layers: its
    ``no_rope_layers`` lists 1 where a layer turns them)."""
    name = files.family.rope_layers
    flags = list(getattr(files.config, name, None) or []) if name else []
    return frozenset(n for n, turns in enumerate(flags) if not turns)


def layer_module(layers: list, family, n: int):
    """Layer ``n``'s module: its own, or the one every layer shares (ALBERT)."""
    return layers[0] if family.shared_layers else layers[n]


def heads_and_mask(files, watch):
    """A watched call's Q, K, V with a key/value head per query head (grouped-query heads
    share one: it is repeated), and its mask as B x T x T booleans (True = blocked)."""
    import torch

    d_k = int(watch.q.shape[-1])
    q = watch.q
    if files.family.query_pre_scaled:    # q·k/√d_k of the query before its scaling
        check_scaling(watch.scaling * d_k ** -0.5, d_k, files.what)
        q = q * d_k ** 0.5
    elif files.family.scale_setting is None:
        check_scaling(watch.scaling, d_k, files.what)
    groups = files.num_heads // files.num_kv_heads
    k = watch.k.repeat_interleave(groups, dim=1)
    v = watch.v.repeat_interleave(groups, dim=1)
    B, _, T, _ = watch.q.shape
    blocked = torch.zeros((B, T, T), dtype=torch.bool, device=watch.q.device)
    if watch.mask is not None:          # additive: -inf (or the least float) where blocked
        blocked = blocked | (watch.mask[:, 0, :, :T] < -1.0)
    return q, k, v, blocked


def own_scale(files, watch) -> float | None:
    """The number the model multiplies q·k by where its family sets its own (Gemma's
    query_pre_attn_scalar, Granite's attention_multiplier) and it is not 1/√d_k; else
    None: the scores are q·k/√d_k."""
    d_k = int(watch.q.shape[-1])
    if files.family.scale_setting is None or math.isclose(watch.scaling, d_k ** -0.5,
                                                          rel_tol=1e-6):
        return None
    if not (math.isfinite(watch.scaling) and watch.scaling > 0):
        raise InputError(f"{files.what}: its score scale {watch.scaling:g} "
                         f"({files.family.scale_setting}) is not a positive number; use the "
                         "model's own config.json.")
    return float(watch.scaling)


def model_scores(files, watch, q, k):
    """The scores the model's softmax takes (before the mask), from the heads' q and k
    (:func:`heads_and_mask`): q·k/√d_k or times its own scale, soft-capped where the
    model caps them (cap·tanh(s/cap), Gemma 2), plus the terms a family adds of its own
    (``Family.score_terms``: MPNet's relative position bias)."""
    import torch

    from .attention import scaled_scores

    scale = own_scale(files, watch)
    scores = scaled_scores(q, k) if scale is None else \
        torch.matmul(q, k.transpose(-2, -1)) * scale
    if watch.softcap:
        scores = torch.tanh(scores / watch.softcap) * watch.softcap
    if watch.terms is not None:          # a family's own terms (MPNet's position bias)
        scores = scores + watch.terms.sum(0).to(scores.dtype)
    return scores


def _fused(files) -> bool:
    return files.family.projections == ("c_attn",)     # GPT-2's Conv1D: weight is (in, out)


def _projection_weights(files, attention) -> list:
    """(weight (out, in), bias) of W_Q, W_K, W_V as the model keeps them: three linear
    maps, or one fused map whose rows are the queries', then the keys', then the values'
    (Phi-3's qkv_proj), cut by the heads' sizes; a missing bias is zeros."""
    import torch

    def with_bias(linear):
        weight = linear.weight
        return weight, (linear.bias if linear.bias is not None
                        else torch.zeros_like(weight[:, 0]))

    if len(files.family.projections) == 3:
        return [with_bias(getattr(attention, name)) for name in files.family.projections]
    weight, bias = with_bias(getattr(attention, files.family.projections[0]))
    d_k = weight.shape[0] // (files.num_heads + 2 * files.num_kv_heads)
    if files.family.fused_grouped and getattr(files.config, "new_decoder_architecture", False):
        # group by group: each key/value head's queries, then its key, then its value
        group = files.num_heads // files.num_kv_heads
        rows = weight.view(files.num_kv_heads, group + 2, d_k, -1)
        biases = bias.view(files.num_kv_heads, group + 2, d_k)
        return [(rows[:, part].reshape(-1, rows.shape[-1]), biases[:, part].reshape(-1))
                for part in (slice(0, group), group, group + 1)]
    if files.family.fused_per_head and weight.shape[0] == 3 * files.num_heads * d_k:
        # head by head: rows [q, k, v] of d_k each, per head
        rows = weight.view(files.num_heads, 3, d_k, -1)
        biases = bias.view(files.num_heads, 3, d_k)
        return [(rows[:, n].reshape(files.num_heads * d_k, -1), biases[:, n].reshape(-1))
                for n in range(3)]
    sizes = [files.num_heads * d_k, files.num_kv_heads * d_k, files.num_kv_heads * d_k]
    if sum(sizes) != weight.shape[0]:
        raise InputError(f"{files.what}: its fused query, key and value weight has "
                         f"{weight.shape[0]} rows, not a query, a key and a value of "
                         f"{files.num_heads}, {files.num_kv_heads} and {files.num_kv_heads} "
                         "heads; use the model's own config.json.")
    return list(zip(weight.split(sizes), bias.split(sizes)))


def out_map(files, layer):
    """W_O and its bias (zeros where the model has none), weight as (out, in)."""
    import torch

    out = module_at(layer, files.family.out)
    weight = out.weight.T if _fused(files) else out.weight
    bias = out.bias if out.bias is not None else torch.zeros_like(weight[:, 0])
    scale = residual_scale(files)
    return (weight, bias) if scale is None else (weight * scale, bias * scale)


def residual_scale(files) -> float | None:
    """The number ΔE is multiplied by before the residual adds it (Granite's
    residual_multiplier), or None: counted here as part of W_O."""
    name = files.family.residual_scale
    scale = None if name is None else float(getattr(files.config, name, 1.0))
    return None if scale is None or scale == 1.0 else scale


def output_norm(files, layer):
    """The model's own norm of ΔE before the residual adds it (Gemma 2 and 3, OLMo 2), a
    module to call, or None."""
    return None if files.family.output_norm is None else module_at(layer,
                                                                    files.family.output_norm)


def qkv_maps(files, layer) -> list:
    """(weight, bias) of W_Q, W_K, W_V over all query heads (head h owns rows h*d_k ...):
    a key/value head's rows repeated for each query head that reads it."""
    attention = module_at(layer, files.family.attention)
    if _fused(files):
        weight, bias = attention.c_attn.weight.T, attention.c_attn.bias
        d = weight.shape[0] // 3
        return [(weight[n * d:(n + 1) * d], bias[n * d:(n + 1) * d]) for n in range(3)]
    groups = files.num_heads // files.num_kv_heads
    pairs = []
    for role, (weight, bias) in enumerate(_projection_weights(files, attention)):
        if role and groups > 1:
            d_k = weight.shape[0] // files.num_kv_heads
            weight = weight.view(files.num_kv_heads, d_k, -1).repeat_interleave(
                groups, dim=0).reshape(files.num_heads * d_k, -1)
            bias = bias.view(files.num_kv_heads, d_k).repeat_interleave(groups, dim=0).reshape(-1)
        pairs.append((weight, bias))
    return pairs


def post_norm(files, layer):
    """(weight, bias, eps) of the norm of E + dE right after attention, or None (pre-norm)."""
    if files.family.post_norm is None:
        return None
    norm = module_at(layer, files.family.post_norm)
    return norm.weight, norm.bias, float(norm.eps)


def position_table(model, files, count: int):
    """The learned position vectors of the first ``count`` positions, as the model adds
    them; None for a rotary model, one whose positions enter only its score terms
    (DeBERTa-v3), or where they live in a smaller space (ELECTRA's)."""
    if files.family.positions is None:          # rotary, or positions in the score terms
        return None
    positions = module_at(model, files.family.positions)
    table = positions.weight
    if table.shape[1] != files.d_model:
        return None
    first = int(getattr(positions, "offset", 0))     # OPT's table starts 2 rows in
    if files.family.positions_after_pad:    # RoBERTa counts positions from pad + 1
        first = int(module_at(model, "embeddings").padding_idx) + 1
    return table[first:first + min(count, int(table.shape[0]) - first)]


def check_scaling(scaling: float, d_k: int, what: str) -> None:
    if not math.isclose(scaling, d_k ** -0.5, rel_tol=1e-6):
        raise InputError(f"{what} scales its scores by {scaling:.4g}, not 1/sqrt(d_k) = "
                         f"{d_k ** -0.5:.4g}; the film's formula would not be its own, so this "
                         "model is not supported.")
