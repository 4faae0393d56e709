"""The beat protocol: a :class:`Beat` is a short script over the vocabulary; the
:class:`FilmScene` runs beats one after another and does their bookkeeping once.

A beat writes only its ``script()``: sections of plays with ``# ----`` headers, ending at
the moment that best shows it. The film then marks that key frame, holds it for
``Beat.hold`` seconds, stretches the beat's captions over the steps they explain and
clears the stage for the next beat. The numbers a beat draws come from its ``book``.

    class SummaryBeat(Beat):
        name = "summary"

        def script(self):
            grid = make_grid(...)
            self.play(FadeIn(grid), subcaption="All of head 11's weights at once")
"""
from __future__ import annotations

from manim import ORIGIN, FadeOut, MovingCameraScene, config

from . import fastcopy, style
from .captions import caption_count, hold_captions, separate_captions
from .readouts import NumberBook
from .registry import load_beat, parse_beats


class Beat:
    """One beat of the explainer. Subclasses set ``name`` (as in the registry) and
    ``hold`` and write :meth:`script`; the verbs below read as a script's."""

    name = ""
    hold = style.T_HOLD       # stillness on the key frame before the stage clears

    def __init__(self, film: "FilmScene"):
        self.film = film
        self.trace = film.trace
        self.book = film.book

    def script(self) -> None:
        raise NotImplementedError

    # ---- verbs ----------------------------------------------------------------------
    def play(self, *animations, **kwargs) -> None:
        self.film.play(*animations, **kwargs)

    def wait(self, duration: float = style.T_PAUSE) -> None:
        self.film.wait(duration)

    def add(self, *mobjects) -> None:
        self.film.add(*mobjects)

    def remove(self, *mobjects) -> None:
        self.film.remove(*mobjects)

    def caption(self, text: str, duration: float, offset: float = 0.0) -> None:
        """A caption starting ``offset`` seconds from now (for steps played without one)."""
        self.film.add_subcaption(text, duration=duration, offset=offset)

    def number(self, kind: str, index: tuple = (), **kwargs):
        """A Text of a number from the trace, recorded (see ``NumberBook.text_mobject``)."""
        return self.book.text_mobject(kind, index, **kwargs)

    def record(self, kind: str, index: tuple = (), decimals: int = 2,
               signed: bool = False) -> str:
        """The text of a number drawn some other way (or said in a caption), recorded."""
        return self.book.text(kind, index, decimals, signed)


class FilmScene(MovingCameraScene):
    """The beats of ``beats`` (default: all) played in storyboard order on one scene.

    Keeps the trace drawn, the ``book`` of numbers shown, and each beat's start, end and
    key frame time. Constructed with no trace (as plain ``manim`` does) it draws the trace
    named by $ATTENTION_EXPLAINER_TRACE, else the shipped default sentence's.
    """

    default_beats: tuple[str, ...] | None = None     # plain-manim scenes set one beat

    def __init__(self, trace=None, beats=None, **kwargs):
        if trace is None:
            from ..attention_core.trace import trace_from_environment
            trace = trace_from_environment()
        self.trace = trace
        self.book = NumberBook(trace)
        self.beat_names = parse_beats(beats if beats is not None else self.default_beats)
        # import every beat before any frame is drawn: a missing one fails fast
        self.beat_classes = [load_beat(name) for name in self.beat_names]
        self.key_times: dict[str, float] = {}                  # beat -> key frame time
        self.beat_times: dict[str, tuple[float, float]] = {}   # beat -> (start, end)
        style.register_fonts()
        fastcopy.install()
        super().__init__(**kwargs)

    @property
    def shown_numbers(self):
        return self.book.shown

    def construct(self) -> None:
        for beat_cls in self.beat_classes:
            self.run_beat(beat_cls)

    def run_beat(self, beat_cls) -> None:
        """Play one beat and do its bookkeeping: key frame, hold, captions, clear stage."""
        self.book.beat = beat_cls.name
        start = self.renderer.time
        first_caption = caption_count(self)
        beat = beat_cls(self)
        beat.script()
        self.mark_key_frame(beat_cls.name)
        self.wait(beat.hold)
        hold_captions(self, first_caption)
        self.clear_stage(beat_cls.name)
        separate_captions(self, first_caption)
        self.beat_times[beat_cls.name] = (start, self.renderer.time)

    def mark_key_frame(self, beat: str) -> None:
        """Now is the moment that best shows ``beat`` (poster, contact sheet, goldens)."""
        self.key_times[beat] = self.renderer.time

    def clear_stage(self, beat: str) -> None:
        """Fade everything out and put the camera back, ready for the next beat."""
        if self.mobjects:
            self.play(*[FadeOut(m) for m in self.mobjects if m is not self.camera.frame],
                      run_time=style.T_CLEAR, rate_func=style.EASE)
        self.clear()
        self.camera.frame.set(width=config.frame_width).move_to(ORIGIN)
