"""A faster ``Mobject.copy``: the same deep copy, without ``copy.deepcopy``'s generic
machinery for what needs none.

Every Transform, FadeIn and FadeOut copies whole groups when it begins; profiled, the
generic deep copy was about half the time of a render at small sizes (it rebuilds every
float, colour and the parsed SVG path kept by each glyph). This copier walks the same
object graph but copies arrays with ``ndarray.copy``, keeps immutable values (numbers,
strings, enums, colours) and the parsed SVG path objects (read only once, when a glyph is
built) shared, and falls back to ``copy.deepcopy`` for anything else. Identity inside a
group is kept as deepcopy keeps it (a TokenChip's ``word`` is still one of its
submobjects), so a copy draws exactly as a deep copy does.

And a faster ``Mobject.get_family`` (:func:`family_of`), the same list in the same order.
"""
from __future__ import annotations

import copy
import enum
import pathlib
from typing import Any

import numpy as np
from manim import ManimColor, Mobject, Scene

__all__ = ["Unchanging", "copy_mobject", "family_of", "manims_restructured", "patches", "restructured"]

try:                                  # the SVG paths glyphs are parsed from
    from svgelements import Shape as _SvgShape
except ImportError:                   # pragma: no cover - manim depends on svgelements
    _SvgShape = ()


class Unchanging:
    """A value never changed once made: every copy of a mobject shares it."""

    __slots__ = ()


_SHARED = (int, float, complex, str, bytes, bool, type(None), enum.Enum, ManimColor,
           pathlib.PurePath, _SvgShape, Unchanging)
manims_get_family = Mobject.get_family      # manim's own (its tests compare)
manims_restructured = Scene.get_restructured_mobject_list


_SHARE, _ARRAY, _MOBJECT, _LIST, _TUPLE, _DICT, _DEEP = range(7)
_kinds: dict[type, int] = {}         # what _copy does with a value, by its class


def _kind(cls: type) -> int:
    """The checks isinstance made, once per class (against an ABC they are slow)."""
    kind = (_SHARE if issubclass(cls, _SHARED) else _ARRAY if issubclass(cls, np.ndarray)
            else _MOBJECT if issubclass(cls, Mobject) else _LIST if cls is list
            else _TUPLE if cls is tuple else _DICT if cls is dict else _DEEP)
    _kinds[cls] = kind
    return kind


def _copy(value: Any, memo: dict) -> Any:
    kind = _kinds.get(value.__class__)
    if kind is None:
        kind = _kind(value.__class__)
    if kind == _SHARE:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    if kind == _ARRAY:
        result = value.copy()
    elif kind == _MOBJECT:
        return copy_mobject(value, memo)
    elif kind == _LIST:
        result = []
        memo[id(value)] = result
        result.extend(_copy(item, memo) for item in value)
        return result
    elif kind == _TUPLE:
        result = tuple(_copy(item, memo) for item in value)
    elif kind == _DICT:
        result = {}
        memo[id(value)] = result
        for key, item in value.items():
            result[key] = _copy(item, memo)
        return result
    else:
        result = copy.deepcopy(value, memo)
    memo[id(value)] = result
    return result


def copy_mobject(mobject: Mobject, memo: dict | None = None) -> Mobject:
    """A deep copy of ``mobject`` (as ``Mobject.__deepcopy__`` makes it), made faster."""
    memo = {} if memo is None else memo
    cls = mobject.__class__
    result = cls.__new__(cls)
    memo[id(mobject)] = result
    attributes = mobject.__dict__
    setters = _setters.get(cls)
    if setters is None:
        setters = _setters[cls] = _data_descriptors(cls)
    if setters.isdisjoint(attributes) and cls.__setattr__ is object.__setattr__:
        # setattr would only store each value: store them all at once
        kinds, copied = _kinds, dict(attributes)
        for key, value in attributes.items():
            if kinds.get(value.__class__) != _SHARE:
                copied[key] = _copy(value, memo)
        result.__dict__.update(copied)
    else:
        for key, value in attributes.items():
            setattr(result, key, _copy(value, memo))
    result.original_id = str(id(mobject))
    return result


_setters: dict[type, frozenset] = {}   # by class: the names setattr would not just store


def _data_descriptors(cls: type) -> frozenset:
    return frozenset(name for klass in cls.__mro__ for name, member in vars(klass).items()
                     if hasattr(type(member), "__set__"))


def family_of(mobject: Mobject, recurse: bool = True) -> list[Mobject]:
    """``Mobject.get_family`` without nested generators: the mobject and every submobject,
    depth first, a mobject met again on its own path (a cycle) skipped, and one met twice
    kept at its last place, as manim's own. Every play, audit and draw asks for families
    hundreds of thousands of times a film; this walk is twice as fast."""
    if not mobject.submobjects:
        return [mobject]
    found = [mobject]
    on_path = {id(mobject)}
    path = [mobject]
    pending = [iter(mobject.submobjects)]
    while pending:
        for sub in pending[-1]:
            if id(sub) in on_path:
                continue
            found.append(sub)
            if sub.submobjects:
                on_path.add(id(sub))
                path.append(sub)
                pending.append(iter(sub.submobjects))
                break
        else:
            pending.pop()
            on_path.discard(id(path.pop()))
    if len({id(m) for m in found}) == len(found):
        return found
    kept, seen = [], set()
    for mob in reversed(found):         # manim keeps the last place of a mobject met twice
        if id(mob) not in seen:
            seen.add(id(mob))
            kept.append(mob)
    return kept[::-1]


def restructured(scene, mobjects, to_remove) -> list[Mobject]:
    """``Scene.get_restructured_mobject_list``: ``mobjects`` without those in ``to_remove``,
    a group that holds one of them replaced by its other members, in order. manim asks
    each member for its whole family again at every level it descends (every ``add`` and
    ``remove`` of a play walks the stage so); here each mobject is asked once whether its
    family holds one to remove."""
    remove = {id(m) for m in to_remove}
    holds: dict[int, bool] = {}

    def holds_one(mob) -> bool:          # is one to remove in mob's family (mob included)?
        key = id(mob)
        if key not in holds:
            holds[key] = key in remove    # meanwhile: a cycle adds nothing to the family
            holds[key] = key in remove or any([holds_one(sub) for sub in mob.submobjects])
        return holds[key]

    kept: list[Mobject] = []

    def walk(members, on_path: frozenset) -> None:
        for mob in members:
            if id(mob) in remove or id(mob) in on_path:
                continue
            if holds_one(mob):
                walk(mob.submobjects, on_path | {id(mob)})
            else:
                kept.append(mob)

    walk(mobjects, frozenset())
    return kept


def patches() -> list[tuple]:
    """``Mobject.copy`` (and so every animation's copies) as :func:`copy_mobject`,
    ``Mobject.get_family`` as :func:`family_of` and the stage's restructuring as
    :func:`restructured`, while we draw (``patches.our_drawing``)."""
    return [(Mobject, "copy", lambda self: copy_mobject(self)),
            (Mobject, "get_family", family_of),
            (Scene, "get_restructured_mobject_list", restructured)]
