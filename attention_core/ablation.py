"""Weight is not influence: heads silenced in the model's own forward, and the effect on
what the model outputs.

A silenced head's output (its weights times its values) is zeroed before W_O, in every
position, and the model runs on to its own output: for a sentence encoder such as MiniLM
the sentence embedding it was trained to make (its pooling: the mean of the last layer's
vectors, or its first token's where its 1_Pooling says so), for a decoder the
distribution of the next token (its language-model head, loaded only for this). The focus
word's final vector is compared too. Nothing here draws.
"""
from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .lm_head import with_lm_head

__all__ = ["ABLATE_HELP", "Effect", "HeadInfluence", "ModelOutput", "ablation_effect",
           "ablation_table", "parse_ablate", "with_influence"]

ABLATE_HELP = "use L:H[,L:H...] or L:all (layers and heads counted from 0)"
TOP = 5                           # the next tokens listed before and after


def parse_ablate(spec: str, num_layers: int, num_heads: int) -> tuple:
    """'L:H[,L:H…]' or 'L:all' as sorted (layer, head) pairs, checked against the model."""
    pairs = set()
    for part in str(spec).replace(" ", "").split(","):
        match = re.fullmatch(r"(\d+):(\d+|all)", part.lower())
        if not match:
            raise InputError(f"--ablate {spec!r} is not a list of heads; {ABLATE_HELP}.")
        layer = int(match.group(1))
        if layer >= num_layers:
            raise InputError(f"--ablate {spec!r}: layer {layer} does not exist; the model has "
                             f"layers 0 to {num_layers - 1}.")
        heads = range(num_heads) if match.group(2) == "all" else [int(match.group(2))]
        for head in heads:
            if head >= num_heads:
                raise InputError(f"--ablate {spec!r}: head {head} does not exist; each layer "
                                 f"has heads 0 to {num_heads - 1}.")
            pairs.add((layer, head))
    return tuple(sorted(pairs))


@dataclass(frozen=True)
class ModelOutput:
    """What the model outputs for the sentence: ``kind`` names it; ``vector`` is the
    sentence embedding (D) or the next token's probabilities (V); ``focus`` the focus
    token's final vector (D)."""
    kind: str
    vector: np.ndarray
    focus: np.ndarray


@dataclass(frozen=True)
class Effect:
    """The model's output with ``silenced`` heads (layer, head) against without: the
    embedding's cosine, or the next token's KL divergence (before ‖ after, in nats) and its
    top tokens (text, probability) before and after; and the focus vector's cosine."""
    silenced: tuple
    kind: str
    cosine: float | None
    kl: float | None
    focus_cosine: float
    top_before: tuple = ()
    top_after: tuple = ()
    # the noise floor: what one head of the same layer(s), silenced alone, moves the output
    # by (median, 90th percentile, how many heads), in ``size``'s unit; () where not asked
    floor: tuple = ()
    # the same heads mean-ablated (each one's output replaced by its mean over the
    # sentence's positions, not zeroed): that effect's size, or None where not asked
    mean_ablated: float | None = None

    @property
    def size(self) -> float:
        """One number for how much the output changed: 1 − cosine, or the KL."""
        return self.kl if self.kl is not None else 1.0 - self.cosine

    @property
    def degrees(self) -> float | None:
        """The embedding's angle before and after, in degrees (None for a next token)."""
        import math

        return None if self.kl is not None else math.degrees(
            math.acos(max(-1.0, min(1.0, self.cosine))))

    def said(self) -> str:
        """The effect in one unit, as the film says it: the KL in nats, or the angle in
        degrees with 1 − cos beside it."""
        if self.kl is not None:
            return f"KL {self.kl:.5f} nats"
        return f"{self.degrees:.3f}\u00b0 (1 \u2212 cos {1 - self.cosine:.6f})"

    def to_json(self) -> dict:
        doc = {"silenced": [list(p) for p in self.silenced], "output": self.kind,
               "focus_cosine": self.focus_cosine, "effect": self.size}
        if self.floor:
            doc["floor"] = {"median": self.floor[0], "p90": self.floor[1],
                            "heads": self.floor[2]}
        if self.mean_ablated is not None:
            doc["mean_ablated_effect"] = self.mean_ablated
        if self.kl is None:
            return {**doc, "cosine": self.cosine}
        return {**doc, "kl": self.kl, "top_before": [list(t) for t in self.top_before],
                "top_after": [list(t) for t in self.top_after]}


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    both = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / both if both else 1.0


class _Runner:
    """The request's model loaded once (with its output head where it has one to load),
    run with any heads silenced."""

    def __init__(self, req):
        import torch

        from .api import setup_of
        from .model_kinds import HFModelFiles, loaded_weights

        if req.model == "scratch":
            raise InputError("--ablate: the scratch model is one seeded layer with no trained "
                             "output to change; use minilm or a model folder.")
        self.setup = setup = setup_of(req)
        self.ids = torch.tensor([setup.tokens.ids], device=setup.device)
        self.hf = isinstance(setup.kind.files, HFModelFiles)
        dtype = str(setup.dtype).replace("torch.", "")
        if not self.hf or not setup.kind.files.family.causal:   # an encoder's base model
            self.weights = loaded_weights(setup.kind.weights_of, str(setup.device), dtype)
            self.model = self.weights
        else:                                    # a decoder, with its language-model head
            self.model = with_lm_head(setup.kind.files, setup.device, setup.dtype,
                                      needed_for="--ablate")

    def output(self, silenced: tuple = (), replaced: dict | None = None,
               entering: tuple | None = None) -> ModelOutput:
        """The model's output with the heads ``silenced`` (layer, head) zeroed, those of
        ``replaced`` ({layer: {head: T x d_k tensor}}) given other outputs, and
        ``entering`` (layer, position, vector) put in the stream entering that layer."""
        import torch

        from . import bert
        from .device import one_cpu_thread

        heads: dict = {}
        for layer, head in silenced:
            heads.setdefault(layer, []).append(head)
        with one_cpu_thread(), torch.inference_mode():
            if not self.hf:
                hidden, _ = bert.forward(self.weights, self.ids, [self.ids.shape[1]],
                                         silenced=heads, replaced=replaced, entering=entering)
                last = bert.to_numpy(hidden[-1][0]).astype(np.float64)
                return ModelOutput("sentence embedding", self._pooled(last),
                                   last[self.setup.focus.index])
            return self._hf_output(heads, replaced or {}, entering)

    def head_outputs(self, ids) -> list:
        """Every layer's heads' outputs (H x T x d_k tensors, before W_O) on ``ids``
        (1 x T), as the model runs."""
        import torch

        from . import bert
        from .device import one_cpu_thread

        with one_cpu_thread(), torch.inference_mode():
            if not self.hf:
                _, captures = bert.forward(self.weights, ids, [ids.shape[1]])
                return [cap.context[0] for cap in captures]
            kept = []
            with self._w_o_inputs(lambda n, merged: kept.append(merged[0].clone())):
                self.model(input_ids=ids)
        H = self.setup.kind.num_heads
        return [m.view(m.shape[0], H, -1).transpose(0, 1) for m in kept]

    def streams(self, ids) -> list:
        """The residual stream entering each layer (T x D tensors) on ``ids``, as run."""
        import torch

        from . import bert
        from .device import one_cpu_thread

        with one_cpu_thread(), torch.inference_mode():
            if not self.hf:
                hidden, _ = bert.forward(self.weights, ids, [ids.shape[1]])
            else:
                hidden = self.model(input_ids=ids, output_hidden_states=True).hidden_states
        return [h[0] for h in hidden[:self.setup.kind.num_layers]]

    def _entering(self, entering):
        """A context in which the stream entering layer ``entering[0]`` holds
        ``entering[2]`` at position ``entering[1]`` (nothing where ``entering`` is None)."""
        from .hf_models import module_at

        if entering is None:
            return contextlib.nullcontext()
        family = self.setup.kind.files.family
        layers = list(module_at(self.model.base_model, family.layers))
        count = [0]

        def hook(module, args, kwargs):
            n, count[0] = count[0], count[0] + 1
            if n != entering[0]:
                return None
            hidden = (args[0] if args else kwargs["hidden_states"]).clone()
            hidden[0, entering[1]] = entering[2]
            if args:
                return (hidden, *args[1:]), kwargs
            return args, {**kwargs, "hidden_states": hidden}

        return _pre_hooked(layers, hook, with_kwargs=True)

    def _w_o_inputs(self, edit):
        """A context in which every W_O's input (B x T x H·d_k) passes ``edit(layer,
        merged)`` first (a tensor it returns replaces it), counted in the order the layers
        run (a module that every layer shares, ALBERT's, is met once per layer)."""
        from .hf_models import module_at

        family = self.setup.kind.files.family
        outs = {id(m): m for m in (module_at(layer, family.out) for layer in
                                   module_at(self.model.base_model, family.layers))}
        count = [0]

        def hook(module, args):
            n, count[0] = count[0], count[0] + 1
            merged = edit(n, args[0])
            return None if merged is None else (merged, *args[1:])
        return _pre_hooked(outs.values(), hook)

    def _pooled(self, last: np.ndarray) -> np.ndarray:
        folder = getattr(self.setup.kind.files, "folder", None)
        pooling = folder / "1_Pooling" / "config.json" if folder is not None else None
        if pooling is not None and pooling.is_file() and json.loads(
                pooling.read_text(encoding="utf-8")).get("pooling_mode_cls_token"):
            return last[0]
        return last.mean(axis=0)

    def _hf_output(self, heads: dict, replaced: dict, entering=None) -> ModelOutput:
        import torch

        from . import bert

        files = self.setup.kind.files

        def edit(layer, merged):
            if layer not in heads and layer not in replaced:
                return None
            merged = merged.clone()
            width = merged.shape[-1] // self.setup.kind.num_heads    # W_O reads H x d
            for h in heads.get(layer, ()):
                merged[..., h * width:(h + 1) * width] = 0
            for h, other in replaced.get(layer, {}).items():
                merged[0, :, h * width:(h + 1) * width] = other
            return merged
        with self._w_o_inputs(edit), self._entering(entering):
            result = self.model(input_ids=self.ids, output_hidden_states=True)
        last = bert.to_numpy(result.hidden_states[-1][0]).astype(np.float64)
        focus = last[self.setup.focus.index]
        if files.family.causal:
            logits = result.logits[0, -1].double()
            return ModelOutput("next token", bert.to_numpy(torch.softmax(logits, -1))
                               .astype(np.float64), focus)
        return ModelOutput("sentence embedding", last.mean(axis=0), focus)

    def token_text(self, token_id: int) -> str:
        return self.setup.kind.files.tokenizer.decode([int(token_id)])


@contextlib.contextmanager
def _pre_hooked(modules, hook, with_kwargs: bool = False):
    """``hook`` before each of ``modules`` (a module met twice hooked once: a shared layer
    calls it once per layer), taken away after."""
    hooks = [m.register_forward_pre_hook(hook, with_kwargs=with_kwargs)
             for m in {id(m): m for m in modules}.values()]
    try:
        yield
    finally:
        for h in hooks:
            h.remove()


def _effect(runner: _Runner, before: ModelOutput, after: ModelOutput, silenced) -> Effect:
    focus = _cosine(before.focus, after.focus)
    if before.kind != "next token":
        return Effect(silenced, before.kind, _cosine(before.vector, after.vector), None, focus)
    p, q = before.vector, after.vector
    kl = float(np.sum(np.where(p > 0, p * (np.log(np.maximum(p, 1e-300))
                                           - np.log(np.maximum(q, 1e-300))), 0.0)))

    def top(dist):
        return tuple((runner.token_text(j), float(dist[j]))
                     for j in np.argsort(-dist, kind="stable")[:TOP])
    return Effect(silenced, before.kind, None, max(kl, 0.0), focus, top(p), top(q))


def ablation_effect(req, spec: str) -> Effect:
    """The effect on the model's output of silencing the heads ``spec`` names."""
    import dataclasses

    runner = _Runner(req)
    kind = runner.setup.kind
    silenced = parse_ablate(spec, kind.num_layers, kind.num_heads)
    before = runner.output()
    effect = _effect(runner, before, runner.output(silenced), silenced)
    # the noise floor: every head of the silenced layers, each alone
    alone = [_effect(runner, before, runner.output(((layer, head),)), ((layer, head),)).size
             for layer in sorted({layer for layer, _ in silenced})
             for head in range(kind.num_heads)]
    # mean-ablation beside it: each silenced head's output its mean over the positions
    outputs = runner.head_outputs(runner.ids)
    means: dict = {}
    for layer, head in silenced:
        kept = outputs[layer][head]
        means.setdefault(layer, {})[head] = kept.mean(dim=0, keepdim=True).expand_as(kept)
    mean = _effect(runner, before, runner.output(replaced=means), silenced).size
    return dataclasses.replace(effect, floor=(float(np.median(alone)),
                                              float(np.percentile(alone, 90)), len(alone)),
                               mean_ablated=mean)


@dataclass(frozen=True)
class HeadInfluence:
    """One head of a layer: its weight on the focus word's answer and on special tokens
    (from the trace's focus rows), and the effect of silencing it alone."""
    layer: int
    head: int
    answer_weight: float
    special_weight: float
    effect: Effect


def ablation_table(trace, req) -> list[HeadInfluence]:
    """Every head of the trace's layer, by its effect on the model's output (largest
    first), beside the weight it gives the focus word's answer."""
    from .derived import answer_words
    from .word_model import WordModel

    if trace.focus_weights_all is None:
        raise InputError("the trace holds no focus row of every head; compute it again.")
    runner = _Runner(req)
    before = runner.output()
    words, answers = WordModel.of_trace(trace), answer_words(trace)
    special = np.asarray(trace.special, dtype=bool)
    rows = []
    for head, row in enumerate(trace.focus_weights_all.astype(np.float64)):
        silenced = ((trace.layer, head),)
        rows.append(HeadInfluence(trace.layer, head,
                                  float(sum(words.total(row, w) for w in answers)),
                                  float(row[special].sum()),
                                  _effect(runner, before, runner.output(silenced), silenced)))
    return sorted(rows, key=lambda r: (-r.effect.size, r.head))


def with_influence(trace, req):
    """``trace`` with every head of its layer silenced in turn and measured, kept in its
    meta (``influence``: the output, the measure, and each head's effect, weight on the
    answer and on special tokens) for the influence beat, which runs no model."""
    import dataclasses

    rows = sorted(ablation_table(trace, req), key=lambda r: r.head)
    kind = rows[0].effect.kind
    influence = {"output": kind, "measure": "KL" if rows[0].effect.kl is not None
                 else "1 - cosine", "layer": int(trace.layer),
                 "heads": [{"head": r.head, "effect": float(r.effect.size),
                            "answer_weight": r.answer_weight,
                            "special_weight": r.special_weight} for r in rows]}
    return dataclasses.replace(trace, meta={**trace.meta, "influence": influence})
