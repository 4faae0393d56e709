"""The question the film opens on, the head chosen to answer it, and the answer it closes on:
the question's kind from the sentence (a pronoun, a verb, another word), the pronoun's head
chosen over every layer for its weight on the nouns it may stand for, and the screen and
`inspect` saying why; the answer and "weight is not influence" only where the numbers show
it. Renders are tiny (160x90, 5 fps)."""
from __future__ import annotations

import numpy as np
import pytest

from attention_explainer.attention_core import compute_trace, derived
from tests.conftest import assert_numbers_rederive
from tests.test_beats import render_tiny

PRONOUNS = {
    "The lawyer questioned the witness because she was lying": ("she", {"lawyer", "witness"}),
    "The animal didn't cross the street because it was too tired": ("it", {"animal", "street"}),
}


def drawn_lines(scene) -> list[str]:
    """The texts of every line of words on screen (our wording and the user's together)."""
    from attention_explainer.scenes.vocabulary.text import TextLine
    return [m.original_text for top in scene.mobjects for m in top.get_family()
            if isinstance(m, TextLine)]


@pytest.mark.parametrize("sentence", list(PRONOUNS))
def test_a_pronoun_is_explained_by_the_head_that_looks_at_the_nouns(sentence, run_cli, tmp_path):
    pronoun, nouns = PRONOUNS[sentence]
    trace = compute_trace(sentence, focus=pronoun)
    asked = derived.question(trace)
    assert asked["kind"] == "pronoun"
    assert {trace.tokens[j] for j in asked["targets"]} == nouns     # the nouns before it
    f, slot = trace.focus_index, trace.primary_slot
    row = trace.weights[slot, f]
    # the chosen head's largest weight from the pronoun goes to one of those nouns ...
    assert trace.tokens[int(np.argmax(row))] in nouns
    # ... and it is the head, of all 72, whose weight on them is largest
    assert trace.meta["heads_compared"] == 72
    best = max(compute_trace(sentence, focus=pronoun, layer=layer, heads="all")
               .weights[:, f][:, asked["targets"]].sum(-1).max() for layer in range(6))
    assert derived.target_weight(trace, slot) == pytest.approx(float(best), abs=1e-6)
    # inspect says why, in one line
    code, out, err = run_cli("inspect", sentence, "--focus", pronoun)
    assert code == 0, err
    why = next(line for line in out.splitlines() if line.startswith("why"))
    assert f"head {trace.primary_head} " in why and "chosen, the best of 72 heads" in why
    assert f"{derived.target_weight(trace, slot):.2f} of the weight of '{pronoun}'" in why
    assert "nouns before it" in why
    # ... and so does the screen, under the title
    scene = render_tiny(["title"], trace, tmp_path)
    lines = drawn_lines(scene)
    said = [t for t in lines if t.startswith(f"Why head {trace.primary_head}:")]
    assert len(said) == 1 and "of all 72 heads, the best at" in said[0], lines
    # the measure, beside what a head spreading evenly over what it sees would score
    told = " ".join(lines[lines.index(said[0]):lines.index(said[0]) + 2])
    assert f": {derived.target_weight(trace, slot):.2f} (an even spread: " \
           f"{derived.uniform_target_weight(trace):.2f})" in told
    assert derived.uniform_target_weight(trace) < derived.target_weight(trace, slot)
    assert any(t.startswith("Which noun does") and all(n in t for n in nouns) for t in lines)
    assert_numbers_rederive(trace, scene.shown_numbers)


@pytest.mark.parametrize("sentence, focus, kind", [
    ("The cat ate the fish", None, "verb"),
    # MiniLM reads 猫, 吃, 条 and 鱼 as [UNK]: no content word it reads is left to answer,
    # so the question is where the word looks among those it reads
    ("小猫吃了一条鱼", None, "open"),
    ("We saw her duck", "We", "word"),           # a pronoun with no noun before it
    # a noun asks what is said of it; an adjective which noun it describes; a number what
    # it counts (issue 35: a question for every word class the tagger knows)
    ("The chef who trained in Paris cooked a wonderful meal", "meal", "noun"),
    ("The small cat ate three fish", "small", "adjective"),
    ("The small cat ate three fish", "three", "number"),
    ("Le chat a mangé le poisson", "chat", "word"),   # no tagger for French: said so
])
def test_the_question_follows_the_focus_word(sentence, focus, kind):
    trace = compute_trace(sentence, focus=focus)
    asked = derived.question(trace)
    assert asked["kind"] == kind
    targets = {trace.tokens[j] for j in asked["targets"]}
    if kind == "verb":
        assert targets == {"cat", "fish"}
    if kind in ("adjective", "number"):
        assert targets == {"cat", "fish"}
    if kind == "noun":
        assert targets == {"trained", "cooked", "wonderful"}
    assert trace.focus_index not in derived.question_targets(trace)
    from attention_explainer.scenes.film import question
    from attention_explainer.scenes.film.readouts import NumberBook
    said = question.plain(question.question(trace))
    opening = {"adjective": "Which noun does ‘small’ describe: ‘cat’ or ‘fish’?",
               "number": "What does ‘three’ count: ‘cat’ or ‘fish’?",
               "noun": "What does the sentence say of ‘meal’?"}
    if kind in opening:
        assert said == opening[kind]
    # a plain question, in plain words: no tool's jargon for why it is plain (issue 57)
    from attention_explainer.attention_core.grammar import UNTAGGED
    assert UNTAGGED not in said and "word class" not in said
    assert question.plain(question.why(NumberBook(trace), trace))      # the why line is drawn


@pytest.mark.slow
def test_the_update_beat_closes_on_the_answer(tmp_path):
    """The answer card after the update's picture: the question again, the followed head's
    weights on the words that may answer, their shares of the update; and weight is not
    influence where a token takes much weight and adds little. Then the film ends on the
    answer drawn (issue 57): the question, the sentence with the answer's weights, and the
    answer's line, said again as the last caption."""
    from attention_explainer.scenes.film import question

    trace = compute_trace("The lawyer questioned the witness because she was lying",
                          focus="she")
    scene = render_tiny(["update"], trace, tmp_path)
    said = [c.content for c in scene.renderer.file_writer.subcaptions]
    answer = f"The answer of layer {trace.layer}, head {trace.primary_head}:"
    assert any(t.startswith(answer) for t in said)
    assert any(t.startswith("Of what the layer adds to it") for t in said)
    assert said[-2].startswith("[CLS] takes") and said[-2].endswith("weight is not influence")
    assert said[-1].startswith(answer)
    assert scene.key_times["update"] < scene.beat_times["update"][1] - 4.0   # the card follows
    # ... and the film ends on the answer drawn: the question above, the answer's line under
    asked = question.plain(question.question(trace))
    lines = drawn_lines(scene)
    assert len(lines) <= 4 and lines[0] == asked and lines[-1].startswith(answer), lines
    assert_numbers_rederive(trace, scene.shown_numbers)
    # the rule, not the sentence: [CLS]'s mean weight over all heads and its share of ΔE
    cls = trace.tokens.index("[CLS]")
    mean = float(trace.focus_weights_all[:, cls].mean())
    assert mean - derived.update_share(trace, cls) >= question.INFLUENCE_GAP


def test_the_focus_rows_of_every_head_are_the_models():
    """focus_weights_all holds the focus row of every head of the layer (all of them shown
    here, so each must be the trace's own row), and a row that is not is refused."""
    import dataclasses

    t = compute_trace("The cat ate the fish", heads="all")
    assert t.focus_weights_all.shape == (12, t.num_tokens)
    np.testing.assert_allclose(t.focus_weights_all, t.weights[:, t.focus_index], atol=1e-6)
    bad = t.focus_weights_all.copy()
    bad[0, 0] += 0.5
    with pytest.raises(Exception, match="focus_weights_all"):
        dataclasses.replace(t, focus_weights_all=bad).validate()


def test_the_heads_beat_says_what_the_next_best_head_does(tmp_path):
    """The runner-up, in the film's words: the answering word it weighs most."""
    trace = compute_trace("The lawyer questioned the witness because she was lying",
                          focus="she")
    scene = render_tiny(["heads"], trace, tmp_path)
    said = [c.content for c in scene.renderer.file_writer.subcaptions
            if "the next best" in c.content]
    row = trace.weights[1, trace.focus_index]
    assert said == [f"Head {trace.heads[1]}, the next best at sending weight from ‘she’ to the "
                    "nouns before it: of them it gives the most to ‘lawyer’"]
    assert row[trace.tokens.index("lawyer")] > row[trace.tokens.index("witness")]
    assert_numbers_rederive(trace, scene.shown_numbers)
