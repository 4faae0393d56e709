"""Progress on stderr: rich bars on a terminal; in a log or a pipe (a CI job, a notebook
cell), long work says a line per beat done instead, and short work only its results."""
from __future__ import annotations

import time

from ..app.course import CourseProgress
from ..app.progress import RenderProgress

__all__ = ["BeatLines", "CourseBar", "RenderBar", "SweepBar", "TerminalProgress"]


class TerminalProgress:
    """A rich progress display on stderr, shown only on a terminal (a log or a pipe gets
    the commands' one-line results, not a bar). Subclasses add their rows."""

    def __init__(self, enabled: bool, *columns: str):
        self.progress = None
        self.enabled = enabled
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                                   TextColumn, TimeElapsedColumn)
        console = Console(stderr=True)
        if console.is_terminal:
            self.progress = Progress(
                SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                MofNCompleteColumn(), *[TextColumn(c) for c in columns],
                TimeElapsedColumn(), console=console, transient=False)

    def __enter__(self):
        if self.progress:
            self.progress.start()
        return self

    def __exit__(self, kind, value, trace):
        if self.progress:
            if kind is not None:      # interrupted or failed: the one line says so, alone
                self.progress.live.transient = True
            self.progress.stop()


class RenderBar(TerminalProgress, RenderProgress):
    """Beats done of beats asked, and seconds of video drawn; with no terminal, for long
    work, one line per beat done (:class:`BeatLines`)."""

    def __init__(self, enabled: bool):
        super().__init__(enabled, "beats  {task.fields[video]:>6.1f} s of video")
        self.lines = None

    def long_work(self, estimate) -> None:
        if self.enabled and self.progress is None:
            self.lines = BeatLines()

    def start(self, beats: list[str], workers: int) -> None:
        if self.lines:
            self.lines.start(beats)
        if self.progress:
            where = f"on {workers} workers" if workers > 1 else "in one process"
            self.task = self.progress.add_task(f"rendering {where}", total=len(beats),
                                               video=0.0)
            self.video = 0.0

    def on_segment(self, segment) -> None:
        if self.lines:
            self.lines.done(segment)
        if self.progress:
            self.video += segment.duration
            self.progress.update(self.task, advance=1, video=self.video)

    def finishing(self) -> None:
        if self.progress:
            self.progress.update(self.task, description="joining the MP4")

    def done(self) -> None:
        if self.progress:
            self.progress.update(self.task, description="rendered")


class BeatLines:
    """One line on stderr per beat done, for a log: which beat, drawn or from the cache,
    the time so far and about how long is left (the beats still to come, weighed by their
    typical length against those done)."""

    def start(self, beats: list[str]) -> None:
        from ..app.progress import beat_weight

        self.weights = {beat: beat_weight(beat) for beat in beats}
        self.done_weight = 0.0
        self.count = 0
        self.started = time.monotonic()

    def done(self, segment) -> None:
        import click

        from ..app.progress import spoken_seconds

        self.count += 1
        self.done_weight += self.weights.get(segment.beat, 0.0)
        elapsed = time.monotonic() - self.started
        left = sum(self.weights.values()) - self.done_weight
        guess = elapsed * left / self.done_weight if self.done_weight else 0.0
        how = "from the cache" if segment.from_cache else "drawn"
        click.echo(f"beat {self.count} of {len(self.weights)} ready: {segment.beat} ({how}), "
                   f"{spoken_seconds(elapsed)} so far"
                   + (f", about {spoken_seconds(guess)} left" if left > 0 else ""), err=True)


class CourseBar(TerminalProgress, CourseProgress):
    """Beats done of all beats, and a row per output set, marked as it finishes; with no
    terminal, ``tell`` (long work: a log must not wait in silence) is told a line per
    output set done."""

    def __init__(self, plans, tell=None, enabled: bool = True):
        TerminalProgress.__init__(self, enabled)
        self.tell = tell if self.progress is None else None
        self.total, self.count, self.started = len(plans), 0, time.monotonic()
        if self.progress:
            self.all = self.progress.add_task("course (beats)",
                                              total=sum(len(p.beats) for p in plans))
            self.rows = {id(p): self.progress.add_task(f"  {p.title}", total=len(p.beats))
                         for p in plans}

    def beat(self, plan) -> None:
        if self.progress:
            self.progress.advance(self.all)
            self.progress.advance(self.rows[id(plan)])

    def finished(self, plan) -> None:
        self._line(plan, "ready")
        if self.progress:
            self.progress.update(self.rows[id(plan)], description=f"  {plan.title} ✓")

    def failed(self, plan) -> None:
        self._line(plan, "failed")
        if self.progress:
            self.progress.update(self.rows[id(plan)], description=f"  {plan.title} ✗")

    def _line(self, plan, what: str) -> None:
        from ..app.progress import spoken_seconds

        if self.tell is not None:
            self.count += 1
            self.tell(f"output set {self.count} of {self.total} {what}: {plan.title}, "
                      f"{spoken_seconds(time.monotonic() - self.started)} so far")


class SweepBar(TerminalProgress):
    """`experiment heads`: a bar per configuration (training steps done of its steps),
    marked with its accuracy as it finishes; with no terminal, a line per configuration
    done (the sweep takes minutes: a log must not wait in silence)."""

    def __init__(self, enabled: bool):
        super().__init__(enabled)
        self.enabled = enabled

    def start(self, plan: list[tuple[int, int]], steps: int) -> None:
        self.plan, self.count, self.started = plan, 0, time.monotonic()
        if self.progress:
            self.rows = [self.progress.add_task(f"{h} head{'s' * (h != 1)}, seed {seed}",
                                                total=steps) for h, seed in plan]

    def step(self) -> None:
        if self.progress:
            self.progress.advance(self.rows[self.count])

    def done(self, run) -> None:
        import click

        from ..app.progress import spoken_seconds

        said = (f"{run.heads} head{'s' * (run.heads != 1)}, seed {run.seed}: "
                f"{100 * run.accuracy:.1f} %")
        if self.progress:
            self.progress.update(self.rows[self.count], description=f"{said} ✓")
        elif self.enabled:
            elapsed = time.monotonic() - self.started
            click.echo(f"{self.count + 1} of {len(self.plan)}: {said}, "
                       f"{spoken_seconds(elapsed)} so far", err=True)
        self.count += 1
