"""Sparks: a tapered glow travelling along an arc from a query to a key (3b1b's
"ContextAnimation"), its width and brightness set by the real strength of the pair; the
arcs that stay, one per key, as bold and as bright as their strength."""
from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, Animation, ArcBetweenPoints, CapStyleType, Dot, Line,
                   ManimColor, VGroup, interpolate_color)

from . import style

__all__ = ["LOOP_ANGLE", "LOOP_REACH", "SPARK_HUES", "Spark", "SparkTravel", "arc_angle",
           "strength_arc"]

SPARK_HUES = ("#FFD27F", "#FFB347", "#FF9F40", "#FFC857", "#FFE08A")   # warm
LOOP_ANGLE = 1.7 * math.pi     # a query's arc to its own key: a loop under its chip
LOOP_REACH = 0.22              # ... reaching this far to either side of the chip


def arc_angle(chord: float, sag: float, wanted: float = np.pi * 0.7) -> float:
    """An arc's angle: ``wanted``, flattened so it hangs at most ``sag`` below its chord
    (a circular arc of angle θ over a chord c hangs c/2 · tan(θ/4))."""
    if chord <= 1e-6:
        return wanted
    return min(wanted, 4 * math.atan(2 * sag / chord))


def strength_arc(start, end, strength: float, *, sag: float, own: bool = False
                 ) -> ArcBetweenPoints:
    """An arc from a query at ``start`` to a key at ``end`` that hangs below them (at most
    ``sag``), its width and brightness by the ``strength`` in [0, 1] (most thin; the
    theme's arc colour turning to the ink as it grows); ``own``: the query's own key, a loop.
    ``arc.bend`` is its angle (a :class:`Spark` follows it)."""
    color = interpolate_color(ManimColor(style.PALETTE.arc), ManimColor(style.PALETTE.ink),
                              strength ** 2)
    if own:
        bend = LOOP_ANGLE
        arc = ArcBetweenPoints(start + LEFT * LOOP_REACH, start + RIGHT * LOOP_REACH,
                               angle=bend)
    else:
        # counter-clockwise from left to right passes below: hang every arc down
        bend = arc_angle(float(np.linalg.norm(end - start)), sag)
        if end[0] < start[0]:
            bend = -bend
        arc = ArcBetweenPoints(start, end, angle=bend)
    arc.bend = bend
    arc.set_stroke(color, width=1.0 + 7.0 * strength ** 2, opacity=0.35 + 0.65 * strength)
    return arc


class Spark(VGroup):
    """A tapered glow that travels along an arc from ``start`` to ``end``.

    ManimCE has no tapered flash, so the arc is cut into short segments whose stroke
    width and brightness follow a moving bump (a long tail behind, a short head in
    front), each drawn as a wide halo and a thin bright core; a small burst flares at the
    end as the bump arrives. ``strength`` in [0, 1] sets width and brightness (most thin,
    the strong ones bold). Colours are pre-multiplied on the stage instead of using
    stroke opacity: the segments' round caps overlap, and translucent overlaps would look
    beaded; the brightest segments are drawn last, so the taper stays smooth. The hue
    and the arc's bend are jittered with a seeded Generator (``style.SEED`` and
    ``seed``), so a spark is the same in every render. Animate it with
    :class:`SparkTravel`.

    >>> spark = Spark([-2, 0, 0], [2, 0, 0], 0.7).set_progress(0.5)
    >>> bool(spark.profile(0.5)[0].max() > Spark([-2, 0, 0], [2, 0, 0], 0.1).profile(0.5)[0].max())
    True
    """

    def __init__(self, start, end, strength: float, *, angle: float = math.pi / 3,
                 side=DOWN, n_segments: int = 22, seed: int = 0, max_width: float = 14.0,
                 burst_radius: float = 0.22):
        super().__init__()
        rng = np.random.default_rng([style.SEED, int(seed)])
        self.strength = float(min(max(strength, 0.0), 1.0))
        hue = SPARK_HUES[int(rng.integers(len(SPARK_HUES)))]
        start, end = np.asarray(start, float), np.asarray(end, float)
        if np.linalg.norm(end - start) < 1e-6:
            end = end + RIGHT * 1e-3
        # bow the arc toward ``side`` whichever way it runs (a counter-clockwise arc
        # bulges to the right of its chord)
        chord = end - start
        right_of_chord = np.array([chord[1], -chord[0], 0.0])
        sign = 1.0 if np.dot(right_of_chord, np.asarray(side, float)) >= 0 else -1.0
        bend = sign * abs(angle) * float(rng.uniform(0.85, 1.15))
        path = ArcBetweenPoints(start, end, angle=bend)
        ts = np.linspace(0, 1, n_segments + 1)
        pts = [path.point_from_proportion(t) for t in ts]
        self.params = (ts[:-1] + ts[1:]) / 2
        self.halo_color = hue
        self.core_color = interpolate_color(ManimColor(hue), ManimColor(style.PALETTE.ink),
                                            0.55).to_hex()
        self.max_width = max_width
        self.halo = VGroup(*[Line(pts[n], pts[n + 1]) for n in range(n_segments)])
        self.core = VGroup(*[Line(pts[n], pts[n + 1]) for n in range(n_segments)])
        for seg in [*self.halo, *self.core]:     # round caps hide the joints between steps
            seg.set_cap_style(CapStyleType.ROUND)
        self._halo_segments = list(self.halo.submobjects)
        self._core_segments = list(self.core.submobjects)
        self.burst = Dot(end, radius=burst_radius * (0.35 + 0.65 * self.strength), color=hue)
        self.add(self.halo, self.core, self.burst)
        self.set_progress(-1.0)

    @staticmethod
    def bump(t: np.ndarray, position: float, tail: float = 0.22, head: float = 0.06
             ) -> np.ndarray:
        """Brightness along the arc for a glow whose front is at ``position``."""
        d = np.asarray(t, float) - position
        width = np.where(d <= 0, tail, head)
        return np.exp(-(d / width) ** 2)

    def profile(self, position: float) -> tuple[np.ndarray, np.ndarray]:
        """(stroke widths, opacities) of the core segments at a bump position."""
        b = self.bump(self.params, position)
        width = self.max_width * (0.15 + 0.85 * self.strength) * b
        opacity = (0.35 + 0.65 * self.strength) * b
        return width, opacity

    def set_progress(self, position: float) -> "Spark":
        """Place the glow's front at ``position`` (0 = start, 1 = end of the arc)."""
        width, opacity = self.profile(position)
        opacity = np.clip(opacity, 0.0, 1.0)
        halo, core = ManimColor(self.halo_color), ManimColor(self.core_color)
        stage = ManimColor(style.PALETTE.background)
        under = []
        for seg, w, o in zip(self._halo_segments, width, opacity):
            colour = interpolate_color(stage, halo, float(o) * 0.5)
            under.append(colour)
            seg.set_stroke(colour, width=float(w), opacity=1.0)
        for seg, w, o, base in zip(self._core_segments, width, opacity, under):
            seg.set_stroke(interpolate_color(base, core, float(o)), width=float(w) * 0.4,
                           opacity=1.0)
        order = np.argsort(opacity, kind="stable")
        self.halo.submobjects = [self._halo_segments[i] for i in order]
        self.core.submobjects = [self._core_segments[i] for i in order]
        arrive = float(np.exp(-((position - 1.0) / 0.12) ** 2))
        self.burst.set_fill(self.halo_color, opacity=(0.3 + 0.7 * self.strength) * arrive)
        self.burst.set_stroke(width=0)
        return self

    def tint(self, colour: str) -> "Spark":
        """Recolour (a masked key's spark is red)."""
        self.halo_color = colour
        self.core_color = interpolate_color(ManimColor(colour), ManimColor(style.PALETTE.ink),
                                            0.35).to_hex()
        return self.set_progress(-1.0)


class SparkTravel(Animation):
    """Runs a Spark's glow from before its start to past its end (it ends invisible)."""

    def __init__(self, spark: Spark, **kwargs):
        kwargs.setdefault("rate_func", style.EASE)
        kwargs.setdefault("run_time", style.T_SPARK)
        super().__init__(spark, **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        self.mobject.set_progress(-0.25 + 1.5 * alpha)
