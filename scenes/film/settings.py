"""The film's settings: the options that change how its beats are drawn, each declared once,
here, as a field of :class:`FilmSettings` with its default, its parser and its help.

Everything else is made from these fields (``app.options``): the ``render`` and ``pack``
commands' options and ``frames``', the Python API's keyword arguments, a settings file's
and an ``ATTENTION_EXPLAINER_*`` variable's keys, a course's keys and the fingerprint of
its outputs. A value travels whole to every beat (``SegmentJob.settings``, part of a beat
cache entry's key) and a beat reads it as ``self.film.settings.<name>``. Adding an option
is a field here and the code that reads it (``bench/add_an_option.py``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields

from ...attention_core.errors import InputError
from ...facts import DEFAULT_PACE, PACES

__all__ = ["FilmSettings", "SettingSpec", "one_of", "setting", "setting_specs"]


@dataclass(frozen=True)
class SettingSpec:
    """One film setting as the faces take it: ``parse`` takes it as written (the command
    line's text, a settings file's TOML value, the Python API's argument) and returns the
    value, or raises InputError; ``metavar`` and ``choices`` for the command line's help
    and completion."""
    name: str                  # the field's name (the option is --name with hyphens)
    default: object
    parse: Callable[[object], object]
    help: str
    metavar: str
    choices: tuple = ()

    @property
    def option(self) -> str:
        """Its name on the command line, in a settings file and a course ("max-tokens")."""
        return self.name.replace("_", "-")


def setting(default, *, parse: Callable[[object], object], help: str, metavar: str = "TEXT",
            choices: tuple = ()):
    """A field of :class:`FilmSettings`: its default, and what the faces need to take it."""
    return field(default=default, metadata={"parse": parse, "help": help,
                                            "metavar": metavar, "choices": tuple(choices)})


def one_of(choices) -> Callable[[object], str]:
    """The parser of a setting that is one of ``choices`` (text)."""
    names = tuple(choices)

    def parse(value) -> str:
        if value not in names:
            raise InputError(f"{str(value)[:40]!r} is not one of "
                             f"{', '.join(map(repr, names))}.")      # as click's Choice says
        return value
    return parse


@dataclass(frozen=True)
class FilmSettings:
    """How the film is drawn, beyond its size, rate and colours; every value checked by its
    field's parser as the settings are made (a FilmSettings holds only valid values)."""

    pace: str = setting(
        DEFAULT_PACE, parse=one_of(PACES), metavar="|".join(PACES), choices=tuple(PACES),
        help=f"How fast the captions go: normal (each up at least its length at "
             f"{PACES['normal']:.0f} characters a second), or slow ({PACES['slow']:.0f}: "
             "time to read the numbers on screen too; the holds lengthen and a voice follows).")

    def __post_init__(self):
        for spec in setting_specs():
            value = getattr(self, spec.name)
            try:
                parsed = spec.parse(value)
            except InputError as exc:
                raise InputError(f"{spec.option} {str(exc)[0].lower()}{str(exc)[1:]}") from None
            object.__setattr__(self, spec.name, parsed)

    @property
    def reading_cps(self) -> float:
        """Characters a second a caption is read at: it stays up at least len / this."""
        return PACES[self.pace]


def setting_specs() -> list[SettingSpec]:
    """Every film setting, in the order declared."""
    return [SettingSpec(name=f.name, default=f.default if f.default is not MISSING else None,
                        parse=f.metadata["parse"], help=f.metadata["help"],
                        metavar=f.metadata["metavar"], choices=f.metadata["choices"])
            for f in fields(FilmSettings)]
