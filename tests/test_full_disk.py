"""A full disk anywhere — the output folder, the beat cache, a pack, stills, a trace, a
course — is exit 2 with one line, "no space left on PLACE: free some space", naming the
place that is full, and leaves nothing partial there. Through the real command line, each
run on a tiny file system of its own (a tmpfs in a private mount namespace: no root, and
nothing of the machine's is filled)."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CLI, DEFAULT, ROOT, assert_refused

TINY = ["--resolution", "160x90", "--fps", "5", "--quiet"]


def _can_mount_a_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c",
                            "mount -t tmpfs -o size=4k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


needs_a_tmpfs = pytest.mark.skipif(not _can_mount_a_tmpfs(),
                                reason="needs user and mount namespaces (unshare -rm)")


def run_on_a_full_disk(full: Path, size: str, *args, env=None, tmp_path: Path
                       ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the CLI with a tmpfs of ``size`` mounted on ``full``; what was left on it."""
    full.mkdir(parents=True, exist_ok=True)
    listing = tmp_path / "left-on-the-full-disk.txt"
    command = " ".join(shlex.quote(str(a)) for a in CLI + list(args))
    script = (f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(full))} || exit 99; "
              f"{command}; code=$?; "
              f"find {shlex.quote(str(full))} -mindepth 1 > {shlex.quote(str(listing))}; "
              "exit $code")
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env=env or dict(os.environ))
    assert proc.returncode != 99, proc.stderr
    return proc, [line for line in listing.read_text().splitlines() if line]


def assert_no_space(proc, place: Path, *fragments: str) -> None:
    assert_refused(proc, f"no space left on {place}", "free some space", *fragments)


@needs_a_tmpfs
@pytest.mark.parametrize("size", ["16k", "160k"])
def test_a_full_output_folder(tmp_path, size):
    full = tmp_path / "full"
    proc, left = run_on_a_full_disk(full, size, "render", DEFAULT, "--beats", "title,embed",
                                    *TINY, "-o", full / "talk.mp4", tmp_path=tmp_path)
    assert_no_space(proc, full, "-o")
    assert left == []


# where the disk runs out decides how the failure shows: in our writes (ENOSPC), or in
# manim's text SVG cut short by the full disk and parsed back (a parse error, not ENOSPC)
@needs_a_tmpfs
@pytest.mark.parametrize("size", ["24k", "64k", "160k"])
def test_a_full_beat_cache(tmp_path, size):
    full = tmp_path / "cache"
    env = dict(os.environ, XDG_CACHE_HOME=str(full))
    out = tmp_path / "out"
    proc, left = run_on_a_full_disk(full, size, "render", DEFAULT, "--beats", "title,embed",
                                    *TINY, "-o", out / "talk.mp4", env=env,
                                    tmp_path=tmp_path)
    err = proc.stderr
    assert_no_space(proc, full / "attention-explainer", "the beat cache")
    assert not out.exists(), err
    # what the cache holds after a failed build: nothing half-built (no building folder,
    # no partial entry), whatever the cache kept before
    assert not [p for p in left if "/beats/" in p and ".building" in p], left


@needs_a_tmpfs
def test_a_full_pack_folder(tmp_path):
    full = tmp_path / "full"
    proc, left = run_on_a_full_disk(full, "32k", "pack", DEFAULT, "--beats", "title,embed",
                                    *TINY, "--out", full / "pack", tmp_path=tmp_path)
    assert_no_space(proc, full)
    assert left == []


@needs_a_tmpfs
def test_a_full_stills_folder(tmp_path):
    full = tmp_path / "full"
    proc, left = run_on_a_full_disk(full, "8k", "frames", DEFAULT, "--beat", "title,embed",
                                    "--resolution", "320x180", "--out", full / "stills",
                                    tmp_path=tmp_path)
    assert_no_space(proc, full)
    assert left == []


@needs_a_tmpfs
def test_a_full_folder_for_a_trace(tmp_path):
    full = tmp_path / "full"
    proc, left = run_on_a_full_disk(full, "8k", "inspect", DEFAULT, "--npz",
                                    full / "trace.npz", tmp_path=tmp_path)
    assert_no_space(proc, full, "--npz")
    assert left == []


@needs_a_tmpfs
def test_a_full_course_folder(tmp_path):
    # a course of two explainers of two beats, one with a pack: the course's writes, not
    # its size, are under test (the README's example course runs in test_readme_examples)
    course = tmp_path / "course.toml"
    course.write_text('[defaults]\npack = true\nbeats = "title,embed"\n\n[[explainer]]\n'
                      'sentence = "A dog sat"\n'
                      'output = "dog"\n\n[[explainer]]\nsentence = "Hi"\noutput = "hi"\n'
                      'pack = false\n', encoding="utf-8")
    full = tmp_path / "full"
    proc, left = run_on_a_full_disk(full, "16k", "batch", course,
                                    "--resolution", "64x36", "--fps", "2",
                                    "--out", full / "course", tmp_path=tmp_path)
    err = proc.stderr.strip()
    assert proc.returncode == 2, err
    assert f"no space left on {full}" in err and "free some space" in err, err
    assert not [p for p in left if p.endswith((".mp4", ".part", ".srt"))
                and ".attention-explainer-" in p], left


def test_the_error_page_lists_a_full_disk():
    from tests.conftest import documentation_page

    section = documentation_page("errors.md")
    for row in ("no space left on a folder", "no space left on the beat cache"):
        assert row in section, row
