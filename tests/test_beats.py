"""Each beat renders alone, lasts about as long as it should, and every number it draws
re-derives from the trace: small synthetic traces (Latin and CJK) for every beat, the real
model for the later beats, all twelve heads, a causal trace, a Chinese sentence, a window
over a long sentence. Renders are tiny (160x90, 5 fps)."""
from __future__ import annotations

import numpy as np
import pytest

from attention_explainer.scenes.vocabulary import style
from tests.conftest import assert_numbers_rederive, synthetic_trace

SENTENCES = {"default": "The cat ate the fish", "chinese": "我爱北京天安门"}


def load(name: str):
    from attention_explainer.attention_core import compute_trace
    return compute_trace(SENTENCES[name])


@pytest.fixture(scope="module")
def default():
    return load("default")


@pytest.fixture(scope="module")
def chinese():
    return load("chinese")


def causal(trace):
    """The default trace as if computed with a causal mask (weights renormalised)."""
    from attention_explainer.attention_core.trace import AttentionTrace
    T = trace.num_tokens
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    s = np.where(mask[None], -np.inf, trace.scores.astype(np.float64))
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = (w / w.sum(axis=-1, keepdims=True)).astype(np.float32)
    t = AttentionTrace(tokens=trace.tokens, embeddings=trace.embeddings, q=trace.q, k=trace.k,
                       v=trace.v, scores=trace.scores, mask=mask, weights=w,
                       context=(w @ trace.v).astype(np.float32), output=trace.output,
                       meta=dict(trace.meta, mask="causal", model="scratch"))
    t.validate()
    return t


def render_tiny(beats, trace, tmp_path, audit=True):
    """The film of ``beats`` for ``trace`` at 160x90, 5 fps, frames drawn but not kept,
    every step audited (small texts, glyph morphs)."""
    from manim import tempconfig

    from attention_explainer.scenes.film.scene import FilmScene
    with tempconfig({"pixel_height": 90, "pixel_width": 160, "frame_rate": 5,
                     "format": "none", "disable_caching": True,
                     "media_dir": str(tmp_path / "media"), "seed": 0,
                     "output_file": str(tmp_path / "out"), "progress_bar": "none",
                     "verbosity": "ERROR"}):
        scene = FilmScene(trace, beats=beats)
        scene.audit = audit
        scene.render()
    return scene


EARLY_BEATS = ("title", "embed", "project", "sparks", "softmax")
LATER_BEATS = ("pull", "heads", "mask", "summary", "update")


@pytest.mark.parametrize("beat", EARLY_BEATS)
@pytest.mark.parametrize("variant", ["latin", "cjk"])
def test_beat_renders_and_every_number_comes_from_the_trace(beat, variant, tmp_path):
    trace = synthetic_trace() if variant == "latin" else \
        synthetic_trace(words=("我", "爱", "北", "京"), focus=2, seed=5)
    scene = render_tiny([beat], trace, tmp_path)
    start, end = scene.beat_times[beat]
    # a beat with a coda (the update's answer to the film's question) holds its key frame
    # and then plays the coda
    longest = 45.0 if scene.beat_classes[-1].has_coda() else 32.0
    assert 6.0 <= end - start <= longest, f"{beat} lasts {end - start:.1f} s"
    assert start <= scene.key_times[beat] <= end - style.T_HOLD + 1e-6
    assert_numbers_rederive(trace, scene.shown_numbers)
    assert scene.audit_log == []         # every text legible, no text morphed into another


def test_a_beat_starts_from_what_the_one_before_leaves(tmp_path, monkeypatch):
    """Rendered after its predecessor or alone, a beat starts from the same stage: the
    predecessor hands its objects on (no fade to black), or they are built instantly."""
    from attention_explainer.scenes.film.beats.pull import PullBeat
    from attention_explainer.scenes.film.beats.softmax import SoftmaxBeat
    trace = synthetic_trace()
    stages = []
    script = PullBeat.script

    def spy(beat):
        stages.append({role: (type(m).__name__, len(m.get_family()), m.get_center().round(3).tolist())
                       for role, m in beat.stage.items()})
        assert all(m in beat.film.mobjects for m in beat.stage.values())
        script(beat)

    from attention_explainer.scenes.film.beat import Role
    from attention_explainer.scenes.film.scene import FilmScene

    monkeypatch.setattr(PullBeat, "script", spy)
    render_tiny(["softmax", "pull"], trace, tmp_path / "pair", audit=False)
    with monkeypatch.context() as m:     # a segment of a film where softmax comes before
        m.setattr(FilmScene, "carried_over", True)
        render_tiny(["pull"], trace, tmp_path / "segment", audit=False)
    render_tiny(["pull"], trace, tmp_path / "alone", audit=False)
    assert stages[0] == stages[1]
    assert set(stages[0]) == set(SoftmaxBeat.leaves(_Film(trace)))
    # drawn with no softmax before it, it opens without softmax's heading
    assert stages[2] == {role: v for role, v in stages[0].items() if role != Role.LINE}


class _Film:
    """Just enough of a film for a beat's ``leaves``."""
    def __init__(self, trace):
        from attention_explainer.scenes.film.readouts import NumberBook
        self.trace, self.book = trace, NumberBook(trace)


def test_long_sentence_is_windowed_in_the_sparks_beat(tmp_path, monkeypatch):
    # a small window keeps this render fast; the layout code reads the limit at call time
    monkeypatch.setattr(style, "MAX_TOKENS_DRAWN", 6)
    words = tuple(f"w{i}" for i in range(10))
    trace = synthetic_trace(words=words, focus=8, seed=7)
    scene = render_tiny(["sparks"], trace, tmp_path)
    keys = {s.index[2] for s in scene.shown_numbers if s.kind == "qk_dot"}
    assert len(keys) == style.MAX_TOKENS_DRAWN and trace.focus_index in keys


@pytest.mark.parametrize("beat", LATER_BEATS)
def test_beat_renders_alone_and_its_numbers_come_from_the_trace(beat, default, tmp_path):
    from attention_explainer.app.film import render_video
    result = render_video(default, beats=[beat], width=160, height=90, fps=5,
                          output=tmp_path / f"{beat}.mp4", progress=False)
    assert result.video.is_file() and result.poster.is_file()
    start, end = result.beat_times[beat]
    # a beat with a coda (the update's answer to the film's question) holds its key frame
    # and then plays the coda: the answer card read, then the last picture held (each of
    # its many captions up its whole reading time, a frame of 5 fps more for the rounding)
    from attention_explainer.scenes.film.registry import load_beat
    longest = 55.0 if load_beat(beat).has_coda() else 32.0
    assert 6.0 <= end - start <= longest, f"{beat} lasts {end - start:.1f} s"
    assert start <= result.key_times[beat] <= end
    assert_numbers_rederive(default, result.shown_numbers)
    captions = result.captions.read_text(encoding="utf-8")
    assert captions.strip()
    if beat == "pull":      # the real weights, drawn and captioned
        shown = {(n.kind, n.index): n.text for n in result.shown_numbers}
        slot, f = default.primary_slot, default.focus_index
        cat, fish = default.tokens.index("cat"), default.tokens.index("fish")
        # the list names words, each the sum of its pieces (here one token each)
        assert shown[("shown_word_weight", (slot, f, fish, fish, 2))] == "0.38"
        assert shown[("shown_word_weight", (slot, f, cat, cat, 2))] == "0.37"
        assert "the centre is pulled toward \u2018fish\u2019 and \u2018cat\u2019" in captions
        assert "Cooled to T = 1.0" in captions


def test_heads_draws_all_twelve_heads_with_their_own_numbers(tmp_path):
    """`--heads all`: twelve real heads laid out, each head's own index and weights drawn."""
    from attention_explainer.attention_core import compute_trace
    trace = compute_trace(SENTENCES["default"], heads="all")
    assert trace.heads == list(range(12))
    scene = render_tiny(["heads"], trace, tmp_path)
    assert_numbers_rederive(trace, scene.shown_numbers)
    shown = {(n.kind, n.index) for n in scene.shown_numbers}
    assert {("head", (slot,)) for slot in range(12)} <= shown     # every head is named
    # the rows' dots are the weights; each row's note, its heaviest word's (its pieces' sum)
    weights = {n.index[0] for n in scene.shown_numbers if n.kind == "shown_word_weight"}
    assert weights and weights <= set(range(12))
    assert ("heads_not_drawn", ()) not in shown                    # none is missing


def test_mask_on_a_causal_trace_and_on_chinese(default, chinese, tmp_path):
    from attention_explainer.app.film import render_video
    for name, trace in (("causal", causal(default)), ("chinese", chinese)):
        result = render_video(trace, beats=["mask"], width=160, height=90, fps=5,
                              output=tmp_path / f"{name}.mp4", progress=False)
        assert_numbers_rederive(trace, result.shown_numbers)
        kinds = {n.kind for n in result.shown_numbers}
        assert ("masked_score" in kinds) == (name == "causal")


def test_the_pulls_percentage_is_that_of_the_view_drawn(monkeypatch):
    """Beyond the drawing limit the pull's view is fitted on the drawn tokens; the share of
    length it writes is that view's, not a PCA over every token."""
    from attention_explainer.attention_core.derived import value_view_percent
    from attention_explainer.scenes.film.views import drawn_indices, value_view

    monkeypatch.setattr(style, "MAX_TOKENS_DRAWN", 6)
    trace = synthetic_trace(words=tuple(f"w{i}" for i in range(10)), focus=8, seed=7)
    slot, drawn = trace.primary_slot, drawn_indices(trace)
    view, _ = value_view(trace, slot)
    assert len(drawn) == 6
    assert value_view_percent(trace, slot, *drawn) == pytest.approx(100 * sum(view.explained))
    assert value_view_percent(trace, slot, *drawn) != pytest.approx(value_view_percent(trace, slot))


@pytest.mark.parametrize("masked", [False, True])
def test_sparks_works_out_the_strongest_open_dot_product_term_by_term(masked, tmp_path):
    """The stage under the arcs shows what an arc's number is: the largest dot product of a
    key the mask leaves open, as the sum of d_k products of the query's and the key's
    entries, every one of them read from the trace."""
    from attention_explainer.attention_core.derived import lookup

    trace = causal(load("default")) if masked else load("default")
    scene = render_tiny(["sparks"], trace, tmp_path)
    slot, f = trace.primary_slot, trace.focus_index
    shown = [n for n in scene.shown_numbers if n.beat == "sparks"]
    keys = {n.index[1] for n in shown if n.kind == "k"}
    assert {n.index[2] for n in shown if n.kind == "q"} == {0, 1, trace.d_k - 1}
    open_keys = [j for j in range(trace.num_tokens) if not trace.mask[f, j]]
    best = max(open_keys, key=lambda j: lookup(trace, "qk_dot", (slot, f, j)))
    assert keys == {best}
    assert any(n.kind == "qk_dot" and n.index == (slot, f, best) for n in shown)
    assert_numbers_rederive(trace, scene.shown_numbers)
