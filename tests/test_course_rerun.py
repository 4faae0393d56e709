"""A course knows what each output was made from, through the real command line: a rerun
renders what is new or changed and skips what is up to date, --force renders everything
again, and --dry-run lists every output with its state and what changed."""
from __future__ import annotations

import json

import numpy as np

from tests.conftest import run_warm

HEAD = '[defaults]\nresolution = "160x90"\nfps = 5\nbeats = "title"\n'


def course(tmp_path, sentence: str):
    path = tmp_path / "course.toml"
    path.write_text(HEAD + f'[[explainer]]\nsentence = "{sentence}"\noutput = "talk"\n'
                    '[[explainer]]\nsentence = "The dog ran home"\noutput = "dog"\n')
    return path


def batch(path, out, *args):
    proc = run_warm("batch", path, "--out", out, "--jobs", 1, "--quiet", *args)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def states(stdout: str) -> dict[str, str]:
    """output -> state, from the dry run's list."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("  ") and ". " in line:
            name, state = line.strip().split(". ", 1)[1].split("  ", 1)
            found[name.split()[0]] = state.strip()
    return found


def sentence_of(out) -> str:
    with np.load(out / "talk-160x90.npz") as trace:
        return json.loads(str(trace["meta"]))["sentence"]


def test_a_changed_explainer_is_rendered_again_and_the_rest_skipped(tmp_path):
    out = tmp_path / "out"
    path = course(tmp_path, "The cat sat on the mat")
    assert set(states(batch(path, out, "--dry-run")).values()) == {"new"}
    batch(path, out)
    dog = (out / "dog-160x90.mp4").stat().st_mtime_ns
    assert states(batch(path, out, "--dry-run")) == {"talk": "up to date", "dog": "up to date"}

    path = course(tmp_path, "The cat ate the fish")       # same output name, new sentence
    listed = states(batch(path, out, "--dry-run"))
    assert listed["talk"].startswith("changed: sentence") and listed["dog"] == "up to date"
    table = batch(path, out)
    assert sentence_of(out) == "The cat ate the fish"
    assert (out / "dog-160x90.mp4").stat().st_mtime_ns == dog       # up to date: untouched
    assert "up to date" in table
    assert states(batch(path, out, "--dry-run")) == {"talk": "up to date", "dog": "up to date"}


def test_force_renders_everything_again(tmp_path):
    out = tmp_path / "out"
    path = course(tmp_path, "The cat sat on the mat")
    batch(path, out)
    before = (out / "dog-160x90.mp4").stat().st_mtime_ns
    assert set(states(batch(path, out, "--dry-run", "--force")).values()) == {"again (--force)"}
    batch(path, out, "--force")
    assert (out / "dog-160x90.mp4").stat().st_mtime_ns != before


def test_an_output_made_before_fingerprints_is_rendered_again(tmp_path):
    out = tmp_path / "out"
    path = course(tmp_path, "The cat sat on the mat")
    batch(path, out)
    (out / "talk-160x90.course.json").unlink()
    listed = states(batch(path, out, "--dry-run"))
    assert listed == {"talk": "changed: made before fingerprints were kept", "dog": "up to date"}
    batch(path, out)
    assert (out / "talk-160x90.course.json").is_file()


def test_a_damaged_cache_entry_met_by_a_course_is_said_in_one_line(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    path = course(tmp_path, "The cat sat on the mat")
    batch(path, out, "--cache-dir", cache)
    for entry in (cache / "beats").iterdir():
        if not entry.name.startswith("."):
            video = entry / "segment.mp4"
            video.write_bytes(video.read_bytes()[:video.stat().st_size // 2])
    proc = run_warm("batch", path, "--out", out, "--jobs", 1, "--quiet", "--force",
                       "--cache-dir", cache)
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = [line for line in proc.stderr.splitlines() if line.startswith("beat cache:")]
    assert len(said) == 2, proc.stderr          # one per explainer's damaged title beat
    assert all("was damaged (segment.mp4: " in line and line.endswith("rendered again")
               for line in said), said


def test_a_course_pack_fitted_to_a_length_holds_the_beats_it_keeps(tmp_path):
    """length, pace and pauses reach a course as they reach `pack` (issue 60): the pack
    holds the clips of the beats the length keeps, numbered anew, its fingerprint says which
    and how it was made, and a rerun finds it up to date."""
    out = tmp_path / "out"
    path = tmp_path / "course.toml"
    path.write_text('[[explainer]]\nsentence = "The dog ran home"\noutput = "dog"\n'
                    'resolution = "160x90"\nfps = 5\npack = true\n'
                    'beats = ["title", "sparks", "softmax", "summary"]\n'
                    'length = 30\npace = "slow"\npauses = "steps"\n')
    batch(path, out)
    pack = out / "dog-160x90"
    made = json.loads((pack / "course.json").read_text())
    assert made["length"] == 30 and made["pace"] == "slow" and made["pauses"] == "steps"
    kept = made["kept"]
    assert kept[0] == "title" and kept[-1] == "summary" and len(kept) < 4, kept
    clips = sorted(p.name for p in (pack / "clips").glob("*.mp4"))
    assert clips == [f"{n:02d}-{beat}.mp4" for n, beat in enumerate(kept, 1)]
    assert "data-steps" in (pack / "index.html").read_text(encoding="utf-8")
    assert states(batch(path, out, "--dry-run")) == {"dog": "up to date"}
    # another pace is another film
    path.write_text(path.read_text().replace('pace = "slow"', 'pace = "normal"'))
    assert states(batch(path, out, "--dry-run"))["dog"].startswith("changed: pace")
