"""Weights are drawn rounded with their row (largest remainder), so the numbers on screen
add up to the total on screen; ties are named as ties; the trace keeps its numbers."""
from __future__ import annotations

import numpy as np
import pytest

from attention_explainer.attention_core.derived import lookup, shown_kind, shown_row
from attention_explainer.scenes.film.readouts import NumberBook, format_number
from tests.conftest import synthetic_trace


def test_the_default_row_that_read_099_now_reads_100():
    # the default sentence's focus row, entry by entry: 0.15+0.02+0.37+0.03+0.02+0.38+0.02
    row = np.array([0.1525, 0.0228, 0.3714, 0.0262, 0.0234, 0.3819, 0.0218])
    row = row / row.sum()
    assert round(sum(round(float(w), 2) for w in row), 2) == 0.99     # rounded one by one
    shown = shown_row(row, 2)
    assert round(float(shown.sum()), 10) == 1.0
    assert np.all(np.abs(shown - row) < 0.01)                         # each within a unit


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("decimals", [1, 2, 3])
def test_any_softmax_row_drawn_whole_makes_exactly_one(seed, decimals):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    scores = rng.normal(scale=float(rng.choice([0.1, 1.0, 5.0])), size=n)
    row = np.exp(scores - scores.max())
    row /= row.sum()
    shown = shown_row(row, decimals)
    unit = 10 ** decimals
    assert int(round(float(shown.sum()) * unit)) == unit
    assert np.all(np.abs(shown - row) < 1.0 / unit + 1e-12)
    # the ordinary rounding is kept wherever it already adds up
    plain = np.round(row * unit)
    if int(plain.sum()) == unit:
        assert np.array_equal(np.round(shown * unit), plain)


def test_a_masked_row_keeps_its_zeros():
    row = np.array([0.5, 0.0, 0.25, 0.25, 0.0])
    assert shown_row(row, 2).tolist() == [0.5, 0.0, 0.25, 0.25, 0.0]
    thirds = np.array([1 / 3, 1 / 3, 1 / 3, 0.0])
    shown = shown_row(thirds, 2)
    assert shown[3] == 0.0 and round(float(shown.sum()), 10) == 1.0
    assert sorted(np.round(shown * 100).astype(int).tolist()) == [0, 33, 33, 34]


def test_the_book_draws_weights_rounded_with_their_row_and_the_test_rederives_them():
    trace = synthetic_trace(words=tuple("abcdefghij"), focus=4, seed=3)
    book = NumberBook(trace)
    h, i = trace.primary_slot, trace.focus_index
    texts = [book.text("weights", (h, i, j), 2) for j in range(trace.num_tokens)]
    assert sum(round(float(t) * 100) for t in texts) == 100
    total = book.text("weight_sum", (h, i), 2)
    assert total == "1.00"
    listed = (0, 3, 5)
    rest = book.text("weight_rest", (h, i, *listed), 2)
    assert round(float(rest) * 100) + sum(round(float(texts[j]) * 100) for j in listed) == 100
    for n in book.shown:     # what the suite's re-derivation does with every drawn number
        assert format_number(lookup(trace, n.kind, n.index), n.decimals, n.signed) == n.text
    # the trace itself is untouched, and a value (sizes, order) is the model's own
    assert book.value("weights", (h, i, 0)) == float(trace.weights[h, i, 0])


def test_only_rows_of_weights_are_rounded_as_rows():
    assert shown_kind("qk_dot", (0, 1, 2), 1) == ("qk_dot", (0, 1, 2))
    assert shown_kind("weights", (0, 1, 2), 2) == ("shown_weights", (0, 1, 2, 2))
    assert shown_kind("weight_rest", (0, 1, 4, 5), 2) == ("shown_weight_rest", (0, 1, 2, 4, 5))


def test_ties_are_named_as_ties():
    from attention_explainer.scenes.film.views import ranked_groups, tied
    texts = {1: "+25", 2: "+9", 4: "+25", 5: "+3"}
    values = {1: 25.2, 2: 9.0, 4: 24.8, 5: 3.0}
    groups = ranked_groups(texts, values)
    assert groups[0] == [1, 4] and groups[1] == [2]
    assert tied(["cat", "fish"]) == "cat and fish"
    assert tied(["a", "b", "c"]) == "a, b and c"
    assert tied(list("abcd")) == "4 words"


def test_the_corpus_check_finds_a_row_that_does_not_add_up():
    from attention_explainer.scenes.film.readouts import ShownNumber
    from tests.layout_corpus import sum_faults
    trace = synthetic_trace(words=("a", "b"), focus=1)          # 4 tokens
    row = [ShownNumber("softmax", "shown_weights", (0, 2, j, 2), 2, False, t)
           for j, t in enumerate(["0.15", "0.02", "0.80", "0.02"])]
    assert sum_faults(trace, row) == ["softmax: shown_weights row 0,2 drawn whole sums "
                                      "to 99 / 100"]
    listed = [ShownNumber("pull", "shown_weights", (0, 2, j, 2), 2, False, t)
              for j, t in ((0, "0.15"), (1, "0.02"))]
    listed.append(ShownNumber("pull", "shown_weight_rest", (0, 2, 2, 0, 1), 2, False, "0.82"))
    assert sum_faults(trace, listed) == ["pull: listed weights and the rest make 99 / 100"]
