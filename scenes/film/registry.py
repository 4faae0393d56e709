"""The beats of each film, in storyboard order (``facts.STORYBOARDS``: the explainer's,
DESIGN.md "The storyboard", and the translation's and the writing film's): parsing
``--beats`` and loading the Beat class that draws each. Every film runs on one pipeline;
a trace says whose storyboard it is (``storyboard``; the explainer's by default). The
command line, the rendering API and the plain-``manim`` scenes all read it; importing it
imports no manim (``--help`` stays fast).
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable

from ...attention_core.errors import InputError
from ...facts import BEAT_NAMES, BEATS, FILM_BEATS, STORYBOARDS, BeatFacts, beat_facts

__all__ = [
    "BEAT_NAMES", "BEATS", "FILM_BEATS", "BeatEntry", "BeatUnavailable", "beat_module", "entry", "film_beats",
    "hands_on", "load_beat", "parse_beats", "previous_beat", "storyboard_of",
]


BeatEntry = BeatFacts      # one beat's name, title and what it shows (facts.BEATS)

# where each film's beats are drawn: a module per beat, or one for all of its beats
_MODULES = {"explainer": f"{__package__}.beats.{{name}}",
            "translation": f"{__package__.rpartition('.')[0]}.translation_film",
            "writing": f"{__package__.rpartition('.')[0]}.writing_film"}


def storyboard_of(trace) -> str:
    """The name of the storyboard ``trace`` is drawn by (``facts.STORYBOARDS``)."""
    return getattr(trace, "storyboard", "explainer")


def _storyboard_named(name: str) -> str:
    return next(board for board, beats in STORYBOARDS.items()
                if any(b.name == name for b in beats))


def _names(storyboard: str, trace=None) -> list[str]:
    """The beats of ``storyboard`` that ``trace`` can have: all, but a writing film's
    steps past the tokens its model wrote."""
    names = [b.name for b in STORYBOARDS[storyboard]]
    steps = getattr(trace, "steps", None) if storyboard == "writing" else None
    if steps is not None:
        names = [n for n in names if not n.startswith("step") or int(n[4:]) <= steps]
    return names


def beat_module(name: str) -> str:
    """The module that draws beat ``name``: "attention_explainer.scenes.film.beats.title"."""
    return _MODULES[_storyboard_named(name)].format(name=name)


def entry(name: str) -> BeatEntry:
    return beat_facts(name)


def film_beats(trace) -> list[str]:
    """The default film of ``trace``'s storyboard: every beat but the optional ones."""
    board = storyboard_of(trace)
    if board == "explainer":
        return list(FILM_BEATS)
    return [n for n in _names(board, trace) if not beat_facts(n).optional]


def previous_beat(name: str, trace=None) -> str | None:
    """The beat whose stage ``name`` starts from: the one before it in its storyboard (as
    ``trace`` has it: a writing film's sink follows its last step), optional beats passed
    over (they hand on the stage they were given), or None."""
    names = _names(_storyboard_named(name), trace)
    at = names.index(name) if name in names else len(names)
    earlier = [b for b in names[:at] if not beat_facts(b).optional]
    return earlier[-1] if earlier else None


def hands_on(name: str, trace=None) -> str | None:
    """The beat whose stage ``name`` hands on: its own, or for an optional beat the one it
    was given (:func:`previous_beat`)."""
    return previous_beat(name, trace) if beat_facts(name).optional else name


def parse_beats(spec: str | Iterable[str] | None, trace=None) -> list[str]:
    """Beat names in storyboard order from ``"all"`` (the default film: every beat but the
    optional ones), ``"mask,pull"`` or a sequence; duplicates dropped; the beats of
    ``trace``'s storyboard (None: the explainer's). The one parser of the command line and
    the API.

    >>> parse_beats("mask, pull")
    ['pull', 'mask']
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "all")):
        return film_beats(trace)
    known = _names(storyboard_of(trace), trace)
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = {str(item).strip().lower() for item in items if str(item).strip()}
    unknown = sorted(names - set(known))
    if unknown or not names:
        what = repr(unknown[0]) if unknown else "nothing"
        raise InputError(f"{what} is not a beat; choose from {', '.join(known)} "
                         "(comma-separated) or all.")
    return [b for b in known if b in names]


class BeatUnavailable(ImportError):
    """A beat name that is unknown, or whose module is missing or fails to import."""


def load_beat(name: str):
    """The Beat subclass drawing beat ``name`` (its module imported on first use)."""
    try:
        module_name = beat_module(name)
    except StopIteration:
        known = ", ".join(b.name for b in BEATS)
        raise BeatUnavailable(f"unknown beat {name!r}; the beats are: {known}") from None
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise BeatUnavailable(
            f"beat {name!r} could not be imported ({type(exc).__name__}: {exc})") from exc
    from .beat import Beat

    for value in vars(module).values():
        if (isinstance(value, type) and issubclass(value, Beat) and value is not Beat
                and value.__module__ == module.__name__ and value.handles(name)):
            return value if value.name == name else _named(value, name)
    raise BeatUnavailable(f"{module_name} defines no Beat with name = {name!r}")


_NAMED: dict = {}


def _named(beat_cls, name: str):
    """The class of one of the beats a Beat class draws (a writing film's step: "step3"),
    named as that beat; made once."""
    if (beat_cls, name) not in _NAMED:
        _NAMED[beat_cls, name] = type(f"{beat_cls.__name__}_{name}", (beat_cls,),
                                      {"name": name, "__module__": beat_cls.__module__})
    return _NAMED[beat_cls, name]
