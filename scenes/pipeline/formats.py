"""Video sizes and frame rates (the table and limits are ``facts``'): parsed and checked
for the command line and the rendering API alike (no manim here)."""
from __future__ import annotations

import numbers
import re

from ...attention_core.errors import InputError
from ...facts import DEFAULT_RESOLUTION, FPS_RANGE, MAX_SIZE, MIN_SIZE, RESOLUTIONS

__all__ = ["RESOLUTIONS", "RESOLUTION_HELP", "check_fps", "check_size", "parse_resolution"]

RESOLUTION_HELP = (f"use {', '.join(RESOLUTIONS)} or WxH with even sizes from "
                   f"{MIN_SIZE[0]}x{MIN_SIZE[1]} to {MAX_SIZE[0]}x{MAX_SIZE[1]}")


def parse_resolution(spec: str) -> tuple[int, int, str]:
    """(width, height, label) from '1080p', '4K' or 'WxH'; H.264 needs even sizes.

    >>> parse_resolution("4K")
    (3840, 2160, '4k')
    """
    text = (spec or DEFAULT_RESOLUTION).strip().lower()
    if text in RESOLUTIONS:
        return (*RESOLUTIONS[text], text)
    match = re.fullmatch(r"(\d{1,5})x(\d{1,5})", text)
    if not match:
        raise InputError(f"{spec!r} is unknown; {RESOLUTION_HELP}.")
    width, height = check_size(int(match.group(1)), int(match.group(2)), what=repr(spec))
    return width, height, f"{width}x{height}"


def check_size(width, height, what: str | None = None) -> tuple[int, int]:
    """A frame size given as numbers (the API's callers may skip the parser): whole,
    even, within the limits."""
    what = what or f"frame size {width!r}x{height!r}"
    for value in (width, height):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InputError(f"{what} is not whole numbers; {RESOLUTION_HELP}.")
    if width % 2 or height % 2:
        raise InputError(f"{what} has an odd size (H.264 needs even width and height); "
                         f"{RESOLUTION_HELP}.")
    if not (MIN_SIZE[0] <= width <= MAX_SIZE[0] and MIN_SIZE[1] <= height <= MAX_SIZE[1]):
        raise InputError(f"{what} is out of range; {RESOLUTION_HELP}.")
    return int(width), int(height)


def check_fps(fps) -> int:
    """A whole number of frames per second within ``FPS_RANGE``."""
    if isinstance(fps, bool) or not isinstance(fps, numbers.Integral) \
            or not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise InputError(f"frame rate {fps!r} is out of range; use a whole number from "
                         f"{FPS_RANGE[0]} to {FPS_RANGE[1]} (30 is usual, 60 for smooth motion).")
    return int(fps)
