"""`generate`: the film of a decoder writing, one token at a time, checked, drawn and
written as one set (the MP4, its .srt captions, its poster .png and a .json of the numbers
drawn; or a lecture pack): all of them, or — interrupted, failed — none, with every
earlier file kept. Drawn on the explainer's pipeline (``view_films``)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..attention_core.errors import InputError
from ..facts import WRITING_DEFAULTS
from .requests import ShortFilmRequest
from .signals import interrupts_held

__all__ = ["WriteRequest", "WriteResult", "write"]


@dataclass(frozen=True, kw_only=True)
class WriteRequest(ShortFilmRequest):
    """What `generate` is asked: the prompt, the decoder folder and how many tokens it
    writes; and the film's (layer, heads, ..., ``ShortFilmRequest``)."""
    sentence: str
    model: str
    tokens: int = WRITING_DEFAULTS["tokens"]


@dataclass(frozen=True)
class WriteResult:
    files: list[Path]
    generation: object
    render: object = None         # the render's facts (``RenderResult``)


def write(request: WriteRequest, *, report=None, progress=None) -> WriteResult:
    """Check the outputs' place and the drawing, let the decoder write, then draw and
    write the set (one drawing at a time in a process)."""
    from .work import check_printable, drawing_turn, use_theme

    with drawing_turn():
        if not request.sentence.strip():
            raise InputError("the prompt is empty; give the text the model continues.")
        from ..attention_core.api import count_tokens
        from .work import check_drawable

        # the cache row holds the prompt and every token written: render's drawing limit
        check_drawable(count_tokens(request.sentence, request.model) + request.tokens,
                       request.max_tokens, what="prompt with the tokens written")
        from .view_films import check_outputs, film_of

        steps = [f"step{n}" for n in range(1, request.tokens + 1)]
        check_outputs(request, request.sentence, "writing", ["prompt", *steps, "sink"])
        use_theme(request.theme)
        check_printable(request.sentence, "prompt")
        with interrupts_held():              # the first import of torch
            from ..attention_core.api import TraceRequest
            from ..attention_core.generation import generate

            generation = generate(TraceRequest(sentence=request.sentence, model=request.model,
                                               layer=request.layer, heads=request.heads,
                                               device=request.device, dtype=request.dtype),
                                  request.tokens)
            # the model's own tokens, drawn and named
            drawn = [*generation.prompt, *(w.text for w in generation.written),
                     *(t for w in generation.written for t, _ in w.top)]
            check_printable("".join(drawn), "model's writing")
        made = film_of(request, replace(generation, sentence=request.sentence),
                       report=report, progress=progress)
    return WriteResult(made.files, generation, made.render)
