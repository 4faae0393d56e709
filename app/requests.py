"""What the application is asked to do, as typed, immutable requests: the options that
decide a trace, a video and a drawing, and the film, stills and atlas requests made of them.
Each face (command line, Python API, course) builds them; ``work`` does them and returns
the results at the end of this file."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from ..scenes.film.settings import FilmSettings, setting_specs

from ..facts import (DEFAULT_FPS, DEFAULT_MAX_TOKENS, DEFAULT_OUTPUT_DIR, DEFAULT_PAUSES,
                     DEFAULT_QUALITY, DEFAULT_RESOLUTION, DEFAULT_THEME, TRACE_DEFAULTS)

__all__ = ["AtlasRequest", "DrawingOptions", "FilmPlan", "FilmRequest", "FilmResult",
           "FilmSettings", "setting_specs",
           "ShortFilmRequest", "StillsRequest", "StillsResult", "TraceOptions", "VideoOptions",
           "ViewRequest"]


@dataclass(frozen=True)
class TraceOptions:
    """--focus and the model options: what decides a trace."""
    focus: str
    model: str
    layer: str
    heads: str
    num_heads: int
    d_model: int
    seed: int
    mask: str
    device: str
    dtype: str

    def asked(self, *names: str) -> list[str]:
        """Those of the options ``names`` asked for, as given ("--layer 5"): the ones not
        at their defaults (no focus word, auto, none)."""
        defaults = {**TRACE_DEFAULTS, "focus": ""}
        return [f"--{name.replace('_', '-')} {getattr(self, name)}" for name in names
                if str(getattr(self, name)).strip().lower() != str(defaults[name])]

    def request(self, sentence: str):
        """The core's TraceRequest of ``sentence`` with these options."""
        from ..attention_core.api import TraceRequest

        return TraceRequest(sentence=sentence, **{f.name: getattr(self, f.name)
                                                  for f in fields(self)})


@dataclass(frozen=True)
class VideoOptions:
    """How a video is rendered: size, rate, beats, workers, encoding, cache, overwrite,
    where outputs go when no path is given, and the length asked for (seconds; None: the
    film as its beats make it)."""
    resolution: tuple[int, int, str]      # (width, height, label)
    fps: int
    beats: list[str]
    force: bool
    jobs: int | None
    quality: str
    no_cache: bool
    output_dir: str
    length: float | None = None

    @property
    def width(self) -> int:
        return self.resolution[0]

    @property
    def height(self) -> int:
        return self.resolution[1]

    @property
    def label(self) -> str:
        return self.resolution[2]


@dataclass(frozen=True)
class DrawingOptions:
    """What every drawing takes: the legible limit and the colour theme."""
    max_tokens: int
    theme: str


@dataclass(frozen=True)
class FilmRequest:
    """A film (``pack``: a lecture pack) of ``source``: a sentence, traced with ``tracing``,
    or an AttentionTrace (``tracing`` None). ``output``: the video (a pack's folder); None
    names it after the sentence in ``video.output_dir``. ``narration``: a folder of
    recordings, "speak", or None. ``captions``: an .srt of the user's words for the
    film's captions (``app.captions``), or None. ``versus``: a second sentence, a
    minimal pair of the first (the film ends with the versus beat), or None.
    ``burn_captions``: the captions drawn into the frames too, below a smaller picture.
    ``pauses``: where a pack's deck and slides stop (``facts.PAUSES``). ``settings``: how
    its beats are drawn (``--pace`` and the others ``FilmSettings`` declares)."""
    source: object
    tracing: TraceOptions | None
    video: VideoOptions
    drawing: DrawingOptions
    output: Path | None = None
    narration: str | None = None
    pack: bool = False
    captions: Path | None = None
    versus: str | None = None
    burn_captions: bool = False
    pauses: str = DEFAULT_PAUSES
    settings: FilmSettings = FilmSettings()


@dataclass(frozen=True)
class StillsRequest:
    """PNG stills of ``beats`` at ``times`` into ``out_dir``; a contact sheet (``sheet``);
    a comparison with the golden PNGs in ``golden``."""
    source: object
    tracing: TraceOptions | None
    drawing: DrawingOptions
    beats: list[str]
    times: list
    out_dir: Path
    resolution: tuple[int, int, str]
    fps: int
    sheet: Path | None = None
    golden: Path | None = None
    jobs: int | None = None
    no_cache: bool = False
    force: bool = False
    format: str = "png"                  # png, or svg / pdf: vector graphics
    width_mm: float | None = None        # a vector still's width on paper (None: a px or pt each)
    settings: FilmSettings = FilmSettings()   # how the beats are drawn (--pace, ...)


@dataclass(frozen=True)
class AtlasRequest:
    """Every layer x head's weights on ``sentence`` as a PNG ``output`` and an SVG beside
    it; on an encoder–decoder folder, of the kind ``attention`` (cross, self or decoder)
    on the translation ``target`` (None: the model's own)."""
    sentence: str
    tracing: TraceOptions
    output: Path
    theme: str
    force: bool = False
    attention: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class ViewRequest:
    """The interactive view of every layer and head on ``sentence``: one HTML file,
    ``output`` (None: the page kept in memory, shown inline), in ``theme``'s colours."""
    sentence: str
    tracing: TraceOptions
    output: Path | None
    theme: str
    force: bool = False
    versus: str | None = None            # a second sentence: both views side by side


@dataclass(frozen=True, kw_only=True)
class ShortFilmRequest:
    """What a film of a model's view (a translation's, a decoder's writing) shares: the
    layer and heads drawn, where the model runs and in what precision, the video (None:
    named after the sentence) or a pack's folder, its size, rate and colours, overwriting,
    the most tokens a row of it draws (the render's drawing limit, --max-tokens), and the
    render's voice, captions, length, workers, encoding, cache and film settings."""
    layer: str = TRACE_DEFAULTS["layer"]
    heads: str = TRACE_DEFAULTS["heads"]
    device: str = TRACE_DEFAULTS["device"]
    dtype: str = TRACE_DEFAULTS["dtype"]
    output: Path | None = None
    resolution: tuple = (1920, 1080, DEFAULT_RESOLUTION)
    fps: int = DEFAULT_FPS
    theme: str = DEFAULT_THEME
    force: bool = False
    max_tokens: int = DEFAULT_MAX_TOKENS
    # the explainer's pipeline, as render and pack take it: a voice, the user's captions,
    # a length, a lecture pack (``output`` a folder), workers, encoding, the beat cache,
    # how the beats are drawn
    narration: str | None = None
    captions: Path | None = None
    length: float | None = None
    pack: bool = False
    jobs: int | None = None
    quality: str = DEFAULT_QUALITY
    no_cache: bool = False
    settings: FilmSettings = FilmSettings()

    def film_request(self, source, beats: list[str]) -> "FilmRequest":
        """The film (or pack) of ``source`` (a translation's or a writing's view; None
        before it is made: its outputs are checked first) drawing ``beats``."""
        video = VideoOptions(resolution=tuple(self.resolution), fps=self.fps, beats=beats,
                             force=self.force, jobs=self.jobs, quality=self.quality,
                             no_cache=self.no_cache, output_dir=DEFAULT_OUTPUT_DIR,
                             length=self.length)
        return FilmRequest(source=source, tracing=None, video=video,
                           drawing=DrawingOptions(self.max_tokens, self.theme),
                           output=self.output, narration=self.narration, pack=self.pack,
                           captions=self.captions, settings=self.settings)


# ---- what the application returns -------------------------------------------------------
@dataclass(frozen=True)
class FilmPlan:
    """What a film request would do, nothing drawn or written: the files, each beat (from
    the beat cache or to draw), the estimate."""
    files: list[Path]
    beats: list[str]
    cached: frozenset
    estimate: object                 # scenes.pipeline.estimate's estimate: .seconds, .line()
    workers: int


@dataclass(frozen=True)
class FilmResult:
    """A film or pack written: its files, and the render's facts (``RenderResult``)."""
    files: list[Path]
    render: object = field(repr=False)


@dataclass(frozen=True)
class StillsResult:
    """Stills written; with a golden folder, the lines of those that changed."""
    files: list[Path]
    changed: list[str]
    compared: int
