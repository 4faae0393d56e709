"""A film of a chosen length (``--length short|full|SECONDS``), by rule: the first beat (the
film's question) and the last (its answer) always stay, every hold is at its floor
(``SegmentJob.brief``), and the other beats are kept in ``facts.KEPT_FIRST``'s order while
the film, timed without drawing a frame, fits. What is kept and what is left out is said.
The numbers are the same: a short film is the same beats of the same trace, fewer of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..facts import KEPT_FIRST
from ..scenes.film.registry import parse_beats
from ..scenes.pipeline.plan import plan_film
from ..scenes.pipeline.render import timed_segments
from ..scenes.vocabulary.style import T_HOLD_FLOOR

__all__ = ["FittedFilm", "fitted_film"]


@dataclass(frozen=True)
class FittedFilm:
    """The tasks of a film fitted to a length, and what to say of it."""
    tasks: list
    seconds: float           # its length, timed
    kept: list[str]
    left_out: list[str]
    target: float
    timed: list = field(default=(), repr=False)    # its segments as timed (captions, frames)

    def line(self) -> str:
        """The one line that says which beats the film keeps and how long it is."""
        fits = "" if self.seconds <= self.target + 1e-6 else \
            f" (the shortest this film can be: over {self.target:.0f} s)"
        left = f"; left out: {', '.join(self.left_out)}" if self.left_out else ""
        return (f"--length {self.target:.0f} s: {self.seconds:.0f} s{fits}, beats "
                f"{', '.join(self.kept)}{left}; holds at {T_HOLD_FLOOR:g} s")


def _ranked(names: list[str]) -> list[str]:
    """The beats between the first and the last, in the order they are kept."""
    middle = names[1:-1]
    return sorted(middle, key=lambda b: (KEPT_FIRST.index(b) if b in KEPT_FIRST
                                         else len(KEPT_FIRST) + names.index(b)))


def _timed(trace, names, plan: dict, workers: int, cache_folder) -> tuple[list, list]:
    tasks = plan_film(trace, names, brief=True, **plan)
    return tasks, timed_segments(tasks, trace, workers, cache_folder)


def fitted_film(trace, beats, target: float, *, workers: int, cache_folder=None,
                **plan) -> FittedFilm:
    """The film of ``beats`` (any form ``parse_beats`` reads) fitted to ``target``
    seconds. ``plan``: ``plan_film``'s size, rate, quality and audit."""
    names = parse_beats(beats, trace)
    _, segments = _timed(trace, names, plan, workers, cache_folder)
    seconds = {s.beat: s.frames / s.fps for s in segments}
    kept = [names[0]] + ([names[-1]] if len(names) > 1 else [])
    total = sum(seconds[b] for b in kept)
    for beat in _ranked(names):             # by each beat's own time in the whole film
        if total + seconds[beat] <= target:
            kept.append(beat)
            total += seconds[beat]
    order = [b for b in names if b in kept]
    added = [b for b in _ranked(names) if b in kept]
    while True:                             # exactly: a beat's neighbours change its time
        tasks, timed = _timed(trace, order, plan, workers, cache_folder)
        total = sum(s.frames / s.fps for s in timed)
        if total <= target or not added:
            break
        order.remove(added.pop())
    return FittedFilm(tasks, total, order, [b for b in names if b not in order], target,
                      timed)
