"""attention-explainer: the command line. Thin: parse, validate, call.

torch and manim are imported inside the commands, so `--help` and `--version` stay fast.
Errors the user can fix exit 2 with one line; unexpected failures exit 1 with one line
(`--debug` shows the traceback).
"""
from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click

from .attention_core import DEFAULT_SENTENCE, __version__
from .attention_core.errors import InputError
from .scenes.formats import FPS_RANGE, parse_resolution
from .scenes.registry import BEAT_NAMES, parse_beats


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


RESOLUTION = _ParsedBy("resolution", parse_resolution, "480p|720p|1080p|1440p|4k|WxH")
BEATS = _ParsedBy("beats", parse_beats, "all|" + ",".join(BEAT_NAMES[:2]) + ",...")
FPS = click.IntRange(*FPS_RANGE)


def trace_options(func):
    """The options every command shares: which model, layer, heads, token and mask."""
    options = [
        click.option("--focus", default="auto", show_default=True, metavar="WORD",
                     help="The word whose query is explained (auto: the middle content word)."),
        click.option("--model", default="minilm", show_default=True, metavar="minilm|scratch|PATH",
                     help="minilm (all-MiniLM-L6-v2, bundled), scratch (the seed's "
                          "MultiHeadAttention, seeded) or a local Hugging Face BERT folder."),
        click.option("--layer", default="auto", show_default=True, metavar="N|auto",
                     help="Layer to show (auto: the layer holding the best head)."),
        click.option("--heads", default="auto", show_default=True, metavar="auto|all|I,J,...",
                     help="Heads to show; auto picks those sending the most attention from the "
                          "focus to other content words."),
        click.option("--num-heads", default=8, show_default=True, type=int,
                     help="scratch model: number of heads."),
        click.option("--d-model", default=512, show_default=True, type=int,
                     help="scratch model: model width (a multiple of --num-heads)."),
        click.option("--seed", default=0, show_default=True, type=int,
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


def _request(sentence, opts):
    from .attention_core.api import TraceRequest

    return TraceRequest(sentence=sentence, model=opts["model"], focus=opts["focus"],
                        layer=opts["layer"], heads=opts["heads"], mask=opts["mask"],
                        device=opts["device"], dtype=opts["dtype"], d_model=opts["d_model"],
                        num_heads=opts["num_heads"], seed=opts["seed"])


def _trace(sentence, opts):
    from .attention_core.api import trace_for

    return trace_for(_request(sentence, opts))


DRAW_LIMIT_DEFAULT = 64


def _drawable_trace(sentence, opts, trace_path, max_tokens):
    """The trace to draw: loaded, or computed after checking the sentence is drawable."""
    from .attention_core.api import count_tokens

    if trace_path:
        from .attention_core.trace import AttentionTrace

        trace = AttentionTrace.load(trace_path)
        count = trace.num_tokens
    else:
        count = count_tokens(sentence, opts["model"])
        trace = None
    if count > max_tokens:
        raise InputError(f"the sentence is {count} tokens long; the explainer draws at most "
                         f"{max_tokens} legibly (more than 16 are shown as a window around the "
                         "focus word); shorten it, or raise --max-tokens (up to 512).")
    return trace if trace is not None else _trace(sentence, opts)


def drawing_options(func):
    """Options of the commands that draw: the legible limit and the colour theme."""
    func = click.option("--max-tokens", default=DRAW_LIMIT_DEFAULT, show_default=True,
                        type=click.IntRange(2, 512),
                        help="Longest sentence (in model tokens) to draw.")(func)
    return click.option("--theme", default="3b1b", show_default=True,
                        type=click.Choice(["3b1b", "illustrated", "colorblind"]),
                        help="Colour roles: 3Blue1Brown's, the Illustrated Transformer's "
                             "(query red, key blue, value green) or colour-blind safe.")(func)


def _use_theme(name: str) -> None:
    from .scenes import style

    style.set_theme(name)


def _write_atomically(path: Path, write) -> None:
    """write(tmp_path) then rename into place; a failure leaves no partial file."""
    from .outputs import temp_beside

    tmp = temp_beside(path)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
@click.option("--npz", "npz_path", type=click.Path(dir_okay=False), metavar="PATH",
              help="Save the trace (.npz, the AttentionTrace field names as keys).")
@click.option("--force", is_flag=True, help="Overwrite an existing --npz file.")
def inspect(sentence, matrix, as_json, npz_path, force, **opts):
    """Print the tokens, the chosen layer and heads and the focus token's attention."""
    from .attention_core import report
    from .outputs import check_output

    target = check_output(Path(npz_path), force) if npz_path else None
    trace = _trace(sentence, opts)
    if target is not None:
        _write_atomically(target, trace.save)
    if as_json:
        click.echo(report.to_json(trace))
        return
    lines = report.summary_lines(trace) + [""] + report.focus_table(trace)
    if matrix:
        lines += [""] + report.matrix_lines(trace)
    if target is not None:
        lines += ["", f"trace saved to {target}"]
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
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False), metavar="FILE.npz",
              help="Draw from a saved trace instead of running the model.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="PATH",
              help="Output MP4 (default renders/<slug>-<resolution>.mp4).")
@click.option("--force", is_flag=True, help="Overwrite an existing output.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@drawing_options
def render(sentence, resolution, fps, beats, trace_path, output, force, quiet, max_tokens, theme,
           **opts):
    """Render the explainer video (MP4, with .srt captions, a poster .png and the .npz trace)."""
    from .outputs import check_output, slugify

    width, height, label = resolution
    if output is None:
        output = Path("renders") / f"{slugify(sentence)}-{label}.mp4"
    output = check_output(Path(output), force)
    if output.suffix.lower() != ".mp4":
        raise InputError(f"output {output.name!r} must end in .mp4.")
    trace = _drawable_trace(sentence, opts, trace_path, max_tokens)
    _use_theme(theme)
    from .scenes.render import render_video

    result = render_video(trace, beats=beats, width=width, height=height, fps=fps,
                          output=output, progress=not quiet)
    click.echo(f"wrote {result.video} ({result.duration:.1f} s, {width}x{height} at {fps} fps)")


def _parse_times(spec: str) -> list:
    times = []
    for part in (p.strip().lower() for p in (spec or "key").split(",")):
        if part in ("key", "end"):
            times.append(part)
            continue
        try:
            seconds = float(part.rstrip("s"))
        except ValueError:
            seconds = -1.0
        if not (seconds >= 0 and seconds < 3600):
            raise InputError(f"--at {part!r} is not a time; use seconds from the beat's start "
                             "(e.g. 1.5), key (the beat's key frame) or end, comma-separated.")
        times.append(seconds)
    return list(dict.fromkeys(times))


@cli.command()
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@click.option("--beat", default="all", show_default=True, type=BEATS,
              help="Beat(s) to draw, comma-separated, or all: " + ", ".join(BEAT_NAMES) + ".")
@click.option("--at", "at", default="key", show_default=True, metavar="T[,T...]|key|end",
              help="When, in seconds from the beat's start; key = the frame that best shows "
                   "the beat, end = its last frame.")
@click.option("--out", "out_dir", default="renders/frames", show_default=True,
              type=click.Path(file_okay=False), help="Folder for the PNGs (<beat>-<t>s.png).")
@click.option("--resolution", default="1080p", show_default=True, type=RESOLUTION,
              help="Still size.")
@click.option("--fps", default=30, show_default=True, type=FPS,
              help="Frame rate the times are counted in.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False), metavar="FILE.npz",
              help="Draw from a saved trace instead of running the model.")
@click.option("--contact-sheet", "sheet_path", type=click.Path(dir_okay=False), metavar="PATH",
              help="Also write one labelled PNG grid of the beats' key frames.")
@click.option("--check", "golden_dir", type=click.Path(file_okay=False), metavar="GOLDEN_DIR",
              help="Compare each still with the golden PNG of the same name; exit 1 on change.")
@click.option("--tolerance", default=0, show_default=True, type=click.IntRange(0, 255),
              help="--check: a pixel differs when a channel moves by more than this.")
@click.option("--max-diff-share", default=0.0, show_default=True, type=click.FloatRange(0, 1),
              help="--check: share of differing pixels still accepted (0 = none).")
@drawing_options
def frames(sentence, beat, at, out_dir, resolution, fps, trace_path, sheet_path, golden_dir,
           tolerance, max_diff_share, max_tokens, theme, **opts):
    """Write PNG stills of beats at chosen times, a contact sheet, or check against goldens."""
    from .outputs import check_output

    width, height, _ = resolution
    beats = beat
    times = _parse_times(at)
    out = Path(out_dir).expanduser().absolute()
    check_output(out / ".probe.png", force=True)       # creates the folder, checks writable
    if sheet_path:
        sheet_path = check_output(Path(sheet_path), force=True)
    if golden_dir and not Path(golden_dir).is_dir():
        raise InputError(f"--check {golden_dir!r} is not a folder of golden PNGs; make one "
                         "with `attention-explainer frames --out GOLDEN_DIR` first.")
    trace = _drawable_trace(sentence, opts, trace_path, max_tokens)
    _use_theme(theme)
    from .scenes.regression import check_against, contact_sheet
    from .scenes.render import render_stills, still_label

    written, key_frames = [], []
    for name in beats:
        wanted = times + (["key"] if sheet_path and "key" not in times else [])
        stills = render_stills(trace, beat=name, times=wanted, width=width, height=height, fps=fps)
        for when in times:
            label = still_label(when)
            path = out / f"{name}-{label}.png"
            _write_atomically(path, lambda tmp, im=stills[label]: im.save(tmp, format="PNG"))
            written.append(path)
        key_frames.append((name, stills["key"] if "key" in stills else None))
    if sheet_path:
        sheet = contact_sheet([(n, im) for n, im in key_frames])
        _write_atomically(sheet_path, lambda tmp: sheet.save(tmp, format="PNG", optimize=True))
    for path in written:
        click.echo(str(path))
    if sheet_path:
        click.echo(f"contact sheet: {sheet_path}")
    if golden_dir:
        results = check_against(out, Path(golden_dir), [p.name for p in written],
                                tolerance=tolerance, max_share=max_diff_share)
        failed = [r for r in results if not r.passed]
        for r in failed:
            click.echo(f"changed: {r.line()}", err=True)
        if failed:
            sys.exit(1)
        click.echo(f"all {len(results)} frames match {golden_dir}")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one line per error, exit 2 for bad input, 1 for failures."""
    if argv is None:   # a real process: skip torch's slow interpreter teardown (~0.3 s)
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


def _fail(message: str, code: int) -> None:
    click.echo("Error: " + " ".join(str(message).split()), err=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
