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
"""
from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import tempfile
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

    return trace_for(TraceRequest(sentence=sentence, model=str(model), focus=focus,
                                  layer=layer, heads=heads, mask=mask, device=device,
                                  dtype=dtype, **scratch))


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
           resolution: str = "720p", fps: int = 30, beats: str = "all", theme: str | None = None,
           quality: str = "final", force: bool = False, narration: str | None = None,
           **trace_options) -> Film:
    """Render the film of ``source`` (a sentence or a trace) into ``output`` (.mp4, .webm or
    .gif; default: named after the sentence in the current folder). ``trace_options`` are
    those of :func:`trace` when ``source`` is a sentence."""
    args = ["--resolution", resolution, "--fps", fps, "--beats", beats, "--quality", quality,
            *_flag("--theme", theme), *_flag("--narration", narration), *_flag("-o", output),
            *(["--force"] if force else [])]
    files = _files(_run("render", source, args + ["--json"], trace_options))
    return Film(files[0], tuple(files))


def frames(source=DEFAULT_SENTENCE, out: str | Path = "stills", *, beats: str = "all",
           at: str = "key", resolution: str = "480p", theme: str | None = None,
           force: bool = False, **trace_options) -> Stills:
    """PNG stills of ``beats`` at ``at`` (seconds, key or end) into the folder ``out``."""
    args = ["--beat", beats, "--at", at, "--resolution", resolution, "--out", out,
            *_flag("--theme", theme), *(["--force"] if force else []), "--json"]
    files = [p for p in _files(_run("frames", source, args, trace_options)) if p.suffix == ".png"]
    return Stills(Path(out).absolute(), tuple(files))


def pack(source=DEFAULT_SENTENCE, out: str | Path = "lecture", *, resolution: str = "720p",
         fps: int = 30, beats: str = "all", theme: str | None = None, force: bool = False,
         **trace_options) -> Pack:
    """The lecture pack of ``source`` into the folder ``out``."""
    args = ["--resolution", resolution, "--fps", fps, "--beats", beats, "--out", out,
            *_flag("--theme", theme), *(["--force"] if force else []), "--json"]
    return Pack(Path(out).absolute(), tuple(_files(_run("pack", source, args, trace_options))))


def atlas(sentence: str = DEFAULT_SENTENCE, output: str | Path = "atlas.png", *,
          theme: str | None = None, force: bool = False, **trace_options) -> Atlas:
    """Every layer x head's weights on ``sentence``, tagged by pattern: a PNG and an SVG."""
    args = ["--out", output, *_flag("--theme", theme), *(["--force"] if force else []),
            "--quiet"]
    _run("atlas", sentence, args, trace_options)
    png = Path(output).absolute()
    return Atlas(png, png.with_suffix(".svg"))


# ---- running a command in this process --------------------------------------------------------
def _flag(name: str, value) -> list:
    return [] if value is None else [name, value]


def _options(trace_options: dict) -> list:
    argv = []
    for key, value in trace_options.items():
        if value is not None:
            argv += ["--" + key.replace("_", "-"), value]
    return argv


def _run(command: str, source, args: list, trace_options: dict) -> str:
    """Run ``command`` as the CLI would, on a sentence or a trace; its stdout. What the
    CLI refuses in one line raises InputError with that line."""
    import click

    from .cli import cli

    with contextlib.ExitStack() as stack:
        if isinstance(source, str):     # after "--": a sentence may begin with "-"
            argv = [command, *_options(trace_options), *args, "--", source]
        else:                  # a trace: drawn from a file of it, as --trace draws
            if trace_options:
                raise InputError(f"{', '.join(trace_options)}: a trace already fixes its "
                                 "sentence and model options; drop them, or pass a sentence.")
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            argv = [command, "--trace", source.save(folder / "trace.npz"), *args]
        out = io.StringIO()
        stack.enter_context(contextlib.redirect_stdout(out))
        try:
            cli.main(args=[str(a) for a in argv], prog_name="attention-explainer",
                     standalone_mode=False)
        except click.ClickException as exc:
            raise InputError(exc.format_message()) from None
        except click.Abort:
            raise KeyboardInterrupt from None
    return out.getvalue()


def _files(printed: str) -> list[Path]:
    return [Path(f) for f in json.loads(printed)["files"]]


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
