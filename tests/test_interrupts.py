"""Ctrl-C and SIGTERM at seeded random moments of `pack`, `frames` and `batch`, sent as a
terminal sends them (to the whole process group), the program's own start-up included:
exit 130, one line, no C++ abort, no process left, no partial set; a rerun finishes the
rest. bench/soak_interrupts.py runs the same check twenty times a command."""
from __future__ import annotations

import os
import random
import signal
import subprocess

import pytest

from tests.interrupts import CLI, ROOT, first_imports, interrupt_check, partial_files

TINY = ["--resolution", "160x90", "--fps", "5"]
COURSE = ('[defaults]\nresolution = "160x90"\nfps = 5\nbeats = ["title", "embed"]\n'
          '[[explainer]]\nsentence = "The cat sat on the mat"\noutput = "cat"\n'
          '[[explainer]]\nsentence = "The dog chased the ball"\noutput = "dog"\n')


def command(kind: str, tmp_path):
    out = tmp_path / "out"
    if kind == "batch":
        course = tmp_path / "course.toml"
        course.write_text(COURSE, encoding="utf-8")
        return ["batch", str(course), "--out", str(out), "--jobs", "2", "--cache-dir",
                str(tmp_path / "cache")], out
    if kind == "pack":
        return ["pack", "The cat ate the fish", "--beats", "title,embed", *TINY, "--out",
                str(out / "pack")], out
    return ["frames", "The cat ate the fish", "--beat", "title,embed", "--resolution",
            "320x180", "--out", str(out / "stills")], out


# the moments, counted from the program's first line: still loading its own modules (at
# once), torch and manim loading, and a seeded random moment of the work
MOMENTS = [0.0, 1.5, random.Random(19).uniform(3.0, 8.0)]


@pytest.mark.parametrize("kind, sig", [("pack", signal.SIGINT), ("frames", signal.SIGTERM),
                                       ("batch", signal.SIGINT), ("batch", signal.SIGTERM)])
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


@pytest.mark.parametrize("kind", ["frames", "pack", "batch"])
def test_the_native_stacks_load_with_interrupts_held(kind, tmp_path):
    """A signal during the first import of manim, torch or Dask is held until it ends: raised
    inside their C code it is printed there as a traceback, and Python, told of a Ctrl-C
    nobody caught, ends itself by SIGINT (exit -2) whatever the program then says."""
    argv, _ = command(kind, tmp_path)
    stacks = ["manim", "dask"] if kind == "batch" else ["manim", "torch"]
    # a cache of its own: a trace kept by an earlier test would spare the model and torch
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert first_imports(argv, stacks, cwd=tmp_path, env=env) == dict.fromkeys(stacks, True)
