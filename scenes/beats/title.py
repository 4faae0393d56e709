"""Beat 1, title: the sentence appears as the model's tokens, and the formula arrives."""
from __future__ import annotations

from manim import DOWN, UP, FadeIn, LaggedStart, Write

from .. import stage, style
from ..film import Beat
from ..formula import attention_formula
from ..headers import head_name, layer_name
from ..text import label_text, user_text
from ..views import token_row


class TitleBeat(Beat):
    name = "title"

    def script(self):
        trace, pal = self.trace, style.PALETTE
        # ---- the sentence, as the model's tokens --------------------------------------------
        heading = label_text("Self-attention, on a real sentence", style.FONT_TITLE)
        heading.to_edge(UP, buff=0.7)
        row = token_row(trace)
        row.move_to(UP * 0.9)
        n_tokens = self.record("num_tokens", (), 0)
        n_special = sum(trace.special)
        span_note = self.span_note(row)
        self.play(FadeIn(heading, shift=DOWN * 0.2), run_time=style.T_SHORT,
                  rate_func=style.EASE)
        self.play(LaggedStart(*[FadeIn(chip, shift=UP * 0.25) for chip in row.chips],
                              lag_ratio=style.LAG_FEW),
                  *([FadeIn(row.ellipses)] if len(row.ellipses) else []),
                  *([FadeIn(row.window_note)] if row.window_note else []),
                  *([FadeIn(span_note)] if span_note is not None else []),
                  run_time=style.T_BUILD, rate_func=style.EASE,
                  subcaption=f"The model reads {n_tokens} tokens"
                             + (f"; the {n_special} it adds are dimmed" if n_special else ""),
                  subcaption_duration=2.5)
        self.wait(style.T_PAUSE)

        # ---- the formula ---------------------------------------------------------------------
        formula = attention_formula()
        if formula.width > stage.FORMULA_WIDTH:
            formula.scale_to_fit_width(stage.FORMULA_WIDTH)
        formula.next_to(row, DOWN, buff=1.0)
        self.play(Write(formula), run_time=style.T_WRITE, rate_func=style.EASE,
                  subcaption=f"One formula: queries ({pal.query_name}), keys "
                             f"({pal.key_name}), values ({pal.value_name})",
                  subcaption_duration=2.9)
        self.wait(style.T_PAUSE)

        # ---- whose numbers: model, layer, head -------------------------------------------------
        d_k = self.record("d_k", (), 0)
        model = trace.model_label
        layer, head = layer_name(self.book), head_name(self.book, trace.primary_slot)
        # one plain Text (the model name may be a user's path): one baseline
        about = user_text(f"{model}  \u00b7  {layer}  \u00b7  {head}  \u00b7  "
                          f"query/key size {d_k}", style.FONT_SMALL, pal.dim)
        about.to_edge(DOWN, buff=0.6)
        self.play(FadeIn(about, shift=UP * 0.15), run_time=style.T_STEP, rate_func=style.EASE,
                  subcaption=f"Every number ahead comes from {model}, {layer}, {head}",
                  subcaption_duration=1.9)

    def span_note(self, row):
        """When the focus names several tokens (a CJK word, a word in pieces), say whose
        query the film follows."""
        trace = self.trace
        first, last = trace.focus_span
        if first == last:
            return None
        nth = ("first", "second", "third")[trace.focus_index - first] \
            if trace.focus_index - first < 3 else f"{trace.focus_index - first + 1}th"
        note = user_text(f"the query of {trace.focus_word}, the {nth} of the {last - first + 1} "
                         f"tokens of {trace.focus_span_text}", style.FONT_SMALL,
                         style.PALETTE.query)
        below = row.window_note if row.window_note is not None else row.chips
        return note.next_to(below, DOWN, buff=0.25)
