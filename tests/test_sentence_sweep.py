"""Every ordinary sentence renders (issue 58). The start of the sentence sweep
(bench/soak_sentences.py: the sentences reported to fail, then 20 made from its word lists,
the languages in turn) as the sweep draws them, each beat alone, built and every animation
played whole (skipped, not drawn), in this one process: every sentence through the update
beat, where the reported one failed, and through one of the other beats in turn (each
beat for two or three sentences; the sweep draws every beat of every sentence). Then the
update beat where no piece of ΔE is long enough to draw, and the film's rule that a group
of no animations draws nothing and still takes its time."""
from __future__ import annotations

import numpy as np
import pytest
from manim import AnimationGroup, Dot, FadeIn, LaggedStart, Succession, tempconfig

from attention_explainer.facts import FILM_BEATS
from bench.soak_sentences import FPS, RESOLUTION, reported, sentences
from tests.conftest import synthetic_trace

MADE = 20                                   # the sweep's made sentences kept here
SWEPT = sentences(len(reported()) + MADE)   # the sweep's own first sentences, seed 0
WIDTH, HEIGHT = (int(n) for n in RESOLUTION.split("x"))
OTHER_BEATS = [beat for beat in FILM_BEATS if beat != "update"]
OTHERS_EACH = 1          # of the other beats, per sentence: the test's time, not its reach


def beats_for(n: int) -> list[str]:
    """The beats the ``n``-th sentence is drawn through: the update beat and the next
    ``OTHERS_EACH`` of the others, in turn."""
    return ["update", *[OTHER_BEATS[(n * OTHERS_EACH + k) % len(OTHER_BEATS)]
                        for k in range(OTHERS_EACH)]]


def beat_played(trace, beat, folder):
    """``beat`` of the film of ``trace``, alone (as `frames` draws it: from the stage its
    predecessor leaves): its script and every animation run, no frame drawn (a crash in
    building or playing any of them is raised here)."""
    from attention_explainer.scenes.film.scene import FilmScene

    with tempconfig({"pixel_height": HEIGHT, "pixel_width": WIDTH, "frame_rate": FPS,
                     "format": "none", "disable_caching": True,
                     "media_dir": str(folder / "media"), "progress_bar": "none",
                     "verbosity": "ERROR"}):
        scene = FilmScene(trace, beats=[beat], skip_animations=True)
        scene.renderer.update_frame = lambda *args, **kwargs: None
        scene.render()
    return scene


def test_the_sample_is_the_sweeps_start_and_reaches_every_beat():
    assert SWEPT == sentences()[:len(SWEPT)]
    assert reported()[0] in SWEPT
    assert len({language for language, _ in SWEPT}) >= 10
    assert {beat for n in range(len(SWEPT)) for beat in beats_for(n)} == set(FILM_BEATS)


@pytest.mark.slow
@pytest.mark.parametrize("n, language, sentence", [(n, *s) for n, s in enumerate(SWEPT)],
                         ids=[f"{n:02d}-{language}" for n, (language, _) in enumerate(SWEPT)])
def test_the_sweeps_sentences_play_their_beats(n, language, sentence, tmp_path):
    from attention_explainer.attention_core import compute_trace

    trace = compute_trace(sentence)
    for beat in beats_for(n):
        scene = beat_played(trace, beat, tmp_path)
        assert scene.played == [beat], f"{language}: {sentence!r}"


def update_beat_built(trace, folder, monkeypatch):
    """The update beat of ``trace`` played alone, and the beat itself (its view's arrows)."""
    from attention_explainer.scenes.film.beats.update import UpdateBeat

    built = []
    build_arrows = UpdateBeat.build_arrows

    def kept(beat):
        build_arrows(beat)
        built.append(beat)
    monkeypatch.setattr(UpdateBeat, "build_arrows", kept)
    scene = beat_played(trace, "update", folder)
    return scene, built[-1]


def said(scene) -> list[str]:
    return [caption.content for caption in scene.renderer.file_writer.subcaptions]


def test_the_update_beat_plays_for_the_reported_sentence(tmp_path):
    """"Heavy clouds gather over the hills" stopped the update beat at its chain of ΔE's
    pieces (an empty LaggedStart: none long enough to draw)."""
    from attention_explainer.attention_core import compute_trace

    _, sentence = reported()[0]
    scene = beat_played(compute_trace(sentence), "update", tmp_path)
    assert scene.played == ["update"] and "update" in scene.key_times


def test_the_update_beat_draws_delta_e_whole_when_every_piece_is_too_short(tmp_path,
                                                                            monkeypatch):
    """At the scale E and E′ set, a piece of ΔE may be too short to draw; where every one
    is, the chain step draws ΔE whole, from E's tip to where the pieces end, and says so;
    where ΔE is too, it draws nothing and says so (it once played an empty LaggedStart).
    The pieces are made too short by raising the least length drawn, for any model."""
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.scenes.film.beats import update

    trace = compute_trace(reported()[0][1])
    _, beat = update_beat_built(trace, tmp_path, monkeypatch)
    tips = np.array(beat.tips)
    longest = max(np.linalg.norm(np.diff(tips, axis=0), axis=1))
    whole = np.linalg.norm(tips[-1] - tips[0])
    assert whole > longest, "ΔE as drawn is no longer than a piece here: take another sentence"

    monkeypatch.setattr(update, "SHOWN_AT_LEAST", (longest + whole) / 2)
    scene, beat = update_beat_built(trace, tmp_path, monkeypatch)
    (arrow,) = beat.chain
    assert np.allclose(arrow.get_start(), tips[0]) and np.allclose(arrow.get_end(), tips[-1])
    assert any("so it is drawn whole" in line for line in said(scene)), said(scene)

    monkeypatch.setattr(update, "SHOWN_AT_LEAST", 2 * whole)
    scene, beat = update_beat_built(trace, tmp_path, monkeypatch)
    assert scene.played == ["update"] and len(beat.chain) == 0
    assert any("too short to see" in line for line in said(scene)), said(scene)


def test_a_group_of_no_animations_draws_nothing_and_takes_its_time(tmp_path):
    from attention_explainer.scenes.film.scene import FilmScene, draws_nothing

    assert draws_nothing(LaggedStart()) and draws_nothing(Succession(AnimationGroup()))
    assert not draws_nothing(LaggedStart(FadeIn(Dot())))
    with tempconfig({"pixel_height": HEIGHT, "pixel_width": WIDTH, "frame_rate": FPS,
                     "format": "none", "media_dir": str(tmp_path), "verbosity": "ERROR"}):
        scene = FilmScene(synthetic_trace(), beats=["title"], skip_animations=True)
        scene.renderer.update_frame = lambda *args, **kwargs: None
        start = scene.renderer.time
        scene.play(LaggedStart(), Succession(AnimationGroup()), run_time=2.0)
        assert scene.renderer.time - start == pytest.approx(2.0)
        dot = Dot()
        scene.play(LaggedStart(), FadeIn(dot), run_time=1.0)
        assert scene.renderer.time - start == pytest.approx(3.0) and dot in scene.mobjects
        # inside a group too: the rest plays, in its own time
        other = Dot()
        lagged = LaggedStart(LaggedStart(), FadeIn(other, run_time=1.5), lag_ratio=0.5)
        scene.play(lagged)
        assert scene.renderer.time - start == pytest.approx(4.5) and other in scene.mobjects
