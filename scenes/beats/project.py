"""Beat 3, project: W_Q, W_K, W_V map each embedding to its query, key and value.

The weight matrices are not in the trace, so the matrix is drawn blank and sized; the
numbers are the real embedding, query and key. In 2-D, W_Q is shown as the best 2x2 linear
fit carrying the embedding view onto the q/k view (stated on screen), drawn as a stretch and
then a turn (its polar decomposition, the stretch eased when the fit is nearly
singular); only the grid and the arrows are carried, never text. The arrows then land on
their true 2-D positions, the keys arrive with W_K, and the values get their own view
with W_V.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, AnimationGroup, Arrow, FadeIn, FadeOut, GrowArrow,
                   LaggedStart, MarkupText, MathTypst, Rectangle, ReplacementTransform,
                   Transform, TransformFromCopy, VGroup)

from scenes import style
from scenes.base import BeatScene
from scenes.beats.embed import embedding_plane
from scenes.components import (CarryPlane, LabelledArrow, MatrixVectorSweep, Plane2D,
                               VectorColumn, baseline_drop, place_arrow_labels,
                               vector_symbol)
from scenes.projection import fit_linear_map_2d, polar_motion, view_signs
from scenes.views import (drawn_indices, embedding_view, head_name, named_indices, qk_view,
                          token_word, value_view)

PLANE_W, PLANE_H = 6.2, 5.8              # both views of the beat, and the embedding view
RIGHT_CENTER = np.array([3.55, -0.15, 0.0])
LEFT_CENTER = np.array([-3.6, -0.15, 0.0])
NOTE_WIDTH = 6.7                         # widest a note under a plane may be
MAX_SQUEEZE = 3.0                        # the drawn stretch is at most this lopsided
SYMBOL_SIZE = 34                         # W_Q, W_K, W_V


def role_arrows(scene, plane, points, indices, color, font_size=style.FONT_SMALL,
                focus_width=None):
    """One role's arrows (q, k or v) in a view; in a crowded view only the focus and the
    words it attends to most are named (``views.named_indices``)."""
    trace = scene.trace
    named = named_indices(trace)
    arrows = [LabelledArrow(plane, points[n], token_word(trace, i), color,
                            special=trace.special[i], font_size=font_size,
                            stroke_width=(focus_width if focus_width and i == trace.focus_index
                                          else 3.5))
              for n, i in enumerate(indices)]
    for a, i in zip(arrows, indices):
        if i not in named:
            a.drop_word()
    return arrows


def words_of(arrows):
    """The words (and their leaders and commas) of some LabelledArrows, as one group."""
    return VGroup(*[VGroup(a.word, a.extras) for a in arrows])


def eased(*animations):
    """The animations with the house easing (for groups played with a linear clock)."""
    for a in animations:
        a.rate_func = style.EASE
    return list(animations)


def role_entry(scene, symbol: str, word: str, color: str) -> VGroup:
    """A legend entry 'W_Q -> queries' in a role's colour: ``entry.symbol`` (the matrix's
    name, a copy of which flies in from the matrix), the arrow and the word sit on one
    baseline."""
    sym = MathTypst(symbol, color=color, font_size=SYMBOL_SIZE * 0.85)
    swatch = Arrow(LEFT * 0.28, RIGHT * 0.28, buff=0, stroke_width=3.5, color=color,
                   tip_length=0.16, max_tip_length_to_length_ratio=0.5)
    text = scene.label(word, style.FONT_LABEL, color)
    entry = VGroup(sym, swatch, text).arrange(RIGHT, buff=0.16)
    # the word's baseline on the letter W's foot; the arrow at the word's mid-height
    glyphs = [m for m in sym.get_family() if m.has_points()]
    letter = max(glyphs, key=lambda m: m.height) if glyphs else sym
    base = text.get_bottom()[1] + baseline_drop(text)
    sym.shift(UP * (base - letter.get_bottom()[1]))
    swatch.set_y(base + 0.3 * text.height)
    entry.symbol, entry.swatch, entry.words = sym, swatch, text
    return entry


def baseline_of(header) -> float:
    """The y of a header's baseline (its words' baseline, whatever their descenders)."""
    text = getattr(header, "words", header)
    return text.get_bottom()[1] + baseline_drop(text)


def legend(*entries, buff: float = 0.55) -> VGroup:
    """Legend entries side by side on one baseline."""
    group = VGroup(*entries).arrange(RIGHT, buff=buff)
    for e in entries[1:]:
        e.shift(UP * (baseline_of(entries[0]) - baseline_of(e)))
    group.words = entries[0].words
    return group


def place_plane(plane: Plane2D, center) -> None:
    plane.shift(np.asarray(center) - plane.plane.get_center())


def place_note(note, plane: Plane2D, arrows=()) -> None:
    if note.width > NOTE_WIDTH:
        note.scale_to_fit_width(NOTE_WIDTH)
    note.next_to(VGroup(plane.plane, *arrows), DOWN, buff=0.12)
    note.set_x(plane.plane.get_center()[0])


HEADER_BASELINE = 0.3    # a header's baseline above its plane's top


def place_header(header, plane: Plane2D) -> None:
    """Centre a header over a plane, every header on the same baseline."""
    header.set_x(plane.plane.get_center()[0])
    header.shift(UP * (plane.plane.get_top()[1] + HEADER_BASELINE - baseline_of(header)))


def warp_note(clamped: bool) -> VGroup:
    """What the stretch and turn are, honestly: a fit between two views (our own wording,
    so markup is safe here)."""
    dim = style.PALETTE.dim
    w_q = "<i>W</i><sub><i>Q</i></sub>"
    lines = [f"the plane stretched and turned by the best 2\u00d72 fit of {w_q}",
             "from the embedding view to the query view"
             + (" (squeeze eased to stay readable)" if clamped else "")]
    mobs = [MarkupText(line, font=style.SERIF, font_size=style.FONT_SMALL, color=dim)
            for line in lines]
    note = VGroup(*mobs).arrange(DOWN, buff=0.08)
    # over the moving grid: a black outline, drawn above the arrows
    note.set_stroke(style.BACKGROUND, width=5, background=True).set_z_index(1)
    return note


def glide(arrows, start_origin, end_origin, path):
    """The origin's shift while arrows from ``start_origin`` are turned by ``path(t)``:
    their middle (with the origin's) moves on a straight line to where it is when the
    origin has reached ``end_origin``."""
    start_origin, end_origin = np.asarray(start_origin, float), np.asarray(end_origin, float)
    tips = np.array([a.tip_point[:2] for a in arrows]) - start_origin[:2]

    def middle(t):
        pts = np.vstack([np.zeros(2), tips @ np.asarray(path(t)).T])
        return np.append((pts.min(axis=0) + pts.max(axis=0)) / 2, 0.0)

    first, last = start_origin + middle(0.0), end_origin + middle(1.0)
    return lambda t: first + t * (last - first) - middle(t) - start_origin


def fitted_motion(e_plane, e_arrows, q_points, k_points):
    """The qk view (its axes' signs chosen so the fit keeps orientation with the smallest
    turn) and the turn and stretch carrying the embedding view onto it:
    (q_points, k_points, motion)."""
    src = np.array([a.tip_point[:2] for a in e_arrows]) - e_plane.origin[:2]
    probe = Plane2D(np.vstack([q_points, k_points]), width=PLANE_W, height=PLANE_H)
    dst = np.array([probe.c2p(*p)[:2] for p in q_points]) - probe.origin[:2]
    signs = view_signs(src, dst)     # a principal direction's sign is a convention
    q_points, k_points, dst = q_points * signs, k_points * signs, dst * signs
    motion = polar_motion(fit_linear_map_2d(src, dst), max_ratio=MAX_SQUEEZE)
    return q_points, k_points, motion


class ProjectBeat(BeatScene):
    beat_name = "project"
    beat_title = "Queries, keys and values"

    def build(self):
        trace = self.trace
        pal = style.PALETTE
        slot, f = trace.primary_slot, trace.focus_index
        word = token_word(trace, f)
        indices = drawn_indices(trace)
        focus_n = indices.index(f)
        d_model, d_k = int(trace.embeddings.shape[-1]), trace.d_k
        head = head_name(self)
        n_shown = self.record_number("num_tokens", (), 0) if len(indices) == trace.num_tokens \
            else str(len(indices))

        # ---- the embedding view of the last beat, on the right ---------------------------
        _, e_points = embedding_view(trace)
        e_plane, e_arrows = embedding_plane(self, e_points, indices, width=PLANE_W,
                                            height=PLANE_H)
        VGroup(e_plane, *e_arrows).shift(RIGHT_CENTER - e_plane.plane.get_center())
        place_note(e_plane.note, e_plane, e_arrows)
        e_header = self.label("embeddings", style.FONT_LABEL, pal.text)
        place_header(e_header, e_plane)

        # ---- W_Q times the focus embedding equals its query, on the left -----------------
        emb_col = VectorColumn.from_trace(self, "embeddings", (f,), d_model)
        q_col = VectorColumn.from_trace(self, "q", (slot, f), d_k, bracket_color=pal.query)
        dims_q, dims_e = self.record_number("d_k", (), 0), self.record_number("d_model", (), 0)
        size_note = self.label(f"{dims_q} \u00d7 {dims_e} learned weights (not drawn), "
                               "plus a bias", style.FONT_SMALL, pal.dim)
        w_label = MathTypst("W_Q", color=pal.query, font_size=SYMBOL_SIZE)
        sweep = MatrixVectorSweep(w_label, emb_col, q_col, size_note=size_note)
        e_sym = vector_symbol("E", word, font_size=style.FONT_LABEL).next_to(emb_col, UP, buff=0.2)
        q_sym = vector_symbol("q", word, color=pal.query, font_size=style.FONT_LABEL)
        q_sym.next_to(q_col, UP, buff=0.2)
        left = VGroup(sweep, e_sym, q_sym)
        scale = min(1.0, 6.3 / left.width)
        left.scale(scale).move_to(LEFT_CENTER + UP * 0.35)
        block = VGroup(*[m for m in sweep.static if m is not w_label])

        self.play(FadeIn(VGroup(e_plane.plane, e_plane.note, e_header)),
                  *[FadeIn(a) for a in e_arrows],
                  FadeIn(block), FadeIn(w_label), FadeIn(e_sym), FadeIn(q_sym),
                  run_time=0.9, rate_func=style.EASE,
                  subcaption=f"Three learned matrices, W_Q, W_K and W_V ({dims_q} \u00d7 "
                             f"{dims_e} each, for {head}), turn every embedding into a "
                             "query, a key and a value",
                  subcaption_duration=2.0)
        self.add_subcaption(f"W_Q times {word}'s embedding, plus a bias, gives {word}'s "
                            f"query: {dims_q} numbers", duration=1.5, offset=1.1)
        sweep.play_sweep(self, time_per_row=0.24)
        self.wait(0.4)

        # ---- the plane stretches, then turns (the best 2x2 fit of W_Q between views) -----
        _, q_points, k_points = qk_view(trace, slot)
        q_points, k_points, motion = fitted_motion(e_plane, e_arrows, q_points, k_points)
        qk_note = self.label(f"2-D view: PCA fitted jointly on {head}'s {n_shown} queries "
                             "and keys (uncentred)", style.FONT_SMALL, pal.dim)
        qk_plane = Plane2D(np.vstack([q_points, k_points]), width=PLANE_W, height=PLANE_H)
        place_plane(qk_plane, RIGHT_CENTER)
        q_arrows = role_arrows(self, qk_plane, q_points, indices, pal.query, focus_width=5.0)
        place_arrow_labels(q_arrows, bounds=qk_plane.plane, solo=[focus_n])
        # when the keys arrive, queries and keys share the view: all words laid out afresh
        q_final = role_arrows(self, qk_plane, q_points, indices, pal.query, focus_width=5.0)
        k_arrows = role_arrows(self, qk_plane, k_points, indices, pal.key)
        place_arrow_labels(q_final + k_arrows, bounds=qk_plane.plane, solo=[focus_n])
        place_note(qk_note, qk_plane, q_arrows + q_final + k_arrows)

        note = warp_note(motion.clamped)
        if note.width > NOTE_WIDTH:
            note.scale_to_fit_width(NOTE_WIDTH)
        note.next_to(e_plane.plane, DOWN, buff=0.12).set_x(e_plane.plane.get_center()[0])
        cover = Rectangle(width=left.width + 0.5, height=left.height + 0.5)
        cover.set_stroke(width=0).set_fill(style.BACKGROUND, opacity=style.DIM_OPACITY)
        cover.move_to(left)
        e_words = words_of(e_arrows)
        self.play(FadeIn(cover), FadeOut(e_words), FadeOut(e_header),
                  LaggedStart(FadeOut(e_plane.note), FadeIn(note), lag_ratio=1.0),
                  run_time=0.5, rate_func=style.EASE)
        for a in e_arrows:              # the words are gone: only grid and arrows move
            a.remove(a.word, a.extras)
        # the stretch, about the embedding view's origin; then the turn, which also carries
        # the origin to where the query view's is, the arrows' middle gliding straight
        # there (so the turning fan stays on its half of the stage)
        self.play(CarryPlane(e_plane.plane, e_arrows, e_plane.origin,
                             lambda t: motion.stretching(t, first=True)),
                  run_time=0.9,
                  subcaption="Seen in 2-D, W_Q stretches the plane and turns it (the best "
                             "linear fit of the real map between these two views)",
                  subcaption_duration=1.9)
        self.play(CarryPlane(e_plane.plane, e_arrows, e_plane.origin, motion.rotation,
                             shift=glide(e_arrows, e_plane.origin, qk_plane.origin,
                                         motion.rotation)),
                  run_time=1.0)

        # ---- the arrows land as queries, at their true places in the q/k view ------------
        legend_q = role_entry(self, "W_Q", "queries", pal.query)
        legend_k = role_entry(self, "W_K", "keys", pal.key)
        qk_legend = legend(legend_q, legend_k)
        place_header(qk_legend, qk_plane)
        land = AnimationGroup(*eased(
            ReplacementTransform(e_plane.plane, qk_plane.plane),
            *[ReplacementTransform(a.arrow, b.arrow) for a, b in zip(e_arrows, q_arrows)],
            FadeOut(note), TransformFromCopy(w_label, legend_q.symbol),
            FadeIn(VGroup(legend_q.swatch, legend_q.words))), run_time=1.1)
        # the words (and the view's note) arrive once the arrows are nearly there
        q_words = words_of(q_arrows)
        named = LaggedStart(*eased(FadeIn(qk_note), *[FadeIn(w) for w in q_words]),
                            lag_ratio=style.LAG_FEW, run_time=0.8)
        self.play(AnimationGroup(land, named, lag_ratio=0.6), run_time=1.4,
                  subcaption=f"The arrows land as queries (yellow), at their true places in a "
                             f"2-D PCA of {head}'s queries and keys",
                  subcaption_duration=2.0)
        self.wait(0.6)

        # ---- W_K: the same picture gives every word a key --------------------------------
        k_col = VectorColumn.from_trace(self, "k", (slot, f), d_k, bracket_color=pal.key)
        k_col.scale(scale)
        k_col.shift(q_col.brackets[0].get_center() - k_col.brackets[0].get_center())
        k_sym = vector_symbol("k", word, color=pal.key, font_size=style.FONT_LABEL)
        k_sym.scale(scale).move_to(q_sym)
        wk_label = MathTypst("W_K", color=pal.key, font_size=SYMBOL_SIZE).scale(scale)
        wk_label.move_to(w_label)
        self.play(FadeOut(cover), Transform(w_label, wk_label), Transform(q_sym, k_sym),
                  Transform(q_col.brackets, k_col.brackets),
                  LaggedStart(*[Transform(a, b) for a, b in zip(q_col.entries, k_col.entries)],
                              lag_ratio=style.LAG_FEW),
                  run_time=0.8, rate_func=style.EASE,
                  subcaption=f"W_K, the same way, gives {word} a key, and every word one "
                             "(teal), in the same view",
                  subcaption_duration=2.2)
        self.play(LaggedStart(*[GrowArrow(a.arrow) for a in k_arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(w) for w in words_of(k_arrows)], lag_ratio=style.LAG_FEW),
                  *[ReplacementTransform(a, b) for a, b in zip(q_words, words_of(q_final))],
                  TransformFromCopy(w_label, legend_k.symbol),
                  FadeIn(VGroup(legend_k.swatch, legend_k.words)),
                  run_time=1.0, rate_func=style.EASE)
        self.wait(0.4)

        # ---- W_V: values in their own view, where the matrix was -------------------------
        _, v_points = value_view(trace, slot)
        v_note = self.label(f"2-D view: PCA of {head}'s values (uncentred)",
                            style.FONT_SMALL, pal.dim)
        v_plane = Plane2D(v_points, width=PLANE_W, height=PLANE_H)
        place_plane(v_plane, LEFT_CENTER)
        v_arrows = role_arrows(self, v_plane, v_points, indices, pal.value, focus_width=5.0)
        place_arrow_labels(v_arrows, bounds=v_plane.plane, solo=[focus_n])
        place_note(v_note, v_plane, v_arrows)
        legend_v = role_entry(self, "W_V", "values", pal.value)
        place_header(legend_v, v_plane)
        leaving = VGroup(block, q_col.entries, e_sym, q_sym)
        out = AnimationGroup(*eased(FadeOut(leaving, scale=0.85),
                                    Transform(w_label, legend_v.symbol),
                                    FadeIn(VGroup(legend_v.swatch, legend_v.words))),
                             run_time=0.6)
        grow = AnimationGroup(
            *eased(FadeIn(v_plane.plane), FadeIn(v_note)),
            LaggedStart(*eased(*[GrowArrow(a.arrow) for a in v_arrows]), lag_ratio=style.LAG_FEW),
            LaggedStart(*eased(*[FadeIn(w) for w in words_of(v_arrows)]), lag_ratio=style.LAG_FEW),
            run_time=1.1)
        self.play(AnimationGroup(out, grow, lag_ratio=0.5), run_time=1.4,
                  subcaption="W_V gives every word a value (red): what it hands on when "
                             "another word attends to it",
                  subcaption_duration=2.4)
        self.mark_key_frame()
        self.wait(style.T_PAUSE)
        self.clear_stage()
