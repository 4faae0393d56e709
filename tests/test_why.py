"""Why a head attends (issue 63): `inspect --why` splits the explained head's score of the
focus word with each key into the parts of the residual stream that make the key; on a
tiny GPT-2 (layer norm, learned positions) and a tiny Llama (RMS norm, rotary, grouped
keys) the parts add up to the model's own score to 1e-4 in every layer; a model whose
stream cannot be split is refused in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests import tiny_models

SENTENCE = "The chef who won the prize cooked for the guests"


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_the_parts_add_up_to_the_score(family, tmp_path, run_cli):
    from attention_explainer.attention_core.api import TraceRequest, trace_for
    from attention_explainer.attention_core.why import why_for

    folder = tiny_models.build(family, tmp_path / family)
    for layer in (0, 1):
        req = TraceRequest(sentence=SENTENCE, model=str(folder), layer=layer)
        split = why_for(req)
        trace = trace_for(req)
        f = trace.focus_index
        assert split.keys == tuple(j for j in range(trace.num_tokens) if not trace.mask[f, j])
        np.testing.assert_allclose(split.parts.sum(1), split.scores, atol=1e-4)
        np.testing.assert_allclose(split.scores, trace.scores[trace.primary_slot, f,
                                                              list(split.keys)], atol=1e-6)
        expected = ["token embedding", *(["position"] if family == "gpt2" else []),
                    *[f"layer {m} {part}" for m in range(layer) for part in ("attention", "MLP")],
                    "norm and key bias"]
        assert list(split.names) == expected
    code, out, err = run_cli("inspect", SENTENCE, "--model", folder, "--layer", "1", "--why",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)["why"]
    assert doc["layer"] == 1 and len(doc["parts"]) == len(expected)
    for key in doc["keys"]:
        assert sum(key["parts"]) == pytest.approx(key["score"], abs=1e-4)
    code, out, err = run_cli("inspect", SENTENCE, "--model", folder, "--layer", "1", "--why")
    assert code == 0, err
    assert "the parts add up to the score" in out and "layer 0 MLP" in out


def test_a_model_whose_stream_cannot_be_split_is_refused(tmp_path, run_cli):
    folder = tiny_models.build("gemma2", tmp_path / "gemma2")       # capped scores
    for model, fragment in (("minilm", "norms after each layer (post-norm)"),
                            (folder, "its scores are capped")):
        code, out, err = run_cli("inspect", SENTENCE, "--model", model, "--why")
        assert code == 2 and out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], err
