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
from .cli_options import (BEATS, FPS, RESOLUTION, TIMES, TRACE_DECIDES, drawing_options,
                          trace_options, video_options)
from .scenes.film.registry import BEAT_NAMES, parse_beats
from .scenes.pipeline.regression import DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE

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
    from .scenes.vocabulary import style

    style.set_theme(name)


def _say(line: str) -> None:
    click.echo(line, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="attention-explainer")
@click.option("--debug", is_flag=True, help="Show the traceback of unexpected failures.")
@click.pass_context
def cli(ctx, debug):
    """Turn a real transformer's attention on your sentence into a 3Blue1Brown-style video.

    Defaults of any option come from attention-explainer.toml (or [tool.attention-explainer]
    in pyproject.toml) in the working folder and from ATTENTION_EXPLAINER_<OPTION>
    variables; `attention-explainer config` shows them.
    """
    from .settings import default_map, find_config

    if ctx.resilient_parsing:       # shell completion: never fail on a config file
        return
    ctx.default_map = default_map(cli, find_config())


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


def _beat_cache(no_cache: bool):
    """The beat cache a render uses: none with --no-cache or ATTENTION_EXPLAINER_CACHE_MB=0."""
    from .scenes.pipeline.beat_cache import BeatCache, cache_enabled

    return None if no_cache or not cache_enabled() else BeatCache()


def _render(trace, opts, outputs, *, also=None):
    """Run a render into ``outputs`` with the video options in ``opts``."""
    from .commands.progress import RenderBar
    from .scenes.pipeline.render import render_video

    width, height, _ = opts["resolution"]
    _use_theme(opts["theme"])
    return render_video(trace, beats=opts["beats"], width=width, height=height, fps=opts["fps"],
                        outputs=outputs, progress=RenderBar(not (opts["quiet"] or opts["as_json"])),
                        report=_say, jobs=opts["jobs"],
                        quality=opts["quality"], cache=_beat_cache(opts["no_cache"]),
                        also=also)


def _report_files(files, opts, facts: dict | None = None) -> None:
    """Every file written, one per line (--quiet: nothing; --json: one JSON object)."""
    if opts.get("as_json"):
        import json
        click.echo(json.dumps({"files": [str(f) for f in files], **(facts or {})},
                              ensure_ascii=False, indent=2))
    elif not opts.get("quiet"):
        for path in files:
            click.echo(str(path))


def _video_facts(result) -> dict:
    return {"duration": round(result.duration, 3), "width": result.width,
            "height": result.height, "fps": result.fps, "beats": result.beats,
            "cached_beats": result.cached_beats,
            "chapters": [{"beat": b, "start": round(t[0], 3), "end": round(t[1], 3)}
                         for b, t in result.beat_times.items()]}


def _summary(result) -> None:
    cached = len(result.cached_beats)
    note = f", {cached} of {len(result.beats)} beats from the cache" if cached else ""
    _say(f"rendered {result.duration:.1f} s at {result.width}x{result.height}, {result.fps} fps"
         f" in {result.render_seconds:.1f} s{note}")


def _sentence_and_trace(ctx, sentence, opts):
    """(sentence, saved trace or None), the sentence checked drawable before any work."""
    _beat_cache(opts.get("no_cache", False))       # its variable checked before any work
    trace = _saved_trace(ctx, opts["trace_path"], opts["max_tokens"])
    if trace is not None:
        return trace.sentence, trace       # outputs are named after the trace's own sentence
    _drawable_sentence(sentence, opts, opts["max_tokens"])
    return sentence, None


@cli.command(epilog="""\b
Examples:
  attention-explainer render "The cat ate the fish" --resolution 720p
  attention-explainer render "我爱北京天安门" --focus 北京 --beats sparks,pull -o beijing.mp4
  attention-explainer render --trace talk.npz --quality draft --jobs 2
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@video_options
@click.option("-o", "--output", type=click.Path(dir_okay=True), metavar="PATH",
              help="Output MP4 (default renders/<slug>-<resolution>.mp4); its .srt, .png and "
                   ".npz are written beside it.")
@drawing_options
@click.pass_context
def render(ctx, sentence, output, **opts):
    """Render the explainer video (MP4, with .srt captions, a poster .png and the .npz trace)."""
    from .outputs import slugify, video_outputs

    sentence, trace = _sentence_and_trace(ctx, sentence, opts)
    if output is None:
        output = Path(opts["output_dir"]) / f"{slugify(sentence)}-{opts['resolution'][2]}.mp4"
    outputs = video_outputs(Path(output), force=opts["force"]).check()
    if trace is None:
        trace = _trace(sentence, opts)
    result = _render(trace, opts, outputs)
    if not (opts["quiet"] or opts["as_json"]):
        _summary(result)
    _report_files([result.video, result.captions, result.poster, result.trace], opts,
                  _video_facts(result))


@cli.command(epilog="""\b
Examples:
  attention-explainer pack "The cat ate the fish" --out lecture/attention --resolution 720p
  attention-explainer pack "我爱北京天安门" --focus 北京 --out lecture/beijing --json
""")
@click.argument("sentence", required=False, default=DEFAULT_SENTENCE)
@trace_options
@video_options
@click.option("--out", "out_dir", type=click.Path(file_okay=True), metavar="DIR",
              help="Folder of the pack (default renders/<slug>-<resolution>-pack).")
@drawing_options
@click.pass_context
def pack(ctx, sentence, out_dir, **opts):
    """Render a lecture pack: the MP4 with chapters, each beat as a clip with its poster,
    WebVTT chapters and captions, PowerPoint slides and an offline web deck."""
    from .lecture_pack import LecturePack, pack_outputs
    from .outputs import slugify
    from .scenes.film.registry import BEATS

    sentence, trace = _sentence_and_trace(ctx, sentence, opts)
    width, height, label = opts["resolution"]
    if out_dir is None:
        out_dir = Path(opts["output_dir"]) / f"{slugify(sentence)}-{label}-pack"
    outputs = pack_outputs(Path(out_dir), parse_beats(opts["beats"]), force=opts["force"])
    if trace is None:
        trace = _trace(sentence, opts)
    titles = {entry.name: entry.title for entry in BEATS}
    result = _render(trace, opts, outputs, also=LecturePack(trace, titles, width, height))
    if not (opts["quiet"] or opts["as_json"]):
        _summary(result)
    _report_files(list(outputs.files.values()), opts, _video_facts(result))


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
@click.option("--tolerance", default=DEFAULT_TOLERANCE, show_default=True,
              type=click.IntRange(0, 255),
              help="--check: a pixel differs when a channel moves by more than this (the "
                   "default tolerates a new machine's rasteriser; 0 compares exactly).")
@click.option("--max-diff-share", default=DEFAULT_MAX_SHARE, show_default=True,
              type=click.FloatRange(0, 1),
              help="--check: share of differing pixels still accepted (0 = none).")
@click.option("--jobs", type=click.IntRange(1, 256), metavar="N",
              help="Beats drawn at once, each in its own process [default: the cores].")
@click.option("--no-cache", is_flag=True,
              help="Build every text afresh, without reading or filling the cache.")
@click.option("--force", is_flag=True,
              help="Replace stills and a contact sheet that exist (else they are refused).")
@click.option("--quiet", is_flag=True, help="Print nothing but what changed (with --check).")
@click.option("--json", "as_json", is_flag=True, help="Print the files written as JSON.")
@drawing_options
@click.pass_context
def frames(ctx, sentence, beat, times, out_dir, resolution, fps, sheet_path, golden_dir,
           tolerance, max_diff_share, jobs, no_cache, force, quiet, as_json, max_tokens, theme,
           trace_path, **opts):
    """Write PNG stills of beats at chosen times, a contact sheet, or check against goldens."""
    from .scenes.pipeline.stills import StillsJob

    width, height, _ = resolution
    job = StillsJob(beats=beat, times=times, out_dir=Path(out_dir), width=width, height=height,
                    fps=fps, sheet=Path(sheet_path) if sheet_path else None,
                    golden=Path(golden_dir) if golden_dir else None, jobs=jobs,
                    cache=_beat_cache(no_cache), force=force).check()
    trace = _saved_trace(ctx, trace_path, max_tokens)
    if trace is None:
        _drawable_sentence(sentence, opts, max_tokens)
        trace = _trace(sentence, opts)
    _use_theme(theme)
    written = job.run(trace, report=None if quiet else _say)
    _report_files(written, {"quiet": quiet, "as_json": as_json})
    if job.golden is not None:
        failed = job.compare(tolerance=tolerance, max_share=max_diff_share)
        for line in failed:
            click.echo(f"changed: {line}", err=True)
        if failed:
            sys.exit(1)
        if not (quiet or as_json):
            _say(f"all {len(job.stills)} frames match {job.golden}")


@cli.command(epilog="""\b
Examples:
  attention-explainer batch examples/course.toml --dry-run
  attention-explainer batch examples/course.toml --out lecture --jobs 2
  attention-explainer batch course.toml --scheduler tcp://render-box:8786 --cache-dir /shared/cache
""")
@click.argument("course_file", metavar="COURSE.toml", type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", default="renders", show_default=True,
              type=click.Path(file_okay=False), help="Folder of the course's outputs.")
@click.option("--jobs", type=click.IntRange(1, 256), metavar="N",
              help="Local Dask workers [default: the cores].")
@click.option("--scheduler", metavar="ADDRESS",
              help="Submit to a running Dask cluster (tcp://HOST:8786) instead of a local one; "
                   "its workers need the project installed and --cache-dir and --out on a "
                   "shared path.")
@click.option("--cache-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Beat cache folder [default: $XDG_CACHE_HOME/attention-explainer].")
@click.option("--resolution", type=RESOLUTION,
              help="Render every explainer at this size instead of the manifest's (a preview).")
@click.option("--fps", type=FPS, help="Render every explainer at this rate instead.")
@click.option("--dry-run", is_flag=True, help="Print the tasks and an estimate; render nothing.")
@click.option("--quiet", is_flag=True, help="No progress; only the final table.")
def batch(course_file, out_dir, jobs, scheduler, cache_dir, resolution, fps, dry_run, quiet):
    """Render a whole course: every explainer of a TOML manifest, as beat tasks on Dask."""
    from .course import CourseRun, dry_run_lines, load_course, output_set, sort_out_existing
    from .course import summary_table
    from .outputs import output_path, refuse_inside_the_cache, sigterm_as_interrupt
    from .scenes.pipeline.beat_cache import CAP_ENV, BeatCache, cache_enabled
    from .scenes.pipeline.render import default_workers

    if not cache_enabled():
        raise InputError(f"{CAP_ENV}=0 turns the beat cache off, but a course keeps its beats "
                         "there: unset it, or give a cap in megabytes, e.g. 2000.")
    out = output_path(out_dir)
    refuse_inside_the_cache([out], "give --out a folder outside it",
                            Path(cache_dir) if cache_dir else None)
    plans = load_course(Path(course_file), cli, resolution=resolution, fps=fps)
    sets = {id(p): output_set(p, out) for p in plans}
    sort_out_existing(plans, sets)
    workers = jobs or default_workers()
    if dry_run:
        for line in dry_run_lines(plans, workers):
            click.echo(line)
        return
    cache = BeatCache(Path(cache_dir) if cache_dir else None)
    run = CourseRun(plans, out, cache.folder, workers, scheduler, progress=not quiet)
    with sigterm_as_interrupt():
        run.run()
    cache.trim()
    for line in summary_table(plans):
        click.echo(line)
    if not quiet:
        _say(f"{run.beats_done} beats: {run.beats_cached} from the cache, "
             f"{run.beats_done - run.beats_cached} drawn")
    if any(p.status == "failed" for p in plans):
        sys.exit(1)


@cli.command("config", epilog="""\b
Examples:
  attention-explainer config
  attention-explainer config pack
  ATTENTION_EXPLAINER_RESOLUTION=720p attention-explainer config render
""")
@click.argument("command", required=False, default="render",
                type=click.Choice(["render", "pack", "frames", "inspect"]))
def config_command(command):
    """Print the effective settings of a command and where each comes from."""
    from .settings import effective, find_config

    config = find_config()
    click.echo(f"# attention-explainer {command}: settings ({config.label})")
    for name, value, source in effective(cli, command, config):
        shown = value if isinstance(value, str) else ("" if value is None else value)
        click.echo(f"{name:<14} = {shown!s:<28} # {source}")


@cli.group()
def cache():
    """The beat cache: rendered beats kept for the next render ($XDG_CACHE_HOME/attention-explainer)."""


@cache.command("info")
def cache_info():
    """Print where the beat cache is, its entries and its size."""
    from .scenes.pipeline.beat_cache import BeatCache

    beat_cache = BeatCache()
    entries = beat_cache.entries()
    cap = f"cap {beat_cache.cap_bytes / 1e9:.1f} GB" if beat_cache.cap_bytes else \
        "off: ATTENTION_EXPLAINER_CACHE_MB=0"
    click.echo(f"{beat_cache.folder}: {len(entries)} beats, "
               f"{beat_cache.size() / 1e6:.1f} MB ({cap})")


@cache.command("clear")
def cache_clear():
    """Empty the beat cache (the next render draws every beat afresh)."""
    from .scenes.pipeline.beat_cache import BeatCache

    beat_cache = BeatCache()
    removed, freed = beat_cache.clear()
    click.echo(f"removed {removed} cached beats ({freed / 1e6:.1f} MB) from {beat_cache.folder}")


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


def _give_every_option_its_variable() -> None:
    from .settings import add_envvars

    add_envvars(cli)


_give_every_option_its_variable()

if __name__ == "__main__":
    main()
