"""Ctrl-C and SIGTERM at seeded random moments of `pack`, `frames`, `batch`, a local model
folder's loading and a narrated render, sent as a terminal sends them (to the whole
process group), the program's own start-up included: exit 130, one line, no C++ abort, no
process left, no partial set; a rerun finishes the rest. bench/soak_interrupts.py runs the same check twenty times a command."""
from __future__ import annotations

import os
import random
import signal
import subprocess

import pytest

from tests.interrupts import (CLI, ROOT, command_for, first_imports, interrupt_check,
                              interrupted_on_a_terminal, partial_files, terminal_screen)

def command(kind: str, tmp_path):
    return command_for(kind, tmp_path, explainers=2)


# the moments, counted from the program's first line: still loading its own modules (at
# once), torch and manim loading, and a seeded random moment of the work
MOMENTS = [0.0, 1.5, random.Random(19).uniform(3.0, 8.0)]


@pytest.mark.parametrize("kind, sig", [("pack", signal.SIGINT), ("frames", signal.SIGTERM),
                                       ("batch", signal.SIGINT), ("batch", signal.SIGTERM),
                                       ("model", signal.SIGINT), ("narrated", signal.SIGTERM)])
def test_an_interrupt_at_any_moment_leaves_nothing_and_a_rerun_finishes(kind, sig, tmp_path):
    argv, out = command(kind, tmp_path)
    for after in MOMENTS:
        result = interrupt_check(argv, out, after=after, sig=sig)
        assert not result["problems"], result
        if result["finished_first"]:
            break
    rerun = subprocess.run(CLI + argv + (["--force"] if kind != "batch" else []), cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert partial_files(out) == []


@pytest.mark.parametrize("kind", ["frames", "pack", "batch", "narrated"])
def test_the_native_stacks_load_with_interrupts_held(kind, tmp_path):
    """A signal during the first import of manim, torch or Dask is held until it ends: raised
    inside their C code it is printed there as a traceback, and Python, told of a Ctrl-C
    nobody caught, ends itself by SIGINT (exit -2) whatever the program then says."""
    argv, _ = command(kind, tmp_path)
    stacks = {"batch": ["manim", "dask"], "narrated": ["manim", "torch", "av"]}.get(
        kind, ["manim", "torch"])
    # a cache of its own: a trace kept by an earlier test would spare the model and torch
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert first_imports(argv, stacks, cwd=tmp_path, env=env) == dict.fromkeys(stacks, True)


def test_an_interrupt_on_a_terminal_leaves_one_line_on_the_screen(tmp_path):
    """Ctrl-C while the progress bar is up: the bar goes, no blank line is added to the
    terminal's ^C, and the screen shows the one line (a pipe gets that line alone)."""
    argv, out = command_for("render", tmp_path)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    code, written = interrupted_on_a_terminal(argv, shown="rendering on", env=env)
    assert code == 130, written
    assert terminal_screen(written) == [
        "Error: interrupted; nothing was written in place of your files."], repr(written)
    assert partial_files(out) == []


def test_the_terminal_screen_reads_a_bar_as_a_terminal_shows_it():
    drawn = "\x1b[?25l\r\x1b[2K\x1b[32m⠙\x1b[0m rendering 0/3\r\x1b[2K⠸ rendering 1/3\r\n"
    assert terminal_screen(drawn) == ["⠸ rendering 1/3"]
    assert terminal_screen(drawn + "\x1b[1A\x1b[2K\rError: x\r\n") == ["Error: x"]
    assert terminal_screen(drawn + "\r\nError: x\r\n") == ["⠸ rendering 1/3", "Error: x"]


def test_a_ctrl_c_landing_in_a_workers_fork_stops_the_render():
    """A Ctrl-C that Python acts on inside fork()'s after-fork hooks (logging releases its
    lock there) was printed as 'Exception ignored' and dropped: the render went on to the
    end and exited 0. Here the signal is sent from such a hook, in the parent alone."""
    code = (
        "import os, signal, sys\n"
        # as the command line has it (a test worker may have started us with it ignored)
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from attention_explainer.scenes.pipeline.draw import run_in_workers\n"
        "parent = os.getpid()\n"
        "def hook():\n"
        "    if os.getpid() == parent:\n"
        "        signal.raise_signal(signal.SIGINT)\n"
        "        sum(range(10))          # Python runs the handler here, in the hook\n"
        "os.register_at_fork(after_in_parent=hook)\n"
        "try:\n"
        "    run_in_workers(abs, [(-1,), (-2,), (-3,)], workers=2)\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(7)\n"
        "sys.exit(0)\n")
    done = subprocess.run([CLI[0], "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 7, done.stderr[-2000:]
    assert "Exception ignored" not in done.stderr
