"""attention-explainer: the command line. Thin: parse, validate, call.

torch and manim are imported inside the commands, so `--help` and `--version` stay fast.
Every input is validated before anything is written; errors the user can fix exit 2 with
one line; unexpected failures exit 1 with one line (`--debug` shows the traceback).
"""
from __future__ import annotations

import os
import signal
import sys
import traceback
from pathlib import Path

import click
from click.core import ParameterSource

from .attention_core import DEFAULT_SENTENCE, __version__
from .attention_core.errors import InputError
from .scenes.formats import FPS_RANGE, parse_resolution
from .scenes.registry import BEAT_NAMES, parse_beats

SEED_RANGE = (0, 2 ** 63 - 1)
D_MODEL_RANGE = (1, 8192)      # the scratch model: wider cannot be drawn or allocated sensibly
NUM_HEADS_RANGE = (1, 512)
TRACE_DECIDES = ("sentence", "focus", "model", "layer", "heads", "num_heads", "d_model", "seed",
                 "mask", "device", "dtype")


class _ParsedBy(click.ParamType):
    """A click type whose value is parsed by one of our parsers (the same the API uses);
    its one-line error becomes click's usage error (exit 2)."""

    def __init__(self, name: str, parse, metavar: str):
        self.name, self.parse, self._metavar = name, parse, metavar

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


RESOLUTION = _ParsedBy("resolution", parse_resolution, "480p|720p|1080p|1440p|4k|WxH")
BEATS = _ParsedBy("beats", parse_beats, "all|" + ",".join(BEAT_NAMES[:2]) + ",...")
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


# ---- what the commands share ----------------------------------------------------------------
def _trace(sentence, opts):
    from .attention_core.api import TraceRequest, trace_for

    return trace_for(TraceRequest(
        sentence=sentence, model=opts["model"], focus=opts["focus"], layer=opts["layer"],
        heads=opts["heads"], mask=opts["mask"], device=opts["device"], dtype=opts["dtype"],
        d_model=opts["d_model"], num_heads=opts["num_heads"], seed=opts["seed"]))


def _saved_trace(ctx: click.Context, trace_path: str | None, max_tokens: int):
    """The trace given by --trace (refusing the options it already fixes), or None."""
    if trace_path is None:
        return None
    given = [name for name in TRACE_DECIDES
             if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        what = "a SENTENCE" if given[0] == "sentence" else "--" + given[0].replace("_", "-")
        raise InputError(f"{what} cannot be used with --trace: the saved trace already fixes "
                         "its sentence, model, layer, heads, focus and mask; drop one of them.")
    from .attention_core.trace import AttentionTrace

    trace = AttentionTrace.load(trace_path)
    _check_drawable(trace.num_tokens, max_tokens)
    return trace


def _check_drawable(count: int, max_tokens: int) -> None:
    if count > max_tokens:
        raise InputError(f"the sentence is {count} tokens long; the explainer draws at most "
                         f"{max_tokens} legibly (more than 16 are shown as a window around the "
                         "focus word); shorten it, or raise --max-tokens (up to 512).")


def _drawable_sentence(sentence: str, opts, max_tokens: int) -> None:
    """Refuse a sentence too long to draw before the model runs."""
    from .attention_core.api import count_tokens

    _check_drawable(count_tokens(sentence, opts["model"]), max_tokens)


def _use_theme(name: str) -> None:
    from .scenes import style

    style.set_theme(name)


def _say(line: str) -> None:
    click.echo(line, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="attention-explainer")
@click.option("--debug", is_flag=True, help="Show the traceback of unexpected failures.")
def cli(debug):
    """Turn a real transformer's attention on your sentence into a 3Blue1Brown-style video."""


@cli.command()
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--matrix", is_flag=True, help="Also print every head's whole weight matrix.")
@click.option("--json", "as_json", is_flag=True, help="Print the trace's numbers as JSON.")
@click.option("--npz", "npz_path", type=click.Path(dir_okay=True), metavar="PATH",
              help="Save the trace (.npz, the AttentionTrace field names as keys).")
@click.option("--force", is_flag=True, help="Overwrite an existing --npz file.")
def inspect(sentence, matrix, as_json, npz_path, force, **opts):
    """Print the tokens, the chosen layer and heads and the focus token's attention."""
    from .attention_core import report
    from .outputs import OutputSet

    saving = None
    if npz_path:
        saving = OutputSet({"trace": Path(npz_path)}, force=force, what="trace",
                           hint="choose another --npz").check()
    trace = _trace(sentence, opts)
    if saving is not None:
        with saving.opened(report=_say):
            trace.save(saving.path("trace"))
            saving.commit()
    if as_json:
        click.echo(report.to_json(trace))
        return
    lines = report.summary_lines(trace) + [""] + report.focus_table(trace)
    if matrix:
        lines += [""] + report.matrix_lines(trace)
    if saving is not None:
        lines += ["", f"trace saved to {saving.files['trace']}"]
    click.echo("\n".join(lines))


@cli.command()
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--resolution", default="1080p", show_default=True, type=RESOLUTION,
              help="Video size.")
@click.option("--fps", default=30, show_default=True, type=FPS, help="Frames per second.")
@click.option("--beats", default="all", show_default=True, type=BEATS,
              help="Beats to render, comma-separated, drawn in storyboard order: "
                   + ", ".join(BEAT_NAMES) + ".")
@click.option("-o", "--output", type=click.Path(dir_okay=True), metavar="PATH",
              help="Output MP4 (default renders/<slug>-<resolution>.mp4); its .srt, .png and "
                   ".npz are written beside it.")
@click.option("--force", is_flag=True, help="Overwrite an existing output and its sidecars.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@drawing_options
@click.pass_context
def render(ctx, sentence, resolution, fps, beats, output, force, quiet, max_tokens, theme,
           trace_path, **opts):
    """Render the explainer video (MP4, with .srt captions, a poster .png and the .npz trace)."""
    from .outputs import slugify, video_outputs

    width, height, label = resolution
    trace = _saved_trace(ctx, trace_path, max_tokens)
    if trace is not None:
        sentence = trace.sentence          # outputs are named after the trace's own sentence
    else:
        _drawable_sentence(sentence, opts, max_tokens)
    if output is None:
        output = Path("renders") / f"{slugify(sentence)}-{label}.mp4"
    outputs = video_outputs(Path(output), force=force).check()
    if trace is None:
        trace = _trace(sentence, opts)
    _use_theme(theme)
    from .scenes.render import render_video

    result = render_video(trace, beats=beats, width=width, height=height, fps=fps,
                          outputs=outputs, progress=not quiet, report=_say)
    click.echo(f"wrote {result.video} ({result.duration:.1f} s, {width}x{height} at {fps} fps)")


@cli.command()
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--beat", default="all", show_default=True, type=BEATS,
              help="Beat(s) to draw, comma-separated, or all: " + ", ".join(BEAT_NAMES) + ".")
@click.option("--at", "times", default="key", show_default=True, type=TIMES,
              help="When, in seconds from the beat's start; key = the frame that best shows "
                   "the beat, end = its last frame.")
@click.option("--out", "out_dir", default="renders/frames", show_default=True,
              type=click.Path(file_okay=True), help="Folder for the PNGs (<beat>-<t>s.png).")
@click.option("--resolution", default="1080p", show_default=True, type=RESOLUTION,
              help="Still size.")
@click.option("--fps", default=30, show_default=True, type=FPS,
              help="Frame rate the times are counted in.")
@click.option("--contact-sheet", "sheet_path", type=click.Path(dir_okay=True), metavar="PATH",
              help="Also write one labelled grid of the beats' key frames (.png, .jpg or .webp).")
@click.option("--check", "golden_dir", type=click.Path(file_okay=True), metavar="GOLDEN_DIR",
              help="Compare each still with the golden PNG of the same name; exit 1 on change.")
@click.option("--tolerance", default=0, show_default=True, type=click.IntRange(0, 255),
              help="--check: a pixel differs when a channel moves by more than this.")
@click.option("--max-diff-share", default=0.0, show_default=True, type=click.FloatRange(0, 1),
              help="--check: share of differing pixels still accepted (0 = none).")
@drawing_options
@click.pass_context
def frames(ctx, sentence, beat, times, out_dir, resolution, fps, sheet_path, golden_dir,
           tolerance, max_diff_share, max_tokens, theme, trace_path, **opts):
    """Write PNG stills of beats at chosen times, a contact sheet, or check against goldens."""
    from .scenes.stills import StillsJob

    width, height, _ = resolution
    job = StillsJob(beats=beat, times=times, out_dir=Path(out_dir), width=width, height=height,
                    fps=fps, sheet=Path(sheet_path) if sheet_path else None,
                    golden=Path(golden_dir) if golden_dir else None).check()
    trace = _saved_trace(ctx, trace_path, max_tokens)
    if trace is None:
        _drawable_sentence(sentence, opts, max_tokens)
        trace = _trace(sentence, opts)
    _use_theme(theme)
    written = job.run(trace, report=_say)
    for path in written:
        click.echo(str(path))
    if job.golden is not None:
        failed = job.compare(tolerance=tolerance, max_share=max_diff_share)
        for line in failed:
            click.echo(f"changed: {line}", err=True)
        if failed:
            sys.exit(1)
        click.echo(f"all {len(job.stills)} frames match {job.golden}")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one line per error, exit 2 for bad input, 1 for failures."""
    if argv is None:   # a real process: skip torch's slow interpreter teardown (~0.3 s)
        signal.signal(signal.SIGTERM, _terminated)     # clean up as for Ctrl-C
        try:
            main(sys.argv[1:])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        sys.stdout.flush()
        sys.stderr.flush()
        if "torch" in sys.modules:
            os._exit(code)
        sys.exit(code)
    argv = list(argv)
    debug = "--debug" in argv
    try:
        code = cli.main(args=argv, prog_name="attention-explainer", standalone_mode=False)
    except InputError as exc:
        _fail(str(exc), 2)
    except click.UsageError as exc:
        _fail(exc.format_message(), exc.exit_code)
    except click.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        _fail("interrupted; nothing was written in place of your files.", 130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence, reported in one line
        if debug:
            traceback.print_exc()
        _fail(f"unexpected failure ({type(exc).__name__}: {exc}); rerun with --debug "
              "for the traceback.", 1)
    sys.exit(code if isinstance(code, int) else 0)


def _terminated(signum, frame):
    raise KeyboardInterrupt("terminated (SIGTERM)")


def _fail(message: str, code: int) -> None:
    text = " ".join(str(message).split())
    # a message may quote the user's text: never let an unencodable character hide it
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    click.echo("Error: " + text, err=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
