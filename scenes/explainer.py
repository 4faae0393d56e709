"""The full explainer: the nine beats, in order, drawn on one scene.

One scene means one render: one MP4, one .srt, manim and the fonts set up once. Each beat
lives in its own module under ``scenes/beats/`` and is imported only when asked for, so a
beat that is missing or broken names itself instead of breaking the others.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .base import BeatScene

# name -> module; the order is the storyboard's (DESIGN.md, "The storyboard")
BEAT_MODULES = {
    "title": "scenes.beats.title",
    "embed": "scenes.beats.embed",
    "project": "scenes.beats.project",
    "sparks": "scenes.beats.sparks",
    "softmax": "scenes.beats.softmax",
    "pull": "scenes.beats.pull",
    "heads": "scenes.beats.heads",
    "mask": "scenes.beats.mask",
    "summary": "scenes.beats.summary",
}
BEAT_NAMES = tuple(BEAT_MODULES)


class BeatUnavailable(ImportError):
    """A beat name that is unknown, or whose module is missing or fails to import."""


def load_beat(name: str) -> type[BeatScene]:
    """The BeatScene subclass drawing beat ``name`` (imported on first use)."""
    if name not in BEAT_MODULES:
        raise BeatUnavailable(f"unknown beat {name!r}; the beats are: {', '.join(BEAT_NAMES)}")
    module_name = BEAT_MODULES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise BeatUnavailable(
                f"beat {name!r} is not available: {module_name.replace('.', '/')}.py is "
                "missing") from exc
        raise BeatUnavailable(f"beat {name!r} could not be imported: {exc}") from exc
    except Exception as exc:
        raise BeatUnavailable(
            f"beat {name!r} could not be imported ({type(exc).__name__}: {exc})") from exc
    # find the class by its beat_name, not by a naming convention
    for value in vars(module).values():
        if (isinstance(value, type) and issubclass(value, BeatScene)
                and value is not BeatScene and value.__module__ == module.__name__
                and getattr(value, "beat_name", None) == name):
            return value
    raise BeatUnavailable(f"{module_name} defines no BeatScene with beat_name = {name!r}")


class _BeatRegistry(Mapping):
    """``BEATS[name]`` -> beat class, in storyboard order; modules load lazily."""

    def __getitem__(self, name: str) -> type[BeatScene]:
        if name not in BEAT_MODULES:
            raise KeyError(name)
        return load_beat(name)

    def __iter__(self) -> Iterator[str]:
        return iter(BEAT_NAMES)

    def __len__(self) -> int:
        return len(BEAT_NAMES)


BEATS: Mapping[str, type[BeatScene]] = _BeatRegistry()


def parse_beats(text: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """A beat list from ``"all"``, ``"pull,heads"`` or a sequence; ValueError names the
    beats when one is unknown. Duplicates are dropped; the given order is kept."""
    if text is None or text == "all":
        return list(BEAT_NAMES)
    items = text.split(",") if isinstance(text, str) else list(text)
    names: list[str] = []
    for item in items:
        item = item.strip().lower()
        if not item:
            continue
        if item not in BEAT_MODULES:
            raise ValueError(f"unknown beat {item!r}; choose from: {', '.join(BEAT_NAMES)} "
                             "(comma-separated) or 'all'")
        if item not in names:
            names.append(item)
    if not names:
        raise ValueError(f"no beats given; choose from: {', '.join(BEAT_NAMES)} or 'all'")
    return names


class Explainer(BeatScene):
    """The chosen beats in order on one scene (all nine by default)."""

    beat_name = "explainer"
    beat_title = "Self-attention, explained"

    def __init__(self, trace=None, beats: list[str] | tuple[str, ...] | None = None,
                 **kwargs):
        self.beat_names = parse_beats(beats)
        # import every beat before any frame is drawn: a missing one fails fast
        self.beat_classes = [load_beat(name) for name in self.beat_names]
        super().__init__(trace, **kwargs)

    def construct(self):
        for beat_cls in self.beat_classes:
            self.run_beat(beat_cls)
