"""A whole course in one command: a TOML manifest of explainers, rendered as beat tasks on
Dask distributed (``cluster``: a local, secured cluster, or a running one by its scheduler
address).

    [defaults]
    resolution = ["1080p", "720p"]
    pack = true

    [[explainer]]
    sentence = "The animal didn't cross the street because it was too tired"
    focus = "it"
    output = "tired"

The tasks: one trace task per distinct trace (sentence and model options), one task per
(explainer, resolution, beat) whose result is a segment in the beat cache, and one
assembly task per output set (the film, or a lecture pack) once its beats are drawn;
``course_run.py`` hands them out. The client opens every output set first (all checked
before anything runs), commits each as its assembly finishes, and rolls back the ones
that failed, each said in one line: one failing explainer never stops the others. A
rerun skips output sets that are complete; a half-present set is refused. On a cluster
beyond this machine, the workers need the project installed and the cache folder and
output folder on a path they share (``--cache-dir``).
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..attention_core.errors import InputError, NoSpaceLeft
from . import fingerprints
from ..facts import DEFAULT_PAUSES
from .course_films import FILMS, TRACE_KEYS, Storyboard, view_of, view_options
from ..scenes.film.settings import FilmSettings, setting_specs

__all__ = [
    "COURSE_KEYS", "CourseProgress", "FILMS", "SHARED_KEYS", "OutputPlan", "TRACE_KEYS", "assemble_task",
    "dry_run_lines", "estimate_seconds", "load_course", "long_work_line", "output_set",
    "plan_task", "segment_task", "sort_out_existing", "summary_table", "trace_task",
]

COURSE_KEYS = {"sentence", "output", "pack", "resolution", "fps", "beats", "theme", "quality",
               "max-tokens", "length", "pauses", "film", "target", "max-new-tokens", "tokens",
               *TRACE_KEYS, *(spec.option for spec in setting_specs())}
# the keys a settings file's top level (or a variable) may give every explainer
SHARED_KEYS = sorted(COURSE_KEYS - {"sentence", "output", "pack", "film", "target"})


@dataclass
class OutputPlan:
    """One output set of the course: an explainer at one resolution."""
    explainer: int                 # its index in the manifest, from 1
    line: int
    name: str                      # file stem or pack folder name
    sentence: str
    trace_options: dict
    beats: list[str]
    width: int
    height: int
    label: str
    fps: int
    pack: bool
    theme: str
    quality: str
    length: float | None = None    # seconds the film is fitted to (None: as it is)
    settings: FilmSettings = FilmSettings()   # how its beats are drawn (--pace, ...)
    pauses: str = DEFAULT_PAUSES   # a pack's stops (facts.PAUSES)
    kept: list | None = None       # the beats the output holds, once fitted to its length
    film: str = "explainer"        # the film's storyboard (FILMS: a translation's, a writing)
    status: str = "pending"        # pending | done (up to date) | ok | failed
    state: str = "new"             # new | changed: what | up to date | again (--force)
    made: dict = field(default_factory=dict)   # what it is made from (fingerprints)
    why: str = ""
    files: list = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.explainer}. {self.name} {self.label}"

    def trace_key(self) -> str:
        text = json.dumps([self.sentence, self.trace_options], sort_keys=True)
        return "trace-" + hashlib.sha256(text.encode()).hexdigest()[:16]


# ---- the manifest ------------------------------------------------------------------------
def load_course(path: Path, *, resolution=None, fps: int | None = None,
                settings: dict | None = None) -> list[OutputPlan]:
    """Every output set of the course, every entry checked: all problems are reported at
    once (exit 2), before anything is written. Each key is checked by the parser a render
    uses for that setting (``app.values``); one that no explainer nor [defaults] gives
    comes from ``settings`` (the top-level settings, ``app.values.shared_values``), else
    it is the built-in default. ``resolution`` (parsed) and ``fps`` replace every
    explainer's (a preview of the whole course)."""
    from .values import SETTINGS

    if Path(path).exists() and not Path(path).is_file():
        raise InputError(f"{path} is not a regular file; give the course's TOML manifest.")
    try:
        text = Path(path).read_text(encoding="utf-8")
        manifest = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{path}: not a readable TOML course ({exc}).") from exc
    unknown_tables = set(manifest) - {"defaults", "explainer"}
    problems = [f"unknown table [{t}] (use [defaults] and [[explainer]])" for t in unknown_tables]
    defaults = manifest.get("defaults", {})
    if not isinstance(defaults, dict):
        problems.append(f"defaults = {defaults!r}: write [defaults] as a table")
        defaults = {}
    entries = manifest.get("explainer", [])
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{path}: no [[explainer]] tables; add one per explainer.")
    lines = [n for n, line in enumerate(text.splitlines(), 1)
             if re.match(r"\s*\[\[\s*explainer\s*\]\]", line)]
    options = {key: SETTINGS[key] for key in COURSE_KEYS if key in SETTINGS}
    shared = {k: v for k, v in (settings or {}).items() if k in COURSE_KEYS}
    override = {**({"resolution": resolution[2]} if resolution else {}),
                **({"fps": fps} if fps else {})}
    plans: list[OutputPlan] = []
    for index, entry in enumerate(entries, 1):
        line = lines[index - 1] if index <= len(lines) else 0
        where = f"explainer {index} (line {line or '?'})"
        if not isinstance(entry, dict):
            problems.append(f"{where}: {entry!r} is not a table; write each as [[explainer]]")
            continue
        bad = sorted(set({**defaults, **entry}) - COURSE_KEYS)
        if bad:
            problems.append(f"{where}: unknown key{'s' * (len(bad) > 1)} {', '.join(bad)}")
            continue
        try:
            plans += _Explainer(index, line, {**shared, **defaults, **entry, **override},
                                options).plans()
        except InputError as exc:
            problems.append(f"{where}: {exc}")
    problems += _same_names(plans)
    if problems:
        raise InputError(f"{path}: {len(problems)} problem{'s' * (len(problems) > 1)}: "
                         + "; ".join(p.rstrip(".") for p in problems)
                         + ". Nothing was rendered.")
    return plans


def _same_names(plans: list[OutputPlan]) -> list[str]:
    """Two output sets of one name and size: one would overwrite the other."""
    problems, names = [], {}
    for plan in plans:
        key = (plan.name, plan.label)
        if key in names:
            problems.append(f"explainer {plan.explainer}: output {plan.name!r} at {plan.label} "
                            f"is also explainer {names[key]}'s; give each an output name")
        names[key] = plan.explainer
    return problems


@dataclass
class _Explainer:
    """One [[explainer]] entry, its keys merged with what it does not give."""
    index: int
    line: int
    merged: dict
    options: dict          # the settings by name (app.values): the parsers and the defaults

    def value(self, key: str, given=None):
        """The entry's value of ``key`` as a render takes it (``given`` instead of the
        entry's, if not None); the built-in default when the entry has none."""
        option = self.options[key]
        value = self.merged.get(key) if given is None else given
        if value is None:
            value = option.default
        try:
            return option.parse(value)
        except InputError as exc:
            raise InputError(f"{key} = {value!r}: {exc}") from None

    def settings(self) -> FilmSettings:
        """The film's settings of the entry (``FilmSettings``: its keys, each checked)."""
        return FilmSettings(**{spec.name: self.value(spec.option) for spec in setting_specs()})

    def plans(self) -> list[OutputPlan]:
        """The entry's output sets, one per resolution."""
        from ..attention_core.api import TraceRequest, check_request, count_tokens
        from ..files.outputs import slugify
        from ..scenes.film.registry import parse_beats

        merged = self.merged
        sentence = merged.get("sentence")
        if not isinstance(sentence, str) or not sentence.strip():
            raise InputError("no sentence")
        film = merged.get("film", "explainer")
        if film == "explainer" and "target" in merged:
            raise InputError("target: not an option of an explainer (film = \"translation\" "
                             "draws a translation)")
        if film != "explainer":
            trace_options = view_options(film, merged, self.value)
            storyboard = Storyboard(film, merged)
        else:
            storyboard = None
            trace_options = {k.replace("-", "_"): self.value(k) for k in TRACE_KEYS
                             if k in merged}
            max_tokens = self.value("max-tokens")
            count = count_tokens(sentence, self.value("model"))
            if count > max_tokens:
                raise InputError(f"the sentence is {count} tokens long, more than max-tokens "
                                 f"{max_tokens}")
            # focus, heads and layer against the tokenizer and the model's config, now: not
            # in a worker, half a minute after the cluster started
            check_request(TraceRequest(sentence=sentence, **trace_options))
        resolutions = merged.get("resolution", self.options["resolution"].default)
        resolutions = resolutions if isinstance(resolutions, list) else [resolutions]
        if not resolutions:
            raise InputError("resolution is an empty list")
        pack = merged.get("pack", False)
        if not isinstance(pack, bool):
            raise InputError(f"pack = {pack!r}: use true or false")
        name = merged.get("output") or slugify(sentence)
        if not isinstance(name, str) or slugify(name) != name:
            raise InputError(f"output = {name!r}: use letters, digits and hyphens "
                             f"(e.g. {slugify(str(name))!r})")
        beats = merged.get("beats", self.options["beats"].default)
        if not isinstance(beats, str) and not (
                isinstance(beats, list) and all(isinstance(b, str) for b in beats)):
            raise InputError(f"beats = {beats!r}: use a list of beat names or \"all\"")
        return [OutputPlan(explainer=self.index, line=self.line, name=name, sentence=sentence,
                           trace_options=trace_options, beats=parse_beats(beats, storyboard),
                           film=film,
                           width=width, height=height, label=label, fps=self.value("fps"),
                           pack=pack, theme=self.value("theme"),
                           quality=self.value("quality"), length=self.value("length"),
                           settings=self.settings(), pauses=self.value("pauses"))
                for width, height, label in (self.value("resolution", r) for r in resolutions)]


def output_set(plan: OutputPlan, out_dir: Path, beats: list | None = None):
    """The plan's output set (checked against existing files, nothing written); a pack's
    clips those of ``beats`` (default: the beats it keeps, once fitted to its length, else
    those asked for)."""
    from .lecture_pack import pack_outputs
    from ..files.outputs import video_outputs

    numbers = ".npz" if plan.film == "explainer" else ".json"      # a view's numbers
    if plan.pack:
        beats = beats or plan.kept or plan.beats
        outputs = pack_outputs(out_dir / f"{plan.name}-{plan.label}", beats, force=True,
                               numbers=numbers)
    else:
        outputs = video_outputs(out_dir / f"{plan.name}-{plan.label}.mp4", force=True,
                                numbers=numbers)
    return outputs.add(fingerprints.KIND,
                       fingerprints.file_for(plan.name, plan.label, plan.pack, out_dir))


def sort_out_existing(plans: list[OutputPlan], sets: dict, force: bool = False,
                      out_dir: Path | None = None) -> None:
    """Each plan's state from what its set holds: new, changed (its fingerprint differs
    from what the manifest asks now, or files are missing: rendered again and replaced
    whole) or up to date (skipped); ``force``: everything again. A set partly present
    with no fingerprint of ours is refused (exit 2): not ours to guess about. A pack
    fitted to a length holds the clips of the beats its fingerprint says it kept
    (``out_dir``: where the course writes, to find them)."""
    problems = []
    for plan in plans:
        outputs = sets[id(plan)]
        plan.made = fingerprints.made_from(plan)
        kept = fingerprints.read(outputs.files[fingerprints.KIND])
        held = (kept or {}).get("kept")
        if plan.pack and plan.length is not None and out_dir is not None and \
                isinstance(held, list) and held and all(isinstance(b, str) for b in held):
            outputs = output_set(plan, out_dir, held)
        files = [p for kind, p in outputs.files.items() if kind != fingerprints.KIND]
        present = [p for p in files if p.exists()]
        if force:
            plan.state = "again (--force)" if present else "new"
        elif kept is None and not present:
            plan.state = "new"
        elif kept is None and len(present) < len(files):
            problems.append(f"explainer {plan.explainer} ({plan.name} {plan.label}): "
                            f"{len(present)} of its {len(files)} files exist ({present[0]}); "
                            "remove them, or pass --force to render it again")
        else:
            changed = fingerprints.changes(kept, plan.made)
            changed += [f"{len(files) - len(present)} files missing"] * (len(present) < len(files))
            if not changed:
                plan.status, plan.why, plan.files = "done", "up to date", list(outputs.files.values())
            plan.state = f"changed: {', '.join(changed)}" if changed else "up to date"
    if problems:
        raise InputError("; ".join(problems) + ".")


# ---- estimates -----------------------------------------------------------------------------
def estimate_seconds(plan: OutputPlan) -> float:
    """Compute seconds (one core) to render ``plan`` from a cold cache."""
    from ..scenes.pipeline.estimate import beat_cost

    return sum(beat_cost(b, plan.width, plan.height, plan.fps) for b in plan.beats)


# ---- the tasks (run on Dask workers) ----------------------------------------------------
def _reported_plainly(task):
    """``task``, whose error goes back to the course as a plain chain of causes. Dask walks
    an error's ``__cause__`` chain to send it back (``distributed.core.error_message``): a
    chain that loops (an error raised ``from`` itself) made the worker walk it for ever,
    its memory growing by a hundred megabytes a second, and the course never ended."""
    @functools.wraps(task)
    def run(*args):
        try:
            return task(*args)
        except Exception as exc:
            _cut_loops(exc)
            raise
    return run


def _cut_loops(exc: BaseException) -> None:
    """Cut every link of ``exc``'s causes and contexts that leads back to an error already
    met (a cause is kept before a context that names the same error)."""
    met, todo = {id(exc)}, [exc]
    while todo:
        error = todo.pop()
        for link in ("__cause__", "__context__"):
            linked = getattr(error, link)
            if linked is None:
                continue
            if id(linked) in met:
                setattr(error, link, None)
            else:
                met.add(id(linked))
                todo.append(linked)


@_reported_plainly
def trace_task(sentence: str, options: dict, cache_folder: str):
    if "film" in options:           # a translation's or a writing's view, made as its command
        return view_of(sentence, dict(options))
    from ..attention_core.api import TraceRequest, trace_for, trace_key
    from ..scenes.pipeline.beat_cache import BeatCache
    from ..scenes.pipeline.trace_store import kept_or_computed

    req = TraceRequest(sentence=sentence, **options)
    return kept_or_computed(trace_key(req), BeatCache(Path(cache_folder)).traces,
                            lambda: trace_for(req))


@_reported_plainly
def plan_task(trace, beats: list[str], width: int, height: int, fps: int, theme: str,
              quality: str, settings: FilmSettings | None = None, length: float | None = None,
              cache_folder: str | None = None) -> list:
    """The film's segment jobs, planned as a render plans them (``plan_film``), fitted to
    ``length`` seconds where one is given (``app.length``: fewer beats, timed here)."""
    from ..scenes.film.registry import film_beats
    from ..scenes.pipeline.plan import plan_film

    if hasattr(trace, "storyboard"):        # a writing that ended early has fewer steps
        beats = [b for b in beats if b in film_beats(trace)]
    plan = dict(width=width, height=height, fps=fps, quality=quality, theme=theme,
                settings=settings)
    if length is None:
        return plan_film(trace, beats, **plan)
    from .length import fitted_film

    return fitted_film(trace, beats, length, workers=1,
                       cache_folder=Path(cache_folder) if cache_folder else None, **plan).tasks


@_reported_plainly
def segment_task(job, trace, cache_folder: str):
    from tqdm import tqdm

    from ..scenes.pipeline.segments import render_segment

    # manim's (hidden) progress bars would make tqdm create a named multiprocessing lock in
    # this worker: a worker stopped by Ctrl-C leaks it, and the resource tracker says so
    tqdm.set_lock(threading.RLock())
    return render_segment(job, trace, None, Path(cache_folder))


@_reported_plainly
def assemble_task(segments, trace, paths: dict, pack: bool, width: int, height: int,
                  pauses: str = DEFAULT_PAUSES) -> int:
    from ..scenes.pipeline.join import assemble

    also = None
    if pack:
        from .lecture_pack import LecturePack
        also = LecturePack(trace, width, height, pauses=pauses)
    try:
        assemble(segments, trace, paths, also)
    except OSError as exc:
        if not NoSpaceLeft.matches(exc):
            raise
    else:
        return sum(s.from_cache for s in segments)
    # raised outside the handler: Dask sends an error back with its context, and PyAV's
    # errors do not survive the trip (the course would see a bare Exception)
    staging = Path(next(iter(paths.values()))).parent      # inside the output folder
    raise NoSpaceLeft.on(staging.parent, hint="or choose another --out")


# ---- running -------------------------------------------------------------------------------
class CourseProgress:
    """Whoever watches a course is told of it through these (the command line draws bars
    on a terminal, or says lines in a log); each does nothing here. Made for the plans to
    render, with ``tell`` (a one-line reporter) when the work is long, else None."""

    def __init__(self, plans, tell=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def beat(self, plan) -> None:
        """One beat of ``plan`` is ready."""

    def finished(self, plan) -> None:
        """``plan``'s output set is committed."""

    def failed(self, plan) -> None:
        """``plan`` failed; its set is rolled back."""


def summary_table(plans: list[OutputPlan]) -> list[str]:
    """The final table: every output set with its status and why."""
    rows = [("#", "output", "size", "status", "why / where")]
    for p in plans:
        where = p.why or (str(p.files[0].parent) if p.files else "")
        rows.append((str(p.explainer), p.name, p.label, p.status, where))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]


def long_work_line(plans: list[OutputPlan], workers: int) -> str | None:
    """The estimate's line when the pending plans are long work on ``workers`` (a run says
    it before it starts, so long work never starts silently), else None."""
    from ..scenes.pipeline.estimate import LONG_WORK_SECONDS

    seconds = sum(estimate_seconds(p) for p in plans if p.status == "pending")
    return dry_run_lines(plans, workers)[-1] if seconds / workers > LONG_WORK_SECONDS else None


def dry_run_lines(plans: list[OutputPlan], workers: int) -> list[str]:
    """Every output with its state (new, changed and what changed, up to date), then the
    tasks and the estimate."""
    todo = [p for p in plans if p.status == "pending"]
    traces = {p.trace_key() for p in todo}
    beats = sum(len(p.beats) for p in todo)
    seconds = sum(estimate_seconds(p) for p in todo)
    width = max(len(f"{p.name} {p.label}") for p in plans)
    return [f"  {p.explainer}. {f'{p.name} {p.label}'.ljust(width)}  {p.state}" for p in plans] + [
            f"{len(plans)} output sets: {len(todo)} to render, "
            f"{len(plans) - len(todo)} up to date",
            f"tasks: {len(traces)} traces, {beats} beats, {len(todo)} joins/packs",
            f"estimated render time from a cold cache: {seconds:.0f} s on one core, "
            f"about {seconds / max(workers, 1):.0f} s on {workers} workers "
            "(bench figures of a 2-core machine; cached beats take seconds)"]
