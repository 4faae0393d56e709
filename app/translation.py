"""`translate`: the film of a translation's cross-attention, checked, drawn and written as
one set (the MP4, its .srt captions, its poster .png — the alignment and the answer — and a
.json of the numbers drawn; or a lecture pack): all of them, or — interrupted, failed —
none, with every earlier file kept. Drawn on the explainer's pipeline (``view_films``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..attention_core.errors import InputError
from ..facts import TRACE_DEFAULTS, TRANSLATION_BEATS, TRANSLATION_DEFAULTS
from .requests import ShortFilmRequest
from .signals import interrupts_held

__all__ = ["TranslateRequest", "TranslateResult", "translate"]


@dataclass(frozen=True, kw_only=True)
class TranslateRequest(ShortFilmRequest):
    """What `translate` is asked: the source sentence, the model (an encoder–decoder folder
    or scratch), the translation (None: the model's own, greedy), the focus word, the
    longest translation it writes, the scratch model's sizes; and the film's (layer, heads,
    ..., ``ShortFilmRequest``)."""
    sentence: str
    model: str = TRANSLATION_DEFAULTS["model"]
    target: str | None = None
    focus: str | None = None
    max_new_tokens: int = TRANSLATION_DEFAULTS["max_new_tokens"]
    seed: int = TRACE_DEFAULTS["seed"]
    d_model: int = TRACE_DEFAULTS["d_model"]
    num_heads: int = TRACE_DEFAULTS["num_heads"]


@dataclass(frozen=True)
class TranslateResult:
    files: list[Path]
    view: object
    render: object = None         # the render's facts (``RenderResult``)


def translate(request: TranslateRequest, *, report=None, progress=None) -> TranslateResult:
    """Check the outputs' place and the drawing, run the model, then draw and write the
    set (``progress``: told of each beat, as a render's)."""
    from .work import drawing_turn

    with drawing_turn():          # one drawing at a time in a process (the API's threads)
        return _translated(request, report, progress)


def _translated(request: TranslateRequest, report, progress) -> TranslateResult:
    from .work import check_printable, use_theme

    if not request.sentence.strip():
        raise InputError("the sentence is empty; give the source sentence to translate.")
    if request.target is not None and not request.target.strip():
        raise InputError("--target is empty; give the translation, or leave it out to "
                         "read the model's own.")
    if request.focus is not None and not request.focus.strip():
        raise InputError("--focus is empty; give a word of the translation, or leave it out "
                         "for the most decided one.")
    if request.model == "scratch" and request.layer not in ("auto", "0"):
        # its encoder, decoder and cross-attention are one seeded module each
        raise InputError(f"--layer {request.layer}: the scratch encoder–decoder has one layer, "
                         "0; give --layer 0 or auto, or a model folder with more.")
    from .view_films import check_outputs, film_of

    check_outputs(request, request.sentence, "translation", list(TRANSLATION_BEATS))
    # a hostile folder refused at once: its files and config.json as written, then (after
    # the first import of torch, held: C++ calling Python) its sizes' memory; manim after
    from ..attention_core.translation import cross_view, translation_files

    files = translation_files(request.model)
    with interrupts_held():
        from ..attention_core.device import resolve_device, resolve_dtype

        device, dtype = resolve_device(request.device), resolve_dtype(request.dtype)
        if files is not None:
            files.check_memory(device, dtype)
    use_theme(request.theme)             # manim and the fonts are there, before the model runs
    check_printable(request.sentence)
    if request.target is not None:
        check_printable(request.target, "target")
    # the model's loading and runs (C++ calling Python): held, as every face holds them; a
    # Ctrl-C meanwhile is acted on as they end
    with interrupts_held():
        view = cross_view(request.model, request.sentence, target=request.target,
                          focus=request.focus, layer=request.layer, heads=request.heads,
                          max_new_tokens=request.max_new_tokens, seed=request.seed,
                          d_model=request.d_model, num_heads=request.num_heads,
                          device=device, dtype=dtype)
    if request.target is None:           # the model's own words, drawn as its tokens
        check_printable("".join(view.target_raw), "model's translation")
    from .work import check_drawable

    check_drawable(len(view.source), request.max_tokens)      # render's limit, each row
    check_drawable(len(view.target), request.max_tokens, what="translation")
    from dataclasses import replace

    made = film_of(request, replace(view, sentence=request.sentence), report=report,
                   progress=progress)
    return TranslateResult(made.files, view, made.render)
