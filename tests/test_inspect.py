"""`inspect` through the real command line: what it prints, the chosen focus, layer and
heads, the saved trace, devices, tampered weights, and --help without torch or manim."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

from attention_explainer.attention_core import bert, compute_trace, selection
from attention_explainer.attention_core.trace import NPZ_KEYS, OPTIONAL_FIELDS, AttentionTrace
from tests.conftest import CLI, DEFAULT, ROOT


def _one_line(err):
    lines = err.strip().splitlines()
    return len(lines) == 1 and "Traceback" not in err


def test_inspect_default_names_layer_head_and_cat_fish(run_cli, default_trace):
    code, out, err = run_cli("inspect", DEFAULT)
    assert code == 0, err
    layer, head = default_trace.layer, default_trace.primary_head
    assert f"layer     {layer} " in out and f"explained: head {head}" in out
    # the explained head's two largest weights from "ate" onto other content tokens
    t = default_trace
    content = selection.content_tokens(t.special, t.word_ids, t.words)
    row = t.weights[t.primary_slot, t.focus_index].copy()
    row[~content] = -1
    row[t.focus_index] = -1
    top2 = {t.tokens[j] for j in np.argsort(row)[-2:]}
    assert t.focus_word == "ate" and top2 == {"cat", "fish"}
    assert "cat" in out and "fish" in out


def test_auto_focus_and_explicit_focus():
    assert compute_trace(DEFAULT).focus_word == "ate"
    t = compute_trace(DEFAULT, focus="FISH")
    assert t.focus_word == "fish" and t.tokens[t.focus_index] == "fish"
    # a word split into pieces focuses its first piece, and says which piece that is
    t = compute_trace("Tokenization is unbelievably hard", focus="Unbelievably")
    assert t.tokens[t.focus_index] == "un" and t.tokens[t.focus_index + 1] == "##bel"
    assert t.focus_word == "un" and t.focus_span_text == "unbelievably"
    assert t.focus_span == (t.focus_index, t.focus_index + 4)


@pytest.mark.parametrize("sentence, focus, token, span", [
    ("我爱北京天安门", "北京", "北", "北京"),            # a CJK word is several tokens
    ("我爱北京天安门", "北京[1]", "京", "北京"),          # ... and [n] picks one of them
    ("我爱北京天安门", "北京[-1]", "京", "北京"),
    ("The cat ate the fish", "the FISH", "the", "the fish"),   # any run of whole tokens
    ("I like auto racing", "auto", "auto", "auto"),    # "auto" is a word like any other
    ("I like auto racing", "", "auto", "auto"),        # empty: chosen automatically
])
def test_focus_is_any_run_of_whole_tokens(sentence, focus, token, span):
    t = compute_trace(sentence, focus=focus)
    assert (t.focus_word, t.focus_span_text) == (token, span)
    first, last = t.focus_span
    assert first <= t.focus_index <= last


@pytest.mark.parametrize("focus, needle", [("北", None), ("京天", None), ("ca", "not a run"),
                                           ("北京[2]", "[0] to [1]")])
def test_focus_must_cover_whole_tokens(focus, needle, run_cli):
    code, out, err = run_cli("inspect", "我爱北京天安门" if "北" in focus or "京" in focus
                             else DEFAULT, "--focus", focus)
    if needle is None:                 # single CJK characters and runs of them are tokens
        assert code == 0, err
    else:
        assert code == 2 and _one_line(err) and needle in err


def test_the_scratch_model_names_its_seed():
    t = compute_trace(DEFAULT, model="scratch", num_heads=4, d_model=64, seed=7)
    assert t.model_label == "scratch (seed 7)" and "7" in t.meta["model_name"]


def test_focus_not_in_sentence_lists_words(run_cli):
    code, out, err = run_cli("inspect", DEFAULT, "--focus", "dog")
    assert code == 2 and _one_line(err)
    assert "cat" in err and "fish" in err


def test_npz_keys_and_meta(tmp_path, run_cli):
    path = tmp_path / "t.npz"
    code, out, err = run_cli("inspect", DEFAULT, "--heads", "all", "--npz", path)
    assert code == 0, err
    with np.load(path, allow_pickle=False) as data:
        # every optional field but the residual stream, which only pre-norm models need,
        # and the score terms, which only models that add their own to the scores have
        assert sorted(data.files) == sorted(NPZ_KEYS + tuple(
            f for f in OPTIONAL_FIELDS if f not in ("residual", "score_terms")))
        meta = json.loads(str(data["meta"]))
        for key in ("model", "weights_sha256", "layer", "heads", "focus", "device", "dtype"):
            assert key in meta
        assert meta["heads"] == list(range(12))
        assert data["weights"].shape[0] == 12 and data["q"].shape[0] == 12
        assert meta["weights_sha256"] == bert.MINILM_SHA256
    # the head axis is in model order: slot h is head h
    full = compute_trace(DEFAULT, heads="all", layer=meta["layer"])
    np.testing.assert_array_equal(AttentionTrace.load(path).weights, full.weights)


def test_npz_refuses_to_overwrite_without_force(tmp_path, run_cli):
    path = tmp_path / "t.npz"
    path.write_bytes(b"keep me")
    code, out, err = run_cli("inspect", "--npz", path)
    assert code == 2 and _one_line(err) and path.read_bytes() == b"keep me"


def test_trace_saves_identically_and_round_trips(tmp_path, default_trace):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    default_trace.save(a)
    default_trace.save(b)
    assert a.read_bytes() == b.read_bytes()
    loaded = AttentionTrace.load(a)
    assert loaded.tokens == default_trace.tokens and loaded.meta == default_trace.meta
    for name in ("embeddings", "q", "k", "v", "scores", "mask", "weights", "context", "output"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(default_trace, name))


def test_pickled_npz_is_refused(tmp_path):
    from attention_explainer.attention_core.errors import InputError

    path = tmp_path / "evil.npz"
    arrays = {k: np.zeros(1) for k in NPZ_KEYS}
    arrays["meta"] = np.array([{"x": 1}], dtype=object)
    np.savez(path, **arrays)
    with pytest.raises(InputError, match="pickled"):
        AttentionTrace.load(path)


def test_heads_and_layer_choices():
    t = compute_trace(DEFAULT, heads="0,5,11", layer=2)
    assert t.heads == [0, 5, 11] and t.primary_head == 0 and t.layer == 2
    t = compute_trace(DEFAULT, heads="auto", layer=1)
    assert t.layer == 1 and len(t.heads) == 4 and t.primary_head == t.heads[0]


@pytest.mark.parametrize("args, needle", [
    (["--heads", "12"], "out of range"),
    (["--heads", "1,,2"], "malformed"),
    (["--layer", "6"], "out of range"),
    (["--layer", "x"], "malformed"),
    (["--mask", "diagonal"], "not a mask"),
    (["--model", "/nonexistent/model"], "neither a known model"),
    ([""], "empty"),
])
def test_bad_options_exit_2_with_one_line(run_cli, args, needle):
    argv = ["inspect"] + (args if args == [""] else [DEFAULT] + args)
    code, out, err = run_cli(*argv)
    assert code == 2 and _one_line(err) and needle in err


def test_json_output(run_cli):
    code, out, err = run_cli("inspect", DEFAULT, "--json")
    doc = json.loads(out)
    assert doc["tokens"][3] == "ate" and len(doc["weights"]) == 4
    assert abs(sum(doc["weights"][0][3]) - 1) < 1e-5


def test_cuda_requested_without_cuda(run_cli, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    code, out, err = run_cli("inspect", DEFAULT, "--device", "cuda")
    assert code == 2 and _one_line(err) and "CUDA" in err


def test_auto_device_picks_cuda_when_available(monkeypatch):
    from attention_explainer.attention_core.device import resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto").type == "cuda"
    assert resolve_device("cuda").type == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto").type == "cpu"


def test_tampered_weights_are_refused(tmp_path):
    """A flipped byte in model.safetensors: exit 2, one line, nothing computed."""
    folder = tmp_path / "minilm"
    shutil.copytree(bert.minilm_dir(), folder)
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    env = dict(os.environ, ATTENTION_EXPLAINER_MINILM_DIR=str(folder))
    proc = subprocess.run(CLI + ["inspect"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert _one_line(proc.stderr) and "tampered" in proc.stderr


def test_help_and_version_import_neither_torch_nor_manim():
    code = ("import sys\nfrom attention_explainer import cli\n"
            "for args in (['--help'], ['--version'], ['inspect', '--help'], ['render', '--help']):\n"
            "    try:\n        cli.main(args)\n    except SystemExit as e:\n        assert e.code == 0, e.code\n"
            "bad = [m for m in ('torch', 'manim', 'transformers') if m in sys.modules]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    from importlib.metadata import version

    from attention_explainer import __version__

    assert "attention-explainer" in proc.stdout and __version__ in proc.stdout
    # one version: the package metadata reads it from attention_core/__init__.py
    assert version("attention-explainer") == __version__


def test_inspect_says_why_the_head_was_chosen(run_cli, default_trace):
    """One line per shown head: the share of the focus word's weight that goes to the other
    content words, and the two it goes to most, read from the trace."""
    code, out, err = run_cli("inspect", DEFAULT)
    assert code == 0, err
    t = default_trace
    row = t.weights[t.primary_slot, t.focus_index].astype(np.float64)
    others = [j for j, tok in enumerate(t.tokens) if tok in ("cat", "fish")]
    why = next(line for line in out.splitlines() if line.startswith("why"))
    assert f"head {t.primary_head} " in why and "chosen" in why
    assert f"{row[others].sum():.2f} of the weight of 'ate'" in why
    assert all(f"{t.tokens[j]} {row[j]:.2f}" in why for j in others)
