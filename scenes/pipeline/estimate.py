"""How long drawing a film will take, said before it starts (and all a ``--dry-run`` does).

A beat costs its seconds of video (``facts.BeatFacts.seconds``) × the frame rate × the cost
of one frame, ``COST_PER_FRAME``: seconds on one core of the bench machine, a + b × pixels,
fitted by bench/bench_course.py. A beat in the beat cache costs nothing; the rest are
spread over the workers longest first, as ``draw.run_in_workers`` hands them out. A machine
twice as slow takes twice as long, so the figure is an estimate and is said as one.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

from ...facts import beat_facts

__all__ = ["COST_PER_FRAME", "Estimate", "LONG_WORK_SECONDS", "beat_cost", "beat_weight",
           "estimate", "spoken_seconds"]

COST_PER_FRAME = (0.0527, 4.8e-9)
# a render whose estimate passes this says the estimate in one line before it starts
LONG_WORK_SECONDS = 120.0


def beat_weight(beat: str) -> float:
    """How long ``beat`` takes to draw, relatively (its measured cost, ``BeatFacts.cost``):
    the most costly beats are handed to workers first, so that no worker idles at the
    end."""
    return beat_facts(beat).cost


def beat_cost(beat: str, width: int, height: int, fps: int) -> float:
    """Seconds on one core to draw and encode ``beat`` at this size and rate."""
    per_frame = COST_PER_FRAME[0] + COST_PER_FRAME[1] * width * height
    return beat_weight(beat) * fps * per_frame


@dataclass(frozen=True)
class Estimate:
    """What a render will draw and about how long that takes on ``workers``."""
    to_draw: tuple[str, ...]
    cached: tuple[str, ...]
    seconds: float
    workers: int

    def line(self) -> str:
        if not self.to_draw:
            return "nothing to draw: every beat is in the beat cache"
        cached = f" ({len(self.cached)} from the beat cache)" if self.cached else ""
        return (f"about {spoken_seconds(self.seconds)} to draw {len(self.to_draw)} "
                f"beat{'s' * (len(self.to_draw) != 1)}{cached} on {self.workers} "
                f"worker{'s' * (self.workers != 1)} (an estimate from a 2-core bench machine)")


def estimate(jobs, workers: int, cached=lambda job: False) -> Estimate:
    """The estimate for ``jobs`` (``plan.SegmentJob``), those for which ``cached(job)``
    holds taken from the cache, the rest on ``workers`` processes longest first."""
    held = [bool(cached(job)) for job in jobs]
    to_draw = [job for job, kept in zip(jobs, held) if not kept]
    costs = sorted((beat_cost(job.beat, job.width, job.height, job.fps) for job in to_draw),
                   reverse=True)
    loads = [0.0] * max(1, min(workers, len(costs)))
    for cost in costs:                 # each beat to the worker that is free first
        heapq.heappush(loads, heapq.heappop(loads) + cost)
    return Estimate(tuple(job.beat for job in to_draw),
                    tuple(job.beat for job, kept in zip(jobs, held) if kept),
                    max(loads), workers)


def spoken_seconds(seconds: float) -> str:
    """``seconds`` as a person says a duration: "40 s", "3 min", "1 h 5 min"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
