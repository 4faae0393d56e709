"""The Python API's arguments, checked by type before any work: what the command line's
click types refuse, these refuse with one InputError line (a list, bytes or None where a
sentence goes, "no" where True or False goes)."""
from __future__ import annotations

import numbers
import os

from ..attention_core.errors import InputError

__all__ = ["beats", "flag", "force", "length", "millimetres", "path", "refuse", "text", "times",
           "whole"]


def refuse(name: str, value, wanted: str):
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    raise InputError(f"{name} must be {wanted}, not {type(value).__name__} {shown}.")


def text(name: str, value, *, none: bool = False):
    """A str (or None where ``none``)."""
    if value is None and none:
        return None
    if not isinstance(value, str):
        refuse(name, value, "a str" + (" or None" if none else ""))
    return value


def whole(name: str, value, *, none: bool = False) -> int | None:
    """A whole number (True and False are not numbers here), or None where ``none``."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        refuse(name, value, "a whole number (int)" + (" or None" if none else ""))
    return int(value)


def millimetres(name: str, value) -> float | None:
    """A length on paper in millimetres, 1 to 10000 (as the command line's), or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        refuse(name, value, "millimetres (a number) or None")
    from .values import parse_millimetres

    try:
        return parse_millimetres(value)
    except InputError:
        raise InputError(f"{name} {value!r} is not a width from 1 to 10000 millimetres.") \
            from None


def path(name: str, value, *, none: bool = False):
    """A path: a str or an os.PathLike of one (or None where ``none``)."""
    if value is None and none:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        refuse(name, value, "a path (str or pathlib.Path)" + (" or None" if none else ""))
    return value


def length(value):
    """A length: "short", "full", seconds (a number), or None (the command line's)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        refuse("length", value, 'a str ("short", "full") or seconds (a number)')
    return value


def flag(name: str, value) -> bool:
    """An on/off argument: True or False, nothing else."""
    if not isinstance(value, bool):
        refuse(name, value, "True or False")
    return value


def force(value) -> bool:
    return flag("force", value)


def beats(value) -> str | None:
    """Beats: "all", "sparks,pull", a list of names, or None (the command line's)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and value \
            and all(isinstance(b, str) for b in value):
        return ",".join(value)
    if not isinstance(value, str):
        refuse("beats", value, 'a str ("all", "sparks,pull") or a list of beat names')
    return value


def times(value) -> str | None:
    """--at: "key", "end", seconds, a list of those, or None (the command line's)."""
    if value is None:
        return None
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items or any(isinstance(item, bool) or not isinstance(item, (str, numbers.Real))
                        for item in items):
        refuse("at", value, 'seconds, "key", "end" or a list of those')
    return ",".join(str(item) for item in items)
