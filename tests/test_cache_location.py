"""An unusable beat cache location never fails a render: it goes on without the cache and
says so in one line; a course, which keeps its beats there, stops at once naming the cache.
Through the real command line."""
from __future__ import annotations

import os

import pytest

from tests.conftest import DEFAULT, ROOT, run_warm

TINY = ["--resolution", "160x90", "--fps", "5"]


def places(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    return {"under /proc": "/proc/attention-explainer-test",
            "a regular file": str(tmp_path / "a-file"),
            "under a regular file": str(tmp_path / "a-file" / "deeper")}


@pytest.mark.parametrize("where", ["under /proc", "a regular file", "under a regular file"])
def test_a_render_goes_on_without_an_unusable_cache_and_says_so(where, tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=places(tmp_path)[where])
    proc = run_warm("render", DEFAULT, "--beats", "title", *TINY, "-o",
                       tmp_path / "out" / "talk.mp4", env=env)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("beat cache:")]
    assert len(said) == 1 and "rendering without it" in said[0], proc.stderr
    assert (tmp_path / "out" / "talk.mp4").is_file()


def test_frames_go_on_without_an_unusable_cache(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=places(tmp_path)["a regular file"])
    proc = run_warm("frames", DEFAULT, "--beat", "title", "--resolution", "160x90",
                       "--out", tmp_path / "stills", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "rendering without it" in proc.stderr
    assert (tmp_path / "stills" / "title-key.png").is_file()


def test_a_course_stops_at_once_naming_an_unusable_cache(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=places(tmp_path)["under a regular file"])
    proc = run_warm("batch", ROOT / "examples" / "course.toml", *TINY, "--out",
                       tmp_path / "out", env=env)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1, err
    assert "the beat cache" in err and "--cache-dir" in err
    assert not (tmp_path / "out").exists()
