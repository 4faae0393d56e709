"""The command line's option types and shared option groups: values parsed by the same
parsers the API uses, shell completion for beats and resolutions, and the option sets that
several commands share. Each set reaches its command as one object (``TraceOptions``,
``VideoOptions``, ``DrawingOptions``) built once from the parsed values, so a command
reads ``video.fps``, not a dict by string keys. Names, ranges and defaults are ``facts``'."""
from __future__ import annotations

import functools
from dataclasses import fields

import click

from ..attention_core.errors import InputError
from ..facts import (BEAT_NAMES, FILM_BEATS, DEFAULT_FPS, DEFAULT_MAX_TOKENS,
                     DEFAULT_OUTPUT_DIR, DEFAULT_PAUSES, DEFAULT_QUALITY,
                     DEFAULT_RESOLUTION, DEFAULT_THEME, DTYPES, FPS_RANGE, JOBS_RANGE, LENGTHS,
                     MAX_TOKENS_RANGE, PAUSES, QUALITIES, RESOLUTIONS, THEMES, TRACE_DEFAULTS)
from ..app.requests import (DrawingOptions, FilmSettings, TraceOptions, VideoOptions,
                            setting_specs)
from ..app.values import (D_MODEL_RANGE, NUM_HEADS_RANGE, SEED_RANGE, parse_beats, parse_heads,
                          parse_layer, parse_length, parse_millimetres, parse_resolution,
                          parse_times)

__all__ = [
    "BEATS", "DrawingOptions", "FilmSettings", "FPS", "HEADS", "LAYER", "MILLIMETRES", "RESOLUTION", "TIMES", "TraceOptions", "VideoOptions",
    "burn_captions_option", "captions_option", "film_settings_options", "pauses_option", "drawing_options", "picture_options", "dry_run_option", "narration_option",
    "short_film_options", "trace_options",
    "versus_option", "video_options",
]

class _ParsedBy(click.ParamType):
    """A click type whose value is parsed by one of our parsers (the same the API uses);
    its one-line error becomes click's usage error (exit 2)."""

    def __init__(self, name: str, parse, metavar: str, completions: tuple[str, ...] = (),
                 listed: bool = False):
        self.name, self.parse, self._metavar = name, parse, metavar
        self.completions, self.listed = completions, listed

    def shell_complete(self, ctx, param, incomplete):
        """The known values starting with what is typed; in a comma-separated list
        (``listed``), the next item after the last comma."""
        from click.shell_completion import CompletionItem

        head, _, last = incomplete.rpartition(",") if self.listed else ("", "", incomplete)
        done = set(head.split(",")) if head else set()
        prefix = head + "," if head else ""
        return [CompletionItem(prefix + value) for value in self.completions
                if value.startswith(last) and value not in done]

    def get_metavar(self, param, ctx=None) -> str:
        return self._metavar

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        try:
            return self.parse(value)
        except InputError as exc:
            self.fail(str(exc), param, ctx)


OPTIONAL_BEATS = [b for b in BEAT_NAMES if b not in FILM_BEATS]
RESOLUTION = _ParsedBy("resolution", parse_resolution, "|".join(RESOLUTIONS) + "|WxH",
                       tuple(RESOLUTIONS))
BEATS = _ParsedBy("beats", parse_beats, "all|" + ",".join(BEAT_NAMES[:2]) + ",...",
                  ("all", *BEAT_NAMES), listed=True)
TIMES = _ParsedBy("times", parse_times, "T[,T...]|key|end")
LENGTH = _ParsedBy("length", parse_length, "short|full|SECONDS", tuple(LENGTHS))
FPS = click.IntRange(*FPS_RANGE)
MILLIMETRES = _ParsedBy("millimetres", parse_millimetres, "MM")
# which layer and heads: their form checked here, as the API and a settings file check it
# (the model checks that it has them)
LAYER = _ParsedBy("layer", parse_layer, "N|auto")
HEADS = _ParsedBy("heads", parse_heads, "auto|all|I,J,...")


def _or(words) -> str:
    """'a, b or c'."""
    words = list(words)
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


# ---- the option sets, each gathered into one object -----------------------------------------
def _gathered(cls, keyword: str, options: list):
    """A decorator adding ``options`` to a command and handing the values of ``cls``'s
    fields to it as one ``cls`` object (the application's), the keyword argument
    ``keyword``; the other options (--quiet, --json, --trace: the face's) stay keyword
    arguments of their own."""
    names = [f.name for f in fields(cls)]

    def decorate(func):
        @functools.wraps(func)
        def gather(*args, **kwargs):
            kwargs[keyword] = cls(**{name: kwargs.pop(name) for name in names})
            return func(*args, **kwargs)

        for option in reversed(options):
            gather = option(gather)
        return gather

    return decorate


_TRACE = [
    click.option("--focus", default="", metavar="WORDS",
                 help="The word(s) whose query is explained: any run of whole tokens of "
                      "the sentence; WORDS[n] picks its n-th token (from 0). Default: "
                      "chosen automatically (the middle content word)."),
    click.option("--model", default=TRACE_DEFAULTS["model"], show_default=True,
                 metavar="minilm|scratch|PATH|HUB-ID",
                 help="minilm (all-MiniLM-L6-v2, bundled), scratch (the seed's "
                      "MultiHeadAttention, seeded), a local Hugging Face model folder (BERT, "
                      "RoBERTa, XLM-RoBERTa, CamemBERT, DistilBERT, ELECTRA, ALBERT, "
                      "ModernBERT, MPNet, DeBERTa-v3, GPT-2, Llama, Mistral, Qwen2, Qwen3, "
                      "Phi-3, Phi, Gemma, StarCoder2, OLMo, GPT-NeoX or OPT: "
                      "docs/own-model.md) or its hub id (gpt2, org/name@rev), read from the "
                      "local cache, never fetched."),
    click.option("--layer", default=TRACE_DEFAULTS["layer"], show_default=True, type=LAYER,
                 help="Layer to show (auto: the layer holding the best head)."),
    click.option("--heads", default=TRACE_DEFAULTS["heads"], show_default=True, type=HEADS,
                 help="Heads to show; auto picks those sending the most attention from the "
                      "focus to other content words."),
    click.option("--num-heads", default=TRACE_DEFAULTS["num_heads"], show_default=True,
                 type=click.IntRange(*NUM_HEADS_RANGE), help="scratch model: number of heads."),
    click.option("--d-model", default=TRACE_DEFAULTS["d_model"], show_default=True,
                 type=click.IntRange(*D_MODEL_RANGE),
                 help="scratch model: model width (a multiple of --num-heads)."),
    click.option("--seed", default=TRACE_DEFAULTS["seed"], show_default=True,
                 type=click.IntRange(*SEED_RANGE), help="scratch model: seed of its weights."),
    click.option("--mask", default=TRACE_DEFAULTS["mask"], show_default=True,
                 metavar="none|causal|window:K|global:TOKENS+window:K|topk:K",
                 help="Mask applied at the shown layer (an illustration on an encoder such as "
                      "MiniLM, which reads both ways; a decoder's own causal mask is always "
                      "there): a sliding window, Longformer's global tokens (positions or "
                      "texts, comma-separated) and window, or each query's top K scores."),
    click.option("--device", default=TRACE_DEFAULTS["device"], show_default=True,
                 metavar="auto|cpu|cuda", help="Where the model runs (auto: CUDA when available)."),
    click.option("--dtype", default=TRACE_DEFAULTS["dtype"], show_default=True,
                 type=click.Choice(DTYPES),
                 help="Precision of the model; drawn values are always float32."),
]
# the options every command shares: which model, layer, heads, token and mask
trace_options = _gathered(TraceOptions, "tracing", _TRACE)

# the drawing limit: the longest sentence (a translation's rows: each) a film draws
max_tokens_option = click.option(
    "--max-tokens", default=DEFAULT_MAX_TOKENS, show_default=True,
    type=click.IntRange(*MAX_TOKENS_RANGE), help="Longest sentence (in model tokens) to draw.")

_DRAWING = [
    click.option("--trace", "trace_path", type=click.Path(dir_okay=True), metavar="FILE.npz",
                 help="Draw from a saved trace (inspect --npz) instead of running the "
                      "model; it fixes the sentence and every model option."),
    click.option("--theme", default=DEFAULT_THEME, show_default=True,
                 type=click.Choice(list(THEMES)),
                 help=f"Colour roles: {_or(THEMES.values())}."),
    max_tokens_option,
]
# options of the commands that draw: the legible limit and the colour theme
drawing_options = _gathered(DrawingOptions, "drawing", _DRAWING)

# a video's workers, encoding, beat cache and length: render's, pack's, translate's, ...
JOBS_OPTION = click.option(
    "--jobs", type=click.IntRange(*JOBS_RANGE), metavar="N",
    help="Beats rendered at once, each in its own process [default: the cores].")
QUALITY_OPTION = click.option(
    "--quality", default=DEFAULT_QUALITY, show_default=True, type=click.Choice(QUALITIES),
    help=f"Encoding: {QUALITIES[0]}, or {QUALITIES[1]} (faster, larger file).")
NO_CACHE_OPTION = click.option(
    "--no-cache", is_flag=True,
    help="Draw every beat afresh, without reading or filling the beat cache.")
LENGTH_OPTION = click.option(
    "--length", default="full", show_default=True, type=LENGTH,
    help=f"A film of about this length: short ({LENGTHS['short']:.0f} s, a five-minute "
         "slot), full, or seconds. The first beat (the question) and the last (the answer) "
         "stay, every hold is at its floor, and the others are kept while the film fits "
         "(which, is said); a film that cannot be that short is as short as it can be.")
_VIDEO = [
    click.option("--resolution", default=DEFAULT_RESOLUTION, show_default=True, type=RESOLUTION,
                 help="Video size."),
    click.option("--fps", default=DEFAULT_FPS, show_default=True, type=FPS,
                 help="Frames per second."),
    click.option("--beats", default="all", show_default=True, type=BEATS,
                 help="Beats to render, comma-separated, drawn in storyboard order: "
                      + ", ".join(BEAT_NAMES) + "; all is the default film, every beat but "
                      + " and ".join(OPTIONAL_BEATS) + " (drawn only when named)."),
    click.option("--force", is_flag=True, help="Overwrite existing outputs (the whole set)."),
    JOBS_OPTION,
    QUALITY_OPTION,
    NO_CACHE_OPTION,
    click.option("--quiet", is_flag=True, help="Print nothing (no progress, no file list)."),
    click.option("--json", "as_json", is_flag=True,
                 help="Print the files written as JSON (and the video's facts)."),
    LENGTH_OPTION,
    click.option("--output-dir", default=DEFAULT_OUTPUT_DIR, show_default=True, metavar="DIR",
                 type=click.Path(file_okay=False),
                 help="Where outputs go when -o/--out is not given."),
]
# options of the commands that render a video: size, rate, beats, workers, encoding, cache,
# overwrite, quiet
video_options = _gathered(VideoOptions, "video", _VIDEO)


def _film_setting(spec):
    """The command line's option of one film setting (``film.settings``): its name, default,
    help, and its value parsed by the setting's own parser (a flag for an on/off one)."""
    if isinstance(spec.default, bool):
        return click.option(f"--{spec.option}", spec.name, is_flag=True, default=spec.default,
                            help=spec.help)
    return click.option(f"--{spec.option}", spec.name, default=spec.default,
                        show_default=spec.default not in ("", None),
                        type=_ParsedBy(spec.name, spec.parse, spec.metavar, spec.choices),
                        help=spec.help)


# how the film is drawn (render, pack, frames): every setting film.settings declares, made
# into options here and handed over as one FilmSettings
film_settings_options = _gathered(FilmSettings, "settings",
                                  [_film_setting(spec) for spec in setting_specs()])


# render and pack: say what would be done, and about how long it takes, and do nothing
dry_run_option = click.option(
    "--dry-run", is_flag=True,
    help="Print the files it would write, each beat (from the beat cache or to draw) and an "
         "estimate of the time; draw and write nothing.")

# a picture of every head (atlas, view): overwrite, colours, quiet
def short_film_options(kind: str):
    """The options of a film of a model's view (``translate``, ``generate``): where the
    model runs and in what precision, the MP4 (named <slug>-``kind``-<resolution>.mp4 by
    default) or a lecture pack, its size, rate and colours, the drawing limit, the voice,
    captions and length, workers, encoding and the beat cache as render's, the film's
    settings, overwriting; handed over as ``film``, a dict of the request's fields (and
    ``settings``); --quiet and --json stay the command's."""
    options = [
        click.option("--device", default=TRACE_DEFAULTS["device"], show_default=True,
                     metavar="auto|cpu|cuda",
                     help="Where the model runs (auto: CUDA when available)."),
        click.option("--dtype", default=TRACE_DEFAULTS["dtype"], show_default=True,
                     type=click.Choice(DTYPES), help="Precision of the model."),
        click.option("-o", "--output", type=click.Path(), metavar="PATH",
                     help=f"The film (default renders/<slug>-{kind}-<resolution>.mp4, or "
                          ".webm, .gif); its .srt captions, poster .png and numbers .json "
                          "are written beside it. With --pack: the pack's folder."),
        click.option("--pack", is_flag=True,
                     help="Write a lecture pack (the film, a clip per beat, chapters, "
                          "slides, an offline deck, a handout) into the -o folder."),
        click.option("--resolution", default=DEFAULT_RESOLUTION, show_default=True,
                     type=RESOLUTION, help="The film's size."),
        click.option("--fps", default=DEFAULT_FPS, show_default=True, type=FPS,
                     help="The film's frames per second."),
        click.option("--theme", default=DEFAULT_THEME, show_default=True,
                     type=click.Choice(list(THEMES)), help="The film's colours."),
        max_tokens_option,
        JOBS_OPTION, QUALITY_OPTION, NO_CACHE_OPTION, LENGTH_OPTION,
        narration_option, captions_option,
        click.option("--force", is_flag=True,
                     help="Overwrite an earlier film and its sidecars."),
    ]
    names = [*_SHORT_FILM_FIELDS]

    def decorate(func):
        @functools.wraps(func)
        def gather(*args, **kwargs):
            kwargs["film"] = {name: kwargs.pop(name) for name in names}
            return func(*args, **kwargs)

        # listed in --help as written here: the film's, its settings, then --quiet, --json
        for option in reversed([
                click.option("--quiet", is_flag=True, help="Print nothing but errors."),
                click.option("--json", "as_json", is_flag=True,
                             help="Print the files written as JSON.")]):
            gather = option(gather)
        gather = film_settings_options(gather)
        for option in reversed(options):
            gather = option(gather)
        return gather
    return decorate


# the request's fields a film of a view's options hand over (``ShortFilmRequest``)
_SHORT_FILM_FIELDS = ("device", "dtype", "output", "pack", "resolution", "fps", "theme",
                      "max_tokens", "jobs", "quality", "no_cache", "length", "narration",
                      "captions", "force")


def picture_options(what: str):
    """--force, --theme and --quiet of a command that writes one picture of every head."""
    def decorate(func):
        for option in reversed([
                click.option("--force", is_flag=True, help=f"Overwrite an existing {what}."),
                click.option("--theme", default=DEFAULT_THEME, show_default=True,
                             type=click.Choice(list(THEMES)),
                             help="The colours, as the film's."),
                click.option("--quiet", is_flag=True, help="Print nothing on success.")]):
            func = option(func)
        return func
    return decorate


# the user's words for the captions (render and pack)
versus_option = click.option(
    "--versus", "versus", metavar="SENTENCE", default=None,
    help="A second sentence, a minimal pair of the first: the film ends with the versus beat, "
         "the same model, layer, head and focus word on both, each word's weight in both and "
         "its change (`compare` prints the same).")

pauses_option = click.option(
    "--pauses", default=DEFAULT_PAUSES, show_default=True, type=click.Choice(PAUSES),
    help="Where the web deck and the slides stop for your key: none (the film plays on), "
         "beats (after each beat), or steps (after each step of a beat, where its next "
         "caption begins: the slides get a slide per step, its clip trimmed there).")

burn_captions_option = click.option(
    "--burn-captions", is_flag=True,
    help="Draw the captions into the frames as well, in a band below the picture (drawn "
         "smaller; the film keeps its size), for players that ignore the MP4's subtitle "
         "track. An .mp4 or .webm (a GIF's 256 colours and narrow frame would blur them).")

captions_option = click.option(
    "--captions", "captions", metavar="FILE.srt", default=None,
    type=click.Path(dir_okay=False),
    help="Your words for the film's captions: the .srt a render wrote, edited or translated "
         "(one caption per caption of the film, in order; its times are ignored, and a "
         "number the film does not say there is refused). They go into the captions, the "
         "pack's notes and deck, and the voice (--narration speak reads them in their "
         "language).")

# a voice for the film (render and pack)
narration_option = click.option(
    "--narration", metavar="DIR|speak", default=None,
    help="A voice: a folder of one recording per beat (title.wav, sparks.m4a, ...: any "
         "audio; a beat lasts at least as long as its recording, its picture held longer), "
         "or 'speak' for a draft voice reading the captions (espeak-ng). The sound goes "
         "into the MP4 as AAC (Opus in a WebM) and into each clip of a pack.")
