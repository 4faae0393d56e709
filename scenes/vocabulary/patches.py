"""Our changes to manim's classes — the faster copy, bounds, colour rows and path breaks,
and the fixes the film relies on — in place only while we draw (:func:`our_drawing`), so
that a notebook's own manim scenes, before or after a film, run manim as it ships.

Entered around each render of our scenes; nested and threaded entries (a course's
worker draws several segments at once) share one installation, taken away when the
last one leaves.
"""
from __future__ import annotations

import contextlib
import threading

__all__ = ["our_drawing", "patched"]

_MISSING = object()
_lock = threading.RLock()
_depth = 0
_saved: list[tuple] = []


def _table() -> list[tuple]:
    from . import fastbounds, fastcolors, fastcopy, fastpaths, manim_fixes

    return [*fastcopy.patches(), *fastbounds.patches(), *fastpaths.patches(),
            *fastcolors.patches(), *manim_fixes.patches()]


def patched() -> bool:
    """Whether our changes are in place now."""
    return _depth > 0


@contextlib.contextmanager
def our_drawing():
    """Our changes to manim's classes in place for the block, the classes as they were
    after it (a class's own attribute put back, an inherited one removed again)."""
    global _depth
    with _lock:
        if _depth == 0:
            table = _table()
            _saved[:] = [(owner, name, owner.__dict__.get(name, _MISSING))
                         for owner, name, _ in table]
            for owner, name, value in table:
                setattr(owner, name, value)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for owner, name, old in reversed(_saved):
                    if old is _MISSING:
                        delattr(owner, name)
                    else:
                        setattr(owner, name, old)
                _saved.clear()
