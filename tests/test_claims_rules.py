"""The claims audit's rules that read what is drawn and when (issue 57): one value per number,
the window and its label, captions in step, and "the most" of the drawn words judged
against every word. Each holds on a real film's records and fails on a planted fault."""
from __future__ import annotations

import numpy as np
import pytest

from attention_explainer.attention_core import compute_trace
from attention_explainer.attention_core.derived import lookup, shown_kind
from attention_explainer.attention_core.word_model import WordModel
from attention_explainer.scenes.film.claims import (captions_out_of_step, claim_faults,
                                                    one_value_per_number, window_faults)
from attention_explainer.scenes.film.readouts import Claim, NumberBook, ShownNumber
from attention_explainer.scenes.film.views import drawn_indices, legible_count, window_label

# long enough for a window; words in pieces beside words of one token
SENTENCE = "Yesterday the tired gardener watered seventeen sunflowers behind the old greenhouse"


@pytest.fixture(scope="module")
def trace():
    return compute_trace(SENTENCE)


def _book_numbers(trace):
    """A word's weight printed the ways the film prints it: as a token entry of its row, as
    a word of its row of words, in two beats."""
    book = NumberBook(trace)
    words = WordModel.of_trace(trace)
    s, f = trace.primary_slot, trace.focus_index
    for beat in ("softmax", "pull"):
        book.beat = beat
        for w in words.words:
            book.text("word_weight", (s, f, *w.span), 2)
            if not w.split:
                book.text("weights", (s, f, w.first), 2)
    return book.shown


def test_a_weight_prints_the_same_digits_as_a_token_and_as_a_word(trace):
    shown = _book_numbers(trace)
    assert one_value_per_number(trace, shown) == []
    # rounding each way on its own (tokens as a row, words as a row) disagreed somewhere:
    # the rule finds a planted disagreement
    first = next(n for n in shown if n.kind == "shown_weights")
    other = "0.99" if first.text != "0.99" else "0.98"
    planted = [*shown, ShownNumber("ending", first.kind, first.index, first.decimals, False,
                                   other)]
    faults = one_value_per_number(trace, planted)
    assert len(faults) == 1 and "one weight printed as" in faults[0]


def test_the_rounding_by_words_keeps_every_row_whole_and_every_word_its_pieces(trace):
    words = WordModel.of_trace(trace)
    for h in range(len(trace.heads)):
        for i in range(trace.num_tokens):
            tokens = [lookup(trace, *shown_kind("weights", (h, i, j), 2))
                      for j in range(trace.num_tokens)]
            assert round(sum(tokens), 6) == 1.0
            for w in words.words:
                word = lookup(trace, *shown_kind("word_weight", (h, i, *w.span), 2))
                assert abs(sum(tokens[j] for j in w.pieces) - word) < 1e-9
                true = float(trace.weights[h, i, w.first:w.last + 1].sum())
                assert abs(word - true) < 0.01 + 1e-9       # within a unit of its decimal


def test_a_pair_change_is_the_difference_printed():
    a = compute_trace("The doctor called the nurse because she was late")
    b = compute_trace("The doctor called the nurse because he was late")
    book = NumberBook(a, versus=b)
    s = a.primary_slot
    fa, fb = a.focus_index, b.focus_index
    index = (s, fa, 1, 1, fb, 1, 1)
    book.text("word_weight", (s, fa, 1, 1), 2)
    book.text("versus:word_weight", (s, fb, 1, 1), 2)
    book.text("pair:change", index, 2, True)
    assert one_value_per_number(a, book.shown) == []
    change = book.shown[-1]
    planted = [*book.shown[:-1], ShownNumber("versus", change.kind, change.index, 2, True,
                                             "+0.50")]
    assert any("is not" in f for f in one_value_per_number(a, planted))


def test_the_window_keeps_its_rule_and_its_label_counts_what_is_drawn(trace):
    drawn, limit = drawn_indices(trace), legible_count(trace)
    assert len(drawn) < trace.num_tokens                    # a window
    label = window_label(trace)
    assert window_faults(trace, drawn, limit, label) == []
    words = WordModel.of_trace(trace)
    heaviest = int(np.argmax(words.sums(trace.weights[trace.primary_slot,
                                                      trace.focus_index])))
    without = [j for j in drawn if j not in words.words[heaviest].pieces]
    assert any("a word of its rule" in f
               for f in window_faults(trace, without, limit + 1, label))
    assert any("label" in f for f in window_faults(trace, drawn, limit, None))
    assert any("label" in f for f in window_faults(trace, drawn, limit,
                                                   label.replace(f"{len(drawn)} of", "3 of")))
    cut = [j for j in drawn if j != next(j for w in words.words if w.split
                                         for j in w.pieces[1:] if j in drawn)]
    assert any("cuts a word" in f for f in window_faults(trace, cut, limit, label))


def test_captions_in_step():
    spans = [(0.0, 4.0), (4.0, 9.0)]
    good = [(0.5, 3.5, "The title"), (4.0, 8.9, "The weights")]
    assert captions_out_of_step(good, spans, 9.0, 0.5) == []
    past = [(0.5, 3.5, "The title"), (4.0, 9.75, "The weights")]
    assert any("after the film" in f for f in captions_out_of_step(past, spans, 9.0, 0.5))
    across = [(0.5, 4.5, "The title"), (4.5, 8.9, "The weights")]
    assert any("chapter mark" in f for f in captions_out_of_step(across, spans, 9.0, 0.5))
    early = [(0.0, 3.5, "The title"), (4.0, 8.9, "The weights")]
    assert any("first picture" in f for f in captions_out_of_step(early, spans, 9.0, 0.5))


def test_the_most_of_the_drawn_words_is_the_most_of_all_or_the_heavier_is_said(trace):
    words = WordModel.of_trace(trace)
    s, f = trace.primary_slot, trace.focus_index
    sums = words.sums(trace.weights[s, f])
    drawn = set(words.words_of(drawn_indices(trace)))
    order = [int(w) for w in np.argsort(-sums, kind="stable")]
    best = order[0]
    assert best in drawn
    claim = Claim("heads", "heaviest", (s, words.words[best].span, "drawn"), "best")
    assert claim_faults(trace, [claim]) == []
    # planted: a claim judged among the drawn words, with a heavier word not drawn (the
    # window as if it had dropped the heaviest word) and not said to lie outside
    from unittest import mock

    second = next(w for w in order[1:] if w in drawn)
    hiding = sorted(drawn - {best})
    with mock.patch("attention_explainer.scenes.film.views.drawn_words",
                    lambda t: hiding):
        lying = Claim("heads", "heaviest", (s, words.words[second].span, "drawn"), "2nd")
        faults = claim_faults(trace, [lying])
        assert faults and "outside the window, unsaid" in faults[0]
        said = Claim("heads", "outside", (words.words[best].span,), "outside")
        assert claim_faults(trace, [lying, said]) == []
