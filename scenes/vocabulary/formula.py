"""The attention formula, typeset by Typst from our own fixed source (never user text)."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from manim import UR, MathTypst, SurroundingRectangle, VGroup

from . import stage, style
from .text import make_math

__all__ = ["DIM", "FormulaMap", "PARTS", "ROOT_DK", "added_terms", "attention_formula",
           "divisor", "divisor_of", "role_colored", "scores_divided_by", "terms_of"]

# Q, K, V labelled so they take their role colours; {d} is what QKᵀ is divided by
_FULL = ('op("Attention")({{ Q : q1 }}, {{ K : k1 }}, {{ V : v1 }}) = '
         'op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, {d}){b}) {{ V : v2 }}')
_RHS = 'op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, {d}){b}) {{ V : v2 }}'
ROOT_DK = "sqrt(d_k)"
# the divisor of the film drawn in this context: √d_k, or a model's own (Gemma 2's 1/√256
# scale is ÷16, Granite's attention multiplier 1/128 is ÷128): fixed text from a number,
# never the user's
_DIVISOR: ContextVar[str] = ContextVar("divisor", default=ROOT_DK)
# ... and what it adds to the scores of its own (MPNet's relative position bias, DeBERTa's
# position terms), as B: " + B", or nothing
_TERMS: ContextVar[str] = ContextVar("terms", default="")


def divisor() -> str:
    """What the formulas drawn here divide QKᵀ by, as Typst."""
    return _DIVISOR.get()


def divisor_of(trace) -> str:
    """√d_k, or the number a model divides its scores by where it scales them its own
    way (``meta["score_scale"]``), as Typst."""
    meta = getattr(trace, "meta", None) or {}    # a translation's or writing's view: none
    scale = meta.get("score_scale")
    return ROOT_DK if scale is None else f"{1.0 / float(scale):.4g}"


def added_terms() -> str:
    """What the formulas drawn here add to the scaled scores: " + B", or nothing."""
    return _TERMS.get()


def terms_of(trace) -> str:
    """" + B" where the trace's model adds terms of its own to its scores, else ""."""
    meta = getattr(trace, "meta", None) or {}
    return " + B" if meta.get("score_terms") else ""


def _filled(source: str, labelled: bool = False) -> str:
    """``source`` with its divisor and added terms; ``labelled``: the terms as the map's
    part "b" (lit with the softmax)."""
    terms = _TERMS.get()
    return source.replace("{d}", divisor()).replace(
        "{b}", f"{{{{ {terms.strip()} : b }}}}" if labelled and terms else terms)


@contextmanager
def scores_divided_by(trace):
    """The formulas drawn inside divide QKᵀ by the trace's model's divisor."""
    token, terms = _DIVISOR.set(divisor_of(trace)), _TERMS.set(terms_of(trace))
    try:
        yield
    finally:
        _DIVISOR.reset(token)
        _TERMS.reset(terms)


def attention_formula(font_size: float = 40, *, full: bool = True) -> MathTypst:
    """Attention(Q, K, V) = softmax(QKᵀ/√d_k)V (or, ``full=False``, its right-hand side)
    with Q, K, V in the query, key and value colours.

    >>> bool(attention_formula(full=False).width > 0)
    True
    """
    pal = style.PALETTE
    formula = make_math(_filled(_FULL if full else _RHS),
                        font_size=font_size, color=pal.text)
    for label, color in (("q", pal.query), ("k", pal.key), ("v", pal.value)):
        for n in ((1, 2) if full else (2,)):
            formula.select(f"{label}{n}").set_color(color)
    return formula


def role_colored(formula: MathTypst) -> MathTypst:
    """A formula with its parts labelled "q" and "k" in the query and key colours."""
    formula.select("q").set_color(style.PALETTE.query)
    formula.select("k").set_color(style.PALETTE.key)
    return formula


# the formula as a map of the film: each beat lights the part it computes
_MAP = ('{{ op("softmax") : sm }}(frac({{ Q : q }} {{ K^T : k }}, {{ {d} : s }}){b}) '
        '{{ V : v }}')
PARTS = {
    "qkv": (),                       # project: each word's query, key and value (the letters)
    "scores": ("q", "k"),            # sparks: QKᵀ
    "softmax": ("sm", "q", "k", "s", "b"),  # softmax: ÷√d_k, + B where added, then softmax
    "mask": ("sm",),                 # mask: inside the softmax
    "values": None,                  # pull: the weighted sum of the values (all of it)
    "all": None,                     # heads, summary
}
DIM = 0.4                            # the unlit parts


class FormulaMap(VGroup):
    """softmax(QKᵀ/√d_k)V, small, in the top-right corner: the map of the film. The part
    being computed is lit (full colour, a highlight box around it), the rest dimmed;
    ``lit=None`` shows it all plainly. Maps with different lit parts transform into each
    other: the glyphs brighten or dim and the box moves (3b1b's moving highlight box).

    >>> len(FormulaMap("scores").box.get_stroke_opacities()) > 0
    True
    """

    def __init__(self, lit: str | None = None, font_size: float = 30):
        super().__init__()
        pal = style.PALETTE
        self.lit = lit
        self.formula = make_math(_filled(_MAP, labelled=True), font_size=font_size,
                                 color=pal.text)
        for label, color in (("q", pal.query), ("k", pal.key), ("v", pal.value)):
            self.formula.select(label).set_color(color)
        labels = PARTS.get(lit, None)
        if labels and not added_terms():        # a part "b" only where a model adds terms
            labels = tuple(label for label in labels if label != "b")
        target = self.formula
        if lit is not None and labels is not None:
            self.formula.set_opacity(DIM)
            lit_parts = labels or ("q", "k", "v")
            for label in lit_parts:
                self.formula.select(label).set_opacity(1.0)
            if labels:
                target = VGroup(*[self.formula.select(label) for label in labels])
        self.box = SurroundingRectangle(target, color=pal.highlight, buff=0.05,
                                        stroke_width=2.5)
        if lit is None or labels == ():    # all plain, or letters lit without a box
            self.box.set_stroke(opacity=0.0)
        self.add(self.formula, self.box)
        # placed by the formula itself, so lighting another part never moves it
        self.shift(stage.MAP_CORNER - self.formula.get_corner(UR))
