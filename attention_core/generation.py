"""A decoder writes: the sentence continued by greedy tokens from the model's own
language-model head, one token at a time with its key/value cache, as ``generate`` does.

Each new token is fed back in; its query in the chosen layer meets the cache of keys (the
prompt's and every token written so far). Its weights there are recomputed from the query
and the cached keys the model's own attention was given (checked against the model's
weights before anything is said), with the first token's share of them (an attention
sink where it is large) and the next token's likeliest choices from the model.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..facts import MAX_NEW_TOKENS_RANGE
from .errors import InputError
from .lm_head import with_lm_head
from .numbers_file import numbers_fingerprint, save_json

__all__ = ["Generation", "MAX_NEW_TOKENS", "SINK_SHARE", "WrittenToken", "generate",
           "sink_line"]

MAX_NEW_TOKENS = MAX_NEW_TOKENS_RANGE[1]
SINK_SHARE = 0.5          # a first token's mean share above this is named a sink
TOP = 5


@dataclass(frozen=True)
class WrittenToken:
    """One token written: the distribution it was chosen from (its five likeliest), and
    then, fed back in, its query's weights in the chosen layer over the cache."""
    token_id: int
    text: str
    probability: float                  # as chosen (greedy: the largest)
    top: list                           # [(text, probability)] of the distribution
    weights: np.ndarray                 # heads x keys: this token's query over the cache
    keys: list                          # the cache's tokens, as texts, first to this one

    @property
    def first_share(self) -> np.ndarray:
        return self.weights[:, 0]


@dataclass(frozen=True)
class Generation:
    prompt: list                        # the prompt's tokens, as texts
    written: list                       # WrittenToken, in order
    layer: int
    heads: list
    model: str
    stopped: str                        # why it stopped: "length" or "end of text"
    sentence: str = ""                  # the prompt as the user wrote it
    storyboard: ClassVar[str] = "writing"      # the film it is drawn by

    @property
    def steps(self) -> int:
        """Tokens written: a step of the film each."""
        return len(self.written)

    def number(self, kind: str, index: tuple) -> float:
        """A number the film draws, by kind: "probability" (step, rank) in its
        distribution's five likeliest; "first_share" (step,), the first token's share of
        the new query's weight (the heads' mean); "mean_first_share" (), over every step."""
        if kind == "probability":
            return float(self.written[index[0]].top[index[1]][1])
        if kind == "first_share":
            return float(self.written[index[0]].weights.mean(axis=0)[0])
        if kind == "mean_first_share":
            return self.mean_first_share()
        raise KeyError(kind)

    def fingerprint(self) -> str:
        """A hash of everything the film draws (the beat cache's key)."""
        return numbers_fingerprint(self.storyboard, self.sentence, self.to_json())

    def save(self, path) -> None:
        """The numbers drawn, as JSON (the film's sidecar)."""
        save_json(path, self.to_json())

    @property
    def text(self) -> str:
        return "".join(w.text for w in self.written)

    def mean_first_share(self) -> float:
        return float(np.mean([w.first_share.mean() for w in self.written]))

    def to_json(self) -> dict:
        return {"model": self.model, "layer": self.layer, "heads": self.heads,
                "prompt": self.prompt, "written": self.text, "stopped": self.stopped,
                "mean_first_share": self.mean_first_share(),
                "tokens": [{"id": w.token_id, "text": w.text, "probability": w.probability,
                            "top": [{"text": t, "probability": p} for t, p in w.top],
                            "keys": w.keys, "weights": w.weights.tolist(),
                            "first_share": w.first_share.tolist()} for w in self.written]}


def _decoder_files(setup):
    from .hf_models import HFModelFiles

    files = setup.kind.files
    if not isinstance(files, HFModelFiles) or not files.family.causal:
        raise InputError(f"--generate continues a sentence with a decoder's language-model "
                         f"head; {setup.req.model} is an encoder (it reads a sentence whole, "
                         "it does not write): give a GPT-2, Llama, Mistral or Qwen2 folder.")
    return files


def _checked_row(files, watch, setup) -> np.ndarray:
    """The fed token's weights over the cache (heads x keys), recomputed from the query
    and the cached keys the model's attention was given, against the model's own."""
    import torch

    from .attention import attend
    from .bert import to_numpy
    from .hf_models import agreement_tolerance, heads_and_mask, model_scores

    q, k, v, _ = heads_and_mask(files, watch)
    scores = model_scores(files, watch, q[:, :, -1:].float(), k.float())
    if watch.mask is not None:          # additive, as the model built it (a query sees all)
        scores = scores + watch.mask[:, :, -1:, : k.shape[2]].float()
    weights, _ = attend(scores, v.float(), None)
    own = watch.weights[:, :, -1:].float()
    gap = float((weights - own).abs().max())
    if not gap <= agreement_tolerance(setup.dtype):
        raise RuntimeError(f"recomputed weights differ from the model's by {gap:.2e}")
    return to_numpy(weights[0, :, 0].to(torch.float64))


def _layer_and_heads(setup, files) -> tuple[int, list]:
    layer = files.num_layers - 1 if setup.layer_spec == "auto" else int(setup.layer_spec)
    heads = list(range(files.num_heads)) if setup.head_spec in ("auto", "all") \
        else list(setup.head_spec)
    return layer, heads


def generate(req, count: int) -> Generation:
    """``count`` greedy tokens after ``req.sentence`` (fewer where the model writes its
    end-of-text token), each with its query's weights over the cache in the request's
    layer (auto: the last) and heads (auto: all)."""
    import torch

    from .api import setup_of
    from .device import one_cpu_thread
    from .hf_models import _WATCH

    if not 1 <= count <= MAX_NEW_TOKENS:
        raise InputError(f"--generate {count}: give 1 to {MAX_NEW_TOKENS} new tokens.")
    setup = setup_of(req)
    files = _decoder_files(setup)
    room = files.max_positions - len(setup.tokens.ids)
    if count > room:
        raise InputError(f"--generate {count}: the prompt's {len(setup.tokens.ids)} tokens and "
                         f"{count} new ones are more than the model's {files.max_positions} "
                         f"positions; ask for at most {max(room, 0)}.")
    layer, heads = _layer_and_heads(setup, files)
    model = with_lm_head(files, setup.device, setup.dtype, needed_for="--generate",
                         watched=True)
    tokenizer = files.tokenizer
    end = getattr(model.generation_config, "eos_token_id", None)
    ends = set(end if isinstance(end, list) else [end] if end is not None else [])
    ids = torch.tensor([setup.tokens.ids], device=setup.device)
    keys = [tokenizer.decode([i]) for i in setup.tokens.ids]
    written, stopped = [], "length"
    with one_cpu_thread(), torch.inference_mode():
        out = model(input_ids=ids, use_cache=True)
        for _ in range(count):
            probs = torch.softmax(out.logits[0, -1].double(), dim=-1)
            top = torch.topk(probs, TOP)
            token = int(top.indices[0])
            keys.append(tokenizer.decode([token]))
            _WATCH.calls = calls = []
            try:
                out = model(input_ids=torch.tensor([[token]], device=setup.device),
                            cache=out.cache, use_cache=True, output_attentions=True)
            finally:
                _WATCH.calls = None
            row = _checked_row(files, calls[layer], setup)[heads]
            written.append(WrittenToken(token, keys[-1], float(top.values[0]),
                                        [(tokenizer.decode([int(i)]), float(p))
                                         for i, p in zip(top.indices, top.values)],
                                        row, list(keys)))
            if token in ends:
                stopped = "end of text"
                break
    return Generation(keys[:len(setup.tokens.ids)], written, layer, heads, files.title,
                      stopped)


def sink_line(generation: Generation) -> str | None:
    """Where the first token takes most of the new tokens' weight: what it is, and why."""
    share = generation.mean_first_share()
    if share <= SINK_SHARE:
        return None
    return (f"The first token takes {100 * share:.0f} % of each new token's weight in layer "
            f"{generation.layer} (mean over the heads shown): an attention sink. A softmax "
            "must give a row's whole weight somewhere; a head with nothing to look for "
            "learns to park it on the first token, which every query can see (Xiao et al. "
            "2023, attention sinks).")
