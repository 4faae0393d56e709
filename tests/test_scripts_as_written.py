"""Every script as it is written (issue 35): a right-to-left sentence's strip reads from
the right, its words in pieces drawn joined as Pango shapes them whole; labels of scripts
not read turned stand upright; captions isolate right-to-left words for a player's bidi;
and the audit's checks of craft (scenes/film/craft.py) each fail on a planted fault."""
from __future__ import annotations

import numpy as np
import pytest
from manim import DOWN, LEFT, ORIGIN, RIGHT, Arrow, Line, VGroup, config

from attention_explainer.scenes.film import craft
from attention_explainer.scenes.vocabulary import style
from attention_explainer.scenes.vocabulary.scripts import (FSI, PDI, isolated, may_turn,
                                                           reads_right_to_left)
from attention_explainer.scenes.vocabulary.text import label_text, user_text_mobject
from tests.test_layout_audit import scene  # noqa: F401  (the audit's small scene)

ARABIC = "القط الصغير أكل السمكة"      # the small cat ate the fish: every word in pieces
HEBREW = "החתול הקטן אכל את הדג"


@pytest.fixture(scope="module")
def arabic_trace():
    from attention_explainer.attention_core import compute_trace
    return compute_trace(ARABIC)


def _glyph_centres(mobs) -> np.ndarray:
    return np.array([g.get_center()[:2] for m in mobs for g in m.get_family()
                     if g.has_points() and not g.submobjects])


def test_an_arabic_strip_reads_from_the_right_and_its_words_are_joined(arabic_trace):
    from attention_explainer.attention_core.word_model import WordModel
    from attention_explainer.scenes.film.views import token_row

    trace = arabic_trace
    row = token_row(trace, indices=range(trace.num_tokens))
    words = [w for w in WordModel.of_trace(trace).words if w.kind == "word"]
    # read from the right, the words come in the sentence's order, each piece after the
    # one before it (logical order runs leftward), and [CLS] stands first, at the right
    centres = [np.mean([row.chip(j).word.get_center()[0] for j in w.pieces]) for w in words]
    assert centres == sorted(centres, reverse=True)
    assert row.chip(0).get_center()[0] > max(centres)
    for w in words:
        xs = [row.chip(j).word.get_center()[0] for j in w.pieces]
        assert xs == sorted(xs, reverse=True), w.text
    # joined: the pieces' glyphs are the glyphs Pango draws for the whole word, in place
    # (the same outlines at the same offsets), not each letter's isolated form
    drawn_text = "".join(trace.display_tokens[j] for j in words[1].pieces)
    whole = user_text_mobject(drawn_text, font_size=row.drawn_size)
    pieces = VGroup(*[row.chip(j).word for j in words[1].pieces])
    a, b = _glyph_centres([whole]), _glyph_centres([pieces])
    a, b = a[np.argsort(a[:, 0])] - a.min(0), b[np.argsort(b[:, 0])] - b.min(0)
    assert a.shape == b.shape and np.allclose(a, b, atol=0.02)
    alone = VGroup(*[user_text_mobject(trace.display_tokens[j], font_size=row.drawn_size)
                     for j in words[1].pieces]).arrange(LEFT, buff=0)
    assert not np.allclose(sorted(m.width for m in alone),
                           sorted(row.chip(j).word.width for j in words[1].pieces), atol=0.01)
    # its pieces are marked under it: a bracket and a mark between each two pieces
    assert len(row.joins) >= len(words) + sum(len(w.pieces) - 1 for w in words)


def test_an_arabic_sentence_s_labels_read_from_the_right_in_every_view(arabic_trace,
                                                                     our_manim):
    """The grids' keys, the softmax bars, the heads' table and the columns of numbers run
    in the strip's order: from the right, so read right to left they spell the sentence;
    each mark (a cell, a dot, a bar) stands under its own word; no Arabic word turns."""
    from attention_explainer.scenes.film.readouts import NumberBook
    from attention_explainer.scenes.film.head_table import head_rows
    from attention_explainer.scenes.film.views import sentence_grid, strip_row
    from attention_explainer.scenes.vocabulary.bars import SoftmaxBars

    trace = arabic_trace
    strip = strip_row(trace)
    grid = sentence_grid(trace)
    drawn = grid.indices
    # the strip's chips, the grid's keys and its cells all run from the right
    chips = [strip.chip(j).word.get_x() for j in drawn]
    keys = [grid.col_labels[c].get_x() for c in range(len(drawn))]
    cells = [grid.cell_center(0, c)[0] for c in range(len(drawn))]
    for xs in (chips, keys, cells):
        assert all(a > b for a, b in zip(xs, xs[1:]))
    assert np.all(np.abs(np.subtract(keys, cells)) < grid.cell / 2)    # over its own column
    assert not any(getattr(m, "turned_by", 0) for c, m in enumerate(grid.col_labels)
                   if not trace.special[drawn[c]])
    # the heads' table: its keys and every row's dots
    table = head_rows(NumberBook(trace))
    keys = [m.get_x() for m in table.labels]
    assert all(a > b for a, b in zip(keys, keys[1:]))
    for dots in table.dots:
        assert np.all(np.abs(np.subtract([d.get_x() for d in dots], keys)) < table.cell / 2)
    # the bars: the first value's bar at the right
    bars = SoftmaxBars([0.5, 0.3, 0.2], [], right_to_left=True)
    xs = [b.get_x() for b in bars.bars]
    assert xs[0] > xs[1] > xs[2]
    # at most two tiers of upright words over any of these grids
    assert max(getattr(m, "tier", 0) for m in grid.col_labels) <= 1 and table.tiers <= 2


def test_the_reading_direction_is_the_first_strong_letter():
    assert reads_right_to_left(["[CLS]"][1:] + [ARABIC])
    assert reads_right_to_left([HEBREW, "cat"])
    assert not reads_right_to_left(["1969", "cat", ARABIC])


def test_labels_of_scripts_not_read_turned_stand_upright(our_manim):
    from attention_explainer.scenes.vocabulary.grid import column_words
    from attention_explainer.scenes.vocabulary.head_rows import HeadRows  # noqa: F401
    from attention_explainer.scenes.vocabulary.tokens import word_row

    assert not may_turn("猫が") and not may_turn("الصغير") and not may_turn("הדג")
    assert may_turn("Straßenbahnhaltestelle") and may_turn("[CLS]") and may_turn("1969")
    narrow = 0.25
    for texts in (["小猫", "吃了", "一条", "鱼"], ["القط", "الصغير", "أكل", "السمكة"]):
        words = column_words(texts, [False] * 4, narrow, style.FONT_LABEL)
        assert not any(turned or getattr(g, "turned_by", 0) for g, turned, _ in words)
        # a word wider than its column stands in a tier of its own, clear of its neighbours
        for (g, _, _), (h, _, _) in zip(words, words[1:]):
            assert g.tier != h.tier
        row, turned = word_row(texts, [False] * 4, [0, narrow, 2 * narrow, 3 * narrow],
                               pitch=narrow, font_size=style.FONT_SMALL, bottom=0)
        assert not turned and not any(getattr(g, "turned_by", 0) for g in row)
    latin = column_words(["questioned", "witness", "because", "lying"], [False] * 4,
                         narrow, style.FONT_LABEL)
    assert all(turned for _, turned, _ in latin)        # Latin turns where nothing else fits


def test_caption_files_isolate_right_to_left_words(tmp_path):
    from types import SimpleNamespace

    from attention_explainer.app.lecture_pack import vtt
    from attention_explainer.scenes.pipeline.join import write_captions

    line = "‘ي’ in ‘الصغير’ 0.10, then ‘הדג’"
    assert isolated(line) == f"‘{FSI}ي{PDI}’ in ‘{FSI}الصغير{PDI}’ 0.10, then ‘{FSI}הדג{PDI}’"
    assert isolated("no right-to-left word") == "no right-to-left word"
    # one beat of 2 s at 5 fps, its hand-off at its end
    segment = SimpleNamespace(captions=[(0.0, 1.0, line), (1.0, 2.0, "plain")], fps=5,
                              frames=10, duration=2.0, handoff_time=2.0)
    write_captions([segment], [0.0], tmp_path / "film.srt")
    written = (tmp_path / "film.srt").read_text(encoding="utf-8")
    for rtl in ("ي", "الصغير", "הדג"):
        assert f"{FSI}{rtl}{PDI}" in written
    assert f"{FSI}الصغير{PDI}" in vtt([(0.0, 1.0, line)])


# ---- the audit's checks of craft, each on a planted fault ---------------------------------
def test_a_word_turned_the_other_way_is_found(scene):
    """Turned words read one way, upward (``style.TURNED``): one turned downward is a fault,
    one turned upward, or upright, is not."""
    import math

    upward = user_text_mobject("witness", font_size=30).rotate(style.TURNED)
    upright = user_text_mobject("lawyer", font_size=30).shift(DOWN * 2)
    scene.add(upward, upright)
    assert craft.turned_the_other_way(scene) == []
    downward = user_text_mobject("because", font_size=30).rotate(-math.pi / 2).shift(LEFT * 3)
    scene.add(downward)
    assert [text for text, _ in craft.turned_the_other_way(scene)] == ["because"]


def test_a_turned_ideograph_is_found_and_a_turned_latin_word_is_not(scene):
    kanji = user_text_mobject("食べた", font_size=30)
    latin = user_text_mobject("witness", font_size=30).shift(DOWN * 2)
    scene.add(kanji, latin)
    assert craft.turned_texts(scene) == []
    kanji.rotate(np.pi / 2)
    latin.rotate(np.pi / 2)
    assert [t for t, _ in craft.turned_texts(scene)] == ["食べた"]
    kanji.rotate(-np.pi / 2)
    assert craft.turned_texts(scene) == []


def test_a_text_nearer_the_edge_than_the_margin_is_found(scene):
    word = label_text("keys")
    scene.add(word.move_to(RIGHT * (config.frame_width / 2 - word.width / 2 - 0.1)))
    assert [d for d, _ in craft.texts_near_the_edge(scene)] == [("keys", "right")]
    word.shift(LEFT * 0.2)
    assert craft.texts_near_the_edge(scene) == []


def test_a_rule_through_a_low_glyph_is_found(scene):
    label = label_text("sum = 1.00")
    equals = label.submobjects[3]                       # s u m = ...: the '=' (no spaces)
    rule = Line(label.get_left() + LEFT * 0.2, label.get_right() + RIGHT * 0.2)
    rule.set_stroke(style.PALETTE.text, 2).set_y(equals.get_y())
    scene.add(label, rule)
    assert [d[0] for d, _ in craft.rules_through_glyphs(scene)] == ["sum = 1.00"]
    rule.set_y(label.get_bottom()[1] - 0.1)              # under the words
    assert craft.rules_through_glyphs(scene) == []


def test_a_text_against_the_corner_formula_is_found(scene):
    from attention_explainer.scenes.vocabulary.formula import FormulaMap
    corner = FormulaMap()
    title = label_text("A long title that runs under the corner formula")
    scene.add(corner, title.next_to(corner.formula, LEFT, buff=0.02))
    assert [d for d, _ in craft.texts_against_the_formula(scene)] == [title.original_text]
    title.shift(DOWN * 1.5)
    assert craft.texts_against_the_formula(scene) == []


def test_an_arrow_too_short_to_see_is_found(scene):
    arrow = Arrow(ORIGIN, RIGHT * 0.05, buff=0)
    scene.add(arrow)
    assert len(craft.short_arrows(scene)) == 1
    scene.remove(arrow)
    scene.add(Arrow(ORIGIN, RIGHT * 1.0, buff=0))
    assert craft.short_arrows(scene) == []


def test_a_group_shown_gone_and_back_within_a_second_is_found(scene):
    watch = craft.GroupFlashWatch()
    block = VGroup(label_text("closeness"), label_text("0.93").shift(DOWN))
    scene.add(block)
    assert watch.look(scene, 1.0) == []
    scene.remove(block)
    assert watch.look(scene, 1.3) == []
    scene.add(block)
    assert [when for _, when in watch.look(scene, 1.6)] == [1.3]
    scene.remove(block)
    watch.look(scene, 2.0)
    scene.add(block)
    assert watch.look(scene, 3.5) == []                 # back after a long absence


def test_a_beat_with_an_empty_half_is_a_finding():
    full = craft.EMPTY_HALF_UNITS
    assert craft.empty_half("sparks", [(full, 0), (full + 2, 0)]) == [
        ("sparks", "empty half", "lower")]
    assert craft.empty_half("sparks", [(full, 0), (full, 1)]) == []
    assert craft.empty_half("sparks", [(1, 0)]) == []   # a sparse picture is not crowded



# ---- the film ends on a picture ------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("sentence, options, theme", [
    ("The cat ate the fish", {}, "3b1b"),                                  # the default
    ("The lawyer questioned the witness because she was lying", {"focus": "she"}, "3b1b"),
    ("Le chat a mangé le poisson", {}, "colorblind"),
])
def test_the_film_ends_on_a_picture_with_at_most_two_lines_to_read(sentence, options, theme,
                                                                    tmp_path):
    """Its last second (the last beat's end, held) shows the answer drawn (issue 57): the
    sentence's words with the focus's arcs to each, and no more prose than the question
    over it and the answer's line under it (the corner formula aside): 3Blue1Brown ends on
    a picture, not on a card of text."""
    from manim import ArcBetweenPoints

    from attention_explainer.scenes.film import question
    from attention_explainer.scenes.film.views import drawn_words
    from tests.layout_corpus import audit_film

    scene = audit_film(sentence, options, theme, tmp_path, beats=["update"],
                       width=320, height=180)
    prose = [line for line in craft.prose_lines(scene) if not line.startswith("$")]
    asked = question.plain(question.question(scene.trace))
    assert len(prose) <= 2 and prose[0] == asked and prose[-1].startswith("The answer"), prose
    arcs = [m for top in scene.mobjects for m in top.get_family()
            if isinstance(m, ArcBetweenPoints) and m.get_stroke_opacity() > 0]
    assert len(arcs) == len(drawn_words(scene.trace)), "an arc to every word drawn"
    assert not scene.layout_log, scene.layout_log[:3]


def test_prose_is_counted_and_a_pictures_labels_are_not(scene):
    scene.add(label_text("E + \u0394E"), label_text("The answer of layer 5, head 11: it "
                                                     "gives\nmost to the fish").shift(DOWN))
    assert craft.prose_lines(scene) == ["The answer of layer 5, head 11: it gives",
                                        "most to the fish"]


def test_a_fade_in_of_what_is_already_shown_is_a_flash(scene):
    """The closeness block stood whole (made part of a shown list) before its own fade-in
    began: it vanished and came back."""
    from manim import FadeIn
    block = VGroup(label_text("closeness"), label_text("0.93").shift(DOWN))
    shown = VGroup(label_text("share of \u0394E").shift(DOWN * 2))
    scene.add(shown)
    assert craft.faded_in_while_shown(scene, [FadeIn(block)]) == []     # arriving: fine
    shown.add(block)                                                  # shown at once ...
    assert craft.faded_in_while_shown(scene, [FadeIn(block)]) == ["a VGroup (closeness, 0.93)"]
