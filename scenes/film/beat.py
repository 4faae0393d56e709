"""The beat protocol: the explainer is one continuous film of beats, each a short script
over the vocabulary; the :class:`FilmScene` runs them and does their bookkeeping once.

A beat starts from the :class:`Stage` the previous beat left (the formula map, its line,
the token strip, a grid...), plays its :meth:`Beat.script` (sections of plays with
``# ----`` headers, each step introduced by :meth:`Beat.say`, ending on the moment that
best shows it), and then hands the stage on: :meth:`Beat.hand_off` moves what lives on
into the places the next beat expects (:meth:`Beat.leaves`) and lets the rest go, so
nothing fades to black. Rendered alone (or in parallel, or by plain ``manim``), a beat
first builds what its predecessor leaves, instantly, without drawing a frame: a beat looks
the same whichever way it is rendered.

    class SummaryBeat(Beat):
        name = "summary"

        def script(self):
            self.say("All of head 11's weights at once")
            self.play(FadeIn(make_grid(...)))
"""
from __future__ import annotations

import numpy as np
from manim import (FadeIn, FadeOut, FadeTransform, Succession, Transform, UpdateFromAlphaFunc,
                   config)

from . import audits
from .wording import tidy
from ..vocabulary import style

__all__ = ["Beat", "Role", "Stage", "ViewBeat", "looks_the_same", "morph"]


class Role:
    """The roles of a :class:`Stage`, each named once: every hand-off writes and reads
    its objects under these."""
    LINE = "line"            # the beat's line, top left
    MAP = "map"              # the formula map, top right
    ROW = "row"              # the token strip (title -> embed -> project -> sparks)
    COLUMN = "column"        # the focus word's embedding, W_Q's input (embed -> project)
    VIEW = "view"            # the embedding view with its header (embed -> project)
    GRID = "grid"            # QKᵀ (sparks -> softmax); the sentence's grid (mask -> summary)
    WEIGHTS = "weights"      # the focus word's list of weights (softmax -> pull)
    OVERLAY = (LINE, MAP)    # stay put on screen when the camera moves


class Stage(dict):
    """What is on screen between two beats, by :class:`Role`: the beat's line, the formula
    map, and the subjects that live on (the strip, a grid...). Built in drawing order:
    later roles are drawn over earlier ones."""


class Beat:
    """One beat of the explainer. Subclasses set ``name`` (as in the registry), write
    :meth:`script` and say what they leave for the next beat in :meth:`leaves`."""

    name = ""
    hold = style.T_HOLD       # stillness on the key frame (the viewer reads the picture)

    def __init__(self, film, stage: Stage):
        self.film = film
        self.trace = film.trace
        self.book = film.book
        self.stage = stage            # what the previous beat left, by role
        self.roles: dict = {}         # this beat's objects that live on, by role

    @classmethod
    def handles(cls, name: str) -> bool:
        """Whether this class draws beat ``name`` (its own; a class of several beats, a
        writing film's steps, says so)."""
        return name == cls.name

    def script(self) -> None:
        raise NotImplementedError

    def coda(self) -> None:
        """What follows the beat's key frame, once it has been held (the update beat's
        answer to the film's question); nothing by default."""

    @classmethod
    def has_coda(cls) -> bool:
        return cls.coda is not Beat.coda

    @classmethod
    def leaves(cls, film) -> Stage:
        """The stage this beat hands to the next, built from the trace alone (no frames):
        the same objects, in the same places, that :meth:`hand_off` animates into."""
        return Stage()

    def hand_off(self) -> None:
        """Move what lives on into the next beat's places and let the rest go, at once:
        each role of :meth:`leaves` is morphed from this beat's object of that role (or
        fades in), every other object fades out."""
        target = self.film.stage_left_by(type(self))
        keep = {id(m) for m in target.values()}
        moves, staying = [], set()
        for role, mob in target.items():
            current = self.roles.get(role)
            if current is not None and current in self.film.mobjects:
                # what the next beat starts from exactly as it stands stays still: a still
                # object below every moving one is painted once for the play, not per frame
                if not looks_the_same(current, mob):
                    moves.append(morph(current, mob))
                staying.add(id(current))
            else:
                moves.append(FadeIn(mob))
        self.play_hand_off(moves, staying | keep)

    def overlay_moves(self, target: Stage) -> tuple[list, set[int]]:
        """The line and the map morphed into ``target``'s, and the ids of this beat's."""
        current = [self.roles[role] for role in Role.OVERLAY]
        return ([morph(mob, target[role]) for mob, role in zip(current, Role.OVERLAY)],
                {id(mob) for mob in current})

    def play_hand_off(self, moves: list, staying: set[int]) -> None:
        """Play a hand-off: ``moves`` carry on what lives on (``staying``: the ids of the
        objects they move or bring); everything else fades out; the camera comes home."""
        moving = {id(m) for move in moves if getattr(move, "mobject", None) is not None
                  for m in move.mobject.get_family()}

        def parts_leaving(mob):
            # a group that holds something a move carries off is split (manim takes what a
            # play moves out of its group, and a faded group's other parts would be
            # restored, seen, when the play ends): its other parts fade on their own
            if id(mob) in moving:
                return []
            if not any(id(m) in moving for m in mob.get_family()):
                return [mob]
            return [part for sub in mob.submobjects for part in parts_leaving(sub)]

        leaving = [part for m in self.film.mobjects
                   if id(m) not in staying and m is not self.film.camera.frame
                   for part in parts_leaving(m)]
        self.film.play(*moves, *[FadeOut(m) for m in leaving], *self.film.camera_home(),
                       run_time=style.T_HANDOFF, rate_func=style.EASE)

    def open(self, line, lit: str | None, *also) -> None:
        """The beat's first step: its line replaces the last one (or arrives), the formula
        map lights the part this beat computes; the stage's other roles carry over."""
        from ..vocabulary.formula import FormulaMap

        self.roles = {**self.stage, **self.roles}
        old = self.stage.get(Role.LINE)
        new_map = FormulaMap(lit)
        current = self.stage.get(Role.MAP)
        self.play(FadeTransform(old, line) if old is not None else FadeIn(line),
                  Transform(current, new_map) if current is not None else FadeIn(new_map),
                  *also, run_time=style.T_SHORT)
        self.roles[Role.LINE] = line
        self.roles[Role.MAP] = current if current is not None else new_map

    # ---- verbs ----------------------------------------------------------------------
    def play(self, *animations, **kwargs) -> None:
        kwargs.setdefault("rate_func", style.EASE)
        self.film.play(*animations, **kwargs)

    def wait(self, duration: float = style.T_PAUSE) -> None:
        self.film.wait(duration)

    def add(self, *mobjects) -> None:
        self.film.add(*mobjects)

    def remove(self, *mobjects) -> None:
        self.film.remove(*mobjects)

    def camera_to(self, center, width: float, *also, run_time: float = style.T_CAMERA,
                  overlay: bool = True) -> None:
        """Move the camera (with ``also`` animations). The line and the map stay put on
        screen (moved and scaled with the frame, in step with it); with ``overlay=False``
        they fade while the camera is away from the whole stage (a close-up whose
        subject would run under them) and come back with it."""
        frame = self.film.camera.frame
        c0, c1 = frame.get_center(), np.asarray(center, dtype=float)
        k = width / frame.width
        home = abs(width - config.frame_width) < 1e-6 and np.allclose(c1, 0.0)
        overlay_mobs = [m for m in map(self.roles.get, Role.OVERLAY) if m is not None]
        on_stage = [m for m in overlay_mobs if m in self.film.mobjects]
        fades = []
        if not overlay and not home:
            fades, on_stage = [FadeOut(m) for m in on_stage], []
        elif home:          # back to the whole stage: what faded comes back, where it was
            fades = [FadeIn(m) for m in overlay_mobs if m not in self.film.mobjects]
        if home:
            fades += self._texts_back(self.film.__dict__.pop("_cut_by_zoom", []))
        else:
            moving = {id(m) for a in also for m in a.mobject.get_family()} \
                | {id(m) for m in overlay_mobs for m in m.get_family()}
            cut = self._texts_cut_by(c1, width, moving)
            fades += self._texts_away(cut)
            self.film._cut_by_zoom = self.film.__dict__.get("_cut_by_zoom", []) + cut
        self.play(frame.animate.move_to(c1).set(width=width),
                  *[m.animate.scale(k, about_point=c0).shift(c1 - c0) for m in on_stage],
                  *fades, *also, run_time=run_time)

    # a close-up never shows a text cut by its edge: such texts fade while the camera is
    # close and come back with it (in place, as parts of what holds them)
    def _texts_cut_by(self, center, width: float, moving: set) -> list:
        height = width * config.frame_height / config.frame_width
        margin = audits.FRAME_MARGIN * width / config.frame_width
        x0, x1 = center[0] - width / 2 + margin, center[0] + width / 2 - margin
        y0, y1 = center[1] - height / 2 + margin, center[1] + height / 2 - margin
        cut = []
        for text in audits.visible_text_units(self.film):
            if id(text) in moving:
                continue
            b = audits.box_of(text)
            inside = b[0] >= x0 and b[2] <= x1 and b[1] >= y0 and b[3] <= y1
            apart = (b[2] <= x0 - margin or b[0] >= x1 + margin or b[3] <= y0 - margin
                     or b[1] >= y1 + margin)
            if not inside and not apart:
                cut.append(text)
        return cut

    def _texts_away(self, texts) -> list:
        """Animations that fade ``texts`` to nothing where they stand, each leaf's opacities
        kept to bring back (a FadeOut would take a label out of its grid)."""
        leaves = [m for t in texts for m in t.get_family() if m.has_points()]
        kept = [(m, m.get_fill_opacity(), m.get_stroke_opacity(),
                 m.get_stroke_opacity(background=True)) for m in leaves]
        for text in texts:
            text._kept_opacity = [k for k in kept if k[0] in text.get_family()]
        return self._opacity_animations(kept, lambda alpha: 1 - alpha)

    def _texts_back(self, texts) -> list:
        kept = [k for t in texts for k in getattr(t, "_kept_opacity", [])]
        return self._opacity_animations(kept, lambda alpha: alpha)

    def _opacity_animations(self, kept, share) -> list:
        if not kept:
            return []
        owners: dict[int, tuple] = {}
        for entry in kept:
            owner = next((top for top in self.film.mobjects if entry[0] in top.get_family()),
                         None)
            if owner is not None:
                owners.setdefault(id(owner), (owner, []))[1].append(entry)

        def fader(entries):
            def update(_, alpha):
                k = share(alpha)
                for m, fill, stroke, background in entries:
                    m.set_fill(opacity=fill * k)
                    m.set_stroke(opacity=stroke * k)
                    m.set_stroke(opacity=background * k, background=True)
            return update
        return [UpdateFromAlphaFunc(owner, fader(entries)) for owner, entries in owners.values()]

    def say(self, text: str) -> None:
        """A caption for the steps that follow (in the user's words where the film has
        them: ``caption_words``), up long enough to be read (the film's ``settings``:
        its pace) and, in a voiced film, to be heard (``caption_seconds``): if the last one is
        still being read, wait for it first."""
        film = self.film
        now = film.renderer.time
        if now < film.caption_free_at - 1e-6:
            self.wait(film.caption_free_at - now)
            now = film.renderer.time
        said = self.__dict__.setdefault("_captions_said", 0)
        self._captions_said = said + 1
        words = film.caption_words.get(self.name, ())
        text = tidy(words[said] if said < len(words) else text)    # the user's, if given
        heard = film.caption_seconds.get(self.name, ())
        # read at the pace whatever the film does to its end: the gap before the next
        # caption, and the frames its start and its end are rounded to
        reading = len(text) / film.settings.reading_cps + style.CAPTION_GAP + 1 / config.frame_rate
        duration = max(reading, style.MIN_CAPTION, heard[said] if said < len(heard) else 0.0)
        film.add_subcaption(text, duration=duration)
        film.caption_free_at = now + duration

    def number(self, kind: str, index: tuple = (), **kwargs):
        """A Text of a number from the trace, recorded (see ``NumberBook.text_mobject``)."""
        return self.book.text_mobject(kind, index, **kwargs)

    def record(self, kind: str, index: tuple = (), decimals: int = 2,
               signed: bool = False) -> str:
        """The text of a number drawn some other way (or said in a caption), recorded."""
        return self.book.text(kind, index, decimals, signed)


class ViewBeat(Beat):
    """A beat of a film of a model's view (a translation's, a writing's): what every beat
    of the film draws alike (``layout_class`` of the view) made once per film, and the
    stage the last beat left carried over as this beat's roles."""

    layout_class: type | None = None

    def __init__(self, film, stage: Stage):
        super().__init__(film, stage)
        self.layout = self.layout_of(film)
        self.roles = dict(stage)

    @classmethod
    def layout_of(cls, film):
        """The film's layout, made once per process for the same view, frame and theme:
        a worker draws several of a film's beats, each a film of its own, and measuring
        the windows (rows of tokens built until they fit) is most of a short beat's
        setting up. A layout holds what is measured, never a drawn object."""
        made = film.__dict__.setdefault("_layouts", {})
        if cls.layout_class not in made:
            fingerprint = film.__dict__.get("_fingerprint")
            if fingerprint is None:
                fingerprint = film._fingerprint = film.trace.fingerprint()
            key = (cls.layout_class, fingerprint, config.pixel_width, config.pixel_height,
                   round(config.frame_width, 6), style.theme_name())
            if key not in _LAYOUTS:
                _LAYOUTS[key] = cls.layout_class(film.trace)
                while len(_LAYOUTS) > _LAYOUTS_KEPT:
                    _LAYOUTS.pop(next(iter(_LAYOUTS)))
            made[cls.layout_class] = _LAYOUTS[key]
        return made[cls.layout_class]


_LAYOUTS: dict = {}        # the layouts this process made, by view, frame and theme
_LAYOUTS_KEPT = 8


def looks_the_same(a, b) -> bool:
    """Whether ``a`` and ``b`` draw the same picture: the same family, point for point, in
    the same colours, widths and opacities."""
    family_a, family_b = a.get_family(), b.get_family()
    if len(family_a) != len(family_b):
        return False
    for m, n in zip(family_a, family_b):
        if type(m) is not type(n) or m.points.shape != n.points.shape \
                or not np.array_equal(m.points, n.points):
            return False
        for read in ("get_fill_rgbas", "get_stroke_rgbas"):
            if hasattr(m, read) and not np.array_equal(getattr(m, read)(), getattr(n, read)()):
                return False
        if getattr(m, "stroke_width", None) != getattr(n, "stroke_width", None):
            return False
        if hasattr(m, "get_stroke_rgbas") and not np.array_equal(
                m.get_stroke_rgbas(background=True), n.get_stroke_rgbas(background=True)):
            return False
    return True


def replace_in_place(source, target):
    """``source`` fades out, then ``target`` fades in: a number rewritten where it stands
    (a cross-fade would show both on top of each other, an unreadable tangle mid-way)."""
    return Succession(FadeOut(source), FadeIn(target))


def morph(source, target):
    """Transform ``source`` into ``target``, or cross-fade them when they write different
    words (a glyph morph between different texts is an unreadable tangle)."""
    if audits.glyph_morphs([Transform(source, target)]) \
            or len(source.get_family()) != len(target.get_family()):
        return FadeTransform(source, target)
    return Transform(source, target)
