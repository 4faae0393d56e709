"""Never lose a good render: Ctrl-C or SIGTERM mid-render leaves the previous MP4 intact."""
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

CLI = [sys.executable, "-c", "import cli; cli.main()"]


@pytest.fixture(scope="module")
def good_render(tmp_path_factory):
    out = tmp_path_factory.mktemp("good") / "lecture.mp4"
    proc = subprocess.run(CLI + ["render", "--beats", "title", "--resolution", "160x90", "--fps", "5",
                                 "-o", str(out), "--quiet"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return {p.name: p.read_bytes() for p in out.parent.iterdir()}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_render_keeps_the_previous_file(sig, good_render, tmp_path):
    folder = tmp_path / "renders"
    folder.mkdir()
    for name, data in good_render.items():
        (folder / name).write_bytes(data)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    proc = subprocess.Popen(CLI + ["render", "--resolution", "320x180", "--fps", "10", "-o",
                                   str(folder / "lecture.mp4"), "--force", "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120
    while not any(p.name.startswith("attention-explainer-") for p in scratch.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the render never started"
        time.sleep(0.2)
    time.sleep(3)                      # well inside the drawing of the beats
    assert proc.poll() is None, "the render finished before it could be interrupted"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == good_render   # untouched
    assert list(scratch.iterdir()) == []                                        # no leftovers
