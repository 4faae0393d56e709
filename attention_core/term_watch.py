"""The families whose attention adds terms of its own to every score and runs outside
transformers' attention interface (``Family.score_terms``): MPNet's relative position bias,
DeBERTa-v2's (and v3's) disentangled content-to-position and position-to-content terms.
Each layer's attention module is watched by a hook: its query, key and value made again by
its own maps from what it read, and each term taken as the model made it, kept apart so
the film can draw the terms and their sum; the weights recomputed from them are checked
against the module's own, as every family's are (:mod:`.model_kinds`).
"""
from __future__ import annotations

import contextlib

from .errors import InputError
from .layer_watch import LayerWatch

__all__ = ["values_zeroed", "watched_call"]


def _argument(args, kwargs, n: int, name: str):
    return args[n] if len(args) > n else kwargs.get(name)


def _heads(x, heads: int):
    """B x T x (H d) as B x H x T x d."""
    B, T, _ = x.shape
    return x.view(B, T, heads, -1).transpose(1, 2)


def _mpnet(module, args, kwargs, output):
    """MPNetSelfAttention: softmax(QKᵀ/√d_k + B + mask), B the relative position bias its
    encoder computed once for every layer (B x H x T x T, or broadcast)."""
    hidden = _argument(args, kwargs, 0, "hidden_states")
    mask = _argument(args, kwargs, 1, "attention_mask")
    bias = _argument(args, kwargs, 2, "position_bias")
    heads = int(module.num_attention_heads)
    q, k, v = (_heads(getattr(module, name)(hidden), heads) for name in ("q", "k", "v"))
    B, H, T, _ = q.shape
    if bias is None:
        raise InputError("this MPNet's attention was given no relative position bias; its "
                         "layout is not supported.")
    return LayerWatch(module, hidden, None, q, k, v, mask, q.shape[-1] ** -0.5, output[1],
                      terms=bias.expand(B, H, T, T)[None], term_names=("relative position bias",))


# DeBERTa's terms, by its own names (config pos_att_type), in the order it adds them
DEBERTA_TERMS = {"c2p": "content-to-position term", "p2c": "position-to-content term"}


def _deberta(module, args, kwargs, output):
    """DisentangledSelfAttention: softmax(QKᵀ/√(d·s) + c2p + p2c + mask), s = 1 + the number
    of position terms; each term made by the module's own code, one at a time."""
    import torch

    hidden = _argument(args, kwargs, 0, "hidden_states")
    allowed = _argument(args, kwargs, 1, "attention_mask")
    if kwargs.get("query_states") is not None or not module.relative_attention:
        raise InputError("this DeBERTa's attention reads other queries or no relative "
                         "positions; its layout is not supported.")
    heads = int(module.num_attention_heads)
    q, k, v = (_heads(getattr(module, name)(hidden), heads)
               for name in ("query_proj", "key_proj", "value_proj"))
    B, H, T, d = q.shape
    kinds = [kind for kind in DEBERTA_TERMS if kind in module.pos_att_type]
    factor = 1 + len(kinds)
    flat_q, flat_k = (x.reshape(B * H, T, d) for x in (q, k))
    rel = module.pos_dropout(kwargs.get("rel_embeddings"))
    own = module.pos_att_type
    terms = []
    try:
        for kind in kinds:                  # the module's code, told of one term at a time
            module.pos_att_type = [kind]
            terms.append(module.disentangled_attention_bias(
                flat_q, flat_k, kwargs.get("relative_pos"), rel, factor).view(B, H, T, T))
    finally:
        module.pos_att_type = own
    # its mask says where a query may look (1); as the others', additive
    mask = torch.zeros(allowed.shape, dtype=q.dtype, device=q.device).masked_fill(
        ~allowed.bool(), float("-inf"))
    return LayerWatch(module, hidden, None, q, k, v, mask, (d * factor) ** -0.5, output[1],
                      terms=torch.stack(terms) if terms else None,
                      term_names=tuple(DEBERTA_TERMS[kind] for kind in kinds))


WATCHERS = {"MPNetSelfAttention": _mpnet, "DisentangledSelfAttention": _deberta}


def watched_call(module, args, kwargs, output):
    """The LayerWatch of one call of a watched family's attention module (its output must
    hold the weights: the model runs with ``output_attentions``)."""
    watch = WATCHERS.get(type(module).__name__)
    if watch is None or len(output) < 2 or output[1] is None:
        raise InputError(f"the attention module {type(module).__name__} cannot be watched; "
                         "this model's layout is not supported.")
    return watch(module, args, kwargs, output)


@contextlib.contextmanager
def values_zeroed(model, family, zeroed):
    """While inside, one token's value is zero in one layer, or in every layer (``zeroed`` =
    (layer or None, token); None: nothing zeroed), for a family outside the interface
    (value zeroing, :mod:`.flow_runs`): the value map's output row of that token is zero.
    A family inside the interface is zeroed by the watch itself (``hf_models``)."""
    from .model_parts import module_at

    handles = []
    if zeroed is not None and family.score_terms:
        layer, token = zeroed

        def zero(module, args, output):
            output = output.clone()
            output[:, token] = 0
            return output

        for n, block in enumerate(module_at(model, family.layers)):
            if layer is None or layer == n:
                value = module_at(module_at(block, family.attention), family.projections[2])
                handles.append(value.register_forward_hook(zero))
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()
