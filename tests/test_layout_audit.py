"""The layout audit can fail: a label moved off the frame, two labels over each other, a
line through a word, a text gone and back within a second, and
a text over a text mid-play are each found; what is fine (a line of several fonts, a
cross-fade in place, a copy leaving its original) is not. The audit runs on the scene graph
while a film is drawn (scenes/film/audits.py)."""
from __future__ import annotations

import pytest
from manim import DOWN, LEFT, RIGHT, UP, FadeIn, FadeOut, Square, config, tempconfig

from attention_explainer.scenes.film import audits, craft
from attention_explainer.scenes.film.scene import FilmScene
from attention_explainer.scenes.vocabulary import style
from attention_explainer.scenes.vocabulary.patches import our_drawing
from attention_explainer.scenes.vocabulary.text import label_text, line_of
from tests.conftest import synthetic_trace


@pytest.fixture
def scene(tmp_path):
    with tempconfig({"pixel_height": 90, "pixel_width": 160, "frame_rate": 5,
                     "format": "none", "disable_caching": True,
                     "media_dir": str(tmp_path / "media"), "progress_bar": "none",
                     "verbosity": "ERROR"}), our_drawing():
        film = FilmScene(synthetic_trace(), beats=["title"], skip_animations=True)
        film.audit = True
        yield film


def test_a_label_off_the_frame_is_found(scene):
    label = label_text("attention").move_to(RIGHT * (config.frame_width / 2))
    scene.add(label)
    assert audits.outside_the_frame(scene) == [("text 'attention'", "right")]
    label.move_to(0).to_edge(UP, buff=0.02)      # inside, but touching the edge
    assert audits.outside_the_frame(scene) == [("text 'attention'", "top")]
    label.move_to(LEFT * 2)
    assert audits.outside_the_frame(scene) == []


def test_a_shape_off_the_frame_is_found_and_a_backdrop_is_not(scene):
    square = Square(1).set_fill(style.PALETTE.text, 1).move_to(DOWN * config.frame_height / 2)
    scene.add(square)
    assert audits.outside_the_frame(scene) == [("shape 'a Square'", "bottom")]
    square.set(width=config.frame_width * 1.2).move_to(0)      # a backdrop reaches past it
    assert audits.outside_the_frame(scene) == []


def test_two_labels_over_each_other_are_found(scene):
    a, b = label_text("queries"), label_text("keys")
    scene.add(a, b.move_to(a.get_center() + RIGHT * 0.1))
    assert audits.overlapping_texts(scene) == [("queries", "keys")]
    b.next_to(a, RIGHT, buff=0.05)
    assert audits.overlapping_texts(scene) == []


def test_a_line_of_several_fonts_is_one_text(scene):
    line = line_of([("ate", ("user", style.PALETTE.query)), ("'s query meets every key",
                                                          style.PALETTE.text)])
    scene.add(line)
    assert audits.overlapping_texts(scene) == []
    scene.add(label_text("key").move_to(line.get_center()))
    assert audits.overlapping_texts(scene) == [("ate's query meets every key", "key")]


def test_mid_play_a_cross_fade_passes_and_a_text_over_a_still_text_fails(scene):
    old = label_text("before")
    new = label_text("after").move_to(old)
    scene.add(old)
    scene.play(FadeOut(old), FadeIn(new), run_time=1)       # in place: both half seen
    assert scene.layout_log == []
    still = label_text("still").shift(DOWN * 2)
    scene.add(still)
    over = label_text("over").move_to(still)
    scene.play(FadeIn(over, run_time=0.1), run_time=1)
    scene.settle_faults()                       # the picture stands: the fault counts
    problems = {(entry[1], entry[2][1], entry[2][2]) for entry in scene.layout_log}
    assert ("text over text", "end", ("still", "over")) in problems, scene.layout_log


def test_a_fault_at_a_play_end_that_the_next_play_moves_on_is_not_a_still(scene):
    still = label_text("still").shift(DOWN * 2)
    passing = label_text("passing").shift(DOWN * 2 + LEFT * 4)
    scene.add(still, passing)
    scene.play(passing.animate.move_to(still), run_time=1)      # ends over "still" ...
    scene.play(passing.animate.shift(RIGHT * 4), run_time=1)    # ... and goes on at once
    scene.settle_faults()
    assert [e for e in scene.layout_log if e[1] == "text over text"] == []


def test_a_formula_on_screen_twice_is_found(scene):
    from attention_explainer.scenes.vocabulary.formula import FormulaMap, attention_formula
    corner = FormulaMap(None)
    scene.add(corner)
    assert audits.formulas_twice(scene) == []
    big = attention_formula(style.FONT_TITLE, full=False)   # the summary's fault
    scene.add(big.shift(DOWN * 2))
    assert len(audits.formulas_twice(scene)) == 1    # the same formula, however typeset
    big.set_opacity(0.3)                             # one fading: arriving or leaving
    assert audits.formulas_twice(scene) == []
    scene.add(attention_formula(style.FONT_TITLE, full=True).shift(UP * 2))
    assert audits.formulas_twice(scene) == []        # Attention(Q, K, V) = ...: another


def test_a_hand_off_to_an_empty_stage_is_found():
    from attention_explainer.scenes.film.beat import Role, Stage
    assert craft.near_empty(Stage({Role.LINE: 1, Role.MAP: 2}), Role.OVERLAY)
    assert not craft.near_empty(Stage({Role.LINE: 1, Role.MAP: 2, Role.GRID: 3}),
                                 Role.OVERLAY)


def test_a_text_under_the_legible_size_is_found_and_zoom_counts(scene):
    """Capitals under 28 px at 1080p are found, whether the text was set small, scaled
    down after it was set, or seen through a camera zoomed out."""
    floor = style.MIN_CAP_PX / style.CAP_PX_PER_POINT
    fine = label_text("keys", style.MIN_FONT)
    scene.add(fine)
    assert audits.small_texts(scene) == []
    fine.scale(0.9)                               # a row squeezed to fit, after the fact
    assert [t for t, _ in audits.small_texts(scene)] == ["keys"]
    fine.scale(1 / 0.9)
    scene.camera.frame.scale(1.1)                 # the whole stage seen from farther away
    assert [t for t, size in audits.small_texts(scene) if size < floor] == ["keys"]
    scene.camera.frame.scale(1 / 1.1)
    assert audits.small_texts(scene) == []


def test_a_line_through_a_word_is_found_and_a_cell_around_it_is_not(scene):
    from manim import Line, Rectangle
    word = label_text("fish")
    scene.add(word)
    cell = Rectangle(width=word.width + 0.4, height=word.height + 0.3).move_to(word)
    scene.add(cell.set_stroke(style.PALETTE.text, 2))      # the word's own cell
    assert audits.texts_over_shapes(scene) == []
    shaft = Line(word.get_left() + LEFT, word.get_right() + RIGHT).set_stroke(
        style.PALETTE.text, 3)                             # an arrow's shaft through it
    scene.add(shaft)
    assert [t for t, _ in audits.texts_over_shapes(scene)] == ["fish"]
    shaft.set_stroke(opacity=0.3)                          # a faint grid line behind it
    assert audits.texts_over_shapes(scene) == []
    shaft.set_stroke(opacity=1).shift(UP * word.height * 2)   # clear of the word's ink
    assert audits.texts_over_shapes(scene) == []


def test_a_backing_under_a_word_hides_what_is_beneath(scene):
    from manim import Line, Rectangle
    word = label_text("keys")
    shaft = Line(LEFT * 2, RIGHT * 2).set_stroke(style.PALETTE.text, 3).move_to(word)
    band = Rectangle(width=word.width + 0.3, height=word.height + 0.2).move_to(word)
    band.set_stroke(width=0).set_fill(style.PALETTE.background, 0.92)
    scene.add(shaft, band, word)                           # drawn in this order
    assert audits.texts_over_shapes(scene) == []
    scene.remove(band)
    assert [t for t, _ in audits.texts_over_shapes(scene)] == ["keys"]


def test_a_text_gone_and_back_within_a_second_is_a_flash(scene):
    watch = craft.FlashWatch()
    number = label_text("0.37")
    scene.add(number)
    assert watch.look(scene, 1.0) == []
    scene.remove(number)
    assert watch.look(scene, 1.4) == []
    again = label_text("0.37").move_to(number)             # born again in its place
    scene.add(again)
    assert watch.look(scene, 1.8) == [("0.37", 1.0)]
    scene.remove(again)
    assert watch.look(scene, 2.0) == []
    scene.add(label_text("0.37").move_to(number))          # back after a long absence
    assert watch.look(scene, 3.5) == []
    scene.add(label_text("0.38").move_to(number).shift(DOWN * 2))
    scene.remove(*scene.mobjects)
    watch.look(scene, 3.7)
    scene.add(label_text("0.38").move_to(number).shift(DOWN * 2).shift(RIGHT * 3))
    assert watch.look(scene, 4.0) == []                    # the same text elsewhere
