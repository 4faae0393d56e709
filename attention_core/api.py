"""sentence -> AttentionTrace: the one entry point of the numbers side."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import DEFAULT_SENTENCE, bert, scratch, selection
from .errors import InputError
from .attention import build_mask, padding_blocked, parse_mask
from .trace import AttentionTrace

MODEL_CHOICES = "minilm, scratch or a path to a local Hugging Face BERT folder"


@dataclass(frozen=True)
class TraceRequest:
    """Everything that decides a trace; checked by :func:`trace_for` before the model runs."""
    sentence: str = DEFAULT_SENTENCE
    model: str = "minilm"
    focus: str | None = None        # None or "": chosen automatically
    layer: str | int = "auto"
    heads: str = "auto"
    mask: str = "none"
    device: str = "auto"
    dtype: str = "float32"
    d_model: int = 512
    num_heads: int = 8
    seed: int = 0


def check_sentence(sentence: str | None) -> str:
    if sentence is None or not sentence.strip():
        raise InputError("the sentence is empty; type a sentence, e.g. "
                         f"attention-explainer inspect \"{DEFAULT_SENTENCE}\".")
    if "\x00" in sentence:
        raise InputError("the sentence contains a NUL character; remove it.")
    try:
        sentence.encode("utf-8")
    except UnicodeEncodeError as exc:     # lone surrogates: bytes the shell could not decode
        raise InputError("the sentence holds bytes that are not valid UTF-8 text (character "
                         f"{exc.start + 1}); check your terminal's encoding, e.g. "
                         "export LANG=C.UTF-8.") from exc
    return sentence


@functools.lru_cache(maxsize=4)
def model_files(model: str) -> bert.BertModelFiles:
    """The files of a model, checked (sha256 for the bundled MiniLM); cached per process."""
    if model in ("minilm", "scratch"):
        return bert.BertModelFiles(bert.minilm_dir(), name=bert.MINILM_NAME,
                                   expected_sha256=bert.MINILM_SHA256)
    path = Path(model).expanduser()
    if not path.exists():
        raise InputError(f"--model {model!r} is neither a known model nor an existing folder; "
                         f"use {MODEL_CHOICES}.")
    return bert.BertModelFiles(path.resolve(), name=str(path.resolve()))


@functools.lru_cache(maxsize=4)
def _loaded_weights(model: str, device: str, dtype: str):
    import torch

    return model_files(model).load_weights(torch.device(device), getattr(torch, dtype))


def count_tokens(sentence: str, model: str = "minilm") -> int:
    """How many model tokens (special ones included) the sentence becomes; no torch needed."""
    files = model_files("minilm" if model == "scratch" else model)
    count = len(files.tokenize(check_sentence(sentence)).ids)
    files.check_length(count)     # before the drawing limit: the model could not run it at all
    return count


def _versions() -> dict:
    import tokenizers
    import torch

    from . import __version__

    return {"attention_explainer": __version__, "torch": torch.__version__,
            "numpy": np.__version__, "tokenizers": tokenizers.__version__}


def compute_trace(sentence: str = DEFAULT_SENTENCE, **options) -> AttentionTrace:
    """Run the model on one sentence and capture one layer's attention.

    options: the fields of :class:`TraceRequest` (model, focus, layer, heads, mask,
    device, dtype, d_model, num_heads, seed).
    """
    return trace_for(TraceRequest(sentence=sentence, **options))


def trace_for(req: TraceRequest) -> AttentionTrace:
    import torch

    from .device import resolve_device, resolve_dtype

    sentence = check_sentence(req.sentence)
    mask_spec = parse_mask(req.mask)
    is_scratch = req.model == "scratch"
    if is_scratch:
        scratch.check_shape(req.d_model, req.num_heads)
    files = model_files(req.model)
    num_layers = 1 if is_scratch else files.num_layers
    num_heads = req.num_heads if is_scratch else files.num_heads
    head_spec = selection.parse_heads(req.heads, num_heads)
    layer_spec = selection.parse_layer(req.layer, num_layers)
    tokens = files.tokenize(sentence)
    files.check_length(len(tokens.ids))
    focus = selection.resolve_focus(req.focus, tokens)
    focus_index = focus.index
    device = resolve_device(req.device)
    dtype = resolve_dtype(req.dtype)
    T = len(tokens.ids)
    mask = build_mask(mask_spec, T)
    content = selection.content_tokens(tokens.special, tokens.word_ids, tokens.words)

    with torch.inference_mode():
        weights = _loaded_weights("minilm" if is_scratch else req.model, str(device),
                                  str(dtype).replace("torch.", ""))
        ids = torch.tensor([tokens.ids], device=device)
        if is_scratch:
            captures, layer_inputs, module = _scratch_layer(weights, ids, req, device, dtype,
                                                            mask)
            maps = _fused_maps(module)
        else:
            _, captures = bert.forward(weights, ids, [T],
                                       last_layer=None if layer_spec == "auto" else layer_spec)
            layer_inputs = None
        # the focus row of every layer's weights, with the illustration mask applied
        allowed = torch.as_tensor(~mask[focus_index], device=device)
        scores = np.full((num_layers, num_heads), -np.inf)
        for n, cap in enumerate(captures):
            row = cap.weights[0, :, focus_index].float() * allowed
            row = row / row.sum(dim=-1, keepdim=True)
            scores[n] = selection.head_scores(bert.to_numpy(row), focus_index, content)
        if layer_spec != "auto":
            scores[[n for n in range(num_layers) if n != layer_spec]] = -np.inf
        layer, heads, primary = selection.choose(scores, layer_spec, head_spec)
        cap = captures[layer]
        if mask.any():   # recompute the chosen layer with the mask (earlier layers as trained)
            blocked = cap.blocked | torch.as_tensor(mask, device=device)[None]
            if is_scratch:
                cap = layer_inputs(blocked)
            else:
                cap = bert.layer_attention(weights, layer, cap.embeddings, blocked)
        sel = torch.as_tensor(heads, device=device)
        f = bert.to_numpy
        if not is_scratch:
            maps = [weights.layers[layer][role] for role in ("q", "k", "v")]
        rows, w_rows, b_rows = _projection_rows(maps, primary, int(cap.q.shape[-1]))
        trace = AttentionTrace(
            tokens=tuple(tokens.tokens),
            embeddings=f(cap.embeddings[0]),
            q=f(cap.q[0, sel]), k=f(cap.k[0, sel]), v=f(cap.v[0, sel]),
            scores=f(cap.scores[0, sel]),
            mask=np.ascontiguousarray(mask, dtype=bool),
            weights=f(cap.weights[0, sel]),
            context=f(cap.context[0, sel]),
            output=f(cap.output[0]),
            meta=_meta(req, files, tokens, mask_spec, layer, heads, primary, focus,
                       device, dtype, num_layers, num_heads, cap, scores)
            | {"layer_choice": "auto" if layer_spec == "auto" else "given",
               "projection_rows": rows},
            projection_rows=w_rows, projection_bias=b_rows,
        )
    trace.validate()
    return trace


PROJECTION_ROWS = (0, 1, 2, 3)     # the components of a query whose W rows a trace keeps,
                                   # and the last one


def _projection_rows(maps, head: int, d_k: int):
    """The rows of one head's W_Q, W_K, W_V (and biases) that the project beat writes out:
    (row indices, 3 x R x D float32, 3 x R float32). ``maps`` are the (weight, bias) pairs
    of the three projections over all heads (head h owns rows h*d_k ... h*d_k + d_k - 1)."""
    rows = sorted({r for r in PROJECTION_ROWS if r < d_k} | {d_k - 1})
    picked = [head * d_k + r for r in rows]
    w = np.stack([bert.to_numpy(weight[picked]) for weight, _ in maps])
    b = np.stack([bert.to_numpy(bias[picked]) for _, bias in maps])
    return rows, w, b


def _fused_maps(module):
    """The scratch model's Q, K, V maps, cut from its one fused projection."""
    weight, bias = module.qkv_proj.weight, module.qkv_proj.bias
    d = module.d_model
    return [(weight[n * d:(n + 1) * d], bias[n * d:(n + 1) * d]) for n in range(3)]


def _scratch_layer(weights, ids, req, device, dtype, mask):
    """The seed's MultiHeadAttention on MiniLM's token embeddings, projected to d_model."""
    module = scratch.seeded_module(req.d_model, req.num_heads, req.seed, device, dtype)
    proj = scratch.seeded_input_projection(weights.d_model, req.d_model, req.seed, device, dtype)
    x = bert.embed(weights, ids) @ proj
    T = ids.shape[1]
    no_mask = padding_blocked([T], T, device)

    def run(blocked):
        out, d = module(x, blocked[:, None], return_details=True)
        return bert.LayerCapture(x, d["q"], d["k"], d["v"], d["scores"], blocked,
                                 d["weights"], d["context"], out)

    return [run(no_mask)], run, module


def _meta(req, files, tokens, mask_spec, layer, heads, primary, focus, device, dtype,
          num_layers, num_heads, cap, scores) -> dict:
    is_scratch = req.model == "scratch"
    meta = {
        "model": req.model if req.model in ("minilm", "scratch") else files.name,
        "model_name": (f"MultiHeadAttention (the seed article's), weights seeded with "
                       f"{req.seed}") if is_scratch else files.name,
        "weights_sha256": files.sha256,
        "sentence": req.sentence,
        "layer": int(layer),
        "num_layers": int(num_layers),
        "heads": [int(h) for h in heads],
        "primary_head": int(primary),
        "num_heads_total": int(num_heads),
        "head_choice": req.heads if isinstance(req.heads, str) else ",".join(map(str, req.heads)),
        "head_scores": [float(round(scores[layer, h], 6)) for h in heads],
        "d_model": int(cap.embeddings.shape[-1]),
        "d_k": int(cap.q.shape[-1]),
        "focus": focus.text,
        "focus_index": int(focus.index),
        "focus_span": [int(focus.span[0]), int(focus.span[1])],
        "focus_span_text": focus.span_text,
        "mask": mask_spec.name,
        "bidirectional": True,
        # a causal/window mask on a bidirectional model is drawn for teaching, not what it does
        "mask_is_illustration": mask_spec.kind != "none",
        "device": str(device),
        "dtype": str(dtype).replace("torch.", ""),
        "special": tokens.special,
        "word_ids": tokens.word_ids,
        "words": tokens.words,
        "display_tokens": tokens.display_tokens,
        "versions": _versions(),
    }
    if is_scratch:
        meta["seed"] = int(req.seed)
        meta["input"] = ("MiniLM token embeddings (word + position, LayerNorm) times a seeded "
                         f"random {files.d_model}x{req.d_model} projection")
    return meta
