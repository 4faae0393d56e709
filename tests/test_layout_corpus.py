"""The layout audit over the stress corpus (tests/layout_corpus.py): every beat of the film
of every sentence — at the middle and end of every play, at 1080p, drawn on the scene graph
without frames — has everything inside the frame, no text over text or over a shape it
does not label, nothing gone and back within a second, every text legible, and its drawn
weights add up as drawn, and every claim in words re-derives from the numbers (the claims
audit). A failure names the sentence, beat, time and the objects."""
from __future__ import annotations

import pytest

from attention_explainer.facts import FILM_BEATS, TRACE_BEATS
from attention_explainer.scenes.film.claims import (claim_faults, pieces_named_as_words,
                                                    words_not_written)
from tests.layout_corpus import CORPUS, audit_film, sum_faults


# Faults the audit finds that are not fixed yet (issue 20 says what is left), by sentence:
# (beat, problem). Each must still be found — a fixed one is taken off this list — and
# nothing else may be.
KNOWN_OPEN: dict[str, set[tuple[str, str]]] = {
    # sentence: {(beat, problem)} for a fault seen and not yet fixed. The q/k view of a
    # crowded sentence of one-letter tokens (kana, Arabic and Hebrew letters in pieces)
    # leaves a word touching an arrow it does not label: the embedding view's words ride
    # the plane as W_Q stretches and turns it, and keep their place on the arrows that
    # land (issue 35's note: the placement of a carried, crowded view)
    "猫が魚を食べた": {("embed", "text over shape")},
    "القط الصغير أكل السمكة": {("project", "text over shape")},
    "החתול הקטן אכל את הדג": {("embed", "text over shape"), ("project", "text over shape")},
}


# the optional position beat is audited on the sentences that stress it (the default, a CJK
# one, the scratch model's sines, the longest): the others draw the default film
POSITION_TOO = {"The cat ate the fish", "小猫吃了一条鱼", "We saw her duck"} | \
    {max((s for s, _, _ in CORPUS), key=len)}


@pytest.mark.parametrize("sentence, options, theme", CORPUS,
                         ids=[f"{n:02d}-{s[:24]}" for n, (s, _, _) in enumerate(CORPUS)])
def test_the_layout_holds_on_every_sentence(sentence, options, theme, tmp_path):
    beats = TRACE_BEATS if sentence in POSITION_TOO else FILM_BEATS
    scene = audit_film(sentence, options, theme, tmp_path, beats=list(beats))
    known = KNOWN_OPEN.get(sentence, set())
    found_known = {(beat, problem) for beat, problem, _ in scene.layout_log} & known
    assert found_known == known, f"fixed: take {known - found_known} off KNOWN_OPEN"
    faults = [f for f in scene.layout_log if (f[0], f[1]) not in known]
    shown = "\n".join(f"{beat} at {detail[0]} s ({detail[1]}): {problem}: {detail[2]}"
                      for beat, problem, detail in faults[:20])
    assert not faults, f"{sentence!r} {options} {theme}: {len(faults)} faults\n{shown}"
    # every text legible (capitals of 28 px or more at 1080p), none morphed into another
    small = "\n".join(f"{beat}: {problem}: {detail}" for beat, problem, detail
                      in scene.audit_log[:20])
    assert not scene.audit_log, f"{sentence!r}: {len(scene.audit_log)} faults\n{small}"
    # the numbers drawn add up as drawn (rows rounded as a whole)
    sums = sum_faults(scene.trace, scene.shown_numbers)
    assert not sums, f"{sentence!r}: " + "; ".join(sums[:10])
    # every claim in words (the most, the order, what adds up) re-derives from the trace
    claims = claim_faults(scene.trace, scene.book.claims)
    assert scene.book.claims and not claims, f"{sentence!r}: " + "; ".join(claims[:10])
    # no caption quotes a piece of a word as if it were the word
    said = [c.content for c in scene.renderer.file_writer.subcaptions]
    pieces = pieces_named_as_words(scene.trace, said)
    assert said and not pieces, f"{sentence!r}: " + "; ".join(pieces[:5])
    # ... and every word it names is a word of the sentence as written (Unicode's words)
    unwritten = words_not_written(scene.trace, said)
    assert not unwritten, f"{sentence!r}: " + "; ".join(unwritten[:5])
