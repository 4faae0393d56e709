"""A fix to manim 0.22 that the film relies on, in place while we draw (:func:`patches`).

``FadeTransform.begin`` draws its group at progress 0 *before* it fades the target into the
source's place, so until the animation's own time comes the target stands whole where it
will end and the source beside it. Alone in a play nobody sees it (its time comes at
once); inside a ``LaggedStart`` every later part waits so: the embed beat's columns popped
in whole, vanished and were born again from the tokens; the softmax's weights floated
over the empty bars. Drawn again at progress 0 once the fade is set up, a waiting part
looks like its source, as it should.

And ``Mobject.rotate`` remembers on the mobject how far it was turned (``turned_by``), so
the layout audit can tell a word drawn on its side from one drawn upright.
"""
from __future__ import annotations

import numpy as np
from manim import OUT, FadeTransform, Mobject

__all__ = ["patches"]

manims_begin = FadeTransform.begin          # manim's own, read before any patch
manims_rotate = Mobject.rotate


def begin_faded(self) -> None:
    manims_begin(self)
    self.interpolate(0)


def rotate_remembered(self, angle, axis=OUT, *args, **kwargs):
    # the layout audit asks which words were turned on their side (scripts.may_turn); a
    # turn about another axis is a flip (an SVG's y), not a turn in the picture
    if abs(abs(float(np.asarray(axis, float)[2])) - 1) < 1e-9:
        self.turned_by = getattr(self, "turned_by", 0.0) + float(angle) * np.sign(axis[2])
    return manims_rotate(self, angle, axis, *args, **kwargs)


def patches() -> list[tuple]:
    """The fix and the turn's memory, while we draw (``patches.our_drawing``)."""
    return [(FadeTransform, "begin", begin_faded), (Mobject, "rotate", rotate_remembered)]
