"""The command line's option types and shared option groups (cli.py stays a list of
commands): values parsed by the same parsers the API uses, shell completion for beats and
resolutions, and the option sets that several commands share."""
from __future__ import annotations

import click

from .attention_core.errors import InputError
from .scenes.pipeline.formats import FPS_RANGE, parse_resolution
from .scenes.film.registry import BEAT_NAMES, parse_beats

SEED_RANGE = (0, 2 ** 63 - 1)
D_MODEL_RANGE = (1, 8192)      # the scratch model: wider cannot be drawn or allocated sensibly
NUM_HEADS_RANGE = (1, 512)
TRACE_DECIDES = ("sentence", "focus", "model", "layer", "heads", "num_heads", "d_model", "seed",
                 "mask", "device", "dtype")


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


def _parse_times(spec: str) -> list:
    """--at: seconds from the beat's start, key or end, comma-separated."""
    times = []
    for part in (p.strip().lower() for p in (spec or "key").split(",")):
        if part in ("key", "end"):
            times.append(part)
            continue
        try:
            seconds = float(part.rstrip("s")) + 0.0      # + 0.0: "-0" is 0
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds < 3600:
            raise InputError(f"{part!r} is not a time; use seconds from the beat's start "
                             "(e.g. 1.5), key (the beat's key frame) or end, comma-separated.")
        times.append(seconds)
    return list(dict.fromkeys(times))


RESOLUTION = _ParsedBy("resolution", parse_resolution, "480p|720p|1080p|1440p|4k|WxH",
                       ("480p", "720p", "1080p", "1440p", "4k"))
BEATS = _ParsedBy("beats", parse_beats, "all|" + ",".join(BEAT_NAMES[:2]) + ",...",
                  ("all", *BEAT_NAMES), listed=True)
TIMES = _ParsedBy("times", _parse_times, "T[,T...]|key|end")
FPS = click.IntRange(*FPS_RANGE)


def trace_options(func):
    """The options every command shares: which model, layer, heads, token and mask."""
    options = [
        click.option("--focus", default="", metavar="WORDS",
                     help="The word(s) whose query is explained: any run of whole tokens of "
                          "the sentence; WORDS[n] picks its n-th token (from 0). Default: "
                          "chosen automatically (the middle content word)."),
        click.option("--model", default="minilm", show_default=True, metavar="minilm|scratch|PATH",
                     help="minilm (all-MiniLM-L6-v2, bundled), scratch (the seed's "
                          "MultiHeadAttention, seeded) or a local Hugging Face BERT folder."),
        click.option("--layer", default="auto", show_default=True, metavar="N|auto",
                     help="Layer to show (auto: the layer holding the best head)."),
        click.option("--heads", default="auto", show_default=True, metavar="auto|all|I,J,...",
                     help="Heads to show; auto picks those sending the most attention from the "
                          "focus to other content words."),
        click.option("--num-heads", default=8, show_default=True, type=click.IntRange(*NUM_HEADS_RANGE),
                     help="scratch model: number of heads."),
        click.option("--d-model", default=512, show_default=True, type=click.IntRange(*D_MODEL_RANGE),
                     help="scratch model: model width (a multiple of --num-heads)."),
        click.option("--seed", default=0, show_default=True, type=click.IntRange(*SEED_RANGE),
                     help="scratch model: seed of its weights."),
        click.option("--mask", default="none", show_default=True, metavar="none|causal|window:K",
                     help="Mask applied at the shown layer (an illustration on MiniLM, which is "
                          "bidirectional)."),
        click.option("--device", default="auto", show_default=True, metavar="auto|cpu|cuda",
                     help="Where the model runs (auto: CUDA when available)."),
        click.option("--dtype", default="float32", show_default=True,
                     type=click.Choice(["float32", "float16", "bfloat16"]),
                     help="Precision of the model; drawn values are always float32."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def drawing_options(func):
    """Options of the commands that draw: the legible limit and the colour theme."""
    func = click.option("--max-tokens", default=64, show_default=True,
                        type=click.IntRange(2, 512),
                        help="Longest sentence (in model tokens) to draw.")(func)
    func = click.option("--theme", default="3b1b", show_default=True,
                        type=click.Choice(["3b1b", "illustrated", "colorblind"]),
                        help="Colour roles: 3Blue1Brown's, the Illustrated Transformer's "
                             "(query red, key blue, value green) or colour-blind safe.")(func)
    return click.option("--trace", "trace_path", type=click.Path(dir_okay=True), metavar="FILE.npz",
                        help="Draw from a saved trace (inspect --npz) instead of running the "
                             "model; it fixes the sentence and every model option.")(func)


def video_options(func):
    """Options of the commands that render a video: size, rate, beats, workers, encoding,
    cache, overwrite, quiet."""
    options = [
        click.option("--resolution", default="1080p", show_default=True, type=RESOLUTION,
                     help="Video size."),
        click.option("--fps", default=30, show_default=True, type=FPS,
                     help="Frames per second."),
        click.option("--beats", default="all", show_default=True, type=BEATS,
                     help="Beats to render, comma-separated, drawn in storyboard order: "
                          + ", ".join(BEAT_NAMES) + "."),
        click.option("--force", is_flag=True,
                     help="Overwrite existing outputs (the whole set)."),
        click.option("--jobs", type=click.IntRange(1, 256), metavar="N",
                     help="Beats rendered at once, each in its own process "
                          "[default: the cores]."),
        click.option("--quality", default="final", show_default=True,
                     type=click.Choice(["final", "draft"]),
                     help="Encoding: final, or draft (faster, larger file)."),
        click.option("--no-cache", is_flag=True,
                     help="Draw every beat afresh, without reading or filling the beat cache."),
        click.option("--quiet", is_flag=True, help="Print nothing (no progress, no file list)."),
        click.option("--json", "as_json", is_flag=True,
                     help="Print the files written as JSON (and the video's facts)."),
        click.option("--output-dir", default="renders", show_default=True, metavar="DIR",
                     type=click.Path(file_okay=False),
                     help="Where outputs go when -o/--out is not given."),
    ]
    for option in reversed(options):
        func = option(func)
    return func
