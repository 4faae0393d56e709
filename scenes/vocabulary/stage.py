"""The stage every beat is laid out on: a 16:9 area of 14.22 x 8 manim units, its safe
edges and named places. Frames of other shapes widen or heighten the manim frame around
it (see :func:`frame_size`), so nothing on the stage is ever cut off.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "BODY_TOP", "BOTTOM_EDGE", "HEIGHT", "LEFT_EDGE", "LINE_LEFT", "LINE_WIDTH",
    "MAP_CORNER", "RIGHT_EDGE", "STRIP_Y", "TEXT_WIDTH", "WIDTH", "frame_size", "keep_on_stage",
    "keep_right_of",
]

HEIGHT = 8.0
WIDTH = HEIGHT * 16 / 9

# safe edges: text and rows stay inside these (a little in from the frame's edges)
RIGHT_EDGE = 6.9
LEFT_EDGE = -6.9
BOTTOM_EDGE = -3.85
TEXT_WIDTH = 13.4          # widest a row of tokens, a note or a formula may be

# ---- the bands of the film ------------------------------------------------------------------
# top band: the beat's line (left) and the formula map (right); the token strip below it;
# the body below that
LINE_LEFT = np.array([-6.75, 3.5, 0.0])      # the beat line's left end, at mid-height
LINE_WIDTH = 9.2                             # widest the beat line may be (the map is right)
MAP_CORNER = np.array([6.8, 3.84, 0.0])      # the formula map's top-right corner
STRIP_Y = 2.5                                # the token strip's centre
BODY_TOP = 1.95                              # the body of a beat: below the strip


def frame_size(width: int, height: int) -> dict:
    """Manim frame size (in units) for a pixel size: the 16:9 stage, widened or
    heightened for other aspect ratios so the stage always fits.

    >>> frame_size(1920, 1080)
    {'frame_height': 8.0, 'frame_width': 14.222222222222221}
    """
    if width / height >= 16 / 9:
        return {"frame_height": HEIGHT, "frame_width": HEIGHT * width / height}
    return {"frame_width": WIDTH, "frame_height": WIDTH * height / width}


def keep_on_stage(mob):
    """Shift a mobject sideways so it lies between the stage's left and right edges (as
    far as its width allows)."""
    if mob.get_left()[0] < LEFT_EDGE:
        mob.shift(np.array([LEFT_EDGE - mob.get_left()[0], 0.0, 0.0]))
    return keep_right_of(mob)


def keep_right_of(mob, limit: float = RIGHT_EDGE):
    """Shift a mobject left so its right side is at most ``limit``."""
    if mob.get_right()[0] > limit:
        mob.shift(np.array([limit - mob.get_right()[0], 0.0, 0.0]))
    return mob
