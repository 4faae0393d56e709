"""The first step of a render: the film planned as segments, one task per beat.

A :class:`SegmentJob` holds everything that changes one beat's pixels; its :meth:`key
<SegmentJob.key>` names the beat's entry in the beat cache. :func:`plan_film` checks the
size, rate, beats and quality asked for and gives the film's jobs in storyboard order.
Nothing is drawn here.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ...attention_core.errors import InputError
from ...facts import DEFAULT_QUALITY, QUALITIES, beat_facts
from ..film.registry import parse_beats
from ..film.settings import FilmSettings
from . import encoding
from .beat_cache import entry_key
from .formats import check_fps, check_size

__all__ = ["SegmentJob", "plan_film"]


@dataclass(frozen=True)
class SegmentJob:
    """One beat of one film at one size: everything that changes its pixels."""

    beat: str
    hands_off: bool           # False for the film's last beat (it holds, then the film ends)
    follows: bool             # its storyboard predecessor is drawn just before it (its stage
    #                           carries over, line too); False: the first beat, or one after
    #                           a gap, which opens on the predecessor's stage without its line
    width: int
    height: int
    fps: int
    theme: str
    quality: str
    trace_fingerprint: str
    audit: bool = False
    hold_extra: float = 0.0   # seconds more on its last picture (a narrated beat's voice)
    caption_seconds: tuple = ()   # the least each caption stays up (a spoken caption's voice)
    caption_words: tuple = ()     # the user's words for its captions, in order (--captions)
    brief: bool = False           # a short film's beat (--length): its holds at their floor
    settings: FilmSettings = FilmSettings()   # the film's settings (--pace, ...), whole

    def key(self) -> str:
        """The name of this beat's entry in the beat cache (``beat_cache.entry_key``)."""
        return entry_key(kind="beat", **asdict(self),
                         encoder=encoding.options(self.quality, self.width, self.height,
                                                  self.fps))


def plan_film(trace, beats, *, width: int, height: int, fps: int,
              quality: str = DEFAULT_QUALITY, audit: bool = False,
              theme: str | None = None, brief: bool = False,
              settings: FilmSettings | None = None) -> list[SegmentJob]:
    """The film of ``beats`` (any form ``parse_beats`` reads) as tasks, in storyboard
    order; every beat but the last hands its stage on. ``theme``: the palette's name (None:
    the one in use); ``brief``: a short film's (its holds at their floor); ``settings``: the
    film's settings (``film.settings``; None: their defaults). The only maker of segment jobs: a
    render, a dry run, a film's timing and a course's worker all plan here. Raises
    InputError for a size, a rate, a beat or a quality that cannot be rendered."""
    from ..vocabulary import style

    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats(beats, trace)
    if quality not in QUALITIES:
        raise InputError(f"quality {quality!r} is unknown; use {' or '.join(QUALITIES)}.")
    versus = getattr(trace, "versus", None)      # a minimal pair's sentence B
    if "versus" in names and versus is None:
        raise InputError(f"the versus beat needs {beat_facts('versus').needs}.")
    fingerprint = trace.fingerprint() + (f"+{versus.fingerprint()}" if versus else "")
    return [SegmentJob(beat=name, hands_off=n < len(names) - 1, follows=follows(names, n, trace),
                       width=width, height=height, fps=fps,
                       theme=theme or style.theme_name(),
                       quality=quality, trace_fingerprint=fingerprint, audit=audit,
                       brief=brief, settings=settings or FilmSettings())
            for n, name in enumerate(names)]


def follows(names: list[str], n: int, trace=None) -> bool:
    """Whether beat ``n`` of ``names`` (``trace``'s film) comes right after the beat whose
    stage it starts from (or after an optional beat that hands that stage on)."""
    from ..film.registry import hands_on, previous_beat

    return n > 0 and hands_on(names[n - 1], trace) == previous_beat(names[n], trace)
