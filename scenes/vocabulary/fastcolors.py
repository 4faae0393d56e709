"""A faster ``VMobject.generate_rgbas_array`` for the call a film makes nearly every time:
one colour (or none) and one opacity (or none).

Every ``set_fill``, ``set_stroke``, ``fade`` and every new VMobject's colours pass through
it (two million times in the layout corpus); manim wraps the one colour in a tuple, copies
it into a new ManimColor, evens two lists out and builds the row through ``np.fromiter``,
about a fifteenth of an audited film. Here the one row is written directly; anything else
(several colours, a list of opacities, a colour still to parse) goes to manim's own code.
The numbers are manim's: the colour's own red, green and blue, the opacity as a float, and
the sheen's lighter second row as manim adds it (the tests compare both, bit for bit).
"""
from __future__ import annotations

import numbers

import numpy as np
from manim import BLACK, ManimColor, VMobject

__all__ = ["generate_rgbas", "manims_generate_rgbas", "patches"]

manims_generate_rgbas = VMobject.generate_rgbas_array      # manim's own (the tests compare)


def generate_rgbas(self: VMobject, color, opacity) -> np.ndarray:
    """``VMobject.generate_rgbas_array``: one row of red, green, blue and opacity (two
    with a sheen), written directly for one ManimColor (or None: black) and one number
    (or None: 0)."""
    if not ((color is None or type(color) is ManimColor)
            and (opacity is None or isinstance(opacity, numbers.Real))):
        return manims_generate_rgbas(self, color, opacity)
    value = (BLACK if color is None else color)._internal_value
    rgbas = np.empty((1, 4), dtype=value.dtype)
    rgbas[0, :3] = value[:3]
    rgbas[0, 3] = 0.0 if opacity is None else opacity
    sheen_factor = self.get_sheen_factor()
    if sheen_factor != 0:
        light = np.array(rgbas)
        light[:, :3] += sheen_factor
        np.clip(light, 0, 1, out=light)
        rgbas = np.append(rgbas, light, axis=0)
    return rgbas


def patches() -> list[tuple]:
    """Every VMobject's colour rows built by :func:`generate_rgbas`, while we draw."""
    return [(VMobject, "generate_rgbas_array", generate_rgbas)]
