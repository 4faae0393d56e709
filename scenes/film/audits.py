"""Checks a film runs on itself while it is drawn (for the tests): every text on screen is
legible, and no glyph morph is played between texts that say different things."""
from __future__ import annotations

import numpy as np
from manim import Text, config

from ..vocabulary import style
from ..vocabulary.text import Glyphs

__all__ = [
    "drawn_size", "fade_transform_sources", "glyph_morphs", "small_texts", "visible_texts",
]


def drawn_size(mob) -> float | None:
    """The font size a Text or a word's Glyphs shows now (scaling included), or None."""
    if isinstance(mob, Glyphs):
        return mob.drawn_size
    if isinstance(mob, Text) and mob.submobjects:
        diagonal = getattr(mob, "set_diagonal", 0) or 0      # turned words: see make_text
        if diagonal > 0:
            return mob._font_size * float(np.hypot(mob.width, mob.height)) / diagonal
        initial = getattr(mob, "initial_height", 0) or 0
        return mob._font_size * mob.height / initial if initial > 0 else None
    return None


def _visible(mob) -> bool:
    parts = [m for m in mob.get_family() if m.has_points()]
    return bool(parts) and max(float(m.get_fill_opacity()) for m in parts) > 0.05


def small_texts(scene, min_size: float = style.MIN_CAP_PX / style.CAP_PX_PER_POINT
                ) -> list[tuple[str, float]]:
    """(text, size on screen in points) of every visible text smaller than ``min_size``
    at the camera's current zoom (default: capitals under ``style.MIN_CAP_PX`` at 1080p;
    the layout aims at ``style.MIN_FONT``, a little above)."""
    zoom = config.frame_height / scene.camera.frame.height
    small = []
    seen = set()
    for top in scene.mobjects:
        for mob in top.get_family():
            size = drawn_size(mob)
            if size is None or id(mob) in seen:
                continue
            seen.update(id(m) for m in mob.get_family())
            if size * zoom < min_size - 1e-6 and _visible(mob):
                label = getattr(mob, "original_text", None) or getattr(mob, "word", "a word")
                small.append((label, round(size * zoom, 1)))
    return small


def visible_texts(scene) -> set[str]:
    """The words and numbers on screen now (Texts and the glyphs of words), as written."""
    found = set()
    for top in scene.mobjects:
        for mob in top.get_family():
            if isinstance(mob, Glyphs) and _visible(mob):
                found.add(mob.word)
            elif isinstance(mob, Text) and _visible(mob):
                found.add(mob.original_text)
    return found


def glyph_morphs(animations) -> list[tuple[list[str], list[str]]]:
    """The Transforms among ``animations`` that would morph the glyphs of one text into
    another's (cross-fades and moves are fine): (from texts, to texts) for each."""
    from manim import AnimationGroup, FadeTransform, Transform

    found = []
    for anim in animations:
        if isinstance(anim, AnimationGroup):
            found += glyph_morphs(anim.animations)
        elif isinstance(anim, Transform) and not isinstance(anim, FadeTransform):
            target = getattr(anim, "target_mobject", None)
            if target is None:
                continue
            a, b = _texts(anim.mobject), _texts(target)
            if a and b and a != b:
                found.append((a, b))
    return found


def _texts(mobject) -> list[str]:
    return [m.original_text for m in mobject.get_family() if isinstance(m, Text)]


def fade_transform_sources(animations) -> list:
    """The sources of the FadeTransforms among ``animations`` (they end replaced)."""
    from manim import AnimationGroup, FadeTransform

    found = []
    for anim in animations:
        if isinstance(anim, AnimationGroup):
            found += fade_transform_sources(anim.animations)
        elif isinstance(anim, FadeTransform):
            found.append(anim.mobject[0])
    return found
