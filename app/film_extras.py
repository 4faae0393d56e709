"""What a film adds to its trace before it is drawn (the drawing runs no model): every head
of the layer silenced and measured (the influence beat), a minimal pair's second sentence
(the versus beat, ``--versus``); and what it adds to its frames (``--burn-captions``)."""
from __future__ import annotations

from ..attention_core.errors import InputError
from .requests import FilmRequest, TraceOptions
from .signals import interrupts_held

__all__ = ["MEASURED", "beats_of", "check_burnt_film", "pair_tracing", "paired_with",
           "with_measures",
           "with_versus_beat"]


def check_burnt_film(request: FilmRequest, output) -> None:
    """Captions are burnt into an MP4 or a WebM (a GIF's palette and narrowed frame would
    blur them), of a size that leaves room for them below a picture that can be drawn."""
    if not request.burn_captions:
        return
    if output.suffix.lower() == ".gif":
        raise InputError(f"--burn-captions: {output} is a GIF, whose 256 colours and narrow "
                         "frame would blur the captions; give -o NAME.mp4 or NAME.webm.")
    from ..facts import MIN_SIZE
    from ..scenes.pipeline.burn import picture_size, smallest_film

    width, height = request.video.width, request.video.height
    picture = picture_size(width, height)
    if picture[0] < MIN_SIZE[0] or picture[1] < MIN_SIZE[1]:
        least = smallest_film(width, height)
        raise InputError(f"--burn-captions: at {width}x{height} the picture above the "
                         f"captions would be {picture[0]}x{picture[1]}, below the smallest "
                         f"drawn ({MIN_SIZE[0]}x{MIN_SIZE[1]}); give a --resolution of at "
                         f"least {least[0]}x{least[1]}.")


def beats_of(request: FilmRequest) -> list[str]:
    from ..scenes.film.registry import parse_beats

    return parse_beats(request.video.beats or "all", request.source)   # its film's beats


# each measured beat: (its meta key, what the model must do for it, where that is made)
MEASURED = {"influence": ("silences heads in the model", "attention_core.ablation",
                          "with_influence"),
            "flow": ("runs the model through every layer", "attention_core.flow", "with_flow"),
            "why": ("splits the model's stream", "attention_core.why", "with_why")}


def with_measures(trace, beats, tracing: TraceOptions | None):
    """The trace with what its measured beats (influence, flow, why) need from the model,
    computed before the film (the model runs again: the drawing never does); a saved trace
    without them is refused in one line."""
    import importlib

    for beat, (needs, module, maker) in MEASURED.items():
        if beat not in beats or beat in trace.meta:
            continue
        if tracing is None:
            raise InputError(f"the {beat} beat {needs}: give the sentence, not a saved trace "
                             "(--trace) without it.")
        with interrupts_held():
            made = getattr(importlib.import_module(f"..{module}", __package__), maker)
            trace = made(trace, tracing.request(trace.sentence))
    return trace


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
