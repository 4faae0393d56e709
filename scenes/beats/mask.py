"""Beat 8, mask: future positions are blanked to −∞ and the weights renormalise.

If the trace was computed with a mask (``--mask causal`` or ``window:K``) the beat shows
that mask and the model's own weights. Otherwise it *illustrates* a causal mask: the
weights are recomputed from the trace's scores as softmax over j ≤ i (``causal_weight``
in scenes/numbers.py), and the screen says so — on a bidirectional model such as MiniLM
that is not what the model does.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeTransform, LaggedStart, Line,
                   Transform, VGroup)

from scenes import style
from scenes.base import BeatScene
from scenes.beats.tidy import (caption_mark, hold_captions, magnitude_decimals, make_grid,
                               word_row)
from scenes.components import focus_window, label_text

GRID_CENTER = np.array([-3.5, -0.55, 0.0])
TABLE_LEFT = 0.9
MAX_TABLE_COLUMNS = 9


def causal_weights(trace, slot: int) -> np.ndarray:
    """The primary head's weights recomputed under a causal mask (rows renormalised)."""
    from scenes.numbers import lookup
    T = trace.num_tokens
    return np.array([[lookup(trace, "causal_weight", (slot, i, j)) for j in range(T)]
                     for i in range(T)])


def build_mask(scene) -> None:
    trace = scene.trace
    pal = style.PALETTE
    slot, focus, T = trace.primary_slot, trace.focus_index, trace.num_tokens
    own_mask = bool(trace.mask.any())
    if own_mask:
        mask = trace.mask.copy()
        after = trace.weights[slot].astype(np.float64)
        # what the grid shows "before": the softmax of the unmasked scores
        from scenes.numbers import lookup
        before = np.array([[lookup(trace, "unmasked_weight", (slot, i, j)) for j in range(T)]
                           for i in range(T)])
        score_kind, weight_kind = "masked_score", "weights"
    else:
        mask = np.triu(np.ones((T, T), dtype=bool), k=1)
        before = trace.weights[slot].astype(np.float64)
        after = causal_weights(trace, slot)
        score_kind, weight_kind = "causal_masked_score", "causal_weight"
    kind = trace.mask_kind if own_mask else "causal"

    heading = label_text("The causal mask: no looking ahead" if kind == "causal"
                         else f"The mask ({kind}): some keys are off limits", style.FONT_BODY)
    heading.to_corner(UP + LEFT, buff=0.4)
    head_color = pal.head(trace.primary_head)
    head_tag = label_text(f"head {scene.record_number('head', (slot,), 0)}  \u00b7  layer "
                          f"{scene.record_number('layer', (), 0)}", style.FONT_LABEL,
                          head_color).to_corner(UP + RIGHT, buff=0.45)
    notice = None
    if not own_mask:
        bidirectional = (trace.meta.get("model") == "minilm"
                         or bool(trace.meta.get("bidirectional", False)))
        text = ("Illustration only: this model reads in both\ndirections and uses no "
                "causal mask. These weights\nare recomputed from its own scores as if it did."
                if bidirectional else
                "Illustration: this run used no mask. These\nweights are recomputed from "
                "its own scores\nwith a causal mask.")
        notice = label_text(text, style.FONT_SMALL, pal.mask)
        if notice.width > 6.0:
            notice.scale_to_fit_width(6.0)
        notice.move_to([TABLE_LEFT, -1.6, 0], aligned_edge=LEFT)

    # ---- the grid of the primary head ------------------------------------------------------
    start, stop = focus_window(T, focus)
    window = list(range(start, stop))
    tokens = [trace.display_tokens[i] for i in window]
    special = [trace.special[i] for i in window]
    row = window.index(focus)
    grid = make_grid(tokens, special, max_width=6.6, max_height=6.3,
                     font_size=style.FONT_LABEL)
    grid.move_to(GRID_CENTER)
    sub = np.ix_(window, window)
    dots_before = grid.weight_dots(before[sub], color=head_color)
    dots_after = grid.weight_dots(after[sub], color=head_color)
    for d, m in zip(dots_after, mask[sub].ravel()):
        if m:   # forbidden cells: the dot shrinks to nothing
            d.scale(1e-3)
    red = grid.mask_cells(mask[sub])
    box = grid.focus_box(row)

    # ---- the focus row in numbers ----------------------------------------------------------
    cols = [j for j in window][:MAX_TABLE_COLUMNS] if len(window) <= MAX_TABLE_COLUMNS else \
        window[max(0, row - MAX_TABLE_COLUMNS // 2):][:MAX_TABLE_COLUMNS]
    pitch = min(0.72, (6.75 - TABLE_LEFT - 1.45) / max(len(cols), 1))
    xs = [TABLE_LEFT + 1.45 + n * pitch for n in range(len(cols))]
    key_labels, _ = word_row([trace.display_tokens[j] for j in cols],
                             [trace.special[j] for j in cols], xs, pitch=pitch,
                             font_size=style.FONT_SMALL, bottom=1.5)
    more = VGroup()      # the table shows a window of the row: say where it continues
    if cols[0] > window[0]:
        more.add(label_text("…", style.FONT_SMALL, pal.dim).next_to(
            key_labels[0], LEFT, buff=0.1))
    if cols[-1] < window[-1]:
        more.add(label_text("…", style.FONT_SMALL, pal.dim).next_to(
            key_labels[-1], RIGHT, buff=0.1))
    names = VGroup(*[label_text(t, style.FONT_SMALL, c).move_to([TABLE_LEFT + 0.5, y, 0])
                     for t, c, y in (("score", pal.soft, 1.0), ("weight", pal.soft, 0.3))])
    query = scene.user_text(trace.focus_word, style.FONT_LABEL, pal.query)
    query_note = VGroup(query, label_text("looks at:", style.FONT_SMALL, pal.soft))
    query_note.arrange(RIGHT, buff=0.15, aligned_edge=DOWN).move_to(
        [TABLE_LEFT, max(2.3, key_labels.get_top()[1] + 0.35), 0], aligned_edge=LEFT)

    def cell_number(kind, j, y, decimals, signed, color):
        t = scene.number(kind, (slot, focus, j), decimals=decimals, signed=signed,
                         font_size=style.FONT_SMALL, color=color)
        return t.move_to([xs[cols.index(j)], y, 0])

    score_dec = magnitude_decimals([float(trace.scores[slot, focus, j]) for j in cols],
                                   style.SCORE_DECIMALS)
    scores = VGroup(*[cell_number("scores", j, 1.0, score_dec, True, pal.text)
                      for j in cols])
    # only the forbidden scores change: they become a red minus infinity
    forbidden = [c for c, j in enumerate(cols) if mask[focus, j]]
    masked_scores = VGroup(*[cell_number(score_kind, cols[c], 1.0, score_dec, True, pal.mask)
                             for c in forbidden])
    w_before = VGroup(*[cell_number("unmasked_weight" if own_mask else "weights", j, 0.3,
                                    style.WEIGHT_DECIMALS, False, pal.dim) for j in cols])
    w_after = VGroup(*[cell_number(weight_kind, j, 0.3, style.WEIGHT_DECIMALS, False,
                                   pal.faint if mask[focus, j] else pal.text) for j in cols])
    # narrow columns: shrink every number by one factor rather than let them collide
    table_numbers = [t for group in (scores, masked_scores, w_before, w_after) for t in group]
    widest = max(t.width for t in table_numbers)
    if widest > pitch * 0.88:
        for t in table_numbers:
            t.scale(pitch * 0.88 / widest)
    rule = Line([TABLE_LEFT, 0.65, 0], [xs[-1] + pitch / 2, 0.65, 0]).set_stroke(pal.grid, 1)
    row_sum = (scene.record_number("weight_sum", (slot, focus), 2) if own_mask
               else scene.record_number("causal_weight_sum", (slot, focus), 2))
    total_after = label_text(
        f"the {'' if own_mask else 'renormalised '}weights still sum to {row_sum}",
        style.FONT_SMALL, pal.dim).move_to([TABLE_LEFT, -0.35, 0], aligned_edge=LEFT)

    # on a masked trace the "before" weights are not the model's: say so while they show
    before_note = label_text("grey: the weights as they would be without the mask",
                             style.FONT_SMALL, pal.dim) if own_mask else None
    if before_note is not None:
        before_note.move_to([TABLE_LEFT, -0.35, 0], aligned_edge=LEFT)

    # ---- play --------------------------------------------------------------------------
    first_caption = caption_mark(scene)
    scene.add(grid)
    scene.play(FadeIn(heading, shift=DOWN * 0.2), FadeIn(head_tag),
               *([FadeIn(notice)] if notice else []),
               LaggedStart(*[FadeIn(d) for d in dots_before], lag_ratio=style.LAG_MANY),
               run_time=1.2, rate_func=style.EASE,
               subcaption=(f"Head {trace.primary_head} as the model ran it: "
                           f"{trace.focus_word}'s scores and weights"
                           if not own_mask else
                           f"Head {trace.primary_head}'s scores for {trace.focus_word}, "
                           "before the mask"),
               subcaption_duration=2.7)
    scene.play(Create(box), FadeIn(query_note), FadeIn(key_labels), FadeIn(names),
               FadeIn(scores), FadeIn(rule), FadeIn(more), FadeIn(w_before),
               *([FadeIn(before_note)] if before_note is not None else []),
               run_time=0.9, rate_func=style.EASE)
    scene.wait(0.7)

    n_future = int(mask[focus].sum())
    scene.play(LaggedStart(*[FadeIn(r, scale=0.6) for r in red], lag_ratio=style.LAG_MANY),
               *[FadeTransform(scores[c], m) for c, m in zip(forbidden, masked_scores)],
               run_time=1.3, rate_func=style.EASE,
               subcaption=(f"No looking ahead: {n_future} of {trace.focus_word}'s scores "
                           "become \u2212\u221e"
                           if kind == "causal" else
                           f"The mask forbids {n_future} of {trace.focus_word}'s keys: "
                           "their scores become \u2212\u221e"),
               subcaption_duration=2.2)
    scene.wait(1.0)

    first = int(np.argmax(after[focus]))
    scene.play(Transform(dots_before, dots_after),
               *[FadeTransform(a, b) for a, b in zip(w_before, w_after)],
               *([FadeTransform(before_note, total_after)] if before_note is not None else []),
               run_time=1.5, rate_func=style.EASE,
               subcaption=f"Softmax over what is left: the weights renormalise; "
                          f"{trace.focus_word} now gives "
                          f"{scene.record_number(weight_kind, (slot, focus, first), 2)} to "
                          f"{trace.display_tokens[first]}.",
               subcaption_duration=3.2)
    if before_note is None:
        scene.play(FadeIn(total_after), run_time=0.5, rate_func=style.EASE)
    else:
        scene.wait(0.5)
    scene.mark_key_frame()
    scene.wait(1.3)
    hold_captions(scene, first_caption)
    scene.clear_stage()


class MaskBeat(BeatScene):
    beat_name = "mask"
    beat_title = "The causal mask"

    def build(self):
        build_mask(self)
