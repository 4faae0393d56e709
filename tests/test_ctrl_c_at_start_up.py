"""A Ctrl-C at any moment of a course's start-up, the local cluster's included, stops it:
exit 130, one line, no process left, nothing partial (the workers ignore SIGINT while
they start, and a watcher hears it for us). Through the real command line, as a terminal
sends it: to the whole process group."""
from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.conftest import CLI, ROOT
from tests.interrupts import group_empties

COURSE = ('[defaults]\nresolution = "160x90"\nfps = 5\nbeats = "title"\n'
          '[[explainer]]\nsentence = "The cat sat on the mat"\noutput = "cat"\n')


@pytest.mark.parametrize("after", [2.0, 3.0, 4.0, 5.0])
def test_ctrl_c_during_start_up_stops_the_course(after, tmp_path):
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    out = tmp_path / "out"
    proc = subprocess.Popen(CLI + ["batch", str(course), "--out", str(out), "--jobs", "2",
                                   "--cache-dir", str(tmp_path / "cache")], cwd=ROOT,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    time.sleep(after)
    if proc.poll() is not None:
        pytest.skip("the course finished before the Ctrl-C")
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err[-3000:]
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err[-3000:]
    assert group_empties(proc.pid), "processes of the course were left running"
    files = list(out.rglob("*")) if out.exists() else []
    assert not [p for p in files if p.is_file()], files
