"""Weight is not influence (issue 42): a head silenced in the model's own forward, its effect
on the model's output re-derived here with transformers running the model, the head's
output zeroed by a hook of the test's own before W_O."""
from __future__ import annotations

import json

import numpy as np
import pytest

SENTENCE = "The cat ate the fish"


def cosine(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def run_silenced(model, layers, out_path, num_heads, silenced, ids):
    """transformers' forward of ``model`` with the (layer, head) pairs ``silenced`` zeroed
    at W_O's input (``out_path`` in each of ``layers``)."""
    import torch

    from attention_explainer.attention_core.hf_models import module_at

    hooks = []
    for layer, head in silenced:
        def zero(module, args, head=head):
            x = args[0].clone()
            width = x.shape[-1] // num_heads
            x[..., head * width:(head + 1) * width] = 0
            return (x, *args[1:])
        hooks.append(module_at(layers[layer], out_path).register_forward_pre_hook(zero))
    try:
        with torch.no_grad():
            return model(input_ids=torch.tensor([ids]), output_hidden_states=True)
    finally:
        for hook in hooks:
            hook.remove()


def test_minilms_weight_vs_influence_table_is_transformers_with_a_head_silenced(run_cli):
    import transformers as T

    from attention_explainer.attention_core import bert
    from attention_explainer.attention_core.model_kinds import model_files

    code, out, err = run_cli("inspect", SENTENCE, "--layer", "5", "--ablation", "--json")
    assert code == 0, err
    doc = json.loads(out)
    rows = doc["influence"]
    assert sorted(r["head"] for r in rows) == list(range(12))     # 12 rows: every head
    folder = bert.minilm_dir()
    model = T.BertModel.from_pretrained(str(folder), local_files_only=True,
                                        attn_implementation="eager").eval()
    ids = model_files("minilm").tokenize(SENTENCE).ids
    layers = model.encoder.layer
    before = run_silenced(model, layers, "attention.output.dense", 12, [], ids)
    f = doc["meta"]["focus_index"]
    for row in rows:
        after = run_silenced(model, layers, "attention.output.dense", 12, [(5, row["head"])],
                             ids)
        last_before, last_after = before.last_hidden_state[0].numpy(), \
            after.last_hidden_state[0].numpy()
        # its pooling: the mean of the last layer's vectors (1_Pooling says mean)
        assert row["cosine"] == pytest.approx(cosine(last_before.mean(0), last_after.mean(0)),
                                              abs=1e-5)
        assert row["focus_cosine"] == pytest.approx(cosine(last_before[f], last_after[f]),
                                                    abs=1e-5)
        # its weight on the answer is the trace's focus row, each answer word summed
        assert 0.0 <= row["answer_weight"] <= 1.0 and 0.0 <= row["special_weight"] <= 1.0
    effects = [r["effect"] for r in rows]
    assert effects == sorted(effects, reverse=True)          # ranked by effect


def test_a_tiny_gpt2s_next_token_kl_is_re_derived_and_nothing_silenced_changes_nothing(
        tmp_path, run_cli):
    import torch
    import transformers as T

    from attention_explainer.attention_core.ablation import _effect, _Runner
    from attention_explainer.attention_core.api import TraceRequest
    from tests import tiny_models

    folder = tiny_models.build("gpt2", tmp_path / "gpt2")
    sentence = "The chef who won the prize cooked"
    code, out, err = run_cli("inspect", sentence, "--model", folder, "--ablate", "1:0",
                             "--json")
    assert code == 0, err
    effect = json.loads(out)["ablation"]
    model = T.GPT2LMHeadModel.from_pretrained(str(folder), local_files_only=True,
                                              attn_implementation="eager").eval()
    from tokenizers import Tokenizer
    ids = Tokenizer.from_file(str(folder / "tokenizer.json")).encode(sentence).ids
    layers = model.transformer.h
    p = torch.softmax(run_silenced(model, layers, "attn.c_proj", 4, [], ids).logits[0, -1]
                      .double(), -1).numpy()
    q = torch.softmax(run_silenced(model, layers, "attn.c_proj", 4, [(1, 0)], ids).logits[0, -1]
                      .double(), -1).numpy()
    assert effect["kl"] == pytest.approx(float(np.sum(p * (np.log(p) - np.log(q)))), abs=1e-6)
    assert effect["kl"] > 1e-6                     # the head matters to something
    assert [t[1] for t in effect["top_before"]] == pytest.approx(sorted(p, reverse=True)[:5],
                                                                 abs=1e-6)
    runner = _Runner(TraceRequest(sentence=sentence, model=str(folder)))
    nothing = _effect(runner, runner.output(), runner.output(()), ())
    assert nothing.kl == pytest.approx(0.0, abs=1e-12) and nothing.focus_cosine == \
        pytest.approx(1.0, abs=1e-12)


INFLUENCE_FILMS = [("The cat ate the fish", {}), ("我爱北京天安门", {"focus": "北京"}),
                   ("The lawyer questioned the witness because she was lying", {"focus": "she"}),
                   ("the chef who won the prize cooked", "gpt2")]


@pytest.mark.slow
@pytest.mark.parametrize("sentence, options", INFLUENCE_FILMS,
                         ids=[s[:12] for s, _ in INFLUENCE_FILMS])
def test_the_influence_beat_draws_the_measured_heads_and_holds_its_layout(sentence, options,
                                                                          tmp_path):
    from attention_explainer.scenes.film.claims import claim_faults
    from tests import tiny_models
    from tests.layout_corpus import audit_film

    if options == "gpt2":            # a decoder: the next token's KL, its LM head loaded
        options = {"model": str(tiny_models.build("gpt2", tmp_path / "gpt2"))}
    scene = audit_film(sentence, options, "3b1b", tmp_path, beats=["title", "influence"],
                       influence=True)
    assert not scene.layout_log, scene.layout_log[:5]
    assert not scene.audit_log, scene.audit_log[:5]
    heads = scene.trace.meta["influence"]["heads"]
    assert len(heads) == scene.trace.meta["num_heads_total"]
    drawn = [n for n in scene.shown_numbers if n.beat == "influence"]
    for n in [n for n in drawn if n.kind.startswith("influence_")]:
        row = heads[n.index[0]]           # each drawn number is its head's measured one
        value = {"influence_special_weight": row["special_weight"],
                 "influence_effect": row["effect"], "influence_head": row["head"],
                 "influence_angle": float(np.degrees(np.arccos(1 - row["effect"])))
                 }.get(n.kind)
        if value is not None:
            assert abs(float(n.text.replace("\u2212", "-")) - value) <= 0.5 * 10 ** -n.decimals
    assert drawn and not claim_faults(scene.trace, scene.book.claims)
    assert any(c.kind == "head_most" for c in scene.book.claims)
