"""No output is ever written through a symbolic link, through the real command line: a link
where any file or folder of a set would go is refused (exit 2, one line) with or without
--force, and whatever the link points to is left as it was. Each refusal comes before any
drawing, so these runs are quick."""
from __future__ import annotations

import pytest

from tests.conftest import DEFAULT, run_warm

TINY = ["--resolution", "160x90", "--fps", "5", "--quiet"]


def refused(proc) -> bool:
    err = proc.stderr.strip()
    return (proc.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
            and "symbolic link" in err)


@pytest.fixture
def victim(tmp_path):
    """A file and a folder outside the set, that links will point to."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the user's own file\n")
    return outside


@pytest.mark.parametrize("force", [False, True])
def test_pack_refuses_a_linked_folder_inside_it(tmp_path, victim, force):
    out = tmp_path / "pack"
    out.mkdir()
    (out / "clips").symlink_to(victim, target_is_directory=True)
    proc = run_warm("pack", DEFAULT, "--beats", "title", *TINY, "--out", out,
                       *(["--force"] if force else []))
    assert refused(proc), proc.stderr
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt"]
    assert sorted(p.name for p in out.iterdir()) == ["clips"]


def test_pack_force_never_replaces_a_linked_file(tmp_path, victim):
    out = tmp_path / "pack"
    out.mkdir()
    (out / "index.html").symlink_to(victim / "keep.txt")
    proc = run_warm("pack", DEFAULT, "--beats", "title", *TINY, "--out", out, "--force")
    assert refused(proc), proc.stderr
    assert (victim / "keep.txt").read_text() == "the user's own file\n"
    assert (out / "index.html").is_symlink()


@pytest.mark.parametrize("force", [False, True])
def test_frames_never_writes_a_contact_sheet_through_a_link(tmp_path, victim, force):
    sheet = tmp_path / "sheet.png"
    sheet.symlink_to(victim / "keep.txt")
    proc = run_warm("frames", DEFAULT, "--beat", "title", "--resolution", "160x90",
                       "--out", tmp_path / "stills", "--contact-sheet", sheet,
                       *(["--force"] if force else []))
    assert refused(proc), proc.stderr
    assert (victim / "keep.txt").read_text() == "the user's own file\n"
    assert not (tmp_path / "stills").exists()


def test_frames_refuses_a_linked_still(tmp_path, victim):
    stills = tmp_path / "stills"
    stills.mkdir()
    (stills / "title-key.png").symlink_to(victim / "keep.txt")
    proc = run_warm("frames", DEFAULT, "--beat", "title", "--resolution", "160x90",
                       "--out", stills, "--force")
    assert refused(proc), proc.stderr
    assert (victim / "keep.txt").read_text() == "the user's own file\n"


@pytest.mark.parametrize("suffix", [".mp4", ".png", ".srt", ".npz"])
def test_render_force_never_replaces_a_linked_file_of_the_set(tmp_path, victim, suffix):
    (tmp_path / f"talk{suffix}").symlink_to(victim / "keep.txt")
    proc = run_warm("render", DEFAULT, "--beats", "title", *TINY, "-o",
                       tmp_path / "talk.mp4", "--force")
    assert refused(proc), proc.stderr
    assert (victim / "keep.txt").read_text() == "the user's own file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", f"talk{suffix}"]


def test_a_linked_folder_the_user_names_is_their_choice(tmp_path, victim):
    """The folder given with -o may itself be a link (a project on another disk): only links
    inside the set are refused."""
    link = tmp_path / "talks"
    link.symlink_to(victim, target_is_directory=True)
    proc = run_warm("inspect", DEFAULT, "--npz", link / "trace.npz")
    assert proc.returncode == 0, proc.stderr
    assert (victim / "trace.npz").is_file()
