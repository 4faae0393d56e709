"""The Python API: the commands of the command line as functions, for scripts and notebooks.

    import attention_explainer as ae

    t = ae.trace("The cat ate the fish", focus="ate")
    film = ae.render(t, "cat.mp4", resolution="720p")    # shows inline in Jupyter
    stills = ae.frames(t, "stills", beats="sparks,pull")  # so do these

Each function asks the application (``app``) for the same work the CLI asks it for, with
the same checks: what the CLI refuses with exit 2 and one line, these raise
:class:`InputError` with that line. Like the CLI, they take their defaults from a settings
file in the working folder and from ATTENTION_EXPLAINER_* variables; :func:`trace` alone takes only its arguments (it is the
library's own call, as ``inspect`` computes it). A
sentence or a trace (:func:`trace`, or ``AttentionTrace.load``) can be drawn; the results
hold the paths written, and in Jupyter a film displays as a video with its captions, stills
and an atlas as pictures.

Every argument's type is checked before any work (a list, bytes or None where a sentence
goes, "no" where True or False goes: InputError, one line). The functions may be called
from several threads: one draws at a time in a process (manim's configuration and the
colour theme are the process's), the others wait their turn; nothing is printed to
stdout (a note for the user goes to stderr), and no command line runs: neither click nor
the CLI is imported here.
"""
from __future__ import annotations

import html
import numbers
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .facts import DEFAULT_SENTENCE, DEFAULT_STILLS_DIR
from .app.arguments import beats as _beats, flag as _flag, force as _force, length as _length
from .app.arguments import path as _path, refuse as _refuse, text as _text, times as _times
from .app.arguments import millimetres as _millimetres, whole as _whole
from .app.arguments import film_settings as _film_settings
from .app.arguments import with_film_settings as _with_film_settings
from .attention_core.errors import InputError
from .app.results import Atlas, Film, Pack, Stills
from .facts import TRANSLATION_DEFAULTS

__all__ = ["Atlas", "Film", "InputError", "Pack", "Stills", "View", "atlas",
           "attentions", "compare", "flow", "frames", "generate", "pack", "render", "trace",
           "translate",
           "view"]


def trace(sentence: str = DEFAULT_SENTENCE, *, model: str = "minilm", focus: str | None = None,
          layer: str | int = "auto", heads: str = "auto", mask: str = "none",
          device: str = "auto", dtype: str = "float32", **scratch):
    """The model's attention on ``sentence``: an ``AttentionTrace`` (what ``inspect``
    prints). ``model`` is minilm, scratch or a local Hugging Face folder; ``scratch``
    options: d_model, num_heads, seed. Raises InputError."""
    from .app import traces

    _text("sentence", sentence)
    options = _trace_options(dict(model=model, focus=focus, layer=layer, heads=heads,
                                  mask=mask, device=device, dtype=dtype, **scratch))
    return traces.trace(sentence, options)


def compare(sentence_a: str = DEFAULT_SENTENCE, sentence_b: str | None = None, *,
            model: str = "minilm",
            focus: str | None = None, layer: str | int = "auto", heads: str = "auto",
            mask: str = "none", device: str = "auto", dtype: str = "float32", **scratch):
    """A minimal pair (what ``compare`` prints): the layer, heads and focus word chosen on
    ``sentence_a``, used on both; the words aligned, the focus word's weights in both and
    the update's shares (``.pairs``, ``.weight()``, ``.change()``, ``.share()``,
    ``.summary()``, ``.to_json()``). Raises InputError."""
    from .app import traces

    options = _trace_options(dict(model=model, focus=focus, layer=layer, heads=heads,
                                  mask=mask, device=device, dtype=dtype, **scratch))
    _text("sentence_a", sentence_a)
    _text("sentence_b", sentence_b)
    return traces.pair(sentence_a, sentence_b, options)


def flow(sentence: str = DEFAULT_SENTENCE, method: str = "rollout", *, model: str = "minilm",
         focus: str | None = None, device: str = "auto", dtype: str = "float32"):
    """Where each word's information comes from through every layer (what ``inspect
    --flow`` prints): ``method`` rollout, flow, value-zeroing or norms; a ``Flow`` with
    its tokens x tokens ``matrix`` (rows: the last layer's tokens), the last layer's
    ``raw`` weights and ``kendall_tau``, its agreement with leave-one-out at the focus
    word (``.lines()``, ``.to_json()``). Raises InputError."""
    from .app import traces

    _text("sentence", sentence)
    traces.check_flow_method(method)
    options = _trace_options(dict(model=model, focus=focus, device=device, dtype=dtype))
    return traces.flow(sentence, method, options)


def attentions(sentence: str = DEFAULT_SENTENCE, *, model: str = "minilm",
               device: str = "auto", dtype: str = "float32", as_torch: bool = False,
               **scratch):
    """Every layer's attention on ``sentence`` from one run of the model: q, k, v,
    scores, weights, the mask, each head's z and its output through W_O (L first; numpy
    float32, or torch tensors with ``as_torch``), the tokens and the words as written.
    Index it with TransformerLens's hook names: ``result["blocks.3.attn.hook_pattern"]``
    (H x T x T). ``scratch`` options: d_model, num_heads, seed. Raises InputError."""
    from .app import traces

    _text("sentence", sentence)
    if not isinstance(as_torch, bool):
        _refuse("as_torch", as_torch, "True or False")
    options = _trace_options(dict(model=model, device=device, dtype=dtype, **scratch))
    return traces.attentions(sentence, options, as_torch=as_torch)


# ---- the commands ---------------------------------------------------------------------------------
@_with_film_settings
def render(source=DEFAULT_SENTENCE, output: str | Path | None = None, *,
           resolution: str | None = None, fps: int | None = None, beats: str | None = None,
           theme: str | None = None, quality: str | None = None, force: bool = False,
           narration: str | Path | None = None, captions: str | Path | None = None,
           length: str | float | None = None, versus: str | None = None,
           burn_captions: bool = False, progress=None, **options) -> Film:
    """Render the film of ``source`` (a sentence or a trace) into ``output`` (.mp4, .webm or
    .gif; default: named after the sentence, as the command line names it).
    ``options``: the film's settings (``pace``, ...: ``FilmSettings``) and those of
    :func:`trace` when ``source`` is a sentence. An option
    left None is the command line's: the settings file's, a variable's, else its default.
    ``captions``: an .srt of your words for the film's captions (``--captions``);
    ``length``: "short", "full" or seconds (``--length``); ``versus``: a second sentence,
    a minimal pair (``--versus``: the film ends with the versus beat); ``burn_captions``:
    the captions drawn into the frames too (``--burn-captions``); ``pace``: "normal" or
    "slow" captions (``--pace``). ``progress(done, total, beat)`` is called as each beat is ready (a notebook's bar)."""
    from .app import work

    given = {"resolution": _text("resolution", resolution, none=True),
             "fps": _whole("fps", fps, none=True), "beats": _beats(beats),
             "quality": _text("quality", quality, none=True),
             "theme": _text("theme", theme, none=True),
             "narration": _path("narration", narration, none=True),
             "captions": _path("captions", captions, none=True),
             "length": _length(length), "output": _path("output", output, none=True)}
    watcher = _progress(progress)
    request = _film_request("render", source, given, options, _force(force),
                            versus=_text("versus", versus, none=True),
                            burn_captions=_flag("burn_captions", burn_captions))
    made = work.film(request, progress=watcher, report=_note)
    return Film(made.files[0], tuple(made.files))


@_with_film_settings
def frames(source=DEFAULT_SENTENCE, out: str | Path | None = DEFAULT_STILLS_DIR, *, beats: str | None = None,
           at: str | None = None, resolution: str | None = None, theme: str | None = None,
           format: str = "png", width_mm: float | None = None, force: bool = False,
           **options) -> Stills:
    """Stills of ``beats`` at ``at`` (seconds, key or end) into the folder ``out``: PNGs,
    or with ``format`` "svg" or "pdf" the same pictures as vector graphics for print, their
    labels as text, ``width_mm`` millimetres wide on paper if given; ``options``: the
    film's settings and :func:`trace`'s. An option left None is the command line's
    (settings, variables, default)."""
    from .app import work
    from .app.requests import StillsRequest
    from .app.values import resolved

    given = {"beat": _beats(beats), "at": _times(at),
             "resolution": _text("resolution", resolution, none=True),
             "theme": _text("theme", theme, none=True)}
    folder = _path("out", out, none=True) or DEFAULT_STILLS_DIR
    still_format = _text("format", format)
    force = _force(force)
    source, tracing, drawing, config, settings = _drawing_parts("frames", source, given,
                                                                options)
    value = {name: resolved("frames", name, given.get(name), config)
             for name in ("beat", "at", "resolution", "fps", "jobs", "no-cache")}
    request = StillsRequest(source=source, tracing=tracing, drawing=drawing,
                            beats=value["beat"], times=value["at"], out_dir=Path(folder),
                            resolution=value["resolution"], fps=value["fps"],
                            jobs=value["jobs"], no_cache=value["no-cache"], force=force,
                            format=still_format,
                            width_mm=_millimetres("width_mm", width_mm), settings=settings)
    made = work.stills(request, report=None)
    return Stills(Path(folder).absolute(),
                  tuple(p for p in made.files if p.suffix == f".{still_format}"))


@_with_film_settings
def pack(source=DEFAULT_SENTENCE, out: str | Path | None = None, *,
         resolution: str | None = None, fps: int | None = None, beats: str | None = None,
         theme: str | None = None, force: bool = False, narration: str | Path | None = None,
         captions: str | Path | None = None, length: str | float | None = None,
         pauses: str | None = None, burn_captions: bool = False, progress=None,
         **options) -> Pack:
    """The lecture pack of ``source`` into the folder ``out`` (None: named after the
    sentence in renders/, as the command line names it). An option left None is the
    command line's (settings, variables, default). ``pauses``: where the deck and slides
    stop (``--pauses``); ``burn_captions``: the captions drawn into the film's and every
    clip's frames. ``progress(done, total, beat)`` and ``options``: as :func:`render`'s."""
    from .app import work

    given = {"resolution": _text("resolution", resolution, none=True),
             "fps": _whole("fps", fps, none=True), "beats": _beats(beats),
             "theme": _text("theme", theme, none=True),
             "narration": _path("narration", narration, none=True),
             "captions": _path("captions", captions, none=True),
             "length": _length(length), "output": _path("out", out, none=True),
             "pauses": _text("pauses", pauses, none=True)}
    watcher = _progress(progress)
    made = work.film(_film_request("pack", source, given, options, _force(force),
                                   pack=True,
                                   burn_captions=_flag("burn_captions", burn_captions)),
                     progress=watcher, report=_note)
    folder = Path(out) if out is not None else Path(made.files[0]).parent
    return Pack(folder.absolute(), tuple(made.files))


def atlas(sentence: str = DEFAULT_SENTENCE, output: str | Path = "atlas.png", *,
          theme: str | None = None, force: bool = False, **trace_options) -> Atlas:
    """Every layer x head's weights on ``sentence``, tagged by pattern: a PNG and an SVG."""
    from .app import work
    from .app.requests import AtlasRequest

    work.atlas(AtlasRequest(**_picture("atlas", sentence, output, theme, force, trace_options)),
               report=_note)
    png = Path(output).absolute()
    return Atlas(png, png.with_suffix(".svg"))


@_with_film_settings
def translate(sentence: str, output: str | Path | None = None, *, target: str | None = None,
              model: str | None = None, focus: str | None = None, resolution: str | None = None,
              theme: str | None = None, force: bool = False, pack: bool = False,
              progress=None, **options) -> Film:
    """The film of ``sentence``'s translation (``target``, or the model's own) through an
    encoder–decoder folder or the scratch encoder–decoder (untrained: give ``target``), as
    the ``translate`` command draws it; ``options``: the command's others (layer, seed,
    narration, length, captions, pace, ...). An option left None is the command line's
    (settings, variables, default), and each is checked as the command line checks it;
    ``output`` None names the film after the sentence in renders/, as the command line
    does. The film's files: the video, its .srt captions, its poster (the alignment and
    the answer) and a .json of the numbers drawn; with ``pack``, ``output`` is a lecture
    pack's folder. ``progress(done, total, beat)``: as :func:`render`'s."""
    from .app.translation import TranslateRequest, translate as draw

    fields = _short_film("translate", TRANSLATE_TYPES, options, model=model, focus=focus,
                         resolution=resolution, theme=theme)
    made = draw(TranslateRequest(sentence=_text("sentence", sentence),
                                 target=_text("target", target, none=True),
                                 output=_optional_path("output", output),
                                 force=_force(force), pack=_flag("pack", pack), **fields),
                report=_note, progress=_progress(progress))
    return Film(made.files[0].absolute(), tuple(p.absolute() for p in made.files))


@_with_film_settings
def generate(sentence: str, output: str | Path | None = None, *, model: str | Path,
             resolution: str | None = None, theme: str | None = None, force: bool = False,
             pack: bool = False, progress=None, **options) -> Film:
    """The film of the decoder folder ``model`` writing after ``sentence``, one token at a
    time (the ``generate`` command); ``options``: its others (tokens, layer, heads,
    narration, length, ...), resolved and checked as :func:`translate`'s; ``output`` None:
    named as the command line names it; ``pack`` and ``progress``: as :func:`translate`'s."""
    from .app.writing import WriteRequest, write

    fields = _short_film("generate", GENERATE_TYPES, options, model=_path("model", model),
                         resolution=resolution, theme=theme)
    made = write(WriteRequest(sentence=_text("sentence", sentence),
                              output=_optional_path("output", output), force=_force(force),
                              pack=_flag("pack", pack), **fields),
                 report=_note, progress=_progress(progress))
    return Film(made.files[0].absolute(), tuple(p.absolute() for p in made.files))


@dataclass(frozen=True)
class View:
    """The interactive page of every layer and head: its HTML, and the file it was
    written to (None: kept in memory, as a notebook shows it)."""
    page: Path | None
    html: str = field(repr=False, default="")

    def _repr_html_(self) -> str:          # in its own frame: its script stays its own
        text = self.html or self.page.read_text(encoding="utf-8")
        return (f'<iframe srcdoc="{html.escape(text, quote=True)}" '
                'style="width:100%;max-width:100%;height:760px;border:0"></iframe>')


def view(sentence: str = DEFAULT_SENTENCE, output: str | Path | None = None, *,
         versus: str | None = None, theme: str | None = None, force: bool = False,
         **trace_options) -> View:
    """Every layer and head on ``sentence`` as one interactive, offline HTML page (the
    ``view`` command): every head of a layer at once, a token's weights as lines, the
    query·key products of a pair, a thumbnail of every layer × head, each head silenced;
    with ``versus``, a second sentence's view beside it at the same layer and head. Shows
    inline in Jupyter; written to ``output`` (an .html file) only when one is given."""
    from .app.requests import ViewRequest
    from .app.view import view as write
    from .app.view import view_html

    request = ViewRequest(**_picture("view", sentence, output, theme, force, trace_options),
                          versus=_text("versus", versus, none=True))
    if output is None:
        return View(None, view_html(request))
    write(request, report=_note)
    return View(Path(output).absolute(), request.output.read_text(encoding="utf-8"))


# ---- requests, built as the command line builds them -------------------------------------------
def _optional_path(name: str, value) -> Path | None:
    """An output path argument, or None (the command line's default name)."""
    given = _path(name, value, none=True)
    return None if given is None else Path(given)


def _note(line: str) -> None:
    """A note for the user (a cache that cannot be used, a long render's estimate): stderr,
    as the command line says it."""
    print(line, file=sys.stderr)


def _picture(command: str, sentence, output, theme, force, trace_options: dict) -> dict:
    """The request of a picture of every head (``atlas``, ``view``), its arguments checked
    and its options resolved as the command line resolves them."""
    from .app.settings_file import find_config
    from .app.values import resolved

    _text("sentence", sentence)
    path = _path("output", output, none=command == "view")
    theme = _text("theme", theme, none=True)
    force = _force(force)
    options = _trace_options(trace_options)
    config = find_config()
    return dict(sentence=sentence, tracing=_tracing(command, options, config),
                output=None if path is None else Path(path), theme=resolved(command, "theme", theme, config), force=force)


def _tracing(command: str, options: dict, config):
    """The trace options of ``command``: those given, else the settings', else the
    defaults."""
    from .app.requests import TraceOptions
    from .app.values import resolved

    return TraceOptions(**{name: resolved(command, name.replace("_", "-"), options.get(name),
                                          config)
                           for name in TraceOptions.__dataclass_fields__})


def _drawing_parts(command: str, source, given: dict, options: dict):
    """(source, its trace options or None, the drawing options, the settings file, the
    film's settings) of a drawing ``command``, from its ``options`` (the film's settings
    and the trace's); a trace's source refuses trace options (it fixes them)."""
    from .app.requests import DrawingOptions
    from .app.settings_file import find_config
    from .app.traces import is_trace
    from .app.arguments import film_settings
    from .app.values import resolved

    config = find_config()
    settings, trace_options = film_settings(command, options, config)
    options = _trace_options(trace_options, DRAWING_TYPES)
    max_tokens = options.pop("max_tokens", None)
    if not isinstance(source, str) and not is_trace(source):
        _refuse("source", source, "a sentence (str) or an AttentionTrace")
    if is_trace(source) and options:
        raise InputError(f"{', '.join(options)}: a trace already fixes its sentence and model "
                         "options; drop them, or pass a sentence.")
    tracing = _tracing(command, options, config) if isinstance(source, str) else None
    drawing = DrawingOptions(max_tokens=resolved(command, "max-tokens", max_tokens, config),
                             theme=resolved(command, "theme", given.get("theme"), config))
    return source, tracing, drawing, config, settings


def _film_request(command: str, source, given: dict, options: dict, force: bool, *,
                  pack: bool = False, versus: str | None = None,
                  burn_captions: bool = False):
    """The FilmRequest of a render or a pack, each option resolved as the command line
    resolves it."""
    from .app.requests import FilmRequest, VideoOptions
    from .app.values import resolved

    source, tracing, drawing, config, settings = _drawing_parts(command, source, given,
                                                                options)
    value = {name: resolved(command, name, given.get(name), config)
             for name in ("resolution", "fps", "beats", "quality", "jobs", "no-cache",
                          "output-dir", "narration", "captions", "length")}
    output = given["output"] if pack else resolved(command, "output", given["output"], config)
    video = VideoOptions(resolution=value["resolution"], fps=value["fps"],
                         beats=value["beats"], force=force, jobs=value["jobs"],
                         quality=value["quality"], no_cache=value["no-cache"],
                         output_dir=value["output-dir"], length=value["length"])
    pauses = resolved(command, "pauses", given.get("pauses"), config) if pack else None
    return FilmRequest(source=source, tracing=tracing, video=video, drawing=drawing,
                       output=Path(output) if output else None, narration=value["narration"],
                       pack=pack, captions=Path(value["captions"]) if value["captions"] else None,
                       versus=versus, burn_captions=burn_captions, settings=settings,
                       **({"pauses": pauses} if pauses is not None else {}))


# ---- every argument's type, checked before any work ------------------------------------------
# the trace options a drawing function takes besides its own (the command line's names)
TRACE_TYPES = {"model": "path", "focus": "text or none", "layer": "text or whole",
               "heads": "heads", "mask": "text", "device": "text", "dtype": "text",
               "d_model": "whole", "num_heads": "whole", "seed": "whole"}
DRAWING_TYPES = {"max_tokens": "whole"}
# a film of a model's view (translate, generate): its options' types (then each is checked by the
# command line's own spec: ``app.values.SETTINGS``)
_SCRATCH_TYPES = {name: TRACE_TYPES[name] for name in ("d_model", "num_heads", "seed")}
SHORT_FILM_TYPES = {**{name: kind for name, kind in TRACE_TYPES.items()
                       if name not in ("focus", "mask", *_SCRATCH_TYPES)},
                    "resolution": "text", "fps": "whole", "theme": "text", **DRAWING_TYPES,
                    # the explainer's pipeline, as render's: "setting" is left to the
                    # setting's own parser (``app.values.SETTINGS``)
                    "narration": "text or none", "captions": "text or none",
                    "length": "setting", "quality": "text", "jobs": "setting",
                    "no_cache": "setting"}
TRANSLATE_TYPES = {**SHORT_FILM_TYPES, "focus": TRACE_TYPES["focus"], "max_new_tokens": "whole",
                   **_SCRATCH_TYPES}
GENERATE_TYPES = {**SHORT_FILM_TYPES, "tokens": "whole"}
# where a command's default is not the one every command shares
_OWN_DEFAULTS = {("translate", "model"): TRANSLATION_DEFAULTS["model"]}


def _short_film(command: str, kinds: dict, options: dict, **named) -> dict:
    """The request's fields of a film of a model's view (``translate``, ``generate``): each
    argument of its type, then as the command line takes the option — given, else its
    variable's or the settings file's, else the default — and checked by the same spec."""
    from .app.settings_file import find_config
    from .app.values import resolved

    for name in options:
        if name not in kinds or name in named:
            raise InputError(f"{command}() takes no {name!r}; choose from "
                             f"{', '.join(sorted(set(kinds) - set(named)))}.")
    config = find_config()
    settings, options = _film_settings(command, options, config)
    given = _typed({**{k: v for k, v in named.items() if v is not None}, **options}, kinds)
    fields = {name: resolved(command, name.replace("_", "-"), given.get(name), config,
                             default=_OWN_DEFAULTS.get((command, name))) for name in kinds}
    if "focus" in fields and "focus" not in given and not fields["focus"]:
        fields["focus"] = None              # none asked for: the most decided word
    if fields["captions"] is not None:
        fields["captions"] = Path(fields["captions"])
    return {**fields, "settings": settings}


def _progress(value):
    """A progress callable (or None) as the render's watcher."""
    if value is None:
        return None
    if not callable(value):
        _refuse("progress", value, "a callable progress(done, total, beat) or None")
    from .app.work import callback_progress

    return callback_progress(value)


def _trace_options(options: dict, extra: dict | None = None) -> dict:
    """The trace options (and ``extra``'s), each of its type; an unknown name refused."""
    return _typed(options, {**TRACE_TYPES, **(extra or {})})


def _typed(options: dict, kinds: dict) -> dict:
    """``options``, each of its type in ``kinds``; an unknown name refused."""
    checked = {}
    for name, value in options.items():
        kind = kinds.get(name)
        if kind is None:
            raise InputError(f"{name!r} is not an option here; the options are "
                             f"{', '.join(sorted(kinds))}.")
        if kind == "path":
            value = _path(name, value)
        elif kind == "text":
            value = _text(name, value)
        elif kind == "text or none":
            value = _text(name, value, none=True)
        elif kind == "whole":
            value = _whole(name, value)
        elif kind == "text or whole":         # a layer: "auto" or its number
            if not isinstance(value, str) and (isinstance(value, bool)
                                               or not isinstance(value, numbers.Integral)):
                _refuse(name, value, 'a str ("auto") or a whole number (int)')
        elif kind == "heads":             # "auto", "all", "0,5", 5 or [0, 5]
            if isinstance(value, (list, tuple)):
                if not value:
                    _refuse(name, value, 'a str ("auto", "all", "0,5") or a list of ints')
                value = ",".join(str(_whole(name, head)) for head in value)
            elif not isinstance(value, str):
                value = _whole(name, value)
        checked[name] = value
    return checked
