"""What the commands share: the request a film command makes of its options, the saved
trace given by --trace, and how results are printed. The work is the application's
(``app.work``): a command parses, asks, prints."""
from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from ..app.requests import DrawingOptions, FilmRequest, FilmSettings, TraceOptions, VideoOptions
from ..attention_core.errors import InputError, for_terminal
from ..facts import TRACE_DECIDES

__all__ = ["echo", "film_command", "note_settings", "report_files", "saved_trace", "say",
           "show_plan", "summary", "video_facts"]


def echo(text: str, *, json: bool = False, err: bool = False) -> None:
    """What a command prints: the user's text in it (a sentence, a token, a path) may hold
    a bell, an escape sequence or a bidi override, which the terminal is shown, never
    given (``json``: escaped as JSON escapes them, the same string)."""
    click.echo(for_terminal(str(text), json=json), err=err)


def say(line: str) -> None:
    """One line for the user, on stderr (stdout holds the results)."""
    echo(line, err=True)


def saved_trace(ctx: click.Context, trace_path: str | None):
    """The trace given by --trace (refusing the options it already fixes), or None."""
    if trace_path is None:
        return None
    given = [name for name in TRACE_DECIDES
             if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        what = "a SENTENCE" if given[0] == "sentence" else "--" + given[0].replace("_", "-")
        raise InputError(f"{what} cannot be used with --trace: the saved trace already fixes "
                         "its sentence, model, layer, heads, focus and mask; drop one of them.")
    from ..app.traces import load_trace

    return load_trace(trace_path)


def film_command(ctx: click.Context, sentence: str, *, tracing: TraceOptions,
                 video: VideoOptions, drawing: DrawingOptions, settings: FilmSettings,
                 trace_path: str | None,
                 output: str | None, narration: str | None, captions: str | None,
                 versus: str | None, dry_run: bool, quiet: bool, as_json: bool,
                 pack: bool, burn_captions: bool = False,
                 pauses: str | None = None) -> list[Path]:
    """The body of ``render`` and ``pack``: the request their options make, the plan
    printed (--dry-run) or the film made, its files printed; the files, as the command's
    value."""
    from ..app import work

    trace = saved_trace(ctx, trace_path)
    request = FilmRequest(source=sentence if trace is None else trace,
                          tracing=None if trace is not None else tracing, video=video,
                          drawing=drawing, output=Path(output) if output else None,
                          narration=narration, pack=pack,
                          captions=Path(captions) if captions else None, versus=versus,
                          burn_captions=burn_captions, settings=settings,
                          **({"pauses": pauses} if pauses is not None else {}))
    if dry_run:
        return show_plan(work.plan(request, report=say), quiet=quiet, as_json=as_json)
    with work.interrupts_held():         # the progress bar's module loads the drawing's
        from .progress import RenderBar

    chatty = not (quiet or as_json)
    made = work.film(request, progress=RenderBar(chatty), report=say)
    if chatty:
        summary(made.render)
    return report_files(made.files, quiet=quiet, as_json=as_json,
                        facts=video_facts(made.render))


def show_plan(plan, *, quiet: bool, as_json: bool) -> list[Path]:
    """A dry run's plan printed: the files, each beat from the beat cache or to draw, the
    estimate (--json: one object); the files it would write, as the command's value."""
    if as_json:
        import json

        echo(json.dumps({"dry_run": True, "files": [str(f) for f in plan.files],
                         "beats": [{"beat": b, "cached": b in plan.cached}
                                   for b in plan.beats],
                         "estimate_seconds": round(plan.estimate.seconds, 1),
                         "workers": plan.workers}, ensure_ascii=False, indent=2), json=True)
    elif not quiet:
        echo("would write:")
        for path in plan.files:
            echo(f"  {path}")
        echo("beats: " + ", ".join(
            f"{b} ({'cached' if b in plan.cached else 'to draw'})" for b in plan.beats))
        echo(plan.estimate.line())
    return plan.files


def short_film(film: dict) -> dict:
    """The request's fields from a film of a view's options (``short_film_options``):
    paths as paths."""
    return {**film, "output": Path(film["output"]) if film["output"] else None,
            "captions": Path(film["captions"]) if film["captions"] else None}


def progress_bar(quiet: bool = False):
    """The render's bar on a terminal (``RenderBar``), told of each beat."""
    from ..app import work

    with work.interrupts_held():         # the progress bar's module loads the drawing's
        from .progress import RenderBar
    return RenderBar(not quiet)


def report_files(files, *, quiet: bool, as_json: bool, facts: dict | None = None) -> list:
    """Every file written, one per line (--quiet: nothing; --json: one JSON object); the
    files, as the command's value (what the Python API returns)."""
    files = [Path(f) for f in files]
    if as_json:
        import json
        echo(json.dumps({"files": [str(f) for f in files], **(facts or {})},
                        ensure_ascii=False, indent=2), json=True)
    elif not quiet:
        for path in files:
            echo(str(path))
        note_settings()
    return files


def note_settings() -> None:
    """Say which outputs a settings file placed (they were not on the command line)."""
    from .settings import placed_by_settings

    ctx = click.get_current_context(silent=True)
    line = placed_by_settings(ctx) if ctx is not None else None
    if line:
        say(line)


def video_facts(result) -> dict:
    """The --json facts of a rendered video: its length, size, rate, beats and chapters."""
    return {"duration": round(result.duration, 3), "width": result.width,
            "height": result.height, "fps": result.fps, "beats": result.beats,
            "cached_beats": result.cached_beats,
            "chapters": [{"beat": b, "start": round(t[0], 3), "end": round(t[1], 3)}
                         for b, t in result.beat_times.items()]}


def summary(result) -> None:
    """The one line a render ends with on stderr."""
    cached = len(result.cached_beats)
    note = f", {cached} of {len(result.beats)} beats from the cache" if cached else ""
    say(f"rendered {result.duration:.1f} s at {result.width}x{result.height}, {result.fps} fps"
        f" in {result.render_seconds:.1f} s{note}")
