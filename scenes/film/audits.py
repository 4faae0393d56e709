"""Checks a film runs on itself while it is drawn (for the tests): every text on screen is
legible, no glyph morph is played between texts that say different things, and the layout
holds — everything visible inside the camera's frame (with a margin), no two texts over
each other, no line or edge through a word, no formula on screen twice, no text gone and
back within a second (the checks of craft: ``craft``)."""
from __future__ import annotations

import numpy as np
from manim import ManimColor, MathTypst, Text, VMobject, config

from ..vocabulary import style
from ..vocabulary.text import Glyphs, TextLine
from .looking import centre_of, once, units_once

__all__ = [
    "FRAME_MARGIN", "box_of", "drawn_size", "fade_transform_sources",
    "glyph_morphs", "layout_faults", "outside_the_frame", "overlapping_texts", "small_texts",
    "texts_over_shapes", "travelling_texts", "travelling_transforms", "visible_text_units",
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
    return once("visible", mob, _read_visible)


def _read_visible(mob) -> bool:
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
    text = getattr(mob, "original_text", None) or getattr(mob, "tex_string", None) \
        or getattr(mob, "typst_code", None)
    if text:
        return str(text)
    return f"a {type(mob).__name__}"


def _walk(scene):
    """(unit, is_text) once each: a text (glyphs and all) as one unit; any other shape."""
    seen: set[int] = set()
    for top in scene.mobjects:
        for mob in top.get_family():
            if id(mob) in seen:
                continue
            if isinstance(mob, _TEXT_KINDS):
                seen.update(id(m) for m in mob.get_family())
                yield mob, True
            elif isinstance(mob, VMobject) and mob.has_points():
                seen.add(id(mob))
                yield mob, False


def _units(scene):
    """(unit, kind) for every visible thing on screen: a text (its glyphs as one unit) or
    a shape; texts are not looked into, and nothing is counted twice."""
    return units_once(scene, _each_unit)


def _each_unit(scene):
    for mob, is_text in _walk(scene):
        if is_text and _visible(mob):
            yield mob, "text"
        elif not is_text and _opacity(mob) > 0.05:
            yield mob, "shape"


def _every_text(scene):
    """Every text in the scene, seen or not, each as one unit."""
    return units_once(scene, _each_text)


def _each_text(scene):
    return (mob for mob, is_text in _walk(scene) if is_text)


def _box(mob) -> np.ndarray:
    """(x0, y0, x1, y1) of the points ``mob`` and its family draw."""
    return once("box", mob, _read_box)


def _read_box(mob) -> np.ndarray:
    points = np.concatenate([m.points[:, :2] for m in mob.get_family() if m.has_points()])
    return np.concatenate([points.min(0), points.max(0)])


def visible_text_units(scene) -> list:
    """Every text on screen now that can be seen, each as one unit."""
    return [mob for mob, kind in _units(scene) if kind == "text"]


box_of = _box


def outside_the_frame(scene, margin: float = FRAME_MARGIN, in_play=frozenset(),
                      objects: list | None = None) -> list[tuple[str, str]]:
    """(what, which edge) for every visible text or shape that crosses the camera's frame or
    comes nearer to its edge than ``margin`` (scaled with the camera's zoom); one wholly
    outside is not seen, so not cut. In a close-up
    (the camera nearer than the whole stage) shapes may run past the edge, as a grid seen
    up close does, but no text may; mid-play, the edge of a moving camera sweeps over what
    it leaves or finds, and what fades in or out (``in_play``, under 0.6 opacity) may stand
    on the edge."""
    frame = scene.camera.frame
    width, height = frame_size(frame)
    zoom = width / config.frame_width
    close_up = zoom < 1 - 1e-3
    camera_moving = id(frame) in in_play     # a pan sweeps its edge over what it leaves
    cx, cy = frame.get_center()[:2]
    half_w, half_h = width / 2 - margin * zoom, height / 2 - margin * zoom
    faults = []
    for mob, kind in _units(scene):
        if kind == "shape" and (close_up or _fills_the_frame(mob, frame)):
            continue
        if kind == "text" and camera_moving:
            continue
        if id(mob) in in_play and _text_opacity(mob) < 0.6:
            continue                  # on its way in or out
        x0, y0, x1, y1 = _box(mob)
        if x1 <= cx - width / 2 or x0 >= cx + width / 2 \
                or y1 <= cy - height / 2 or y0 >= cy + height / 2:
            continue                  # wholly outside: not seen at all, so not cut
        edges = [name for name, out in (("left", x0 < cx - half_w), ("right", x1 > cx + half_w),
                                        ("bottom", y0 < cy - half_h), ("top", y1 > cy + half_h))
                 if out]
        if edges:
            faults.append((f"{kind} {_label(mob)!r}", "/".join(edges)))
            _note(objects, mob)
    return faults


def _fills_the_frame(mob, frame) -> bool:
    """A backdrop (a rectangle as large as the frame or larger) is meant to reach past it."""
    x0, y0, x1, y1 = _box(mob)
    width, height = frame_size(frame)
    return x1 - x0 >= width * 0.98 and y1 - y0 >= height * 0.98


def frame_size(frame) -> tuple[float, float]:        # measured once while looking
    return once("size", frame, lambda f: (f.width, f.height))


def _glyph_boxes(text) -> np.ndarray:
    return once("glyphs", text, _read_glyph_boxes)


def _read_glyph_boxes(text) -> np.ndarray:
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
        if np.linalg.norm(centre_of(text) - before) > 0.5 * np.hypot(x1 - x0, y1 - y0):
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
                      travelling=frozenset(), objects: list | None = None
                      ) -> list[tuple[str, str]]:
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
            if (moving[i] or moving[j]) and _label(texts[i]) == _label(texts[j]) \
                    or _pieces_of_one_word(texts[i], texts[j]):
                continue            # a copy leaving its original; pieces joined as written
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
                _note(objects, texts[i], texts[j])
    return faults


def _pieces_of_one_word(a, b) -> bool:
    """Two pieces of one word drawn joined (text.Glyphs with ``word_edges``): their word's
    edges lie in the same place, so their touching strokes are the word's own joins."""
    ea, eb = getattr(a, "word_edges", None), getattr(b, "word_edges", None)
    if ea is None or eb is None:
        return False
    spans = []
    for g, (left, right) in ((a, ea), (b, eb)):
        scale = g.drawn_size / g.set_size
        spans.append(np.array([left, right]) * scale + centre_of(g)[0])
    return bool(np.allclose(spans[0], spans[1], atol=0.02)
                and abs(centre_of(a)[1] - centre_of(b)[1]) < 0.5 * max(a.height, b.height))


def _text_opacity(text) -> float:
    return once("opacity", text, _read_text_opacity)


def _read_text_opacity(text) -> float:
    return max((_opacity(m) for m in text.get_family() if m.has_points()), default=0.0)


INK_INSET = 0.12     # of a glyph's height: a line may graze the rim of a glyph's box
SHAPE_SEEN = 0.4     # fainter shapes (a plane's grid, a ghost) lie behind what is read
SHAPE_TINY = 0.01    # scene units (about a pixel at 1080p): a dot shrunk to nothing
BACKING = 0.85       # a fill this opaque hides what lies under it


def texts_over_shapes(scene, in_play=frozenset(), travelling=frozenset(),
                      objects: list | None = None) -> list[tuple[str, str]]:
    """(text, shape) for every solid text a visible shape's outline runs through: a line,
    an arrow's shaft, an arc or a cell's edge crossing the ink of a word (a glyph's box,
    inset a little). A shape a text sits wholly inside (its cell, its bar, its panel) or
    wholly outside does not cross it, so a shape a text labels passes; so does one hidden
    under an opaque backing drawn between it and the text, and one too small to see.
    Mid-play only a pair that stands still is judged (what moves or fades passes what it
    passes)."""
    units = list(_units(scene))             # in drawing order: later ones cover earlier
    order = {id(m): n for n, (m, _) in enumerate(units)}
    texts = [t for t, kind in units if kind == "text" and _text_opacity(t) >= SOLID
             and id(t) not in in_play and id(t) not in travelling]
    if not texts:
        return []
    frame = scene.camera.frame
    shapes = [m for m, kind in units if kind == "shape" and _opacity(m) >= SHAPE_SEEN
              and id(m) not in in_play and not _fills_the_frame(m, frame)]
    boxes = {id(m): _box(m) for m in shapes + texts}
    shapes = [m for m in shapes
              if np.hypot(*(boxes[id(m)][2:] - boxes[id(m)][:2])) >= SHAPE_TINY]
    backings = [(order[id(m)], boxes[id(m)]) for m in shapes
                if m.get_fill_opacity() >= BACKING and len(m.points) >= 4]
    shapes = [m for m in shapes if not _in_the_background_colour(m)]
    faults = []
    for shape in shapes:
        s = boxes[id(shape)]
        near = [t for t in texts if not (s[0] > boxes[id(t)][2] or boxes[id(t)][0] > s[2]
                                          or s[1] > boxes[id(t)][3] or boxes[id(t)][1] > s[3])]
        if not near:
            continue
        segments = _outline_segments(shape)
        for text in near:
            t = boxes[id(text)]
            if any(order[id(shape)] < at < order[id(text)] and b[0] <= t[0] and b[1] <= t[1]
                   and b[2] >= t[2] and b[3] >= t[3] for at, b in backings):
                continue                 # covered by the text's backing
            ink = _glyph_boxes(text)
            inset = INK_INSET * (ink[:, 3] - ink[:, 1])[:, None] * np.array([-1, -1, 1, 1])
            if _segments_cross_boxes(segments, ink - inset):
                faults.append((_label(text), _shape_label(shape)))
                _note(objects, text, shape)
    return faults


def _in_the_background_colour(shape) -> bool:
    """A stroke (or, unstroked, a fill) drawn in the background's colour is not seen (a
    spark's trail faded out): it hides what is under it, but crosses nothing."""
    stroked = float(shape.get_stroke_width() or 0) > 0 and shape.get_stroke_opacity() > 0.05
    color = shape.get_stroke_color() if stroked else shape.get_fill_color()
    seen = np.array(color.to_rgb()) - np.array(ManimColor(style.PALETTE.background).to_rgb())
    return float(np.abs(seen).max()) < 0.15


def _shape_label(shape) -> str:
    """A shape named so a failure can be traced: its kind, colour and opacity."""
    color = shape.get_stroke_color() if float(shape.get_stroke_width() or 0) > 0 \
        else shape.get_fill_color()
    return f"a {type(shape).__name__} ({color.to_hex()}, {_opacity(shape):.2f})"


def _outline_segments(shape, samples: int = 8) -> np.ndarray:
    """The straight pieces (n, 2, 2) of the outline a shape draws: each of its curves
    sampled at ``samples`` points."""
    pieces = []
    t = np.linspace(0, 1, samples)[:, None]
    for part in shape.get_family():
        if not part.has_points() or len(part.points) < 4:
            continue
        curves = part.points[: len(part.points) // 4 * 4, :2].reshape(-1, 4, 2)
        a, b, c, d = (curves[:, k][:, None] for k in range(4))
        points = ((1 - t) ** 3 * a + 3 * (1 - t) ** 2 * t * b + 3 * (1 - t) * t ** 2 * c
                  + t ** 3 * d)                                  # (curves, samples, 2)
        pieces.append(np.stack([points[:, :-1], points[:, 1:]], axis=2).reshape(-1, 2, 2))
    return np.concatenate(pieces) if pieces else np.zeros((0, 2, 2))


def _segments_cross_boxes(segments: np.ndarray, boxes: np.ndarray) -> bool:
    """Whether any segment (n, 2, 2) passes through any box (m, 4): the boxes of the
    segments overlap and the box's corners do not all lie on one side of the segment."""
    boxes = boxes[(boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])]
    if not len(segments) or not len(boxes):
        return False
    p, q = segments[:, None, 0], segments[:, None, 1]                  # (n, 1, 2)
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    overlap = ((lo[..., 0] < boxes[None, :, 2]) & (hi[..., 0] > boxes[None, :, 0])
               & (lo[..., 1] < boxes[None, :, 3]) & (hi[..., 1] > boxes[None, :, 1]))
    if not overlap.any():
        return False
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [0, 3]],
                        boxes[:, [2, 3]]], axis=1)                     # (m, 4, 2)
    d = q - p                                                          # (n, 1, 2)
    side = (d[..., None, 0] * (corners[None, ..., 1] - p[..., None, 1])
            - d[..., None, 1] * (corners[None, ..., 0] - p[..., None, 0]))   # (n, m, 4)
    straddles = (side.min(-1) <= 0) & (side.max(-1) >= 0)
    return bool((overlap & straddles).any())


def _note(objects: list | None, *mobs) -> None:
    """Keep the ids of what a fault is made of, beside the fault (when asked)."""
    if objects is not None:
        objects.append({id(m) for mob in mobs for m in mob.get_family()})


def layout_faults(scene, in_play=frozenset(), travelling=frozenset(),
                  objects: list | None = None) -> list[tuple[str, object]]:
    """(problem, detail) for every layout fault on screen now (``in_play``, ``travelling``:
    mid-play, see :func:`overlapping_texts`); ``objects``, when given, gets the ids of
    each fault's objects, in the same order."""
    return ([("outside the frame", f)
             for f in outside_the_frame(scene, in_play=in_play, objects=objects)]
            + [("text over text", f) for f in overlapping_texts(
                scene, in_play, travelling=travelling, objects=objects)]
            + [("text over shape", f) for f in texts_over_shapes(
                scene, in_play, travelling=travelling, objects=objects)]
            + [("shown twice", f) for f in formulas_twice(scene, in_play, objects)])


SOLID = 0.6           # a text at least this opaque is read as itself (not cross-fading)
FORMULA_GLYPHS = 10   # a formula, not a symbol


def formulas_twice(scene, in_play=frozenset(), objects: list | None = None) -> list[str]:
    """Formulas on screen twice, both solid: one picture has one copy of the formula (a
    second one written beside the corner map was the summary's fault). Mid-play, a copy
    that is part of the play may be arriving or leaving."""
    seen: dict[str, list] = {}
    for mob, kind in _units(scene):
        glyphs = sum(1 for m in mob.get_family() if m.has_points())
        # a symbol (W_Q over its matrix and in a legend) may well be written twice
        if isinstance(mob, MathTypst) and glyphs >= FORMULA_GLYPHS \
                and _text_opacity(mob) >= SOLID and id(mob) not in in_play:
            seen.setdefault(_written(str(getattr(mob, "typst_code", ""))), []).append(mob)
    twice = [key for key, copies in seen.items() if len(copies) > 1]
    for key in twice:
        _note(objects, *seen[key])
    return twice


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
