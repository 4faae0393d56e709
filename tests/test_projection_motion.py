"""The turn-and-stretch that carries one 2-D view onto another (project beat): the polar
split of a fitted 2x2 map, the choice of a view's axis signs, and the animation that
moves a grid and arrows (never text) through it."""
from __future__ import annotations

import numpy as np
import pytest

from scenes.projection import fit_linear_map_2d, polar_motion, view_signs


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
    from scenes.components import CarryPlane, LabelledArrow, Plane2D

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
