"""Beat 10, update: the payoff. What the layer's attention adds to the focus word goes back
onto the word: its update ΔE drawn as what each word adds, chained tip to tail (a word's
weight times its value, through W_O, summed over every head of the layer: the norm-based
view of Kobayashi et al., EMNLP 2020, "Attention is not only a weight"), then E + ΔE (the
residual connection) and, where the model norms it, the layer norm: E′, the word as the
next part of the layer sees it. A list beside the view says what ΔE is made of and how
close the word comes to the words that made it. Every number is read from the trace
(``trace.contributions``, ``output_bias``, ``updated``).

The view is fitted to the vectors it draws (uncentred PCA of E, the pieces, E + ΔE and E′:
a linear map, so the pieces still chain to the sum) and says how much of them it keeps.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, AnimationGroup, Arrow, Dot, FadeIn, FadeOut, GrowArrow,
                   LaggedStart, VGroup)

from ....attention_core.projection import fit_pca
from ....attention_core.trace import UPDATE_NORMED, UPDATE_SANDWICH, UPDATES_TO_STREAM
from ....attention_core.word_model import WordModel
from ...vocabulary import stage, style
from ...vocabulary.colors import legible_opacity
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import beat_line, layer_name
from ...vocabulary.labels import place_labels
from ...vocabulary.planes import Plane2D
from ...vocabulary.text import label_text, line_of, outlined, wrapped
from .. import question as asking
from ..beat import Beat, Role, Stage
from ..ending import the_answer_drawn
from ..views import strip_row
from ..wording import (LQ, RQ, focus_name, focus_parts, focus_whole, told_parts, word_name,
                       word_quoted)

__all__ = ["CHAIN", "UpdateBeat", "line", "pieces_of"]

CHAIN = 3                 # what the largest words add, drawn one by one; the rest as one
PLANE_W, PLANE_H = 7.4, 4.6
PLANE_LEFT = stage.LEFT_EDGE + 0.1
PLANE_TOP = 2.2
LIST_LEFT = 1.6           # the list of what ΔE is made of, right of the view
SHOWN_AT_LEAST = style.MIN_ARROW   # a shorter piece is listed, not drawn (not seen)
NAMED_AT_LEAST = 0.45     # ... and one shorter than this is drawn unnamed (the list names it)


def line(trace):
    return beat_line("The payoff: the update of ", *focus_parts(trace))


def pieces_of(trace) -> list[tuple[str, list[int], np.ndarray]]:
    """ΔE of the focus word as the pieces the beat chains: the ``CHAIN`` words as written
    adding the most (a word: the sum of what its pieces add, its share the sum of theirs),
    then the other tokens together, then W_O's bias: (kind, tokens, vector) with kind
    "word", "rest" or "bias". They sum to ΔE."""
    c = trace.contributions.astype(np.float64)
    words = WordModel.of_trace(trace)
    norms = np.linalg.norm(c, axis=1)
    shares = words.sums(norms)
    order = [int(w) for w in np.argsort(-shares, kind="stable")]
    top = [list(words.words[w].pieces) for w in order[:CHAIN]]
    rest = sorted(j for w in order[CHAIN:] for j in words.words[w].pieces)
    pieces = [("word", tokens, c[tokens].sum(0)) for tokens in top]
    if rest:
        pieces.append(("rest", rest, c[rest].sum(0)))
    pieces.append(("bias", [], trace.output_bias.astype(np.float64)))
    return pieces


class UpdateBeat(Beat):
    name = "update"

    @classmethod
    def leaves(cls, film) -> Stage:
        # the answer's sentence goes back to the strip: a beat after the film's answer (a
        # minimal pair's) starts from the sentence, not from an empty stage
        return Stage({Role.LINE: line(film.trace), Role.MAP: FormulaMap(None),
                      Role.ROW: strip_row(film.trace)})

    def script(self):
        trace = self.trace
        leaving = [m for role, m in self.stage.items() if role not in Role.OVERLAY]
        for role in [r for r in self.stage if r not in Role.OVERLAY]:
            self.stage.pop(role)
        if not trace.has_update:
            self.lacking(leaving)
            return
        self.view()
        # a vector too short to see beside ΔE (a first layer's x, many times shorter) is a
        # dot at its tip, and said so
        short = _length(self.e_arrow) < SHOWN_AT_LEAST
        shown = FadeIn(Dot(self.e_arrow.get_end(), radius=0.06, color=style.PALETTE.text)) \
            if short else GrowArrow(self.e_arrow)
        self.open(line(trace), None, *[FadeOut(m) for m in leaving],
                  FadeIn(self.plane), shown, FadeIn(self.e_label))
        whose = "whose residual stream is x" if self.prenorm else "whose vector is E"
        dot = (f" (a dot here: |{self.base}| = {self.record('input_norm', (), 1)}, too short "
               "to see beside \u0394E)" if short else "")
        self.say(f"Back on the word: what the attention of {layer_name(self.book)} adds to "
                 f"{focus_name(trace)}, {whose}{dot}")
        self.the_chain()
        self.the_sum()
        self.the_new_word()

    def coda(self):
        if self.trace.has_update:
            self.the_answer()

    def lacking(self, leaving):
        """A trace saved before traces held the update: the screen says so, and how to
        get one that does."""
        note = label_text(wrapped("This trace was saved before traces held the update of "
                                  "the word: write a fresh one with inspect --npz to see it",
                                  stage.TEXT_WIDTH * 0.7, style.FONT_BODY),
                          style.FONT_BODY, style.PALETTE.soft)
        self.open(line(self.trace), None, *[FadeOut(m) for m in leaving], FadeIn(note))
        self.say("This trace does not hold the update: write a fresh one with inspect --npz")

    # ---- the view -------------------------------------------------------------------------
    def view(self):
        trace, pal = self.trace, style.PALETTE
        # a pre-norm model adds the update to the residual stream x (attention read E, its
        # layer norm): the picture starts from x and names it so
        self.prenorm = trace.meta.get("update") in UPDATES_TO_STREAM
        # ... and one that norms ΔE first (Gemma 2, OLMo 2) lands at x + norm(ΔE), drawn
        # as the sum's arrow: x + ΔE is not a vector it makes
        self.sandwich = trace.meta.get("update") == UPDATE_SANDWICH
        self.base = "x" if self.prenorm else "E"
        e = trace.update_base
        self.pieces = pieces_of(trace)
        delta = sum(v for _, _, v in self.pieces)
        self.e_plus = e + delta
        self.e_new = trace.updated.astype(np.float64)
        vectors = np.vstack([e, *[v for _, _, v in self.pieces], self.e_plus, self.e_new])
        proj = fit_pca(vectors)
        kept = round(100 * sum(proj.explained))
        tips = [e]
        for _, _, v in self.pieces:
            tips.append(tips[-1] + v)
        points = proj(np.vstack([np.zeros_like(e), *tips, self.e_new]))
        note = label_text(wrapped(f"2-D view of these vectors (uncentred PCA): it keeps "
                                  f"{kept}\u00a0% of their squared length", PLANE_W),
                          style.FONT_SMALL, pal.dim)
        self.plane = Plane2D.cropped(points, PLANE_W, PLANE_H, pad=0.6)
        self.plane.move_to([PLANE_LEFT + self.plane.width / 2, 0, 0])
        self.plane.align_to([0, PLANE_TOP, 0], UP)
        note.next_to(self.plane.plane, DOWN, buff=0.15).align_to(self.plane.plane, LEFT)
        self.plane.note = note
        self.plane.add(note)
        at = [self.plane.c2p(*p) for p in points]
        self.tips = at[1:-1]
        self.e_arrow = _arrow(at[0], at[1], pal.text, 5)
        self.e_label = _label(self.base, pal.text)
        self.new_at = at[-1]
        self.kept = kept
        self.build_arrows()
        self.place_words()

    def build_arrows(self):
        """Every arrow of the picture, so that its words are placed clear of all of them:
        E, the chain, E + ΔE and (where the model norms it) E′."""
        pal = style.PALETTE
        arrows, labels = [], []
        for n, (kind, tokens, _) in enumerate(self.pieces):
            opacity = 1.0 if kind == "word" else 0.6
            arrows.append(_arrow(self.tips[n], self.tips[n + 1], pal.output, 4, opacity))
            labels.append(_label(self.piece_name(kind, tokens), pal.output, opacity))
        length = [_length(a) for a in arrows]
        # the view's scale is set by E and E′, many times longer than any piece: where
        # every piece is too short to see, ΔE is drawn whole, from E's tip to where the
        # pieces end (the list gives them); where even ΔE is, nothing is drawn here
        self.chain_whole = not any(d >= SHOWN_AT_LEAST for d in length)
        if self.chain_whole:
            arrows = [_arrow(self.tips[0], self.tips[-1], pal.output, 4)]
            labels = [_label("\u0394E", pal.output)]
            length = [_length(arrows[0])]
        self.chain = VGroup(*[a for a, d in zip(arrows, length) if d >= SHOWN_AT_LEAST])
        self.chain_labels = VGroup(*[m for m, d in zip(labels, length) if d >= NAMED_AT_LEAST])
        # each drawn piece with its name, if it has one: they arrive together
        self.chain_steps = [(a, m if d >= NAMED_AT_LEAST else None)
                            for a, m, d in zip(arrows, labels, length) if d >= SHOWN_AT_LEAST]
        self.chain_anchors = [(a.get_start() + a.get_end()) / 2
                              for a, d in zip(arrows, length) if d >= NAMED_AT_LEAST]
        self.chain_normals = [_normal(a) for a, d in zip(arrows, length) if d >= NAMED_AT_LEAST]
        origin = self.e_arrow.get_start()
        if self.sandwich:
            self.sum_arrow = _arrow(origin, self.new_at, pal.output, 5)
            self.sum_label = _label(f"{self.base} + norm(\u0394E)", pal.output)
        else:
            self.sum_arrow = _arrow(origin, self.tips[-1], pal.output, 3, 0.55)
            self.sum_label = _label(f"{self.base} + \u0394E", pal.output, 0.8)
        self.normed = self.trace.meta.get("update") == UPDATE_NORMED
        self.new_arrows = VGroup(*([_arrow(origin, self.new_at, pal.output, 5)]
                                   if self.normed else []))
        self.new_labels = VGroup(*([_label("E\u2032", pal.output)] if self.normed else []))

    def place_words(self):
        """All the picture's words at once, clear of every arrow, axis and each other."""
        origin = self.e_arrow.get_start()
        arrows = [self.e_arrow, *self.chain, self.sum_arrow, *self.new_arrows]
        labels = [self.e_label, *self.chain_labels, self.sum_label, *self.new_labels]
        anchors = [self.e_arrow.get_end(), *self.chain_anchors, self.sum_arrow.get_end(),
                   *([self.new_at] if self.normed else [])]
        directions = [self.e_arrow.get_end() - origin, *self.chain_normals,
                      self.sum_arrow.get_end() - origin,
                      *([self.new_at - origin] if self.normed else [])]
        place_labels(labels, anchors, directions=directions,
                     segments=[(a.get_start(), a.get_end()) for a in arrows] + self.plane.axes,
                     # each tip as drawn (a 0.2 triangle), and a margin: a word beside
                     # a tip read as touching it ("the other 7" on E + ΔE's)
                     keep_clear=[_tip_box(a) for a in arrows],
                     bounds=self.plane.plane, solo=range(len(labels)))

    # ---- ΔE, piece by piece ---------------------------------------------------------------
    def the_chain(self):
        self.made_of = self.the_list()
        heads = self.record("num_heads_total", (), 0)
        # what the view shows of it, where it cannot show the pieces (``build_arrows``)
        shown = ("" if not self.chain_whole else
                 "; its pieces are too short to see here, so it is drawn whole"
                 if self.chain_steps else "; here it is too short to see")
        self.say(f"Its update \u0394E is a sum: each word's weight \u00d7 value, through W_O, "
                 f"over all {heads} heads{shown}")
        self.play(LaggedStart(*[AnimationGroup(GrowArrow(a), *([FadeIn(m)] if m else []))
                                for a, m in self.chain_steps], lag_ratio=0.6),
                  run_time=style.T_WRITE)
        words = [tokens for kind, tokens, _ in self.pieces if kind == "word"]
        shares = ", ".join(f"{self.share_name(t)} "
                           f"{self.record('word_update_percent', (t[0], t[-1]), 0)} %"
                           for t in words)
        self.say(f"\u0394E is made of {shares} (|\u0394E| = "
                 f"{self.record('update_norm', (), 1)}, |{self.base}| = "
                 f"{self.record('input_norm', (), 1)})")
        self.play(FadeIn(self.made_of, shift=LEFT * 0.2), run_time=style.T_STEP)

    def piece_name(self, kind: str, tokens: list[int]) -> str:
        if kind == "bias":
            return "bias"
        if kind == "rest":
            return f"the other {len(tokens)}"
        word = WordModel.of_trace(self.trace).word_of(tokens[0])
        return word.text + word.told_apart

    def named_parts(self, j: int, whole_word: bool = True) -> list:
        """Token ``j`` as parts of a line (``line_of``): quoted, with the word it is a piece
        of (unless not ``whole_word``), and "itself" for the focus word."""
        pal, trace = style.PALETTE, self.trace
        parts = [(LQ, pal.text), (trace.display_tokens[j], ("user", pal.text)), (RQ, pal.text)]
        whole = (focus_whole(trace) if j == trace.focus_index
                 else (trace.written_word_of(j) or (0, 0, None))[2])
        if whole and whole_word:
            parts += [(f" in {LQ}", pal.text), (whole, ("user", pal.text)), (RQ, pal.text)]
        parts += told_parts(WordModel.of_trace(trace).word_of(j), pal.text)
        if j == trace.focus_index:
            parts.append((" itself", pal.text))
        return parts

    def fitting(self, parts_of, before: str = "") -> list:
        """A row's parts naming the whole word a piece belongs to when the row fits the room
        right of the view, else the piece alone (the caption names the whole word)."""
        room = stage.RIGHT_EDGE - LIST_LEFT
        parts = parts_of(True)
        row = line_of([(before, style.PALETTE.output), *parts], style.FONT_LABEL) \
            if before else line_of(parts, style.FONT_LABEL)
        return parts if row.width <= room else parts_of(False)

    def share_name(self, tokens: list[int]) -> str:
        """A word of the list in running text: as written, and "itself" for the focus's."""
        word = WordModel.of_trace(self.trace).word_of(tokens[0])
        name = word.text + word.told_apart if word.kind == "special" else word_quoted(word)
        return f"{name} itself" if self.trace.focus_index in tokens else name

    def word_parts(self, tokens: list[int]) -> list:
        """A word of the list as parts of a line: quoted as written, "itself" for the
        focus's."""
        pal = style.PALETTE
        word = WordModel.of_trace(self.trace).word_of(tokens[0])
        parts = [(word.text, ("user", pal.text))] if word.kind == "special" else \
            [(LQ, pal.text), (word.text, ("user", pal.text)), (RQ, pal.text)]
        parts += told_parts(word, pal.text)
        if self.trace.focus_index in tokens:
            parts.append((" itself", pal.text))
        return parts

    def the_list(self) -> VGroup:
        """What ΔE is made of: each drawn word's share of it (the norm of what it adds over
        the sum of all of them), and the rest's, which makes the shown shares 100 %."""
        pal = style.PALETTE
        rows = [label_text("share of \u0394E", style.FONT_SMALL, pal.soft)]
        listed, parts = [], []
        for kind, tokens, _ in self.pieces:
            if kind == "word":
                listed += [tokens[0], tokens[-1]]
                parts.append(self.record('word_update_percent', (tokens[0], tokens[-1]), 0))
                text = f"{parts[-1]} %"
                who = self.word_parts(tokens)
            elif kind == "rest":
                parts.append(self.record('word_update_rest_percent', tuple(listed), 0))
                text = f"{parts[-1]} %"
                who = [(f"the other {len(tokens)} tokens", pal.soft)]
            else:
                continue
            rows.append(line_of([(text + "  ", pal.output), *who], style.FONT_LABEL))
        rows.append(label_text(f"|\u0394E| = {self.record('update_norm', (), 1)}, "
                               f"|{self.base}| = {self.record('input_norm', (), 1)}",
                               style.FONT_SMALL, pal.soft))
        spans = [(t[0], t[-1]) for kind, t, _ in self.pieces if kind == "word"]
        self.book.claim("update_ranked", tuple(spans), "share of \u0394E")
        self.book.claim("adds_up", ("100", *parts), "share of \u0394E")
        made_of = VGroup(*rows).arrange(DOWN, buff=0.22, aligned_edge=LEFT)
        made_of.move_to([LIST_LEFT, PLANE_TOP, 0], aligned_edge=UP + LEFT)
        stage.keep_right_of(made_of)
        return made_of

    # ---- E + ΔE, then the norm --------------------------------------------------------------
    def the_sum(self):
        meta = self.trace.meta
        read = ("attention read it as it is" if meta.get("input_normed", True) is False
                else "attention read its layer norm, E")
        scaled = (f", scaled by {meta['residual_scale']:g} ({meta.get('residual_scale_setting')}"
                  f", counted in \u0394E here)" if meta.get("residual_scale") is not None else "")
        if self.sandwich:
            self.say(f"This model norms \u0394E first (an RMS norm with a learned gain), then "
                     f"the residual connection adds it to the word\u2019s stream x ({read}): "
                     f"x + norm(\u0394E)")
        else:
            self.say(f"The residual connection adds it{scaled} to the word\u2019s stream x "
                     f"({read}): x + \u0394E" if self.prenorm else
                     "The residual connection adds it to the word: E + \u0394E")
        self.play(GrowArrow(self.sum_arrow), FadeIn(self.sum_label), run_time=style.T_STEP)

    def the_new_word(self):
        trace = self.trace
        # a pre-norm model's new vector and the other words' inputs are not in one space
        # and a heading is drawn only with rows under it: none where no word qualifies
        closeness = [] if self.prenorm or not self.others() else [self.closeness()]
        closer = self.closeness_words()
        if self.normed:
            # why E′ points elsewhere than E + ΔE: the norm is not a mere rescaling
            self.say(f"Then the layer norm, which centres the numbers and scales each by a "
                     f"learned gain, so it turns the vector too: E\u2032, the new "
                     f"{focus_name(trace)}{closer}")
        elif self.prenorm:
            if self.sandwich:
                self.say(f"Nothing more here: x + norm(\u0394E), the new "
                         f"{focus_name(trace)}, goes on to the next part of the layer")
            else:
                self.say(f"No norm here: x + \u0394E, the new {focus_name(trace)}, goes on to "
                         "the next part of the layer, which norms what it reads")
        else:
            self.say(f"The seed's module has no layer norm: E\u2032 = E + \u0394E{closer}")
        shown = [*[GrowArrow(a) for a in self.new_arrows],
                 *[FadeIn(m) for m in self.new_labels],
                 *[FadeIn(c, shift=UP * 0.1) for c in closeness]]
        if shown:
            self.play(*shown, run_time=style.T_STEP)
            # one with the list only once it has faded in (a part of a group on screen is
            # on screen at once: it stood whole before its fade began)
            self.made_of.add(*closeness)
        else:       # a pre-norm model: x + ΔE is drawn already; its caption is read
            self.wait(style.T_STEP)

    # ---- the answer to the film's question ------------------------------------------------
    def the_answer(self):
        """The film closes where it opened: the question again, and the answer the numbers
        give, in plain words (the view and its lists make way for it); then it ends on its
        last picture, the word's new vector among the words it drew on, with the answer in
        a line under it (3Blue1Brown ends on the updated vector, not on a card)."""
        pal = style.PALETTE
        lines = asking.answer(self.book, self.trace)
        if not lines:
            return
        asked = asking.lines(asking.question(self.trace), stage.TEXT_WIDTH, style.FONT_BODY,
                             pal.soft)
        told = [asking.lines(parts, stage.TEXT_WIDTH, style.FONT_LABEL) for parts in lines]
        card = VGroup(asked, *told).arrange(DOWN, buff=0.45)
        for row in told:
            row.set_x(0)
        asked.set_x(0)
        card.move_to([0, (stage.LINE_LEFT[1] + stage.BOTTOM_EDGE) / 2, 0])   # under the line
        leaving = [m for m in self.film.mobjects
                   if m not in (self.roles.get(Role.LINE), self.roles.get(Role.MAP))
                   and m is not self.film.camera.frame]
        # the question is the title's, read once already: it comes back with the answer
        self.play(*[FadeOut(m) for m in leaving], run_time=style.T_SHORT)
        for n, (parts, row) in enumerate(zip(lines, told)):
            self.say(asking.plain(parts))
            self.play(*([FadeIn(asked, shift=UP * 0.2)] if n == 0 else []),
                      FadeIn(row, shift=UP * 0.15), run_time=style.T_STEP)
        self.the_last_picture(card, lines[0])

    def the_last_picture(self, card, answer_parts):
        """The film ends on its answer drawn (``ending.the_answer_drawn``)."""
        the_answer_drawn(self, card, answer_parts)

    def others(self) -> list[int]:
        """The words whose closeness is told: the two adding the most, not the word itself.
        None in a pre-norm model: the others' inputs are normed, its new vector is not."""
        if self.prenorm:
            return []
        # a word in pieces has no one input vector to be close to: words of one token, and
        # none the model read as its unknown token (what it saw is not the written word)
        f = self.trace.focus_index
        unknown = set(self.trace.meta.get("unknown_tokens", ()))
        return [tokens[0] for kind, tokens, _ in self.pieces
                if kind == "word" and len(tokens) == 1 and tokens[0] != f
                and tokens[0] not in unknown][:2]

    def closeness(self) -> VGroup:
        pal = style.PALETTE
        rows = [label_text("closeness (cosine), E \u2192 E\u2032", style.FONT_SMALL, pal.soft)]
        for j in self.others():
            before = self.record("closeness_before", (j,), 2)
            after = self.record("closeness_after", (j,), 2)
            rows.append(line_of(self.fitting(lambda whole: [
                *self.named_parts(j, whole), (f"  {before} \u2192 {after}", pal.text)]),
                style.FONT_LABEL))
        group = VGroup(*rows).arrange(DOWN, buff=0.22, aligned_edge=LEFT)
        group.next_to(self.made_of, DOWN, buff=0.5, aligned_edge=LEFT)
        return group

    def closeness_words(self) -> str:
        """", closer to ‘fish’ (0.26 → 0.28) and farther from ‘cat’ (…)", as drawn."""
        parts = []
        for j in self.others():
            before = self.book.text("closeness_before", (j,), 2)
            after = self.book.text("closeness_after", (j,), 2)
            way = "closer to" if float(after.replace("\u2212", "-")) > float(
                before.replace("\u2212", "-")) else "as close to" if after == before \
                else "farther from"
            parts.append(f"{way} {word_name(self.trace, j)} ({before} \u2192 {after})")
        return (", " + " and ".join(parts)) if parts else ""


def _arrow(start, end, color: str, width: float, opacity: float = 1.0) -> Arrow:
    start, end = np.asarray(start, float), np.asarray(end, float)
    if np.linalg.norm(end - start) < 0.02:
        end = start + RIGHT * 0.02
    arrow = Arrow(start, end, buff=0, stroke_width=width, color=color, tip_length=0.2,
                  max_tip_length_to_length_ratio=0.25, max_stroke_width_to_length_ratio=8)
    return arrow.set_opacity(opacity)


def _length(arrow) -> float:
    return float(np.linalg.norm(arrow.get_end() - arrow.get_start()))


def _tip_box(arrow, margin: float = 0.08) -> list[float]:
    """The box a word must stay off around ``arrow``'s tip: the tip as drawn (or its end,
    for an arrow too short for one), with ``margin``."""
    tip = arrow.get_tip() if arrow.has_tip() else None
    x0, y0, x1, y1 = ([tip.get_left()[0], tip.get_bottom()[1], tip.get_right()[0],
                       tip.get_top()[1]] if tip is not None
                      else [*arrow.get_end()[:2], *arrow.get_end()[:2]])
    return [x0 - margin, y0 - margin, x1 + margin, y1 + margin]


READ_CONTRAST = 4.5   # WCAG AA: a word of the picture, however faint, still reads


def _label(text: str, color: str, opacity: float = 1.0):
    """A word of the picture in ``color``, fainter for a lesser piece (``opacity``), never
    below ``READ_CONTRAST`` on the stage (pale pink on white read at 2.8:1)."""
    label = label_text(text, style.FONT_LABEL, color)
    if opacity < 1.0:
        label.set_opacity(legible_opacity(color, style.PALETTE.background, opacity,
                                          READ_CONTRAST))
    return outlined(label)


def _away(start, end) -> np.ndarray:
    d = np.asarray(end, float) - np.asarray(start, float)
    n = np.linalg.norm(d)
    return d / n if n > 1e-9 else RIGHT


def _normal(arrow) -> np.ndarray:
    d = _away(arrow.get_start(), arrow.get_end())
    return np.array([-d[1], d[0], 0.0])

