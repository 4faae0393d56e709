"""Where a word's information comes from through every layer (issue 63): attention rollout,
attention flow, value zeroing and norms, each re-derived here from its definition (from
``ae.attentions()`` and from the model's own forward in transformers, with hooks of this
file's own), on MiniLM and a tiny GPT-2; the agreement with leave-one-out as Kendall's τ;
`inspect --flow` as text and JSON; bad input in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from attention_explainer import explainer as ae
from tests import tiny_models

SENTENCE = "The animal didn't cross the street because it was tired"
SHORT = "The dog slept because it was tired"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """MiniLM and a tiny GPT-2, each as transformers loads it (the oracle), with the
    name ae takes for it."""
    import transformers as T

    from attention_explainer.attention_core import bert

    gpt2 = tiny_models.build("gpt2", tmp_path_factory.mktemp("flow") / "gpt2")
    minilm = T.BertModel.from_pretrained(str(bert.minilm_dir()), local_files_only=True,
                                         attn_implementation="eager").eval()
    tiny = T.AutoModel.from_pretrained(str(gpt2), local_files_only=True,
                                       attn_implementation="eager").eval()
    return {"minilm": ("minilm", minilm, _bert_value), str(gpt2): (str(gpt2), tiny, _gpt2_value)}


def _bert_value(model, layer):
    """(the module that makes the values, the share of its output that is them)"""
    return model.encoder.layer[layer].attention.self.value, 1


def _gpt2_value(model, layer):
    return model.h[layer].attn.c_attn, 3          # fused: queries, keys, values


def _ids(name: str, sentence: str):
    from attention_explainer.attention_core.api import model_files

    return model_files(name).tokenizer.encode(sentence).ids


def _hidden(model, value_of, ids, zeroed=()):
    """The model's hidden states (the input, then each layer's output), with the value
    of (layer, token) pairs in ``zeroed`` set to zero by a hook on the value projection
    (GPT-2's fused c_attn: its last third)."""
    import torch

    hooks = []
    for layer, token in zeroed:
        module, parts = value_of(model, layer)

        def zero(module, args, out, token=token, parts=parts):
            out = out.clone()
            out[:, token, (parts - 1) * out.shape[-1] // parts:] = 0
            return out
        hooks.append(module.register_forward_hook(zero))
    try:
        with torch.no_grad():
            states = model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
    finally:
        for hook in hooks:
            hook.remove()
    return [s[0].double().numpy() for s in states]


def _with_residual(a):
    a = 0.5 * a + 0.5 * np.eye(len(a))
    return a / a.sum(axis=1, keepdims=True)


def _distance(a, b):
    return 1 - (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


@pytest.mark.parametrize("which", ["minilm", "gpt2"])
def test_rollout_flow_and_value_zeroing_are_their_definitions(which, models):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    name = next(k for k in models if (k == "minilm") == (which == "minilm"))
    name, model, value_of = models[name]
    every = ae.attentions(SENTENCE, model=name)
    L, T = every.num_layers, len(every.tokens)
    layers = [_with_residual(np.asarray(every[f"blocks.{n}.attn.hook_pattern"],
                                        np.float64).mean(0)) for n in range(L)]
    # rollout: Â_L ⋯ Â_1
    by_hand = np.eye(T)
    for a in layers:
        by_hand = a @ by_hand
    rolled = ae.flow(SENTENCE, "rollout", model=name)
    np.testing.assert_allclose(rolled.matrix, by_hand, atol=1e-5)
    assert rolled.tokens == every.tokens
    # flow: the maximum flow through the layers' graph, by scipy's own algorithm on
    # capacities in billionths (it takes integers)
    nodes = (L + 1) * T
    caps = np.zeros((nodes, nodes), dtype=np.int64)
    for n, a in enumerate(layers):
        caps[n * T:(n + 1) * T, (n + 1) * T:(n + 2) * T] = np.rint(a.T * 1e9).astype(np.int64)
    graph = csr_matrix(caps)
    flowed = ae.flow(SENTENCE, "flow", model=name)
    for i in range(T):
        for j in range(T):
            value = maximum_flow(graph, j, L * T + i).flow_value / 1e9
            assert abs(flowed.matrix[i, j] - value) < 1e-5, (i, j)
    # value zeroing: 1 − cos of each layer's output, token j's value zeroed there alone
    ids = _ids(name, SENTENCE)
    kept = _hidden(model, value_of, ids)
    per_layer = []
    for n in range(L):
        c = np.stack([_distance(kept[n + 1], _hidden(model, value_of, ids, [(n, j)])[n + 1])
                      for j in range(T)], axis=1)
        c = np.clip(c, 0, None)
        per_layer.append(c / c.sum(1, keepdims=True))
    by_hand = np.eye(T)
    for c in per_layer:
        by_hand = c @ by_hand
    zeroed = ae.flow(SENTENCE, "value-zeroing", model=name)
    np.testing.assert_allclose(zeroed.matrix, by_hand, atol=1e-5)
    # leave-one-out: each token's value zeroed in every layer, the focus's last state
    f = zeroed.focus_index
    loo = [_distance(kept[-1][f], _hidden(model, value_of, ids,
                                          [(n, j) for n in range(L)])[-1][f]) for j in range(T)]
    np.testing.assert_allclose(zeroed.leave_one_out, loo, atol=1e-5)
    from scipy.stats import kendalltau

    others = [j for j in range(T) if j != f]
    tau = kendalltau(zeroed.matrix[f, others], np.asarray(loo)[others]).statistic
    assert zeroed.kendall_tau == pytest.approx(tau, abs=1e-9)


def test_norms_are_the_weighted_values_through_w_o(models):
    """Kobayashi et al.'s ‖Σ_h α^h_ij v^h_j W_O^h‖, with MiniLM's W_O read from
    transformers, rows normalised, carried as rollout carries A."""
    _, model, _ = models["minilm"]
    every = ae.attentions(SENTENCE)
    T = len(every.tokens)
    by_hand = np.eye(T)
    for n in range(every.num_layers):
        w_o = model.encoder.layer[n].attention.output.dense.weight.detach().double().numpy()
        v = np.asarray(every[f"blocks.{n}.attn.hook_v"], np.float64)        # T x H x d
        a = np.asarray(every[f"blocks.{n}.attn.hook_pattern"], np.float64)  # H x T x T
        H, d = v.shape[1], v.shape[2]
        parts = np.zeros((T, T))
        for i in range(T):
            for j in range(T):
                total = sum(a[h, i, j] * (w_o[:, h * d:(h + 1) * d] @ v[j, h])
                            for h in range(H))
                parts[i, j] = np.linalg.norm(total)
        by_hand = _with_residual(parts / parts.sum(1, keepdims=True)) @ by_hand
    np.testing.assert_allclose(ae.flow(SENTENCE, "norms").matrix, by_hand, atol=1e-5)


def test_inspect_flow_prints_each_word_and_the_agreement(run_cli):
    code, out, err = run_cli("inspect", SHORT, "--flow", "value-zeroing", "--focus", "it")
    assert code == 0, err
    assert "flow into \u2018it\u2019 through all 6 layers: value-zeroing (Mohebbi et al. " \
           "2023)" in out
    assert "agreement with leave-one-out" in out and "Kendall \u03c4 = " in out
    assert "\u2018dog\u2019" in out and "\u2018slept\u2019" in out
    code, out, err = run_cli("inspect", SHORT, "--flow", "rollout", "--json")
    assert code == 0, err
    doc = json.loads(out)["flow"]
    assert doc["method"] == "rollout" and doc["source"] == "Abnar & Zuidema 2020"
    T = len(doc["tokens"])
    matrix = np.asarray(doc["matrix"])
    assert matrix.shape == (T, T)
    np.testing.assert_allclose(matrix.sum(1), 1.0, atol=1e-9)   # rollout keeps rows whole


@pytest.mark.parametrize("argv, fragment", [
    (["--flow", "gradient"], "--flow 'gradient' is not a method; give one of rollout, flow, "
                             "value-zeroing, norms."),
    (["--flow", "rollout", "--model", "scratch"], "--flow: the scratch model is one seeded "
                                                  "layer"),
])
def test_bad_flow_requests_are_one_line(argv, fragment, run_cli):
    code, out, err = run_cli("inspect", SHORT, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
    assert out == ""
