"""The beats of the explainer, in storyboard order (``facts.BEATS``, DESIGN.md "The
storyboard"): parsing ``--beats`` and loading the Beat class that draws each. The command
line, the rendering API and the plain-``manim`` scenes all read it; importing it imports
no manim (``--help`` stays fast).
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable

from ...attention_core.errors import InputError
from ...facts import BEAT_NAMES, BEATS, FILM_BEATS, BeatFacts

__all__ = [
    "BEATS", "FILM_BEATS", "BeatEntry", "BeatUnavailable", "beat_module", "entry", "hands_on", "load_beat",
    "parse_beats", "previous_beat",
]


BeatEntry = BeatFacts      # one beat's name, title and what it shows (facts.BEATS)


def beat_module(name: str) -> str:
    """The module that draws beat ``name``: "attention_explainer.scenes.film.beats.title"."""
    return f"{__package__}.beats.{name}"


_BY_NAME = {b.name: b for b in BEATS}


def entry(name: str) -> BeatEntry:
    return _BY_NAME[name]


def previous_beat(name: str) -> str | None:
    """The beat whose stage ``name`` starts from: the one before it in the storyboard,
    optional beats passed over (they hand on the stage they were given), or None."""
    at = BEAT_NAMES.index(name)
    earlier = [b for b in BEAT_NAMES[:at] if not _BY_NAME[b].optional]
    return earlier[-1] if earlier else None


def hands_on(name: str) -> str | None:
    """The beat whose stage ``name`` hands on: its own, or for an optional beat the one it
    was given (:func:`previous_beat`)."""
    return previous_beat(name) if _BY_NAME[name].optional else name


def parse_beats(spec: str | Iterable[str] | None) -> list[str]:
    """Beat names in storyboard order from ``"all"`` (the default film: every beat but the
    optional ones), ``"mask,pull"`` or a sequence; duplicates dropped. The one parser of
    the command line and the API.

    >>> parse_beats("mask, pull")
    ['pull', 'mask']
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "all")):
        return list(FILM_BEATS)
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = {str(item).strip().lower() for item in items if str(item).strip()}
    unknown = sorted(names - set(BEAT_NAMES))
    if unknown or not names:
        what = repr(unknown[0]) if unknown else "nothing"
        raise InputError(f"{what} is not a beat; choose from {', '.join(BEAT_NAMES)} "
                         "(comma-separated) or all.")
    return [b for b in BEAT_NAMES if b in names]


class BeatUnavailable(ImportError):
    """A beat name that is unknown, or whose module is missing or fails to import."""


def load_beat(name: str):
    """The Beat subclass drawing beat ``name`` (its module imported on first use)."""
    if name not in _BY_NAME:
        raise BeatUnavailable(f"unknown beat {name!r}; the beats are: {', '.join(BEAT_NAMES)}")
    module_name = beat_module(name)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise BeatUnavailable(
            f"beat {name!r} could not be imported ({type(exc).__name__}: {exc})") from exc
    from .beat import Beat

    for value in vars(module).values():
        if (isinstance(value, type) and issubclass(value, Beat) and value is not Beat
                and value.__module__ == module.__name__ and value.name == name):
            return value
    raise BeatUnavailable(f"{module_name} defines no Beat with name = {name!r}")
