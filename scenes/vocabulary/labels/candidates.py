"""Units to place (a label, or a cluster's shared label) and their candidate spots."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .shapes import Shape

__all__ = [
    "Candidates", "DIRECTIONS", "GAPS", "Unit", "candidates", "leader_segment", "make_unit",
]

# how far from its anchor a label may sit, and in how many directions around it
GAPS = np.array([0.05, 0.13, 0.24, 0.38, 0.56, 0.8, 1.1, 1.5])
DIRECTIONS = 32


@dataclass
class Candidates:
    """Every spot a unit may take, one row each: which shape, the real distance from the
    anchor, the centre, the unit direction it lies in, and the box [x0, y0, x1, y1]."""
    shape: np.ndarray
    distance: np.ndarray
    centre: np.ndarray
    direction: np.ndarray
    boxes: np.ndarray = field(repr=False)


@dataclass
class Unit:
    """One block to place: its member labels, the shapes it may take, its anchor (the
    mean of the members' anchors), how far those spread, its natural direction and its
    priority. ``choice`` is the index of the chosen candidate."""
    members: list[int]
    shapes: list[Shape]
    anchor: np.ndarray
    radius: float
    direction: np.ndarray
    priority: float
    choice: int | None = None
    candidates: Candidates | None = None


def make_unit(members, shapes, anchors, dirs, priority) -> Unit:
    anchor = anchors[members].mean(axis=0)
    radius = float(max(np.linalg.norm(anchors[j] - anchor) for j in members))
    d = dirs[members].sum(axis=0)
    d = d / np.linalg.norm(d) if np.linalg.norm(d) > 1e-9 else dirs[members[0]]
    return Unit(members, shapes, anchor, radius, d,
                float(max(priority[j] for j in members)))


def candidates(unit: Unit) -> Candidates:
    """Spots at each gap, in each direction around the anchor, for each shape. Angles
    alternate around the natural direction (0, +1, -1, +2, -2, ...), so ties go to the
    spot nearest it."""
    base = math.atan2(unit.direction[1], unit.direction[0])
    steps = [0] + [s for k in range(1, DIRECTIONS // 2 + 1) for s in (k, -k)][:DIRECTIONS - 1]
    ang = base + np.array(steps) * (2 * math.pi / DIRECTIONS)
    us = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    rows = []
    for si, shp in enumerate(unit.shapes):
        support = 0.5 * (shp.width * np.abs(us[:, 0]) + shp.height * np.abs(us[:, 1]))
        for g in GAPS:
            centres = unit.anchor + us * (support + unit.radius + g)[:, None]
            for a in range(len(ang)):
                rows.append((si, g, a, centres[a], us[a]))
    si = np.array([r[0] for r in rows])
    c = np.array([r[3] for r in rows])
    uu = np.array([r[4] for r in rows])
    w = np.array([unit.shapes[s].width for s in si])
    h = np.array([unit.shapes[s].height for s in si])
    boxes = np.stack([c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2], 1)
    # how far the label really is from its anchor (a diagonal spot is farther than its
    # gap): this sets the distance cost and whether a leader line is drawn
    near = np.clip(unit.anchor, boxes[:, :2], boxes[:, 2:])
    dist = np.linalg.norm(near - unit.anchor, axis=1)
    return Candidates(si, dist, c, uu, boxes)


def leader_segment(anchor: np.ndarray, box: np.ndarray) -> np.ndarray:
    """[x0, y0, x1, y1]: from the anchor to the nearest point of a label's box."""
    near = np.clip(anchor, box[:2], box[2:])
    return np.array([*anchor, *near])
