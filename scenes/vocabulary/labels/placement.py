"""Greedy placement of labels near their anchors, and the arrow-label convenience.

Words at arrow tips crowd when vectors nearly coincide. :func:`place_labels` lays them out
once, at scene-build time: each label (or one shared label for a cluster of coincident
tips) tries candidate spots around its anchor and takes the cheapest (see ``costs``),
greedily in priority order, then a few rounds of re-placing each with all the others
fixed. Deterministic (no randomness, ties broken by candidate order). A label that had to
move far gets a thin leader line to its anchor, in its own colour at low opacity.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import Line, Mobject, VGroup

from .. import style
from ..text import make_text, outlined
from .candidates import Unit, candidates, leader_segment, make_unit
from .clustering import cluster_anchors
from .costs import DEFAULT_COSTS, LabelCosts, Obstacles, spot_costs
from .geometry import box_of, clip_lengths
from .shapes import cluster_shapes, label_color, label_font_size, single_shape

__all__ = ["LabelLayout", "place_arrow_labels", "place_labels"]


class LabelLayout:
    """What :func:`place_labels` decided: final label ``boxes`` ([x0, y0, x1, y1] each),
    the ``clusters`` of labels shown as one shared label, and for each label its
    ``extras`` (a VGroup: the leader line and the commas of a shared label, possibly
    empty) that must be shown with it."""

    def __init__(self, n: int):
        self.boxes = np.zeros((n, 4))
        self.clusters: list[list[int]] = []
        self.extras = [VGroup() for _ in range(n)]
        self.leaders: list[Line | None] = [None] * n
        self.crossed: list[int] = []     # labels left with a line through them (not solo)


def _unit_directions(directions, n: int) -> np.ndarray:
    if directions is None:
        dirs = np.tile([1.0, 1.0], (n, 1))
    else:
        dirs = np.array([np.asarray(d, float)[:2] for d in directions])
    norms = np.linalg.norm(dirs, axis=1)
    return np.where(norms[:, None] > 1e-9, dirs / np.maximum(norms, 1e-9)[:, None],
                    np.array([1.0, 0.0]))


def place_labels(labels: Sequence[Mobject], anchors, *, directions=None,
                 segments=(), keep_clear=(), keep_clear_owner: Sequence[int] | None = None,
                 bounds=None, priority: Sequence[float] | None = None,
                 solo: Sequence[int] = (), merge_within: float = 0.3, gap: float = 0.05,
                 leader_from: float = 0.45, leader_opacity: float = 0.45,
                 row_max_width: float = 2.6, rounds: int = 3,
                 costs: LabelCosts = DEFAULT_COSTS) -> LabelLayout:
    """Place labels near their anchors without overlapping each other, the given arrow
    shafts and tips, or the bounds. Moves the labels; returns a :class:`LabelLayout`.

    ``anchors``: one scene point per label (an arrow tip, or a segment's middle);
    ``directions``: the way each label would naturally sit from its anchor (the arrow's
    direction; default: up-right). ``segments``: shafts to keep clear of, as
    (start, end) pairs of points. ``keep_clear``: boxes ([x0, y0, x1, y1] or Mobjects:
    tips, dots) to stay off; ``keep_clear_owner[i]`` names the label a box belongs to (its
    own tip), or -1. ``bounds``: a box (or Mobject) every label must stay inside.
    ``priority``: placed highest first (default: in order). Labels whose anchors lie within
    ``merge_within`` of each other, none of them in ``solo``, share one label: a row
    "cat, fish" or a stacked list, each word keeping its own colour; the commas are in
    ``layout.extras``. A label placed farther than ``leader_from`` from its anchor gets a
    leader line (also in ``extras``). Deterministic.

    >>> layout = place_labels([make_text("cat"), make_text("fish")], [[1, 1, 0], [1, 1, 0]])
    >>> layout.clusters
    [[0, 1]]
    """
    labels = list(labels)
    n = len(labels)
    layout = LabelLayout(n)
    if n == 0:
        return layout
    anchors = np.array([np.asarray(a, float)[:2] for a in anchors])
    dirs = _unit_directions(directions, n)
    clear = np.array([box_of(b) for b in keep_clear]).reshape(-1, 4)
    obstacles = Obstacles(
        segments=np.array([[*np.asarray(s, float)[:2], *np.asarray(e, float)[:2]]
                           for s, e in segments]).reshape(-1, 4),
        clear=clear,
        owner=np.full(len(clear), -1) if keep_clear_owner is None else np.asarray(keep_clear_owner),
        bounds=None if bounds is None else box_of(bounds))
    prio = np.zeros(n) if priority is None else np.asarray(priority, float)
    alone = set(int(i) for i in solo)

    def attempt(alone: set[int]) -> list[Unit]:
        clusters = cluster_anchors(anchors, merge_within, alone)
        units = [make_unit(c, _shapes_of([labels[i] for i in c], gap, row_max_width, costs),
                           anchors, dirs, prio) for c in clusters]
        _choose_spots(units, obstacles, gap=gap, leader_from=leader_from, rounds=rounds,
                      costs=costs)
        return units
    units = attempt(alone)
    # a shared label that finds no spot clear of every line is split: its words, placed
    # one by one, fit where the block did not (kept only if fewer labels are crossed)
    crossed = [u for u in units if _crossed(u, obstacles)]
    if any(len(u.members) > 1 for u in crossed):
        split = attempt(alone | {m for u in crossed if len(u.members) > 1 for m in u.members})
        if sum(_crossed(u, obstacles) for u in split) < len(crossed):
            units = split
    layout.clusters = [u.members for u in units if len(u.members) > 1]
    layout.crossed = sorted(m for u in units if _crossed(u, obstacles) for m in u.members
                            if m not in alone)
    for u, unit in enumerate(units):
        _settle(unit, labels, layout, leader_from=leader_from, leader_opacity=leader_opacity)
    return layout


def _crossed(unit: Unit, obstacles: Obstacles) -> bool:
    """Whether a placed unit's box has a line through it."""
    if not len(obstacles.segments):
        return False
    box = unit.candidates.boxes[unit.choice][None, :]
    return bool((clip_lengths(box, obstacles.segments) > 0.02).any())


def _shapes_of(mobs: list[Mobject], gap: float, row_max_width: float, costs: LabelCosts):
    if len(mobs) == 1:
        return [single_shape(mobs[0])]
    return cluster_shapes(mobs, label_font_size(mobs[0]), gap, row_max_width, costs.wrap)


def _choose_spots(units: list[Unit], obstacles: Obstacles, *, gap: float, leader_from: float,
                  rounds: int, costs: LabelCosts) -> None:
    """Greedy in priority order, then rounds of re-placing each unit with the others fixed
    until nothing changes."""
    order = sorted(range(len(units)), key=lambda u: (-units[u].priority, u))
    cand = [candidates(unit) for unit in units]
    placed_box: dict[int, np.ndarray] = {}
    placed_leader: dict[int, np.ndarray] = {}

    def choose(u: int) -> None:
        total = spot_costs(units[u], cand[u], [placed_box[v] for v in placed_box if v != u],
                           [placed_leader[v] for v in placed_leader if v != u], obstacles,
                           gap=gap, leader_from=leader_from, costs=costs)
        best = int(np.argmin(total))     # first minimum: ties go to the earlier candidate
        units[u].choice = best
        placed_box[u] = cand[u].boxes[best]
        if cand[u].distance[best] > leader_from:
            placed_leader[u] = leader_segment(units[u].anchor, cand[u].boxes[best])
        else:
            placed_leader.pop(u, None)

    for u in order:
        choose(u)
    for _ in range(max(rounds - 1, 0)):
        before = [units[u].choice for u in order]
        for u in order:
            choose(u)
        if before == [units[u].choice for u in order]:
            break
    for unit, c in zip(units, cand):
        unit.candidates = c


def _settle(unit: Unit, labels: list[Mobject], layout: LabelLayout, *, leader_from: float,
            leader_opacity: float) -> None:
    """Move a unit's labels to its chosen spot; make its separators and leader line."""
    cand, best = unit.candidates, unit.choice
    shp = unit.shapes[cand.shape[best]]
    centre = cand.centre[best]
    for m, off in zip(unit.members, shp.offsets):
        labels[m].move_to([centre[0] + off[0], centre[1] + off[1], labels[m].get_z()])
        layout.boxes[m] = box_of(labels[m])
    for pos, off in shp.commas:
        owner_label = labels[unit.members[pos]]
        color, opacity = label_color(owner_label)
        comma = make_text(shp.separator, font=style.SERIF,
                          font_size=label_font_size(owner_label), color=color)
        comma.set_opacity(opacity)
        outlined(comma)
        comma.move_to([centre[0] + off[0], centre[1] + off[1], 0])
        layout.extras[unit.members[pos]].add(comma)
    if cand.distance[best] <= leader_from:
        return
    seg = leader_segment(unit.anchor, cand.boxes[best])
    a, b = np.array([*seg[:2], 0.0]), np.array([*seg[2:], 0.0])
    span = np.linalg.norm(b - a)
    if span > 0.1:
        unit_v = (b - a) / span
        first = unit.members[0]
        color, opacity = label_color(labels[first])
        leader = Line(a + unit_v * 0.06, b - unit_v * 0.04)
        leader.set_stroke(color, width=1.5, opacity=leader_opacity * opacity)
        layout.leaders[first] = leader
        layout.extras[first].add(leader)


def _tip_edges(arrow) -> list:
    """The edges of an arrow's tip (a triangle wider than its shaft): a word must keep
    clear of them as of the shaft."""
    tip = getattr(arrow, "tip", None)
    if tip is None or not tip.has_points():
        return []
    corners = [p for n, p in enumerate(tip.get_anchors())
               if n == 0 or np.linalg.norm(p - tip.get_anchors()[n - 1]) > 1e-9]
    return [(a, b) for a, b in zip(corners, corners[1:] + corners[:1])
            if np.linalg.norm(b - a) > 1e-9]


def place_arrow_labels(arrows: Sequence, *, bounds=None, solo: Sequence[int] = (),
                       segments=(), keep_clear=(), priority: Sequence[float] | None = None,
                       **kwargs) -> LabelLayout:
    """:func:`place_labels` for LabelledArrows (arrows without a word are obstacles only):
    anchors at the tips, natural direction along each arrow, every shaft and tip kept
    clear; the leader lines and commas go into each arrow's ``extras``. ``solo`` and
    ``priority`` index ``arrows``. Default priority: solo labels first, then ordinary words
    before special tokens, then longer arrows first (the crowd near the origin fits round
    them)."""
    arrows = list(arrows)
    worded = [n for n, a in enumerate(arrows) if a.word.has_points() or
              any(m.has_points() for m in a.word.get_family())]
    segs = [(a.arrow.get_start(), a.tip_point) for a in arrows] + \
        [edge for a in arrows for edge in _tip_edges(a.arrow)] + list(segments)
    tips = [[*(a.tip_point[:2] - 0.1), *(a.tip_point[:2] + 0.1)] for a in arrows]
    owners = [worded.index(n) if n in worded else -1 for n in range(len(arrows))]
    extra_clear = [box_of(b) for b in keep_clear]
    solo = set(solo)
    if priority is None:
        priority = [1000.0 * (n in solo) + 100.0 * (not arrows[n].special)
                    + float(np.linalg.norm(arrows[n].tip_point - arrows[n].arrow.get_start()))
                    for n in range(len(arrows))]
    layout = place_labels(
        [arrows[n].word for n in worded], [arrows[n].tip_point for n in worded],
        directions=[arrows[n].tip_point - arrows[n].arrow.get_start() for n in worded],
        segments=segs, keep_clear=tips + extra_clear,
        keep_clear_owner=owners + [-1] * len(extra_clear), bounds=bounds,
        priority=[priority[n] for n in worded],
        solo=[worded.index(n) for n in solo if n in worded], **kwargs)
    for k, n in enumerate(worded):
        arrows[n].extras.remove(*arrows[n].extras.submobjects)
        arrows[n].extras.add(*layout.extras[k].submobjects)
    # a word no spot keeps clear of every line stays unnamed: a crowded view names the words
    # it can (a word over an arrow it does not label reads as that arrow's)
    for k in layout.crossed:
        arrows[worded[k]].drop_word()
        arrows[worded[k]].extras.remove(*arrows[worded[k]].extras.submobjects)
    return layout
