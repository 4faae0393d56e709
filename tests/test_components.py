"""Fast tests of the shared drawing components, the 2-D projections, and tiny renders of
the title, embed, project, sparks and softmax beats (drawn from small synthetic traces,
so no model is needed)."""
from __future__ import annotations

import numpy as np
import pytest

from attention_core.trace import AttentionTrace
from scenes import style
from scenes.numbers import format_number, lookup
from scenes.projection import fit_linear_map_2d, fit_pca

manim = pytest.importorskip("manim")


def synthetic_trace(words=("the", "cat", "ate", "the", "fish"), focus=2, heads=(3, 0),
                    d_model=24, d_k=8, seed=0) -> AttentionTrace:
    """A small, consistent trace made from seeded random numbers (no model)."""
    rng = np.random.default_rng(seed)
    tokens = ("[CLS]",) + tuple(words) + ("[SEP]",)
    T, H = len(tokens), len(heads)
    emb = rng.normal(size=(T, d_model)).astype(np.float32)
    wq, wk, wv = (rng.normal(size=(H, d_model, d_k)) / np.sqrt(d_model) for _ in range(3))
    q = np.einsum("td,hdk->htk", emb, wq).astype(np.float32)
    k = np.einsum("td,hdk->htk", emb, wk).astype(np.float32)
    v = np.einsum("td,hdk->htk", emb, wv).astype(np.float32)
    scores = (q @ k.transpose(0, 2, 1) / np.sqrt(d_k)).astype(np.float32)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = (e / e.sum(-1, keepdims=True)).astype(np.float32)
    context = (weights @ v).astype(np.float32)
    special = [True] + [False] * len(words) + [True]
    meta = dict(model="synthetic", weights_sha256="none", layer=2, heads=list(heads),
                primary_head=heads[0], focus=tokens[focus + 1], focus_index=focus + 1,
                device="cpu", dtype="float32", sentence=" ".join(words), special=special,
                display_tokens=list(tokens), words=list(words), mask="none")
    trace = AttentionTrace(tokens=tokens, embeddings=emb, q=q, k=k, v=v, scores=scores,
                           mask=np.zeros((T, T), bool), weights=weights, context=context,
                           output=emb.copy(), meta=meta)
    trace.validate()
    return trace


# ---- projection ------------------------------------------------------------------------

def test_pca_is_deterministic_and_orthonormal():
    x = np.random.default_rng(1).normal(size=(9, 32))
    a, b = fit_pca(x), fit_pca(x.copy())
    assert np.array_equal(a.axes, b.axes)
    assert np.allclose(a.axes @ a.axes.T, np.eye(2), atol=1e-9)
    # sign convention: each axis' largest-magnitude entry is positive
    for axis in a.axes:
        assert axis[np.argmax(np.abs(axis))] > 0
    # flipping the data's sign does not flip the picture's axes
    assert np.allclose(fit_pca(-x).axes, a.axes)
    assert 0 < a.explained[1] <= a.explained[0] <= 1


def test_pca_uncentred_keeps_the_origin_and_centred_subtracts_the_mean():
    x = np.random.default_rng(2).normal(size=(6, 5)) + 3
    assert np.allclose(fit_pca(x)(np.zeros(5)), 0)
    centred = fit_pca(x, center=True)
    assert np.allclose(centred(x).mean(axis=0), 0, atol=1e-9)


def test_pca_handles_degenerate_input():
    p = fit_pca(np.ones((1, 4)))
    assert p.axes.shape == (2, 4)
    assert np.allclose(p.axes @ p.axes.T, np.eye(2), atol=1e-9)


def test_linear_fit_recovers_an_exact_map():
    m = np.array([[0.5, -1.2], [2.0, 0.3]])
    src = np.random.default_rng(3).normal(size=(7, 2))
    assert np.allclose(fit_linear_map_2d(src, src @ m.T), m)


# ---- components ------------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def fonts():
    style.register_fonts()


def test_dot_area_is_monotone_and_proportional_to_weight():
    from scenes.components import dot_radius
    ws = np.linspace(0, 1, 21)
    areas = [np.pi * dot_radius(w, 0.5) ** 2 for w in ws]
    assert all(b > a for a, b in zip(areas, areas[1:]))
    assert np.allclose(np.array(areas) / areas[-1], ws)


def test_token_row_fits_the_frame_for_16_tokens_and_windows_longer_ones():
    from manim import config
    from scenes.components import TokenRow, focus_window
    words = ["internationalisation"] * 16
    row = TokenRow(words, focus_index=5)
    assert row.width <= config.frame_width - 1.0 + 1e-6
    assert not row.windowed and len(row.chips) == 16
    long_row = TokenRow([f"w{i}" for i in range(40)], focus_index=30)
    assert long_row.windowed and len(long_row.chips) == style.MAX_TOKENS_DRAWN
    assert long_row.chip(30) is not None and long_row.chip(0) is None
    assert long_row.window_note is not None
    assert focus_window(40, 39) == (24, 40) and focus_window(40, 0) == (0, 16)
    assert focus_window(5, 2) == (0, 5)


def test_token_chips_share_height_and_special_tokens_are_dimmed():
    from manim import ManimColor
    from scenes.components import TokenChip
    chips = [TokenChip(t) for t in ("the", "jumped", "fish", "猫")]
    assert max(c.box.height for c in chips) - min(c.box.height for c in chips) < 1e-6
    special = TokenChip("[CLS]", special=True)
    assert special.word[0].get_fill_color() == ManimColor(style.PALETTE.special)


def test_spark_is_deterministic_and_follows_strength():
    from scenes.components import Spark
    a = Spark([-2, 0, 0], [2, 0, 0], 0.7, seed=4).set_progress(0.5)
    b = Spark([-2, 0, 0], [2, 0, 0], 0.7, seed=4).set_progress(0.5)
    assert np.array_equal(a.get_all_points(), b.get_all_points())
    assert [s.get_stroke_width() for s in a.core] == [s.get_stroke_width() for s in b.core]
    weak = Spark([-2, 0, 0], [2, 0, 0], 0.1, seed=4)
    strong = Spark([-2, 0, 0], [2, 0, 0], 0.9, seed=4)
    assert strong.profile(0.5)[0].max() > weak.profile(0.5)[0].max()
    assert strong.profile(0.5)[1].max() > weak.profile(0.5)[1].max()
    # invisible before it starts and after it ends
    assert strong.profile(-0.5)[1].max() < 0.01 and strong.profile(1.6)[1].max() < 0.01


def test_vector_column_shows_a_few_entries_and_a_gap():
    from scenes.components import VectorColumn, label_text, shown_components
    assert shown_components(384) == [0, 1, 2, 383]
    assert shown_components(4) == [0, 1, 2, 3]
    col = VectorColumn(lambda c: label_text(str(c)), length=384,
                       magnitudes=[0.1, 2.0, 0.5, 1.0])
    assert col.components == [0, 1, 2, 383] and col.dots is not None
    assert col.rows[3] is col.dots
    # brightest entry is the largest magnitude
    assert col.entry(1).get_fill_color().to_hex().upper() == "#FFFFFF"


def test_plane_contains_its_points_and_arrows_start_at_the_origin():
    from scenes.components import LabelledArrow, Plane2D
    pts = np.array([[-3.0, 1.0], [2.0, -0.5], [0.1, 2.5]])
    plane = Plane2D(pts, width=6, height=4, note="test view")
    box = plane.plane
    for p in pts:
        s = plane.c2p(*p)
        assert box.get_left()[0] <= s[0] <= box.get_right()[0]
        assert box.get_bottom()[1] <= s[1] <= box.get_top()[1]
    arrow = LabelledArrow(plane, pts[0], "cat", style.PALETTE.query)
    assert np.allclose(arrow.arrow.get_start(), plane.origin, atol=1e-6)
    zero = LabelledArrow(plane, [0, 0], "[CLS]", style.PALETTE.key, special=True)
    assert np.isfinite(zero.get_all_points()).all()


def test_attention_grid_cells_follow_the_group_and_mask_cells_count():
    from scenes.components import AttentionGrid
    grid = AttentionGrid(["a", "bb", "ccc"], max_width=4, max_height=3)
    c0 = grid.cell_center(1, 2)
    grid.shift([1, 1, 0])
    assert np.allclose(grid.cell_center(1, 2), c0 + np.array([1, 1, 0]))
    mask = np.triu(np.ones((3, 3), bool), 1)
    assert len(grid.mask_cells(mask)) == 3
    dots = grid.weight_dots(np.full((3, 3), 1 / 3))
    assert len(dots) == 9


def test_softmax_bars_stack_to_the_unit_height():
    from scenes.components import SoftmaxBars, label_text
    w = np.array([0.2, 0.5, 0.3])
    bars = SoftmaxBars(w, [label_text(s) for s in "abc"], unit_height=2.0)
    stack = bars.stacked(w, 4.0, 0.0, 3.0)
    assert stack.get_top()[1] == pytest.approx(3.0, abs=1e-6)
    assert bars.bars[1].height == pytest.approx(1.0)


# ---- tiny renders of the beats ------------------------------------------------------------

BEATS = [("scenes.beats.title", "TitleBeat"), ("scenes.beats.embed", "EmbedBeat"),
         ("scenes.beats.project", "ProjectBeat"), ("scenes.beats.sparks", "SparksBeat"),
         ("scenes.beats.softmax", "SoftmaxBeat")]


def render_tiny(beat_cls, trace, tmp_path):
    from manim import tempconfig
    with tempconfig({"pixel_height": 90, "pixel_width": 160, "frame_rate": 5,
                     "format": "none", "disable_caching": True,
                     "media_dir": str(tmp_path / "media"), "seed": 0,
                     "output_file": str(tmp_path / "out"), "progress_bar": "none",
                     "verbosity": "ERROR"}):
        scene = beat_cls(trace)
        scene.render()
    return scene


@pytest.mark.parametrize("module,name", BEATS)
@pytest.mark.parametrize("variant", ["latin", "cjk"])
def test_beat_renders_and_every_number_comes_from_the_trace(module, name, variant, tmp_path):
    import importlib
    beat_cls = getattr(importlib.import_module(module), name)
    trace = synthetic_trace() if variant == "latin" else \
        synthetic_trace(words=("我", "爱", "北", "京"), focus=2, seed=5)
    scene = render_tiny(beat_cls, trace, tmp_path)
    start, end = scene.beat_times[beat_cls.beat_name]
    assert 6.0 <= end - start <= 16.0, f"{name} lasts {end - start:.1f} s"
    assert beat_cls.beat_name in scene.key_times
    assert scene.mobjects == []          # it left the stage clear for the next beat
    assert scene.shown_numbers, "a beat that shows no numbers?"
    for shown in scene.shown_numbers:
        expected = format_number(lookup(trace, shown.kind, shown.index), shown.decimals,
                                 shown.signed)
        assert shown.text == expected, shown


def test_long_sentence_is_windowed_in_the_sparks_beat(tmp_path, monkeypatch):
    from scenes.beats.sparks import SparksBeat
    # a small window keeps this render fast; the layout code reads the limit at call time
    monkeypatch.setattr(style, "MAX_TOKENS_DRAWN", 6)
    words = tuple(f"w{i}" for i in range(10))
    trace = synthetic_trace(words=words, focus=8, seed=7)
    scene = render_tiny(SparksBeat, trace, tmp_path)
    keys = {s.index[2] for s in scene.shown_numbers if s.kind == "qk_dot"}
    assert len(keys) == style.MAX_TOKENS_DRAWN and trace.focus_index in keys


# ---- label placement ----------------------------------------------------------------------

def _placer_case():
    from scenes.components import label_text, user_text
    words = ["cat", "fish", "the", "The", "[SEP]", "ate", "dog", "\uff0c"]
    labels = [user_text(w, style.FONT_LABEL) for w in words]
    # five tips on top of each other, two close by, one apart; arrows from the origin
    tips = [np.array(p + [0.0]) for p in ([1.0, 1.0], [1.0, 1.0], [1.02, 0.98], [0.99, 1.01],
                                          [1.0, 1.03], [1.3, 0.9], [-1.0, 0.5], [1.05, 1.0])]
    segments = [(np.zeros(3), t) for t in tips]
    return labels, tips, segments, label_text


def test_label_placer_separates_coincident_tips_inside_bounds_deterministically():
    from scenes.components import place_labels

    def run(solo=(5,)):
        labels, tips, segments, _ = _placer_case()
        layout = place_labels(labels, tips, directions=tips, segments=segments,
                              bounds=[-2.0, -2.0, 2.5, 2.0], solo=solo)
        return labels, layout

    labels, layout = run()
    boxes = layout.boxes
    # every label inside the bounds
    assert (boxes[:, 0] >= -2.0 - 1e-6).all() and (boxes[:, 2] <= 2.5 + 1e-6).all()
    assert (boxes[:, 1] >= -2.0 - 1e-6).all() and (boxes[:, 3] <= 2.0 + 1e-6).all()
    # no two label boxes overlap (words of one shared label sit side by side too)
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            ox = min(boxes[a, 2], boxes[b, 2]) - max(boxes[a, 0], boxes[b, 0])
            oy = min(boxes[a, 3], boxes[b, 3]) - max(boxes[a, 1], boxes[b, 1])
            assert ox <= 1e-6 or oy <= 1e-6, (a, b)
    # coincident tips share one label; the solo word is never merged
    assert any(len(c) >= 4 for c in layout.clusters)
    assert all(5 not in c for c in layout.clusters)
    # the shared label's separators come back as extras; a punctuation token makes them dots
    seps = [m for e in layout.extras for m in e if m.__class__.__name__ == "Text"]
    assert seps and all(t.original_text in (",", "\u00b7") for t in seps)
    # deterministic: the same input gives the same layout
    labels2, layout2 = run()
    assert np.array_equal(layout.boxes, layout2.boxes)
    assert layout.clusters == layout2.clusters


def test_label_placer_keeps_clear_of_shafts_and_draws_leaders_when_far():
    from scenes.components import LabelledArrow, Plane2D, place_arrow_labels
    pts = np.array([[2.0, 1.0], [2.0, 1.02], [2.01, 0.99], [-1.5, 0.2], [0.3, -1.8],
                    [0.31, -1.78], [1.0, 0.5]])
    plane = Plane2D(pts, width=5, height=4)
    words = ["cat", "fish", "the", "[CLS]", "ate", "dog", "sat"]
    arrows = [LabelledArrow(plane, p, w, style.PALETTE.key, special=w.startswith("["))
              for p, w in zip(pts, words)]
    layout = place_arrow_labels(arrows, bounds=plane.plane, solo=[4])
    box = plane.plane
    for a in arrows:
        w = a.word
        assert w.get_left()[0] >= box.get_left()[0] - 1e-6
        assert w.get_right()[0] <= box.get_right()[0] + 1e-6
        assert w.get_bottom()[1] >= box.get_bottom()[1] - 1e-6
        assert w.get_top()[1] <= box.get_top()[1] + 1e-6
    # extras (leaders, commas) live in the arrow group, so they move with it
    for a in arrows:
        for m in a.extras:
            assert m in a.get_family()
    # any leader runs from near the tip of its own arrow
    for n, leader in enumerate(layout.leaders):
        if leader is not None:
            tips = [a.tip_point for a in arrows if a.word.has_points()
                    or any(m.has_points() for m in a.word.get_family())]
            assert min(np.linalg.norm(leader.get_start() - t) for t in tips) < 0.6
