"""Every layer's attention on a sentence, from one run of the model: q, k, v, scores,
weights, the mask, each head's context and its output through W_O, as numpy (or torch),
for a notebook. Indexed by TransformerLens's hook names too, so an interpretability user's
code reads it as it reads a cache (``result["blocks.3.attn.hook_pattern"]``)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from . import bert
from .device import one_cpu_thread
from .errors import InputError
from .word_model import WordModel

__all__ = ["Attentions", "HOOKS", "attentions_and_atlas", "attentions_for"]

# TransformerLens's hook names of one attention block, with the shape each holds for one
# sentence (its batch dimension dropped): T tokens, H heads, d the head size, D the model
# width. Scores are scaled (÷√d) and, as TransformerLens keeps them, -inf where masked.
HOOKS = {
    "hook_q": "T x H x d", "hook_k": "T x H x d", "hook_v": "T x H x d",
    "hook_attn_scores": "H x T x T", "hook_pattern": "H x T x T", "hook_z": "T x H x d",
    "hook_result": "T x H x D",
}
_HOOK = re.compile(r"blocks\.(\d+)\.attn\.(hook_\w+)")


@dataclass(frozen=True)
class Attentions:
    """Every layer of one run of the model on ``sentence``: L layers, H heads, T tokens,
    d the head size, D the model's width. Arrays are L-first: ``q``, ``k``, ``v``, ``z``
    (each head's weighted sum of values) L x H x T x d; ``scores`` (QKᵀ/√d, before any
    mask) and ``weights`` L x H x T x T; ``blocked`` L x T x T (True: masked);
    ``result`` L x T x H x D (each head's output through its slice of W_O, the bias
    not included). ``tokens``, ``special`` and ``words`` (the words as written) say what
    the T positions are."""
    sentence: str
    model: str
    tokens: tuple
    special: tuple
    words: WordModel = field(repr=False)
    q: object = field(repr=False)
    k: object = field(repr=False)
    v: object = field(repr=False)
    scores: object = field(repr=False)
    weights: object = field(repr=False)
    blocked: object = field(repr=False)
    z: object = field(repr=False)
    result: object = field(repr=False)

    @property
    def num_layers(self) -> int:
        return int(self.weights.shape[0])

    @property
    def num_heads(self) -> int:
        return int(self.weights.shape[1])

    def hook(self, layer: int, name: str):
        """The tensor of TransformerLens's ``blocks.{layer}.attn.{name}`` for this
        sentence (its shape: :data:`HOOKS`)."""
        if name not in HOOKS:
            raise KeyError(f"{name!r} is not a hook kept here; the hooks are "
                           f"{', '.join(HOOKS)}")
        if not 0 <= layer < self.num_layers:
            raise KeyError(f"layer {layer} is not one of the model's 0-{self.num_layers - 1}")
        if name == "hook_pattern":
            return self.weights[layer]
        if name == "hook_attn_scores":
            scores = self.scores[layer]
            blocked = self.blocked[layer][None]
            if isinstance(scores, np.ndarray):
                return np.where(blocked, -np.inf, scores).astype(scores.dtype)
            return scores.masked_fill(blocked, float("-inf"))
        if name == "hook_result":
            return self.result[layer]
        tensor = {"hook_q": self.q, "hook_k": self.k, "hook_v": self.v, "hook_z": self.z}[name]
        per_head = tensor[layer]                     # H x T x d -> T x H x d
        return per_head.transpose(0, 1) if not isinstance(per_head, np.ndarray) \
            else per_head.transpose(1, 0, 2)

    def __getitem__(self, name: str):
        match = _HOOK.fullmatch(name)
        if match is None:
            raise KeyError(f"{name!r}: use a hook name, blocks.L.attn.hook_pattern (hooks: "
                           f"{', '.join(HOOKS)})")
        return self.hook(int(match[1]), match[2])

    def keys(self) -> list[str]:
        """Every hook name this result answers, layer by layer."""
        return [f"blocks.{n}.attn.{h}" for n in range(self.num_layers) for h in HOOKS]

    def __contains__(self, name) -> bool:
        """Whether ``name`` is a hook name this result answers (as a cache's ``in``)."""
        match = _HOOK.fullmatch(name) if isinstance(name, str) else None
        return bool(match) and int(match[1]) < self.num_layers and match[2] in HOOKS


def attentions_for(req, *, as_torch: bool = False) -> Attentions:
    """Every layer's attention on ``req.sentence`` (a TraceRequest: its model, device and
    dtype; a mask asked for is the model's own only, so ``req.mask`` must be none) from one
    run of the model; numpy float32 arrays, or torch tensors on the model's device in its
    dtype with ``as_torch``."""
    return _one_run(req, as_torch=as_torch)[0]


def attentions_and_atlas(req):
    """:func:`attentions_for` and the atlas (every head's pattern, the film's head), from
    the same one run of the model (the interactive view shows both)."""
    return _one_run(req, with_atlas=True)


def _one_run(req, *, as_torch: bool = False, with_atlas: bool = False):
    import dataclasses

    import torch

    from .api import _setup, atlas_of, every_layer_run

    if str(req.mask).strip().lower() != "none":
        raise InputError(f"mask {req.mask!r}: every layer is as the model runs it (a "
                         "decoder's own causal mask included); drop the mask.")
    setup = dataclasses.replace(_setup(req), layer_spec="auto")
    with one_cpu_thread(), torch.inference_mode():
        run = every_layer_run(setup)
        layers = _attentions_of(req.sentence, setup, run, as_torch)
        atlas = atlas_of(setup, run) if with_atlas else None
    return layers, atlas


def _attentions_of(sentence: str, setup, run, as_torch: bool) -> Attentions:
    """The Attentions of a run through every layer (under inference mode)."""
    import torch

    from .api import words_of

    caps = run.captures
    results = []
    for n, cap in enumerate(caps):
        (w_o, _), _ = run.after(n)
        H, d = cap.context.shape[1], cap.context.shape[3]
        per_head = w_o.reshape(w_o.shape[0], H, d)           # D x H x d
        results.append(torch.einsum("htd,ehd->the", cap.context[0], per_head))
    stacked = {name: torch.stack([getattr(c, name)[0] for c in caps])
               for name in ("q", "k", "v", "scores", "weights", "context", "blocked")}
    stacked["result"] = torch.stack(results)
    if not as_torch:
        stacked = {name: (bert.to_numpy(t) if name != "blocked"
                          else t.detach().cpu().numpy().astype(bool))
                   for name, t in stacked.items()}
    tokens = setup.tokens
    return Attentions(sentence, setup.kind.names["model"], tuple(tokens.display_tokens),
                      tuple(tokens.special), words_of(tokens), stacked["q"], stacked["k"],
                      stacked["v"], stacked["scores"], stacked["weights"], stacked["blocked"],
                      stacked["context"], stacked["result"])
