"""The film ends on its answer drawn (issue 57): the sentence's window with the focus's arcs
and the answer's weights under its words, the answer's line said as the last caption; every
word the answer names is drawn or said to lie outside the window, a rule of the claims
audit that fails on a planted fault; the window keeps the answer's words and says its rule."""
from __future__ import annotations

import dataclasses

import pytest

from attention_explainer.attention_core import compute_trace
from attention_explainer.attention_core.word_model import WordModel
from attention_explainer.scenes.film.claims import claim_faults, named_not_drawn
from attention_explainer.scenes.film.question import answer_named
from attention_explainer.scenes.film.views import WINDOW_RULE, drawn_words, outside_the_window
from tests.test_beats import render_tiny

# a long sentence whose answer names words in many pieces (MiniLM reads Cyrillic letter
# by letter): some lie outside the window; and one whose answer's words all fit
OUTSIDE = "Кошка съела рыбу, потому что она была голодна."
INSIDE = "Der Hund, den ich gestern im Park sah, bellte laut."


@pytest.fixture(scope="module")
def traces():
    return {s: compute_trace(s) for s in (OUTSIDE, INSIDE)}


def test_the_window_keeps_the_answers_words_where_they_fit(traces):
    trace = traces[INSIDE]
    words = WordModel.of_trace(trace)
    assert len(drawn_words(trace)) < len(words)             # a window
    named = {words.index_of(span[0]) for span, _ in answer_named(trace)}
    assert named <= set(drawn_words(trace))
    assert outside_the_window(trace, answer_named(trace)) == []
    assert "the words named" in WINDOW_RULE


def test_the_last_picture_shows_the_answer_and_its_caption_is_last(traces, tmp_path):
    trace = traces[OUTSIDE]
    scene = render_tiny(["update"], trace, tmp_path)
    claims = scene.book.claims
    outside = outside_the_window(trace, answer_named(trace))
    assert outside, "the Cyrillic answer's words do not all fit the window"
    said = [c for c in claims if c.kind == "outside"]
    assert said and all(t in said[0].said for t in outside)
    assert claim_faults(trace, claims) == []
    assert scene.layout_log == [] and scene.findings == []
    # the last caption is the answer's line, on screen until the film ends
    last = scene.renderer.file_writer.subcaptions[-1]
    assert last.content.startswith("The answer of layer")
    assert abs(last.end.total_seconds() - scene.renderer.time) <= 1 / 5 + 1e-6   # a frame
    # the answer's weights are drawn, in the digits the answer says
    texts = {m.original_text for m in scene.mobjects for m in m.get_family()
             if hasattr(m, "original_text")}
    for span, _ in answer_named(trace):
        if WordModel.of_trace(trace).index_of(span[0]) in drawn_words(trace):
            row = trace.weights[trace.primary_slot, trace.focus_index]
            weight = f"{row[span[0]:span[1] + 1].sum():.2f}"
            assert weight in texts and weight in last.content


def test_a_named_word_neither_drawn_nor_said_outside_is_a_fault(traces, tmp_path):
    trace = traces[OUTSIDE]
    scene = render_tiny(["update"], trace, tmp_path, audit=False)
    claims = scene.book.claims
    assert named_not_drawn(trace, claims) == []
    without = [c for c in claims if c.kind != "outside"]          # the note planted away
    faults = named_not_drawn(trace, without)
    assert faults and "neither drawn nor said" in faults[0]
    # and a note that calls a drawn word outside is a fault too
    drawn_span = WordModel.of_trace(trace).words[drawn_words(trace)[1]].span
    lying = [dataclasses.replace(c, facts=(drawn_span,)) if c.kind == "outside" else c
             for c in claims]
    assert any("says a drawn word" in f for f in claim_faults(trace, lying))
