"""The beats of the explainer, in storyboard order: the one list (DESIGN.md, "The
storyboard"). The command line, the rendering API and the plain-``manim`` scenes all read
it; importing it imports no manim (``--help`` stays fast).
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass

from ...attention_core.errors import InputError


@dataclass(frozen=True)
class BeatEntry:
    """One beat: its name (``--beats``), its title (chapters, contact sheets) and what it
    shows (the README's storyboard)."""
    name: str
    title: str
    shows: str

    @property
    def module(self) -> str:
        return f"{__package__}.beats.{self.name}"

    @property
    def scene_name(self) -> str:
        """The plain-manim Scene class of the beat alone: "TitleBeat"."""
        return self.name.capitalize() + "Beat"


BEATS: tuple[BeatEntry, ...] = (
    BeatEntry("title", "The sentence and the formula",
              "the sentence as tokens; softmax(QKᵀ/√d_k)V; what a query, a key and a value "
              "are for"),
    BeatEntry("embed", "Words become vectors",
              "each token's embedding: a column of its real numbers and an arrow in a "
              "stated 2-D view"),
    BeatEntry("project", "Queries, keys and values",
              "W_Q's real entries times the focus word's embedding give its query; W_K and "
              "W_V the same; the view turns into queries and keys"),
    BeatEntry("sparks", "Queries meet keys",
              "the focus word's query arcs to every key at once, each as bold as its real "
              "q·k; the arcs fall into its row of the QKᵀ grid, then every row fills"),
    BeatEntry("softmax", "Softmax: scores become weights",
              "the row lifts out, ÷√d_k, then softmax: bars that stack to exactly 1"),
    BeatEntry("pull", "The pull: a centre of mass",
              "the values as masses on springs; cooling the softmax from the plain average "
              "to the real weights pulls the output toward the heavy words"),
    BeatEntry("heads", "Many heads, mixed by W_O",
              "the focus word's row in each head, the camera pulling out from the one we "
              "followed; every head's output concatenated and mixed by W_O"),
    BeatEntry("mask", "The mask",
              "masked cells red with −∞ written in; up close, the focus row's weights "
              "renormalise and sum to 1"),
    BeatEntry("summary", "Summary: the whole weight matrix",
              "the whole weight matrix as a heat map with its scale, the weights written in, "
              "the formula again"),
)
BEAT_NAMES: tuple[str, ...] = tuple(b.name for b in BEATS)
_BY_NAME = {b.name: b for b in BEATS}


def entry(name: str) -> BeatEntry:
    return _BY_NAME[name]


def previous_beat(name: str) -> str | None:
    """The beat before ``name`` in the storyboard (a beat starts where it ends), or None."""
    at = BEAT_NAMES.index(name)
    return BEAT_NAMES[at - 1] if at > 0 else None


def parse_beats(spec: str | Iterable[str] | None) -> list[str]:
    """Beat names in storyboard order from ``"all"``, ``"mask,pull"`` or a sequence;
    duplicates dropped. The one parser of the command line and the API.

    >>> parse_beats("mask, pull")
    ['pull', 'mask']
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "all")):
        return list(BEAT_NAMES)
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
    module_name = _BY_NAME[name].module
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
