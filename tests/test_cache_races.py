"""Two renders on one beat cache never pull a build from under each other (issue 44's
once-seen "manim wrote no video for the mask beat"): a render's sweep of dead builds ran
between another render's making of its private folder and its lock, or between its unlock
and its rename into place, and removed the folder the other was drawing into. Each
interleaving is played here in one process, in the order that lost the folder."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from attention_explainer.files.locks import try_lock
from attention_explainer.scenes.pipeline import beat_cache
from attention_explainer.scenes.pipeline.beat_cache import BeatCache
from attention_explainer.scenes.pipeline.cache_files import MANIFEST

KEY = "ab" * 20


def _build(cache: BeatCache, during=None):
    """Build a (dummy) entry; ``during(private)`` runs while it is being drawn."""
    with cache.building(KEY) as private:
        if during is not None:
            during(private)
        assert private.is_dir(), "the build's folder was removed from under it"
        (private / MANIFEST).write_text("{}", encoding="utf-8")
    return cache.placed[KEY]


def test_a_sweep_that_locks_a_new_build_first_does_not_remove_it(tmp_path, monkeypatch):
    """The other render's sweep takes the lock of a folder just made (its builder gets
    none), then removes it: the builder must not draw into it."""
    made = tempfile.mkdtemp
    held = {}

    def made_then_locked_by_a_sweep(*args, **kwargs):
        path = made(*args, **kwargs)
        if not held:
            held[path] = try_lock(Path(path) / ".lock")
        return path

    monkeypatch.setattr(beat_cache.tempfile, "mkdtemp", made_then_locked_by_a_sweep)

    def sweep_goes_on(private):       # ... and the sweep removes the folder it locked
        for path, fd in held.items():
            shutil.rmtree(path, ignore_errors=True)
            os.close(fd)

    placed = _build(BeatCache(tmp_path), sweep_goes_on)
    assert placed.is_dir() and (placed / MANIFEST).is_file()


def test_a_sweep_between_the_unlock_and_the_rename_leaves_the_build(tmp_path, monkeypatch):
    cache, other = BeatCache(tmp_path), BeatCache(tmp_path)
    place = BeatCache._place

    def swept_then_placed(self, private, key):
        other.sweep()
        return place(self, private, key)

    monkeypatch.setattr(BeatCache, "_place", swept_then_placed)
    placed = _build(cache)
    assert placed.name == KEY and (placed / MANIFEST).is_file()


def test_a_sweep_while_a_build_draws_leaves_it_and_removes_a_dead_one(tmp_path, monkeypatch):
    cache, other = BeatCache(tmp_path), BeatCache(tmp_path)
    beats = tmp_path / "beats"
    beats.mkdir(parents=True)
    dead_locked = beats / f"{beat_cache.BUILDING}dead-locked"     # killed while drawing
    dead_locked.mkdir()
    (dead_locked / ".lock").touch()
    young = beats / f"{beat_cache.BUILDING}young"          # made, not locked yet
    young.mkdir()
    placed = _build(cache, lambda private: other.sweep())
    assert placed.is_dir() and not dead_locked.exists() and young.is_dir()
    # a folder without a lock that has not changed for a while is a dead build's
    monkeypatch.setattr(beat_cache, "SETTLED_S", -1.0)
    other.sweep()
    assert not young.exists() and placed.is_dir()
