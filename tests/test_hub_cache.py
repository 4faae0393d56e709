"""`--model gpt2` as every transformers user types it (issue 61): a hub id is read from the
local Hugging Face cache, laid out here as the hub lays it out (blobs, snapshots/<rev> of
links into them, refs/main), with the network off; it draws the same numbers as the
folder; an id the cache lacks, and a snapshot whose files link out of the cache, are
refused in one line (exit 2) with nothing loaded. The model is a tiny random GPT-2 built
here."""
from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from tests.conftest import run_warm
from tests.tiny_models import build

REVISION = "0123456789abcdef0123456789abcdef01234567"


def hub_cache(root, folder, repo: str = "gpt2"):
    """``folder``'s files as the hub's cache holds them in ``root``: each a blob named by
    its hash, the snapshot's entries links into blobs, refs/main naming the snapshot."""
    home = root / ("models--" + repo.replace("/", "--"))
    (home / "blobs").mkdir(parents=True)
    (home / "refs").mkdir()
    (home / "refs" / "main").write_text(REVISION)
    snapshot = home / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    for file in folder.iterdir():
        data = file.read_bytes()
        blob = home / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snapshot / file.name).symlink_to(os.path.relpath(blob, snapshot))
    return snapshot


@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    folder = build("gpt2", root / "folder")
    snapshot = hub_cache(root / "cache", folder)
    return root / "cache", folder, snapshot


def offline(cache) -> dict:
    return {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1",
            "HF_HOME": str(cache.parent / "no-home")}


def test_a_hub_id_in_the_cache_draws_what_its_folder_draws(cached, monkeypatch):
    from huggingface_hub import constants

    from attention_explainer.attention_core import compute_trace

    cache, folder, _ = cached
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    sentence = "The animal didn't cross the street"
    by_id = compute_trace(sentence, model="gpt2", layer="1", heads="0,1")
    by_folder = compute_trace(sentence, model=str(folder), layer="1", heads="0,1")
    assert np.array_equal(by_id.weights, by_folder.weights)
    assert by_id.meta["model"] == "gpt2"          # named as its user wrote it
    pinned = compute_trace(sentence, model=f"gpt2@{REVISION}", layer="1", heads="0,1")
    assert np.array_equal(pinned.weights, by_folder.weights)
    # through the command line, with the network off
    proc = run_warm("inspect", sentence, "--model", "gpt2@main", env=offline(cache))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "gpt2" in proc.stdout


def test_an_id_the_cache_lacks_is_one_line_with_the_command_that_fetches_it(cached, tmp_path):
    cache, _, _ = cached
    proc = run_warm("inspect", "The cat", "--model", "Qwen/Qwen3-0.6B", env=offline(cache))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "not in the local Hugging Face cache" in lines[0]
    assert "`hf download Qwen/Qwen3-0.6B`" in lines[0]
    proc = run_warm("inspect", "The cat", "--model", "gpt2@v9", env=offline(cache))
    assert proc.returncode == 2 and "`hf download gpt2 --revision v9`" in proc.stderr


def test_a_snapshot_that_links_out_of_the_cache_is_refused_unread(cached, tmp_path):
    cache, folder, _ = cached
    outside = tmp_path / "elsewhere.safetensors"
    outside.write_bytes((folder / "model.safetensors").read_bytes())
    bad = hub_cache(tmp_path / "cache", folder, repo="someone/tiny")
    (bad / "model.safetensors").unlink()
    (bad / "model.safetensors").symlink_to(outside)
    proc = run_warm("inspect", "The cat", "--model", "someone/tiny",
                       env=offline(tmp_path / "cache"))
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "links outside the folder" in lines[0], lines


def test_an_encoder_decoder_by_its_hub_id_is_read_from_the_cache(tmp_path, monkeypatch):
    """`translate --model Helsinki-NLP/opus-mt-en-fr` finds its folder in the cache too."""
    from huggingface_hub import constants

    from attention_explainer.attention_core.seq2seq import seq2seq_files
    from tests.tiny_models import build_marian

    folder = build_marian(tmp_path / "marian")
    hub_cache(tmp_path / "cache", folder, repo="Helsinki-NLP/opus-mt-en-fr")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    files = seq2seq_files("Helsinki-NLP/opus-mt-en-fr")
    assert files is not None and files.name == "Helsinki-NLP/opus-mt-en-fr"
    assert files.folder.parent.name == "snapshots"
