"""The Dask cluster a course runs on: a local one that admits only this process, or a
running scheduler by its address.

The local cluster listens on loopback with Dask's own security: temporary TLS credentials
made for this run (``Security.temporary``), so another local user's client cannot submit
code to run as us. Its scheduler serves no web pages unless a dashboard is asked for
(``--dashboard``, then on 127.0.0.1 only). A scheduler address is ``tcp://HOST:PORT`` or
``tls://HOST:PORT`` (Dask's security options for the latter come from Dask's own
configuration), checked for form before anything starts; one where nothing answers within
:data:`SCHEDULER_WAIT_S` seconds is refused in one line.

Each local worker has a memory limit (``--memory-limit``; by default :data:`MEMORY_SHARE` of
the machine's memory shared among the workers): a worker whose process passes it is stopped
by its nanny and started again, and the task it ran fails at once (no retry: a render is
deterministic, and would pass it again). The course hands out no more tasks than the
workers have threads (``course_run``), so a stopped worker takes no other explainer's task
with it.
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import subprocess
import sys
import threading

from ..attention_core.errors import InputError

__all__ = ["DASHBOARD_ADDRESS", "MEMORY_SHARE", "MIN_MEMORY_LIMIT", "SCHEDULER_WAIT_S",
           "check_scheduler_address", "course_client", "default_memory_limit", "gigabytes",
           "machine_memory", "parse_memory_limit"]

SCHEDULER_WAIT_S = 10           # how long a given scheduler has to answer
MEMORY_SHARE = 0.8              # of the machine's memory, shared among the local workers (the
#                                 rest for this process, the encoder and the system)
MIN_MEMORY_LIMIT = 1_000_000_000   # a worker holds manim and the model (about 0.8 GB) before
#                                    it draws anything: less would stop every beat
DASHBOARD_ADDRESS = "127.0.0.1:8787"
_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
                      r":(\d{1,5})")


def check_scheduler_address(address: str) -> str:
    """``address`` if it is tcp://HOST:PORT or tls://HOST:PORT with a port from 1 to 65535.

    >>> check_scheduler_address("tls://render-box:8786")
    'tls://render-box:8786'
    """
    match = _ADDRESS.fullmatch(address.strip())
    if not match or not 1 <= int(match.group(3)) <= 65535:
        raise InputError(f"--scheduler {address!r} is not a Dask scheduler address; use "
                         "tcp://HOST:PORT or tls://HOST:PORT (e.g. tcp://render-box:8786).")
    return match.group(0)


def machine_memory() -> int:
    """Bytes of memory this machine gives us: its RAM, or less where a cgroup or an rlimit
    says so (Dask's own reckoning)."""
    from distributed.system import MEMORY_LIMIT

    return int(MEMORY_LIMIT)


def default_memory_limit(workers: int) -> int:
    """Each local worker's memory limit: :data:`MEMORY_SHARE` of the machine's memory shared
    among ``workers``, and never under :data:`MIN_MEMORY_LIMIT`."""
    return max(MIN_MEMORY_LIMIT, int(machine_memory() * MEMORY_SHARE / max(workers, 1)))


def gigabytes(size: int) -> str:
    """``size`` bytes as a lecturer reads it: decimal gigabytes, one decimal.

    >>> gigabytes(1_500_000_000)
    '1.5 GB'
    """
    return f"{size / 1e9:.1f} GB"


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(gb|g|mb|m)?", re.IGNORECASE)


def parse_memory_limit(text: str) -> int:
    """Bytes from ``4GB``, ``1.5 GB``, ``1500MB`` or ``4`` (gigabytes), decimal units as
    :func:`gigabytes` prints them; from :data:`MIN_MEMORY_LIMIT` to the machine's memory
    (more would bound nothing).

    >>> parse_memory_limit("1500MB")
    1500000000
    """
    match = _SIZE.fullmatch(str(text).strip())
    if not match:
        raise InputError(f"{text!r} is not a size; give gigabytes or megabytes, e.g. 4GB or "
                         "1500MB.")
    unit = (match.group(2) or "g")[0].lower()
    size = int(float(match.group(1)) * (1e9 if unit == "g" else 1e6))
    machine = machine_memory()
    if not MIN_MEMORY_LIMIT <= size <= machine:
        raise InputError(f"{text} is out of range: a worker needs at least "
                         f"{gigabytes(MIN_MEMORY_LIMIT)} (manim and the model), and this "
                         f"machine has {gigabytes(machine)}.")
    return size


@contextlib.contextmanager
def course_client(workers: int, scheduler: str | None = None, dashboard: bool = False,
                  memory_limit: int | None = None):
    """A Dask client: of the scheduler at ``scheduler``, else of a local, secured cluster of
    ``workers`` processes, each stopped past ``memory_limit`` bytes (by default
    :func:`default_memory_limit`), closed with its workers when the block ends."""
    import dask
    from distributed import Client

    _quiet(dask)
    cluster = client = None
    try:
        if scheduler:
            client = _connect(Client, check_scheduler_address(scheduler))
        else:
            cluster = _local_cluster(dask, workers, dashboard,
                                     memory_limit or default_memory_limit(workers))
            client = Client(cluster)
        yield client
    finally:
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()


def _quiet(dask) -> None:
    """The course's own progress and table are what a lecturer reads, not Dask's connection
    chatter (workers read this from the environment when they start: a failed task is told
    in the course's table, not as a worker's traceback)."""
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    dask.config.set({"logging": {"distributed": "critical"}})
    for name in ("distributed", "bokeh", "tornado"):
        logging.getLogger(name).setLevel(logging.ERROR)
    # a task whose worker died (stopped for its memory) is the course's to tell, in its
    # line and its table; the scheduler logged it too, as an error, onto stdout
    logging.getLogger("distributed.scheduler").setLevel(logging.CRITICAL)
    for name in ("asyncio", "tornado.application"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _CutOffByAnInterrupt) for f in logger.filters):
            logger.addFilter(_CutOffByAnInterrupt())


class _CutOffByAnInterrupt(logging.Filter):
    """Drops the event loop's report of a Dask task it cut off: a Ctrl-C while this process
    waits on the cluster cancels the wait on Dask's loop (distributed.utils.sync), and the
    cancelled or abandoned task ("Task exception was never retrieved": CancelledError,
    AllExit) was printed by asyncio's logger as a traceback before the command's one line.
    Any other report of the loop still reaches the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        import asyncio

        exc = record.exc_info[1] if record.exc_info else None
        cut_off = isinstance(exc, asyncio.CancelledError) \
            or type(exc).__module__.startswith("distributed.")
        return exc is None or not cut_off


def _connect(client_class, address: str):
    try:
        return client_class(address, timeout=f"{SCHEDULER_WAIT_S}s")
    except (OSError, TimeoutError) as exc:
        raise InputError(f"no Dask scheduler answered at {address} within {SCHEDULER_WAIT_S} "
                         "s; start it there, or check --scheduler (and, for tls://, Dask's "
                         "security settings).") from exc


# what a local worker does with its memory limit: its nanny stops it past the limit itself
# (a task's results are a few kilobytes: nothing to spill; a worker paused for memory that
# its drawing left behind would wait for ever, and so would the course)
WORKER_MEMORY = {"distributed.worker.memory.target": False,
                 "distributed.worker.memory.spill": False,
                 "distributed.worker.memory.pause": False,
                 "distributed.worker.memory.terminate": 1.0}
# a task goes to a worker with none (the course hands out one per thread): a worker stopped
# for memory takes only the task that grew in it (Dask counts a death against every task a
# worker holds)
ONE_TASK_EACH = {"distributed.scheduler.worker-saturation": 1.0}


def _local_cluster(dask, workers: int, dashboard: bool, memory_limit: int):
    from distributed import LocalCluster
    from distributed.security import Security

    # Dask's scheduler and workers always run an HTTP server; without a dashboard it serves
    # no pages at all, on a port of loopback chosen by the system
    routes = {} if dashboard else {"distributed.scheduler.http.routes": [],
                                   "distributed.worker.http.routes": []}
    cluster = failure = None
    with dask.config.set({**routes, **WORKER_MEMORY, **ONE_TASK_EACH}), \
            _workers_deaf_to_ctrl_c() as heard:
        try:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", security=Security.temporary(),
                                   dashboard_address=(DASHBOARD_ADDRESS if dashboard
                                                      else "127.0.0.1:0"),
                                   worker_dashboard_address=None, silence_logs=logging.ERROR,
                                   memory_limit=memory_limit,
                                   # a task whose worker died fails at once: drawn again,
                                   # it would grow (or crash) the same way
                                   scheduler_kwargs={"dashboard": dashboard,
                                                     "allowed_failures": 0})
        except Exception as exc:    # noqa: BLE001 - judged below, once we know of a signal
            failure = exc
    if heard():     # a Ctrl-C or SIGTERM while the workers started: stop now, as asked
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
        _forget_half_made_clusters()    # a SIGTERM to the group kills workers as they start
        raise KeyboardInterrupt
    if failure is not None:
        raise failure
    return cluster


def _forget_half_made_clusters() -> None:
    """Dask closes every cluster it made when the interpreter exits; one whose workers died
    while it started fails that close with an AssertionError's traceback. Its processes
    are gone or going (the signal reached them too): forget it."""
    from distributed.deploy.spec import SpecCluster

    made = getattr(SpecCluster, "_instances", None)
    for cluster in list(made or ()):
        if getattr(cluster, "status", None) is not None and cluster.status.name != "running":
            made.discard(cluster)


# a watcher of Ctrl-C: its own process, with SIGINT's default meaning, in our process group
_WATCH = ("import os, signal\n"
          "signal.signal(signal.SIGINT, lambda *_: os._exit(0))\n"
          "os.write(1, b'.')\n"
          "signal.pause()\n")


@contextlib.contextmanager
def _workers_deaf_to_ctrl_c():
    """Start worker processes with SIGINT ignored (an ignored signal stays ignored through
    fork and exec; a blocked one would not: multiprocessing unblocks it when it starts its
    resource tracker). Ctrl-C reaches the whole process group, and a worker that died of
    it would print a traceback of its own; only this process answers it, and closing the
    cluster stops the workers. Ignored here meanwhile, a Ctrl-C in the seconds the workers
    take to start is heard by a watcher process that still takes it: yields a function
    that says, once the block has ended, whether one came."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    watcher = subprocess.Popen([sys.executable, "-S", "-c", _WATCH], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    watcher.stdout.read(1)              # its handler is in place
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM is noted, not raised: an exception inside LocalCluster's start leaves a
    # half-made cluster that Dask's own exit hook then fails to close, with a traceback
    terminated = []
    previous_term = signal.signal(signal.SIGTERM, lambda *_: terminated.append(True))
    heard = False
    try:
        yield lambda: heard
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
        heard = watcher.poll() is not None or bool(terminated)   # the watcher ends only
        #                                                          when a Ctrl-C reached it
        if not heard:
            watcher.kill()
        watcher.wait()
        watcher.stdout.close()
