"""The terms a model adds to each score of its own (MPNet's relative position bias,
DeBERTa's content-to-position and position-to-content terms): kept in the trace, checked
when a trace is read, and zeroed values reach them (issue 61)."""
from __future__ import annotations

import numpy as np
import pytest

from tests import tiny_models

SENTENCE = "The chef who won the prize cooked for the guests."


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    from attention_explainer.attention_core import compute_trace

    made = {}
    for family in ("mpnet", "deberta-v2"):
        folder = tiny_models.build(family, tmp_path_factory.mktemp(family))
        made[family] = (folder, compute_trace(SENTENCE, model=str(folder)))
    return made


@pytest.mark.parametrize("family", ["mpnet", "deberta-v2"])
def test_a_trace_keeps_its_terms_and_one_that_lies_about_them_is_refused(family, traces,
                                                                         tmp_path):
    import dataclasses

    from attention_explainer.attention_core.errors import InputError
    from attention_explainer.attention_core.trace import AttentionTrace

    _, trace = traces[family]
    again = AttentionTrace.load(trace.save(tmp_path / "t.npz"))
    np.testing.assert_array_equal(again.score_terms, trace.score_terms)
    assert again.meta["score_terms"] == trace.meta["score_terms"]
    # the scores are q·k scaled plus the terms: the film writes them as a sum
    scale = trace.meta.get("score_scale") or trace.d_k ** -0.5
    qk = np.einsum("htd,hsd->hts", trace.q.astype(np.float64), trace.k.astype(np.float64))
    np.testing.assert_allclose(trace.scores, qk * scale + trace.score_terms.sum(0), atol=1e-4)
    lying = trace.score_terms.copy()
    lying[0, 0, trace.focus_index, 1] += 0.5
    for changed, said in (
            (dict(score_terms=lying), "not q·k scaled plus their score_terms"),
            (dict(score_terms=None), "names score_terms the trace does not hold"),
            (dict(score_terms=trace.score_terms[:, :, :-1]), "must be a float32 array"),
            (dict(meta={**trace.meta, "score_terms": [""] * len(trace.score_terms)}),
             "must name each term")):
        with pytest.raises(InputError, match=said):
            dataclasses.replace(trace, **changed).validate()


@pytest.mark.parametrize("family", ["mpnet", "deberta-v2"])
def test_a_zeroed_value_reaches_a_family_outside_the_interface(family, traces):
    """Value zeroing (--flow value-zeroing) zeroes the token's value in the layer asked: the
    layers before it run as trained, and that layer's attention output for every query
    changes by its weight on the token times the token's value through W_O."""
    import torch

    from attention_explainer.attention_core.api import TraceRequest
    from attention_explainer.attention_core.flow_runs import ZeroingRunner
    from attention_explainer.attention_core.hf_models import module_at

    folder, _ = traces[family]
    runner = ZeroingRunner(TraceRequest(sentence=SENTENCE, model=str(folder)))
    plain, zeroed = runner.hidden(None), runner.hidden((1, 2))
    np.testing.assert_array_equal(plain[1], zeroed[1])         # layer 0 as trained
    assert np.abs(plain[2] - zeroed[2]).max() > 1e-3            # layer 1 changed
    # every layer's attention output, as run and zeroed: they differ by w·v·W_O
    family_rows = runner.setup.kind.files.family
    layer = module_at(runner.model, family_rows.layers)[1]
    out = module_at(layer, family_rows.out)
    seen = []
    handle = out.register_forward_hook(lambda m, a, o: seen.append(o[0].double()))
    try:
        runner._hidden.clear()
        runner.hidden(None), runner.hidden((1, 2))
    finally:
        handle.remove()
    capture = runner.run.captures[1]
    w = capture.weights[0, :, :, 2].double()                    # H x T: each query's weight on it
    v = capture.v[0, :, 2].double()                             # H x d
    per_head = torch.einsum("hq,hd->qhd", w, v).reshape(len(w[0]), -1)
    weight, _ = runner.run.after(1)[0]
    expected = per_head @ weight.double().T
    np.testing.assert_allclose((seen[0] - seen[1]).numpy(), expected.detach().numpy(),
                               atol=1e-4)
