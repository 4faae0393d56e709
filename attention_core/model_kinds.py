"""The kinds of model that make a trace, and what differs between them: which files a
``--model`` names (:func:`model_files`), and for each kind (:class:`ModelKind`) how it runs
on the sentence (:class:`Forward`): the bundled MiniLM or a local BERT folder computed
explicitly (:mod:`.bert`), a folder of another family run by transformers
(:mod:`.hf_models`), and the seed article's MultiHeadAttention (:mod:`.scratch`).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import bert, hf_models, scratch
from .attention import attend, heads_blocked, padding_blocked
from .errors import InputError
from .hub_cache import cached_snapshot, is_hub_id
from .trace_kinds import (POSITIONS_LEARNED, POSITIONS_RELATIVE, POSITIONS_ROTARY,
                          POSITIONS_SINUSOIDAL)

from .hf_models import HFModelFiles

__all__ = ["Forward", "HFModelFiles", "MODEL_CHOICES", "ModelKind", "kind_for",
           "loaded_weights", "model_files"]

MODEL_CHOICES = ("minilm, scratch, a path to a local Hugging Face model folder "
                 f"({hf_models.SUPPORTED}) or a hub id in the local cache")


@functools.lru_cache(maxsize=4)
def model_files(model: str) -> bert.ModelFiles:
    """The files of a model, checked (sha256 for the bundled MiniLM); cached per process.
    A BERT folder is computed explicitly; another family's runs in transformers."""
    if model in ("minilm", "scratch"):
        return bert.BertModelFiles(bert.minilm_dir(), name=bert.MINILM_NAME,
                                   expected_sha256=bert.MINILM_SHA256)
    path, hub = Path(model).expanduser(), False
    try:
        if not path.exists():
            if not is_hub_id(model):
                raise InputError(f"--model {model!r} is neither a known model nor an existing "
                                 f"folder; use {MODEL_CHOICES}.")
            path, hub = cached_snapshot(model), True      # from the local cache alone
        path = path.resolve()
    except OSError as exc:          # a folder on the way that may not be entered
        raise InputError(f"--model {model!r} cannot be reached ({exc.strerror}); give a folder "
                         "you may read.") from None
    if not path.is_dir():
        raise InputError(f"--model {model!r} is not a folder; give {MODEL_CHOICES}.")
    config = hf_models.read_raw_config(path, f"--model {str(path)!r}")
    name = model if hub else str(path)     # a hub id as its user wrote it
    if config.get("model_type") == "bert" and "auto_map" not in config:
        return bert.BertModelFiles(path, name=name)
    return hf_models.HFModelFiles(path, config, name=name)


def loaded_weights(model: str, device: str, dtype: str):
    """The model's weights on ``device`` in ``dtype``, loaded once per process for the
    files :func:`model_files` gives now (a folder checked again is loaded again)."""
    return _weights_of(model_files(model), device, dtype)


@functools.lru_cache(maxsize=4)
def _weights_of(files, device: str, dtype: str):
    import torch

    return files.load_weights(torch.device(device), getattr(torch, dtype))


# ---- what differs between the kinds of model ------------------------------------------------
@dataclass(frozen=True)
class Forward:
    """One run of a model on the sentence, as trained (only padding masked)."""
    captures: list                      # a LayerCapture per layer run, from layer 0
    rerun: Callable                     # (layer, capture, blocked) -> that layer's LayerCapture
                                        # under the mask ``blocked`` (earlier layers as trained)
    maps: Callable                      # layer -> (weight, bias) of its W_Q, W_K, W_V, all heads
    after: Callable                     # layer -> ((W_O, b_O), (norm weight, bias, eps) or
                                        # None): the output map and the residual's layer norm
    positions: Callable                 # count -> the position vectors the model adds to its
                                        # first count tokens (count x D), or None (rotary)
    position_kind: str                  # POSITIONS_LEARNED, _SINUSOIDAL or _ROTARY
    # layer -> the model's own norm of ΔE before the residual adds it (a module), or None
    output_norm: Callable = lambda layer: None
    unpositioned: frozenset = frozenset()   # layers that use no positions at all (NoPE)
    score_terms: dict = field(default_factory=dict)   # meta: the model's own score scale
    #                                     and soft cap, where it has them


@dataclass(frozen=True)
class ModelKind:
    """What a kind of model brings to a trace."""
    files: bert.ModelFiles              # the tokenizer, and the weights named ``weights_of``
    weights_of: str                     # the model whose weights are loaded
    num_layers: int
    num_heads: int
    names: dict                         # meta "model" and "model_name"
    extra_meta: dict                    # meta of this kind alone
    forward: Callable                   # (weights, ids, setup) -> Forward


def bert_kind(req) -> ModelKind:
    """The bundled MiniLM or a local BERT folder: its own layers and heads."""
    files = model_files(req.model)
    model = req.model if req.model == "minilm" else files.name
    return ModelKind(files, req.model, files.num_layers, files.num_heads,
                      {"model": model, "model_name": files.name}, {}, bert_forward)


def bert_forward(weights, ids, setup) -> Forward:
    last = None if setup.layer_spec == "auto" else setup.layer_spec
    _, captures = bert.forward(weights, ids, [ids.shape[1]], last_layer=last)

    def rerun(layer, cap, blocked):
        return bert.layer_attention(weights, layer, cap.embeddings, blocked)

    def maps(layer):
        return [weights.layers[layer][role] for role in ("q", "k", "v")]

    def after(layer):
        lw = weights.layers[layer]
        return lw["o"], (*lw["attn_ln"], weights.eps)

    def positions(count):
        return weights.position[:min(count, int(weights.position.shape[0]))]

    return Forward(captures, rerun, maps, after, positions, POSITIONS_LEARNED)


def hf_kind(req) -> ModelKind:
    """A local Hugging Face folder of a family transformers runs (:mod:`.hf_models`)."""
    files = model_files(req.model)
    family = files.family
    extra = {"family": files.model_type, "family_title": family.title,
             "causal": family.causal, "kv_heads": files.num_kv_heads,
             **({"qk_norm": True} if family.qk_norm else {}),
             **({"shared_layers": True} if family.shared_layers else {})}
    # partial rotary (GPT-NeoX's rotary_pct, kept by transformers as its rope parameters'
    # partial_rotary_factor): the share of each head's dimensions, the first ones, that
    # turn with position
    rope = getattr(files.config, "rope_parameters", None) or {}
    turned = (rope.get("partial_rotary_factor") if isinstance(rope, dict) else None) or \
        getattr(files.config, "partial_rotary_factor", None)
    if family.rotary and turned is not None and float(turned) < 1.0:
        extra["rotary_share"] = float(turned)
    return ModelKind(files, req.model, files.num_layers, files.num_heads,
                     {"model": files.name, "model_name": files.name}, extra, hf_forward)


def hf_forward(model, ids, setup) -> Forward:
    """The model run once by transformers, each layer's attention watched; the scores,
    weights and context recomputed from its own Q, K, V and mask, and checked against its
    own weights."""
    files = setup.kind.files
    modules = list(hf_models.module_at(model, files.family.layers))
    layers = [hf_models.layer_module(modules, files.family, n) for n in range(files.num_layers)]
    watches = hf_models.run_watched(model, files.family, ids)
    scale = hf_models.residual_scale(files)

    def recompute(layer, q, k, v, blocked, output=None):
        import torch

        scores = hf_models.model_scores(files, watches[layer], q, k)
        weights, context = attend(scores, v, heads_blocked(blocked))
        if output is None:           # a rerun under another mask: through W_O again
            merged = context.transpose(1, 2).reshape(1, ids.shape[1], -1)
            output = torch.nn.functional.linear(merged, *hf_models.out_map(files, layers[layer]))
        return scores, weights, context, output

    captures = []
    for n, watch in enumerate(watches):
        q, k, v, blocked = hf_models.heads_and_mask(files, watch)
        # ΔE as the residual adds it: W_O's output times the model's residual scale
        added = watch.output if scale is None else watch.output * scale
        scores, weights, context, output = recompute(n, q, k, v, blocked, added)
        gap = float((weights.float() - watch.weights.float()).abs().max())
        hf_models.check_agreement(gap, setup.dtype, files.what, f"layer {n}")
        residual = None if files.family.post_norm else watch.residual
        captures.append(bert.LayerCapture(watch.hidden, q, k, v, scores, blocked,
                                          weights, context, output, residual, watch.terms))

    def rerun(layer, cap, blocked):
        scores, weights, context, output = recompute(layer, cap.q, cap.k, cap.v, blocked)
        return bert.LayerCapture(cap.embeddings, cap.q, cap.k, cap.v, scores, blocked,
                                 weights, context, output, cap.residual, cap.terms)

    def after(layer):
        return (hf_models.out_map(files, layers[layer]),
                hf_models.post_norm(files, layers[layer]))

    own = hf_models.own_scale(files, watches[0])
    setting, parts = files.family.scale_setting, None
    if own is not None and files.family.relative_positions:     # DeBERTa: √(parts · d_k)
        parts = round(1 / (own * own * int(watches[0].q.shape[-1])))
        setting = f"\u221a({parts}\u00b7d_k), for q\u00b7k and its {parts - 1} position terms"
    terms = {**({"score_scale": own, "score_scale_setting": setting}
                if own is not None else {}),
             **({"score_scale_parts": parts} if setting != files.family.scale_setting else {}),
             **({"score_softcap": float(watches[0].softcap)} if watches[0].softcap else {}),
             **({"score_terms": list(watches[0].term_names)}
                if watches[0].terms is not None else {}),
             **({"residual_scale": scale, "residual_scale_setting": files.family.residual_scale}
                if scale is not None else {}),
             # attention reads the residual stream itself, not its norm (OLMo 2)
             **({"input_normed": False} if files.family.output_norm and
                _same(watches[0].hidden, watches[0].residual) else {})}
    return Forward(captures, rerun, lambda layer: hf_models.qkv_maps(files, layers[layer]),
                   after, lambda count: hf_models.position_table(model, files, count),
                   POSITIONS_ROTARY if files.family.rotary else
                   POSITIONS_RELATIVE if files.family.relative_positions else
                   POSITIONS_SINUSOIDAL if getattr(files.config, "sinusoidal_pos_embds", False)
                   else POSITIONS_LEARNED,
                   lambda layer: hf_models.output_norm(files, layers[layer]),
                   hf_models.unpositioned_layers(files), terms)


def _same(a, b) -> bool:
    import torch

    return a.shape == b.shape and bool(torch.equal(a, b))


def scratch_kind(req) -> ModelKind:
    """The seed's MultiHeadAttention: one layer of ``req.num_heads`` heads, its weights
    seeded with ``req.seed``, on MiniLM's tokens and token embeddings."""
    scratch.check_shape(req.d_model, req.num_heads)
    files = model_files(req.model)
    names = {"model": req.model,
             "model_name": "MultiHeadAttention (the seed article's), weights seeded with "
                           f"{req.seed}"}
    extra = {"seed": int(req.seed),
             "input": ("MiniLM word embeddings (word + token type, LayerNorm) times a seeded "
                       f"random {files.d_model}x{req.d_model} projection, plus the sine and "
                       "cosine positions of Vaswani et al. 2017")}
    return ModelKind(files, "minilm", 1, req.num_heads, names, extra, scratch_forward)


def scratch_forward(weights, ids, setup) -> Forward:
    """The seed's MultiHeadAttention on MiniLM's token embeddings, projected to d_model."""
    req, device, dtype = setup.req, setup.device, setup.dtype
    module = scratch.seeded_module(req.d_model, req.num_heads, req.seed, device, dtype)
    proj = scratch.seeded_input_projection(weights.d_model, req.d_model, req.seed, device, dtype)
    T = ids.shape[1]
    x = bert.embed(weights, ids, positions=False) @ proj + \
        scratch.sinusoidal_positions(T, req.d_model, device, dtype)[None]

    def run(blocked):
        out, d = module(x, blocked[:, None], return_details=True)
        return bert.LayerCapture(x, d["q"], d["k"], d["v"], d["scores"], blocked,
                                 d["weights"], d["context"], out)

    fused = fused_maps(module)
    # the seed's module is attention alone: no layer norm after it (the residual is the
    # block's, which the update adds as a transformer block would)
    out = (module.out_proj.weight, module.out_proj.bias)
    return Forward([run(padding_blocked([T], T, device))],
                    lambda layer, cap, blocked: run(blocked), lambda layer: fused,
                    lambda layer: (out, None),
                    lambda count: scratch.sinusoidal_positions(count, req.d_model, device, dtype),
                    POSITIONS_SINUSOIDAL)


def fused_maps(module):
    """The scratch model's Q, K, V maps, cut from its one fused projection."""
    weight, bias = module.qkv_proj.weight, module.qkv_proj.bias
    d = module.d_model
    return [(weight[n * d:(n + 1) * d], bias[n * d:(n + 1) * d]) for n in range(3)]


def kind_for(req) -> ModelKind:
    """The kind of model ``req.model`` names (a TraceRequest's): scratch, a folder that
    transformers runs, or MiniLM and BERT folders, computed explicitly."""
    if req.model == "scratch":
        return scratch_kind(req)
    if isinstance(model_files(req.model), HFModelFiles):
        return hf_kind(req)
    return bert_kind(req)
