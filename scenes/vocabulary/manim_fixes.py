"""A fix to manim 0.22 that the film relies on, installed once (:func:`install`).

``FadeTransform.begin`` draws its group at progress 0 *before* it fades the target into the
source's place, so until the animation's own time comes the target stands whole where it
will end and the source beside it. Alone in a play nobody sees it (its time comes at
once); inside a ``LaggedStart`` every later part waits so: the embed beat's columns popped
in whole, vanished and were born again from the tokens; the softmax's weights floated
over the empty bars. Drawn again at progress 0 once the fade is set up, a waiting part
looks like its source, as it should.
"""
from __future__ import annotations

from manim import FadeTransform

__all__ = ["install"]

_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    begin = FadeTransform.begin

    def begin_faded(self) -> None:
        begin(self)
        self.interpolate(0)
    FadeTransform.begin = begin_faded
    _installed = True
