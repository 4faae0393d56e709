"""Beat 3, project: W_Q, W_K and W_V turn each embedding into a query, a key and a value.

Left: the primary head's W_Q written out (its real entries in the palette's colours for + and -) times
the focus word's embedding gives its query, a box sweeping row by row; the query's column
then collapses into its symbol, and W_K and W_V follow the same way, faster. Right: the
embedding view is carried by the best 2x2 fit of W_Q between the two views (a stretch,
then a turn; stated on screen), its words riding on their tips, and lands as the 2-D view
of the head's queries; the keys join it.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, FadeIn, FadeOut,
                   FadeTransform, GrowArrow, LaggedStart, ReplacementTransform,
                   Square, VGroup)

from ....attention_core.projection import fit_linear_map_2d, polar_motion, view_signs
from ...vocabulary import colors, stage, style
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import beat_line, head_name
from ...vocabulary.labels import place_arrow_labels
from ...vocabulary.matrices import counted_brace
from ...vocabulary.planes import CarryPlane, LabelledArrow, Plane2D
from ...vocabulary.text import label_text, line_of, make_math
from ...vocabulary.vectors import VectorColumn, shown_components, vector_symbol
from ..views import (LEFT_PANEL, LETTERS, PLANE_H, PLANE_W, RIGHT_CENTER, drawn_indices,
                     embedding_panel, named_indices, place_header, place_note, plot_label,
                     product, qk_view, strip_row, turned_by_position)
from ..wording import focus_name, focus_parts, mark_label

def wrapped_noun(noun: str) -> str:
    """A long name of the layer's input on a line of its own."""
    return noun if len(noun) <= 12 else f"\n{noun}"


__all__ = [
    "MAX_SQUEEZE", "PARKED_Y", "ProjectBeat", "ROLES", "SYMBOLS", "fitted_motion",
    "legend_entry", "line", "role_arrows",
]

PARKED_Y = -2.55                             # the finished q, k, v symbols wait here
PARKED_CELL = 0.15                           # ... each beside its vector, in cells
PARKED_GAP = 0.45                            # ... and the next one after it
MAX_SQUEEZE = 3.0                            # the drawn stretch is at most this lopsided
ROLES = ("queries", "keys", "values")        # W_Q, W_K, W_V: projection 0, 1, 2
SYMBOLS = ("W_Q", "W_K", "W_V")


def line():
    return beat_line("Learned matrices give each word a query, a key and a value")


def role_arrows(trace, plane, points, indices, color, focus_width=None):
    """One role's arrows (q or k) in a view; in a crowded view only the focus and the
    words it attends to most are named."""
    named = named_indices(trace)
    arrows = [LabelledArrow(plane, points[n], mark_label(plot_label(trace, i)), color,
                            special=trace.special[i], font_size=style.FONT_SMALL,
                            stroke_width=(focus_width if focus_width and i == trace.focus_index
                                          else 3.5))
              for n, i in enumerate(indices)]
    for a, i in zip(arrows, indices):
        if i not in named:
            a.drop_word()
    return arrows


def output_cells(book, p: int) -> VectorColumn:
    """The focus word's query, key or value (projection ``p``) as a small column of cells,
    one a number drawn in the product (its sign by colour, larger brighter): the vector
    its parked symbol names."""
    trace, pal = book.trace, style.PALETTE
    kind, index = (("projected", (p, trace.focus_index)) if turned_by_position(trace, p)
                   else (LETTERS[p], (trace.primary_slot, trace.focus_index)))
    scale = max(abs(book.value(kind, (*index, c))) for c in shown_components(trace.d_k)) \
        or 1.0

    def cell(c):
        return Square(PARKED_CELL).set_stroke(width=0).set_fill(
            colors.signed(book.value(kind, (*index, c)), scale, pal.positive, pal.negative),
            1.0)
    return VectorColumn(cell, length=trace.d_k, color_by_magnitude=False,
                        row_height=PARKED_CELL + 0.05, font_size=style.MIN_FONT,
                        bracket_color=pal.projection_color(p))


def legend_entry(p: int) -> VGroup:
    """'W_Q -> queries' in the role's colour."""
    color = style.PALETTE.projection_color(p)
    sym = make_math(SYMBOLS[p], color=color, font_size=style.FONT_LABEL * 1.15)
    arrow = Arrow(LEFT * 0.28, RIGHT * 0.28, buff=0, stroke_width=3.5, color=color,
                  tip_length=0.16, max_tip_length_to_length_ratio=0.5)
    words = label_text(ROLES[p], style.FONT_LABEL, color)
    entry = VGroup(sym, arrow, words).arrange(RIGHT, buff=0.16)
    entry.words = words
    return entry


def fitted_motion(e_plane, e_arrows, q_points, k_points):
    """The q/k view (axis signs chosen so the fit turns least) and the turn and stretch
    carrying the embedding view onto it: (q_points, k_points, motion)."""
    src = np.array([a.tip_point[:2] for a in e_arrows]) - e_plane.origin[:2]
    probe = Plane2D(np.vstack([q_points, k_points]), width=PLANE_W, height=PLANE_H)
    dst = np.array([probe.c2p(*p)[:2] for p in q_points]) - probe.origin[:2]
    signs = view_signs(src, dst)     # a principal direction's sign is a convention
    q_points, k_points, dst = q_points * signs, k_points * signs, dst * signs
    motion = polar_motion(fit_linear_map_2d(src, dst), max_ratio=MAX_SQUEEZE)
    return q_points, k_points, motion


class ProjectBeat(Beat):
    name = "project"

    @classmethod
    def leaves(cls, film) -> Stage:
        return Stage({Role.LINE: line(), Role.MAP: FormulaMap("qkv"), Role.ROW: strip_row(film.trace)})

    def script(self):
        trace = self.trace
        self.slot, self.f = trace.primary_slot, trace.focus_index
        self.word = trace.display_tokens[self.f]
        self.indices = drawn_indices(trace)
        self.head = head_name(self.book, self.slot)
        self.open(line(), "qkv")
        self.query_of_the_focus_word()
        self.the_plane_stretches_and_turns()
        self.keys_by_w_k()
        self.values_by_w_v()

    # ---- W_Q times the focus embedding is its query -------------------------------------------
    def query_of_the_focus_word(self):
        pal, word = style.PALETTE, self.word
        self.prod = prod = product(self.book, 0)
        column = self.stage.get(Role.COLUMN)
        if column is not None:                  # the embed beat's column is W_Q's input
            self.remove(column)
        self.add(prod.vector)
        dims_q, dims_e = self.record("d_k", (), 0), self.record("d_model", (), 0)
        self.w_symbol = make_math("W_Q", color=pal.query, font_size=style.FONT_LABEL * 1.2)
        self.w_symbol.next_to(prod.matrix, UP, buff=0.18)
        e_sym = vector_symbol("E", word, font_size=style.FONT_LABEL).next_to(prod.vector, UP, buff=0.18)
        self.out_symbol = vector_symbol("q", word, color=pal.query, font_size=style.FONT_LABEL)
        self.out_symbol.next_to(prod.output, UP, buff=0.18)
        braces = VGroup(counted_brace(prod.matrix.cells, DOWN, dims_e, "columns"),
                        counted_brace(prod.output, RIGHT, dims_q, ""))
        self.braces, self.e_sym = braces, e_sym
        self.say(f"W_Q: {dims_q} \u00d7 {dims_e} learned numbers, here with their real values")
        self.play(LaggedStart(*[FadeIn(c, scale=0.8) for c in prod.matrix.cells],
                              lag_ratio=style.LAG_MANY),
                  FadeIn(prod.matrix.brackets), FadeIn(prod.matrix.marks),
                  FadeIn(self.w_symbol), FadeIn(e_sym), FadeIn(prod.signs),
                  FadeIn(braces), run_time=style.T_BUILD)
        given = self.trace.input_name[0]
        bias = ", plus a bias" if self.trace.has_bias else " (this model adds no bias)"
        if turned_by_position(self.trace, 0):
            self.say(f"Times the {given} of {focus_name(self.trace)}{bias}: its query "
                     f"before rotary positions turn it, {dims_q} numbers")
        else:
            self.say(f"Times the {given} of {focus_name(self.trace)}{bias}: its query, "
                     f"{dims_q} numbers")
        prod.play_sweep(self, time_per_row=style.T_ROW)
        self.play(FadeIn(self.out_symbol, shift=DOWN * 0.15), run_time=style.T_QUICK)

    # ---- the plane stretches, then turns (the best 2x2 fit of W_Q between views) -----------
    def the_plane_stretches_and_turns(self):
        trace, pal = self.trace, style.PALETTE
        panel = self.stage.get(Role.VIEW) or embedding_panel(self.book)
        if panel not in self.film.mobjects:
            self.play(FadeIn(panel), run_time=style.T_SHORT)
        e_plane, e_arrows = panel.plane, panel.arrows
        _, q_points, k_points = qk_view(trace, self.slot)
        q_points, k_points, motion = fitted_motion(e_plane, e_arrows, q_points, k_points)
        self.qk_plane = Plane2D(np.vstack([q_points, k_points]), width=PLANE_W, height=PLANE_H)
        self.qk_plane.shift(RIGHT_CENTER - self.qk_plane.plane.get_center())
        focus_n = self.indices.index(self.f)
        self.q_arrows = role_arrows(trace, self.qk_plane, q_points, self.indices, pal.query, 5.0)
        self.k_arrows = role_arrows(trace, self.qk_plane, k_points, self.indices, pal.key)
        place_arrow_labels(self.q_arrows + self.k_arrows, bounds=self.qk_plane.plane,
                           segments=self.qk_plane.axes, solo=[focus_n])
        n_shown = (self.record("num_tokens", (), 0) if len(self.indices) == trace.num_tokens
                   else str(len(self.indices)))
        self.qk_note = label_text(f"2-D view: PCA of {self.head}'s\n{n_shown} queries and keys",
                                  style.FONT_SMALL, pal.dim)
        self.qk_note = place_note(self.qk_note, self.qk_plane, self.q_arrows + self.k_arrows)
        fit = label_text(f"in 2-D: the linear map that best\ncarries these "
                         f"{wrapped_noun(trace.input_name[1])} to their queries",
                         style.FONT_SMALL, pal.dim)
        fit = place_note(fit, e_plane, e_arrows)
        self.say("Seen in 2-D, W_Q stretches the plane and turns it")
        self.play(FadeOut(VGroup(*[a.extras for a in e_arrows])), FadeOut(panel.header),
                  FadeTransform(e_plane.note, fit), run_time=style.T_QUICK)
        # the motion lasts as long as its caption is read: a carried plane held still
        # would show its riding words wherever the motion left them (on an axis, a shaft)
        step = max(style.T_STEP, (self.film.caption_free_at - self.film.renderer.time) / 2)
        self.play(CarryPlane(e_plane.plane, e_arrows, e_plane.origin,
                             lambda t: motion.stretching(t, first=True), carry_words=True,
                             avoid=[fit]),
                  run_time=step)
        self.play(CarryPlane(e_plane.plane, e_arrows, e_plane.origin, motion.rotation,
                             shift=lambda t: t * (self.qk_plane.origin - e_plane.origin),
                             carry_words=True, avoid=[fit]), run_time=step)
        self.land_as_queries(panel, fit)

    def land_as_queries(self, panel, fit):
        e_plane, e_arrows = panel.plane, panel.arrows
        self.legend = VGroup(legend_entry(0), legend_entry(1)).arrange(RIGHT, buff=0.5)
        place_header(self.legend, self.qk_plane)
        words = [(a.word, b.word) for a, b in zip(e_arrows, self.q_arrows)]
        if turned_by_position(self.trace, 0):
            normed = ("normed (QK-norm: scaled to one root-mean-square, times a learned gain), "
                      "then " if self.trace.meta.get("qk_norm") else "")
            share = self.trace.meta.get("rotary_share")
            turned = "rotary" if share is None else (
                f"rotary, on its first {int(self.trace.d_k * share)} of {self.trace.d_k} "
                "dimensions")
            self.say(f"Each query is then {normed}turned by angles set by its word\u2019s "
                     f"position ({turned}): they land as queries in {self.head}\u2019s view")
        else:
            self.say(f"They land as queries, at their true places in {self.head}'s view")
        self.play(ReplacementTransform(e_plane.plane, self.qk_plane.plane),
                  *[ReplacementTransform(a.arrow, b.arrow) for a, b in zip(e_arrows, self.q_arrows)],
                  *[ReplacementTransform(a, b) if len(b.submobjects) else FadeOut(a)
                    for a, b in words],
                  FadeIn(VGroup(*[a.extras for a in self.q_arrows])),
                  FadeTransform(fit, self.qk_note),
                  FadeIn(self.legend[0]), run_time=style.T_MOVE)

    # ---- W_K and W_V: the same, faster -----------------------------------------------------------
    def collapse_output(self, p: int):
        """The output column collapses into its symbol, which waits below (3b1b: numbers
        first, then the symbol)."""
        out = self.prod.output
        column = VGroup(out.entries, out.brackets, *([out.dots] if out.dots is not None else []))
        parked = self.out_symbol.copy().move_to([LEFT_PANEL[0] + (p - 1) * 1.6, PARKED_Y, 0])
        before = getattr(self, "parked", [])
        if before:          # after the one parked before it (a long word makes it wide)
            parked.shift(RIGHT * (before[-1].get_right()[0] + PARKED_GAP
                                  - parked.get_left()[0]))
        # the symbol keeps its vector beside it, small: a cell a number, its sign by colour
        cells = output_cells(self.book, p).next_to(parked, RIGHT, buff=0.12)
        self.play(FadeTransform(column, cells),
                  ReplacementTransform(self.out_symbol, parked), FadeOut(self.braces[1]),
                  run_time=style.T_SHORT)
        self.parked = [*getattr(self, "parked", []), VGroup(parked, cells)]

    def swap_matrix(self, p: int):
        """The matrix's entries and symbol become W_K's or W_V's (the layout is the same)."""
        pal, word = style.PALETTE, self.word
        color = pal.projection_color(p)
        new, old = product(self.book, p), self.prod
        new_symbol = make_math(SYMBOLS[p], color=color, font_size=style.FONT_LABEL * 1.2)
        new_symbol.move_to(self.w_symbol)
        self.play(LaggedStart(*[FadeTransform(a, b) for a, b in zip(old.matrix.cells,
                                                                    new.matrix.cells)],
                              lag_ratio=style.LAG_MANY),
                  FadeTransform(self.w_symbol, new_symbol), run_time=style.T_STEP)
        self.out_symbol = vector_symbol(LETTERS[p], word, color=color, font_size=style.FONT_LABEL)
        self.out_symbol.next_to(new.output, UP, buff=0.18)
        self.prod, self.w_symbol = new, new_symbol

    def keys_by_w_k(self):
        self.collapse_output(0)
        self.say(("W_K does the same: every word gets a key, normed and turned by its position "
                  "too, in the same view" if self.trace.meta.get("qk_norm") else
                  "W_K does the same: every word gets a key, turned by its position too, in "
                  "the same view") if turned_by_position(self.trace, 1) else
                 "W_K does the same: every word gets a key, in the same view")
        self.swap_matrix(1)
        self.prod.play_sweep(self, time_per_row=style.T_ROW_FAST)
        # the brace comes back with the column it measures (not before: it would blink)
        self.play(FadeIn(self.out_symbol, shift=DOWN * 0.15), FadeIn(self.braces[1]),
                  LaggedStart(*[GrowArrow(a.arrow) for a in self.k_arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(VGroup(a.word, a.extras)) for a in self.k_arrows],
                              lag_ratio=style.LAG_FEW),
                  FadeIn(self.legend[1]), run_time=style.T_MOVE)

    def values_by_w_v(self):
        self.collapse_output(1)
        self.say("W_V gives every word a value: what it hands on when attended to")
        self.swap_matrix(2)
        self.prod.play_sweep(self, time_per_row=style.T_ROW_FAST)
        self.play(FadeIn(self.out_symbol, shift=DOWN * 0.15), FadeIn(self.braces[1]),
                  run_time=style.T_QUICK)
        pal = style.PALETTE
        names = line_of([("The query and key of ", pal.soft),
                         *[(part, pal.soft) if isinstance(part, str) else
                           (part[1], ("user", pal.query if part[0] == "user" else pal.soft))
                           for part in focus_parts(self.trace)],
                         ("; its value is above", pal.soft)], style.FONT_SMALL)
        names.next_to(VGroup(*self.parked), DOWN, buff=0.3)
        names.shift(RIGHT * max(0.0, stage.LEFT_EDGE - names.get_left()[0]))
        self.play(FadeIn(names, shift=UP * 0.1), run_time=style.T_SHORT)
