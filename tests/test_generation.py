"""A decoder writes (issue 39, its second part): `inspect --generate N` on tiny random
GPT-2 and Llama folders built here writes the tokens transformers' own greedy `generate`
writes, and each new token's weights over the cache are the model's own without a cache
(the full sequence run again, its last row); what cannot be asked is refused in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests import tiny_models

PROMPT = "the cat sat on the mat because it"


def _folder(family: str, tmp_path):
    # the language-model head: GPT-2 ties it to its embeddings; the Llama is saved tied too
    changes = {"tie_word_embeddings": True} if family in ("llama", "qwen3", "phi3") else {}
    return tiny_models.build(family, tmp_path / family, **changes)


@pytest.mark.parametrize("family", ["gpt2", "llama", "qwen3", "phi3"])
def test_generate_writes_what_generate_writes_and_each_step_is_the_models_own(family, tmp_path,
                                                                              run_cli):
    import torch
    import transformers as T
    from tokenizers import Tokenizer

    folder = _folder(family, tmp_path)
    code, out, err = run_cli("inspect", PROMPT, "--model", folder, "--generate", "5",
                             "--layer", "1", "--heads", "all", "--json")
    assert code == 0, err
    doc = json.loads(out)
    model = T.AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True,
                                                   attn_implementation="eager").eval()
    ids = Tokenizer.from_file(str(folder / "tokenizer.json")).encode(PROMPT).ids
    with torch.no_grad():
        expected = model.generate(torch.tensor([ids]), max_new_tokens=5, do_sample=False,
                                  num_beams=1)[0, len(ids):].tolist()
    assert [t["id"] for t in doc["tokens"]] == expected
    assert len(expected) == 5 and doc["stopped"] == "length"
    with torch.no_grad():                       # the model's own weights, with its cache
        out = model(torch.tensor([ids]), use_cache=True)
        for token, new in zip(doc["tokens"], expected):
            out = model(torch.tensor([[new]]), cache=out.cache, use_cache=True,
                        output_attentions=True)
            cached = out.attentions[1][0, :, -1].double().numpy()
            assert np.abs(np.array(token["weights"]) - cached).max() < 1e-5
    for k, token in enumerate(doc["tokens"]):
        seen = ids + expected[:k + 1]            # the prompt and what is written, to it
        with torch.no_grad():
            result = model(torch.tensor([seen]), output_attentions=True)
        own = result.attentions[1][0, :, -1].double().numpy()
        assert np.abs(np.array(token["weights"]) - own).max() < 1e-5
        assert len(token["keys"]) == len(seen)
        assert token["first_share"] == pytest.approx(own[:, 0].tolist(), abs=1e-5)
        # the distribution it was chosen from: the model's for the position before it
        with torch.no_grad():
            before = torch.softmax(model(torch.tensor([seen[:-1]])).logits[0, -1].double(), -1)
        assert token["probability"] == pytest.approx(float(before.max()), abs=1e-6)
        assert [t["probability"] for t in token["top"]] == pytest.approx(
            torch.topk(before, 5).values.tolist(), abs=1e-6)


def test_the_text_says_each_token_its_heads_and_the_sink_rule(tmp_path, run_cli):
    folder = _folder("gpt2", tmp_path)
    code, out, err = run_cli("inspect", PROMPT, "--model", folder, "--generate", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("GPT-2 decoder: 3 tokens written after the prompt's")
    assert sum(line.lstrip().startswith(("1.", "2.", "3.")) for line in lines) == 3
    assert "in layer 1 over the cache of keys (heads 0, 1, 2, 3)" in out


def test_a_sink_is_named_only_where_the_first_token_takes_most(tmp_path):
    from attention_explainer.attention_core.generation import (Generation, WrittenToken,
                                                               sink_line)

    def written(first):
        weights = np.array([[first, 1 - first], [first, 1 - first]])
        return WrittenToken(5, "x", 0.5, [("x", 0.5)], weights, ["a", "x"])

    heavy = Generation(["a"], [written(0.8), written(0.7)], 3, [0, 1], "GPT-2 decoder", "length")
    light = Generation(["a"], [written(0.2)], 3, [0, 1], "GPT-2 decoder", "length")
    assert "75 %" in sink_line(heavy) and "attention sink" in sink_line(heavy)
    assert sink_line(light) is None


@pytest.mark.parametrize("argv, fragment", [
    (["--generate", "3"], "is an encoder"),
    (["--generate", "0"], "give 1 to 64"),
    (["--generate", "3", "--npz", "t.npz"], "drop --npz"),
])
def test_what_cannot_be_generated_is_refused_in_one_line(argv, fragment, run_cli):
    code, _, err = run_cli("inspect", "the cat sat", *argv)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_writing_past_the_models_positions_is_refused_before_it_loads(tmp_path, run_cli):
    folder = _folder("gpt2", tmp_path)
    code, _, err = run_cli("inspect", PROMPT, "--model", folder, "--generate", "64")
    assert code == 2 and "more than the model's 64 positions; ask for at most" in err
    assert len(err.strip().splitlines()) == 1


def test_a_decoder_saved_without_its_head_is_refused(tmp_path, run_cli):
    folder = tiny_models.build("llama", tmp_path / "headless")    # not tied: no lm_head
    code, _, err = run_cli("inspect", PROMPT, "--model", folder, "--generate", "2")
    assert code == 2 and "no language-model head" in err and "--generate needs" in err
    assert len(err.strip().splitlines()) == 1
