"""What the commands share: the trace to draw (the model's, or a saved one), the checks
made before any work, the render of a video or a pack, and how results are printed.
torch and manim are imported inside the functions, so ``--help`` stays fast."""
from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path

import click
from click.core import ParameterSource

from ..attention_core.errors import InputError
from ..facts import MAX_TOKENS_DRAWN, MAX_TOKENS_RANGE, TRACE_DECIDES
from .options import DrawingOptions, TraceOptions, VideoOptions

__all__ = [
    "beat_cache", "check_drawable", "compute_trace", "interrupts_held", "drawable_sentence",
    "narration_for", "render_into",
    "note_settings", "plan_only", "report_files", "saved_trace", "say", "sentence_and_trace", "summary", "use_theme",
    "video_facts",
]


def say(line: str) -> None:
    """One line for the user, on stderr (stdout holds the results)."""
    click.echo(line, err=True)


@contextlib.contextmanager
def interrupts_held():
    """Hold Ctrl-C and SIGTERM while C++ code calls Python (importing torch or manim, the
    model's forward): a KeyboardInterrupt raised inside such a call crosses C++ code that
    cannot pass it on, and pybind11 then aborts the process ("terminate called …") instead
    of the clean exit 130. A signal that comes meanwhile is acted on when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    heard: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda signum, frame: heard.append(signum))
                for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if heard:
        raise KeyboardInterrupt


def compute_trace(sentence: str, tracing: TraceOptions, cache=None, *, keep: bool = True):
    """The model's trace of ``sentence`` with the command's trace options: the one kept in
    the beat cache ``cache`` (a BeatCache, or None: none) when this machine computed it
    before, else the model's, then kept there (unless not to ``keep``: a dry run)."""
    with interrupts_held():
        from ..attention_core.api import trace_for, trace_key
        from ..scenes.pipeline.trace_store import TraceStore, kept_or_computed

        req = tracing.request(sentence)
        if cache is None:
            return trace_for(req)
        if not keep:
            kept = TraceStore(cache.traces).load(trace_key(req))
            return trace_for(req) if kept is None else kept
        return kept_or_computed(trace_key(req), cache.traces, lambda: trace_for(req))


def plan_only(trace, video: VideoOptions, drawing: DrawingOptions, files) -> list:
    """What a render of ``trace`` into ``files`` would do, printed (the files, each beat
    from the beat cache or to draw, the estimate; --json: one object), nothing drawn or
    written. The files it would write, as the command's value."""
    with interrupts_held():         # the first import of manim
        from ..scenes.pipeline.plan import plan_film
        from ..scenes.pipeline.render import default_workers, film_estimate
    use_theme(drawing.theme)           # a beat's cache entry is the theme's
    tasks = plan_film(trace, video.beats, width=video.width, height=video.height,
                      fps=video.fps, quality=video.quality)
    workers = video.jobs or default_workers()
    guess = film_estimate(tasks, workers, beat_cache(video.no_cache, peek=True))
    files = [Path(f) for f in files]
    if video.as_json:
        import json

        click.echo(json.dumps({"dry_run": True, "files": [str(f) for f in files],
                               "beats": [{"beat": b, "cached": b in guess.cached}
                                         for b in (t.beat for t in tasks)],
                               "estimate_seconds": round(guess.seconds, 1),
                               "workers": workers}, ensure_ascii=False, indent=2))
    elif not video.quiet:
        click.echo("would write:")
        for path in files:
            click.echo(f"  {path}")
        click.echo("beats: " + ", ".join(
            f"{t.beat} ({'cached' if t.beat in guess.cached else 'to draw'})" for t in tasks))
        click.echo(guess.line())
    return files


def saved_trace(ctx: click.Context, drawing: DrawingOptions):
    """The trace given by --trace (refusing the options it already fixes), or None."""
    if drawing.trace_path is None:
        return None
    given = [name for name in TRACE_DECIDES
             if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        what = "a SENTENCE" if given[0] == "sentence" else "--" + given[0].replace("_", "-")
        raise InputError(f"{what} cannot be used with --trace: the saved trace already fixes "
                         "its sentence, model, layer, heads, focus and mask; drop one of them.")
    from ..attention_core.trace import AttentionTrace

    trace = AttentionTrace.load(drawing.trace_path)
    check_drawable(trace.num_tokens, drawing.max_tokens)
    return trace


def check_drawable(count: int, max_tokens: int) -> None:
    """Refuse a sentence of ``count`` tokens, more than ``max_tokens``."""
    if count > max_tokens:
        raise InputError(f"the sentence is {count} tokens long; the explainer draws at most "
                         f"{max_tokens} legibly (more than {MAX_TOKENS_DRAWN} are shown as a "
                         "window around the focus word); shorten it, or raise --max-tokens "
                         f"(up to {MAX_TOKENS_RANGE[1]}).")


def drawable_sentence(sentence: str, tracing: TraceOptions, max_tokens: int) -> None:
    """Refuse a sentence too long to draw before the model runs."""
    from ..attention_core.api import count_tokens

    check_drawable(count_tokens(sentence, tracing.model), max_tokens)


def sentence_and_trace(ctx: click.Context, sentence: str, tracing: TraceOptions,
                       video: VideoOptions, drawing: DrawingOptions, *, peek: bool = False):
    """(sentence, saved trace or None), the sentence checked drawable before any work
    (``peek``: for a dry run, which makes nothing)."""
    beat_cache(video.no_cache, peek=peek)     # its variable checked before any work
    trace = saved_trace(ctx, drawing)
    if trace is not None:
        return trace.sentence, trace       # outputs are named after the trace's own sentence
    drawable_sentence(sentence, tracing, drawing.max_tokens)
    return sentence, None


def use_theme(name: str) -> None:
    """The colour theme, set before anything is drawn; first, that the film can be drawn
    here at all (manim loads, the fonts are there), said in one line pointing to doctor."""
    from ..doctor import missing_part

    with interrupts_held():          # the first import of manim (cairo, pango, pybind11)
        try:
            from ..scenes.vocabulary import style
        except ImportError as exc:
            raise InputError(missing_part(f"manim cannot load ({exc})")) from None
    from ..scenes.vocabulary.fonts import missing_files

    missing = missing_files()
    if missing:
        raise InputError(missing_part(f"the film's font {missing[0]} is missing"
                                      + (f" (and {len(missing) - 1} more)"
                                         if len(missing) > 1 else "")))
    style.set_theme(name)


def beat_cache(no_cache: bool, renders: bool = True, *, peek: bool = False):
    """The beat cache a render uses: none with --no-cache or ATTENTION_EXPLAINER_CACHE_MB=0,
    nor where its folder cannot be used (said once, in one line: the render goes on; a
    command that only ``renders=False`` goes on without a word). ``peek``: the cache as a
    dry run reads it, nothing made or probed."""
    from ..scenes.pipeline.beat_cache import BeatCache, cache_enabled

    if no_cache or not cache_enabled():
        return None
    cache = BeatCache()
    if peek:
        return cache
    why = cache.unusable()
    if why is None:
        return cache
    if not renders:
        return None
    if cache.folder not in _SAID_UNUSABLE:
        _SAID_UNUSABLE.add(cache.folder)
        say(f"beat cache: {cache.folder} cannot be used ({why}); rendering without it "
            "(set XDG_CACHE_HOME to a writable folder to keep beats between renders)")
    return None


_SAID_UNUSABLE: set = set()


def narration_for(source, video: VideoOptions):
    """The film's narration from --narration (its recordings decoded and checked now,
    before anything is written), or None."""
    if source is None:
        return None
    from ..scenes.pipeline.narration import load_narration

    return load_narration(source, list(video.beats))


def render_into(trace, video: VideoOptions, drawing: DrawingOptions, outputs, *, also=None,
                narration=None):
    """Run a render into ``outputs`` with the command's video and drawing options (and
    ``narration``, from :func:`narration_for`)."""
    with interrupts_held():         # the first import of manim
        from ..scenes.pipeline.render import render_video
    from .progress import RenderBar

    use_theme(drawing.theme)
    return render_video(trace, beats=video.beats, width=video.width, height=video.height,
                        fps=video.fps, outputs=outputs, progress=RenderBar(video.chatty),
                        report=say, jobs=video.jobs, quality=video.quality,
                        cache=beat_cache(video.no_cache), also=also, narration=narration)


def report_files(files, *, quiet: bool, as_json: bool, facts: dict | None = None) -> list:
    """Every file written, one per line (--quiet: nothing; --json: one JSON object); the
    files, as the command's value (what the Python API returns)."""
    files = [Path(f) for f in files]
    if as_json:
        import json
        click.echo(json.dumps({"files": [str(f) for f in files], **(facts or {})},
                              ensure_ascii=False, indent=2))
    elif not quiet:
        for path in files:
            click.echo(str(path))
        note_settings()
    return files


def note_settings() -> None:
    """Say which outputs a settings file placed (they were not on the command line)."""
    from ..settings import placed_by_settings

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
