"""The film's last picture: its answer drawn. The question at the top; the sentence (the
window's words) with the focus's arcs to every word, each as bold as the followed head's
weight on it (a word: the sum of its pieces); the answer's weights under its words in the
digits the answer says; the answer's line under the arcs, said again so that its caption is
on screen while the picture is held. A word the answer names that the window leaves out is
said to lie outside it (a claim the audit checks: ``claims.named_not_drawn``)."""
from __future__ import annotations

import numpy as np
from manim import DOWN, UP, Create, FadeIn, FadeOut, LaggedStart, VGroup

from ...attention_core.word_model import WordModel
from ..vocabulary import stage, style
from ..vocabulary.sparks import strength_arc
from ..vocabulary.text import label_text
from . import question as asking
from .beat import Role
from .views import outside_the_window, token_row

__all__ = ["the_answer_drawn"]

ARC_SAG = 1.3             # the arcs hang at most this far under the words
LINE_HALF = 0.3           # half a beat line's height: the question's first line sits there


def the_answer_drawn(beat, card, answer_parts) -> None:
    """The film ends on its answer drawn: the question at the top, the sentence (the
    window's words) with the focus's arcs to every word as bold as the followed head's
    weight on it (a word: the sum of its pieces), the answer's weights written under its
    words, and the answer's line under the arcs, said again so its caption is on
    screen while the picture is held. A word the answer names that the window leaves
    out is said to lie outside it."""
    trace, pal = beat.trace, style.PALETTE
    words = WordModel.of_trace(trace)
    slot, f = trace.primary_slot, trace.focus_index
    named = asking.answer_named(trace)
    # the question in the beat line's place, left of the corner map
    asked = asking.lines(asking.question(trace), stage.LINE_WIDTH, style.FONT_BODY,
                         pal.soft)
    asked.shift([stage.LINE_LEFT[0] - asked.get_left()[0],
                 stage.LINE_LEFT[1] + LINE_HALF - asked.get_top()[1], 0])
    row = token_row(trace, max_width=stage.TEXT_WIDTH).move_to(UP * 1.2)
    first, last = trace.focus_span      # the focus as asked: a word, or a piece of one
    for j in range(first, last + 1):
        chip = row.chip(j)
        if chip is not None:
            chip.set_role_color(pal.query)
    # the answer's weights, under its words, in the digits the answer line says
    weights = VGroup()
    for span, _ in named:
        chips = [row.chip(j) for j in range(span[0], span[1] + 1) if row.chip(j)]
        if not chips:
            continue
        weight = label_text(asking.word_weight(beat.book, trace, span), style.FONT_SMALL)
        weight.next_to(VGroup(*chips), DOWN, buff=0.14)
        weights.add(weight)
    low = min([row.chips.get_bottom()[1], *(w.get_bottom()[1] for w in weights)]) - 0.08
    sums = words.sums(trace.weights[slot, f].astype(np.float64))
    drawn = [w for w in words.words_of(row.indices)]
    heaviest = max(float(sums[w]) for w in drawn) or 1.0
    own = words.index_of(f)
    start = np.array([_centre_x(row, range(first, last + 1)), low, 0])
    arcs = VGroup()
    for w in drawn:
        end = np.array([_centre_x(row, words.words[w].pieces), low, 0])
        arcs.add(strength_arc(start, end, float(sums[w]) / heaviest, sag=ARC_SAG,
                              own=w == own))
    below = VGroup(arcs, weights)
    notes = []
    if row.window_note is not None:     # placed under the arcs, on its own
        row.remove(row.window_note)
        notes.append(row.window_note)
    outside = outside_the_window(trace, named)
    if outside:
        said = (f"{', '.join(outside)} "
                f"{'lies' if len(outside) == 1 else 'lie'} outside the words drawn")
        notes.append(label_text(said, style.FONT_SMALL, pal.dim))
        beat.book.claim("outside", tuple(
            span for span, text in named
            if words.index_of(span[0]) not in set(drawn)), said)
    for note in notes:
        note.next_to(below, DOWN, buff=0.2)
        below = VGroup(below, note)
    answer = asking.lines(answer_parts, stage.TEXT_WIDTH, style.FONT_LABEL)
    answer.move_to([0, stage.BOTTOM_EDGE + answer.height / 2 + 0.1, 0])
    # the sentence and its arcs in the middle of what the question and answer leave
    middle = (asked.get_bottom()[1] + answer.get_top()[1]) / 2
    VGroup(row, below).shift(UP * (middle - VGroup(row, below).get_center()[1]))
    heading = beat.roles.get(Role.LINE)
    # once the card is read: the card and the heading give way as the sentence comes
    # back (in one cross-fade: two fades in turn pass through a black frame)
    beat.wait(max(0.0, beat.film.caption_free_at - beat.film.renderer.time))
    beat.say(asking.plain(answer_parts))
    beat.play(FadeOut(card), *([FadeOut(heading)] if heading is not None else []),
              FadeIn(asked), FadeIn(row), *[FadeIn(n) for n in notes],
              run_time=style.T_STEP)
    beat.play(LaggedStart(*[Create(a) for a in arcs], lag_ratio=style.LAG_ARCS_MANY),
              FadeIn(weights, scale=1.2), FadeIn(answer, shift=UP * 0.15),
              run_time=style.T_BUILD)
    beat.roles[Role.ROW] = row          # a beat after the answer takes the sentence on


def _centre_x(row, pieces) -> float:
    """The middle of a word's drawn chips in ``row`` (a word is drawn whole or not at all)."""
    xs = [row.chip(j).get_x() for j in pieces if row.chip(j) is not None]
    return float(np.mean(xs))
