"""The application's work: a film, a lecture pack, stills, an atlas, each from its request,
in one path: check everything (the sentence drawable, the outputs free, the recordings
readable), then plan, then draw and commit the outputs as one set. Results are values.
torch and manim are imported inside the functions, so a face's ``--help`` stays fast.

One drawing at a time in a process: manim's configuration and the colour theme are the
process's, so each call holds a lock and puts the theme back as it found it; a second
thread waits its turn."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from ..attention_core.errors import InputError
from ..facts import DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE, MAX_TOKENS_DRAWN, MAX_TOKENS_RANGE
from .film_extras import (beats_of, check_burnt_film, pair_tracing, paired_with, with_measures,
                          with_versus_beat)
from .requests import (AtlasRequest, FilmPlan, FilmRequest, FilmResult, StillsRequest,
                       StillsResult, TraceOptions)
from .signals import interrupts_held    # one rule, which the faces reach through here

__all__ = ["FilmPlan", "FilmResult", "StillsResult", "atlas", "beat_cache", "callback_progress",
           "check_drawable", "check_printable", "check_readable", "compare", "drawing_turn",
           "compute_trace", "drawable_sentence", "film", "film_outputs", "interrupts_held", "narration_for",
           "plan", "stills", "use_theme"]

Report = Callable[[str], None] | None      # receives one-line notes for the user


# ---- the checks made before any work ---------------------------------------------------------
def check_drawable(count: int, max_tokens: int, what: str = "sentence") -> None:
    """Refuse a sentence (``what``: a translation, a prompt and what is written) of
    ``count`` tokens, more than ``max_tokens``."""
    if count > max_tokens:
        raise InputError(f"the {what} is {count} tokens long; the explainer draws at most "
                         f"{max_tokens} legibly (more than {MAX_TOKENS_DRAWN} are shown as a "
                         "window around the focus word); shorten it, or raise --max-tokens "
                         f"(up to {MAX_TOKENS_RANGE[1]}).")


def check_printable(text: str, what: str = "sentence") -> None:
    """Refuse ``text`` if a character of it has no glyph in the film's fonts on this
    machine (it would be drawn as an empty box), naming the characters and what to install."""
    import unicodedata

    from ..scenes.vocabulary import fonts
    from .doctor import install_line

    lacking = fonts.unprintable(text)
    if not lacking:
        return
    shown = ", ".join(f"'{c}' (U+{ord(c):04X} {unicodedata.name(c, 'unnamed')})"
                      for c in lacking[:3]) + (f" and {len(lacking) - 3} more"
                                               if len(lacking) > 3 else "")
    if fonts.missing_script_fonts():
        fix = (f"the fonts for every script are in {fonts.SCRIPT_FONT_PACKAGE}: "
               f"{install_line(fonts.SCRIPT_FONT_PACKAGE)}")
    else:
        fix = "no font the film draws with has them: leave them out"
    raise InputError(f"the {what} has characters the film has no glyph for: {shown}; {fix}.")


def check_readable(trace) -> None:
    """Refuse to draw a sentence the model read as nothing but its unknown token: a film of
    [UNK] explains no attention to the words (a script the model's vocabulary lacks)."""
    unknown = set(trace.meta.get("unknown_tokens", ()))
    read = [j for j, special in enumerate(trace.special) if not special]
    if read and all(j in unknown for j in read):
        raise InputError(f"{trace.meta.get('model', 'the model')} reads this whole sentence as "
                         "its unknown token (its vocabulary lacks the script): a film would "
                         "explain nothing; give a model folder that reads it (--model).")


def drawable_sentence(sentence: str, tracing: TraceOptions, max_tokens: int) -> None:
    """Refuse a sentence too long to draw, or with a character no font has, before the
    model runs."""
    from ..attention_core.api import count_tokens

    check_printable(sentence)
    check_drawable(count_tokens(sentence, tracing.model), max_tokens)


def _sentence_and_trace(source, tracing: TraceOptions | None, max_tokens: int):
    """(the sentence, the trace given or None), checked drawable."""
    from ..attention_core.trace import AttentionTrace

    if hasattr(source, "storyboard"):       # a translation's or a writing's view, checked
        return source.sentence, source
    if isinstance(source, AttentionTrace):
        check_printable(source.sentence)
        check_drawable(source.num_tokens, max_tokens)
        return source.sentence, source     # outputs are named after the trace's own sentence
    if not isinstance(source, str) or tracing is None:
        raise InputError(f"source must be a sentence (str) with its trace options, or an "
                         f"AttentionTrace, not {type(source).__name__}.")
    drawable_sentence(source, tracing, max_tokens)
    return source, None


_SAID_UNUSABLE: set = set()


def beat_cache(no_cache: bool, renders: bool = True, *, peek: bool = False,
               report: Report = None):
    """The beat cache a render uses: none with no_cache or ATTENTION_EXPLAINER_CACHE_MB=0,
    nor where its folder cannot be used (``report``-ed once, in one line: the render goes
    on; a command that only ``renders=False`` goes on without a word). ``peek``: the cache
    as a dry run reads it, nothing made or probed."""
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
    if cache.folder not in _SAID_UNUSABLE and report is not None:
        _SAID_UNUSABLE.add(cache.folder)
        report(f"beat cache: {cache.folder} cannot be used ({why}); rendering without it "
               "(set XDG_CACHE_HOME to a writable folder to keep beats between renders)")
    return None


def compute_trace(sentence: str, tracing: TraceOptions, cache=None, *, keep: bool = True):
    """The model's trace of ``sentence`` with ``tracing``: the one kept in the beat cache
    ``cache`` (a BeatCache, or None: none) when this machine computed it before, else the
    model's, then kept there (unless not to ``keep``: a dry run)."""
    with interrupts_held():
        from ..attention_core.api import trace_for, trace_key
        from ..scenes.pipeline.trace_store import TraceStore, kept_or_computed

        req = tracing.request(sentence)
        if cache is None:
            return trace_for(req)
        if not keep:
            # no key where the device may be a GPU (a CUDA build of torch): nothing is kept
            key = trace_key(req)
            kept = TraceStore(cache.traces).load(key) if key is not None else None
            return trace_for(req) if kept is None else kept
        return kept_or_computed(trace_key(req), cache.traces, lambda: trace_for(req))


def use_theme(name: str) -> None:
    """The colour theme, set before anything is drawn; first, that the film can be drawn
    here at all (manim loads, the fonts are there), said in one line pointing to doctor."""
    from .doctor import missing_part

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


def narration_for(source, beats, sentence: str = ""):
    """The film's narration from a folder of recordings or "speak" (decoded and checked
    now, before anything is written; a draft voice reads the words quoted from
    ``sentence`` in its language), or None."""
    if source is None:
        return None
    import re

    # the first imports of manim and PyAV, and the decoding (C code calling Python): held
    with interrupts_held():
        from ..attention_core.words import language_of
        from ..scenes.pipeline.narration import load_narration

        return load_narration(source, list(beats), language_of(re.findall(r"\w+", sentence)))


# ---- one drawing at a time in a process --------------------------------------------------------
_ONE_AT_A_TIME = threading.RLock()


@contextlib.contextmanager
def drawing_turn():
    """This thread's turn to draw; the process's colour theme put back afterwards, so a
    later drawing (a notebook's, another call's) keeps its colours."""
    import sys

    with _ONE_AT_A_TIME:
        style = sys.modules.get(f"{__package__.rpartition('.')[0]}.scenes.vocabulary.style")
        before = style.theme_name() if style is not None else None
        try:
            yield
        finally:
            style = sys.modules.get(
                f"{__package__.rpartition('.')[0]}.scenes.vocabulary.style")
            if style is not None:
                from ..facts import DEFAULT_THEME

                style.set_theme(before or DEFAULT_THEME)


def callback_progress(report: Callable[[int, int, str], None]):
    """A render's progress told to ``report(done, total, beat)`` once per beat ready (drawn
    or taken from the beat cache): the Python API's ``progress=`` (a notebook's own bar,
    a log line). The watcher class is the drawing's, so it is made when first asked for."""
    from ..scenes.pipeline.render import RenderProgress

    class Told(RenderProgress):
        total = ready = 0

        def start(self, beats, workers):
            self.total, self.ready = len(beats), 0

        def on_segment(self, segment):
            self.ready += 1
            report(self.ready, self.total, segment.beat)

    return Told()


# ---- a film or a lecture pack -------------------------------------------------------------------
# a film of another storyboard than the explainer's: the word its files are named with
# (renders/<slug>-translation-1080p.mp4), and its numbers' suffix (a view's .json)
FILM_KINDS = {"translation": "translation", "writing": "writes"}


def film_outputs(request: FilmRequest, sentence: str, beats=None, storyboard=None):
    """The output set of ``request`` (a film of ``storyboard``'s; None: the source's), checked;
    a pack's clips those of ``beats`` (default: the beats asked for; a film fitted to
    --length has fewer, known once it is planned)."""
    from ..files.outputs import slugify, video_outputs

    video = request.video
    board = storyboard or getattr(request.source, "storyboard", "explainer")
    stem = "-".join([slugify(sentence), *([FILM_KINDS[board]] if board in FILM_KINDS else []),
                     video.label])
    numbers = ".json" if board in FILM_KINDS else ".npz"
    if request.pack:
        from .lecture_pack import FIXED, pack_outputs

        folder = request.output or Path(video.output_dir) / f"{stem}-pack"
        check_burnt_film(request, Path(folder) / FIXED["video"])
        return pack_outputs(Path(folder), video.beats if beats is None else beats,
                            force=video.force, numbers=numbers)
    output = request.output or Path(video.output_dir) / f"{stem}.mp4"
    check_burnt_film(request, Path(output))
    return video_outputs(Path(output), force=video.force, numbers=numbers).check()


_outputs = film_outputs


def _prepared(request: FilmRequest, *, peek: bool, report: Report):
    """(trace, outputs, narration, the user's captions or None): everything checked
    before any work (the captions against the film's own once it is timed)."""
    video = request.video
    beat_cache(video.no_cache, peek=peek, report=report)   # its variable checked first
    sentence, trace = _sentence_and_trace(request.source, request.tracing,
                                          request.drawing.max_tokens)
    outputs = _outputs(request, sentence)
    voice = narration_for(request.narration, video.beats, sentence)
    captions = None
    if request.captions is not None:
        from .captions import read_captions

        captions = (request.captions, read_captions(request.captions))
    if request.versus is not None and request.tracing is not None:
        # B drawable too, before A is traced (a saved trace has no B: paired_with says so)
        drawable_sentence(request.versus, request.tracing, request.drawing.max_tokens)
    if trace is None:
        # a minimal pair's film asks about the word the pair changes (with no --focus)
        trace = compute_trace(sentence, pair_tracing(request.tracing, sentence, request.versus),
                              beat_cache(video.no_cache, peek=peek, report=report),
                              keep=not peek)
    if hasattr(trace, "storyboard"):        # a view: its film measures nothing more
        return trace, outputs, voice, captions
    check_readable(trace)
    trace = with_measures(trace, beats_of(request), request.tracing)
    if request.versus is not None:
        trace = paired_with(trace, request)
    return trace, outputs, voice, captions


def plan(request: FilmRequest, *, report: Report = None) -> FilmPlan:
    """What ``request`` would write and draw, and about how long it takes; nothing drawn or
    written (a dry run)."""
    with drawing_turn():
        with interrupts_held():         # the first import of manim
            request = with_versus_beat(request)
        video = request.video
        trace, outputs, _, _ = _prepared(request, peek=True, report=report)
        with interrupts_held():         # the first import of manim
            from ..scenes.pipeline.burn import drawn_size
            from ..scenes.pipeline.plan import plan_film
            from ..scenes.pipeline.render import default_workers, film_estimate
        use_theme(request.drawing.theme)           # a beat's cache entry is the theme's
        width, height = drawn_size(video.width, video.height, request.burn_captions)
        tasks = plan_film(trace, video.beats, width=width, height=height,
                          fps=video.fps, quality=video.quality,
                          settings=request.settings)
        workers = video.jobs or default_workers()
        if video.length is not None:
            from .length import fitted_film

            cache = beat_cache(video.no_cache, peek=True)
            fitted = fitted_film(trace, video.beats, video.length, workers=workers,
                                 cache_folder=cache.folder if cache else None,
                                 width=width, height=height, fps=video.fps,
                                 quality=video.quality, settings=request.settings)
            tasks = fitted.tasks
            if report is not None:
                report(fitted.line())
            if request.pack:          # the clips of the beats the film keeps
                outputs = _outputs(request, trace.sentence, fitted.kept)
        guess = film_estimate(tasks, workers, beat_cache(video.no_cache, peek=True))
    return FilmPlan([Path(f) for f in outputs.files.values()], [t.beat for t in tasks],
                    frozenset(guess.cached), guess, workers)


def film(request: FilmRequest, *, progress=None, report: Report = None) -> FilmResult:
    """Render the film (or the lecture pack) of ``request``; ``progress`` (a
    ``RenderProgress``) is told of each beat, ``report`` receives one-line notes."""
    with drawing_turn():
        with interrupts_held():         # the first import of manim
            request = with_versus_beat(request)
        video = request.video
        trace, outputs, voice, captions = _prepared(request, peek=False, report=report)
        with interrupts_held():         # the first import of manim
            from .film import render_video
        use_theme(request.drawing.theme)
        also = None
        if request.pack:
            from .captions import captions_language
            from .lecture_pack import LecturePack

            also = LecturePack(trace, video.width, video.height,
                               captions_language=captions_language(captions),
                               pauses=request.pauses)
        made = [outputs]
        if request.pack and video.length is not None:
            # a pack's clips are those of the beats --length keeps: its set is made once
            # the film is planned (the folder was checked above)
            def outputs(beats):
                made[0] = _outputs(request, trace.sentence, beats)
                return made[0]
        result = render_video(trace, beats=video.beats, width=video.width,
                              height=video.height, fps=video.fps, outputs=outputs,
                              progress=progress, report=report, jobs=video.jobs,
                              quality=video.quality,
                              cache=beat_cache(video.no_cache, report=report), also=also,
                              narration=voice, captions=captions, length=video.length,
                              burn_captions=request.burn_captions,
                              settings=request.settings)
    files = (list(made[0].files.values()) if request.pack else
             [result.video, result.captions, result.poster, result.trace])
    return FilmResult([Path(f) for f in files], result)


# ---- stills ----------------------------------------------------------------------------------
def stills(request: StillsRequest, *, report: Report = None, tolerance: int | None = None,
           max_share: float | None = None) -> StillsResult:
    """Draw the stills of ``request`` (and compare them with its goldens, ``tolerance`` and
    ``max_share`` as ``regression`` takes them)."""
    with drawing_turn():
        with interrupts_held():         # the first import of manim
            from .stills import StillsJob
        width, height, _ = request.resolution
        job = StillsJob(beats=request.beats, times=request.times, out_dir=request.out_dir,
                        width=width, height=height, fps=request.fps, sheet=request.sheet,
                        golden=request.golden, jobs=request.jobs,
                        cache=beat_cache(request.no_cache, report=report),
                        force=request.force, format=request.format,
                        width_mm=request.width_mm, settings=request.settings).check()
        sentence, trace = _sentence_and_trace(request.source, request.tracing,
                                              request.drawing.max_tokens)
        if trace is None:
            trace = compute_trace(sentence, request.tracing, job.cache)
        check_readable(trace)
        trace = with_measures(trace, request.beats, request.tracing)
        use_theme(request.drawing.theme)
        written = [Path(p) for p in job.run(trace, report=report)]
        changed = []
        if job.golden is not None:
            changed = job.compare(
                tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance,
                max_share=DEFAULT_MAX_SHARE if max_share is None else max_share)
    return StillsResult(written, list(changed), len(job.stills))


# ---- minimal pairs ---------------------------------------------------------------------------
def compare(sentence_a: str, sentence_b: str, tracing: TraceOptions):
    """The focus word's attention on two sentences, A's layer, heads and focus word on
    both (``attention_core.compare.Comparison``)."""
    with interrupts_held():
        from ..attention_core.compare import compare_sentences

        return compare_sentences(tracing.request(sentence_a), sentence_b)


def noise_floor(sentence_a: str, tracing: TraceOptions, comparison):
    """A minimal pair's noise floor (``attention_core.pair_noise``)."""
    with interrupts_held():
        from ..attention_core.pair_noise import pair_noise

        return pair_noise(tracing.request(sentence_a), comparison)


def patch(sentence_a: str, sentence_b: str, tracing: TraceOptions, layer: int):
    """Every head of ``layer`` patched from B's run into A's (``attention_core.patching``)."""
    with interrupts_held():
        from ..attention_core.patching import patch_heads, patch_streams

        request = tracing.request(sentence_a)
        return patch_heads(request, sentence_b, layer), patch_streams(request, sentence_b)


# ---- the atlas -------------------------------------------------------------------------------
def _atlas_numbers(request: AtlasRequest):
    """The atlas's weights and patterns: every layer of the model, or of an encoder–
    decoder's one kind of attention (--attention, on --target or its own translation)."""
    with interrupts_held():
        from ..attention_core.seq2seq import seq2seq_files

        files = seq2seq_files(request.tracing.model)
        unread = request.tracing.asked("layer", "heads", "focus", "mask") if files else []
        if unread:
            raise InputError(f"{unread[0]}: the atlas of an encoder–decoder draws every layer "
                             "and head of one kind of its attention (--attention); drop it "
                             "(`inspect` prints one layer's heads and a focus word's rows).")
        if files is None:
            if request.attention is not None or request.target is not None:
                what = "--attention" if request.attention is not None else "--target"
                raise InputError(f"{what} reads an encoder–decoder folder (Marian, BART, "
                                 "mBART, T5, mT5); this model reads one sentence: drop it.")
            from ..attention_core.api import atlas_for

            return atlas_for(request.tracing.request(request.sentence))
        from ..attention_core.device import resolve_device, resolve_dtype
        from ..attention_core.kinds_atlas import kind_atlas
        from ..facts import TRANSLATION_DEFAULTS

        return kind_atlas(files, request.sentence, kind=request.attention or "cross",
                          target=request.target,
                          max_new_tokens=TRANSLATION_DEFAULTS["max_new_tokens"],
                          device=resolve_device(request.tracing.device),
                          dtype=resolve_dtype(request.tracing.dtype))


def atlas(request: AtlasRequest, *, report: Report = None) -> list[Path]:
    """Every layer x head's weights on the sentence, tagged by pattern: the PNG and the SVG
    written."""
    from ..files.outputs import OutputSet

    png = Path(request.output)
    if png.suffix.lower() != ".png":
        raise InputError(f"--out {str(request.output)!r} must name a .png file (the SVG goes "
                         "beside it); e.g. --out atlas.png.")
    outputs = OutputSet({"atlas": png, "svg": png.with_suffix(".svg")}, force=request.force,
                        what="atlas", hint="choose another --out or add --force").check()
    weights = _atlas_numbers(request)
    with drawing_turn():
        use_theme(request.theme)
        from ..scenes.atlas import MAX_PIXELS, picture_size, write_atlas

        width, height = picture_size(weights)
        if width * height > MAX_PIXELS:
            raise InputError(f"the atlas of {len(weights.layers)} layers x "
                             f"{weights.weights.shape[1]} heads would be {width}x{height} "
                             "pixels, too large for one picture; draw one layer at a time "
                             "with --layer N.")
        with outputs.opened(report=report):
            write_atlas(weights, outputs.path("atlas"), outputs.path("svg"))
            outputs.commit()
    return [Path(p) for p in outputs.files.values()]
