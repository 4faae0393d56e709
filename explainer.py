"""The Python API: the commands of the command line as functions, for scripts and notebooks.

    import attention_explainer as ae

    t = ae.trace("The cat ate the fish", focus="ate")
    film = ae.render(t, "cat.mp4", resolution="720p")    # shows inline in Jupyter
    stills = ae.frames(t, "stills", beats="sparks,pull")  # so do these

Each function runs the same command the CLI runs, with the same checks: what the CLI
refuses with exit 2 and one line, these raise :class:`InputError` with that line. Like the
CLI, they take their defaults from a settings file in the working folder and from
ATTENTION_EXPLAINER_* variables; :func:`trace` alone takes only its arguments (it is the
library's own call, as ``inspect`` computes it). A
sentence or a trace (:func:`trace`, or ``AttentionTrace.load``) can be drawn; the results
hold the paths written, and in Jupyter a film displays as a video with its captions, stills
and an atlas as pictures.

Every argument's type is checked before any work (a list, bytes or None where a sentence
goes, "no" where True or False goes: InputError, one line). The functions may be called
from several threads: one draws at a time in a process (manim's configuration and the
colour theme are the process's), the others wait their turn; nothing is printed to
stdout, and ``sys.stdout`` is never swapped.
"""
from __future__ import annotations

import base64
import contextlib
import html
import numbers
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .attention_core import DEFAULT_SENTENCE
from .attention_core.errors import InputError

__all__ = ["Atlas", "Film", "InputError", "Pack", "Stills", "atlas", "frames", "pack",
           "render", "trace"]


def trace(sentence: str = DEFAULT_SENTENCE, *, model: str = "minilm", focus: str | None = None,
          layer: str | int = "auto", heads: str = "auto", mask: str = "none",
          device: str = "auto", dtype: str = "float32", **scratch):
    """The model's attention on ``sentence``: an ``AttentionTrace`` (what ``inspect``
    prints). ``model`` is minilm, scratch or a local Hugging Face folder; ``scratch``
    options: d_model, num_heads, seed. Raises InputError."""
    from .attention_core.api import TraceRequest, trace_for

    _text("sentence", sentence)
    options = _trace_options(dict(model=model, focus=focus, layer=layer, heads=heads,
                                  mask=mask, device=device, dtype=dtype, **scratch))
    return trace_for(TraceRequest(sentence=sentence, **options))


# ---- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Film:
    """A rendered film: the video and, beside it, its captions, poster and trace."""
    video: Path
    files: tuple = field(default_factory=tuple)

    @property
    def captions(self) -> Path:
        return self.video.with_suffix(".srt")

    def _repr_html_(self) -> str:
        kinds = {".mp4": "video/mp4", ".webm": "video/webm"}
        if self.video.suffix not in kinds:          # a GIF is a picture
            return _img(self.video, "image/gif")
        track = ""
        if self.captions.is_file():
            vtt = _vtt(self.captions.read_text(encoding="utf-8"))
            track = (f'<track kind="captions" srclang="en" label="captions" default '
                     f'src="data:text/vtt;base64,{_b64(vtt.encode())}">')
        return (f'<video controls style="max-width:100%" src="data:{kinds[self.video.suffix]};'
                f'base64,{_b64(self.video.read_bytes())}">{track}</video>')


@dataclass(frozen=True)
class Stills:
    """PNG stills written into ``folder``."""
    folder: Path
    files: tuple

    def _repr_html_(self) -> str:
        return "".join(f'<figure style="display:inline-block;margin:4px">'
                       f'{_img(p, "image/png", 320)}<figcaption>{html.escape(p.stem)}'
                       "</figcaption></figure>" for p in self.files)


@dataclass(frozen=True)
class Pack:
    """A lecture pack: clips, slides, the web deck, the handout."""
    folder: Path
    files: tuple

    def _repr_html_(self) -> str:
        return "<ul>" + "".join(f"<li>{html.escape(str(p))}</li>" for p in self.files) + "</ul>"


@dataclass(frozen=True)
class Atlas:
    """The atlas picture: a PNG and an SVG."""
    png: Path
    svg: Path

    def _repr_png_(self) -> bytes:
        return self.png.read_bytes()


# ---- the commands -------------------------------------------------------------------------------
def render(source=DEFAULT_SENTENCE, output: str | Path | None = None, *,
           resolution: str | None = None, fps: int | None = None, beats: str | None = None,
           theme: str | None = None, quality: str | None = None, force: bool = False,
           narration: str | Path | None = None, **trace_options) -> Film:
    """Render the film of ``source`` (a sentence or a trace) into ``output`` (.mp4, .webm or
    .gif; default: named after the sentence, as the command line names it).
    ``trace_options`` are those of :func:`trace` when ``source`` is a sentence. An option
    left None is the command line's: the settings file's, a variable's, else its default."""
    args = [*_given("--resolution", _text("resolution", resolution, none=True)),
            *_given("--fps", _whole("fps", fps, none=True)),
            *_given("--beats", _beats(beats)),
            *_given("--quality", _text("quality", quality, none=True)),
            *_given("--theme", _text("theme", theme, none=True)),
            *_given("--narration", _path("narration", narration, none=True)),
            *_given("-o", _path("output", output, none=True)), *_force(force)]
    files = _run("render", source, args, trace_options)
    return Film(files[0], tuple(files))


def frames(source=DEFAULT_SENTENCE, out: str | Path = "stills", *, beats: str | None = None,
           at: str | None = None, resolution: str | None = None, theme: str | None = None,
           force: bool = False, **trace_options) -> Stills:
    """PNG stills of ``beats`` at ``at`` (seconds, key or end) into the folder ``out``. An
    option left None is the command line's (settings, variables, default)."""
    args = [*_given("--beat", _beats(beats)), *_given("--at", _times(at)),
            *_given("--resolution", _text("resolution", resolution, none=True)),
            "--out", _path("out", out),
            *_given("--theme", _text("theme", theme, none=True)), *_force(force)]
    files = [p for p in _run("frames", source, args, trace_options) if p.suffix == ".png"]
    return Stills(Path(out).absolute(), tuple(files))


def pack(source=DEFAULT_SENTENCE, out: str | Path = "lecture", *,
         resolution: str | None = None, fps: int | None = None, beats: str | None = None,
         theme: str | None = None, force: bool = False, narration: str | Path | None = None,
         **trace_options) -> Pack:
    """The lecture pack of ``source`` into the folder ``out``. An option left None is the
    command line's (settings, variables, default)."""
    args = [*_given("--resolution", _text("resolution", resolution, none=True)),
            *_given("--fps", _whole("fps", fps, none=True)),
            *_given("--beats", _beats(beats)), "--out", _path("out", out),
            *_given("--theme", _text("theme", theme, none=True)),
            *_given("--narration", _path("narration", narration, none=True)), *_force(force)]
    return Pack(Path(out).absolute(), tuple(_run("pack", source, args, trace_options)))


def atlas(sentence: str = DEFAULT_SENTENCE, output: str | Path = "atlas.png", *,
          theme: str | None = None, force: bool = False, **trace_options) -> Atlas:
    """Every layer x head's weights on ``sentence``, tagged by pattern: a PNG and an SVG."""
    _text("sentence", sentence)
    args = ["--out", _path("output", output), *_given("--theme", _text("theme", theme, none=True)),
            *_force(force)]
    _run("atlas", sentence, args, trace_options, drawing=False)
    png = Path(output).absolute()
    return Atlas(png, png.with_suffix(".svg"))


# ---- every argument's type, checked before any work ------------------------------------------
# the trace options a drawing function takes besides its own (the command line's names)
TRACE_TYPES = {"model": "path", "focus": "text or none", "layer": "text or whole",
               "heads": "heads", "mask": "text", "device": "text", "dtype": "text",
               "d_model": "whole", "num_heads": "whole", "seed": "whole"}
DRAWING_TYPES = {"max_tokens": "whole"}


def _refuse(name: str, value, wanted: str):
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    raise InputError(f"{name} must be {wanted}, not {type(value).__name__} {shown}.")


def _text(name: str, value, *, none: bool = False):
    """A str (or None where ``none``)."""
    if value is None and none:
        return None
    if not isinstance(value, str):
        _refuse(name, value, "a str" + (" or None" if none else ""))
    return value


def _whole(name: str, value, *, none: bool = False) -> int | None:
    """A whole number (True and False are not numbers here), or None where ``none``."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        _refuse(name, value, "a whole number (int)" + (" or None" if none else ""))
    return int(value)


def _path(name: str, value, *, none: bool = False):
    """A path: a str or an os.PathLike of one (or None where ``none``)."""
    if value is None and none:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        _refuse(name, value, "a path (str or pathlib.Path)" + (" or None" if none else ""))
    return value


def _force(value) -> list:
    if not isinstance(value, bool):
        _refuse("force", value, "True or False")
    return ["--force"] if value else []


def _beats(value) -> str | None:
    """Beats: "all", "sparks,pull", a list of names, or None (the command line's)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and value \
            and all(isinstance(b, str) for b in value):
        return ",".join(value)
    if not isinstance(value, str):
        _refuse("beats", value, 'a str ("all", "sparks,pull") or a list of beat names')
    return value


def _times(value) -> str | None:
    """--at: "key", "end", seconds, a list of those, or None (the command line's)."""
    if value is None:
        return None
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items or any(isinstance(item, bool) or not isinstance(item, (str, numbers.Real))
                        for item in items):
        _refuse("at", value, 'seconds, "key", "end" or a list of those')
    return ",".join(str(item) for item in items)


def _trace_options(options: dict, extra: dict | None = None) -> dict:
    """The trace options (and ``extra``'s), each of its type; an unknown name refused."""
    kinds = {**TRACE_TYPES, **(extra or {})}
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


# ---- running a command in this process --------------------------------------------------------
# one command at a time in a process: manim's configuration, the colour theme and the
# beat cache's per-process state are the process's, not a call's
_ONE_AT_A_TIME = threading.RLock()


def _given(name: str, value) -> list:
    return [] if value is None else [name, value]


def _run(command: str, source, args: list, trace_options: dict, *,
         drawing: bool = True) -> list[Path]:
    """Run ``command`` as the CLI would (told to print nothing), on a sentence or a trace;
    the files it wrote. What the CLI refuses in one line raises InputError with that
    line."""
    from .attention_core.trace import AttentionTrace

    options = _trace_options(trace_options, DRAWING_TYPES if drawing else None)
    if not isinstance(source, (str, AttentionTrace)):
        _refuse("source", source, "a sentence (str) or an AttentionTrace")
    import click

    from .cli import Interrupted, cli

    with _ONE_AT_A_TIME, contextlib.ExitStack() as stack:
        stack.callback(_set_theme, _theme_now())     # nothing global changes
        if isinstance(source, str):     # after "--": a sentence may begin with "-"
            argv = [command, *_flags(options), *args, "--quiet", "--", source]
        else:                  # a trace: drawn from a file of it, as --trace draws
            if options:
                raise InputError(f"{', '.join(options)}: a trace already fixes its "
                                 "sentence and model options; drop them, or pass a sentence.")
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            argv = [command, "--trace", source.save(folder / "trace.npz"), *args, "--quiet"]
        try:
            files = cli.main(args=[str(a) for a in argv], prog_name="attention-explainer",
                             standalone_mode=False)
        except click.ClickException as exc:
            raise InputError(exc.format_message()) from None
        except (click.Abort, Interrupted):
            raise KeyboardInterrupt from None
    return [Path(f) for f in files]


def _style():
    import sys

    return sys.modules.get(f"{__package__}.scenes.vocabulary.style")   # loaded if drawn


def _theme_now() -> str:
    """The drawing's colour theme in this process now (the default if nothing drew)."""
    from .facts import DEFAULT_THEME

    return _style().theme_name() if _style() is not None else DEFAULT_THEME


def _set_theme(name: str) -> None:
    """Put the theme back after a command set its own: a later drawing in this process
    (a notebook's, a test's) keeps its colours."""
    if _style() is not None:
        _style().set_theme(name)


def _flags(options: dict) -> list:
    argv = []
    for key, value in options.items():
        if value is not None:
            argv += ["--" + key.replace("_", "-"), value]
    return argv


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _img(path: Path, kind: str, width: int | None = None) -> str:
    size = f' width="{width}"' if width else ' style="max-width:100%"'
    return f'<img src="data:{kind};base64,{_b64(Path(path).read_bytes())}"{size}>'


def _vtt(srt: str) -> str:
    """SRT captions as WebVTT (what a browser's <track> reads): a header, and timestamps
    with a dot before the milliseconds."""
    import re

    body = re.sub(r"(\d\d:\d\d:\d\d),(\d\d\d)", r"\1.\2", srt.replace("\r\n", "\n"))
    return "WEBVTT\n\n" + body
