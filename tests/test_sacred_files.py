"""The user's files are sacred, tried as a hostile user would, through the real command
line: a render's outputs are one set (nothing clobbered without --force, all new or all
old), a check never writes into its golden folder, a saved trace names its own outputs,
refused input writes nothing (not even a folder), signals and kills leave nothing behind
once the next run has swept, and two runs racing for one name cannot both win."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import CLI, DEFAULT, ROOT, run_process, run_warm
from tests.make_golden import GOLDEN, TRACE

TINY = ["--resolution", "160x90", "--fps", "5"]
QUICK = ["--beats", "title", *TINY, "--quiet"]       # the shortest beat, smallest size
SIDECARS = (".mp4", ".srt", ".png", ".npz")


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.name.startswith(".attention-explainer-")
            or ".part." in p.name]


@pytest.fixture(scope="module")
def good_set(tmp_path_factory):
    """One finished render of the title beat: talk.mp4 and its sidecars."""
    folder = tmp_path_factory.mktemp("good")
    proc = run_warm("render", DEFAULT, *QUICK, "-o", folder / "talk.mp4")
    assert proc.returncode == 0, proc.stderr
    return listing(folder)


def put(folder: Path, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)


# ---- 1, 2: the outputs are one set ------------------------------------------------------------
@pytest.mark.parametrize("suffix", SIDECARS)
def test_any_existing_file_of_the_set_is_refused_without_force(suffix, tmp_path, run_cli):
    (tmp_path / f"talk{suffix}").write_bytes(b"a lecturer's file")
    code, out, err = run_cli("render", DEFAULT, *QUICK, "-o", tmp_path / "talk.mp4")
    assert code == 2 and one_line(err) and "--force" in err and f"talk{suffix}" in err
    assert listing(tmp_path) == {f"talk{suffix}": b"a lecturer's file"}


def test_a_sidecar_that_is_a_folder_is_refused_before_rendering(tmp_path, run_cli):
    (tmp_path / "talk.png").mkdir()
    code, out, err = run_cli("render", DEFAULT, *QUICK, "-o", tmp_path / "talk.mp4", "--force")
    assert code == 2 and one_line(err) and "talk.png is a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["talk.png"]


def test_a_failed_commit_leaves_the_old_set_and_nothing_else(good_set, tmp_path, run_cli,
                                                             monkeypatch):
    put(tmp_path, good_set)
    real_replace, calls = os.replace, []

    def failing_replace(src, dst):
        if Path(dst).parent != tmp_path:     # the beat cache's own files: not the set's
            return real_replace(src, dst)
        calls.append(dst)
        if len(calls) == 3:                  # half way through putting the new files in
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    code, out, err = run_cli("render", "A dog sat", *QUICK, "-o",
                             tmp_path / "talk.mp4", "--force")
    assert code != 0 and one_line(err)
    assert listing(tmp_path) == good_set            # every old file, none of the new
    assert leftovers(tmp_path) == []


# ---- 3: a check never writes into its golden folder -----------------------------------------
def test_check_and_out_naming_one_folder_is_refused(tmp_path, run_cli):
    golden = tmp_path / "golden"
    put(golden, {"title-key.png": (GOLDEN / "title-key.png").read_bytes()})
    alias = tmp_path / "alias"
    alias.symlink_to(golden)
    for out in (golden, alias, tmp_path / "x" / ".." / "golden"):
        code, _, err = run_cli("frames", "--trace", TRACE, "--beat", "title", "--out", out,
                               "--check", golden, *TINY)
        assert code == 2 and one_line(err) and "golden folder" in err
    assert listing(golden) == {"title-key.png": (GOLDEN / "title-key.png").read_bytes()}
    assert not (tmp_path / "x").exists()


# ---- 4: --trace names its outputs and refuses what it cannot honour ---------------------------
@pytest.fixture(scope="module")
def dog_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("dog") / "dog.npz"
    proc = run_warm("inspect", "The dog chased the ball", "--npz", path)
    assert proc.returncode == 0, proc.stderr
    return path


def test_a_trace_names_the_outputs_after_its_own_sentence(dog_trace, tmp_path):
    proc = run_warm("render", "--trace", dog_trace, *QUICK, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "renders" / "the-dog-chased-the-ball-160x90.mp4").is_file()
    assert not list((tmp_path / "renders").glob("the-cat*"))


@pytest.mark.parametrize("extra", [["The cat ate the fish"], ["--focus", "dog"],
                                   ["--heads", "0"], ["--layer", "2"], ["--mask", "causal"],
                                   ["--model", "scratch"]])
def test_options_a_trace_already_fixes_are_refused(extra, dog_trace, tmp_path, run_cli):
    code, _, err = run_cli("render", *extra, "--trace", dog_trace, "-o", tmp_path / "x.mp4")
    assert code == 2 and one_line(err) and "cannot be used with --trace" in err
    assert list(tmp_path.iterdir()) == []


# ---- 6: refused input writes nothing, not even a folder --------------------------------------
@pytest.mark.parametrize("argv, made", [
    (["render", DEFAULT, "--focus", "dog", "-o", "new/deeper/x.mp4"], "new"),
    (["render", DEFAULT, "--focus", "dog"], "renders"),
    (["render", DEFAULT, "--focus", "dog", "-o", "sub/../x.mp4"], "sub"),
    (["frames", DEFAULT, "--focus", "dog", "--out", "stills"], "stills"),
    (["frames", DEFAULT, "--beat", "title", "--at", "500", *TINY, "--out", "late"], "late"),
    (["inspect", DEFAULT, "--focus", "dog", "--npz", "traces/t.npz"], "traces"),
])
def test_refused_input_creates_no_folder(argv, made, tmp_path, monkeypatch, run_cli):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(*argv)
    assert code == 2 and one_line(err), err
    assert list(tmp_path.iterdir()) == [], made


def test_a_time_past_the_end_is_refused_and_nothing_is_written(run_cli, tmp_path):
    code, _, err = run_cli("frames", "--trace", TRACE, "--beat", "title", "--at", "1,500",
                           *TINY, "--out", tmp_path / "f")
    assert code == 2 and one_line(err) and "only" in err and "long" in err
    assert not (tmp_path / "f").exists()


# ---- 7, 11: golden frames that are broken, huge or missing are one frame's failure -----------
def test_broken_and_huge_goldens_fail_their_frame_and_the_check_goes_on(tmp_path):
    golden = tmp_path / "golden"
    golden.mkdir()
    (golden / "title-key.png").write_bytes((GOLDEN / "title-key.png").read_bytes()[:300])
    Image.new("1", (30000, 20000)).save(golden / "embed-key.png")       # 600 Mpx, tiny file
    (golden / "project-key.png").write_bytes((GOLDEN / "project-key.png").read_bytes())
    proc = run_warm("frames", "--trace", TRACE, "--beat", "title,embed,project", "--at",
                       "key", "--resolution", "320x180", "--fps", "10", "--out",
                       tmp_path / "fresh", "--check", golden)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in proc.stderr
    assert "title-key.png" in lines[0] and "readable" in lines[0]
    assert "embed-key.png" in lines[1] and "30000x20000" in lines[1]


def test_refusing_a_huge_golden_costs_little_memory(tmp_path):
    """A 600-megapixel golden PNG (a few kilobytes on disk) is refused from its header."""
    from tests.test_hostile_traces_and_models import LAUNCHER

    bomb = tmp_path / "pull-key.png"
    Image.new("1", (30000, 20000)).save(bomb)
    Image.new("RGB", (320, 180)).save(tmp_path / "fresh.png")
    code = ("from attention_explainer.scenes.pipeline.regression import compare\n"
            f"r = compare('pull-key.png', {str(tmp_path / 'fresh.png')!r}, {str(bomb)!r})\n"
            "assert not r.passed and '30000x20000' in r.line(), r.line()\n")
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, "-c", code], capture_output=True,
                          text=True, timeout=120)
    exit_code, peak_mib = json.loads(proc.stdout)
    assert exit_code == 0, proc.stderr
    assert peak_mib < 300, peak_mib


def test_contact_sheet_format_follows_its_name(tmp_path, run_cli):
    code, _, err = run_cli("frames", "--trace", TRACE, "--beat", "title", *TINY, "--out",
                           tmp_path / "f", "--contact-sheet", tmp_path / "sheet.jpg")
    assert code == 0, err
    assert (tmp_path / "sheet.jpg").read_bytes()[:3] == b"\xff\xd8\xff"       # a real JPEG
    code, _, err = run_cli("frames", "--trace", TRACE, "--beat", "title", *TINY, "--out",
                           tmp_path / "g", "--contact-sheet", tmp_path / "sheet.gif")
    assert code == 2 and one_line(err) and ".png, .jpg or .webp" in err


def test_minus_zero_seconds_is_zero(tmp_path, run_cli):
    code, out, err = run_cli("frames", "--trace", TRACE, "--beat", "title", "--at", "-0",
                             *TINY, "--out", tmp_path)
    assert code == 0, err
    assert [p.name for p in tmp_path.glob("*.png")] == ["title-0.00s.png"]


# ---- 8: signals, kills and what the next run sweeps ---------------------------------------------
def started(proc, folder: Path, deadline: float = 120) -> None:
    """Wait until a render in ``folder`` has begun writing (its staging folder exists)."""
    end = time.monotonic() + deadline
    while not any(p.name.startswith(".attention-explainer-staging") for p in folder.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the run never started writing"
        time.sleep(0.1)


@pytest.mark.parametrize("command, sig", [("render", signal.SIGTERM), ("render", signal.SIGINT),
                                          ("frames", signal.SIGTERM)])
def test_interrupts_leave_nothing(command, sig, good_set, tmp_path):
    folder = tmp_path / "out"
    put(folder, good_set)
    target = (["-o", folder / "talk.mp4", "--force"] if command == "render"
              else ["--out", folder, "--beat", "sparks,softmax,pull"])
    proc = subprocess.Popen(CLI + [command, DEFAULT, *TINY, *map(str, target)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started(proc, folder)
    time.sleep(1.0)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and one_line(err) and "interrupted" in err
    assert listing(folder) == good_set and leftovers(folder) == []


def test_killed_renders_never_touch_the_previous_set_and_the_next_run_sweeps(good_set,
                                                                             tmp_path):
    """SIGKILL at 8 moments spread over a render's own length (measured first: one moment
    in each eighth of it, seeded, so the start, the drawing, the writing and the commit
    each meet a kill; a kill after the end would test nothing); then one more render into
    the same folder."""
    started_at = time.monotonic()
    proc = run_process("render", "A dog sat", *QUICK, "-o", tmp_path / "measure" / "talk.mp4")
    assert proc.returncode == 0, proc.stderr
    length = time.monotonic() - started_at
    folder = tmp_path / "out"
    put(folder, good_set)
    rng = random.Random(20)
    kills = 8
    for n in range(kills):
        proc = subprocess.Popen(CLI + ["render", "A dog sat", *QUICK, "-o",
                                       str(folder / "talk.mp4"), "--force"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(length * (n + rng.random()) / kills)
        proc.kill()
        proc.wait()
        files = {k: v for k, v in listing(folder).items() if not k.startswith(".attention")}
        finished = files != good_set
        assert files == good_set or (finished and all(
            files[name] != good_set[name] for name in good_set)), "a mixed set"
        if finished:                      # the render beat the kill: put the old set back
            put(folder, good_set)
    proc = run_warm("render", DEFAULT, *QUICK, "-o", folder / "talk.mp4", "--force")
    assert proc.returncode == 0, proc.stderr
    assert leftovers(folder) == []


def test_a_stale_staging_folder_is_swept_and_said_once(good_set, tmp_path):
    folder = tmp_path / "out"
    put(folder, good_set)
    stale = folder / ".attention-explainer-staging-abc123"
    stale.mkdir()
    (stale / "lock").write_text("12345")
    (stale / "talk.mp4").write_bytes(b"half a video")
    proc = run_warm("render", DEFAULT, *QUICK, "-o", folder / "talk.mp4", "--force")
    assert proc.returncode == 0, proc.stderr
    assert "removed 1 stale" in proc.stderr and not stale.exists()


def test_a_working_folder_half_made_by_a_killed_run_is_swept_at_once(tmp_path):
    """A run killed between making its working folder and locking it leaves a young
    "new-" folder: swept at once when the process it is named for is gone (the next run
    left it for a minute, and a killed render's folder outlived the run after it), kept
    while that process lives."""
    from attention_explainer.files.outputs import WORK_PREFIX, sweep_stale

    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()                                   # reaped: its pid is no one's
    dead = tmp_path / f"{WORK_PREFIX}new-{ended.pid}-abcd1234"
    mine = tmp_path / f"{WORK_PREFIX}new-{os.getpid()}-efgh5678"
    unnamed = tmp_path / f"{WORK_PREFIX}new-ijkl9012"
    for folder in (dead, mine, unnamed):
        folder.mkdir()
    assert sweep_stale(tmp_path) == 1
    assert not dead.exists() and mine.exists() and unnamed.exists()


# ---- 9: two runs racing for one new name --------------------------------------------------------
def test_two_renders_to_one_new_name_cannot_both_win(tmp_path):
    first = subprocess.Popen(CLI + ["render", DEFAULT, "--beats", "title,embed,project",
                                    *TINY, "--quiet", "-o", str(tmp_path / "x.mp4")],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started(first, tmp_path)
    second = run_warm("render", "A dog sat", *QUICK, "-o", tmp_path / "x.mp4")
    assert second.returncode == 2 and one_line(second.stderr)
    assert "another attention-explainer run" in second.stderr
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    third = run_warm("render", "A dog sat", *QUICK, "-o", tmp_path / "x.mp4")
    assert third.returncode == 2 and "already exist" in third.stderr


# ---- 10: many runs sweeping one temporary folder at once ----------------------------------------
def _open_and_close_scratch_folders(base: str, rounds: int) -> str:
    """In a child process: open and close scratch folders in ``base`` as fast as possible,
    each opening sweeping the others' (as parallel `frames` runs in /tmp do)."""
    import tempfile

    from attention_explainer.files.outputs import scratch_folder
    tempfile.tempdir = base
    try:
        for _ in range(rounds):
            with scratch_folder("stills-") as folder:
                (folder / "frame.png").write_bytes(b"x")
    except Exception as exc:                       # noqa: BLE001 (reported to the test)
        return f"{type(exc).__name__}: {exc}"
    return ""


def test_parallel_runs_sweeping_one_temporary_folder_never_take_each_others(tmp_path):
    """A sweep must never take a working folder another run is making (the window between
    making it and locking it), nor refuse that run."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(6) as pool:
        errors = pool.starmap(_open_and_close_scratch_folders, [(str(tmp_path), 150)] * 6)
    assert [e for e in errors if e] == []
    assert leftovers(tmp_path) == []


def test_a_signal_during_a_commit_waits_for_the_set_to_be_whole(tmp_path, monkeypatch):
    """SIGTERM as the files are moved into place: the set is committed whole, our staging
    is gone, and the interrupt goes on after, naming what was written (never a set half
    replaced, never a trash folder left)."""
    import os
    import signal

    from attention_explainer.files import outputs

    finals = {"a": tmp_path / "a.txt", "b": tmp_path / "b.txt"}
    finals["a"].write_text("old")
    real_replace = os.replace
    sent = []

    def replace(src, dst):
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGTERM)
        return real_replace(src, dst)
    monkeypatch.setattr(outputs.os, "replace", replace)
    monkeypatch.setattr(outputs, "COMMITTED", [])
    out = outputs.OutputSet(finals, force=True).check()
    with outputs.sigterm_as_interrupt():
        with pytest.raises(KeyboardInterrupt):
            with out.opened():
                for kind in finals:
                    out.path(kind).write_text("new " + kind)
                out.commit()
    assert sent and [f.read_text() for f in finals.values()] == ["new a", "new b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    assert outputs.COMMITTED == list(finals.values())
