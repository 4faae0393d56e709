"""Why a head attends where it does: the focus word's score with each key split into the
parts of the residual stream that make the key (the token embedding, the position vector,
each earlier layer's attention and MLP, and the constant the norm and W_K add), the
query kept whole. In a pre-norm model the layer reads norm(x), x the sum of those parts;
with the norm's scale of each token fixed as the model computed it, the key is linear in
x, so each part's share of the score is exact and the parts add up to the score.
Nothing here draws."""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from .errors import InputError

__all__ = ["ScoreParts", "why_for"]

SHOWN = 4                       # the largest parts named per key; the rest summed


@dataclass(frozen=True)
class ScoreParts:
    """The explained head's scores from the focus token: ``parts`` K x C (each visible
    key's score split into the C parts ``names``), ``scores`` K (the model's), ``keys``
    the key tokens' indices."""
    model: str
    layer: int
    head: int
    focus_index: int
    tokens: tuple
    keys: tuple
    names: tuple
    parts: np.ndarray
    scores: np.ndarray

    def to_json(self) -> dict:
        return {"layer": self.layer, "head": self.head, "focus_index": self.focus_index,
                "parts": list(self.names),
                "keys": [{"index": int(j), "token": self.tokens[j], "score": float(s),
                          "parts": [float(x) for x in row]}
                         for j, s, row in zip(self.keys, self.scores, self.parts)]}

    def lines(self) -> list[str]:
        """Each key's score and its largest parts, for the terminal; a stacked bar of the
        parts' sizes (one letter per part, its legend under it)."""
        focus = self.tokens[self.focus_index]
        out = [f"why layer {self.layer}, head {self.head} attends: the score of {focus!r} with "
               "each key, split into the parts of the residual stream that make the key "
               "(the query kept whole); the parts add up to the score"]
        letters = {name: chr(ord("a") + n) if n < 26 else "*"
                   for n, name in enumerate(self.names)}
        width = max(len(repr(self.tokens[j])) for j in self.keys) + 1
        for j, score, row in zip(self.keys, self.scores, self.parts):
            order = sorted(range(len(row)), key=lambda c: -abs(row[c]))
            shown = order if len(order) <= SHOWN + 1 else order[:SHOWN]
            named = "  ".join(f"{row[c]:+.3f} {self.names[c]}" for c in shown)
            rest = float(sum(row[c] for c in order[len(shown):]))
            more = f"  {rest:+.3f} the other {len(order) - len(shown)}" \
                if len(order) > len(shown) else ""
            bar = "".join(letters[self.names[c]] * round(12 * abs(row[c]) /
                                                        max(np.abs(self.parts).max(), 1e-12))
                          for c in order)
            out.append(f"  {repr(self.tokens[j]):<{width}} {score:+8.3f} = {named}{more}")
            out.append(f"  {'':<{width}} {'':>8}   |{bar}|")
        out.append("  bar letters: " + ", ".join(f"{letters[n]} {n}" for n in self.names))
        return out


def _norm_split(module, x, normed, what: str):
    """The input norm as a linear map of each token's x with its own scale fixed (a layer
    norm: γ·(c − mean c)/σ; an RMS norm: γ·c/rms), and its constant (β, or zero); checked
    against what the model's norm gave."""
    import torch

    gamma = module.weight.float()
    beta = getattr(module, "bias", None)
    beta = beta.float() if beta is not None else torch.zeros_like(gamma)
    eps = float(getattr(module, "eps", None) or getattr(module, "variance_epsilon", 1e-6))
    x = x.float()
    scale_ln = torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + eps)
    scale_rms = torch.sqrt((x * x).mean(-1, keepdim=True) + eps)
    kinds = {"layer": (lambda c: gamma * (c - c.mean(-1, keepdim=True)) / scale_ln, beta),
             "rms": (lambda c: gamma * c / scale_rms, torch.zeros_like(beta))}
    bound = 1e-4 * max(1.0, float(normed.abs().max()))
    for split, constant in kinds.values():
        if float((split(x) + constant - normed.float()).abs().max()) <= bound:
            return split, constant
    raise InputError(f"{what}: its layers' input norm is neither a layer norm nor an RMS norm "
                     "of a learned gain, so it cannot be split.")


def _rotated(files, model, attention, parts, layer: int):
    """The key parts turned as the model turns its keys at each position (rotary), or as
    they are."""
    import torch

    from .hf_models import unpositioned_layers

    if not files.family.rotary or layer in unpositioned_layers(files):
        return parts
    T = parts.shape[2]
    positions = torch.arange(T, device=parts.device)[None]
    cos, sin = model.rotary_emb(parts, positions)
    turn = sys.modules[type(attention).__module__].apply_rotary_pos_emb
    return turn(parts, parts, cos, sin)[1]


def why_for(req, asked: str = "--why") -> ScoreParts:
    """The focus word's scores in the head ``req`` explains, split by the parts of the
    residual stream that make each key (:class:`ScoreParts`)."""
    import torch

    from .api import setup_of, trace_for
    from .device import one_cpu_thread
    from .hf_models import (HFModelFiles, layer_module, module_at, output_norm, qkv_maps,
                            residual_scale, run_watched)
    from .hf_models import position_table
    from .model_kinds import loaded_weights

    setup = setup_of(req)
    files = setup.kind.files
    what = f"{asked} on {req.model}"
    if not isinstance(files, HFModelFiles) or files.family.post_norm is not None:
        raise InputError(f"{what}: this model norms after each layer (post-norm), so a layer "
                         "reads no sum of earlier parts; only a pre-norm model's residual "
                         "stream is split (GPT-2, Llama, Mistral, Qwen2, ...).")
    if files.family.input_norm is None or files.family.qk_norm:
        raise InputError(f"{what}: a {files.family.title} norms its keys in a way that cannot be "
                         "split; a pre-norm model's stream is split (GPT-2, Llama, ...).")
    trace = trace_for(req)
    if trace.meta.get("score_softcap"):
        raise InputError(f"{what}: its scores are capped (cap·tanh(s/cap)), not a sum of "
                         "parts; only an uncapped score is split.")
    layer, head, f = trace.layer, trace.primary_head, trace.focus_index
    model = loaded_weights(setup.kind.weights_of, str(setup.device),
                           str(setup.dtype).replace("torch.", ""))
    ids = torch.tensor([setup.tokens.ids], device=setup.device)
    modules = list(module_at(model, files.family.layers))
    with one_cpu_thread(), torch.inference_mode():
        watches = run_watched(model, files.family, ids)
        names, parts = _stream_parts(files, model, watches, layer, modules, output_norm,
                                     residual_scale, position_table)
        own = layer_module(modules, files.family, layer)
        split, constant = _norm_split(module_at(own, files.family.input_norm),
                                      watches[layer].residual[0], watches[layer].hidden[0],
                                      what)
        weight, bias = qkv_maps(files, own)[1]
        d = int(watches[layer].q.shape[-1])
        w_k, b_k = weight[head * d:(head + 1) * d].float(), bias[head * d:(head + 1) * d].float()
        keys = torch.stack([split(p) @ w_k.T for p in parts] + [
            (constant @ w_k.T + b_k).expand(parts[0].shape[0], d)])      # C+1 x T x d
        keys = _rotated(files, model, module_at(own, files.family.attention), keys[None],
                        layer)[0]
        group = files.num_heads // files.num_kv_heads
        if float((keys.sum(0) - watches[layer].k[0, head // group].float()).abs().max()) > \
                1e-4 * max(1.0, float(watches[layer].k.abs().max())):
            raise InputError(f"{what}: its keys are not W_K times the normed stream, turned, "
                             "so they cannot be split.")
        scores = keys @ watches[layer].q[0, head, f].float() * float(watches[layer].scaling)
    T = len(setup.tokens.ids)
    visible = [j for j in range(T) if not trace.mask[f, j]]
    split_scores = scores.T.cpu().double().numpy()                        # T x C+1
    return ScoreParts(str(trace.meta.get("model")), int(layer), int(head), int(f),
                      tuple(trace.display_tokens), tuple(visible),
                      (*names, "norm and key bias"), split_scores[visible],
                      trace.scores[trace.primary_slot, f, visible].astype(np.float64))


def _stream_parts(files, model, watches, layer, modules, output_norm, residual_scale,
                  position_table):
    """The residual stream entering ``layer`` as named parts (T x D each): the token
    embedding, the position vectors (a learned table), each earlier layer's attention
    (what it adds, after its own norm or scale) and MLP (the rest of what that layer
    adds); they add up to the stream, checked."""
    from .hf_models import layer_module

    x0 = watches[0].residual[0].float()
    T = x0.shape[0]
    table = position_table(model, files, T)
    names, parts = [], []
    if table is not None:
        names += ["token embedding", "position"]
        parts += [x0 - table.float(), table.float()]
    else:
        names.append("token embedding")
        parts.append(x0)
    scale = residual_scale(files)
    for m in range(layer):
        added = watches[m].output
        norm = output_norm(files, layer_module(modules, files.family, m))
        added = (norm(added) if norm is not None else added * (scale or 1.0))[0].float()
        mlp = watches[m + 1].residual[0].float() - watches[m].residual[0].float() - added
        names += [f"layer {m} attention", f"layer {m} MLP"]
        parts += [added, mlp]
    total = sum(parts)
    stream = watches[layer].residual[0].float()
    if float((total - stream).abs().max()) > 1e-4 * max(1.0, float(stream.abs().max())):
        raise InputError("--why: the stream is not the sum of its parts in this model.")
    return names, parts


# ---- the why beat's numbers ----------------------------------------------------------------
GROUPS = ("token embedding", "position", "earlier attention", "earlier MLPs",
          "norm and key bias")
KEYS_DRAWN = 6            # the keys the beat draws: the focus's highest scores


def group_of(name: str) -> str:
    """The kind of part a part of the stream is (a layer's attention or MLP by kind)."""
    if name.endswith(" attention"):
        return "earlier attention"
    if name.endswith(" MLP"):
        return "earlier MLPs"
    return name


def with_why(trace, req):
    """``trace`` with the why beat's numbers in its meta (``why``): the focus word's
    highest-scoring keys in the explained head, each score split into the kinds of part
    that make its key (the drawing runs no model)."""
    import dataclasses

    split = why_for(req, "the why beat")
    if split.layer != trace.layer or split.head != trace.primary_head or \
            split.focus_index != trace.focus_index:
        raise InputError("the why beat's run of the model does not match the film's trace; "
                         "draw it from the sentence.")
    order = sorted(range(len(split.keys)), key=lambda n: (-split.scores[n], split.keys[n]))
    chosen = order[:KEYS_DRAWN]                        # highest first
    groups = [g for g in GROUPS if any(group_of(name) == g for name in split.names)]
    parts = {g: [round(float(sum(split.parts[n][c] for c, name in enumerate(split.names)
                                 if group_of(name) == g)), 6) for n in chosen] for g in groups}
    why = {"keys": [int(split.keys[n]) for n in chosen], "groups": groups, "parts": parts,
           "scores": [round(float(split.scores[n]), 6) for n in chosen]}
    return dataclasses.replace(trace, meta={**trace.meta, "why": why})
