"""Beat 3, project: W_Q, W_K, W_V map each embedding to its query, key and value.

The weight matrices are not in the trace, so the matrix is drawn blank and sized; the
numbers are the real embedding and query. In 2-D, the map is shown as the best 2x2
linear fit carrying the embedding view onto the q/k view (stated on screen), after which
the arrows land on their true 2-D positions.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, ApplyMatrix, FadeIn, FadeOut, GrowArrow,
                   LaggedStart, MathTypst, ReplacementTransform, VGroup)

from scenes import style
from scenes.base import BeatScene
from scenes.beats.embed import embedding_plane
from scenes.components import (LabelledArrow, MatrixVectorSweep, Plane2D, VectorColumn,
                               place_arrow_labels, vector_symbol)
from scenes.projection import fit_linear_map_2d
from scenes.views import (drawn_indices, embedding_view, head_name, named_indices, qk_view,
                          token_word, value_view)

PLANE_CENTER = np.array([3.55, -0.35, 0.0])


def role_arrows(scene, plane, points, indices, color, font_size=style.FONT_SMALL):
    """One role's arrows (q, k or v) in a view; in a crowded view only the focus and the
    words it attends to most are named (``views.named_indices``)."""
    trace = scene.trace
    named = named_indices(trace)
    arrows = [LabelledArrow(plane, points[n], token_word(trace, i), color,
                            special=trace.special[i], font_size=font_size, stroke_width=3.5)
              for n, i in enumerate(indices)]
    for a, i in zip(arrows, indices):
        if i not in named:
            a.drop_word()
    return arrows


class ProjectBeat(BeatScene):
    beat_name = "project"
    beat_title = "Queries, keys and values"

    def build(self):
        trace = self.trace
        pal = style.PALETTE
        slot, f = trace.primary_slot, trace.focus_index
        word = token_word(trace, f)
        indices = drawn_indices(trace)
        d_model, d_k = int(trace.embeddings.shape[-1]), trace.d_k
        head = head_name(self)

        # the embedding view of the last beat, moved to the right half
        _, e_points = embedding_view(trace)
        e_plane, e_arrows = embedding_plane(self, e_points, indices, width=6.0, height=5.2)
        e_plane.note.scale_to_fit_width(min(e_plane.note.width, 6.6))
        e_group = VGroup(e_plane, *e_arrows)
        e_group.shift(PLANE_CENTER - e_plane.plane.get_center())
        e_plane.note.next_to(VGroup(e_plane.plane, *e_arrows), DOWN, buff=0.12)

        # W_Q times the focus embedding equals its query
        emb_col = VectorColumn.from_trace(self, "embeddings", (f,), d_model)
        q_col = VectorColumn.from_trace(self, "q", (slot, f), d_k, bracket_color=pal.query)
        dims_q, dims_e = self.record_number("d_k", (), 0), self.record_number("d_model", (), 0)
        size_note = self.label(f"{dims_q} \u00d7 {dims_e} learned weights (not drawn), "
                               "plus a bias", style.FONT_SMALL, pal.dim)
        w_label = MathTypst("W_Q", color=pal.query, font_size=34)
        sweep = MatrixVectorSweep(w_label, emb_col, q_col, size_note=size_note)
        e_sym = vector_symbol("E", word, font_size=style.FONT_LABEL).next_to(emb_col, UP, buff=0.2)
        q_sym = vector_symbol("q", word, color=pal.query, font_size=style.FONT_LABEL)
        q_sym.next_to(q_col, UP, buff=0.2)
        left = VGroup(sweep, e_sym, q_sym)
        if left.width > 6.3:
            left.scale_to_fit_width(6.3)
        left.move_to([-3.7, 0.2, 0])

        self.add(e_plane, *e_arrows)
        self.play(FadeIn(sweep.static), FadeIn(e_sym), FadeIn(q_sym), run_time=style.T_STEP,
                  rate_func=style.EASE,
                  subcaption=f"Three learned matrices, W_Q, W_K and W_V ({dims_q} \u00d7 "
                             f"{dims_e} each, for {head}), turn every embedding into a "
                             "query, a key and a value",
                  subcaption_duration=3.0)
        self.add_subcaption(f"W_Q times {word}'s embedding, plus a bias, gives {word}'s "
                            f"query: {dims_q} numbers", duration=3.0)
        sweep.play_sweep(self, time_per_row=0.35)
        self.wait(style.T_PAUSE * 0.6)

        # the plane is carried onto the q/k view by the best 2x2 linear fit
        qk_proj, q_points, k_points = qk_view(trace, slot)
        n_shown = self.record_number("num_tokens", (), 0) if len(indices) == trace.num_tokens \
            else str(len(indices))
        qk_note = self.label(f"2-D view: PCA fitted jointly on {head}'s {n_shown} queries "
                             "and keys (uncentred)", style.FONT_SMALL, pal.dim)
        qk_plane = Plane2D(np.vstack([q_points, k_points]), width=6.0, height=5.2, note=qk_note)
        qk_plane.shift(PLANE_CENTER - qk_plane.plane.get_center())
        qk_note.scale_to_fit_width(min(qk_note.width, 6.6)).next_to(qk_plane.plane, DOWN, buff=0.12)
        src = np.array([a.tip_point[:2] for a in e_arrows]) - e_plane.origin[:2]
        dst = np.array([qk_plane.c2p(*p)[:2] for p in q_points]) - qk_plane.origin[:2]
        warp = np.eye(3)
        warp[:2, :2] = fit_linear_map_2d(src, dst)
        warp_note = self.label("the plane carried by the best 2\u00d72 linear fit of "
                               "embedding view \u2192 query view", style.FONT_SMALL, pal.dim)
        warp_note.scale_to_fit_width(min(warp_note.width, 6.6)).move_to(e_plane.note)
        self.play(sweep.animate.set_opacity(0.3), FadeOut(e_sym), q_sym.animate.set_opacity(0.5),
                  ReplacementTransform(e_plane.note, warp_note),
                  run_time=0.6, rate_func=style.EASE)
        self.play(ApplyMatrix(warp, VGroup(e_plane.plane, *e_arrows),
                              about_point=e_plane.origin),
                  run_time=2.0, rate_func=style.EASE,
                  subcaption=f"Seen in 2-D, W_Q turns and stretches space (the best linear "
                             "fit of the real map)",
                  subcaption_duration=2.5)
        # queries and keys share the view: their words are laid out together, once
        q_arrows = role_arrows(self, qk_plane, q_points, indices, pal.query)
        k_arrows = role_arrows(self, qk_plane, k_points, indices, pal.key)
        focus_n = indices.index(f)
        place_arrow_labels(q_arrows + k_arrows, bounds=qk_plane.plane, solo=[focus_n])
        self.play(ReplacementTransform(e_plane.plane, qk_plane.plane),
                  ReplacementTransform(warp_note, qk_note),
                  *[ReplacementTransform(a, b) for a, b in zip(e_arrows, q_arrows)],
                  run_time=1.2, rate_func=style.EASE,
                  subcaption=f"The arrows land as queries (yellow), at their true places in a "
                             f"2-D PCA of {head}'s queries and keys",
                  subcaption_duration=2.4)
        self.wait(0.4)

        # keys in the same view, values in their own
        self.play(LaggedStart(*[GrowArrow(a.arrow) for a in k_arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(VGroup(a.word, a.extras)) for a in k_arrows],
                              lag_ratio=style.LAG_FEW),
                  run_time=1.2, rate_func=style.EASE,
                  subcaption="W_K gives every word a key (teal), in the same view",
                  subcaption_duration=2.0)
        _, v_points = value_view(trace, slot)
        v_note = self.label(f"2-D view: PCA of {head}'s values (uncentred)",
                            style.FONT_SMALL, pal.dim)
        v_plane = Plane2D(v_points, width=4.2, height=4.2, note=v_note)
        v_arrows = role_arrows(self, v_plane, v_points, indices, pal.value)
        place_arrow_labels(v_arrows, bounds=v_plane.plane, solo=[focus_n])
        v_group = VGroup(v_plane, *v_arrows).move_to([-3.7, -0.3, 0])
        v_title = MathTypst("W_V", color=pal.value, font_size=34).next_to(v_plane.plane, UP, buff=0.15)
        self.play(FadeOut(sweep), FadeOut(q_sym), FadeIn(v_plane), FadeIn(v_title),
                  LaggedStart(*[GrowArrow(a.arrow) for a in v_arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(VGroup(a.word, a.extras)) for a in v_arrows],
                              lag_ratio=style.LAG_FEW),
                  run_time=1.5, rate_func=style.EASE,
                  subcaption="W_V gives every word a value (red): what it hands on when "
                             "another word attends to it",
                  subcaption_duration=2.5)
        self.mark_key_frame()
        self.wait(style.T_PAUSE)
        self.clear_stage()
