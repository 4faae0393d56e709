"""Minimal pairs (issue 42): `compare`'s numbers re-derived here from two traces of the same
model, layer, heads and focus word; its refusals; the versus beat's every number re-derived
and its layout audited on pairs in other scripts, with a pronoun and of 15 tokens and more."""
from __future__ import annotations

import json

import numpy as np
import pytest

PAIR = ("The cat ate the fish", "The fish ate the cat")


def test_compare_is_two_traces_on_one_head_words_matched_by_what_they_say(run_cli):
    import attention_explainer as ae

    code, out, err = run_cli("compare", *PAIR, "--json")
    assert code == 0, err
    doc = json.loads(out)
    a = ae.trace(PAIR[0])
    b = ae.trace(PAIR[1], layer=a.layer, heads=list(a.heads), focus="ate")
    assert (doc["layer"], doc["heads"], doc["focus"]) == (a.layer, list(a.heads), "ate")

    def weight(trace, word, slot):         # the word's tokens, found by their text here
        hits = [j for j, t in enumerate(trace.display_tokens) if t.lower() == word.lower()]
        return float(trace.weights[slot, trace.focus_index, hits].sum()) if hits else None
    for row in doc["words"]:
        if row["word"].lower() == "the":
            continue                     # two of them: matched by their order, checked below
        for slot in range(len(a.heads)):
            assert row["weight_a"][slot] == pytest.approx(weight(a, row["word"], slot), abs=1e-6)
            assert row["weight_b"][slot] == pytest.approx(weight(b, row["word"], slot), abs=1e-6)
            assert row["change"][slot] == pytest.approx(row["weight_b"][slot]
                                                        - row["weight_a"][slot], abs=1e-9)
    the = [r for r in doc["words"] if r["word"].lower() == "the"]
    assert [r["weight_a"][0] for r in the] == pytest.approx(
        [float(a.weights[0, a.focus_index, j]) for j in (1, 4)], abs=1e-6)
    # a swap draws each word to itself: 'cat' is token 2 in A and token 5 in B
    cat = next(r for r in doc["words"] if r["word"] == "cat")
    assert cat["weight_b"][0] == pytest.approx(float(b.weights[0, b.focus_index, 5]), abs=1e-6)
    assert "cat" in doc["summary"]


@pytest.mark.parametrize("pair, said", [
    (("The cat ate the fish", "Dogs bark loudly"), "not in sentence B"),
    (("The cat ate the fish", "ate ate ate"), "share no word"),
])
def test_a_pair_that_cannot_be_compared_is_refused_in_one_line(pair, said, run_cli):
    code, out, err = run_cli("compare", *pair)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err


def test_a_focus_word_cut_into_other_tokens_in_b_is_refused(tmp_path, run_cli):
    from tests import tiny_models

    folder = tiny_models.build("gpt2", tmp_path / "gpt2")      # a cased tokenizer
    code, out, err = run_cli("compare", "The cat sat on the mat", "THE cat sat on the mat",
                             "--model", folder, "--focus", "The")
    assert code == 2 and "different tokens" in err, err


PAIRS = [PAIR,
         ("她把书放在桌子上", "她把笔放在桌子上"),
         ("The trophy did not fit in the suitcase because it was too big",
          "The trophy did not fit in the suitcase because it was too small"),
         ("مرحبا بك في المدينة الجميلة", "مرحبا بك في القرية الجميلة"),
         ("The old lawyer who questioned the quiet witness yesterday said that she was lying",
          "The young lawyer who questioned the quiet witness yesterday said that he was lying")]


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=[p[0][:16] for p in PAIRS])
def test_the_versus_beat_draws_every_number_from_the_two_traces_and_holds_its_layout(
        pair, tmp_path):
    from tests.layout_corpus import audit_film

    options = {"focus": "it"} if "trophy" in pair[0] else {}       # a pronoun's question
    scene = audit_film(pair[0], options, "3b1b", tmp_path,
                       beats=["title", "versus"], versus=pair[1])
    assert not scene.layout_log, scene.layout_log[:5]
    assert not scene.audit_log, scene.audit_log[:5]
    a, b = scene.trace, scene.versus
    drawn = [n for n in scene.shown_numbers if n.beat == "versus"]
    assert drawn

    def word_weight(trace, index):
        s, f, first, last = index[:4]
        return float(trace.weights[s, f, first:last + 1].astype(np.float64).sum())
    checked = 0
    for n in drawn:
        # a word's weight is drawn rounded with its row of words (within a unit of its
        # last decimal); a change as the difference of the two drawn above it
        unit = 10 ** -n.decimals
        if n.kind == "shown_word_weight":
            value, within = word_weight(a, n.index), unit
        elif n.kind == "versus:shown_word_weight":
            value, within = word_weight(b, n.index), unit
        elif n.kind == "shown_pair:change":
            value = word_weight(b, (n.index[0], *n.index[4:7])) - word_weight(a, n.index[:4])
            within = 2 * unit
            drawn_a = {m.index: m.text for m in drawn if m.kind == "shown_word_weight"}
            drawn_b = {m.index: m.text for m in drawn
                       if m.kind == "versus:shown_word_weight"}
            a_at, b_at = (*n.index[:4], n.decimals), (n.index[0], *n.index[4:])
            if a_at in drawn_a and b_at in drawn_b:     # the change of what is drawn
                made = float(drawn_b[b_at].replace("\u2212", "-")) \
                    - float(drawn_a[a_at].replace("\u2212", "-"))
                assert abs(float(n.text.replace("\u2212", "-")) - made) < 1e-9, n
        else:
            continue
        checked += 1
        shown = float(n.text.replace("\u2212", "-"))
        assert abs(shown - value) <= within + 1e-9, (n, value)
    assert checked
    said = " ".join(c.content for c in scene.renderer.file_writer.subcaptions)
    assert "From A to B" in said or "reads both sentences alike" in said
