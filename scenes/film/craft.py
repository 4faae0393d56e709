"""The layout audit's checks of craft (beside ``audits``): a label of a script that is not
read turned drawn on its side, a text nearer the frame's edge than the stage's margin, a
rule (a straight line) through any glyph, a text against the corner formula, an arrow too
short to be seen as one, a text or a group shown, removed and shown again within a second,
and — a finding, not a fault — a beat that leaves half the frame empty while the other is
full.
"""
from __future__ import annotations

import math

import numpy as np
from manim import Arrow, Line, config

from ..vocabulary import style
from ..vocabulary.formula import FormulaMap
from ..vocabulary.scripts import may_turn
from . import audits
from .looking import centre_of

__all__ = ["EMPTY_HALF_UNITS", "FLASH_GAP", "FORMULA_CLEAR", "FlashWatch", "GroupFlashWatch",
           "PROSE_WORDS", "TEXT_MARGIN", "animated_ids", "craft_faults", "empty_half",
           "faded_in_while_shown", "half_counts",
           "near_empty", "prose_lines", "rules_through_glyphs", "short_arrows",
           "texts_without_glyphs", "turned_the_other_way",
           "texts_against_the_formula", "texts_near_the_edge", "turned_texts"]

TEXT_MARGIN = 0.15     # scene units (20 px at 1080p): no text nearer the frame's edge
FORMULA_CLEAR = 0.12   # scene units (16 px): no text nearer the corner formula's ink
RULE_INSET = 0.02      # of a glyph's height: only a line grazing its very rim passes
EMPTY_HALF_UNITS = 6   # the full half holds at least this many things (measured: see below)


def animated_ids(animations) -> set[int]:
    """The ids of everything the animations move or fade, into groups of animations (a
    LaggedStart's own mobject is a bare group: its parts' mobjects are what play)."""
    found: set[int] = set()
    for anim in animations:
        inner = getattr(anim, "animations", None)
        if inner:
            found |= animated_ids(inner)
        mob = getattr(anim, "mobject", None)
        if mob is not None:
            found |= {id(m) for m in mob.get_family()}
    return found


def _turned(mob) -> bool:
    angle = sum(getattr(m, "turned_by", 0.0) for m in mob.get_family())
    return abs(math.remainder(angle, 2 * math.pi)) > 1e-3


def turned_texts(scene) -> list[str]:
    """Every visible text drawn on its side whose script is not read turned (ideographs,
    kana, right-to-left scripts: ``scripts.may_turn``)."""
    return [(audits._label(t), [t]) for t in audits.visible_text_units(scene)
            if _turned(t) and not may_turn(audits._label(t))]


def turned_the_other_way(scene) -> list:
    """Every visible text turned otherwise than ``style.TURNED``: turned words read one way
    (upward) in every bar chart, grid and row, or a viewer tilts their head both ways."""
    found = []
    for t in audits.visible_text_units(scene):
        angle = math.remainder(sum(getattr(m, "turned_by", 0.0) for m in t.get_family()),
                               2 * math.pi)
        if abs(angle) > 1e-3 and abs(angle - style.TURNED) > 1e-3:
            found.append((audits._label(t), [t]))
    return found


def texts_near_the_edge(scene, in_play=frozenset()) -> list[tuple[str, str]]:
    """(text, edge) for every solid text nearer the frame's edge than ``TEXT_MARGIN``
    (shapes may come to ``audits.FRAME_MARGIN``), when the camera shows the whole stage: a
    moving camera's edge sweeps over what it passes, a close-up crops what it shows."""
    frame = scene.camera.frame
    width, height = audits.frame_size(frame)
    zoom = width / config.frame_width
    if id(frame) in in_play or zoom < 1 - 1e-3:
        return []       # a close-up crops the stage: what it cuts is outside_the_frame's
    cx, cy = frame.get_center()[:2]
    half_w = width / 2 - TEXT_MARGIN * zoom
    half_h = height / 2 - TEXT_MARGIN * zoom
    found = []
    for text in audits.visible_text_units(scene):
        if id(text) in in_play or audits._text_opacity(text) < audits.SOLID:
            continue
        x0, y0, x1, y1 = audits.box_of(text)
        if x1 <= cx - width / 2 or x0 >= cx + width / 2 \
                or y1 <= cy - height / 2 or y0 >= cy + height / 2:
            continue
        edges = [name for name, near in (("left", x0 < cx - half_w), ("right", x1 > cx + half_w),
                                         ("bottom", y0 < cy - half_h), ("top", y1 > cy + half_h))
                 if near]
        if edges:
            found.append(((audits._label(text), "/".join(edges)), [text]))
    return found


def rules_through_glyphs(scene, in_play=frozenset()) -> list[tuple[str, str]]:
    """(text, line) for every straight line (a rule, a tick, a leader) that runs through a
    glyph of a solid text: judged against each glyph's own box, so a line under a row of
    words that strikes a low glyph (the bar of '=') is found where the inset of
    ``texts_over_shapes`` lets it pass."""
    units = list(audits._units(scene))
    order = {id(m): n for n, (m, _) in enumerate(units)}
    backings = [(order[id(m)], audits.box_of(m)) for m, kind in units if kind == "shape"
                and m.get_fill_opacity() >= audits.BACKING and len(m.points) >= 4]
    lines = [m for m, kind in units if kind == "shape" and isinstance(m, Line)
             and audits._opacity(m) >= audits.SHAPE_SEEN and id(m) not in in_play
             and not audits._in_the_background_colour(m)]
    texts = [t for t, kind in units if kind == "text" and id(t) not in in_play
             and audits._text_opacity(t) >= audits.SOLID]
    if not lines or not texts:
        return []
    text_boxes = [audits.box_of(t) for t in texts]
    found = []
    for line in lines:
        box = audits.box_of(line)
        segments = np.array([[line.get_start()[:2], line.get_end()[:2]]])
        for text, t in zip(texts, text_boxes):
            if box[0] > t[2] or t[0] > box[2] or box[1] > t[3] or t[1] > box[3]:
                continue
            if any(order[id(line)] < at < order[id(text)] and b[0] <= t[0] and b[1] <= t[1]
                   and b[2] >= t[2] and b[3] >= t[3] for at, b in backings):
                continue                 # hidden under the text's backing
            ink = audits._glyph_boxes(text)
            inset = RULE_INSET * (ink[:, 3] - ink[:, 1])[:, None] * np.array([-1, -1, 1, 1])
            if audits._segments_cross_boxes(segments, ink - inset):
                found.append(((audits._label(text), audits._shape_label(line)), [text, line]))
    return found


def texts_against_the_formula(scene, in_play=frozenset()) -> list[str]:
    """Every solid text (not the formula's own) whose ink comes within ``FORMULA_CLEAR`` of
    the corner formula's: a long title or strip running under it hides √d_k."""
    maps = [m for m in scene.mobjects for m in m.get_family() if isinstance(m, FormulaMap)]
    if not maps:
        return []
    own = {id(m) for fm in maps for m in fm.get_family()}
    ink = np.concatenate([audits._glyph_boxes(fm.formula) for fm in maps
                          if audits._text_opacity(fm.formula) > 0.05] or [np.zeros((0, 4))])
    if not len(ink):
        return []
    near = ink + FORMULA_CLEAR * np.array([-1, -1, 1, 1])
    found = []
    for text in audits.visible_text_units(scene):
        if id(text) in own or id(text) in in_play or audits._text_opacity(text) < audits.SOLID:
            continue
        g = audits._glyph_boxes(text)
        apart = ((g[:, None, 0] > near[None, :, 2]) | (near[None, :, 0] > g[:, None, 2])
                 | (g[:, None, 1] > near[None, :, 3]) | (near[None, :, 1] > g[:, None, 3]))
        if not apart.all():
            found.append((audits._label(text), [text]))
    return found


def short_arrows(scene, in_play=frozenset()) -> list[str]:
    """Every visible arrow, standing still, shorter than ``style.MIN_ARROW``: a step of a
    few pixels is not seen as a step."""
    found = []
    for top in scene.mobjects:
        for mob in top.get_family():
            if isinstance(mob, Arrow) and id(mob) not in in_play \
                    and audits._opacity(mob) >= audits.SHAPE_SEEN:
                length = float(np.linalg.norm(mob.get_end() - mob.get_start()))
                if 0 < length < style.MIN_ARROW:
                    found.append((f"an arrow {length:.3f} long", [mob]))
    return found


PROSE_WORDS = 3        # a text of this many words or more is read as prose, not a label


def prose_lines(scene) -> list[str]:
    """The lines of prose on screen now (a text of ``PROSE_WORDS`` words or more; a text
    broken over lines counts each): what a viewer must read rather than look at. The
    labels of a picture (E + ΔE, a word at an arrow's tip) are not prose."""
    lines = []
    for text in audits.visible_text_units(scene):
        if audits._text_opacity(text) < audits.SOLID:
            continue
        for line in str(audits._label(text)).split("\n"):
            words = [w for w in line.split() if any(ch.isalpha() for ch in w)]
            if len(words) >= PROSE_WORDS:
                lines.append(line)
    return lines


def half_counts(scene) -> tuple[int, int]:
    """How many visible things (texts and shapes) stand wholly in the upper and in the
    lower half of the camera's frame."""
    cy = scene.camera.frame.get_center()[1]
    upper = lower = 0
    for mob, _ in audits._units(scene):
        x0, y0, x1, y1 = audits.box_of(mob)
        upper += y0 >= cy
        lower += y1 <= cy
    return upper, lower


def empty_half(beat: str, halves: list[tuple[int, int]]) -> list[tuple]:
    """A finding (not a fault: a picture may have its reasons) for a beat whose upper or
    lower half held nothing at the end of every play while the other held at least
    ``EMPTY_HALF_UNITS`` things: (beat, "empty half", which)."""
    found = []
    for n, which in ((0, "upper"), (1, "lower")):
        if halves and all(h[n] == 0 and h[1 - n] >= EMPTY_HALF_UNITS for h in halves):
            found.append((beat, "empty half", which))
    return found


_LACKING: dict = {}      # (text, the font files) -> its characters no font has


def texts_without_glyphs(scene) -> list[tuple[tuple[str, str], list]]:
    """((text, the characters of it no font of the film has), [its mobject]) for every text
    on screen that would show an empty box where a letter should be (formulas carry their
    own fonts)."""
    from manim import MathTypst

    from ..vocabulary import fonts

    found = []
    for mob in audits.visible_text_units(scene):
        if isinstance(mob, MathTypst):
            continue
        text = audits._label(mob)
        key = (text, fonts.FONT_FILES)
        if key not in _LACKING:
            _LACKING[key] = "".join(fonts.unprintable(text))
        if _LACKING[key]:
            found.append(((text, _LACKING[key]), [mob]))
    return found


def craft_faults(scene, in_play=frozenset(), objects: list | None = None
                 ) -> list[tuple[str, object]]:
    """(problem, detail) for every fault of craft on screen now; ``objects``, when given,
    gets the ids of each fault's objects (as ``audits.layout_faults``)."""
    checks = {"turned": lambda: turned_texts(scene),
              "turned the other way": lambda: turned_the_other_way(scene),
              "near the edge": lambda: texts_near_the_edge(scene, in_play),
              "rule through a glyph": lambda: rules_through_glyphs(scene, in_play),
              "against the formula": lambda: texts_against_the_formula(scene, in_play),
              "short arrow": lambda: short_arrows(scene, in_play),
              "no glyph": lambda: texts_without_glyphs(scene)}
    checks = [(name, check()) for name, check in checks.items()]
    faults = []
    for problem, found in checks:
        for detail, mobs in found:
            faults.append((problem, detail))
            audits._note(objects, *mobs)
    return faults


def near_empty(stage_roles: dict, overlay) -> bool:
    """A beat boundary through a near-empty frame: the stage handed on holds nothing but
    the overlay (the line and the map), so the next beat draws its subject from black."""
    return not any(role not in overlay for role in stage_roles)


FLASH_GAP = 1.0      # seconds: a text gone and back at its place within this is a flash
FLASH_PLACE = 0.2    # scene units: "its place"


class FlashWatch:
    """Finds texts shown, removed and shown again at the same place within
    ``FLASH_GAP`` seconds (a column popping in whole, vanishing, born again): fed what is
    on screen at each moment the audit looks."""

    def __init__(self):
        self.solid: list[tuple[str, np.ndarray]] = []          # at the last look
        self.gone: list[tuple[str, np.ndarray, float]] = []    # (text, where, last seen)
        self.last_time = 0.0

    def look(self, scene, time: float, in_play=frozenset()) -> list[tuple[str, float]]:
        """(text, when it went) for every text back at its place after a short absence.
        Mid-play, what the play moves or fades (``in_play``) is on its way: it counts as
        present, and is judged when it stands."""
        present = [(audits._label(t), centre_of(t)[:2].copy(),
                    audits._text_opacity(t) >= audits.SOLID and id(t) not in in_play)
                   for t in audits._every_text(scene) if id(t) in in_play or audits._visible(t)]
        places: dict[str, list] = {}        # label: [(where, solid)]: looked up, not scanned
        for label, where, solid in present:
            places.setdefault(label, []).append((where, solid))

        def here(label, where, solid_only=False):
            return any(math.hypot(*(at - where)) <= FLASH_PLACE
                       for at, solid in places.get(label, ()) if solid or not solid_only)

        self.gone = [g for g in self.gone if time - g[2] <= FLASH_GAP]
        self.gone += [(label, where, self.last_time) for label, where in self.solid
                      if not here(label, where)]
        flashes, still_gone = [], []
        solid_now = [(label, where) for label, where, solid in present if solid]
        for label, where, went in self.gone:
            if here(label, where, solid_only=True):
                flashes.append((label, round(went, 2)))
            else:
                still_gone.append((label, where, went))
        self.gone, self.solid, self.last_time = still_gone, solid_now, time
        return flashes


def faded_in_while_shown(scene, animations) -> list[str]:
    """What a play fades in that already stands on screen, solid: it vanishes when the fade
    begins and comes back (a block made part of a shown group before its own fade)."""
    from manim import AnimationGroup, FadeIn

    def fades(anims):
        for anim in anims:
            if isinstance(anim, AnimationGroup):
                yield from fades(anim.animations)
            elif isinstance(anim, FadeIn):
                yield anim.mobject
    shown = {id(m) for top in scene.mobjects for m in top.get_family()}
    found = []
    for mob in fades(animations):
        parts = [m for m in mob.get_family() if m.has_points()]
        if parts and all(id(m) in shown for m in parts) \
                and max(audits._opacity(m) for m in parts) >= audits.SOLID:
            found.append(_group_name(mob))
    return found


class GroupFlashWatch:
    """Finds groups (whatever the scene holds at its top: a block of rows, a panel) shown,
    removed and shown again within ``FLASH_GAP`` seconds: the texts' own watch
    (``FlashWatch``) sees words, this one sees the group that carries them."""

    def __init__(self):
        self.present: set[int] = set()
        self.gone: dict[int, float] = {}
        self.names: dict[int, str] = {}

    def look(self, scene, time: float) -> list[tuple[str, float]]:
        now = set()
        for top in scene.mobjects:
            if any(audits._opacity(m) > 0.05 for m in top.get_family() if m.has_points()):
                now.add(id(top))
                self.names[id(top)] = _group_name(top)
        for went in self.present - now:
            self.gone[went] = time
        back = [(self.names[i], round(self.gone.pop(i), 2)) for i in now & set(self.gone)
                if time - self.gone[i] <= FLASH_GAP]
        self.gone = {i: t for i, t in self.gone.items() if time - t <= FLASH_GAP}
        self.present = now
        return back


def _group_name(mob) -> str:
    texts = [audits._label(m) for m in mob.get_family() if isinstance(m, audits._TEXT_KINDS)]
    return f"a {type(mob).__name__}" + (f" ({', '.join(texts[:3])})" if texts else "")
