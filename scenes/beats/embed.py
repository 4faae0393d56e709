"""Beat 2, embed: each token becomes a vector, first as a column of its real numbers,
then as an arrow in a stated 2-D view of embedding space."""
from __future__ import annotations

from manim import DOWN, UP, FadeIn, GrowArrow, LaggedStart, TransformFromCopy, VGroup

from .. import stage, style
from ..film import Beat
from ..headers import layer_name
from ..vectors import VectorColumn
from ..views import drawn_indices, embedding_plane, embedding_view, token_row, token_word

MAX_COLUMNS = 10    # columns of numbers drawn side by side (more would not be legible)
FOCUS_SCALE = 1.25  # the focus word grows by this when it is singled out


class EmbedBeat(Beat):
    name = "embed"

    def script(self):
        trace = self.trace
        row = token_row(trace)
        row.to_edge(UP, buff=0.4)
        self.add(row)
        columns = self.columns_of_numbers(row)
        plane, arrows = self.arrows_in_a_view(columns)
        self.single_out_the_focus(row, arrows)

    def column_indices(self) -> list[int]:
        """Columns for the tokens nearest the focus, when there are too many to write."""
        indices, f = drawn_indices(self.trace), self.trace.focus_index
        if len(indices) <= MAX_COLUMNS:
            return indices
        start = min(max(f - MAX_COLUMNS // 2, indices[0]), indices[-1] + 1 - MAX_COLUMNS)
        return list(range(start, start + MAX_COLUMNS))

    # ---- each token's embedding as a column of its numbers ---------------------------------
    def columns_of_numbers(self, row) -> VGroup:
        trace = self.trace
        col_indices = self.column_indices()
        d_model = int(trace.embeddings.shape[-1])
        columns = VGroup()
        for i in col_indices:
            col = VectorColumn.from_trace(self.book, "embeddings", (i,), d_model)
            if trace.special[i]:       # dimmed, not hidden (the brackets are open lines)
                col.rows.set_opacity(0.45)
                col.brackets.set_stroke(opacity=0.45)
            columns.add(col)
        # columns hang under their chips: narrow chips (CJK) give the tightest pitch
        pitch = min([row.chip(b).get_x() - row.chip(a).get_x()
                     for a, b in zip(col_indices, col_indices[1:])] + [2.0])
        widest = max(c.width for c in columns)
        if widest > 0.8 * pitch:
            for c in columns:
                c.scale(0.8 * pitch / widest)
        for i, col in zip(col_indices, columns):
            col.next_to(row.chip(i), DOWN, buff=0.35)
        columns_top = min(c.get_top()[1] for c in columns)
        for c in columns:
            c.align_to([0, columns_top, 0], UP)
        dims = self.record("d_model", (), 0)
        self.play(LaggedStart(*[TransformFromCopy(row.chip(i).word, col)
                                for i, col in zip(col_indices, columns)],
                              lag_ratio=style.LAG_FEW),
                  run_time=style.T_WRITE, rate_func=style.EASE,
                  subcaption=f"Each token enters {layer_name(self.book)} as a vector of "
                             f"{dims} numbers, its embedding (a few entries shown)",
                  subcaption_duration=3.0)
        self.wait(style.T_PAUSE)
        return columns

    # ---- the same vectors as arrows in a stated 2-D projection -------------------------------
    def arrows_in_a_view(self, columns):
        indices = drawn_indices(self.trace)
        _, points = embedding_view(self.trace)
        plane, arrows = embedding_plane(self.book, points, indices, focus_scale=FOCUS_SCALE)
        view = VGroup(plane, *arrows)
        view.next_to(columns, DOWN, buff=0.3)
        if view.get_bottom()[1] < stage.BOTTOM_EDGE:
            view.scale((view.get_top()[1] - stage.BOTTOM_EDGE) / view.height, about_edge=UP)
        dims = self.record("d_model", (), 0)
        self.play(FadeIn(plane), run_time=style.T_STEP, rate_func=style.EASE)
        self.play(LaggedStart(*[GrowArrow(a.arrow) for a in arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(VGroup(a.word, a.extras)) for a in arrows],
                              lag_ratio=style.LAG_FEW),
                  run_time=style.T_WRITE, rate_func=style.EASE,
                  subcaption=f"The same vectors as arrows: a 2-D projection of {dims}-D space "
                             "(the two directions these vectors vary most in)",
                  subcaption_duration=3.0)
        return plane, arrows

    # ---- the word we will follow --------------------------------------------------------------
    def single_out_the_focus(self, row, arrows):
        trace = self.trace
        f = trace.focus_index
        focus_arrow = arrows[drawn_indices(trace).index(f)]
        self.play(focus_arrow.arrow.animate.set_stroke(width=6),
                  focus_arrow.word.animate.scale(FOCUS_SCALE).set_color("#FFFFFF"),
                  row.chip(f).box.animate.set_stroke("#FFFFFF", width=2.5),
                  run_time=style.T_SHORT, rate_func=style.EASE,
                  subcaption=f"{token_word(trace, f)}: the word we will follow",
                  subcaption_duration=1.6)
