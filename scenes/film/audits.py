"""Checks a film runs on itself while it is drawn (for the tests): every text on screen is
legible, no glyph morph is played between texts that say different things, and the layout
holds — everything visible inside the camera's frame (with a margin), no two texts over
each other, no formula on screen twice, and no hand-off to a stage of nothing but the
line and the map."""
from __future__ import annotations

import numpy as np
from manim import MathTypst, Text, VMobject, config

from ..vocabulary import style
from ..vocabulary.text import Glyphs, TextLine

__all__ = [
    "FRAME_MARGIN", "drawn_size", "fade_transform_sources", "glyph_morphs", "layout_faults",
    "box_of", "outside_the_frame", "overlapping_texts", "small_texts", "travelling_texts",
    "travelling_transforms",
    "visible_text_units",
    "visible_texts",
]

FRAME_MARGIN = 0.06     # scene units (8 px at 1080p): nothing visible touches the frame's edge
OVERLAP = 0.0           # scene units: glyph boxes of two texts closer than this collide


def drawn_size(mob) -> float | None:
    """The font size a Text or a word's Glyphs shows now (scaling included), or None."""
    if isinstance(mob, Glyphs):
        return mob.drawn_size
    if isinstance(mob, Text) and mob.submobjects:
        diagonal = mob.__dict__.get("set_diagonal", 0)     # turned words: see make_text
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


# ---- layout: inside the frame, no text over text ----------------------------------------
_TEXT_KINDS = (TextLine, Text, Glyphs, MathTypst)


def _opacity(mob) -> float:
    fill = float(mob.get_fill_opacity()) if mob.has_points() else 0.0
    stroke = 0.0
    if mob.has_points() and float(mob.get_stroke_width() or 0) > 0:
        stroke = float(mob.get_stroke_opacity())
    return max(fill, stroke)


def _label(mob) -> str:
    if isinstance(mob, Glyphs):
        return mob.word
    text = getattr(mob, "original_text", None) or getattr(mob, "tex_string", None)
    if text:
        return str(text)
    return f"a {type(mob).__name__}"


def _units(scene):
    """(unit, kind) for every visible thing on screen: a text (its glyphs as one unit) or
    a shape; texts are not looked into, and nothing is counted twice."""
    seen: set[int] = set()
    for top in scene.mobjects:
        for mob in top.get_family():
            if id(mob) in seen:
                continue
            if isinstance(mob, _TEXT_KINDS):
                seen.update(id(m) for m in mob.get_family())
                if _visible(mob):
                    yield mob, "text"
            elif isinstance(mob, VMobject) and mob.has_points() and _opacity(mob) > 0.05:
                seen.add(id(mob))
                yield mob, "shape"


def _box(mob) -> np.ndarray:
    """(x0, y0, x1, y1) of the points ``mob`` and its family draw."""
    points = np.concatenate([m.points[:, :2] for m in mob.get_family() if m.has_points()])
    return np.concatenate([points.min(0), points.max(0)])


def visible_text_units(scene) -> list:
    """Every text on screen now that can be seen, each as one unit."""
    return [mob for mob, kind in _units(scene) if kind == "text"]


box_of = _box


def outside_the_frame(scene, margin: float = FRAME_MARGIN, in_play=frozenset()
                      ) -> list[tuple[str, str]]:
    """(what, which edge) for every visible text or shape that crosses the camera's frame or
    comes nearer to its edge than ``margin`` (scaled with the camera's zoom); one wholly
    outside is not seen, so not cut. In a close-up
    (the camera nearer than the whole stage) shapes may run past the edge, as a grid seen
    up close does, but no text may; mid-play, the edge of a moving camera sweeps over what
    it leaves or finds, and what fades in or out (``in_play``, under 0.6 opacity) may stand
    on the edge."""
    frame = scene.camera.frame
    zoom = frame.width / config.frame_width
    close_up = zoom < 1 - 1e-3
    camera_moving = id(frame) in in_play     # a pan sweeps its edge over what it leaves
    cx, cy = frame.get_center()[:2]
    half_w, half_h = frame.width / 2 - margin * zoom, frame.height / 2 - margin * zoom
    faults = []
    for mob, kind in _units(scene):
        if kind == "shape" and (close_up or _fills_the_frame(mob, frame)):
            continue
        if kind == "text" and camera_moving:
            continue
        if id(mob) in in_play and _text_opacity(mob) < 0.6:
            continue                  # on its way in or out
        x0, y0, x1, y1 = _box(mob)
        if x1 <= cx - frame.width / 2 or x0 >= cx + frame.width / 2 \
                or y1 <= cy - frame.height / 2 or y0 >= cy + frame.height / 2:
            continue                  # wholly outside: not seen at all, so not cut
        edges = [name for name, out in (("left", x0 < cx - half_w), ("right", x1 > cx + half_w),
                                        ("bottom", y0 < cy - half_h), ("top", y1 > cy + half_h))
                 if out]
        if edges:
            faults.append((f"{kind} {_label(mob)!r}", "/".join(edges)))
    return faults


def _fills_the_frame(mob, frame) -> bool:
    """A backdrop (a rectangle as large as the frame or larger) is meant to reach past it."""
    x0, y0, x1, y1 = _box(mob)
    return x1 - x0 >= frame.width * 0.98 and y1 - y0 >= frame.height * 0.98


def _glyph_boxes(text) -> np.ndarray:
    parts = [m for m in text.get_family() if m.has_points() and not m.submobjects] or [text]
    return np.array([_box(m) for m in parts])


def travelling_texts(scene, centres_before: dict) -> set[int]:
    """The ids of the texts on screen that have moved, since the play began, by more than
    half their own size: they are on their way somewhere, and pass what they pass."""
    found = set()
    for text in visible_text_units(scene):
        before = centres_before.get(id(text))
        if before is None:
            continue
        x0, y0, x1, y1 = _box(text)
        if np.linalg.norm(text.get_center() - before) > 0.5 * np.hypot(x1 - x0, y1 - y0):
            found.add(id(text))
    return found


def travelling_transforms(animations) -> set[int]:
    """The ids of everything a transform carries far (its start and its target further
    apart than half the start's size): a word becoming a column below it, say."""
    from manim import AnimationGroup, Transform

    found: set[int] = set()
    for anim in animations:
        if isinstance(anim, AnimationGroup):
            found |= travelling_transforms(anim.animations)
        elif isinstance(anim, Transform) and getattr(anim, "target_mobject", None) is not None:
            start = getattr(anim, "starting_mobject", None) or anim.mobject
            if not start.has_points() and not start.submobjects:
                continue
            size = float(np.hypot(start.width, start.height))
            if np.linalg.norm(anim.target_mobject.get_center() - start.get_center()) > 0.5 * size:
                found |= {id(m) for m in anim.mobject.get_family()}
    return found


def overlapping_texts(scene, in_play=frozenset(), gap: float = OVERLAP,
                      travelling=frozenset()) -> list[tuple[str, str]]:
    """Pairs of visible texts drawn over each other: a glyph of one within ``gap`` of a
    glyph of the other (glyph by glyph, so turned labels are judged by their ink). Mid-play
    (``in_play``: the ids of what the animations move), two texts that both move may pass
    each other, a text on its way somewhere (``travelling``) passes what it passes, and a
    text fading out may stand where its replacement fades in: a pair counts when both read
    clearly (opacity ≥ 0.6), one of them stands still and neither travels."""
    zoom = scene.camera.frame.width / config.frame_width
    texts = [mob for mob, kind in _units(scene) if kind == "text"]
    if in_play:
        texts = [t for t in texts if _text_opacity(t) >= 0.6]
    boxes = [_box(t) for t in texts]
    moving = [id(t) in in_play for t in texts]
    faults = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if moving[i] and moving[j] or id(texts[i]) in travelling \
                    or id(texts[j]) in travelling:
                continue
            if (moving[i] or moving[j]) and _label(texts[i]) == _label(texts[j]):
                continue            # a copy on its way out of its original
            a, b = boxes[i], boxes[j]
            if a[0] > b[2] + gap or b[0] > a[2] + gap or a[1] > b[3] + gap or b[1] > a[3] + gap:
                continue
            ga, gb = _glyph_boxes(texts[i]), _glyph_boxes(texts[j])
            apart = ((ga[:, None, 0] > gb[None, :, 2] + gap * zoom)
                     | (gb[None, :, 0] > ga[:, None, 2] + gap * zoom)
                     | (ga[:, None, 1] > gb[None, :, 3] + gap * zoom)
                     | (gb[None, :, 1] > ga[:, None, 3] + gap * zoom))
            if not apart.all():
                faults.append((_label(texts[i]), _label(texts[j])))
    return faults


def _text_opacity(text) -> float:
    return max((_opacity(m) for m in text.get_family() if m.has_points()), default=0.0)


def layout_faults(scene, in_play=frozenset(), travelling=frozenset()
                  ) -> list[tuple[str, object]]:
    """(problem, detail) for every layout fault on screen now (``in_play``, ``travelling``:
    mid-play, see :func:`overlapping_texts`)."""
    return ([("outside the frame", f) for f in outside_the_frame(scene, in_play=in_play)]
            + [("text over text", f)
               for f in overlapping_texts(scene, in_play, travelling=travelling)]
            + [("shown twice", f) for f in formulas_twice(scene, in_play)])


SOLID = 0.6       # a text at least this opaque is read as itself (not one cross-fading)
FORMULA_GLYPHS = 10   # a formula, not a symbol


def formulas_twice(scene, in_play=frozenset()) -> list[str]:
    """Formulas on screen twice, both solid: one picture has one copy of the formula (a
    second one written beside the corner map was the summary's fault). Mid-play, a copy
    that is part of the play may be arriving or leaving."""
    seen: dict[str, int] = {}
    for mob, kind in _units(scene):
        glyphs = sum(1 for m in mob.get_family() if m.has_points())
        # a symbol (W_Q over its matrix and in a legend) may well be written twice
        if isinstance(mob, MathTypst) and glyphs >= FORMULA_GLYPHS \
                and _text_opacity(mob) >= SOLID and id(mob) not in in_play:
            key = _written(str(getattr(mob, "typst_code", "")))
            seen[key] = seen.get(key, 0) + 1
    return [key for key, count in seen.items() if count > 1]


def _written(code: str) -> str:
    """What a formula writes: its Typst code less the groups that label its parts
    (``manimgrp("q", Q)`` is Q) and its spacing."""
    while (start := code.find("manimgrp(")) >= 0:
        comma = code.index(",", start)
        depth, end = 0, start + len("manimgrp")
        for end in range(start + len("manimgrp"), len(code)):
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            if depth == 0:
                break
        code = code[:start] + code[comma + 1:end] + code[end + 1:]
    return "".join(code.split())


def near_empty(stage_roles: dict, overlay) -> bool:
    """A beat boundary through a near-empty frame: the stage handed on holds nothing but
    the overlay (the line and the map), so the next beat draws its subject from black."""
    return not any(role not in overlay for role in stage_roles)
