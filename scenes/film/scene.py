"""The film: :class:`FilmScene` plays beats (``beat.Beat``) in storyboard order on one
scene and does their bookkeeping once (start from the stage the previous beat leaves, key
frame, hold, captions, hand-off)."""
from __future__ import annotations

from manim import ORIGIN, AnimationGroup, MovingCameraScene, config

from . import audits, craft
from .looking import centre_of, looking
from ..vocabulary import style
from ..vocabulary.formula import scores_divided_by
from ..vocabulary.patches import our_drawing
from .beat import Beat, Role, Stage
from .captions import caption_count, hold_captions, separate_captions
from .readouts import NumberBook
from .registry import hands_on, load_beat, parse_beats, previous_beat
from .settings import FilmSettings

__all__ = ["FilmScene", "draws_nothing", "leave_out_empty_groups"]


def draws_nothing(animation) -> bool:
    """Whether ``animation`` is a group (``LaggedStart``, ``Succession``, ...) holding no
    animation at any depth: it has nothing to draw."""
    return isinstance(animation, AnimationGroup) and all(
        draws_nothing(part) for part in animation.animations)


def leave_out_empty_groups(animation) -> None:
    """Take the groups that draw nothing out of ``animation``, at any depth. The rest keeps
    its timing: manim starts each part of a group its lag after the one before, and an
    empty group lasts no time."""
    if not isinstance(animation, AnimationGroup):
        return
    parts = [part for part in animation.animations if not draws_nothing(part)]
    for part in parts:
        leave_out_empty_groups(part)
    if len(parts) < len(animation.animations):
        animation.animations = parts
        animation.init_run_time(animation.run_time)      # the parts' times, again


class FilmScene(MovingCameraScene):
    """The beats of ``beats`` (default: all) played in storyboard order on one scene.

    Keeps the trace drawn, the ``book`` of numbers shown, and each beat's start, end and
    key frame time. Constructed with no trace (as plain ``manim`` does) it draws the trace
    named by $ATTENTION_EXPLAINER_TRACE, else the shipped default sentence's.
    """

    default_beats: tuple[str, ...] | None = None     # plain-manim scenes set one beat
    audit = False          # tests: check every play for glyph morphs and small texts
    ends_film = True       # False: a segment of a longer film, its last beat hands off too
    # a segment of a longer film says whether its first beat's predecessor is drawn just
    # before it there (None: as this scene drew it)
    carried_over: bool | None = None

    def __init__(self, trace=None, beats=None, versus=None, **kwargs):
        if trace is None:
            from ...attention_core.trace import trace_from_environment
            trace = trace_from_environment()
        self.trace = trace
        # a minimal pair's sentence B, for the versus beat (given, or carried by the trace)
        self.versus = versus if versus is not None else getattr(trace, "versus", None)
        self.book = NumberBook(trace, self.versus)
        self.beat_names = parse_beats(beats if beats is not None else self.default_beats, trace)
        # import every beat before any frame is drawn: a missing one fails fast
        self.beat_classes = [load_beat(name) for name in self.beat_names]
        self.key_times: dict[str, float] = {}                  # beat -> key frame time
        self.beat_times: dict[str, tuple[float, float]] = {}   # beat -> (start, end)
        self.handoff_times: dict[str, float] = {}              # beat -> its hand-off starts
        self.stage: Stage | None = None
        self._next_stage: tuple | None = None  # (beat class, the stage it leaves), once built
        self.played: list[str] = []          # the beats drawn so far, in order
        self.follows_last = True    # the beat being drawn comes right after its predecessor
        self.caption_free_at = 0.0
        self.extra_holds: dict[str, float] = {}  # beat -> seconds more on its last picture
        # beat -> the least each of its captions stays up, in order (a spoken caption's voice)
        self.caption_seconds: dict[str, tuple] = {}
        # beat -> the user's words for its captions, in order (a translation: --captions)
        self.caption_words: dict[str, tuple] = {}
        self.brief = False          # a short film (--length): every hold at its floor
        self.settings = FilmSettings()      # how it is drawn (--pace, ...: film.settings)
        self.audit_log: list[tuple] = []    # (beat, problem, detail) when auditing
        self.screen_texts: dict[str, set[str]] = {}   # beat -> texts seen, when auditing
        self.layout_log: list[tuple] = []   # (beat, problem, (time, moment, detail))
        self._audited_middle = True          # the current play's middle (when auditing)
        self._centres_before: dict = {}      # where each text stood as the play began
        self._flashes = craft.FlashWatch()  # texts gone and back within a second
        self._group_flashes = craft.GroupFlashWatch()   # ... and the groups that hold them
        self.findings: list[tuple] = []     # (beat, finding, detail): reasons to look
        self._halves: list[tuple[int, int]] = []   # the frame's halves at each play's end
        self._unsettled: list = []           # the last play's end faults, with their ids
        style.register_fonts()
        super().__init__(**kwargs)

    def render(self, *args, **kwargs):
        """manim's render, with our changes to its classes in place for it alone
        (``patches.our_drawing``): a user's own scenes, before or after, run manim as
        it ships."""
        with our_drawing(), scores_divided_by(self.trace):
            return super().render(*args, **kwargs)

    @property
    def shown_numbers(self):
        return self.book.shown

    def play(self, *animations, **kwargs) -> None:
        # a group over an empty list ("each piece long enough to draw", when none is) draws
        # nothing, and manim refuses to play it: it is left out, for any sentence; a step
        # left with nothing to draw still takes its time (its caption is timed to it)
        for animation in animations:
            leave_out_empty_groups(animation)
        drawing = tuple(a for a in animations if not draws_nothing(a))
        if not drawing:
            duration = kwargs.get("run_time", max((a.run_time for a in animations), default=0))
            if duration > 0:
                self.wait(duration)
            return
        animations = drawing
        if self.audit:
            with looking(self):
                self._look_before(animations)
        super().play(*animations, **kwargs)
        # a FadeTransform's source may still stand on stage, restored to how it started
        # (manim restores it when it was also on stage on its own): it is replaced, so go
        self.remove(*audits.fade_transform_sources(animations))
        if self.audit:
            with looking(self):
                self._look_after()

    def _look_before(self, animations) -> None:
        """What the audit reads before a play: the last play's faults it does not move,
        morphs and fades it would play wrong, where each text stands."""
        self.settle_faults(animations)
        for pair in audits.glyph_morphs([a for a in animations if hasattr(a, "mobject")]):
            self.audit_log.append((self.book.beat, "glyph morph", pair))
        self._audited_middle = False
        self.layout_log += [(self.book.beat, "shown, gone and back",
                             (round(self.renderer.time, 2), "start", f"{what} faded in again"))
                            for what in craft.faded_in_while_shown(self, animations)]
        self._centres_before = {id(t): centre_of(t).copy()
                                for t in audits.visible_text_units(self)}

    def _look_after(self) -> None:
        """What the audit reads at a play's end: the layout, small texts, what is said."""
        self.audit_layout("end")
        for text, size in audits.small_texts(self):
            self.audit_log.append((self.book.beat, "small text", (text, size)))
        self.screen_texts.setdefault(self.book.beat, set()).update(
            audits.visible_texts(self))

    def audit_layout(self, moment: str) -> None:
        """Log every layout fault on screen now (at ``moment`` of the current play). A
        fault at a play's end waits for the next play: if that one moves or changes what
        the fault is made of at once, the picture never stood still, and it is dropped."""
        in_play, travelling = set(), set()
        if moment == "middle":
            in_play = craft.animated_ids(self.animations or ())
            travelling = (audits.travelling_texts(self, self._centres_before)
                          | audits.travelling_transforms(self.animations or ()))
        objects: list = []
        found = (audits.layout_faults(self, in_play, travelling, objects)
                 + craft.craft_faults(self, in_play, objects))
        entries = [(self.book.beat, problem, (round(self.renderer.time, 2), moment, detail))
                   for problem, detail in found]
        flashes = [(self.book.beat, "shown, gone and back",
                    (round(self.renderer.time, 2), moment, flash))
                   for flash in self._flashes.look(self, self.renderer.time, in_play)]
        self.findings += [(self.book.beat, "group shown, gone and back",
                           (round(self.renderer.time, 2), moment, flash))
                          for flash in self._group_flashes.look(self, self.renderer.time)]
        if moment == "end":
            self._unsettled = list(zip(entries, objects))
            self._halves.append(craft.half_counts(self))
        else:
            self.layout_log += entries
        self.layout_log += flashes

    def settle_faults(self, animations=()) -> None:
        """Log the last play's end faults but those the coming ``animations`` move on."""
        moving = {id(m) for a in animations if getattr(a, "mobject", None) is not None
                  for m in a.mobject.get_family()}
        self.layout_log += [entry for entry, ids in self._unsettled if not ids & moving]
        self._unsettled = []

    def get_time_progression(self, run_time, description, n_iterations=None,
                             override_skip_animations=False):
        progression = super().get_time_progression(run_time, description, n_iterations,
                                                   override_skip_animations)
        if self.audit and self.renderer.skip_animations and run_time > 0:
            # a layout audit without frames (the corpus test): the middle, then the end
            progression.iterable, progression.total = [run_time / 2, run_time], 2
        return progression

    def update_to_time(self, t: float) -> None:
        super().update_to_time(t)
        if self.audit and not self._audited_middle and t >= self.duration / 2 - 1e-9:
            self._audited_middle = True
            with looking(self):
                self.audit_layout("middle")

    def construct(self) -> None:
        for n, beat_cls in enumerate(self.beat_classes):
            final = n == len(self.beat_classes) - 1
            self.run_beat(beat_cls, last=self.ends_film and final, more=not final)
        if self.audit:
            self.settle_faults()

    def run_beat(self, beat_cls, last: bool = False, more: bool = True) -> None:
        """Play one beat and do its bookkeeping: start from the stage its predecessor
        leaves, key frame, hold, captions, hand the stage on (``more``: another beat is
        drawn after it in this scene)."""
        self.book.beat = beat_cls.name
        start = self.renderer.time
        first_caption = caption_count(self)
        before = previous_beat(beat_cls.name, self.trace)
        handed = [hands_on(b, self.trace) for b in self.played[-1:]]
        follows = handed == [before] if self.played or self.carried_over is None \
            else self.carried_over
        self.follows_last = follows     # the beat before it here is its storyboard's
        if self.stage is None or handed != [before]:
            # a beat starts where its storyboard predecessor ends, whether or not that one
            # was drawn just before it (the first of a film, or one after a gap) ...
            self.clear()
            self.stage = load_beat(before).leaves(self) if before else Stage()
            if not follows:       # ... but never under the heading of a beat not shown
                self.stage.pop(Role.LINE, None)
            self.add(*self.stage.values())
        beat = beat_cls(self, self.stage)
        self._halves = []
        beat.script()
        self.mark_key_frame(beat_cls.name)
        held = style.T_HOLD_FLOOR if self.brief else beat.hold
        if beat.has_coda():
            self.wait(max(held, self.caption_free_at - self.renderer.time))
            beat.coda()
        self.mark_held_end(beat_cls.name)
        hold = max(held, style.T_HOLD_FLOOR if self.brief else style.T_LAST_HOLD) if last \
            else held
        # a narrated beat holds its picture longer, until its recording has been heard
        self.wait(max(hold, self.caption_free_at - self.renderer.time)
                  + self.extra_holds.get(beat_cls.name, 0.0))
        hold_captions(self, first_caption)
        if self.audit:
            self.findings += craft.empty_half(beat_cls.name, self._halves)
        if not last:
            self.hand_off(beat, more=more)
        separate_captions(self, first_caption)
        self.beat_times[beat_cls.name] = (start, self.renderer.time)
        self.played.append(beat_cls.name)

    def mark_key_frame(self, beat: str) -> None:
        """Now is the moment that best shows ``beat`` (poster, contact sheet, goldens)."""
        self.key_times[beat] = self.renderer.time

    def mark_held_end(self, beat: str) -> None:
        """Now ``beat``'s script has ended: its last picture is held from here until its
        hand-off (or the film's end)."""

    def mark_hand_off(self, beat: str) -> None:
        """Now ``beat``'s hand-off starts: its held end state is over (a pack's clip of the
        beat ends here, and the next clip starts)."""
        self.handoff_times[beat] = self.renderer.time

    def hand_off(self, beat: Beat, more: bool = True) -> None:
        """The beat hands its stage on; then, if another beat follows here (``more``) or
        the layout is audited, the scene holds exactly what the next beat starts from (the
        same objects a beat rendered alone builds). A segment's last hand-off is its last
        picture: the next beat's segment builds that stage for itself."""
        self.mark_hand_off(beat.name)
        beat.hand_off()
        built, self._next_stage = self._next_stage, None
        if not more and not self.audit:
            return
        self.stage = built[1] if built and built[0] is type(beat) else type(beat).leaves(self)
        if self.audit and craft.near_empty(self.stage, Role.OVERLAY):
            self.layout_log.append((beat.name, "near-empty hand-off",
                                    (round(self.renderer.time, 2), "end", "line and map only")))
        self.clear()
        self.camera.frame.set(width=config.frame_width).move_to(ORIGIN)
        self.add(*self.stage.values())

    def stage_left_by(self, beat_cls) -> Stage:
        """``beat_cls.leaves(self)``, built once per hand-off: the objects a hand-off
        animates into are the stage the next beat starts from (an animation copies its
        target, and what it fades in ends as it was), so the scene that draws on keeps them
        instead of building the same stage again (a tenth of an audited film)."""
        if self._next_stage is None or self._next_stage[0] is not beat_cls:
            self._next_stage = (beat_cls, beat_cls.leaves(self))
        return self._next_stage[1]

    def camera_home(self) -> list:
        """The animations that bring the camera back to the whole stage (none if it is)."""
        frame = self.camera.frame
        if abs(frame.width - config.frame_width) < 1e-6 and abs(frame.get_x()) < 1e-6 \
                and abs(frame.get_y()) < 1e-6:
            return []
        return [frame.animate.set(width=config.frame_width).move_to(ORIGIN)]
