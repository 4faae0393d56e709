"""The base of every beat: the trace it draws, the record of numbers it shows, captions.

A beat is a Scene subclass whose ``build()`` draws it; ``construct()`` calls ``build()``.
The full explainer runs several beats' ``build()`` on one scene, so a beat keeps its state
on ``self`` only inside ``build()`` and leaves the stage with :meth:`clear_stage`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from manim import ORIGIN, FadeOut, MovingCameraScene, Text, config

from . import style
from .numbers import format_number, lookup

TRACE_ENV = "ATTENTION_EXPLAINER_TRACE"


@dataclass(frozen=True)
class ShownNumber:
    """One number drawn on screen and where it came from."""
    beat: str
    kind: str           # a trace field or a derived quantity (scenes.numbers.DERIVED)
    index: tuple
    decimals: int
    signed: bool
    text: str           # exactly what was drawn


def load_trace_for_plain_manim():
    """When a beat is rendered by plain ``manim``, read the trace named by the
    environment, or compute the default sentence's."""
    from attention_core.trace import AttentionTrace
    path = os.environ.get(TRACE_ENV)
    if path:
        return AttentionTrace.load(path)
    from attention_core import compute_trace
    return compute_trace("The cat ate the fish")


class BeatScene(MovingCameraScene):
    beat_name = "beat"          # the name used by --beats and frames --beat
    beat_title = "Beat"         # human title (contact sheet, captions)

    def __init__(self, trace=None, **kwargs):
        self.trace = trace if trace is not None else load_trace_for_plain_manim()
        self.shown_numbers: list[ShownNumber] = []
        self.key_times: dict[str, float] = {}     # beat name -> time of its key frame
        self.beat_times: dict[str, tuple[float, float]] = {}  # beat -> (start, end)
        self._current_beat = self.beat_name
        style.register_fonts()
        super().__init__(**kwargs)

    # ---- structure ---------------------------------------------------------------
    def construct(self):
        self.run_beat(type(self))

    def run_beat(self, beat_cls) -> None:
        """Draw one beat on this scene and note where it starts, ends and peaks."""
        self._current_beat = beat_cls.beat_name
        start = self.renderer.time
        first_caption = len(self.renderer.file_writer.subcaptions)
        beat_cls.build(self)
        self._tidy_captions(first_caption)
        self.beat_times[beat_cls.beat_name] = (start, self.renderer.time)
        self.key_times.setdefault(beat_cls.beat_name, self.renderer.time)

    def build(self) -> None:
        raise NotImplementedError

    def _tidy_captions(self, first: int) -> None:
        """Captions of one beat never overlap: each ends just before the next begins
        (a reader sees one caption at a time in the .srt)."""
        import datetime

        subs = sorted(self.renderer.file_writer.subcaptions[first:], key=lambda c: c.start)
        for current, following in zip(subs, subs[1:]):
            limit = following.start - datetime.timedelta(seconds=0.05)
            if current.end > limit:
                current.end = max(limit, current.start + datetime.timedelta(seconds=0.3))

    def mark_key_frame(self) -> None:
        """Call at the moment that best shows this beat (poster, contact sheet)."""
        self.key_times[self._current_beat] = self.renderer.time

    def clear_stage(self, run_time: float = 0.8) -> None:
        """Fade everything out and put the camera back, ready for the next beat."""
        if self.mobjects:
            self.play(*[FadeOut(m) for m in self.mobjects if m is not self.camera.frame],
                      run_time=run_time, rate_func=style.EASE)
        self.clear()
        self.camera.frame.set(width=config.frame_width).move_to(ORIGIN)

    # ---- numbers -----------------------------------------------------------------
    def number(self, kind: str, index: tuple = (), *, decimals: int = 2,
               signed: bool = False, font_size: float = style.FONT_NUMBER,
               color: str | None = None, **text_kwargs) -> Text:
        """A Text of a number read from the trace, recorded for the tests."""
        text = format_number(lookup(self.trace, kind, tuple(index)), decimals, signed)
        self.shown_numbers.append(ShownNumber(self._current_beat, kind, tuple(index),
                                              decimals, signed, text))
        return Text(text, font=style.SERIF, font_size=font_size,
                    color=color or style.PALETTE.text, **text_kwargs)

    def record_number(self, kind: str, index: tuple, decimals: int, signed: bool = False) -> str:
        """Record a number drawn some other way (e.g. a DecimalNumber); returns its text."""
        text = format_number(lookup(self.trace, kind, tuple(index)), decimals, signed)
        self.shown_numbers.append(ShownNumber(self._current_beat, kind, tuple(index),
                                              decimals, signed, text))
        return text

    # ---- text --------------------------------------------------------------------
    @staticmethod
    def label(text: str, font_size: float = style.FONT_LABEL, color: str | None = None,
              **kwargs) -> Text:
        """Fixed wording of ours (not user text) in Computer Modern."""
        return Text(text, font=style.SERIF, font_size=font_size,
                    color=color or style.PALETTE.text, **kwargs)

    @staticmethod
    def user_text(text: str, font_size: float = style.FONT_TOKEN, color: str | None = None,
                  **kwargs) -> Text:
        """User text (tokens, words): plain text, never markup, font by script."""
        return style.user_text_mobject(text, font_size=font_size,
                                       color=color or style.PALETTE.text, **kwargs)
