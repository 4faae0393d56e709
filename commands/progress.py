"""Progress on a terminal: rich bars on stderr, shown only on a terminal (a log or a pipe
gets the commands' one-line results, not a bar)."""
from __future__ import annotations

from ..scenes.pipeline.render import RenderProgress

__all__ = ["RenderBar", "TerminalProgress"]


class TerminalProgress:
    """A rich progress display on stderr, shown only on a terminal (a log or a pipe gets
    the commands' one-line results, not a bar). Subclasses add their rows."""

    def __init__(self, enabled: bool, *columns: str):
        self.progress = None
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
    """Beats done of beats asked, and seconds of video drawn."""

    def __init__(self, enabled: bool):
        super().__init__(enabled, "beats  {task.fields[video]:>6.1f} s of video")

    def start(self, beats: list[str], workers: int) -> None:
        if self.progress:
            where = f"on {workers} workers" if workers > 1 else "in one process"
            self.task = self.progress.add_task(f"rendering {where}", total=len(beats),
                                               video=0.0)
            self.video = 0.0

    def on_segment(self, segment) -> None:
        if self.progress:
            self.video += segment.duration
            self.progress.update(self.task, advance=1, video=self.video)

    def finishing(self) -> None:
        if self.progress:
            self.progress.update(self.task, description="joining the MP4")

    def done(self) -> None:
        if self.progress:
            self.progress.update(self.task, description="rendered")
