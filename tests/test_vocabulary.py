"""The drawing vocabulary on its own: tokens, vectors, planes and the turn-and-stretch,
the attention grid, sparks, bars, and the label placer (no beat, no model)."""
from __future__ import annotations

import numpy as np
import pytest

from attention_explainer.attention_core.projection import (fit_linear_map_2d, fit_pca,
                                                            polar_motion, view_signs)
from attention_explainer.scenes.vocabulary import style

manim = pytest.importorskip("manim")


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


def test_polar_motion_reproduces_a_well_conditioned_map_in_either_order():
    rng = np.random.default_rng(4)
    for _ in range(50):
        m = rng.normal(size=(2, 2))
        if np.linalg.det(m) < 0:
            m[:, 0] *= -1
        s = np.linalg.svd(m, compute_uv=False)
        if s[0] / s[1] > 3 or not 0.4 <= s[0] <= 2.5:
            continue
        p = polar_motion(m)
        assert not p.clamped and not p.reflects
        assert np.allclose(p.matrix(), m)
        assert np.allclose(p.matrix(stretch_first=True), m)
        assert np.allclose(p.matrix(0.0, 0.0), np.eye(2))
        r = p.rotation()
        assert np.allclose(r @ r.T, np.eye(2)) and np.linalg.det(r) > 0


def test_a_nearly_singular_fit_is_drawn_no_more_lopsided_than_the_cap():
    m = np.array([[1.2, 0.0], [0.0, 0.02]]) @ np.array([[0.6, -0.8], [0.8, 0.6]])
    p = polar_motion(m, max_ratio=3.0)
    assert p.clamped
    assert np.allclose(p.fitted, [1.2, 0.02])
    for t in np.linspace(0, 1, 11):
        for first in (False, True):
            s = np.linalg.svd(p.matrix(t, t, stretch_first=first), compute_uv=False)
            assert s[1] > 0.3 and s[0] / s[1] <= 3.0 + 1e-9   # never a sliver on the way


def test_view_signs_keep_orientation_with_at_most_a_quarter_turn():
    rng = np.random.default_rng(5)
    for _ in range(40):
        src = rng.normal(size=(8, 2))
        dst = src @ rng.normal(size=(2, 2)).T + 0.05 * rng.normal(size=(8, 2))
        signs = view_signs(src, dst)
        assert set(np.abs(signs)) == {1.0}
        m = fit_linear_map_2d(src, dst * signs)
        assert np.linalg.det(m) >= 0
        assert abs(polar_motion(m).angle) <= np.pi / 2 + 1e-9


def test_carry_plane_maps_grid_and_redraws_arrows_but_not_words():
    pytest.importorskip("manim")
    from attention_explainer.scenes.vocabulary.planes import CarryPlane, LabelledArrow, Plane2D

    plane = Plane2D(np.array([[1.0, 0.5], [-0.5, 1.0]]), width=4, height=4)
    arrows = [LabelledArrow(plane, p, w, "#FFFF00") for p, w in
              (([1.0, 0.5], "cat"), ([-0.5, 1.0], "fish"))]
    word_before = arrows[0].word.get_center().copy()
    tip_len = arrows[0].arrow.tip.length
    grid_before = [mob.points.copy() for mob in plane.plane.family_members_with_points()]
    origin = plane.origin
    tips = [a.tip_point - origin for a in arrows]
    turn = np.array([[0.0, -1.0], [1.0, 0.0]])
    shift = np.array([0.5, -0.25, 0.0])
    anim = CarryPlane(plane.plane, arrows, origin, lambda t: np.eye(2) + t * (turn - np.eye(2)),
                      shift=lambda t: t * shift)
    anim.begin()
    anim.interpolate(1.0)
    m = np.eye(3)
    m[:2, :2] = turn
    for a, tip in zip(arrows, tips):
        assert np.allclose(a.arrow.get_start(), origin + shift, atol=1e-6)
        assert np.allclose(a.tip_point, origin + shift + m @ tip, atol=1e-6)
    assert arrows[0].arrow.tip.length == pytest.approx(tip_len)
    for mob, pts in zip(plane.plane.family_members_with_points(), grid_before):
        assert np.allclose(mob.points, origin + shift + (pts - origin) @ m.T, atol=1e-6)
    assert np.allclose(arrows[0].word.get_center(), word_before)   # words never move


@pytest.fixture(scope="module", autouse=True)
def fonts():
    style.register_fonts()


def test_dot_area_is_monotone_and_proportional_to_weight():
    from attention_explainer.scenes.vocabulary.grid import dot_radius
    ws = np.linspace(0, 1, 21)
    areas = [np.pi * dot_radius(w, 0.5) ** 2 for w in ws]
    assert all(b > a for a, b in zip(areas, areas[1:]))
    assert np.allclose(np.array(areas) / areas[-1], ws)


def test_token_row_keeps_16_tokens_legible_and_says_when_it_leaves_some_out():
    from manim import config
    from attention_explainer.scenes.film.audits import drawn_size
    from attention_explainer.scenes.vocabulary.tokens import TokenRow
    words = ("the animal did not cross the street because it was too tired to walk home "
             "today").split()
    row = TokenRow(words, max_width=13.4)
    assert len(row.chips) == 16 and not row.windowed and row.window_note is None
    assert row.width <= 13.4 + 1e-6
    assert min(drawn_size(c.word) for c in row.chips) >= style.MIN_FONT - 1e-6
    long_row = TokenRow([f"w{i}" for i in range(40)], indices=[0, 5, 6, 7, 30])
    assert long_row.windowed and len(long_row.chips) == 5
    assert long_row.chip(30) is not None and long_row.chip(1) is None
    assert long_row.window_note.original_text == "showing 5 of the 40 tokens"
    assert len(long_row.ellipses) == 3          # after w0, after w7 and after w30
    assert long_row.width <= config.frame_width


def test_token_chips_share_height_and_special_tokens_are_dimmed():
    from manim import ManimColor
    from attention_explainer.scenes.vocabulary.tokens import TokenChip
    chips = [TokenChip(t) for t in ("the", "jumped", "fish", "猫")]
    assert max(c.box.height for c in chips) - min(c.box.height for c in chips) < 1e-6
    special = TokenChip("[CLS]", special=True)
    assert special.word[0].get_fill_color() == ManimColor(style.PALETTE.special)


def test_spark_is_deterministic_and_follows_strength():
    from attention_explainer.scenes.vocabulary.sparks import Spark
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
    from attention_explainer.scenes.vocabulary.text import label_text
    from attention_explainer.scenes.vocabulary.vectors import VectorColumn, shown_components
    assert shown_components(384) == [0, 1, 2, 383]
    assert shown_components(4) == [0, 1, 2, 3]
    col = VectorColumn(lambda c: label_text(str(c)), length=384,
                       magnitudes=[0.1, 2.0, 0.5, 1.0])
    assert col.components == [0, 1, 2, 383] and col.dots is not None
    assert col.rows[3] is col.dots
    # brightest entry is the largest magnitude
    assert col.entry(1).get_fill_color().to_hex().upper() == "#FFFFFF"


def test_plane_contains_its_points_and_arrows_start_at_the_origin():
    from attention_explainer.scenes.vocabulary.planes import LabelledArrow, Plane2D
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
    from attention_explainer.scenes.vocabulary.grid import AttentionGrid
    grid = AttentionGrid(["a", "bb", "ccc"], max_width=4, max_height=3)
    c0 = grid.cell_center(1, 2)
    grid.shift([1, 1, 0])
    assert np.allclose(grid.cell_center(1, 2), c0 + np.array([1, 1, 0]))
    mask = np.triu(np.ones((3, 3), bool), 1)
    assert len(grid.mask_cells(mask)) == 3
    dots = grid.weight_dots(np.full((3, 3), 1 / 3))
    assert len(dots) == 9


def test_softmax_bars_stack_to_the_unit_height():
    from attention_explainer.scenes.vocabulary.bars import SoftmaxBars
    from attention_explainer.scenes.vocabulary.text import label_text
    w = np.array([0.2, 0.5, 0.3])
    bars = SoftmaxBars(w, [label_text(s) for s in "abc"], unit_height=2.0)
    stack = bars.stacked(w, 4.0, 0.0, 3.0)
    assert stack.get_top()[1] == pytest.approx(3.0, abs=1e-6)
    assert bars.bars[1].height == pytest.approx(1.0)


def _placer_case():
    from attention_explainer.scenes.vocabulary.text import label_text, user_text
    words = ["cat", "fish", "the", "The", "[SEP]", "ate", "dog", "\uff0c"]
    labels = [user_text(w, style.FONT_LABEL) for w in words]
    # five tips on top of each other, two close by, one apart; arrows from the origin
    tips = [np.array(p + [0.0]) for p in ([1.0, 1.0], [1.0, 1.0], [1.02, 0.98], [0.99, 1.01],
                                          [1.0, 1.03], [1.3, 0.9], [-1.0, 0.5], [1.05, 1.0])]
    segments = [(np.zeros(3), t) for t in tips]
    return labels, tips, segments, label_text


def test_label_placer_separates_coincident_tips_inside_bounds_deterministically():
    from attention_explainer.scenes.vocabulary.labels import place_labels

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
    from manim import Text

    seps = [m for e in layout.extras for m in e if isinstance(m, Text)]
    assert seps and all(t.original_text in (",", "\u00b7") for t in seps)
    # deterministic: the same input gives the same layout
    labels2, layout2 = run()
    assert np.array_equal(layout.boxes, layout2.boxes)
    assert layout.clusters == layout2.clusters


def test_label_placer_keeps_clear_of_shafts_and_draws_leaders_when_far():
    from attention_explainer.scenes.vocabulary.labels import place_arrow_labels
    from attention_explainer.scenes.vocabulary.planes import LabelledArrow, Plane2D
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


def test_a_word_that_reads_as_a_sign_is_quoted_beside_a_mark():
    """‘一’ beside a dot or before a weight reads as a minus sign or a rule, a comma token
    as a list's comma: a word made only of punctuation, dashes, or characters Unicode
    lists as confusable with a dash, is quoted there."""
    from attention_explainer.scenes.film.wording import mark_label, reads_as_a_sign

    signs = ["一", "ー", "ㅡ", "—", "–", "-", "\u2212", "--", " 一 ", ",", "!", "。", "·", "_"]
    words = ["一条", "-1", "cat", "丨", "~", "[SEP]", "", "1", "don't", "+"]
    assert [w for w in signs if not reads_as_a_sign(w)] == []
    assert [w for w in words if reads_as_a_sign(w)] == []
    assert mark_label("一") == "\u2018一\u2019" and mark_label("猫") == "猫"


def test_the_faster_family_is_manims_family():
    """fastcopy.family_of lists what manim's get_family lists, in its order: a tree, a
    mobject met twice (kept at its last place), a cycle (skipped on its own path)."""
    from manim import Dot, VGroup

    from attention_explainer.scenes.vocabulary.fastcopy import family_of, manims_get_family

    manims = manims_get_family
    assert manims is not family_of
    a, b, c, shared = Dot(), Dot(), Dot(), Dot()
    tree = VGroup(VGroup(a, shared), VGroup(b, VGroup(c, shared)), shared)
    looped = VGroup(a, VGroup(b))
    looped.submobjects[1].submobjects.append(looped)
    for mob in (tree, looped, a, VGroup()):
        assert [id(m) for m in family_of(mob)] == [id(m) for m in manims(mob)]


def test_the_faster_restructuring_is_manims():
    """fastcopy.restructured leaves the stage list manim's own leaves, on random trees
    with shared members, whatever is removed (members, groups, their families)."""
    import random

    from manim import Dot, Scene, VGroup

    from attention_explainer.scenes.vocabulary.fastcopy import (manims_restructured,
                                                                 restructured)

    rng = random.Random(5)
    for _ in range(200):
        dots = [Dot() for _ in range(12)]
        groups = []
        pool = list(dots)
        for _ in range(6):
            members = rng.sample(pool, rng.randint(1, 4))
            groups.append(VGroup(*members))
            pool.append(groups[-1])
        stage = rng.sample(pool, rng.randint(1, 6))
        gone = rng.sample(pool, rng.randint(0, 4))
        if rng.random() < 0.5:             # as restructure_mobjects asks: whole families
            gone = [m for g in gone for m in g.get_family()]
        ours = restructured(Scene, stage, gone)
        assert [id(m) for m in ours] == [id(m) for m in manims_restructured(Scene, stage, gone)]


def test_the_faster_bounds_are_manims_bounds(our_manim):
    """fastbounds gives the boundary points and extremes manim's own code gives, to the
    bit: text, shapes, a point, a group holding an empty group, an empty group; and every
    critical point (centre, edges, corners) manim's code finds."""
    import numpy as np
    from manim import Circle, Dot, Line, RoundedRectangle, Text, VGroup, VMobject

    from attention_explainer.scenes.vocabulary import fastbounds

    point = VMobject()
    point.set_points(np.array([[0.5, -0.25, 0.0]]))
    cases = [Text("Wörter 猫", font_size=40).shift(0.3 * np.array([1, -2, 0])),
             Circle().rotate(0.4).shift([1, 2, 0]), RoundedRectangle(corner_radius=0.2),
             VGroup(Dot(), VGroup(), Line([-3, 1, 0], [2, -1, 0])), point, VGroup(VGroup()),
             VGroup()]
    for mob in cases:
        ours, manims = fastbounds.boundary_points(mob), fastbounds.manims_boundary(mob)
        assert ours.shape == manims.shape and np.array_equal(ours, manims)
        for dim in range(3):
            for reduce in (max, min):
                assert fastbounds.reduce_across(mob, reduce, dim) == \
                    fastbounds.manims_reduce(mob, reduce, dim)
        for direction in [np.array([x, y, z]) for x in (-1, 0, 1) for y in (-1, 0, 1)
                          for z in (-1, 0, 1)] + [[0.5, -2, 0], (0, 0, 0)]:
            ours = fastbounds.critical_point(mob, direction)
            manims = fastbounds.manims_critical(mob, direction)
            assert ours.tobytes() == manims.tobytes(), (mob, direction)


def test_subpath_breaks_kept_for_the_same_points_are_manims(our_manim):
    """fastpaths gives the subpath breaks manim's code finds, for a glyph outline, a shape
    and a point; asked again for the same points it reuses them, and for points moved,
    opened or closed (one break more or less) it finds them again."""
    import numpy as np
    from manim import Circle, Text, VMobject

    from attention_explainer.scenes.vocabulary import fastpaths

    point = VMobject()
    point.set_points(np.array([[0.5, -0.25, 0.0]]))
    glyphs = Text("Wörter 猫", font_size=40)
    for mob in [*glyphs.family_members_with_points(), Circle().shift([1, 2, 0]), point]:
        for n_dims in (2, 3):
            first = fastpaths.split_indices(mob, mob.points, n_dims)
            assert np.array_equal(first, fastpaths.manims_split_indices(mob, mob.points, n_dims))
            assert fastpaths.split_indices(mob, mob.points.copy(), n_dims) is first
    outline = glyphs.family_members_with_points()[1]          # 'ö': three subpaths
    before = fastpaths.split_indices(outline, outline.points, 2)
    moved = outline.points.copy()
    moved[4:] += [0.5, 0, 0]                                  # the first curve's end left behind
    after = fastpaths.split_indices(outline, moved, 2)
    assert len(after) == len(before) + 1
    assert np.array_equal(after, fastpaths.manims_split_indices(outline, moved, 2))
    assert np.array_equal(fastpaths.split_indices(outline, outline.points, 2), before)


def test_the_faster_colour_rows_are_manims():
    """fastcolors writes the colour rows manim's own code builds, to the bit: a colour or
    none, an opacity (float, int, numpy, none), with and without a sheen; and hands every
    other call (several colours or opacities, a colour by name) to manim's."""
    import numpy as np
    from manim import BLUE, RED, Circle, ManimColor

    from attention_explainer.scenes.vocabulary import fastcolors

    colours = [None, RED, ManimColor("#12345678"), "#abcdef", "YELLOW", [RED, BLUE]]
    opacities = [None, 0.0, 0.37, 1, True, np.float32(0.6), np.float64(0.25), [0.2, 0.9]]
    for sheen in (0.0, 0.4, -0.3):
        mob = Circle()
        mob.sheen_factor = sheen
        for colour in colours:
            for opacity in opacities:
                ours = fastcolors.generate_rgbas(mob, colour, opacity)
                manims = fastcolors.manims_generate_rgbas(mob, colour, opacity)
                assert ours.dtype == manims.dtype and ours.shape == manims.shape
                assert ours.tobytes() == manims.tobytes(), (colour, opacity, sheen)
