"""Beat 1, title: the sentence appears as the model's tokens, and the formula arrives."""
from __future__ import annotations

from manim import DOWN, UP, FadeIn, LaggedStart, MathTypst, Write

from scenes import style
from scenes.base import BeatScene
from scenes.beats.tidy import caption_mark, hold_captions
from scenes.views import head_name, layer_name, token_row

# our own fixed formula (never user text): Q, K, V labelled so they take their role colours
FORMULA = ('op("Attention")({{ Q : q1 }}, {{ K : k1 }}, {{ V : v1 }}) = '
           'op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, sqrt(d_k))) {{ V : v2 }}')


RHS = ('op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, sqrt(d_k))) {{ V : v2 }}')


def attention_formula(font_size: float = 40, *, full: bool = True) -> MathTypst:
    """Attention(Q, K, V) = softmax(QKᵀ/√d_k)V (or, ``full=False``, its right-hand side)
    with Q, K, V in the query, key and value colours."""
    pal = style.PALETTE
    formula = MathTypst(FORMULA if full else RHS, font_size=font_size, color=pal.text)
    for label, color in (("q", pal.query), ("k", pal.key), ("v", pal.value)):
        for n in ((1, 2) if full else (2,)):
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
        first_caption = caption_mark(self)
        self.play(FadeIn(heading, shift=DOWN * 0.2), run_time=0.8, rate_func=style.EASE)
        self.play(LaggedStart(*[FadeIn(chip, shift=UP * 0.25) for chip in row.chips],
                              lag_ratio=style.LAG_FEW),
                  *([FadeIn(row.ellipses)] if len(row.ellipses) else []),
                  *([FadeIn(row.window_note)] if row.window_note else []),
                  run_time=1.6, rate_func=style.EASE,
                  subcaption=f"The model reads {n_tokens} tokens"
                             + (f"; the {n_special} it adds are dimmed" if n_special else ""),
                  subcaption_duration=2.5)
        self.wait(1.0)

        formula = attention_formula()
        if formula.width > 12.5:
            formula.scale_to_fit_width(12.5)
        formula.next_to(row, DOWN, buff=1.0)
        self.play(Write(formula), run_time=2.0, rate_func=style.EASE,
                  subcaption="One formula: queries (yellow), keys (teal), values (red)",
                  subcaption_duration=2.9)
        self.wait(1.0)

        d_k = self.record_number("d_k", (), 0)
        model = str(trace.meta.get("model", ""))
        # one plain Text (the model name may be a user's path): one baseline
        about = self.user_text(f"{model}  \u00b7  {layer_name(self)}  \u00b7  "
                               f"{head_name(self)}  \u00b7  query/key size {d_k}",
                               style.FONT_SMALL, pal.dim)
        about.to_edge(DOWN, buff=0.6)
        self.play(FadeIn(about, shift=UP * 0.15), run_time=style.T_STEP, rate_func=style.EASE,
                  subcaption=f"Every number ahead comes from {model}, {layer_name(self)}, "
                             f"{head_name(self)}",
                  subcaption_duration=1.9)
        self.mark_key_frame()
        self.wait(1.0)
        hold_captions(self, first_caption)
        self.clear_stage()
