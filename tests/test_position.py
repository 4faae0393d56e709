"""The optional position beat: the position vectors a trace keeps are the model's (MiniLM's
learned table is checked against transformers in test_model_matches_oracle; the scratch
model's are the sines and cosines of Vaswani et al., computed here from the formula), the
dimensions drawn follow one rule, and `--beats position` draws them for both models with
every number re-derived. Renders are tiny (160x90, 5 fps)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from attention_explainer.attention_core import compute_trace, derived
from tests.conftest import assert_numbers_rederive
from tests.test_beats import render_tiny


def paper_positions(count: int, d_model: int) -> np.ndarray:
    """Vaswani et al. 2017, section 3.5, written out entry by entry."""
    table = np.zeros((count, d_model))
    for pos in range(count):
        for i in range(0, d_model, 2):
            table[pos, i] = math.sin(pos / 10000 ** (i / d_model))
            if i + 1 < d_model:
                table[pos, i + 1] = math.cos(pos / 10000 ** (i / d_model))
    return table


def test_the_scratch_model_adds_the_papers_sines_and_cosines():
    trace = compute_trace("The cat ate the fish", model="scratch", d_model=64, num_heads=4)
    assert trace.meta["positions"] == "sinusoidal"
    np.testing.assert_allclose(trace.positions, paper_positions(trace.positions.shape[0], 64),
                               atol=1e-6)
    # and they are in its input: without them the first layer's input is another
    again = compute_trace("The fish ate the cat", model="scratch", d_model=64, num_heads=4)
    assert not np.allclose(trace.embeddings[2], again.embeddings[2])   # 'cat' moved


def test_the_waves_drawn_follow_one_rule():
    sines = compute_trace("The cat ate the fish", model="scratch")
    dims = derived.position_dims(sines)
    assert all(d % 2 == 0 for d in dims) and dims == sorted(dims)   # sines, each slower
    learned = compute_trace("The cat ate the fish")
    dims = derived.position_dims(learned)
    table = learned.positions[1:].astype(np.float64)
    spread = table.var(axis=0)
    assert int(np.argmax(spread)) in dims              # the one that varies most is drawn
    corr = np.corrcoef(table[:, dims].T)
    assert np.abs(corr[np.triu_indices(len(dims), 1)]).max() < 0.5


@pytest.mark.parametrize("model", ["minilm", "scratch"])
def test_the_position_beat_renders_and_its_numbers_come_from_the_trace(model, tmp_path):
    trace = compute_trace("The lawyer questioned the witness because she was lying",
                          model=model, focus="she")
    scene = render_tiny(["position"], trace, tmp_path)
    start, end = scene.beat_times["position"]
    assert 6.0 <= end - start <= 30.0
    assert_numbers_rederive(trace, scene.shown_numbers)
    kinds = {n.kind for n in scene.shown_numbers}
    assert {"positions", "position_dim", "position_range"} <= kinds
    # the focus word's own values are read out, one per wave drawn
    read = [n.index for n in scene.shown_numbers if n.kind == "positions"]
    assert sorted(read) == sorted((trace.focus_index, d) for d in derived.position_dims(trace))
    assert scene.audit_log == []


def test_the_film_around_the_position_beat_is_the_same(default_trace, tmp_path):
    """Optional: the beat after it starts from the stage it hands on, as after the title."""
    from attention_explainer.scenes.film.registry import hands_on, parse_beats, previous_beat
    from attention_explainer.scenes.pipeline.plan import follows

    assert "position" not in parse_beats("all")
    assert previous_beat("embed") == previous_beat("position") == "title"
    assert hands_on("position") == "title"
    names = parse_beats("title,position,embed")
    assert [follows(names, n) for n in range(3)] == [False, True, True]
    scene = render_tiny(names, default_trace, tmp_path)
    assert list(scene.beat_times) == names
    assert scene.layout_log == [] and scene.audit_log == []
