"""What `inspect` and `compare` print, made here: the trace with what else was asked of it
(the atlas's diagnosis, a cheaper attention's keeps, silenced heads, the flow across
layers, a head's score split), an encoder–decoder's attention, what a decoder writes, and
a minimal pair with its patching and noise floor, each as its lines or its JSON document.
The faces choose which to show; the numbers come from ``attention_core``."""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from .requests import TraceOptions
from .signals import interrupts_held
from .traces import check_flow_method
from .work import beat_cache, compare, compute_trace, noise_floor, patch

__all__ = ["Inspection", "InspectRequest", "PairReport", "alignment_report", "check_flow_method",
           "inspection", "is_seq2seq", "pair_report", "writing_report"]


@dataclass(frozen=True)
class InspectRequest:
    """One sentence's trace and what else to measure on it (`inspect`'s options)."""
    sentence: str
    tracing: TraceOptions
    matrix: bool = False
    diagnose: bool = False
    approx: str = "none"
    ablate: str | None = None
    ablation: bool = False
    flow_method: str | None = None
    why: bool = False
    npz: Path | None = None
    force: bool = False


@dataclass
class Inspection:
    """The trace and what was measured beside it; ``lines()`` and ``to_json()``."""
    request: InspectRequest
    trace: object
    atlas: object = None
    kept: list = field(default_factory=list)
    effect: object = None
    table: list = field(default_factory=list)
    flowed: object = None
    split: object = None
    saved: Path | None = None

    def to_json(self) -> str:
        from ..attention_core import report

        extra: dict = {"ablation": self.effect.to_json()} if self.effect is not None else {}
        if self.flowed is not None:
            extra["flow"] = self.flowed.to_json()
        if self.split is not None:
            extra["why"] = self.split.to_json()
        if self.table:
            extra["influence"] = [{"layer": r.layer, "head": r.head,
                                   "answer_weight": r.answer_weight,
                                   "special_weight": r.special_weight, **r.effect.to_json()}
                                  for r in self.table]
        return report.to_json(self.trace, self.atlas, self.kept, extra)

    def lines(self) -> list[str]:
        from ..attention_core import report

        trace = self.trace
        lines = report.summary_lines(trace) + report.choice_lines(trace) + [""] \
            + report.focus_table(trace) + [""] + report.update_lines(trace)
        parts = [report.matrix_lines(trace) if self.request.matrix else [],
                 report.keeps_lines(trace, self.kept) if self.kept else [],
                 report.effect_line(self.effect) if self.effect is not None else [],
                 report.influence_lines(trace, self.table) if self.table else [],
                 self.flowed.lines() if self.flowed is not None else [],
                 self.split.lines() if self.split is not None else [],
                 report.diagnosis_lines(self.atlas) if self.atlas is not None else [],
                 [f"trace saved to {self.saved}"] if self.saved is not None else []]
        for part in parts:
            if part:
                lines += [""] + part
        return lines


def inspection(request: InspectRequest, *, report=None) -> Inspection:
    """The trace of ``request`` and every measure it asks for; its trace saved to
    ``request.npz`` (checked before the model runs, written whole or not at all)."""
    from ..attention_core.variants import parse_approx
    from ..files.outputs import OutputSet

    check_flow_method(request.flow_method)
    approximation = parse_approx(request.approx)
    saving = None
    if request.npz is not None:
        saving = OutputSet({"trace": Path(request.npz)}, force=request.force, what="trace",
                           hint="choose another --npz").check()
    sentence, tracing = request.sentence, request.tracing
    trace = compute_trace(sentence, tracing, beat_cache(False, renders=False))
    result = Inspection(request, trace)
    if request.diagnose:
        with interrupts_held():
            from ..attention_core.api import atlas_for

            result.atlas = atlas_for(tracing.request(sentence))
    result.kept = _measured_variant(trace, approximation)
    result.effect, result.table = _silenced_heads(request, trace)
    result.flowed, result.split = _across_layers(request)
    if saving is not None:
        with saving.opened(report=report):
            trace.save(saving.path("trace"))
            saving.commit()
        result.saved = saving.files["trace"]
    return result


def _measured_variant(trace, approximation) -> list:
    """What the cheaper attention asked for keeps of each shown head: the approximation,
    else the mask asked for where it is not the model's own; none when neither."""
    from ..attention_core.keeps import keeps

    if approximation is not None:
        return keeps(trace, approximation)
    if trace.meta.get("mask_is_illustration"):
        return keeps(trace, trace.mask_kind)
    return []


def _across_layers(request: InspectRequest):
    """The focus word's sources through every layer (``--flow``) and its scores split by
    the stream's parts (``--why``): (Flow or None, ScoreParts or None)."""
    flowed = split = None
    asked = request.tracing.request(request.sentence)
    with interrupts_held():
        if request.flow_method is not None:
            from ..attention_core.flow import flow_for

            flowed = flow_for(asked, request.flow_method)
        if request.why:
            from ..attention_core.why import why_for

            split = why_for(asked)
    return flowed, split


def _silenced_heads(request: InspectRequest, trace):
    """The effect of silencing the heads ``ablate`` names, and (``ablation``) every head
    of the trace's layer ranked by its own: (Effect or None, rows or [])."""
    if request.ablate is None and not request.ablation:
        return None, []
    with interrupts_held():
        from ..attention_core import ablation as silencing

        asked = request.tracing.request(request.sentence)
        effect = silencing.ablation_effect(asked, request.ablate) \
            if request.ablate is not None else None
        table = silencing.ablation_table(trace, asked) if request.ablation else []
    return effect, table


# ---- an encoder–decoder's attention, and what a decoder writes ----------------------------
def is_seq2seq(model: str) -> bool:
    """Whether ``model`` is an encoder–decoder folder (Marian, BART, mBART, T5, mT5)."""
    from ..attention_core.seq2seq import seq2seq_files

    return seq2seq_files(model) is not None


def alignment_report(sentence: str, tracing: TraceOptions, *, attention: str | None,
                     target: str | None, max_new_tokens: int, as_json: bool) -> str:
    """An encoder–decoder folder's attention on ``sentence`` (cross, self or decoder),
    as text or as a JSON document (with the focus word's rows where one is named)."""
    from ..attention_core import report
    from ..attention_core.seq2seq import seq2seq_files

    with interrupts_held():
        from ..attention_core.device import resolve_device, resolve_dtype
        from ..attention_core.seq2seq import align

        result = align(seq2seq_files(tracing.model), sentence, target=target,
                       kind=attention or "cross", layer=tracing.layer, heads=tracing.heads,
                       max_new_tokens=max_new_tokens, device=resolve_device(tracing.device),
                       dtype=resolve_dtype(tracing.dtype))
    if as_json:
        doc = result.to_json()
        if tracing.focus:
            doc["focus_rows"] = result.rows_of(tracing.focus)
        return json.dumps(doc, ensure_ascii=False)
    return "\n".join(report.alignment_lines(result, tracing.focus or None))


def writing_report(sentence: str, count: int, tracing: TraceOptions, *, as_json: bool) -> str:
    """What a decoder writes after ``sentence``, ``count`` greedy tokens, each with its
    query over the growing cache of keys: text, or a JSON document."""
    from ..attention_core import report

    with interrupts_held():
        from ..attention_core.generation import generate

        generation = generate(tracing.request(sentence), count)
    if as_json:
        return json.dumps(generation.to_json(), ensure_ascii=False)
    return "\n".join(report.generation_lines(generation))


# ---- a minimal pair -------------------------------------------------------------------------
@dataclass
class PairReport:
    """A minimal pair compared, with each head patched from B into A (``patched``) and the
    noise floor of random pairs (``noise``) where asked."""
    sentence_a: str
    sentence_b: str
    comparison: object
    patched: tuple | None = None
    noise: object = None

    def to_json(self) -> str:
        doc = self.comparison.to_json()
        if self.patched is not None:
            rows, streams = self.patched
            doc["patch"] = [r.to_json() for r in rows]
            doc["patch_stream"] = [{"layer": n, **{k: v for k, v in e.to_json().items()
                                                   if k != "silenced"}} for n, e in streams]
        if self.noise is not None:
            doc["noise"] = self.noise
        return json.dumps(doc, ensure_ascii=False)

    def lines(self) -> list[str]:
        from ..attention_core import report
        from ..attention_core.patching import patch_lines

        comparison = self.comparison
        lines = report.compare_lines(comparison)
        if self.patched is not None:
            rows, streams = self.patched
            lines += [""] + patch_lines(rows, self.sentence_a, self.sentence_b, streams,
                                        comparison.a.display_tokens[comparison.a.focus_index])
        if self.noise is not None:
            lines += ["", report.noise_line(self.noise)]
        return lines


def pair_report(sentence_a: str, sentence_b: str, tracing: TraceOptions, *,
                patch_heads: bool = False, noise: bool = False) -> PairReport:
    """The pair compared (the layer, heads and focus word chosen on ``sentence_a``), and
    what else is asked of it."""
    comparison = compare(sentence_a, sentence_b, tracing)
    result = PairReport(sentence_a, sentence_b, comparison)
    if patch_heads:
        # patched at the pair's own focus word (compare may choose the word the pair changes)
        asked = replace(tracing, focus=str(comparison.a.meta["focus"]))
        result.patched = patch(sentence_a, sentence_b, asked, int(comparison.a.layer))
    if noise:
        result.noise = noise_floor(sentence_a, tracing, comparison)
    return result
