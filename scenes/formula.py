"""The attention formula, typeset by Typst from our own fixed source (never user text)."""
from __future__ import annotations

from manim import MathTypst

from . import style

# Q, K, V labelled so they take their role colours
_FULL = ('op("Attention")({{ Q : q1 }}, {{ K : k1 }}, {{ V : v1 }}) = '
         'op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, sqrt(d_k))) {{ V : v2 }}')
_RHS = 'op("softmax")(frac({{ Q : q2 }} {{ K^T : k2 }}, sqrt(d_k))) {{ V : v2 }}'


def attention_formula(font_size: float = 40, *, full: bool = True) -> MathTypst:
    """Attention(Q, K, V) = softmax(QKᵀ/√d_k)V (or, ``full=False``, its right-hand side)
    with Q, K, V in the query, key and value colours.

    >>> bool(attention_formula(full=False).width > 0)
    True
    """
    pal = style.PALETTE
    formula = MathTypst(_FULL if full else _RHS, font_size=font_size, color=pal.text)
    for label, color in (("q", pal.query), ("k", pal.key), ("v", pal.value)):
        for n in ((1, 2) if full else (2,)):
            formula.select(f"{label}{n}").set_color(color)
    return formula


def role_colored(formula: MathTypst) -> MathTypst:
    """A formula with its parts labelled "q" and "k" in the query and key colours."""
    formula.select("q").set_color(style.PALETTE.query)
    formula.select("k").set_color(style.PALETTE.key)
    return formula
