"""Beat 4, sparks: the focus token's query meets every key. Each dot product flashes as a
spark whose width and brightness follow the real value; the values fill the focus row of
the QKᵀ grid, then the grid grows to the whole frame and every cell fills."""
from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, LaggedStart,
                   ManimColor, MathTypst, Succession, TransformFromCopy, VGroup,
                   interpolate_color, rate_functions)

from scenes import style
from scenes.base import BeatScene
from scenes.beats.tidy import (caption_mark, fit_width, hold_captions, legible_decimals,
                               magnitude_decimals, make_grid)
from scenes.components import AttentionGrid, Spark, SparkTravel
from scenes.numbers import lookup
from scenes.views import drawn_indices, head_name, token_row, token_word

_BLACK = ManimColor("#000000")
MAX_SAG = 0.85          # how far an arc may hang below the token row
SPARK_SEGMENTS = 36


class GlowSpark(Spark):
    """A Spark drawn with colours pre-multiplied on the black stage instead of stroke
    opacity: the segments' round caps overlap, and translucent overlaps made the glow
    look beaded. The brightest segments are drawn last, so the taper stays smooth."""

    def set_progress(self, position: float) -> "GlowSpark":
        if not hasattr(self, "_halo_segments"):
            self._halo_segments = list(self.halo.submobjects)
            self._core_segments = list(self.core.submobjects)
        width, opacity = self.profile(position)
        opacity = np.clip(opacity, 0.0, 1.0)
        halo, core = ManimColor(self.halo_color), ManimColor(self.core_color)
        under = []
        for seg, w, o in zip(self._halo_segments, width, opacity):
            colour = interpolate_color(_BLACK, halo, float(o) * 0.5)
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

    def tint(self, colour: str) -> "GlowSpark":
        """Recolour (a masked key's spark is red)."""
        self.halo_color = colour
        self.core_color = interpolate_color(ManimColor(colour), ManimColor("#FFFFFF"),
                                            0.35).to_hex()
        return self.set_progress(-1.0)


def arc_angle(chord: float, wanted: float = np.pi * 0.7, sag: float = MAX_SAG) -> float:
    """The arc's angle: ``wanted``, flattened so it hangs at most ``sag`` below its chord
    (a circular arc of angle θ over a chord c hangs c/2 · tan(θ/4))."""
    if chord <= 1e-6:
        return wanted
    return min(wanted, 4 * math.atan(2 * sag / chord))


def qk_grid(scene, indices, *, max_width: float, max_height: float,
            font_size: float = style.FONT_LABEL, titles: bool = True) -> AttentionGrid:
    """The QKᵀ grid over the drawn tokens (queries as rows, keys as columns)."""
    trace = scene.trace
    words = [token_word(trace, i) for i in indices]
    special = [trace.special[i] for i in indices]
    return make_grid(words, special, max_width=max_width, max_height=max_height,
                     font_size=font_size, titles=titles)


def grid_decimals(scene, kind, slot, indices, cell: float | None = None) -> int:
    """One decimal (two for tiny values), fewer when the numbers would not fit a cell of
    ``cell`` legibly, none for three-digit values."""
    values = [lookup(scene.trace, kind, (slot, i, j)) for i in indices for j in indices]
    finite = [abs(v) for v in values if np.isfinite(v)]
    if max(finite, default=0.0) >= 99.95:
        return 0
    decimals = magnitude_decimals(finite, style.SCORE_DECIMALS)
    if cell is None:
        return decimals
    cells = [(slot, i, j) for i in indices for j in indices]
    return legible_decimals(scene, kind, cells, decimals, 0.8 * cell)


def full_qk_grid(scene, indices) -> tuple[AttentionGrid, int]:
    """The QKᵀ grid as the sparks beat ends (the whole frame) and the decimals of its
    numbers; the softmax beat starts from a small copy of it."""
    grid = qk_grid(scene, indices, max_width=10.2, max_height=7.3)
    return grid, grid_decimals(scene, "qk_dot", scene.trace.primary_slot, indices, grid.cell)


def grid_numbers(scene, kind, slot, indices, grid, decimals: int | None = None,
                 font_size: float = style.FONT_NUMBER) -> dict:
    """Recorded numbers of ``kind`` (h, i, j) for every cell of ``grid``, all at one
    scale; keyed by (row, col)."""
    if decimals is None:
        decimals = grid_decimals(scene, kind, slot, indices, grid.cell)
    placed = []
    for r, i in enumerate(indices):
        for c, j in enumerate(indices):
            mob = scene.number(kind, (slot, i, j), decimals=decimals, signed=True,
                               font_size=font_size)
            placed.append((mob, r, c))
    grid.put_all(placed)
    return {(r, c): mob for mob, r, c in placed}


def build_sparks(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    slot, f = trace.primary_slot, trace.focus_index
    indices = drawn_indices(trace)
    fr = indices.index(f)
    n = len(indices)
    word = token_word(trace, f)
    masked = np.asarray(trace.mask, dtype=bool)
    sub = np.ix_(indices, indices)
    any_mask = bool(masked[sub].any())

    first_caption = caption_mark(scene)
    row = token_row(trace, max_width=13.4)
    row.to_edge(UP, buff=0.35)
    for i in indices:
        row.chip(i).set_role_color(pal.query if i == f else pal.key)

    # the grid at its final, full-frame size; it starts smaller under the sparks
    grid, decimals = full_qk_grid(scene, indices)
    title = MathTypst("{{ Q : q }} {{ K^T : k }}", font_size=40, color=pal.text)
    title.select("q").set_color(pal.query)
    title.select("k").set_color(pal.key)
    title_note = scene.label("q \u00b7 k, before scaling", style.FONT_SMALL, pal.dim)
    cells = grid_numbers(scene, "qk_dot", slot, indices, grid, decimals)
    numbers = VGroup(*cells.values())
    box = grid.focus_box(fr)
    red = grid.mask_cells(masked[sub], opacity=0.32) if any_mask else VGroup()
    red_note = (scene.label("red: masked keys,\nset to \u2212\u221e before softmax",
                            style.FONT_SMALL, pal.mask) if any_mask else None)
    body = VGroup(grid, numbers, box, red)
    body.move_to([-1.1, -0.05, 0])
    title.next_to(grid.lines, RIGHT, buff=0.45).align_to(grid.lines, UP)
    title_note.next_to(title, DOWN, buff=0.15, aligned_edge=LEFT)
    if red_note is not None:
        red_note.next_to(title_note, DOWN, buff=0.35, aligned_edge=LEFT)
    side = VGroup(title, title_note, *([red_note] if red_note is not None else []))
    if side.get_right()[0] > 6.9:
        side.shift(LEFT * (side.get_right()[0] - 6.9))

    # the small placement: below the arcs that hang under the row
    room_top = row.chips.get_bottom()[1] - 0.42 - MAX_SAG - 0.1
    whole = VGroup(grid, title, title_note)
    k = min(1.0, (room_top + 3.85) / whole.height, 13.4 / whole.width)
    pivot = np.array([whole.get_center()[0], whole.get_bottom()[1], 0])
    shift = np.array([-pivot[0], -3.85 - pivot[1], 0])     # centred under the row
    small = [grid, box, title, title_note, *[cells[(fr, c)] for c in range(n)]]
    for m in small:
        m.scale(k, about_point=pivot).shift(shift)
    # static layers first: they are baked into the background
    scene.add(row, grid, title, title_note)

    # ---- the sparks ------------------------------------------------------------------------
    dots = np.array([lookup(trace, "qk_dot", (slot, f, j)) for j in indices])
    span = float(dots.max() - dots.min()) or 1.0
    strengths = (dots - dots.min()) / span
    sparks, under = [], VGroup()
    start = row.chip(f).get_bottom()
    for c, j in enumerate(indices):
        end = row.chip(j).get_bottom()
        if j == f:       # the query meets its own key: a small loop under the chip
            sp = GlowSpark(start + LEFT * 0.25, start + RIGHT * 0.25, strengths[c],
                           angle=np.pi * 0.9, seed=c, max_width=22.0,
                           n_segments=SPARK_SEGMENTS, burst_radius=0.12)
        else:
            chord = float(np.linalg.norm(end - start))
            sp = GlowSpark(start, end, strengths[c], angle=arc_angle(chord) / 1.15, seed=c,
                           max_width=22.0, n_segments=SPARK_SEGMENTS, burst_radius=0.12)
        if masked[f, j]:
            sp.tint(pal.mask)
        sparks.append(sp)
        value = scene.number("qk_dot", (slot, f, j), decimals=decimals, signed=True,
                             font_size=style.FONT_NUMBER,
                             color=pal.mask if masked[f, j] else None)
        value.set_opacity(0.45 + 0.55 * strengths[c])
        under.add(value)
    pitch = min(abs(row.chip(b).get_x() - row.chip(a).get_x())
                for a, b in zip(indices, indices[1:])) if n > 1 else 1.0
    fit_width(under, 0.92 * pitch)
    for value, j in zip(under, indices):
        value.next_to(row.chip(j), DOWN, buff=0.12)
    best = int(np.argmax(dots))
    best_text = scene.record_number("qk_dot", (slot, f, indices[best]), decimals)
    spark_time = 3.0 if n <= 9 else 3.6
    scene.play(LaggedStart(*[Succession(SparkTravel(sp, run_time=1.1),
                                        FadeIn(v, scale=1.3, run_time=0.4))
                             for sp, v in zip(sparks, under)],
                           lag_ratio=0.18 if n <= 9 else 0.1),
               run_time=spark_time,
               subcaption=f"{word}'s query meets each key; strongest: "
                          f"{token_word(trace, indices[best])}, {best_text}"
                          + (" (red: masked keys)" if masked[f].any() else ""),
               subcaption_duration=spark_time + 0.5)
    scene.remove(*sparks)
    scene.wait(0.6)

    # ---- the values fly down into the focus row of the grid ---------------------------------
    focus_cells = VGroup(*[cells[(fr, c)] for c in range(n)])
    scene.play(LaggedStart(*[TransformFromCopy(v, cell) for v, cell in zip(under, focus_cells)],
                           lag_ratio=style.LAG_FEW if n <= 9 else style.LAG_MANY * 2),
               Create(box), run_time=1.4, rate_func=style.EASE,
               subcaption=f"They fill {word}'s row of QK\u1d40 (queries down, keys across)",
               subcaption_duration=1.8)
    scene.wait(0.5)

    # ---- the grid takes the frame, and every query meets every key ----------------------------
    early = rate_functions.squish_rate_func(style.EASE, 0.0, 0.45)   # gone before the grid arrives
    scene.play(FadeOut(row, rate_func=early), FadeOut(under, rate_func=early),
               *[m.animate.shift(-shift).scale(1 / k, about_point=pivot) for m in small],
               run_time=1.2, rate_func=style.EASE)
    others = VGroup(*[mob for (r, c), mob in cells.items() if r != fr])
    others.set_opacity(style.FAINT_ROW)
    faint_labels = VGroup(grid.row_labels[:fr], grid.row_labels[fr + 1:])
    scene.play(LaggedStart(*[FadeIn(m, scale=0.6) for m in others], lag_ratio=style.LAG_MANY),
               faint_labels.animate.set_opacity(style.FAINT_ROW),
               run_time=1.6, rate_func=style.EASE,
               subcaption=f"Every query meets every key: all {n} \u00d7 {n} dot "
                          f"products of {head_name(scene)}",
               subcaption_duration=2.3 if not any_mask else 1.5)
    if any_mask:
        red.set_fill(opacity=0)
        scene.add(red)
        scene.bring_to_back(red)
        scene.play(red.animate.set_fill(opacity=0.32), FadeIn(red_note), run_time=0.6,
                   rate_func=style.EASE,
                   subcaption="Red cells are masked: softmax will see them as \u2212\u221e",
                   subcaption_duration=1.5)
    scene.mark_key_frame()
    scene.wait(style.T_PAUSE)
    hold_captions(scene, first_caption)
    scene.clear_stage()


class SparksBeat(BeatScene):
    beat_name = "sparks"
    beat_title = "Queries meet keys"

    def build(self):
        build_sparks(self)
