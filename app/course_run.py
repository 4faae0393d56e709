"""A course's run on Dask (``course.py`` has its manifest, its plans and its tasks): the
tasks handed out one per worker thread, each output set committed as it is assembled or
rolled back as its explainer fails, and each failure said in one line."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from ..attention_core.errors import InputError, NoSpaceLeft
from . import fingerprints
from .cluster import course_client, default_memory_limit, gigabytes
from .course import (CourseProgress, OutputPlan, assemble_task, long_work_line, output_set,
                     plan_task, segment_task, trace_task)

__all__ = ["CourseRun", "course_cache", "course_folder", "default_workers", "one_line"]


@dataclass
class _Task:
    """One task of the course for Dask: what it is (for a lecturer: "the update beat"),
    the plans it serves (a trace serves every plan of its sentence and options), its
    function and arguments (values, never other tasks' futures: see :class:`CourseRun`),
    and ``then``, told its result."""
    what: str
    plans: list
    key: str
    function: object
    args: tuple
    then: object

    def wanted(self) -> bool:
        return any(plan.status == "pending" for plan in self.plans)


@dataclass
class CourseRun:
    """The course on Dask, its tasks handed out by this process: a task is submitted with
    its inputs as values once the tasks it needs have finished, and no more tasks are out
    than the cluster has threads. A worker so holds one task at a time, and one stopped for
    its memory (or killed by a crash) takes only the task that was running there with it:
    that task's explainer is reported failed, the others go on (Dask would count the death
    against every task it had placed on the worker, and retry a task that dies on it). A
    task's inputs are a trace or a few kilobytes of plans and segments."""
    plans: list[OutputPlan]
    out_dir: Path
    cache_folder: Path
    workers: int
    scheduler: str | None = None
    progress: type = CourseProgress   # made with (plans, tell): the watcher of the run
    dashboard: bool = False           # the local cluster's, on 127.0.0.1 (else none)
    announce: object = None           # told the estimate line of long work once the
    #                                   cluster answers (a refusal comes alone, first)
    memory_limit: int | None = None   # each local worker's, in bytes (None: the default)
    report: object = None             # told one line for each explainer as it fails
    beats_done: int = 0
    beats_cached: int = 0
    discarded: list = field(default_factory=list)   # one line per damaged cache entry met

    def run(self) -> None:
        """Render every pending plan on Dask; commit each set as it is assembled."""
        todo = [p for p in self.plans if p.status == "pending"]
        if not todo:
            return
        sets = {id(p): output_set(p, self.out_dir) for p in todo}
        # the local workers' limit (a cluster of one's own has its workers' own)
        self._limit = None if self.scheduler else (self.memory_limit
                                                   or default_memory_limit(self.workers))
        with contextlib.ExitStack() as stack, \
                course_client(self.workers, self.scheduler, self.dashboard,
                              self._limit) as client:
            line = long_work_line(self.plans, self.workers)
            if line and self.announce is not None:
                self.announce(line)           # long work never starts silently
            with self.progress(todo, self.announce if line else None) as bar:
                opened = {}
                for plan in todo:
                    context = sets[id(plan)].opened()
                    context.__enter__()
                    opened[id(plan)] = context
                    # an interrupt rolls back every set not yet committed
                    stack.callback(_close, context)
                self._sets, self._opened, self._bar = sets, opened, bar
                self._hand_out(client, self._trace_tasks(todo))

    def _hand_out(self, client, ready: list[_Task]) -> None:
        """Submit the ready tasks, no more at once than the cluster has threads, and each
        task's result starts what it makes ready, until every task is done or dropped."""
        from collections import deque

        from distributed import as_completed

        queue, out = deque(ready), {}
        finished = as_completed()

        def submit() -> None:
            threads = max(1, sum(client.nthreads().values()))
            while queue and len(out) < threads:
                task = queue.popleft()
                if task.wanted():            # else its explainer failed meanwhile
                    future = client.submit(task.function, *task.args, key=task.key,
                                           pure=False)
                    out[future.key] = task
                    finished.add(future)

        submit()
        for future in finished:
            task = out.pop(future.key)
            if future.status == "error":
                error = future.exception()
                if isinstance(error, NoSpaceLeft):
                    raise error             # every other set would fail the same way
                self._failed(task, self._reason(client, task, error))
            elif task.wanted():
                queue.extend(task.then(future.result()))
            future.release()
            submit()

    # ---- what each task's result makes ready -----------------------------------------------
    def _trace_tasks(self, todo: list[OutputPlan]) -> list[_Task]:
        by_trace: dict[str, list[OutputPlan]] = {}
        for plan in todo:
            by_trace.setdefault(plan.trace_key(), []).append(plan)
        return [_Task("its trace", plans, key, trace_task,
                      (plans[0].sentence, plans[0].trace_options, str(self.cache_folder)),
                      lambda trace, plans=plans: [self._plan_task(p, trace) for p in plans])
                for key, plans in by_trace.items()]

    def _plan_task(self, plan: OutputPlan, trace) -> _Task:
        return _Task("its plan", [plan], f"plan-{plan.explainer}-{plan.label}-{id(plan)}",
                     plan_task, (trace, list(plan.beats), plan.width, plan.height, plan.fps,
                                 plan.theme, plan.quality, plan.settings, plan.length,
                                 str(self.cache_folder)),
                     lambda jobs: self._beat_tasks(plan, trace, jobs))

    def _beat_tasks(self, plan: OutputPlan, trace, jobs: list) -> list[_Task]:
        segments = [None] * len(jobs)
        beats = [job.beat for job in jobs]
        if beats != list(plan.beats):       # fitted to its length: fewer beats, fewer clips
            plan.kept = beats
            if plan.pack:
                self._sets[id(plan)].replan(output_set(plan, self.out_dir).files)

        def drawn(n: int, segment) -> list[_Task]:
            segments[n] = segment
            self.beats_done += 1
            self.beats_cached += segment.from_cache
            if segment.discarded:
                from ..scenes.pipeline.render import discarded_line
                self.discarded.append(discarded_line(segment))
            self._bar.beat(plan)
            if any(s is None for s in segments):
                return []
            return [self._assemble_task(plan, trace, segments)]

        return [_Task(f"the {beat} beat", [plan],
                      f"beat-{plan.explainer}-{plan.label}-{n:02d}-{beat}-{id(plan)}",
                      segment_task, (job, trace, str(self.cache_folder)),
                      lambda segment, n=n: drawn(n, segment))
                for n, (beat, job) in enumerate(zip(beats, jobs))]

    def _assemble_task(self, plan: OutputPlan, trace, segments: list) -> _Task:
        outputs = self._sets[id(plan)]
        paths = {kind: outputs.path(kind) for kind in outputs.files}
        what = "its lecture pack" if plan.pack else "its film"
        return _Task(what, [plan], f"assemble-{plan.explainer}-{plan.label}-{id(plan)}",
                     assemble_task, (segments, trace, paths, plan.pack, plan.width,
                                     plan.height, plan.pauses),
                     lambda _: self._committed(plan))

    def _committed(self, plan: OutputPlan) -> list[_Task]:
        # with the beats it holds: a pack fitted to a length keeps the clips of those alone
        fingerprints.write(self._sets[id(plan)].path(fingerprints.KIND),
                           {**plan.made, "kept": plan.kept or list(plan.beats)})
        plan.files = self._sets[id(plan)].commit()
        _close(self._opened[id(plan)])
        plan.status = "ok"
        self._bar.finished(plan)
        return []

    # ---- failures ------------------------------------------------------------------------
    def _failed(self, task: _Task, why: str) -> None:
        """Every plan ``task`` served fails, said in one line each; its set rolls back."""
        for plan in task.plans:
            if plan.status != "pending":
                continue
            plan.status, plan.why = "failed", why
            _close(self._opened[id(plan)], failed=True)
            self._bar.failed(plan)
            if self.report is not None:
                self.report(f"explainer {plan.explainer} ({plan.name} {plan.label}) failed: "
                            f"{why}")

    def _reason(self, client, task: _Task, error: BaseException | None) -> str:
        """Why ``task`` failed, in one line. A worker that died under it was stopped by its
        nanny for its memory (the nanny logs an event as it stops it) or crashed."""
        from distributed.scheduler import KilledWorker

        if isinstance(error, InputError):
            return f"{task.what}: {_why(error)}"
        if not isinstance(error, KilledWorker):
            return f"{task.what} raised {_why(error)}"
        used = _memory_stop(client, getattr(error.last_worker, "address", None))
        if used is None:
            return (f"the worker running {task.what} died (a crash, not an error the task "
                    "raised: the worker's log says more)")
        if self._limit is None:             # another cluster's workers: what it passed
            return f"{task.what} used more than {gigabytes(used)} of memory and its worker " \
                   "was stopped (that worker's memory limit)"
        return (f"{task.what} used more than {gigabytes(self._limit)} of memory and its "
                "worker was stopped (--memory-limit sets each local worker's limit)")


def course_folder(out_dir: str, cache_dir: str | None) -> Path:
    """The course's output folder, refused inside the beat cache (a cache trim would
    remove the user's films)."""
    from ..files.outputs import output_path, refuse_inside_the_cache

    out = output_path(out_dir)
    refuse_inside_the_cache([out], "give --out a folder outside it",
                            Path(cache_dir) if cache_dir else None)
    return out


def course_cache(cache_dir: str | None, *, checked: bool = True):
    """The beat cache a course keeps its beats in (a BeatCache): refused when turned off,
    and (``checked``) when it cannot be used."""
    from ..scenes.pipeline.beat_cache import CAP_ENV, BeatCache, cache_enabled

    if not cache_enabled():
        raise InputError(f"{CAP_ENV}=0 turns the beat cache off, but a course keeps its beats "
                         "there: unset it, or give a cap in megabytes, e.g. 2000.")
    if not checked:
        return None
    cache = BeatCache(Path(cache_dir) if cache_dir else None)
    why = cache.unusable()
    if why is not None:
        raise InputError(f"the beat cache {cache.folder} cannot be used ({why}), and a course "
                         "keeps its beats there: give --cache-dir a writable folder.")
    return cache


def default_workers() -> int:
    """Worker processes by default: one per core this process may use."""
    from ..scenes.pipeline.draw import default_workers as workers

    return workers()


def _memory_stop(client, worker: str | None, wait_s: float = 5.0) -> int | None:
    """The memory (bytes) at which ``worker``'s nanny stopped it, from the event it logs on
    the scheduler as it stops it; None if it was not stopped for memory. The event may
    reach the scheduler just after the worker's death: waited for a little."""
    import time

    deadline = time.monotonic() + wait_s
    while True:
        for _, event in client.get_events("worker-restart-memory"):
            if isinstance(event, dict) and event.get("worker") == worker:
                return int(event.get("rss", 0))
        if time.monotonic() > deadline:
            return None
        time.sleep(0.2)


def _close(context, failed: bool = False) -> None:
    """Leave an output set's opened() context: committed sets stay, others roll back."""
    if getattr(context, "_closed", False):
        return
    context._closed = True
    if failed:
        error = RuntimeError("explainer failed")
        with contextlib.suppress(BaseException):
            context.__exit__(RuntimeError, error, None)
    else:
        context.__exit__(None, None, None)


def _why(exc: BaseException | None) -> str:
    """An error as one line: its own message for an InputError, else its type and message;
    control characters escaped (a message may quote the user's text)."""
    if exc is None:
        return "unknown failure"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return one_line(text if isinstance(exc, InputError) else f"{type(exc).__name__}: {text}")


def one_line(text: str) -> str:
    """``text`` with its whitespace runs as one space and every other control character
    escaped: a terminal is told of them, never given them.

    >>> one_line("a\\x1b[31m\\nb")
    'a\\\\x1b[31m b'
    """
    import unicodedata

    text = " ".join(text.split())
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(ch) == "Cc" else ch for ch in text)
