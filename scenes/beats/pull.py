"""Beat 6, the pull: the focus word's new vector is the weighted sum of the values.

In a 2-D view of the primary head's value space, every value vector v_j is an arrow with
its word. Each is scaled by its weight, the scaled arrows are chained tip to tail from the
origin, and the chain ends at the weighted sum (the head's output for the focus word).
The focus word's arrow then moves from its own value to that sum: pulled toward the
heavily weighted words, with the weights written on the pulls.

The view is an uncentred PCA of the head's value vectors: a linear map, so the picture of
a weighted sum is the weighted sum of the pictures (the weights sum to 1).

A beat's ``build`` also runs on the Explainer scene, so helpers here are module functions
taking the scene, never methods of this class.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, DashedLine, FadeIn, GrowArrow, Line,
                   MathTypst, NumberPlane, ReplacementTransform, TransformFromCopy, VGroup,
                   Write)

from scenes import style
from scenes.base import BeatScene
from scenes.components import LabelledArrow, Plane2D, label_text, place_labels, user_text
from scenes.projection import fit_pca
from scenes.views import LABEL_ALL_UP_TO   # beyond this only the focus and heavy words are named

PLANE_W, PLANE_H = 7.9, 6.3
PLANE_CENTER = np.array([-2.9, -0.35, 0.0])
CHAIN_SEGMENTS = 12      # beyond this the lightest contributions are drawn as one "rest"
PANEL_ROWS = 9           # beyond this the panel lists the heaviest words only
PANEL_LEFT = 1.7


def value_symbol(word: str, *, color: str, font_size: float = style.FONT_LABEL) -> VGroup:
    """v with an arrow over it and the word as its subscript (the word is user text, so it
    never reaches Typst)."""
    sym = MathTypst("arrow(bold(v))", color=color, font_size=font_size * 1.15)
    sub = user_text(word, font_size * 0.72, color)
    sub.next_to(sym, RIGHT, buff=0.04).align_to(sym, DOWN).shift(DOWN * 0.07)
    return VGroup(sym, sub)


def weight_term(scene, j: int, *, color: str, font_size: float = style.FONT_LABEL) -> VGroup:
    """ "0.38 × v_fish": the weight (read from the trace and recorded) times the value."""
    trace = scene.trace
    w = scene.number("weights", (trace.primary_slot, trace.focus_index, j),
                     decimals=style.WEIGHT_DECIMALS, font_size=font_size, color=color)
    times = label_text("\u00d7", font_size, color)
    sym = value_symbol(trace.display_tokens[j], color=color, font_size=font_size)
    times.next_to(w, RIGHT, buff=0.1)
    sym.next_to(times, RIGHT, buff=0.1)
    sym.shift(UP * (w.get_bottom()[1] - sym[0].get_bottom()[1]) * 0.6)
    return VGroup(w, times, sym)


def value_plane(points: np.ndarray, width: float, height: float, pad: float) -> Plane2D:
    """A Plane2D fitted to the points and the origin with ``pad`` scene units to spare
    around them. The shared Plane2D is symmetric about the origin; value vectors often
    lean one way, so its NumberPlane is swapped for one with the same style over just
    the range the points use (more room for the picture)."""
    lo = np.minimum(points.min(axis=0), 0.0)
    hi = np.maximum(points.max(axis=0), 0.0)
    span = np.maximum(hi - lo, 1e-6)
    scale = min((width - 2 * pad) / span[0], (height - 2 * pad) / span[1])
    lo, hi = lo - pad / scale, hi + pad / scale
    raw = max(float((hi - lo).max()), 1e-9) / 6
    power = 10 ** np.floor(np.log10(raw))
    step = float(next(m * power for m in (1, 2, 5, 10) if raw <= m * power))
    lo = np.floor(lo / step) * step
    hi = np.ceil(hi / step) * step
    scale = min(width / (hi[0] - lo[0]), height / (hi[1] - lo[1]))
    plane = Plane2D(extent=float(np.abs(np.concatenate([lo, hi])).max()), width=width,
                    height=height)
    symmetric = plane.plane
    cropped = NumberPlane(
        x_range=[lo[0], hi[0], step], y_range=[lo[1], hi[1], step],
        x_length=(hi[0] - lo[0]) * scale, y_length=(hi[1] - lo[1]) * scale,
        background_line_style=dict(symmetric.background_line_style), faded_line_ratio=1,
        axis_config={"stroke_color": style.PALETTE.dim, "stroke_width": 1.5,
                     "include_ticks": False, "include_tip": False})
    plane.remove(symmetric)
    plane.plane = cropped
    plane.add(cropped)
    return plane


def layout_pull_labels(plane, arrows, focus, pull_labels, pull_anchors, pull_dirs, new_word,
                       end, segments) -> tuple[VGroup, VGroup]:
    """Lay out every label of the pull picture at once (shared ``place_labels``): the
    value arrows' words, the weights on the chain ("0.38 × v_fish") beside their segments
    and the focus word's new name at the weighted sum, clear of each other, of every
    arrow, chain segment and pull line, inside the plane. The arrows' leader lines go in
    their ``extras``; returns the extras of the weights and of the new name."""
    origin = plane.origin
    worded = [j for j, a in enumerate(arrows) if len(a.word.submobjects)]
    labels = [arrows[j].word for j in worded] + list(pull_labels) + [new_word]
    anchors = [arrows[j].tip_point for j in worded] + list(pull_anchors) + [end]
    dirs = [arrows[j].tip_point - origin for j in worded] + list(pull_dirs) + [end - origin]
    n_words, n_pull = len(worded), len(pull_labels)
    new_n = n_words + n_pull
    solo = [n for n, j in enumerate(worded) if j == focus] + list(range(n_words, new_n + 1))
    priority = ([100.0 + float(np.linalg.norm(arrows[j].tip_point - origin)) + 800 * (j == focus)
                 for j in worded] + [700.0 - n for n in range(n_pull)] + [1000.0])
    tips = [[*(a.tip_point[:2] - 0.1), *(a.tip_point[:2] + 0.1)] for a in arrows]
    owners = [worded.index(j) if j in worded else -1 for j in range(len(arrows))]
    tips.append([*(end[:2] - 0.12), *(end[:2] + 0.12)])
    owners.append(new_n)
    layout = place_labels(
        labels, anchors, directions=dirs,
        segments=[(a.arrow.get_start(), a.tip_point) for a in arrows] + list(segments),
        keep_clear=tips, keep_clear_owner=owners, bounds=plane.plane, priority=priority,
        solo=solo, gap=0.06)
    for n, j in enumerate(worded):
        arrows[j].extras.add(*layout.extras[n].submobjects)
    pull_extras = VGroup(*[m for n in range(n_words, new_n) for m in layout.extras[n]])
    return pull_extras, VGroup(*layout.extras[new_n].submobjects)


def build_pull(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    slot, focus = trace.primary_slot, trace.focus_index
    tokens, special = trace.display_tokens, trace.special
    T = trace.num_tokens
    weights = trace.weights[slot, focus].astype(np.float64)
    view = fit_pca(trace.v[slot])
    tips = view(trace.v[slot])                          # T x 2, value vectors in the view
    total = weights @ tips                              # = view(context[slot, focus])
    head_color = pal.head(trace.primary_head)

    # heavy words: the two largest weights on other, non-special tokens
    others = [j for j in np.argsort(-weights, kind="stable") if j != focus and not special[j]]
    heavy = [int(j) for j in others[:2]]

    # ---- the stage: heading, plane, projection note ---------------------------------
    heading = label_text("Each word takes a weighted sum of the values", style.FONT_BODY)
    heading.to_corner(UP + LEFT, buff=0.4)
    head_tag = label_text(
        f"head {scene.record_number('head', (slot,), 0)}  \u00b7  layer "
        f"{scene.record_number('layer', (), 0)}", style.FONT_LABEL, head_color)
    head_tag.to_corner(UP + RIGHT, buff=0.45)

    pct = scene.record_number("value_view_percent", (slot,), 0)
    note = label_text(f"2-D view: uncentred PCA of this head\u2019s value vectors, keeping "
                      f"{pct} % of their squared length. The map is linear, so a weighted "
                      "sum stays a weighted sum.", style.FONT_SMALL, pal.dim)
    if note.width > 13.4:
        note.scale_to_fit_width(13.4)
    note.to_edge(DOWN, buff=0.22)
    plane = value_plane(tips, PLANE_W, PLANE_H, pad=0.7)
    plane.move_to(PLANE_CENTER)

    # ---- layout first (so every label can be kept clear of the others) ------------------
    origin = plane.origin
    named = set(range(T)) if T <= LABEL_ALL_UP_TO else set(heavy) | {focus} | {
        int(j) for j in np.argsort(-weights, kind="stable")[:5]}
    arrows = []
    for j in range(T):
        la = LabelledArrow(plane, tips[j], tokens[j], pal.value, special=special[j],
                           font_size=style.FONT_LABEL, stroke_width=5 if j == focus else 4)
        if j == focus:
            la.word.set_color(pal.query)        # the word being explained is the query's
            la.word.scale(1.15)
        if j not in named:                       # crowded: only the words that matter
            la.drop_word()
        arrows.append(la)

    # the chain: scaled values tip to tail, heaviest first; the lightest lumped together
    order = [int(j) for j in np.argsort(-weights, kind="stable")]
    shown, rest = order[:CHAIN_SEGMENTS], order[CHAIN_SEGMENTS:]

    def chain_arrow(start, vec_xy, color, width):
        stop = start + (plane.c2p(*vec_xy) - origin)
        if np.linalg.norm(stop - start) < 0.02:
            stop = start + RIGHT * 0.02
        return Arrow(start, stop, buff=0, color=color, stroke_width=width, tip_length=0.16,
                     max_tip_length_to_length_ratio=0.3, max_stroke_width_to_length_ratio=10)

    scaled, chained = VGroup(), VGroup()
    partial = np.zeros(2)
    for j in shown:
        color = pal.special if special[j] else pal.value
        scaled.add(chain_arrow(origin, weights[j] * tips[j], color, 5))
        chained.add(chain_arrow(plane.c2p(*partial), weights[j] * tips[j], color, 5))
        partial = partial + weights[j] * tips[j]
    rest_arrow = chain_arrow(plane.c2p(*partial), weights[rest] @ tips[rest], pal.dim, 3) \
        if rest else None

    # weights written on the heavy pulls, beside their segments, away from the total
    end = plane.c2p(*total)
    pull_labels, pull_anchors, pull_dirs = VGroup(), [], []
    for j, seg in zip(shown, chained):
        if weights[j] < 0.08 or len(pull_labels) >= 4:
            continue
        lab = weight_term(scene, j, color=pal.text, font_size=style.FONT_SMALL)
        d = seg.get_end() - seg.get_start()
        n = np.array([-d[1], d[0], 0.0])
        n = n / (np.linalg.norm(n) or 1.0)
        centre = (seg.get_start() + seg.get_end()) / 2
        if np.dot(n, centre - end) < 0:
            n = -n
        lab.set_stroke(style.BACKGROUND, width=5, background=True)
        pull_labels.add(lab)
        pull_anchors.append(centre)
        pull_dirs.append(n)

    # the focus word's new arrow: from the origin to the weighted sum
    old_tip = arrows[focus].tip_point
    moved = Arrow(origin, end, buff=0, color=pal.output, stroke_width=6, tip_length=0.22,
                  max_tip_length_to_length_ratio=0.25, max_stroke_width_to_length_ratio=10)
    start_copy = Arrow(origin, old_tip, buff=0, color=pal.value, stroke_width=6,
                       tip_length=0.22, max_tip_length_to_length_ratio=0.25,
                       max_stroke_width_to_length_ratio=10)
    change = DashedLine(old_tip, end, dash_length=0.12).set_stroke(pal.highlight, width=3)
    new_word = VGroup(user_text(trace.focus_word, style.FONT_LABEL * 1.15, pal.output),
                      label_text("\u2032", style.FONT_LABEL * 1.15, pal.output))
    new_word.arrange(RIGHT, buff=0.02, aligned_edge=UP)
    new_word.set_stroke(style.BACKGROUND, width=5, background=True)
    magnets = VGroup(*[Line(end, arrows[j].tip_point).set_stroke(
        pal.highlight, width=1 + 4 * float(weights[j]), opacity=0.3 + 0.4 * float(weights[j]))
        for j in heavy])
    pull_extras, new_extras = layout_pull_labels(
        plane, arrows, focus, pull_labels, pull_anchors, pull_dirs, new_word, end,
        segments=[(c.get_start(), c.get_end()) for c in chained]
        + ([(rest_arrow.get_start(), rest_arrow.get_end())] if rest_arrow else [])
        + [(origin, end), (old_tip, end)] + [(m.get_start(), m.get_end()) for m in magnets])

    # ---- value arrows appear ------------------------------------------------------------
    scene.add(plane, note)
    scene.add_subcaption(f"The value vectors of head {trace.primary_head}, seen in a "
                         "2-D projection.", duration=3.0)
    scene.play(FadeIn(heading, shift=DOWN * 0.2), FadeIn(head_tag), run_time=0.8,
               rate_func=style.EASE)
    scene.wait(0.3)
    scene.play(*[GrowArrow(a.arrow) for a in arrows],
               *[FadeIn(VGroup(a.word, a.extras)) for a in arrows if len(a.word.submobjects)],
               run_time=1.4, rate_func=style.EASE)
    scene.wait(0.6)

    # ---- the weights panel -------------------------------------------------------------
    if T <= PANEL_ROWS:
        rows_for = list(range(T))
    else:
        rows_for = sorted(int(j) for j in np.argsort(-weights, kind="stable")[:PANEL_ROWS - 1])
    panel_title = VGroup(user_text(trace.focus_word, style.FONT_LABEL, pal.query),
                         label_text("takes from each word:", style.FONT_LABEL, pal.soft))
    panel_title.arrange(RIGHT, buff=0.14, aligned_edge=DOWN)
    rows = VGroup()
    for j in rows_for:
        strong = weights[j] >= 0.1
        color = pal.special if special[j] else (pal.text if strong else pal.dim)
        rows.add(weight_term(scene, j, color=color))
    row_pitch = min(0.48, 4.0 / max(len(rows), 1))
    times_x = PANEL_LEFT + 0.95
    for n, row in enumerate(rows):
        w, times, sym = row
        times.move_to([times_x, -n * row_pitch, 0])
        w.next_to(times, LEFT, buff=0.12)
        sym.next_to(times, RIGHT, buff=0.12)
        sym.shift(UP * (w.get_bottom()[1] - sym[0].get_bottom()[1]) * 0.5)
    rows.next_to(panel_title, DOWN, buff=0.3)
    rows.shift(RIGHT * (times_x - rows[0][1].get_x()))
    rule = Line(LEFT * 1.7, RIGHT * 1.7).set_stroke(pal.dim, width=1.5)
    rule.next_to(rows, DOWN, buff=0.15).align_to(rows, LEFT)
    total_num = scene.number("weight_sum", (slot, focus), decimals=style.WEIGHT_DECIMALS,
                             font_size=style.FONT_LABEL, color=pal.soft)
    total_words = label_text("in all: the weights sum to one", style.FONT_SMALL, pal.dim)
    total_num.next_to(rule, DOWN, buff=0.18).align_to(rows[0][0], LEFT)
    total_words.next_to(total_num, RIGHT, buff=0.25)
    # baselines: "i" has no descender, so its bottom is the line's baseline
    total_words.shift(UP * (total_num.get_bottom()[1] - total_words[0].get_bottom()[1]))
    total_row = VGroup(total_num, total_words)
    extra = None
    if len(rows_for) < T:
        extra = label_text(f"+ {T - len(rows_for)} more words, each with a small weight",
                           style.FONT_SMALL, pal.dim).next_to(total_row, DOWN, buff=0.12)
        extra.align_to(total_row, LEFT)
    panel_title.align_to(np.array([PANEL_LEFT, 0, 0]), LEFT)
    panel = VGroup(panel_title, rows, rule, total_row, *([extra] if extra else []))
    panel.set_y(0.6)
    formula = VGroup(new_word.copy().set_stroke(width=0, background=True),
                     MathTypst("= sum_j w_j arrow(bold(v))_j", color=pal.output,
                               font_size=style.FONT_LABEL * 1.2))
    formula.arrange(RIGHT, buff=0.15)
    formula.next_to(panel, DOWN, buff=0.45).align_to(panel, LEFT)

    if heavy:
        texts = [scene.record_number("weights", (slot, focus, j), style.WEIGHT_DECIMALS)
                 for j in heavy]
        parts = [f"{texts[0]} of its attention to {trace.display_tokens[heavy[0]]}"]
        parts += [f"{t} to {trace.display_tokens[j]}" for t, j in zip(texts[1:], heavy[1:])]
        scene.add_subcaption(f"{trace.focus_word} gives " + ", ".join(parts) + ".",
                             duration=2.5)
    scene.play(FadeIn(panel_title, shift=LEFT * 0.2),
               *[FadeIn(r, shift=LEFT * 0.2) for r in rows],
               FadeIn(rule), FadeIn(total_row), *([FadeIn(extra)] if extra else []),
               run_time=1.0, rate_func=style.EASE)
    scene.wait(0.6)

    # ---- scale each value by its weight, then chain them tip to tail -------------------
    scene.add_subcaption("Each value vector is scaled by its weight\u2026", duration=1.8)
    scene.play(*[a.animate.set_opacity(0.35) for a in arrows],
               *[TransformFromCopy(arrows[j].arrow, s) for j, s in zip(shown, scaled)],
               run_time=1.2, rate_func=style.EASE)
    scene.wait(0.5)
    scene.add_subcaption("\u2026and the scaled values are added, tip to tail.", duration=2.0)
    scene.play(*[ReplacementTransform(s, c) for s, c in zip(scaled, chained)],
               *([GrowArrow(rest_arrow)] if rest_arrow else []),
               run_time=1.6, rate_func=style.EASE)
    scene.play(FadeIn(pull_labels), FadeIn(pull_extras), run_time=0.6, rate_func=style.EASE)
    scene.wait(0.6)

    # ---- the focus word's arrow moves to the weighted sum -------------------------------
    heavy_words = " and ".join(trace.display_tokens[j] for j in heavy) or "its heavy words"
    scene.add_subcaption(f"{trace.focus_word} is pulled toward {heavy_words}: its new vector "
                         "is the weighted sum.", duration=3.4)
    scene.add(start_copy)
    scene.play(chained.animate.set_opacity(0.5),
               *([rest_arrow.animate.set_opacity(0.4)] if rest_arrow else []),
               ReplacementTransform(start_copy, moved), FadeIn(change),
               TransformFromCopy(arrows[focus].word, new_word), FadeIn(new_extras),
               run_time=1.6, rate_func=style.EASE)
    scene.play(*[FadeIn(m) for m in magnets], Write(formula), run_time=0.8,
               rate_func=style.EASE)
    scene.mark_key_frame()
    scene.wait(1.5)
    scene.clear_stage()


class PullBeat(BeatScene):
    beat_name = "pull"
    beat_title = "The pull: a weighted sum of values"

    def build(self):
        build_pull(self)
