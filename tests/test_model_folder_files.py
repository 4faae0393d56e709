"""A model folder's own files, read by the one rule for a user's file, where the rule must
let them through or refuse them in one line: a Hugging Face hub cache's snapshot (its files
are links into the model's blobs), and a folder its user may not read or enter."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from attention_explainer.attention_core.api import compute_trace, model_files
from tests import tiny_models
from tests.conftest import CLI

SENTENCE = "The animal didn't cross the street because it was too tired."


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("model-files")
    yield {family: tiny_models.build(family, root / family) for family in ("gpt2", "llama")}
    model_files.cache_clear()


def test_a_hub_cache_snapshot_is_read_through_its_links(folders, tmp_path):
    """The Hugging Face hub cache keeps a snapshot's files as links into the model's blobs
    folder: those links stay inside the model, so the snapshot is read as its folder."""
    import shutil

    model = tmp_path / "hub" / "models--tiny--llama"
    snapshot = model / "snapshots" / "0123abcd"
    (model / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for n, file in enumerate(sorted(p.name for p in folders["llama"].iterdir())):
        shutil.copyfile(folders["llama"] / file, model / "blobs" / f"blob{n}")
        (snapshot / file).symlink_to(Path("..", "..", "blobs", f"blob{n}"))
    model_files.cache_clear()
    via_links = compute_trace(SENTENCE, model=str(snapshot), heads="all")
    model_files.cache_clear()
    np.testing.assert_array_equal(
        via_links.weights, compute_trace(SENTENCE, model=str(folders["llama"]), heads="all").weights)


def test_a_folder_that_may_not_be_read_is_one_line(folders, run_cli, monkeypatch):
    """As a user without the right to read or to enter the model folder: exit 2 and one
    line, not a PermissionError's exit 1. Root has every right: there the command runs as
    nobody, in a place of /tmp nobody may reach, where nobody may run this Python; where
    nobody may not (an interpreter under /root), the kernel's answer to nobody, EACCES, is
    given in-process instead."""
    import errno
    import shutil
    import tempfile

    from attention_explainer.attention_core import user_files

    place = Path(tempfile.mkdtemp(prefix="closed-model-"))
    try:
        place.chmod(0o755)
        folder = place / "gpt2"
        shutil.copytree(folders["gpt2"], folder)
        for mode in (0o000, 0o444):          # neither read nor enter; read, not enter
            folder.chmod(mode)
            try:
                err = _as_a_user_without_rights(folder, place)
            except PermissionError:          # nobody may not run this interpreter
                real = {"listdir": os.listdir, "stat": os.stat}

                def refused(name, mode=mode):
                    def call(path, *args, **kwargs):
                        entering = name == "stat" and str(path) == os.path.join(folder, ".")
                        if str(path) == str(folder) and name == "listdir" and not mode \
                                or entering:
                            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
                        return real[name](path, *args, **kwargs)
                    return call

                monkeypatch.setattr(user_files.os, "listdir", refused("listdir"))
                monkeypatch.setattr(user_files.os, "stat", refused("stat"))
                model_files.cache_clear()
                code, _, err = run_cli("inspect", SENTENCE, "--model", folder)
                monkeypatch.undo()
                model_files.cache_clear()
                assert code == 2, err
            finally:
                folder.chmod(0o755)
            assert err.strip().splitlines() == [
                f"Error: --model '{folder}': the folder cannot be read (Permission denied)."], err
    finally:
        shutil.rmtree(place)


def _as_a_user_without_rights(folder, place) -> str:
    """stderr of `inspect --model FOLDER` run as a user the folder's mode refuses (nobody
    where we are root); PermissionError where that user may not run this interpreter."""
    as_nobody = {"user": 65534, "group": 65534, "env": dict(
        os.environ, HOME=str(place), XDG_CACHE_HOME=str(place / "cache"))} \
        if os.geteuid() == 0 else {}
    done = subprocess.run(CLI + ["inspect", SENTENCE, "--model", str(folder)], cwd=place,
                          capture_output=True, text=True, timeout=120, **as_nobody)
    assert done.returncode == 2, done.stderr
    return done.stderr
