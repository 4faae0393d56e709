"""One still picture read once: the layout audit runs a dozen checks on the scene at each
moment it looks (``audits``, ``craft``), and each walked the scene graph and measured every
text's box and glyphs again (a third of a film's audit). Within ``looking(scene)`` the
scene stands still — the checks only read it — so what is on screen, and each thing's box,
glyph boxes and opacity, are read once and shared."""
from __future__ import annotations

import contextlib

__all__ = ["centre_of", "looking", "once", "units_once"]

_picture: list | None = None     # [scene, {read: its list}, {(kind, id): (value, mob)}]


@contextlib.contextmanager
def looking(scene):
    """Within: ``scene`` stands still, and what the checks read of it is read once."""
    global _picture
    if _picture is not None and _picture[0] is scene:
        yield                    # already looking at it: the same picture
        return
    outer, _picture = _picture, [scene, {}, {}]
    try:
        yield
    finally:
        _picture = outer


def units_once(scene, read):
    """``read(scene)`` (what is on it: units, texts), read once while looking at ``scene``
    (else each time)."""
    if _picture is None or _picture[0] is not scene:
        return read(scene)
    if read not in _picture[1]:
        _picture[1][read] = list(read(scene))
    return _picture[1][read]


def once(kind: str, mob, read):
    """``read(mob)``, read once while looking (``kind`` names what is read)."""
    if _picture is None:
        return read(mob)
    kept = _picture[2]
    if (kind, id(mob)) not in kept:
        kept[kind, id(mob)] = (read(mob), mob)     # the mob held: its id stays its own
    return kept[kind, id(mob)][0]


def centre_of(mob):
    """``mob.get_center()``, read once while looking (the flash watch, the travelling
    texts and every pair of word pieces ask for the same texts' centres); not to be
    written to."""
    return once("centre", mob, _read_centre)


def _read_centre(mob):
    return mob.get_center()
