"""One interrupt of a real command, checked for every promise an interrupt makes: exit 130,
one line on stderr, no C++ abort, no process of its group left, no partial output set.
Used by tests/test_interrupts.py and by bench/soak_interrupts.py (many random moments)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "attention_explainer.cli"]
WORK_PREFIX = ".attention-explainer-"        # our staging folders and claims


def group_empties(pid: int, within: float = 30.0) -> bool:
    """Whether the process group ``pid`` has no process left within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def partial_files(out: Path) -> list[str]:
    """What an interrupted run may not leave in ``out``: staging folders, claims and
    ``.part`` files of ours, and any output set that lacks a member (an MP4 without its
    .srt, a pack without index.html...)."""
    if not out.exists():
        return []
    problems = [str(p) for p in out.rglob("*")
                if p.name.startswith(WORK_PREFIX) or p.name.endswith(".part")
                or ".part." in p.name]
    for video in out.rglob("*.mp4"):
        if video.parent.name == "clips" or WORK_PREFIX in str(video):
            continue
        for sidecar in (".srt", ".png"):
            if not video.with_suffix(sidecar).is_file():
                problems.append(f"{video} without its {sidecar}")
    for clips in out.rglob("clips"):
        if not (clips.parent / "index.html").is_file():
            problems.append(f"{clips.parent}: a pack without index.html")
    return problems


def catches(pid: int, sig, within: float = 60.0) -> None:
    """Wait until process ``pid`` handles ``sig`` itself (/proc's SigCgt): the program's
    first line has run. Before it, Python alone is there to answer (see the README)."""
    deadline = time.monotonic() + within
    bit = 1 << (int(sig) - 1)
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        caught = next((line.split()[1] for line in status.splitlines()
                       if line.startswith("SigCgt:")), "0")
        if int(caught, 16) & bit:
            return
        time.sleep(0.005)


def interrupt_check(argv: list[str], out: Path, *, after: float, sig=signal.SIGINT,
                    env=None, timeout: float = 300, from_our_first_line: bool = True) -> dict:
    """Run ``attention-explainer ARGV``, send ``sig`` to its whole group ``after`` seconds
    (counted from the program's first line, as :func:`catches` sees it) in, as a
    terminal's Ctrl-C does, and say which promises broke (``problems``)."""
    proc = subprocess.Popen(CLI + list(argv), cwd=ROOT, text=True, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    if from_our_first_line:    # SIGTERM: Python itself handles SIGINT from its own start
        catches(proc.pid, signal.SIGTERM)
    time.sleep(after)
    finished_first = proc.poll() is not None
    if not finished_first:
        os.killpg(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        return {"after": round(after, 2), "returncode": None, "finished_first": False,
                "problems": [f"still running {timeout:.0f} s after the signal"]}
    problems = []
    if not finished_first:
        if proc.returncode != 130:
            problems.append(f"exit {proc.returncode}, not 130")
        lines = err.strip().splitlines()
        if len(lines) != 1 or "Traceback" in err or "terminate called" in err:
            problems.append(f"stderr is not one line: {err.strip()[-400:]!r}")
    elif proc.returncode != 0:
        problems.append(f"finished before the signal with exit {proc.returncode}: "
                        f"{err.strip()[-300:]!r}")
    if not group_empties(proc.pid):
        problems.append("processes of the command were left running")
    problems += partial_files(out)
    return {"after": round(after, 2), "returncode": proc.returncode,
            "finished_first": finished_first, "problems": problems,
            "stderr": err.strip()[-400:]}


# run in a fresh interpreter: notes, at the first import of each native stack, whether the
# program holds Ctrl-C then (its SIGINT handler is not Python's own), and leaves as soon as
# every stack asked for has loaded
_FIRST_IMPORTS = r"""
import builtins, json, os, signal, sys
wanted = set(json.loads(sys.argv[1]))
held, original = {}, builtins.__import__
def noting(name, globals=None, locals=None, fromlist=(), level=0):
    top = name.split(".")[0] if level == 0 else None
    first = top in wanted and top not in held and top not in sys.modules
    if first:
        held[top] = signal.getsignal(signal.SIGINT) not in (signal.default_int_handler,
                                                             signal.SIG_DFL)
    module = original(name, globals, locals, fromlist, level)
    if first and set(held) == wanted:
        os.write(1, json.dumps(held).encode())
        os._exit(0)
    return module
builtins.__import__ = noting
from attention_explainer import cli
cli.main(sys.argv[2:])
"""


def first_imports(argv: list[str], stacks: list[str], *, cwd: Path, env=None) -> dict:
    """Whether ``attention-explainer ARGV`` holds interrupts at its first import of each
    of ``stacks`` (a module that is never imported is missing from the answer)."""
    import json

    done = subprocess.run([sys.executable, "-c", _FIRST_IMPORTS, json.dumps(stacks), *argv],
                          cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
