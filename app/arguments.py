"""The Python API's arguments, checked by type before any work: what the command line's
click types refuse, these refuse with one InputError line (a list, bytes or None where a
sentence goes, "no" where True or False goes)."""
from __future__ import annotations

import numbers
import os

from ..attention_core.errors import InputError

__all__ = ["beats", "film_settings", "flag", "force", "length", "millimetres", "path", "refuse",
           "text", "times", "whole", "with_film_settings"]


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


# ---- the film's settings (film.settings), as keyword arguments of render, pack and frames ------
def film_settings(command: str, options: dict, config):
    """(the film's settings, the rest of ``options``): each setting ``FilmSettings``
    declares taken from ``options`` by its name, checked by type (None: the command line's
    value: a variable's, the settings file's, else its default), then by its parser as
    the command line parses it."""
    from .requests import FilmSettings, setting_specs
    from .values import resolved

    rest, values = dict(options), {}
    for spec in setting_specs():
        given = rest.pop(spec.name, None)
        if given is not None and isinstance(spec.default, bool):
            given = flag(spec.name, given)
        elif given is not None and isinstance(spec.default, numbers.Integral):
            given = whole(spec.name, given)
        elif given is not None and isinstance(spec.default, str):
            given = text(spec.name, given)
        values[spec.name] = resolved(command, spec.option, given, config)
    return FilmSettings(**values), rest


def with_film_settings(function):
    """``function`` (render, pack, frames) shown with every film setting as a keyword
    argument (default None: the command line's) before its ``**options``, as ``help()``,
    an editor and ``inspect.signature`` read it."""
    import inspect

    from .requests import setting_specs

    signature = inspect.signature(function)
    listed = list(signature.parameters.values())
    more = [inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation=f"{type(spec.default).__name__} | None")
            for spec in setting_specs() if spec.name not in signature.parameters]
    tail = [p for p in listed if p.kind is inspect.Parameter.VAR_KEYWORD]
    head = [p for p in listed if p.kind is not inspect.Parameter.VAR_KEYWORD]
    function.__signature__ = signature.replace(parameters=head + more + tail)
    return function
