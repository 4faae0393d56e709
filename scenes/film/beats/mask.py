"""Beat 8, mask: forbidden keys get a score of −∞, so softmax gives them nothing and the
rest of each row renormalises to sum to one.

If the trace holds a mask (a decoder's own causal mask, or ``--mask causal`` or
``window:K``) the beat shows that mask and the model's weights under it, and says whether
the mask is the model's own or one added to teach with. Otherwise it *illustrates* a
causal mask: the weights are recomputed from the trace's scores as softmax over j ≤ i
(``attention_core.derived.causal_weights``), and the screen says so — on a bidirectional
model such as MiniLM that is not what the model does.

The grid of the primary head's weights (dots) gets mask-coloured cells with −∞ written in them; the
camera moves into the focus row, where the weights are written out before and after and
their sum is shown; then back out to the whole renormalised grid.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, Create, FadeIn, FadeOut, LaggedStart,
                   Rectangle, Transform, VGroup, config)

from ....attention_core.derived import causal_mask, causal_weights, lookup
from ....attention_core.variants import head_blocked
from ...vocabulary import stage, style
from ...vocabulary.grid import LABEL_BUFF, column_words, place_column_word
from ..beat import Beat, Role, Stage, replace_in_place
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import beat_line, head_name
from ..audits import drawn_size
from ..craft import TEXT_MARGIN
from ...vocabulary.text import label_text, line_of
from ....attention_core.word_model import WordModel
from ..ranking import (WORD_ROW_KINDS, heavier_outside, listed_claim, outside_said,
                       ranked_words)
from ..views import head_color, sentence_grid, shown_tokens_note
from ..wording import focus_name, word_quoted

__all__ = ["CLOSE_UP", "LEGEND_GAP", "MaskBeat", "ZOOM_MARGIN", "line", "notice_text"]

LEGEND_GAP = 1.7        # between the grid and the legend: room for the focus row's sum
CLOSE_UP = 1.5          # the camera's zoom into the focus row, at least
ZOOM_MARGIN = 1.04      # the zoomed frame is this much wider than the focus row


def line(trace):
    kind = trace.mask_kind if trace.mask.any() or trace.mask_kind.startswith("topk") \
        else "causal"
    if kind == "causal":
        return beat_line("The causal mask: no word looks at the words after it")
    if kind.startswith("topk"):
        return beat_line(f"Top-k attention ({kind}): each word keeps its largest scores")
    return beat_line(f"The mask ({kind}): some keys are off limits")


def notice_text(trace, own_mask: bool) -> str:
    """Whose mask this is: the model's own, or an illustration (recomputed from the
    model's scores, or a mask asked for on a model that reads both ways)."""
    meta = trace.meta
    bidirectional = meta.get("model") == "minilm" or bool(meta.get("bidirectional", False))
    if own_mask and meta.get("mask_is_model_own"):
        return ("The model\u2019s own mask: it\nwas trained this way, and\nthese are its "
                "own weights.")
    if own_mask:
        return ("Illustration: this model reads\nboth ways; this mask was\nadded to teach "
                "with." if bidirectional else
                "Illustration: this mask was\nadded to the model\u2019s own\nto teach with.")
    return ("Illustration: this model reads\nboth ways and uses no mask.\nThese weights are "
            "recomputed\nfrom its own scores as if it did." if bidirectional else
            "Illustration: this run used no\nmask. These weights are\nrecomputed from its "
            "own scores\nwith a causal mask.")


class MaskBeat(Beat):
    name = "mask"

    @classmethod
    def leaves(cls, film) -> Stage:
        return Stage({Role.LINE: line(film.trace), Role.MAP: FormulaMap("mask"),
                      Role.GRID: sentence_grid(film.trace)})

    def script(self):
        self.open(line(self.trace), "mask")
        self.choose_the_mask()
        self.the_weights_before()
        self.forbidden_scores_become_minus_infinity()
        self.into_the_focus_row()
        self.renormalise()
        self.back_out()

    def choose_the_mask(self):
        trace = self.trace
        self.slot, self.focus, T = trace.primary_slot, trace.focus_index, trace.num_tokens
        self.mask = head_blocked(trace, self.slot)
        self.own_mask = bool(self.mask.any())
        rows = range(T)
        if self.own_mask:
            self.after = trace.weights[self.slot].astype(np.float64)
            # what the grid shows "before": the weights as the model runs (a mask asked
            # for), or the softmax of the unmasked scores (the model's own mask)
            self.before_kind = "real_weight" if self.asked else "unmasked_weight"
            self.before = np.array([lookup(trace, self.before_kind, (self.slot, i, j))
                                    for i in rows for j in rows]).reshape(T, T)
            self.after_kind = "weights"
            self.score_kind, self.sum_kind = "masked_score", "weight_sum"
        else:
            self.mask = causal_mask(trace)
            self.before = trace.weights[self.slot].astype(np.float64)
            self.after = np.array([causal_weights(trace, self.slot, i) for i in rows])
            self.before_kind, self.after_kind = "weights", "causal_weight"
            self.score_kind, self.sum_kind = "causal_masked_score", "causal_weight_sum"

    @property
    def asked(self) -> bool:
        """Whether the trace's mask was asked for, to teach with (not the model's own)."""
        return bool(self.trace.meta.get("mask_is_illustration"))

    def notice(self):
        """Said on screen: whose mask this is (:func:`notice_text`)."""
        text = notice_text(self.trace, self.own_mask)
        return label_text(text, style.FONT_SMALL, style.PALETTE.mask)

    # ---- the head's weights as the model ran it ------------------------------------------------
    def the_weights_before(self):
        trace, pal = self.trace, style.PALETTE
        self.grid = grid = self.stage.get(Role.GRID) or sentence_grid(trace)
        idx = grid.indices
        self.sub = np.ix_(idx, idx)
        self.row = idx.index(self.focus)
        color = head_color(trace, trace.primary_head)
        self.dots_before = grid.weight_dots(self.before[self.sub], color=color)
        self.dots_after = grid.weight_dots(self.after[self.sub], color=color)
        for dot, masked in zip(self.dots_after, self.mask[self.sub].ravel()):
            if masked:      # a forbidden cell's dot shrinks to nothing
                dot.scale(1e-3)
        self.box = grid.focus_box(self.row)
        legend = [line_of([(head_name(self.book, self.slot), head_color(trace, trace.primary_head)),
                           (": weight = dot area", pal.soft)], style.FONT_SMALL)]
        legend.append(self.notice())
        extra = shown_tokens_note(trace)
        if extra is not None:
            legend.append(extra)
        self.legend = VGroup(*legend).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        self.legend.move_to([grid.get_right()[0] + LEGEND_GAP, grid.lines.get_top()[1], 0],
                            aligned_edge=UP + LEFT)
        stage.keep_right_of(self.legend)
        if Role.GRID not in self.roles:
            self.add(grid)
        self.roles[Role.GRID] = grid
        # the followed head's row, handed on by the heads beat, is already in its place
        n = len(idx)
        handed = self.stage.get(Role.WEIGHTS)
        own_row = list(self.dots_before[self.row * n:(self.row + 1) * n])
        arrive = [FadeIn(d, scale=0.5) for d in self.dots_before
                  if handed is None or d not in own_row]
        settle = [Transform(a, b) for a, b in zip(handed, own_row)] if handed is not None else []
        self.say(f"{head_name(self.book, self.slot).capitalize()}'s weights, before any mask")
        self.play(LaggedStart(*arrive, lag_ratio=style.LAG_MANY), *settle,
                  FadeIn(self.legend), Create(self.box), run_time=style.T_BUILD)
        if handed is not None:      # the row's own dots in place of those it was handed
            self.remove(handed, *handed)
            self.add(*own_row)

    # ---- forbidden keys: their scores become minus infinity -------------------------------------
    def forbidden_scores_become_minus_infinity(self):
        pal, grid = style.PALETTE, self.grid
        masked = self.mask[self.sub]
        self.red = grid.mask_cells(masked, opacity=0.45)
        idx = grid.indices
        self.minus_inf = VGroup(*[
            self.number(self.score_kind, (self.slot, self.focus, idx[c]), decimals=1,
                        font_size=style.FONT_NUMBER, color=pal.text)
            for c in range(len(idx)) if masked[self.row, c]])
        cols = [c for c in range(len(idx)) if masked[self.row, c]]
        grid.put_all([(m, self.row, c) for m, c in zip(self.minus_inf, cols)], fill=0.8)
        n = len(cols)
        word = focus_name(self.trace)
        said = (f"The scores of {word} for the forbidden keys become \u2212\u221e" if n
                else f"None of the keys of {word} is masked; other rows lose theirs")
        if self.own_mask and self.trace.meta.get("mask_is_model_own"):
            said = f"This mask is the model\u2019s own, as trained. {said}"
        key = "score \u2212\u221e: no weight"
        self.red_key = line_of([(f"{pal.mask_name}: ", pal.mask), (key, pal.soft)],
                               style.FONT_SMALL)
        self.red_key.next_to(self.legend, DOWN, buff=0.3, aligned_edge=LEFT)
        self.say(said)
        cells = [d for d, m in zip(self.dots_before, masked.ravel()) if m]
        self.play(LaggedStart(*[FadeIn(r, scale=0.6) for r in self.red], lag_ratio=style.LAG_MANY),
                  *[d.animate.scale(1e-3) for d in cells], FadeIn(self.red_key),
                  run_time=style.T_BUILD)
        # written at once when legible on the whole stage, else in the close-up only
        self.inf_legible = all(drawn_size(m) >= style.MIN_FONT - 0.05 for m in self.minus_inf)
        if self.inf_legible and len(self.minus_inf):
            self.play(FadeIn(self.minus_inf, scale=0.8), run_time=style.T_SHORT)

    # ---- into the focus row: the weights written out --------------------------------------------
    def into_the_focus_row(self):
        trace, grid, pal = self.trace, self.grid, style.PALETTE
        idx, row = grid.indices, self.row
        masked = self.mask[self.focus, idx]
        self.open_cols = [c for c in range(len(idx)) if not masked[c]]

        def numbers(kind, color):
            mobs = VGroup(*[self.number(kind, (self.slot, self.focus, idx[c]),
                                        decimals=style.WEIGHT_DECIMALS,
                                        font_size=style.FONT_NUMBER, color=color)
                            for c in self.open_cols])
            grid.put_all([(m, row, c) for m, c in zip(mobs, self.open_cols)], fill=0.8)
            return mobs
        self.w_before = numbers(self.before_kind, pal.dim)
        self.w_after = numbers(self.after_kind, pal.text)
        size = drawn_size(self.w_before[0])            # the numbers' size in the cells
        row_group = VGroup(grid.row_rect(row), grid.row_labels[row])
        self.total = self.number(self.sum_kind, (self.slot, self.focus),
                                 decimals=style.WEIGHT_DECIMALS, font_size=style.FONT_NUMBER)
        self.sum_line = VGroup(label_text("sum =", style.FONT_NUMBER, pal.soft), self.total)
        self.sum_line.arrange(RIGHT, buff=0.12, aligned_edge=DOWN).scale(size / style.FONT_NUMBER)
        self.sum_line.next_to(grid.row_rect(row), RIGHT, buff=0.2)
        focus_dots = [self.dots_before[row * len(idx) + c] for c in self.open_cols]
        # close enough for the numbers to be legible, not so close the row's cells and
        # sum are cut off (its label may be, in a long row: the box marks the row)
        cells = VGroup(grid.row_rect(row), self.sum_line)
        zoom = min(max(CLOSE_UP, style.MIN_FONT * 1.05 / size),
                   config.frame_width / (cells.width * ZOOM_MARGIN))
        whole = VGroup(row_group, self.sum_line)
        # the row's label too, if the numbers stay legible at the zoom that frames it
        framing = config.frame_width / (whole.width * ZOOM_MARGIN)
        if framing < zoom and framing * size >= style.MIN_FONT:
            zoom = framing
        self.headers = self.headers_over_the_row(zoom, max(style.FONT_LABEL, size * zoom))
        self.zoom = zoom = min(zoom, config.frame_height
                               / (VGroup(self.headers, cells).height * ZOOM_MARGIN))
        framed = whole.width * ZOOM_MARGIN * zoom <= config.frame_width
        view = VGroup(whole if framed else cells, self.headers)
        # the box frames what the close-up shows: without the row's label when that is cut
        self.close_box = self.box if framed else grid.focus_box(row, include_label=False)
        # a row whose numbers would not be legible (too long for them even framed up close,
        # or first, under the grid's own words, and not brought close) stays as dots: the
        # caption says what they come to
        close = zoom if zoom > 1.0 + 1e-6 and self.labels_make_way else 1.0
        self.numbers_shown = size * close >= style.MIN_FONT - 0.05
        if not self.numbers_shown:
            self.zoom = 1.0
            return
        self.say(f"Up close: the weights of {focus_name(trace)} that are left")
        if zoom > 1.0 + 1e-6 and self.labels_make_way:
            # faded where they stand, kept in the grid (a FadeOut would take them out of
            # it), before the camera moves (what it cuts at its edge it fades itself)
            self.play(*self._texts_away(list(grid.col_labels)), run_time=style.T_QUICK)
            # the legend would be cut by the close-up's edge: it waits off screen
            self.camera_to(view.get_center(), config.frame_width / zoom,
                           *[FadeOut(d) for d in focus_dots], FadeIn(self.w_before),
                           *self.swap_headers(True),
                           *([] if self.inf_legible else [FadeIn(self.minus_inf)]),
                           FadeOut(self.legend), FadeOut(self.red_key), overlay=False)
        else:
            self.play(*[FadeOut(d) for d in focus_dots], FadeIn(self.w_before),
                      run_time=style.T_SHORT)

    def headers_over_the_row(self, zoom: float, font_size: float) -> VGroup:
        """The key labels drawn just over the focus row as a grid with the close-up's cells
        (``zoom`` times as large on screen) would draw words of ``font_size``: the row's
        weights are read against the words they go to, at a size of their own, not the
        grid's labels magnified (those grow past the frame's edge). On a band of
        the background over the rows above (the grid's own labels are above the close-up's
        edge, or under the band when the row is the first)."""
        grid, trace = self.grid, self.trace
        texts = [trace.display_tokens[i] for i in grid.indices]
        special = [bool(trace.special[i]) for i in grid.indices]
        top = grid.row_rect(self.row).get_top()[1]
        # clear of the box round the row, whichever of its two boxes is shown
        floor = max(self.box.get_top()[1], grid.focus_box(self.row, include_label=False)
                    .get_top()[1]) + LABEL_BUFF / zoom
        labels = VGroup()
        for c, (g, turned, size) in enumerate(column_words(texts, special, grid.cell * zoom,
                                                           font_size)):
            g.scale(1 / zoom, about_point=ORIGIN)
            place_column_word(g, turned, size / zoom, grid.cell_center(self.row, c)[0],
                              floor, font_size)
            labels.add(g)
        x0 = min(grid.lines.get_left()[0], labels.get_left()[0] - 0.08 / zoom)
        x1 = max(grid.lines.get_right()[0], labels.get_right()[0] + 0.08 / zoom)
        height = labels.get_top()[1] - top + 0.08 / zoom
        above = VGroup(grid.col_labels, *grid.titles)
        if self.row == 0:     # the band hides the grid's own labels, magnified, and the title
            height = max(height, above.get_top()[1] - top + 0.05)
        # headers that reach up to the grid's own labels (turned words are tall: [UNK],
        # [CLS]) take their place while close: those fade where they stand, and come back
        self.labels_make_way = self.row > 0 and labels.get_top()[1] > above.get_bottom()[1]
        band = Rectangle(width=x1 - x0, height=height)
        band.set_stroke(width=0).set_fill(style.PALETTE.background, 0.92 if self.row else 1.0)
        band.move_to([(x0 + x1) / 2, top + height / 2, 0])
        return VGroup(band, labels)

    def swap_headers(self, close: bool) -> list:
        """Into the close-up: the headers over the row come in and the box frames what is
        shown; out of it, the reverse."""
        anims = [FadeIn(self.headers) if close else FadeOut(self.headers)]
        if self.close_box is not self.box:
            shown, gone = (self.close_box, self.box) if close else (self.box, self.close_box)
            anims += [FadeOut(gone), FadeIn(shown)]
        return anims

    # ---- softmax over what is left: the weights renormalise -------------------------------------
    def renormalise(self):
        trace, idx = self.trace, self.grid.indices
        # the word left the most weight, the sum of its pieces (a piece is never named)
        words = WordModel.of_trace(trace)
        top = ranked_words(self.book, self.slot, kind=self.after_kind,
                           among=words.words_of([idx[c] for c in self.open_cols]))[0][:1]
        word = words.words[top[0]]
        given = self.record(WORD_ROW_KINDS[self.after_kind],
                            (self.slot, self.focus, *word.span), 2)
        said = (f"Softmax over what is left: {focus_name(trace)} now gives {given} to "
                f"{word_quoted(word)}")
        listed_claim(self.book, self.slot, [top], said, kind=self.after_kind, among="open")
        outside = outside_said(self.book, heavier_outside(self.book, self.slot, top,
                                                          kind=self.after_kind))
        self.say(f"{said}, and the row sums to {self.total.text}"
                 + (f" ({outside})" if outside else ""))
        others = [(a, b) for n, (a, b) in enumerate(zip(self.dots_before, self.dots_after))
                  if n // len(idx) != self.row or not self.numbers_shown]
        if not self.numbers_shown:          # the focus row's dots renormalise with the rest
            self.play(*[Transform(a, b) for a, b in others], run_time=style.T_MOVE)
            return
        self.play(*[replace_in_place(a, b) for a, b in zip(self.w_before, self.w_after)],
                  *[Transform(a, b) for a, b in others], run_time=style.T_MOVE)
        self.play(FadeIn(self.sum_line, shift=LEFT * 0.1), run_time=style.T_SHORT)

    # ---- back out: the whole grid, renormalised -------------------------------------------------
    def back_out(self):
        idx = self.grid.indices
        if self.zoom > 1.0 + 1e-6:
            # numbers too small for the whole view turn back into dots on the way out
            focus_after = [self.dots_after[self.row * len(idx) + c] for c in self.open_cols]
            small = [*self.w_after, self.sum_line, *([] if self.inf_legible else self.minus_inf)]
            self.camera_to(np.zeros(3), config.frame_width, *[FadeOut(m) for m in small],
                           *self.swap_headers(False),
                           *[FadeIn(d) for d in focus_after], FadeIn(self.legend),
                           FadeIn(self.red_key))
            if self.labels_make_way:
                self.play(*self._texts_back(list(self.grid.col_labels)),
                          run_time=style.T_QUICK)
        note = label_text("each row renormalised:\nit sums to 1", style.FONT_SMALL,
                          style.PALETTE.soft)
        note.next_to(self.red_key, DOWN, buff=0.3, aligned_edge=LEFT)
        stage.keep_right_of(note)
        self.play(FadeIn(note, shift=UP * 0.1), run_time=style.T_SHORT)
        if not self.trace.meta.get("mask_is_model_own"):
            self.what_it_keeps(note)

    # ---- an illustration's cost: what it keeps of the weights the model gives -----------------
    def what_it_keeps(self, above):
        """The share of the focus word's real weight the mask keeps and how far its output
        moves, read as the model runs: a mask the model was not trained with."""
        pal, index = style.PALETTE, (self.slot, self.focus)
        kept = self.number("kept_percent", index, decimals=0, font_size=style.FONT_SMALL,
                           color=pal.text)
        moved = self.number("output_error_percent", index, decimals=0,
                            font_size=style.FONT_SMALL, color=pal.text)
        soft = [pal.soft]
        first = VGroup(label_text("the boxed row keeps", style.FONT_SMALL, *soft), kept,
                       label_text("%", style.FONT_SMALL, *soft))
        middle = label_text("of the weight the model gives;", style.FONT_SMALL, *soft)
        last = VGroup(label_text("its output moves", style.FONT_SMALL, *soft), moved,
                      label_text("%", style.FONT_SMALL, *soft))
        for part in (first, last):
            part.arrange(RIGHT, buff=0.1, aligned_edge=DOWN)
        block = VGroup(first, middle, last).arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        block.next_to(above, DOWN, buff=0.3, aligned_edge=LEFT)
        stage.keep_right_of(block)
        share = self.record("kept_percent", index, 0)
        error = self.record("output_error_percent", index, 0)
        self.say(f"This mask keeps {share} % of the weight {focus_name(self.trace)} gives as "
                 f"the model runs; its output moves {error} %")
        # the right column rises to make room where the block would cross the bottom
        column = VGroup(self.legend, self.red_key, above)
        lowest = -config.frame_height / 2 + TEXT_MARGIN + 0.05       # clear of the edge
        short = lowest - block.get_bottom()[1]
        room = stage.BODY_TOP - column.get_top()[1]
        if short > room:            # no room for it on screen: the caption says it alone
            return
        lift = [column.animate.shift(UP * short)] if short > 0 else []
        if lift:
            block.shift(UP * short)
        self.play(*lift, FadeIn(block, shift=UP * 0.1), run_time=style.T_SHORT)
