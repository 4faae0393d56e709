"""Beat 2, embed: each token becomes a vector, first as a column of its real numbers,
then as an arrow in a stated 2-D view of embedding space."""
from __future__ import annotations

from manim import DOWN, UP, FadeIn, GrowArrow, LaggedStart, TransformFromCopy, VGroup

from scenes import style
from scenes.base import BeatScene
from scenes.components import LabelledArrow, Plane2D, VectorColumn, place_arrow_labels
from scenes.views import drawn_indices, embedding_view, layer_name, token_row, token_word

MAX_COLUMNS = 10    # columns of numbers drawn side by side (more would not be legible)
FOCUS_SCALE = 1.25  # the focus word grows by this when it is singled out


def embedding_plane(scene, points, indices, *, width=7.0, height=3.6, focus_scale=1.0):
    """The embedding view used by the embed and project beats: plane, note and arrows.

    The words are laid out by ``place_arrow_labels`` (inside the plane, clear of each
    other and of the arrows); the focus word is laid out at ``focus_scale`` times its size,
    the size a beat may grow it to later."""
    trace = scene.trace
    d_model = scene.record_number("d_model", (), 0)
    n = scene.record_number("num_tokens", (), 0) if len(indices) == trace.num_tokens \
        else str(len(indices))
    note = scene.label(f"2-D view of {d_model}-D embeddings: their top two principal "
                       f"directions (uncentred PCA of these {n})", style.FONT_SMALL,
                       style.PALETTE.dim)
    plane = Plane2D(points, width=width, height=height, note=note)
    arrows = [LabelledArrow(plane, points[n_], token_word(trace, i), style.PALETTE.text,
                            special=trace.special[i], font_size=style.FONT_LABEL)
              for n_, i in enumerate(indices)]
    f = indices.index(trace.focus_index) if trace.focus_index in indices else None
    if f is not None:
        arrows[f].word.scale(focus_scale)
    place_arrow_labels(arrows, bounds=plane.plane, solo=[f] if f is not None else [])
    if f is not None:
        arrows[f].word.scale(1 / focus_scale)
    note.next_to(VGroup(plane.plane, *arrows), DOWN, buff=0.15)
    return plane, arrows


class EmbedBeat(BeatScene):
    beat_name = "embed"
    beat_title = "Words become vectors"

    def build(self):
        trace = self.trace
        row = token_row(trace)
        row.to_edge(UP, buff=0.4)
        self.add(row)

        # columns for the tokens nearest the focus, when there are too many to write
        indices = drawn_indices(trace)
        f = trace.focus_index
        if len(indices) > MAX_COLUMNS:
            start = min(max(f - MAX_COLUMNS // 2, indices[0]), indices[-1] + 1 - MAX_COLUMNS)
            col_indices = list(range(start, start + MAX_COLUMNS))
        else:
            col_indices = indices
        d_model = int(trace.embeddings.shape[-1])
        columns = VGroup()
        for i in col_indices:
            col = VectorColumn.from_trace(self, "embeddings", (i,), d_model)
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
        dims = self.record_number("d_model", (), 0)
        self.play(LaggedStart(*[TransformFromCopy(row.chip(i).word, col)
                                for i, col in zip(col_indices, columns)],
                              lag_ratio=style.LAG_FEW),
                  run_time=2.0, rate_func=style.EASE,
                  subcaption=f"Each token enters {layer_name(self)} as a vector of {dims} "
                             f"numbers, its embedding (a few entries shown)",
                  subcaption_duration=3.0)
        self.wait(style.T_PAUSE)

        # the same vectors as arrows in a stated 2-D projection
        _, points = embedding_view(trace)
        plane, arrows = embedding_plane(self, points, indices, focus_scale=FOCUS_SCALE)
        view = VGroup(plane, *arrows)
        view.next_to(columns, DOWN, buff=0.3)
        if view.get_bottom()[1] < -3.85:
            view.scale((view.get_top()[1] + 3.85) / view.height, about_edge=UP)
        self.play(FadeIn(plane), run_time=style.T_STEP, rate_func=style.EASE)
        self.play(LaggedStart(*[GrowArrow(a.arrow) for a in arrows], lag_ratio=style.LAG_FEW),
                  LaggedStart(*[FadeIn(VGroup(a.word, a.extras)) for a in arrows],
                              lag_ratio=style.LAG_FEW),
                  run_time=2.0, rate_func=style.EASE,
                  subcaption=f"The same vectors as arrows: a 2-D projection of {dims}-D space "
                             "(the two directions these vectors vary most in)",
                  subcaption_duration=3.0)
        focus_arrow = arrows[indices.index(f)]
        self.play(focus_arrow.arrow.animate.set_stroke(width=6),
                  focus_arrow.word.animate.scale(FOCUS_SCALE).set_color("#FFFFFF"),
                  row.chip(f).box.animate.set_stroke("#FFFFFF", width=2.5),
                  run_time=0.8, rate_func=style.EASE,
                  subcaption=f"{token_word(trace, f)}: the word we will follow",
                  subcaption_duration=1.6)
        self.mark_key_frame()
        self.wait(style.T_PAUSE)
        self.clear_stage()
