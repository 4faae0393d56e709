"""The focus word's update in the trace (issue 21): what each token adds to it, kept in the
.npz, re-derived here from the trace's own fields and checked on load; `inspect` prints
it, and an older trace without it loads and says what it lacks. (The fields against the
model itself: test_model_matches_oracle.)"""
from __future__ import annotations

import zipfile

import numpy as np
import pytest

from attention_explainer.attention_core import compute_trace, derived, report
from attention_explainer.attention_core.errors import InputError
from attention_explainer.attention_core.trace import UPDATE_NORMED, AttentionTrace
from tests.conftest import DEFAULT


@pytest.fixture(scope="module")
def trace():
    return compute_trace(DEFAULT, layer=5)


def test_the_shares_and_closeness_are_what_the_vectors_say(trace):
    f = trace.focus_index
    norms = [float(np.linalg.norm(c.astype(np.float64))) for c in trace.contributions]
    for j in range(trace.num_tokens):
        assert derived.update_share(trace, j) == pytest.approx(norms[j] / sum(norms))
        e, ej = trace.embeddings[f].astype(np.float64), trace.embeddings[j].astype(np.float64)
        assert derived.closeness_before(trace, j) == pytest.approx(
            e @ ej / np.linalg.norm(e) / np.linalg.norm(ej))
    # the measure, on the default sentence: the update is made of cat and fish
    # far more than of [CLS], which the heads weigh most on average
    share = {trace.tokens[j]: derived.update_share(trace, j) for j in range(trace.num_tokens)}
    assert share["cat"] > 0.15 and share["fish"] > 0.15 and share["[CLS]"] < 0.1
    # E' is the layer norm of E + dE (the oracle test checks the vector itself)
    assert trace.meta["update"] == UPDATE_NORMED


def test_the_update_is_saved_and_checked_on_load(trace, tmp_path):
    path = trace.save(tmp_path / "t.npz")
    back = AttentionTrace.load(path)
    for name in ("contributions", "output_bias", "updated"):
        np.testing.assert_array_equal(getattr(back, name), getattr(trace, name))
    # contributions that do not add up to the attention output are refused
    bad = dict(trace.to_arrays())
    bad["contributions"] = bad["contributions"] * 1.5
    _write(tmp_path / "bad.npz", bad)
    with pytest.raises(InputError, match="do not add up"):
        AttentionTrace.load(tmp_path / "bad.npz")
    # a part of the update without the rest is refused
    part = {k: v for k, v in trace.to_arrays().items() if k != "updated"}
    _write(tmp_path / "part.npz", part)
    with pytest.raises(InputError, match="without updated"):
        AttentionTrace.load(tmp_path / "part.npz")


def test_inspect_prints_the_update(trace, run_cli):
    code, out, err = run_cli("inspect", DEFAULT, "--layer", "5")
    assert code == 0, err
    cat = trace.tokens.index("cat")
    assert f"{100 * derived.update_share(trace, cat):.1f}%" in out
    assert f"{derived.closeness_after(trace, cat):+.3f}" in out


def test_an_older_trace_without_the_update_loads_and_says_so(trace, tmp_path):
    import dataclasses
    older = dataclasses.replace(trace, contributions=None, output_bias=None, updated=None)
    old = AttentionTrace.load(older.save(tmp_path / "old.npz"))
    assert not old.has_update
    assert "not in this trace" in report.update_lines(old)[0]


def _write(path, arrays):
    import io
    with zipfile.ZipFile(path, "w") as zf:
        for name, array in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, array, allow_pickle=False)
            zf.writestr(name + ".npy", buf.getvalue())


def test_the_update_beat_of_an_older_trace_says_what_it_lacks(trace, tmp_path):
    """From a trace without the update the beat still draws (a note says what the trace
    lacks) instead of failing."""
    import dataclasses

    from tests.conftest import run_warm
    older = dataclasses.replace(trace, contributions=None, output_bias=None, updated=None)
    path = older.save(tmp_path / "old.npz")
    proc = run_warm("frames", "--trace", path, "--beat", "update", "--at", "key",
                       "--resolution", "160x90", "--fps", "5", "--out", tmp_path / "f")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "f" / "update-key.png").is_file()
