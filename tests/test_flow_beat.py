"""The flow beat (issue 63): the focus word's sources through every layer, drawn as a river
of rollout after the last layer's own weights. On sentences in several scripts, on MiniLM
and on tiny decoders (one of more layers than the film has columns), it passes the layout,
legibility and claims audits, every number drawn re-derives from the trace's meta, the
river's shares are rollout's own, and words as written are what it names."""
from __future__ import annotations

import numpy as np
import pytest

from tests import tiny_models
from tests.conftest import assert_numbers_rederive

CASES = [
    ("The animal didn't cross the street because it was tired", {"focus": "it"}),
    ("小猫吃了一条鱼，因为它饿了", {}),
    ("Кошка съела рыбу, потому что она была голодна.", {"focus": "она"}),
    ("The lawyer questioned the witness because she was lying", {"model": "gpt2-12"}),
    ("The chef who won the prize cooked for the guests", {"model": "llama"}),
]


@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    root = tmp_path_factory.mktemp("flow-models")
    return {"gpt2-12": tiny_models.build("gpt2", root / "gpt2", n_layer=12),
            "llama": tiny_models.build("llama", root / "llama")}


def _film(sentence, options, folder):
    from attention_explainer.attention_core.api import TraceRequest, trace_for
    from attention_explainer.attention_core.flow import with_flow
    from attention_explainer.scenes.film.scene import FilmScene
    from tests.layout_corpus import audited

    req = TraceRequest(sentence=sentence, **options)
    trace = with_flow(trace_for(req), req)
    return audited(lambda: FilmScene(trace, beats=["flow"], skip_animations=True), folder)


@pytest.mark.parametrize("sentence, options", CASES, ids=[s[:14] for s, _ in CASES])
def test_the_flow_beat_holds_its_layout_and_its_claims(sentence, options, decoders, tmp_path):
    from attention_explainer.attention_core.flow import rollout
    from attention_explainer.attention_core.layers import attentions_for
    from attention_explainer.attention_core.api import TraceRequest
    from attention_explainer.attention_core.word_model import WordModel
    from attention_explainer.scenes.film.claims import (claim_faults, pieces_named_as_words,
                                                        words_not_written)

    options = dict(options)
    if "model" in options:
        options["model"] = str(decoders[options["model"]])
    scene = _film(sentence, options, tmp_path)
    trace = scene.trace
    assert scene.layout_log == [] and scene.findings == [] and scene.audit_log == [], \
        (scene.layout_log[:5], scene.findings[:5], scene.audit_log[:5])
    assert claim_faults(trace, scene.book.claims) == []
    assert_numbers_rederive(trace, scene.shown_numbers)
    said = [c.content for c in scene.renderer.file_writer.subcaptions]
    assert not pieces_named_as_words(trace, said) and not words_not_written(trace, said)
    assert any("Rollout carries it through all" in s for s in said)
    assert any("Kendall\u2019s \u03c4 = " in s or "Kendall's \u03c4 = " in s for s in said)
    # the input column's shares are rollout's focus row, word by word
    found = trace.meta["flow"]
    every = attentions_for(TraceRequest(sentence=sentence, **options))
    row = rollout(np.asarray(every.weights, np.float64))[trace.focus_index]
    words = WordModel.of_trace(trace)
    np.testing.assert_allclose(found["shares"][0], words.sums(row), atol=1e-5)
    assert found["columns"][0] == 0 and found["columns"][-1] == every.num_layers
    assert found["columns"][-2] == every.num_layers - 1        # the last layer drawn alone
    assert len(found["columns"]) <= 9


def test_a_saved_trace_without_the_river_says_so_in_one_line(tmp_path, run_cli):
    from attention_explainer.attention_core.api import compute_trace

    path = tmp_path / "t.npz"
    compute_trace("The cat ate the fish").save(path)
    code, out, err = run_cli("frames", "--trace", path, "--beat", "flow", "--out",
                             tmp_path / "stills")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "the flow beat runs the model through every layer" in lines[0]
    assert not (tmp_path / "stills").exists()


@pytest.mark.parametrize("family, layer", [("gpt2-12", 8), ("llama", 1)])
def test_the_why_beat_holds_its_layout_and_its_claims(family, layer, decoders, tmp_path):
    """The why beat on a tiny GPT-2 and Llama: its layout, legibility and claims audits
    pass, every number re-derives, and each drawn key's parts add up to the model's own
    score of it."""
    from attention_explainer.attention_core.api import TraceRequest, trace_for
    from attention_explainer.attention_core.why import with_why
    from attention_explainer.scenes.film.claims import claim_faults
    from attention_explainer.scenes.film.scene import FilmScene
    from tests.layout_corpus import audited

    req = TraceRequest(sentence="The lawyer questioned the witness because she was lying",
                       model=str(decoders[family]), layer=layer)
    trace = with_why(trace_for(req), req)
    scene = audited(lambda: FilmScene(trace, beats=["why"], skip_animations=True), tmp_path)
    assert scene.layout_log == [] and scene.findings == [] and scene.audit_log == [], \
        (scene.layout_log[:5], scene.findings[:5], scene.audit_log[:5])
    assert claim_faults(trace, scene.book.claims) == []
    assert_numbers_rederive(trace, scene.shown_numbers)
    # a beat cache entry keeps each number's index as numbers (a name there was refused)
    assert all(isinstance(i, (int, float)) for n in scene.shown_numbers for i in n.index)
    found = trace.meta["why"]
    assert "earlier attention" in found["groups"] and "earlier MLPs" in found["groups"]
    for n, j in enumerate(found["keys"]):
        total = sum(parts[n] for parts in found["parts"].values())
        assert total == pytest.approx(float(trace.scores[trace.primary_slot,
                                                         trace.focus_index, j]), abs=1e-4)
