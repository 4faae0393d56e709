"""A course is checked whole before any worker starts, through the real command line:
every value of every entry against the tokenizer and the model's config (focus, heads,
layer), and every table's type, all bad entries reported at once with index and line;
a manifest that is not a regular file is refused unread."""
from __future__ import annotations

import os

import pytest

from tests.conftest import assert_refused as refused, run_warm

GOOD = '[[explainer]]\nsentence = "The cat sat on the mat"\noutput = "good"\n'


def test_focus_heads_and_layer_are_checked_against_the_model_before_any_worker(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text(GOOD + '[[explainer]]\nsentence = "The cat sat"\nfocus = "zebra"\n'
                      '[[explainer]]\nsentence = "The dog ran"\nheads = "99"\n'
                      '[[explainer]]\nsentence = "The bird sang"\nlayer = "42"\n')
    proc = run_warm("batch", course, "--out", tmp_path / "out", timeout=300)
    err = refused(proc, "3 problems", "explainer 2 (line 4)", "zebra", "explainer 3 (line 7)",
                  "explainer 4 (line 10)")
    assert "Nothing was rendered" in err            # refused before any cluster started
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, fragment", [
    ("explainer = [1, 2]\n", "is not a table"),
    ("defaults = 5\n" + GOOD, "write [defaults] as a table"),
    (GOOD + "beats = 5\n", "beats = 5"),
    (GOOD + 'beats = ["title", 3]\n', "beats = "),
])
def test_entries_of_the_wrong_type_are_reported_not_crashed_on(text, fragment, tmp_path):
    course = tmp_path / "course.toml"
    course.write_text(text)
    refused(run_warm("batch", course, "--out", tmp_path / "out", "--dry-run"), fragment)


def test_a_manifest_that_is_not_a_regular_file_is_refused_unread(tmp_path):
    fifo = tmp_path / "course.toml"
    os.mkfifo(fifo)
    proc = run_warm("batch", fifo, "--out", tmp_path / "out", "--dry-run", timeout=60)
    refused(proc, "not a regular file")
    refused(run_warm("batch", "/dev/zero", "--dry-run", timeout=60), "not a regular file")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    refused(run_warm("batch", folder, "--dry-run", timeout=60))


@pytest.mark.parametrize("entry, fragment", [
    ('film = "poem"\n', "film = 'poem'"),
    ('film = "translation"\nmask = "causal"\n', "mask: not an option of a translation film"),
    ('film = "translation"\ntarget = "le chat"\nbeats = "question,sparks"\n',
     "'sparks' is not a beat; choose from question, keys"),
    ('film = "writing"\n', "a writing film needs a decoder folder"),
    ('film = "writing"\nmodel = "gpt2"\ntokens = 3\nbeats = "prompt,step4"\n',
     "'step4' is not a beat"),
    ('target = "le chat"\n', "target: not an option"),
])
def test_a_translation_or_writing_entry_is_checked_by_its_films_spec(entry, fragment,
                                                                    tmp_path):
    """What a translation's or a writing's entry may name is its command's and its film's
    beats, refused before the cluster starts (a target given an explainer, too)."""
    course = tmp_path / "course.toml"
    course.write_text('[[explainer]]\nsentence = "The cat sat"\n' + entry)
    refused(run_warm("batch", course, "--out", tmp_path / "out", "--dry-run"), fragment)
