"""Beat 4, sparks: the focus word's query meets every key. A bundle of arcs leaves its chip
for every key, staggered, each lit by a glow that runs along it once; the arcs stay, their
width and brightness set by the real q·k (hairlines and bold ones, a loop for its own
key), and the dot products are written under the keys. Below, the strongest is worked
out: the sum of its d_k products of the query's and the key's entries. The bundle then
collapses into the focus row of the QKᵀ grid, and every other row fills."""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, LaggedStart, Succession,
                   TransformFromCopy, VGroup)

from ...vocabulary import colors, style
from ....attention_core.variants import head_blocked
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import FormulaMap
from ...vocabulary.grid import AttentionGrid, make_grid
from ...vocabulary.headers import beat_line, head_name
from ..readouts import format_number, magnitude_decimals
from ...vocabulary.sparks import Spark, SparkTravel, strength_arc
from ...vocabulary.text import dimmed, fit_width, label_text, line_of, make_math, make_text
from ..views import (drawn_indices, ranked_groups, reads_from_right, strip_row, tied,
                     token_word)
from ..wording import focus_name, focus_parts, word_name, words_named

__all__ = [
    "GRID_BOX", "GRID_CENTER", "MAX_SAG", "QKGrid", "SPARK_SEGMENTS", "SparksBeat", "WORKED_WIDTH",
    "grid_decimals", "line", "qk_grid",
]

MAX_SAG = 0.8             # how far an arc hangs below the values under the strip
GRID_BOX = (9.0, 6.6)     # the QKᵀ grid, labels included: the body and the strip's band
GRID_CENTER = np.array([-0.9, -0.5, 0.0])
SPARK_SEGMENTS = 30
WORKED_WIDTH = 12.5       # the strongest dot product worked out, under the arcs


def line(trace):
    return beat_line("The query of ", *focus_parts(trace), " meets every key: a dot product each")


def qk_grid(trace, indices, *, max_width: float, max_height: float) -> AttentionGrid:
    """The QKᵀ grid over the drawn tokens (queries as rows, keys as columns)."""
    words = [token_word(trace, i) for i in indices]
    special = [trace.special[i] for i in indices]
    return make_grid(words, special, max_width=max_width, max_height=max_height,
                     font_size=style.FONT_LABEL, right_to_left=reads_from_right(trace))


def grid_decimals(book, kind, slot, indices, cell: float) -> int | None:
    """Decimals for the grid's numbers (one, two for tiny values, none for three-digit
    ones), or None when no number fits a cell legibly (the cells show colours then)."""
    values = [abs(book.value(kind, (slot, i, j))) for i in indices for j in indices]
    finite = [v for v in values if np.isfinite(v)]
    wanted = 0 if max(finite, default=0.0) >= 99.95 else magnitude_decimals(finite, 1)
    cells = [(slot, i, j) for i in indices for j in indices]
    decimals = book.legible_decimals(kind, cells, wanted, 0.84 * cell)
    # the widest number decides, measured: of those written with the most characters, each
    # text once (the serif's digits are not all as wide: "+13" is wider than "+31")
    written = {format_number(book.value(kind, c), decimals, True): c for c in cells}
    most = max(len(t) for t in written)
    widest = 0.0
    for text, c in written.items():
        if len(text) == most:
            probe = book.text_mobject(kind, c, decimals=decimals, signed=True,
                                      font_size=style.MIN_FONT)
            book.shown.pop()                            # a probe, not drawn
            widest = max(widest, probe.width)
    return decimals if widest <= 0.84 * cell else None


class QKGrid(VGroup):
    """The whole QKᵀ grid as the sparks beat leaves it: every dot product, written when
    legible (else a colour per cell: the palette's positive and negative colours), the focus row boxed and
    the other rows faint. ``self.cells[(r, c)]``; ``self.box``."""

    def __init__(self, book):
        super().__init__()
        trace = book.trace
        slot, f = trace.primary_slot, trace.focus_index
        self.indices = indices = drawn_indices(trace)
        self.focus_row = fr = indices.index(f)
        self.grid = grid = qk_grid(trace, indices, max_width=GRID_BOX[0], max_height=GRID_BOX[1])
        self.decimals = grid_decimals(book, "qk_dot", slot, indices, grid.cell)
        scale = max(abs(book.value("qk_dot", (slot, i, j))) for i in indices for j in indices)
        self.cells = {}
        for r, i in enumerate(indices):
            for c, j in enumerate(indices):
                if self.decimals is None:
                    value = book.value("qk_dot", (slot, i, j))
                    mob = grid.cell_square(r, c).scale(0.92).set_stroke(width=0).set_fill(
                        colors.signed(value, scale, style.PALETTE.positive,
                                      style.PALETTE.negative), 0.9)
                else:
                    mob = book.text_mobject("qk_dot", (slot, i, j), decimals=self.decimals,
                                            signed=True, font_size=style.FONT_SMALL)
                self.cells[(r, c)] = mob
        if self.decimals is not None:
            grid.put_all([(m, r, c) for (r, c), m in self.cells.items()], fill=0.86)
        for (r, _), mob in self.cells.items():
            if r != fr:
                mob.set_opacity(style.FAINT_ROW if self.decimals is not None else 0.5)
        VGroup(*grid.row_labels[:fr], *grid.row_labels[fr + 1:]).set_opacity(style.FAINT_ROW)
        self.box = grid.focus_box(fr)
        self.add(grid, VGroup(*self.cells.values()), self.box)
        self.move_to(GRID_CENTER)
        title = make_math("{{ Q : q }} {{ K^T : k }}", font_size=40, color=style.PALETTE.text)
        title.select("q").set_color(style.PALETTE.query)
        title.select("k").set_color(style.PALETTE.key)
        title.next_to(grid.lines, RIGHT, buff=0.5).align_to(grid.lines, UP)
        note = label_text("q \u00b7 k,\nbefore\nscaling", style.FONT_SMALL, style.PALETTE.dim)
        note.next_to(title, DOWN, buff=0.2, aligned_edge=LEFT)
        self.title = VGroup(title, note)
        self.add(self.title)

    def row_cells(self, r: int) -> list:
        return [self.cells[(r, c)] for c in range(len(self.indices))]


class SparksBeat(Beat):
    name = "sparks"

    @classmethod
    def leaves(cls, film) -> Stage:
        trace = film.trace
        return Stage({Role.LINE: line(trace), Role.MAP: FormulaMap("scores"),
                      Role.GRID: QKGrid(film.book)})

    def script(self):
        trace = self.trace
        self.slot, self.f = trace.primary_slot, trace.focus_index
        self.indices = drawn_indices(trace)
        self.word = token_word(trace, self.f)
        self.row = self.stage.get(Role.ROW) or strip_row(trace)
        pal = style.PALETTE
        self.open(line(trace), "scores",
                  *[self.row.chip(i).animate.set_role_color(pal.query if i == self.f else pal.key)
                    for i in self.indices])
        self.the_bundle()
        self.the_strongest_worked_out()
        self.into_the_focus_row()
        self.every_query_meets_every_key()

    def dots(self) -> np.ndarray:
        return np.array([self.book.value("qk_dot", (self.slot, self.f, j)) for j in self.indices])

    # ---- the bundle: the query's arcs to every key, all visible together ---------------------
    def the_bundle(self):
        trace, pal, row = self.trace, style.PALETTE, self.row
        dots = self.dots()
        blocked = head_blocked(trace, self.slot)[self.f]
        strength = (dots - dots.min()) / (float(dots.max() - dots.min()) or 1.0)
        self.grid = QKGrid(self.book)
        # written as the grid will write them, so each number lands in its cell unchanged
        decimals = (self.grid.decimals if self.grid.decimals is not None
                    else magnitude_decimals(list(np.abs(dots)), 1))
        pitch = min(abs(row.chip(b).get_x() - row.chip(a).get_x())
                    for a, b in zip(self.indices, self.indices[1:])) if len(self.indices) > 1 else 1.0
        # the products under the keys, when they fit there legibly (else the arcs alone)
        widest = max(make_text(format_number(float(d), decimals, signed=True), font=style.SERIF,
                               font_size=style.MIN_FONT).width for d in dots)
        self.values = VGroup()
        if widest <= 0.94 * pitch:
            for j, s in zip(self.indices, strength):
                value = self.number("qk_dot", (self.slot, self.f, j), decimals=decimals,
                                    signed=True, font_size=style.FONT_SMALL,
                                    color=pal.mask if blocked[j] else None)
                dimmed(value, 0.55 + 0.45 * s)
                self.values.add(value)
            fit_width(self.values, 0.94 * pitch)
            for value, j in zip(self.values, self.indices):
                value.next_to(row.chip(j), DOWN, buff=0.14)
        low = (min(v.get_bottom()[1] for v in self.values) if len(self.values)
               else row.chips.get_bottom()[1]) - 0.08
        start = np.array([row.chip(self.f).get_x(), low, 0])
        self.arcs, sparks = VGroup(), []
        for n, (j, s) in enumerate(zip(self.indices, strength)):
            end = np.array([row.chip(j).get_x(), low, 0])
            arc = strength_arc(start, end, s, sag=MAX_SAG, own=j == self.f)
            spark = Spark(arc.get_start(), arc.get_end(), s, angle=arc.bend, seed=n,
                          max_width=18.0, n_segments=SPARK_SEGMENTS, burst_radius=0.1)
            if blocked[j]:
                arc.set_stroke(pal.mask)
                spark.tint(pal.mask)
            self.arcs.add(arc)
            sparks.append(spark)
        said = f"The query of {focus_name(trace)} meets each key; the largest product: "
        if len(self.values):       # its number too, as written under the key; ties together
            texts = {j: format_number(float(d), decimals, signed=True)
                     for j, d in zip(self.indices, dots)}
            best = ranked_groups(texts, dict(zip(self.indices, dots.tolist())))[0]
            number = self.record("qk_dot", (self.slot, self.f, best[0]), decimals, signed=True)
            said += (f"{tied(words_named(trace, best))}, {number}"
                     + (" each" if len(best) > 1 else ""))
        else:
            said += word_name(trace, self.indices[int(np.argmax(dots))])
        self.say(said)
        landings = list(self.values) or [None] * len(self.arcs)
        few = len(self.indices) <= style.FEW
        # the arcs hang where a window's note is ("showing 15 of the 18 tokens"): it moves
        # under them, out of their way
        note = row.window_note
        moves = [] if note is None else [note.animate.next_to(
            VGroup(self.arcs, *self.values), DOWN, buff=0.25)]
        self.play(*moves, LaggedStart(*[Succession(Create(arc, run_time=style.T_ARC),
                                           SparkTravel(sp, run_time=style.T_SPARK),
                                           *([FadeIn(v, scale=1.3, run_time=style.T_POP)]
                                             if v is not None else []))
                                for arc, sp, v in zip(self.arcs, sparks, landings)],
                              lag_ratio=style.LAG_ARCS if few else style.LAG_ARCS_MANY),
                  run_time=style.T_BUNDLE if few else style.T_BUNDLE_MANY)
        self.remove(*sparks)
        self.dot_decimals = decimals
        self.say("Bold arcs: large dot products; hairlines: small ones")

    # ---- the strongest arc worked out below the bundle ---------------------------------------
    def the_strongest_worked_out(self):
        """The stage under the arcs shows what one arc's number is: the largest unmasked
        dot product written out as the sum of its d_k products of the query's and the
        key's entries (the first two and the last; the others elided)."""
        trace, pal, slot, f = self.trace, style.PALETTE, self.slot, self.f
        dots = self.dots()
        blocked = head_blocked(trace, slot)[f]
        open_keys = [n for n, j in enumerate(self.indices) if not blocked[j]]
        if not open_keys:
            self.worked = VGroup()
            return
        best = max(open_keys, key=lambda n: (dots[n], -n))
        j = self.indices[best]
        d_k = trace.d_k
        entries = [c for c in sorted({0, 1, d_k - 1}) if c < d_k]
        parts = []
        for n, c in enumerate(entries):
            if n:       # every part apart from the next by a space: none touches another
                parts.append((" + \u22ef + " if c != entries[n - 1] + 1 else " + ", pal.soft))
            parts += [(self.record("q", (slot, f, c), 2), pal.query), (" \u00d7 ", pal.soft),
                      (self.record("k", (slot, j, c), 2), pal.key)]
        total = self.record("qk_dot", (slot, f, j), self.dot_decimals, signed=True)
        terms = line_of([*parts, (" = ", pal.soft), (total, pal.text)], style.FONT_LABEL)
        count = self.record("d_k", (), 0)
        heading = line_of([(word_name(trace, f), ("user", pal.query)), (" \u00b7 ", pal.soft),
                           (word_name(trace, j), ("user", pal.key)),
                           (f" = the sum of {count} products", pal.soft)], style.FONT_LABEL)
        if heading.width > WORKED_WIDTH * style.FONT_LABEL / style.MIN_FONT:
            # long words: the roles stand for them (the caption names the words)
            heading = line_of([("query", pal.query), (" \u00b7 ", pal.soft), ("key", pal.key),
                               (f" = the sum of {count} products", pal.soft)],
                              style.FONT_LABEL)
        self.worked = VGroup(heading, terms).arrange(DOWN, buff=0.35)
        # never below the legible size: the widest line decides
        self.worked.scale(max(min(1.0, WORKED_WIDTH / self.worked.width),
                              style.MIN_FONT / style.FONT_LABEL))
        below = min(m.get_bottom()[1] for m in (self.arcs, self.row)) - 0.7
        self.worked.move_to([0, below, 0], aligned_edge=UP)
        self.say(f"Each dot product adds up {count} products, the query\u2019s entries times "
                 f"the key\u2019s: for {word_name(trace, j)}, {total}")
        self.play(FadeIn(heading, shift=0.2 * DOWN), run_time=style.T_QUICK)
        self.play(LaggedStart(*[FadeIn(piece) for piece in terms], lag_ratio=0.15),
                  run_time=style.T_MOVE)
        self.wait(style.T_HOLD)

    # ---- the bundle collapses into the focus row of QKᵀ -----------------------------------------
    def into_the_focus_row(self):
        """The strip hands its words to the grid's axes; the arcs fall into the focus row,
        where the dot products land."""
        grid = self.grid
        focus = grid.row_cells(grid.focus_row)
        self.say(f"They fill the row of {focus_name(self.trace)} in QK\u1d40: queries down, "
                 "keys across")
        written = grid.decimals is not None
        self.play(FadeOut(self.row), FadeIn(VGroup(grid.grid, grid.title)),
                  *[FadeOut(arc, target_position=cell) for arc, cell in zip(self.arcs, focus)],
                  *([TransformFromCopy(v, cell) for v, cell in zip(self.values, focus)]
                    if written and len(self.values) else [FadeIn(cell) for cell in focus]),
                  FadeOut(self.values), FadeOut(self.worked), run_time=style.T_MOVE)
        self.play(Create(grid.box), run_time=style.T_QUICK)

    # ---- every query meets every key ---------------------------------------------------------------
    def every_query_meets_every_key(self):
        grid, n = self.grid, len(self.indices)
        others = [m for (r, c), m in grid.cells.items() if r != grid.focus_row]
        T = self.trace.num_tokens
        drawn = "" if n == T else f" (the {n} of {T} tokens drawn)"
        self.say(f"Every query meets every key: all {n} \u00d7 {n} dot products of "
                 f"{head_name(self.book, self.slot)}{drawn}")
        self.play(LaggedStart(*[FadeIn(m, scale=0.6) for m in others], lag_ratio=style.LAG_MANY),
                  run_time=style.T_BUILD)
        self.remove(*grid.get_family())
        self.add(grid)                      # one group on stage: the grid the next beat takes
        self.roles[Role.GRID] = grid
