"""Beat 1, title: the sentence appears as the model's tokens, and the formula arrives."""
from __future__ import annotations

from manim import DOWN, UP, FadeIn, LaggedStart, MathTypst, Write

from scenes import style
from scenes.base import BeatScene
from scenes.views import head_name, layer_name, token_row

# our own fixed formula (never user text): Q, K, V labelled so they take their role colours
FORMULA = ('op("Attention")({{ Q : q1 }}, {{ K : k1 }}, {{ V : v1 }}) = '
           'op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, sqrt(d_k))) {{ V : v2 }}')


def attention_formula(font_size: float = 40) -> MathTypst:
    """softmax(QKᵀ/√d_k)V with Q, K, V in the query, key and value colours."""
    pal = style.PALETTE
    formula = MathTypst(FORMULA, font_size=font_size, color=pal.text)
    for label, color in (("q", pal.query), ("k", pal.key), ("v", pal.value)):
        for n in (1, 2):
            formula.select(f"{label}{n}").set_color(color)
    return formula


class TitleBeat(BeatScene):
    beat_name = "title"
    beat_title = "The sentence and the formula"

    def build(self):
        trace = self.trace
        pal = style.PALETTE
        heading = self.label("Self-attention, on a real sentence", style.FONT_TITLE)
        heading.to_edge(UP, buff=0.7)
        row = token_row(trace)
        row.move_to(UP * 0.9)
        n_tokens = self.record_number("num_tokens", (), 0)
        n_special = sum(trace.special)
        self.play(FadeIn(heading, shift=DOWN * 0.2), run_time=style.T_STEP, rate_func=style.EASE)
        self.play(LaggedStart(*[FadeIn(chip, shift=UP * 0.25) for chip in row.chips],
                              lag_ratio=style.LAG_FEW),
                  *([FadeIn(row.ellipses)] if len(row.ellipses) else []),
                  *([FadeIn(row.window_note)] if row.window_note else []),
                  run_time=1.6, rate_func=style.EASE,
                  subcaption=f"The sentence as the model reads it: {n_tokens} tokens"
                             + (f", {n_special} of them added by the model (dimmed)"
                                if n_special else ""),
                  subcaption_duration=2.6)
        self.wait(style.T_PAUSE)

        formula = attention_formula()
        if formula.width > 12.5:
            formula.scale_to_fit_width(12.5)
        formula.next_to(row, DOWN, buff=1.0)
        self.play(Write(formula), run_time=2.0, rate_func=style.EASE,
                  subcaption="One formula does all of it: softmax(QK\u1d40/\u221ad_k)V, "
                             "queries (yellow), keys (teal), values (red)",
                  subcaption_duration=3.0)
        self.wait(style.T_PAUSE)

        d_k = self.record_number("d_k", (), 0)
        model = str(trace.meta.get("model", ""))
        # one plain Text (the model name may be a user's path): one baseline
        about = self.user_text(f"{model}  \u00b7  {layer_name(self)}  \u00b7  "
                               f"{head_name(self)}  \u00b7  query/key size {d_k}",
                               style.FONT_SMALL, pal.dim)
        about.to_edge(DOWN, buff=0.6)
        self.play(FadeIn(about, shift=UP * 0.15), run_time=style.T_STEP, rate_func=style.EASE,
                  subcaption=f"Model {model}, {layer_name(self)}, {head_name(self)}: "
                             f"every number that follows is read from it",
                  subcaption_duration=2.0)
        self.mark_key_frame()
        self.wait(style.T_PAUSE)
        self.clear_stage()
