"""Activation patching between a minimal pair (issue 63): `compare A B --patch` puts one
head's output from B's run into A's and reports the change of A's output; on a tiny GPT-2
each head's KL equals a hand-written transformers hook's, patching nothing changes
nothing, and MiniLM's angles are an encoder's; bad input in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

A = "The chef who won the prize cooked"
B = "The chef who cooked the prize won"      # the same tokens, reordered


def _next_token(model, ids, edit=None):
    """The next token's distribution, with ``edit(layer, merged)`` given every c_proj's
    input (B x T x H·d) in the order the layers run."""
    import torch

    hooks = []
    for n, block in enumerate(model.transformer.h):
        if edit is not None:
            hooks.append(block.attn.c_proj.register_forward_pre_hook(
                lambda module, args, n=n: edit(n, args)))
    try:
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1].double()
    finally:
        for hook in hooks:
            hook.remove()
    return torch.softmax(logits, -1).numpy()


def doc_focus_index(doc, sentence, folder) -> int:
    """The focus word's first token in A, as inspect finds it for the pair's focus."""
    from attention_explainer.attention_core.api import compute_trace

    return compute_trace(sentence, model=str(folder), focus=doc["focus"]).focus_index


def test_patching_a_head_of_a_tiny_gpt2_is_a_hook_of_ones_own(tmp_path, run_cli):
    import transformers as T
    from tokenizers import Tokenizer

    from attention_explainer.attention_core.ablation import _Runner, _effect
    from attention_explainer.attention_core.api import TraceRequest
    from tests import tiny_models

    folder = tiny_models.build("gpt2", tmp_path / "gpt2")
    code, out, err = run_cli("compare", A, B, "--model", folder, "--focus", "cooked", "--patch",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)
    rows = doc["patch"]
    layer = rows[0]["layer"]
    assert sorted(r["head"] for r in rows) == [0, 1, 2, 3] and {r["layer"] for r in rows} == {layer}
    assert [r["effect"] for r in rows] == sorted((r["effect"] for r in rows), reverse=True)
    model = T.GPT2LMHeadModel.from_pretrained(str(folder), local_files_only=True,
                                              attn_implementation="eager").eval()
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids_a, ids_b = tok.encode(A).ids, tok.encode(B).ids
    # B's heads' outputs at the layer, kept by a hook of this test's own
    kept = {}

    def keep(n, args):
        kept[n] = args[0][0].clone()
    _next_token(model, ids_b, keep)
    p = _next_token(model, ids_a)
    width = kept[layer].shape[-1] // 4
    for row in rows:
        h = row["head"]

        def put(n, args, h=h):
            if n != layer:
                return None
            merged = args[0].clone()
            merged[0, :, h * width:(h + 1) * width] = kept[layer][:, h * width:(h + 1) * width]
            return (merged,)
        q = _next_token(model, ids_a, put)
        assert row["kl"] == pytest.approx(float(np.sum(p * (np.log(p) - np.log(q)))), abs=1e-6)
    assert max(r["kl"] for r in rows) > 1e-6            # the pair's difference moves something
    # the residual stream at the focus word entering each layer, from B: a pre-hook of ours
    import torch

    f = doc_focus_index(doc, A, folder)
    with torch.no_grad():
        states_b = model.transformer(input_ids=torch.tensor([ids_b]),
                                     output_hidden_states=True).hidden_states
    for row in doc["patch_stream"]:
        n = row["layer"]

        def enter(module, args, kwargs, n=n):
            hidden = (args[0] if args else kwargs["hidden_states"]).clone()
            hidden[0, f] = states_b[n][0, f]
            return ((hidden, *args[1:]), kwargs) if args else \
                (args, {**kwargs, "hidden_states": hidden})
        hook = model.transformer.h[n].register_forward_pre_hook(enter, with_kwargs=True)
        try:
            q = _next_token(model, ids_a)
        finally:
            hook.remove()
        assert row["kl"] == pytest.approx(float(np.sum(p * (np.log(p) - np.log(q)))), abs=1e-6)
    # patching nothing changes nothing
    runner = _Runner(TraceRequest(sentence=A, model=str(folder)))
    nothing = _effect(runner, runner.output(), runner.output(replaced={}), ())
    assert nothing.kl == pytest.approx(0.0, abs=1e-12)


def test_patching_minilm_prints_each_head_s_angle(run_cli):
    code, out, err = run_cli("compare", "The cat ate the fish", "The dog ate the fish",
                             "--patch")
    assert code == 0, err
    lines = out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("patching layer "))
    heads = [line for line in lines[start:] if line.strip().startswith("head ")]
    assert len(heads) == 12 and all("\u00b0 (1 \u2212 cos " in line for line in heads)


def test_a_pair_of_other_lengths_is_refused_in_one_line(run_cli):
    code, out, err = run_cli("compare", "The cat ate the fish", "The big cat ate the fish",
                             "--patch")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "A has 7 tokens and B 8" in lines[0], err


def test_an_ablation_says_its_noise_floor(run_cli):
    """`--ablate` sets its effect beside what one head of the same layer silenced alone
    does: the median and 90th percentile of the layer's every head (`--ablation`'s)."""
    sentence = "The cat ate the fish"
    code, out, err = run_cli("inspect", sentence, "--ablate", "5:11", "--json")
    assert code == 0, err
    floor = json.loads(out)["ablation"]["floor"]
    code, out, err = run_cli("inspect", sentence, "--layer", "5", "--ablation", "--json")
    assert code == 0, err
    alone = [row["effect"] for row in json.loads(out)["influence"]]
    assert floor["heads"] == 12
    assert floor["median"] == pytest.approx(float(np.median(alone)), abs=1e-9)
    assert floor["p90"] == pytest.approx(float(np.percentile(alone, 90)), abs=1e-9)
    code, out, err = run_cli("inspect", sentence, "--ablate", "5:11")
    assert "noise     one head of the same layer silenced alone moves it by a median " in out


def test_mean_ablation_is_a_hook_of_ones_own(run_cli):
    """Beside zeroing, `--ablate` mean-ablates: the head's output replaced by its mean over
    the sentence's positions, in transformers' MiniLM by a hook of this test's own."""
    import torch
    import transformers as T

    from attention_explainer.attention_core import bert
    from attention_explainer.attention_core.model_kinds import model_files

    sentence = "The cat ate the fish"
    code, out, err = run_cli("inspect", sentence, "--ablate", "5:11", "--json")
    assert code == 0, err
    said = json.loads(out)["ablation"]["mean_ablated_effect"]
    model = T.BertModel.from_pretrained(str(bert.minilm_dir()), local_files_only=True,
                                        attn_implementation="eager").eval()
    ids = torch.tensor([model_files("minilm").tokenize(sentence).ids])

    def mean_of_head(module, args):
        merged = args[0].clone()
        part = merged[0, :, 11 * 32:12 * 32]
        merged[0, :, 11 * 32:12 * 32] = part.mean(0, keepdim=True)
        return (merged,)
    with torch.no_grad():
        before = model(input_ids=ids).last_hidden_state[0].mean(0).double()
        hook = model.encoder.layer[5].attention.output.dense.register_forward_pre_hook(
            mean_of_head)
        try:
            after = model(input_ids=ids).last_hidden_state[0].mean(0).double()
        finally:
            hook.remove()
    cosine = float(before @ after / (before.norm() * after.norm()))
    assert said == pytest.approx(1 - cosine, abs=1e-6)


def test_a_pair_says_its_noise_floor(run_cli):
    """`compare --noise`: random pairs of A (two other words swapped) measured as the pair
    is; the pair's own largest change is its words' largest, placed against them."""
    code, out, err = run_cli("compare", "The doctor called the nurse because she was late",
                             "The doctor called the nurse because he was late", "--noise",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)
    noise = doc["noise"]
    assert 1 <= noise["pairs"] <= 12 and 0 <= noise["median"] <= noise["p90"]
    own = max(abs(w["change"][0]) for w in doc["words"]
              if w["in_a"] and w["in_b"] and w["word"] != doc["focus"])
    assert noise["largest_change"] == pytest.approx(own, abs=1e-9)
    assert noise["where"] == ("above" if own > noise["p90"] else "within"
                              if own >= noise["median"] else "below")
