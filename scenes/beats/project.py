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

from ...attention_core.projection import fit_linear_map_2d, polar_motion, view_signs
from .. import style
from ..film import Beat
from ..headers import head_name
from ..labels import baseline_drop, place_arrow_labels
from ..matrices import MatrixVectorSweep
from ..planes import CarryPlane, LabelledArrow, Plane2D
from ..text import label_text
from ..vectors import VectorColumn, vector_symbol
from ..views import (drawn_indices, embedding_plane, embedding_view, named_indices, qk_view,
                     token_word, value_view)

PLANE_W, PLANE_H = 6.2, 5.8              # both views of the beat, and the embedding view
RIGHT_CENTER = np.array([3.55, -0.15, 0.0])
LEFT_CENTER = np.array([-3.6, -0.15, 0.0])
NOTE_WIDTH = 6.7                         # widest a note under a plane may be
MAX_SQUEEZE = 3.0                        # the drawn stretch is at most this lopsided
SYMBOL_SIZE = 34                         # W_Q, W_K, W_V


def role_arrows(trace, plane, points, indices, color, font_size=style.FONT_SMALL,
                focus_width=None):
    """One role's arrows (q, k or v) in a view; in a crowded view only the focus and the
    words it attends to most are named (``views.named_indices``)."""
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


def role_entry(symbol: str, word: str, color: str) -> VGroup:
    """A legend entry 'W_Q -> queries' in a role's colour: ``entry.symbol`` (the matrix's
    name, a copy of which flies in from the matrix), the arrow and the word sit on one
    baseline."""
    sym = MathTypst(symbol, color=color, font_size=SYMBOL_SIZE * 0.85)
    swatch = Arrow(LEFT * 0.28, RIGHT * 0.28, buff=0, stroke_width=3.5, color=color,
                   tip_length=0.16, max_tip_length_to_length_ratio=0.5)
    text = label_text(word, style.FONT_LABEL, color)
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


class ProjectBeat(Beat):
    name = "project"

    def script(self):
        trace = self.trace
        self.slot, self.f = trace.primary_slot, trace.focus_index
        self.word = token_word(trace, self.f)
        self.indices = drawn_indices(trace)
        self.focus_n = self.indices.index(self.f)
        self.head = head_name(self.book, self.slot)
        self.n_shown = (self.record("num_tokens", (), 0)
                        if len(self.indices) == trace.num_tokens else str(len(self.indices)))
        self.embedding_view_on_the_right()
        self.query_of_the_focus_word()
        self.plane_stretches_and_turns()
        self.arrows_land_as_queries()
        self.keys_by_w_k()
        self.values_by_w_v()

    # ---- the embedding view of the last beat, on the right ---------------------------------
    def embedding_view_on_the_right(self):
        _, e_points = embedding_view(self.trace)
        self.e_plane, self.e_arrows = embedding_plane(self.book, e_points, self.indices,
                                                      width=PLANE_W, height=PLANE_H)
        VGroup(self.e_plane, *self.e_arrows).shift(RIGHT_CENTER - self.e_plane.plane.get_center())
        place_note(self.e_plane.note, self.e_plane, self.e_arrows)
        self.e_header = label_text("embeddings", style.FONT_LABEL, style.PALETTE.text)
        place_header(self.e_header, self.e_plane)

    # ---- W_Q times the focus embedding equals its query, on the left -----------------------
    def query_of_the_focus_word(self):
        trace, pal, f, word = self.trace, style.PALETTE, self.f, self.word
        d_model, d_k = int(trace.embeddings.shape[-1]), trace.d_k
        emb_col = VectorColumn.from_trace(self.book, "embeddings", (f,), d_model)
        self.q_col = VectorColumn.from_trace(self.book, "q", (self.slot, f), d_k,
                                             bracket_color=pal.query)
        dims_q, dims_e = self.record("d_k", (), 0), self.record("d_model", (), 0)
        size_note = label_text(f"{dims_q} \u00d7 {dims_e} learned weights (not drawn), "
                               "plus a bias", style.FONT_SMALL, pal.dim)
        self.w_label = MathTypst("W_Q", color=pal.query, font_size=SYMBOL_SIZE)
        sweep = MatrixVectorSweep(self.w_label, emb_col, self.q_col, size_note=size_note)
        self.e_sym = vector_symbol("E", word, font_size=style.FONT_LABEL).next_to(emb_col, UP,
                                                                                  buff=0.2)
        self.q_sym = vector_symbol("q", word, color=pal.query, font_size=style.FONT_LABEL)
        self.q_sym.next_to(self.q_col, UP, buff=0.2)
        self.left = VGroup(sweep, self.e_sym, self.q_sym)
        self.scale = min(1.0, 6.3 / self.left.width)
        self.left.scale(self.scale).move_to(LEFT_CENTER + UP * 0.35)
        self.block = VGroup(*[m for m in sweep.static if m is not self.w_label])

        self.play(FadeIn(VGroup(self.e_plane.plane, self.e_plane.note, self.e_header)),
                  *[FadeIn(a) for a in self.e_arrows],
                  FadeIn(self.block), FadeIn(self.w_label), FadeIn(self.e_sym),
                  FadeIn(self.q_sym), run_time=style.T_STEP, rate_func=style.EASE,
                  subcaption=f"Three learned matrices, W_Q, W_K and W_V ({dims_q} \u00d7 "
                             f"{dims_e} each, for {self.head}), turn every embedding into a "
                             "query, a key and a value",
                  subcaption_duration=2.0)
        self.caption(f"W_Q times {word}'s embedding, plus a bias, gives {word}'s "
                     f"query: {dims_q} numbers", duration=1.5, offset=1.1)
        sweep.play_sweep(self.film, time_per_row=0.24)
        self.wait(style.T_FLICK)

    # ---- the plane stretches, then turns (the best 2x2 fit of W_Q between views) -----------
    def plane_stretches_and_turns(self):
        trace, pal = self.trace, style.PALETTE
        e_plane, e_arrows = self.e_plane, self.e_arrows
        _, q_points, k_points = qk_view(trace, self.slot)
        q_points, k_points, motion = fitted_motion(e_plane, e_arrows, q_points, k_points)
        self.qk_note = label_text(f"2-D view: PCA fitted jointly on {self.head}'s "
                                  f"{self.n_shown} queries and keys (uncentred)",
                                  style.FONT_SMALL, pal.dim)
        self.qk_plane = Plane2D(np.vstack([q_points, k_points]), width=PLANE_W, height=PLANE_H)
        place_plane(self.qk_plane, RIGHT_CENTER)
        self.q_arrows = role_arrows(trace, self.qk_plane, q_points, self.indices, pal.query,
                                    focus_width=5.0)
        place_arrow_labels(self.q_arrows, bounds=self.qk_plane.plane, solo=[self.focus_n])
        # when the keys arrive, queries and keys share the view: all words laid out afresh
        self.q_final = role_arrows(trace, self.qk_plane, q_points, self.indices, pal.query,
                                   focus_width=5.0)
        self.k_arrows = role_arrows(trace, self.qk_plane, k_points, self.indices, pal.key)
        place_arrow_labels(self.q_final + self.k_arrows, bounds=self.qk_plane.plane,
                           solo=[self.focus_n])
        place_note(self.qk_note, self.qk_plane, self.q_arrows + self.q_final + self.k_arrows)

        self.note = warp_note(motion.clamped)
        if self.note.width > NOTE_WIDTH:
            self.note.scale_to_fit_width(NOTE_WIDTH)
        self.note.next_to(e_plane.plane, DOWN, buff=0.12).set_x(e_plane.plane.get_center()[0])
        self.cover = Rectangle(width=self.left.width + 0.5, height=self.left.height + 0.5)
        self.cover.set_stroke(width=0).set_fill(style.BACKGROUND, opacity=style.DIM_OPACITY)
        self.cover.move_to(self.left)
        self.play(FadeIn(self.cover), FadeOut(words_of(e_arrows)), FadeOut(self.e_header),
                  LaggedStart(FadeOut(e_plane.note), FadeIn(self.note), lag_ratio=1.0),
                  run_time=style.T_QUICK, rate_func=style.EASE)
        for a in e_arrows:              # the words are gone: only grid and arrows move
            a.remove(a.word, a.extras)
        # the stretch, about the embedding view's origin; then the turn, which also carries
        # the origin to where the query view's is, the arrows' middle gliding straight
        # there (so the turning fan stays on its half of the stage)
        self.play(CarryPlane(e_plane.plane, e_arrows, e_plane.origin,
                             lambda t: motion.stretching(t, first=True)),
                  run_time=style.T_STEP,
                  subcaption="Seen in 2-D, W_Q stretches the plane and turns it (the best "
                             "linear fit of the real map between these two views)",
                  subcaption_duration=1.9)
        self.play(CarryPlane(e_plane.plane, e_arrows, e_plane.origin, motion.rotation,
                             shift=glide(e_arrows, e_plane.origin, self.qk_plane.origin,
                                         motion.rotation)),
                  run_time=style.T_STEP)

    # ---- the arrows land as queries, at their true places in the q/k view ------------------
    def arrows_land_as_queries(self):
        pal = style.PALETTE
        self.legend_q = role_entry("W_Q", "queries", pal.query)
        self.legend_k = role_entry("W_K", "keys", pal.key)
        qk_legend = legend(self.legend_q, self.legend_k)
        place_header(qk_legend, self.qk_plane)
        land = AnimationGroup(*eased(
            ReplacementTransform(self.e_plane.plane, self.qk_plane.plane),
            *[ReplacementTransform(a.arrow, b.arrow) for a, b in zip(self.e_arrows, self.q_arrows)],
            FadeOut(self.note), TransformFromCopy(self.w_label, self.legend_q.symbol),
            FadeIn(VGroup(self.legend_q.swatch, self.legend_q.words))), run_time=1.1)
        # the words (and the view's note) arrive once the arrows are nearly there
        self.q_words = words_of(self.q_arrows)
        named = LaggedStart(*eased(FadeIn(self.qk_note), *[FadeIn(w) for w in self.q_words]),
                            lag_ratio=style.LAG_FEW, run_time=style.T_SHORT)
        self.play(AnimationGroup(land, named, lag_ratio=0.6), run_time=style.T_MOVE,
                  subcaption=f"The arrows land as queries ({pal.query_name}), at their true "
                             f"places in a 2-D PCA of {self.head}'s queries and keys",
                  subcaption_duration=2.0)
        self.wait(style.T_BREATH)

    # ---- W_K: the same picture gives every word a key --------------------------------------
    def keys_by_w_k(self):
        pal, word, scale = style.PALETTE, self.word, self.scale
        q_col, q_sym = self.q_col, self.q_sym
        k_col = VectorColumn.from_trace(self.book, "k", (self.slot, self.f), self.trace.d_k,
                                        bracket_color=pal.key)
        k_col.scale(scale)
        k_col.shift(q_col.brackets[0].get_center() - k_col.brackets[0].get_center())
        k_sym = vector_symbol("k", word, color=pal.key, font_size=style.FONT_LABEL)
        k_sym.scale(scale).move_to(q_sym)
        wk_label = MathTypst("W_K", color=pal.key, font_size=SYMBOL_SIZE).scale(scale)
        wk_label.move_to(self.w_label)
        self.play(FadeOut(self.cover), Transform(self.w_label, wk_label), Transform(q_sym, k_sym),
                  Transform(q_col.brackets, k_col.brackets),
                  LaggedStart(*[Transform(a, b) for a, b in zip(q_col.entries, k_col.entries)],
                              lag_ratio=style.LAG_FEW),
                  run_time=style.T_SHORT, rate_func=style.EASE,
                  subcaption=f"W_K, the same way, gives {word} a key, and every word one "
                             f"({pal.key_name}), in the same view",
                  subcaption_duration=2.2)
        self.play(LaggedStart(*[GrowArrow(a.arrow) for a in self.k_arrows],
                              lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(w) for w in words_of(self.k_arrows)],
                              lag_ratio=style.LAG_FEW),
                  *[ReplacementTransform(a, b) for a, b in zip(self.q_words,
                                                               words_of(self.q_final))],
                  TransformFromCopy(self.w_label, self.legend_k.symbol),
                  FadeIn(VGroup(self.legend_k.swatch, self.legend_k.words)),
                  run_time=style.T_STEP, rate_func=style.EASE)
        self.wait(style.T_FLICK)

    # ---- W_V: values in their own view, where the matrix was -------------------------------
    def values_by_w_v(self):
        trace, pal = self.trace, style.PALETTE
        _, v_points = value_view(trace, self.slot)
        v_note = label_text(f"2-D view: PCA of {self.head}'s values (uncentred)",
                            style.FONT_SMALL, pal.dim)
        v_plane = Plane2D(v_points, width=PLANE_W, height=PLANE_H)
        place_plane(v_plane, LEFT_CENTER)
        v_arrows = role_arrows(trace, v_plane, v_points, self.indices, pal.value,
                               focus_width=5.0)
        place_arrow_labels(v_arrows, bounds=v_plane.plane, solo=[self.focus_n])
        place_note(v_note, v_plane, v_arrows)
        legend_v = role_entry("W_V", "values", pal.value)
        place_header(legend_v, v_plane)
        leaving = VGroup(self.block, self.q_col.entries, self.e_sym, self.q_sym)
        out = AnimationGroup(*eased(FadeOut(leaving, scale=0.85),
                                    Transform(self.w_label, legend_v.symbol),
                                    FadeIn(VGroup(legend_v.swatch, legend_v.words))),
                             run_time=0.6)
        grow = AnimationGroup(
            *eased(FadeIn(v_plane.plane), FadeIn(v_note)),
            LaggedStart(*eased(*[GrowArrow(a.arrow) for a in v_arrows]), lag_ratio=style.LAG_FEW),
            LaggedStart(*eased(*[FadeIn(w) for w in words_of(v_arrows)]), lag_ratio=style.LAG_FEW),
            run_time=1.1)
        self.play(AnimationGroup(out, grow, lag_ratio=0.5), run_time=style.T_MOVE,
                  subcaption=f"W_V gives every word a value ({pal.value_name}): what it hands "
                             "on when another word attends to it",
                  subcaption_duration=2.4)
