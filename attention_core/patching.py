"""Activation patching between a minimal pair: one head's output (its weights times its
values, every position, before W_O) taken from sentence B's run and put into A's, and
how far that moves A's output (the next token's KL for a decoder, the sentence
embedding's angle for an encoder), head by head. Silencing asks what a head adds at all;
patching asks what the pair's difference does through this head. Nothing here draws."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .ablation import Effect, _effect, _Runner
from .errors import InputError

__all__ = ["PatchedHead", "patch_heads", "patch_lines", "patch_streams"]


@dataclass(frozen=True)
class PatchedHead:
    """Head ``head`` of ``layer`` patched from B into A: the effect on A's output."""
    layer: int
    head: int
    effect: Effect

    def to_json(self) -> dict:
        doc = self.effect.to_json()
        doc.pop("silenced")
        return {"layer": self.layer, "head": self.head, **doc}


def _runner_and_b(req_a, sentence_b: str):
    """A's model loaded, and B's ids, of the same number of tokens as A's."""
    import torch

    from .api import setup_of

    runner = _Runner(req_a)
    other = setup_of(dataclasses.replace(req_a, sentence=sentence_b, focus=None))
    ids_b = torch.tensor([other.tokens.ids], device=runner.setup.device)
    if ids_b.shape[1] != runner.ids.shape[1]:
        raise InputError(f"--patch puts B's heads into A's positions: A has "
                         f"{runner.ids.shape[1]} tokens and B {ids_b.shape[1]}; give a pair "
                         "of the same number of tokens (as `inspect` lists them).")
    return runner, ids_b


def patch_streams(req_a, sentence_b: str) -> list[tuple[int, Effect]]:
    """The residual stream at A's focus word, entering each layer, taken from B's run and
    put into A's alone: (layer, its effect on A's output), layer by layer."""
    runner, ids_b = _runner_and_b(req_a, sentence_b)
    f = int(runner.setup.focus.index)
    streams_b = runner.streams(ids_b)
    before = runner.output()
    return [(n, _effect(runner, before, runner.output(entering=(n, f, stream[f])), ()))
            for n, stream in enumerate(streams_b)]


def patch_heads(req_a, sentence_b: str, layer: int) -> list[PatchedHead]:
    """Every head of ``layer``, each alone patched from ``sentence_b``'s run into
    ``req_a``'s (a TraceRequest), by the size of its effect (largest first)."""
    runner, ids_b = _runner_and_b(req_a, sentence_b)
    kind = runner.setup.kind
    if not 0 <= layer < kind.num_layers:
        raise InputError(f"--patch at layer {layer}: the model has layers 0 to "
                         f"{kind.num_layers - 1}.")
    outputs_b = runner.head_outputs(ids_b)[layer]            # H x T x d_k
    before = runner.output()
    rows = [PatchedHead(layer, head, _effect(runner, before, runner.output(
        replaced={layer: {head: outputs_b[head]}}), ((layer, head),)))
        for head in range(kind.num_heads)]
    return sorted(rows, key=lambda r: (-r.effect.size, r.head))


def patch_lines(rows: list[PatchedHead], sentence_a: str, sentence_b: str,
                streams: list | None = None, focus: str = "") -> list[str]:
    """The heads of a layer patched from B into A, largest effect first, and the stream
    at the focus word entering each layer, for the terminal."""
    kind = rows[0].effect.kind if rows else "output"
    lines = [f"patching layer {rows[0].layer if rows else '?'}: each head's output from B put "
             f"into A's run alone (every position, before W_O); the change of A's {kind}",
             f"  A  {sentence_a}", f"  B  {sentence_b}"]
    lines += [f"  head {r.head:>2}  {r.effect.said()}" for r in rows]
    if streams:
        lines += [f"patching the residual stream at {focus!r} entering each layer, from B "
                  "into A's run alone; the change of A's output"]
        lines += [f"  layer {n:>2}  {effect.said()}" for n, effect in streams]
    return lines
