"""Beat 7, heads: the layer runs several heads at once, each asking its own question. The
focus word's row of weights in each drawn head, one row per head in the head's colour,
with the key each head gives the most weight to; the camera starts on the head we
followed and pulls out to the others. Then every head's output for the focus word is
concatenated (all the layer's heads, in the model's order) and W_O mixes them into the
layer's output for the word: its real numbers.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, GrowFromCenter,
                   LaggedStart, Rectangle, Transform, TransformFromCopy, VGroup, config)

from ...vocabulary import stage, style
from .. import question as asking
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import beat_line, head_name
from ...vocabulary.text import label_text, line_of, make_math, wrapped
from ...vocabulary.vectors import VectorRow
from ..head_table import TABLE_BOTTOM, head_rows, heaviest_word
from ..views import drawn_indices, focus_row_dots, head_color, sentence_grid
from ....attention_core.word_model import WordModel
from ..ranking import outside_said
from ..wording import LQ, RQ, focus_name, focus_parts, focus_whole, told_apart, word_quoted


def named(word) -> str:
    """A word (or a token the model adds) in running text, quoted as the captions quote
    every token: ‘fish’, ‘[CLS]’, ‘the’ (2nd)."""
    return word_quoted(word)

__all__ = ["BAR_WIDTH", "BAR_Y", "CLOSE_UP", "HeadsBeat", "MIX_ARROW", "line", "shared_keys"]

BAR_Y = -2.35             # the concatenation, W_O and the layer's output for the word
MIX_ARROW = 1.2           # from the segments' end to the W_O arrow's tip
BAR_WIDTH = 5.4
CLOSE_UP = 0.62           # the share of the stage the camera starts on (the followed row)


def line(trace):
    return beat_line("Several heads at once: the row of ", *focus_parts(trace), " in each")


def shared_keys(book) -> str | None:
    """Grouped-query attention, said: which drawn heads read one key/value head."""
    trace = book.trace
    kv_of = trace.meta.get("kv_head_of")
    if not kv_of:
        return None
    groups: dict[int, list[str]] = {}
    for s, kv in enumerate(kv_of):
        groups.setdefault(int(kv), []).append(head_name(book, s))
    total, kv_total = trace.meta.get("num_heads_total"), trace.meta.get("kv_heads")
    said = (f"Grouped-query attention: the {total} query heads share {kv_total} key and "
            "value heads")
    together = [names for names in groups.values() if len(names) > 1]
    if together:
        said += "; " + "; ".join(f"{', '.join(n[:-1])} and {n[-1]} read the same keys"
                                 for n in together)
    return said


class HeadsBeat(Beat):
    name = "heads"

    @classmethod
    def leaves(cls, film) -> Stage:
        # the mask beat's grid, and in it the followed head's row, which the table's row
        # moves into
        grid = sentence_grid(film.trace)
        return Stage({Role.LINE: line(film.trace), Role.MAP: FormulaMap("all"),
                      Role.GRID: grid, Role.WEIGHTS: focus_row_dots(film.trace, grid)})

    def hand_off(self) -> None:
        """The followed head's dots move into the focus row of the grid the mask beat
        works on; the grid comes in around them; the rest goes."""
        target = self.film.stage_left_by(type(self))
        s, keys = self.trace.primary_slot, drawn_indices(self.trace)
        row = target[Role.WEIGHTS]
        moves, staying = self.overlay_moves(target)
        moves.append(FadeIn(target[Role.GRID]))
        moving = []
        for j, dot in zip(target[Role.GRID].indices, row):
            if j in keys:
                moving.append(self.table.dots[s][keys.index(j)])
                moves.append(Transform(moving[-1], dot))
            else:
                moves.append(FadeIn(dot))
        self.play_hand_off(moves, staying | {id(m) for m in moving})

    def script(self):
        self.open(line(self.trace), "all")
        self.table = head_rows(self.book)
        self.from_the_head_we_followed()
        self.out_to_every_head()
        self.concatenate()
        self.mix_by_w_o()

    # ---- the head we followed, close up ------------------------------------------------------
    def from_the_head_we_followed(self):
        trace, table = self.trace, self.table
        s = trace.primary_slot
        followed = VGroup(table.names[s], table.rows[s], table.notes[s])
        width = max(followed.width * 1.15, config.frame_width * CLOSE_UP)
        handed = self.stage.get(Role.WEIGHTS)      # the weights list, become this row
        word = heaviest_word(trace, s)
        said = (f"{head_name(self.book, s).capitalize()}, the head we followed, gives most "
                f"to {named(word)}")
        self.book.claim("heaviest", (s, word.span, "all"), said)
        outside = outside_said(self.book, [WordModel.of_trace(trace).index_of(word.first)])
        self.say(said + (f" ({outside})" if outside else ""))
        appear = [FadeIn(table.lines), FadeIn(table.labels), FadeIn(table.names[s])]
        if handed is not None:
            # the row is on stage already, where the table puts it: its own dots stand in
            self.remove(handed, *handed)
            self.add(*table.dots[s])
        else:
            appear.append(LaggedStart(*[GrowFromCenter(d) for d in table.dots[s]],
                                      lag_ratio=style.lag_for(len(table.words))))
        if width < config.frame_width:        # a short row: the camera moves close to it
            self.camera_to(followed.get_center(), width, *appear, run_time=style.T_MOVE)
        else:
            self.play(*appear, run_time=style.T_MOVE)
        self.play(FadeIn(table.notes[s], shift=RIGHT * 0.1), Create(table.box),
                  run_time=style.T_SHORT)

    # ---- out to every head ---------------------------------------------------------------------
    def out_to_every_head(self):
        trace, table = self.trace, self.table
        others = [s for s in range(len(trace.heads)) if s != trace.primary_slot]
        if not others:
            return
        heaviest = [heaviest_word(trace, s) for s in range(len(trace.heads))]
        picks = sorted({named(word) for word in heaviest})
        # "its own pattern" only where the heads' heaviest words differ
        said = ("Each head has its own pattern: most weight to "
                + ", ".join(picks[:-1]) + " or " + picks[-1] if len(picks) > 1 else
                f"Every head shown gives the most weight to {picks[0]}")
        for s, word in enumerate(heaviest):
            self.book.claim("heaviest", (s, word.span, "all"), said)
        words = WordModel.of_trace(trace)
        outside = outside_said(self.book, [words.index_of(word.first) for word in heaviest])
        self.say(said + (f" ({outside})" if outside else ""))
        self.camera_to(np.zeros(3), config.frame_width,
                       *[FadeIn(table.names[s]) for s in others],
                       LaggedStart(*[LaggedStart(*[GrowFromCenter(d) for d in table.dots[s]],
                                                 lag_ratio=style.LAG_MANY) for s in others],
                                   lag_ratio=style.LAG_FEW),
                       LaggedStart(*[FadeIn(table.notes[s], shift=RIGHT * 0.1) for s in others],
                                   lag_ratio=style.LAG_FEW))
        shared = shared_keys(self.book)
        if shared:
            self.say(shared)
        said = asking.runner_up(self.book, trace)
        if said:         # what the head chosen next would have answered
            self.say(said)
            self.wait()

    # ---- every head's output for the word, concatenated ----------------------------------------
    def concatenate(self):
        trace, pal, table = self.trace, style.PALETTE, self.table
        total = int(self.record("num_heads_total", (), 0))
        drawn_at = {int(h): s for s, h in enumerate(trace.heads)}
        seg_w = min(0.5, BAR_WIDTH / total)
        segments = VGroup(*[Rectangle(width=seg_w, height=0.42) for _ in range(total)])
        segments.arrange(RIGHT, buff=0)
        for h, seg in enumerate(segments):
            if h in drawn_at:
                seg.set_fill(head_color(trace, h), opacity=0.9).set_stroke(style.PALETTE.background, width=1.5)
            else:       # a head that is not drawn: an empty slot, not a grey head
                seg.set_fill(opacity=0).set_stroke(pal.dim, width=1.2)
        title = label_text("concat", style.FONT_SMALL, pal.soft)
        # under the table, lower when many heads make it reach further down
        bar_y = min(BAR_Y, table.rows[-1].get_bottom()[1] - (TABLE_BOTTOM - BAR_Y))
        VGroup(title, segments).arrange(RIGHT, buff=0.25).move_to(
            [stage.LEFT_EDGE, bar_y, 0], aligned_edge=LEFT).shift(RIGHT * 0.2)
        d_k = self.record("d_k", (), 0)
        hidden = (f"; outlined: the {self.record('heads_not_drawn', (), 0)} heads not drawn"
                  if total > len(drawn_at) else "")
        # no wider than the segments and the W_O arrow after them: the layer's output and
        # its name stand beyond
        room = segments.get_right()[0] + MIX_ARROW - title.get_left()[0]
        said = f"a head's output: {d_k} numbers{hidden}"
        if wrapped(said, room) != said:             # two lines: break where the sense does
            first, *rest = said.split("; ", 1)
            said = "\n".join([wrapped(first + (";" if rest else ""), room)]
                             + [wrapped(part, room) for part in rest])
        note = label_text(said, style.FONT_SMALL, pal.dim)
        note.next_to(segments, DOWN, buff=0.15).align_to(title, LEFT)
        self.segments = segments
        self.say(f"Each head's output for {focus_name(trace)}, {d_k} numbers, "
                 "stacks up in head order")
        # each row, unseen, becomes its segment: it gains its colour on the way (a filled
        # copy would flash over the table)
        sources = [table.rows[s].copy().set_stroke(width=0).set_fill(head_color(trace, trace.heads[s]),
                                                                     opacity=0.0)
                   for s in range(len(trace.heads))]
        self.play(FadeIn(VGroup(*[seg for h, seg in enumerate(segments) if h not in drawn_at])),
                  LaggedStart(*[TransformFromCopy(src, segments[int(trace.heads[s])])
                                for s, src in enumerate(sources)], lag_ratio=style.LAG_FEW),
                  FadeIn(title), FadeIn(note), run_time=style.T_MOVE)

    # ---- mixed by W_O into the layer's output ----------------------------------------------------
    def mix_by_w_o(self):
        trace, pal = self.trace, style.PALETTE
        D = self.record("d_model", (), 0)
        out = VectorRow.from_trace(self.book, "output", (trace.focus_index,), int(D), head=4,
                                   tail=1, bracket_color=pal.output)
        start = self.segments.get_right() + RIGHT * 0.2
        mix = Arrow(start, start + RIGHT * (MIX_ARROW - 0.2), buff=0, color=pal.output,
                    stroke_width=4,
                    max_tip_length_to_length_ratio=0.3)
        w_o = make_math("W_O", color=pal.output, font_size=style.FONT_LABEL * 1.3)
        w_o.next_to(mix, UP, buff=0.08)
        out.next_to(mix, RIGHT, buff=0.2)
        stage.keep_right_of(out)
        whole = focus_whole(trace)           # the focus named as every caption names it
        name = line_of([("output for " + LQ, pal.output), (trace.focus_word, ("user", pal.output)),
                        *([(f"{RQ} in {LQ}", pal.output), (whole, ("user", pal.output))]
                          if whole else []),
                        (f"{RQ}{told_apart(trace, trace.focus_index)}: {D} numbers",
                         pal.output)], style.FONT_SMALL)
        name.next_to(out, DOWN, buff=0.15)
        stage.keep_right_of(name)
        self.say(f"W_O mixes them into one output for {focus_name(trace)}: the layer's answer")
        self.play(Create(mix), FadeIn(w_o, shift=DOWN * 0.1), run_time=style.T_SHORT)
        self.play(FadeIn(out.brackets),
                  LaggedStart(*[FadeIn(m, shift=RIGHT * 0.2) for m in out.entries],
                              lag_ratio=style.LAG_FEW),
                  FadeIn(name), run_time=style.T_MOVE)
