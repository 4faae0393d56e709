"""What a label's spot costs: the named weights, and the cost of every candidate spot."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .candidates import Candidates, Unit
from .geometry import clip_lengths, overlap_areas

__all__ = ["DEFAULT_COSTS", "LabelCosts", "Obstacles", "spot_costs"]


@dataclass(frozen=True)
class LabelCosts:
    """Weights of the placement cost. Areas are in scene units²; lengths in scene units;
    "count" weights add once per object touched, so even a sliver of overlap counts."""
    overlap_area: float = 600       # covering a placed label
    overlap_count: float = 60
    leader_cut_length: float = 8    # this label's leader line running through a placed label
    leader_cut_count: float = 3
    clear_area: float = 300         # covering an arrow tip or a dot that is not its own
    clear_count: float = 12
    shaft_length: float = 6         # an arrow shaft or a chain segment under the label
    shaft_count: float = 6.0       # (a word crossed by a line is worse than one led to its tip)
    leader_length: float = 3        # another label's leader line under the label
    leader_count: float = 1.0
    outside_area: float = 2000      # leaving the bounds
    outside_count: float = 200
    distance: float = 4.0           # per unit away from the anchor
    needs_leader: float = 1.0       # once a leader line is needed
    turn: float = 1.2               # times (1 - cos) of the turn from the natural direction
    wrap: float = 0.3               # per extra line of a shared label
    wrong_side: float = 0.4         # a wrapped list reads from its aligned edge: not beside it


DEFAULT_COSTS = LabelCosts()


@dataclass
class Obstacles:
    """What every label keeps clear of: shafts, boxes (with the label each belongs to, or
    -1) and the bounds."""
    segments: np.ndarray
    clear: np.ndarray
    owner: np.ndarray
    bounds: np.ndarray | None


def spot_costs(unit: Unit, cand: Candidates, placed_boxes: list, placed_leaders: list,
               obstacles: Obstacles, *, gap: float, leader_from: float,
               costs: LabelCosts = DEFAULT_COSTS) -> np.ndarray:
    """The cost of each candidate spot of ``unit``, given the labels placed so far."""
    boxes, dist, uu = cand.boxes, cand.distance, cand.direction
    pad = np.array([-gap, -gap, gap, gap])
    total = np.zeros(len(boxes))
    if placed_boxes:
        others = np.array(placed_boxes)
        ov = overlap_areas(boxes + pad, others)
        total += costs.overlap_area * ov.sum(1) + costs.overlap_count * (ov > 1e-9).sum(1)
        # this label's own leader (when it would need one) must not cut a placed label
        far = dist > leader_from
        if far.any():
            near = np.clip(unit.anchor, boxes[far, :2], boxes[far, 2:])
            legs = np.hstack([np.tile(unit.anchor, (int(far.sum()), 1)), near])
            ln = clip_lengths(others, legs).T
            total[far] += costs.leader_cut_length * ln.sum(1) + costs.leader_cut_count * (ln > 1e-6).sum(1)
    if len(obstacles.clear):
        mine = np.isin(obstacles.owner, unit.members)
        ov = overlap_areas(boxes, obstacles.clear[~mine])
        total += costs.clear_area * ov.sum(1) + costs.clear_count * (ov > 1e-9).sum(1)
    if len(obstacles.segments):
        ln = clip_lengths(boxes + pad * 0.6, obstacles.segments)
        total += costs.shaft_length * ln.sum(1) + costs.shaft_count * (ln > 1e-6).sum(1)
    if placed_leaders:
        ln = clip_lengths(boxes, np.array(placed_leaders))
        total += costs.leader_length * ln.sum(1) + costs.leader_count * (ln > 1e-6).sum(1)
    if obstacles.bounds is not None:
        inside = overlap_areas(boxes, obstacles.bounds[None, :])[:, 0]
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        out = np.clip(area - inside, 0, None)
        total += costs.outside_area * out + costs.outside_count * (out > 1e-9)
    total += costs.distance * dist + costs.needs_leader * (dist > leader_from)
    total += costs.turn * (1 - uu @ unit.direction)
    kinds = [unit.shapes[s].kind for s in cand.shape]
    total += np.array([unit.shapes[s].cost for s in cand.shape])
    total += costs.wrong_side * np.array([(k == "left" and x < -0.2) or (k == "right" and x > 0.2)
                                          for k, x in zip(kinds, uu[:, 0])])
    return total
