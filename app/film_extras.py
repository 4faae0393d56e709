"""What a film adds to its trace before it is drawn (the drawing runs no model): every head
of the layer silenced and measured (the influence beat), a minimal pair's second sentence
(the versus beat, ``--versus``)."""
from __future__ import annotations

from ..attention_core.errors import InputError
from .requests import FilmRequest, TraceOptions
from .signals import interrupts_held

__all__ = ["beats_of", "pair_tracing", "paired_with", "with_influence", "with_versus_beat"]


def beats_of(request: FilmRequest) -> list[str]:
    from ..scenes.film.registry import parse_beats

    return parse_beats(request.video.beats or "all")


def with_influence(trace, tracing: TraceOptions | None):
    """The trace with every head of its layer silenced and measured, for the influence
    beat (the model runs again: the drawing never does)."""
    if "influence" in trace.meta:
        return trace
    if tracing is None:
        raise InputError("the influence beat silences heads in the model: give the sentence, "
                         "not a saved trace (--trace) without them.")
    with interrupts_held():
        from ..attention_core.ablation import with_influence as measured

        return measured(trace, tracing.request(trace.sentence))


def paired_with(trace, request: FilmRequest):
    """The film's trace carrying its minimal pair (``.versus``: sentence B on A's model,
    layer, heads and focus word), checked as ``compare`` checks it."""
    if request.tracing is None:
        raise InputError("--versus compares two sentences: give sentence A as text, not a "
                         "saved trace (--trace).")
    with interrupts_held():
        from ..attention_core.api import trace_for
        from ..attention_core.compare import compare_sentences, paired

        asked = pair_tracing(request.tracing, trace.sentence, request.versus).request(
            trace.sentence)
        comparison = compare_sentences(asked, request.versus,
                                       compute=lambda req: trace if req is asked
                                       else trace_for(req))
    return paired(comparison.a, comparison.b)


def pair_tracing(tracing, sentence: str, versus: str | None):
    """The trace options of a minimal pair's sentence A: with no --focus, its focus is the
    word the pair changes, where it changes one (``compare.pair_focus``: the pronoun of a
    pronoun pair), so that A is traced once, on the word both films ask about."""
    if versus is None or (tracing.focus or "").strip():
        return tracing
    import dataclasses

    from ..attention_core.compare import focus_of_pair

    asked = focus_of_pair(tracing.request(sentence), versus)
    return tracing if asked is None else dataclasses.replace(tracing, focus=asked)


def with_versus_beat(request: FilmRequest) -> FilmRequest:
    """A film with a second sentence ends with the versus beat, named or not."""
    import dataclasses

    beats = beats_of(request)
    if request.versus is None or "versus" in beats:
        return request
    video = dataclasses.replace(request.video, beats=",".join([*beats, "versus"]))
    return dataclasses.replace(request, video=video)
