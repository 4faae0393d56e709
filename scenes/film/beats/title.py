"""Beat 1, title: the sentence appears as the model's tokens; the question its focus word
poses arrives in the middle, then takes the heading's place; the formula arrives with what
its three letters are for, and whose numbers they are (the model, the layer, the head and
why that head); then the formula becomes the film's map, in the corner, and the sentence
moves up to the strip where it lives."""
from __future__ import annotations

from manim import DOWN, RIGHT, UP, FadeIn, FadeOut, LaggedStart, VGroup, Write

from ...vocabulary import stage, style
from ..beat import Beat, Role, Stage
from ...vocabulary.formula import FormulaMap
from ...vocabulary.headers import head_name, layer_name
from ...vocabulary.text import label_text, legible_fit, line_of, user_text
from .. import question as asking
from ..views import strip_row, token_row
from ..wording import LQ, RQ

__all__ = ["NOTE_GAP", "QUESTION_SIZE", "ROLES_GAP", "TITLE_FORMULA_SIZE", "TitleBeat",
           "written_sentence"]

TITLE_FORMULA_SIZE = 46     # the formula, large, before it shrinks into the map
NOTE_GAP = 0.3              # the formula keeps this far below the notes under the row
ROLES_GAP = 0.8             # between the formula and what its letters are for
FOOT_TOP = stage.BOTTOM_EDGE + 1.0   # the lines at the foot (model, head, why) stay below
QUESTION_SIZE = 40          # the question, asked in the middle, before it takes the heading's
TOP_SIZE = 38               # place at this size


class TitleBeat(Beat):
    name = "title"

    @classmethod
    def leaves(cls, film) -> Stage:
        return Stage({Role.MAP: FormulaMap(None), Role.ROW: strip_row(film.trace)})

    def script(self):
        self.the_sentence_as_tokens()
        self.the_question()
        self.the_formula_and_its_letters()
        self.whose_numbers()

    # ---- the sentence, as the model's tokens ----------------------------------------------
    def the_sentence_as_tokens(self):
        trace = self.trace
        heading = label_text("Self-attention, on a real sentence", style.FONT_TITLE)
        heading.to_edge(UP, buff=0.45)
        self.heading = heading
        row = token_row(trace, max_width=stage.TEXT_WIDTH).move_to(UP * 1.75)
        self.roles[Role.ROW] = row
        n_tokens = self.record("num_tokens", (), 0)
        n_special = sum(trace.special)
        unknown = len(trace.meta.get("unknown_tokens", ()))
        # what the normaliser drops from the words is said once on screen, here
        dropped = asking.dropped_said(trace)
        # the tokens the model adds are said to be dimmed only where the row draws them
        drawn_special = sum(1 for j in row.indices if trace.special[j])
        added = ("" if not n_special else
                 f"; the {n_special} the model adds are dimmed" if drawn_special == n_special
                 else f"; {n_special} added by the model, {drawn_special} drawn (dimmed)"
                 if drawn_special else f"; {n_special} added by the model, not drawn here")
        count = label_text(f"{n_tokens} tokens" + added
                           + (f"; {unknown} it cannot read" if unknown else "")
                           + (f"\n{dropped[:1].upper()}{dropped[1:]}" if dropped else ""),
                           style.FONT_SMALL, style.PALETTE.dim)
        count.next_to(row.window_note if row.window_note is not None else row.chips, DOWN,
                      buff=0.2)
        span_note = self.span_note(row, below=count)
        self.notes_bottom = (span_note if span_note is not None else count).get_bottom()[1]
        # the film opens on its title and the sentence whole, as written, where its tokens
        # will stand (they may window it, cut it in pieces or change its letters), never on
        # black; it rises away as its tokens arrive
        written = written_sentence(trace.sentence, row)
        self.add(heading, written)
        self.wait(style.T_HOLD)
        self.play(FadeOut(written, shift=UP * 0.25), run_time=style.T_QUICK)
        # each caption is said over the picture it is about: the count as the tokens come,
        # what the model cannot read once they are there (said before them, it held the
        # tokens back while it was read, over an empty stage)
        self.say(f"The model reads {n_tokens} tokens" + added.replace("by the model", "by it")
                 .replace("the model adds", "it adds"))
        self.play(LaggedStart(*[FadeIn(chip, shift=UP * 0.25) for chip in row.chips],
                              lag_ratio=style.LAG_FEW),
                  *([FadeIn(row.ellipses)] if len(row.ellipses) else []),
                  *([FadeIn(row.joins)] if len(row.joins) else []),
                  *([FadeIn(row.window_note)] if row.window_note else []),
                  FadeIn(count),
                  *([FadeIn(span_note)] if span_note is not None else []),
                  run_time=style.T_BUILD)
        seen = asking.reading(trace)
        if seen:
            self.say(seen)

    # ---- the question the focus word poses ---------------------------------------------------
    def the_question(self):
        """Asked large in the middle, then moved to the heading's place: the film is about
        it, and closes on its answer (the update beat)."""
        parts = asking.question(self.trace)
        asked = asking.lines(parts, stage.TEXT_WIDTH, QUESTION_SIZE)
        asked.move_to([0, (self.notes_bottom + stage.BOTTOM_EDGE) / 2 + 0.4, 0])
        self.say(asking.plain(parts))
        self.play(FadeIn(asked, shift=UP * 0.2), run_time=style.T_STEP)
        self.wait(style.T_HOLD)
        at_top = asking.lines(parts, stage.TEXT_WIDTH, TOP_SIZE)
        at_top.move_to(self.heading).align_to(self.heading, UP)
        # it rises and fades while it arrives at the top: moved there, it would pass
        # through the row and its notes
        self.play(FadeOut(self.heading, shift=UP * 0.2), FadeOut(asked, shift=UP * 0.3),
                  FadeIn(at_top, shift=UP * 0.3), run_time=style.T_MOVE)

    # ---- the formula, and what Q, K and V are for --------------------------------------------
    def the_formula_and_its_letters(self):
        pal = style.PALETTE
        formula = FormulaMap(None, font_size=TITLE_FORMULA_SIZE)
        roles = VGroup()
        for n, (name, color, what) in enumerate((("a query", pal.query, "what a word is looking for"),
                                                 ("a key", pal.key, "what a word offers"),
                                                 ("a value", pal.value, "what it passes on"))):
            named = line_of([(name, color)], style.FONT_LABEL)
            said = line_of([(what, pal.soft)], style.FONT_LABEL)
            # names right-aligned and descriptions left-aligned on one gutter, one baseline
            named.shift(RIGHT * (-0.15 - named.get_right()[0]) + DOWN * n * 0.48)
            said.shift(RIGHT * (0.15 - said.get_left()[0]) + DOWN * n * 0.48)
            roles.add(VGroup(named, said))
        # the letters' meanings beside the formula, the pair centred: the lines under them
        # (the model, the head and why) keep the stage's foot
        # between the notes the row has (a word in pieces, a normaliser's changes add
        # some) and the foot's lines (the model, the head and why): shrunk to that room
        top = self.notes_bottom - NOTE_GAP
        bottom = max(FOOT_TOP, self.foot()[0].get_top()[1] + NOTE_GAP)
        tallest = max(formula.height, roles.height)
        if tallest > top - bottom:
            shrink = (top - bottom) / tallest
            formula.scale(shrink)
            roles.scale(max(shrink, style.MIN_FONT / style.FONT_LABEL))
        width = formula.width + ROLES_GAP + roles.width
        formula.move_to([-width / 2 + formula.width / 2, (top + bottom) / 2, 0])
        # never through the notes
        formula.shift(DOWN * max(0.0, formula.get_top()[1] - top))
        roles.shift([formula.get_right()[0] + ROLES_GAP - roles.get_left()[0],
                     formula.get_y() - roles.get_y(), 0])
        self.roles[Role.MAP] = formula
        self.say("One formula does it all")
        self.play(Write(formula.formula), run_time=style.T_WRITE)
        self.say("A query asks, a key answers, and a value is what gets passed on")
        self.play(LaggedStart(*[FadeIn(r, shift=UP * 0.15) for r in roles],
                              lag_ratio=style.LAG_FEW * 2), run_time=style.T_BUILD)

    # ---- whose numbers: model, layer, head ----------------------------------------------------
    def whose_numbers(self):
        trace = self.trace
        about, why, parts = self.foot()
        layer, head = layer_name(self.book), head_name(self.book, trace.primary_slot)
        shared = (f"; its {trace.meta.get('num_layers')} layers all run one layer\u2019s "
                  "weights" if trace.meta.get("shared_layers") else "")
        self.say(f"Every number ahead comes from {trace.model_label}, {layer}, {head}{shared}")
        self.play(FadeIn(about, shift=UP * 0.15), run_time=style.T_STEP)
        self.say(asking.plain(parts))
        self.play(FadeIn(why, shift=UP * 0.15), run_time=style.T_STEP)

    def foot(self):
        """The lines at the stage's foot, made once: (the model, layer and head; why that
        head; why's parts). Placed first, so that the formula keeps above them."""
        if "_foot" in self.__dict__:
            return self._foot
        trace = self.trace
        d_k = self.record("d_k", (), 0)
        layer, head = layer_name(self.book), head_name(self.book, trace.primary_slot)
        # one plain Text (the model name may be a user's path): one baseline
        # a grouped-query head reads the keys and values of its group's key/value head
        kv_of = trace.meta.get("kv_head_of")
        group = (f" (key/value head {kv_of[trace.primary_slot]} of "
                 f"{trace.meta.get('kv_heads')})" if kv_of else "")
        about = user_text(f"{trace.model_label}  \u00b7  {layer}  \u00b7  {head}{group}"
                          f"  \u00b7  query/key size {d_k}", style.FONT_SMALL,
                          style.PALETTE.dim)
        if about.width > stage.TEXT_WIDTH:
            about.scale_to_fit_width(stage.TEXT_WIDTH)
        parts = asking.why(self.book, trace)
        why = asking.lines(parts, stage.TEXT_WIDTH, style.FONT_SMALL, style.PALETTE.dim)
        why.to_edge(DOWN, buff=0.3).set_x(0)
        about.next_to(why, UP, buff=0.14).set_x(0)
        self._foot = (about, why, parts)
        return self._foot

    def span_note(self, row, below):
        """When the focus names several tokens (a CJK word, a word in pieces), say whose
        query the film follows."""
        trace = self.trace
        first, last = trace.focus_span
        if first == last:
            return None
        nth = ("first", "second", "third")[trace.focus_index - first] \
            if trace.focus_index - first < 3 else f"{trace.focus_index - first + 1}th"
        # our wording in our serif, the user's words each in its script's font (one Text
        # in the CJK font would set the whole line in a sans with full-width quotes)
        colour, user = style.PALETTE.query, ("user", style.PALETTE.query)
        note = line_of([(f"The query of {LQ}", colour), (trace.focus_word, user),
                        (f"{RQ}, the {nth} of the {last - first + 1} tokens of {LQ}", colour),
                        (trace.focus_span_text, user), (RQ, colour)], style.FONT_SMALL)
        return note.next_to(below, DOWN, buff=0.2)


def written_sentence(sentence: str, row) -> VGroup:
    """The sentence as the user wrote it, centred where the token ``row`` will stand: in as
    few lines as keep it legible within the text width (broken between words, or between
    characters in a script written without spaces)."""
    size, width = style.FONT_TOKEN, stage.TEXT_WIDTH
    words = sentence.split()
    units, glue = (words, " ") if len(words) > 1 else (list(sentence), "")
    count = 1
    while True:
        per = -(-len(units) // count)
        lines = [glue.join(units[n:n + per]) for n in range(0, len(units), per)]
        group = VGroup(*[user_text(t, size) for t in lines]).arrange(DOWN, buff=0.15)
        if group.width * style.MIN_FONT / size <= width or per == 1:
            break
        count += 1
    return legible_fit(group, width, size).move_to(row.chips)
