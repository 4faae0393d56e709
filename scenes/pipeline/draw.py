"""The second step of a render: every planned segment drawn, or taken from the beat cache,
in worker processes (``run_in_workers``: the stills use them too).

Workers are forked: a worker starts at once with manim imported and never re-runs the
caller's script. The longest beats go first so that no worker idles at the end.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .estimate import beat_weight
from .plan import SegmentJob
from .segments import BeatSegment, render_segment

__all__ = ["default_workers", "draw_segments", "run_in_workers"]


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def draw_segments(jobs: list[SegmentJob], trace, *, workers: int, scratch: Path,
                  cache_folder: Path | None, on_done=None) -> list[BeatSegment]:
    """Every job's segment (in the order of the list), ``workers`` at a time in worker
    processes (1: in this process), through the cache in ``cache_folder`` if given, else
    drawn into folders under ``scratch``. ``on_done(segment)`` is called as each is
    ready."""
    from .sources import scenes_source_hash

    scenes_source_hash()     # once here: forked workers inherit it instead of each reading
    calls = [(job, trace, scratch / f"{n:02d}-{job.beat}", cache_folder)
             for n, job in enumerate(jobs)]
    weights = [beat_weight(job.beat) for job in jobs]
    try:
        return run_in_workers(render_segment, calls, workers=workers, weights=weights,
                              on_done=on_done)
    except BaseException:
        # the workers are gone: what they were building is nobody's now, and left on a
        # full disk it would keep the space the user is told to free
        if cache_folder is not None:
            from .beat_cache import BeatCache

            with contextlib.suppress(Exception):
                BeatCache(cache_folder).sweep()
        raise


def _worker_start() -> None:
    """A worker leaves Ctrl-C to the parent, which cancels the render, cleans up, and
    stops the workers with SIGTERM: a worker then dies at once (what it was building in
    the cache stays private, and the parent sweeps it once the workers are gone)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _signals_held_while_forking():
    """The workers are forked while the jobs are submitted: a Ctrl-C that lands in
    fork()'s after-fork hooks (logging's lock release) raises there, where Python prints
    and drops it, and the render would go on to the end. Held through the forks, it is
    raised again by its own handler once they are done."""
    import signal

    from ...files.outputs import signals_deferred

    with signals_deferred() as heard:
        yield
    for signum in dict.fromkeys(heard):
        signal.raise_signal(signum)


def run_in_workers(function, calls: list[tuple], *, workers: int, weights=None,
                   on_done=None) -> list:
    """``[function(*call) for call in calls]``, ``workers`` at a time in worker processes
    (1: in this process), heaviest first (``weights``) so no worker idles at the end.
    ``on_done(result)`` is called as each finishes. On an error or an interrupt the
    workers are stopped and the exception goes on."""
    if workers <= 1 or len(calls) <= 1:
        results = []
        for call in calls:
            results.append(function(*call))
            if on_done:
                on_done(results[-1])
        return results

    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # fork: a worker starts at once with manim imported, and never re-runs the caller's
    # script (spawn and forkserver import __main__ again: a script without a main guard
    # would render recursively). Workers only draw: no torch, no threads of ours.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    results: dict[int, object] = {}
    # what this process left for its garbage collector is collected here, where the
    # threads it may hold (a video converter's) still run; what stays is frozen, never
    # collected in a worker, whose copy of a lock such threads held would never open
    import gc

    gc.collect()
    gc.freeze()
    pool = ProcessPoolExecutor(max_workers=min(workers, len(calls)),
                               mp_context=multiprocessing.get_context(method),
                               initializer=_worker_start)
    processes = {}
    try:
        order = sorted(range(len(calls)), key=lambda n: -(weights[n] if weights else 0))
        try:
            with _signals_held_while_forking():
                futures = {pool.submit(function, *calls[n]): n for n in order}
                processes = dict(pool._processes or {})      # to stop them on an interrupt
        finally:
            gc.unfreeze()
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                results[futures[future]] = future.result()
                if on_done:
                    on_done(results[futures[future]])
    except BaseException:
        for process in processes.values():
            with contextlib.suppress(Exception):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[n] for n in range(len(calls))]
