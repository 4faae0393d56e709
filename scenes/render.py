"""Rendering API: an AttentionTrace -> an MP4 (plus captions, poster and trace), or stills.

The CLI calls :func:`render_video` and :func:`render_stills`; nothing here parses command
lines. Manim is configured per call with ``tempconfig`` and the scene is constructed inside
that block (manim 0.22 fixes the output plan and encoder size in ``Scene.__init__``).

Frames for posters and stills are the renderer's raw RGBA frames (``capture``), never
decoded from the MP4.
"""
from __future__ import annotations

import shutil
import time as wallclock
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..attention_core.errors import InputError
from ..outputs import OutputSet, scratch_folder, sigterm_as_interrupt, video_outputs
from .capture import make_film, manim_config
from .formats import check_fps, check_size
from .registry import parse_beats

# ---- video -----------------------------------------------------------------------------
@dataclass
class RenderResult:
    video: Path
    captions: Path | None
    poster: Path
    trace: Path
    width: int
    height: int
    fps: int
    duration: float                                   # seconds of video
    beats: list[str]
    beat_times: dict[str, tuple[float, float]]        # beat -> (start, end) seconds
    key_times: dict[str, float]                       # beat -> key frame time
    shown_numbers: list = field(default_factory=list)  # readouts.ShownNumber records
    render_seconds: float = 0.0                        # wall time of the render
    audit_log: list = field(default_factory=list)      # with audit=True: (beat, problem, detail)
    screen_texts: dict = field(default_factory=dict)   # with audit=True: beat -> texts seen


def remux_faststart(source: Path, target: Path) -> None:
    """Copy the video stream into an MP4 with the index (moov) first, so players and
    browsers start playing before the whole file has arrived. No re-encoding."""
    import av

    with av.open(str(source)) as src, \
            av.open(str(target), "w", format="mp4", options={"movflags": "+faststart"}) as dst:
        in_stream = src.streams.video[0]
        out_stream = dst.add_stream_from_template(template=in_stream)
        for packet in src.demux(in_stream):
            if packet.dts is None:      # demux's flushing packets
                continue
            packet.stream = out_stream
            dst.mux(packet)


class _Progress:
    """A rich progress bar: beats done of beats asked, and seconds of video drawn. Shown
    only on a terminal (a log or a pipe gets the one-line result, not the bar)."""

    def __init__(self, beats: list[str], fps: int, enabled: bool):
        self.fps = fps
        self.beats = beats
        self.progress = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                                   TextColumn, TimeElapsedColumn)
        console = Console(stderr=True)
        if not console.is_terminal:
            return
        self.progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
            MofNCompleteColumn(), TextColumn("beats  {task.fields[video]:>6.1f} s of video"),
            TimeElapsedColumn(), console=console, transient=False)
        self.task = self.progress.add_task("rendering", total=len(beats), video=0.0)
        self._last_update = 0

    def __enter__(self):
        if self.progress:
            self.progress.start()
        return self

    def __exit__(self, *exc):
        if self.progress:
            self.progress.stop()

    def on_beat(self, event: str, name: str) -> None:
        if not self.progress:
            return
        if event == "start":
            self.progress.update(self.task, description=f"rendering {name}")
        else:
            self.progress.advance(self.task)

    def on_frames(self, frames: int) -> None:
        if self.progress and frames - self._last_update >= self.fps // 2 + 1:
            self._last_update = frames
            self.progress.update(self.task, video=frames / self.fps)

    def finishing(self) -> None:
        if self.progress:
            self.progress.update(self.task, description="writing the MP4")

    def done(self) -> None:
        if self.progress:
            self.progress.update(self.task, description="rendered")


def _write_outputs(scene, names, trace, raw_video: Path, outputs: OutputSet) -> None:
    """Write the MP4 (faststart), captions, poster and trace into the output set."""
    from PIL import Image

    writer = scene.renderer.file_writer
    remux_faststart(raw_video, outputs.path("video"))
    raw_captions = raw_video.with_suffix(".srt")
    if raw_captions.is_file():
        shutil.copyfile(raw_captions, outputs.path("captions"))
    else:
        outputs.path("captions").write_text("", encoding="utf-8")
    poster_beat = "pull" if "pull" in names else names[-1]
    frame = (writer.captured.get(f"key:{poster_beat}")
             if f"key:{poster_beat}" in writer.captured
             else writer.captured.get(f"end:{poster_beat}", writer.last_frame))
    if frame is None:
        raise RuntimeError("no frame was captured for the poster")
    Image.fromarray(np.asarray(frame)[..., :3]).save(outputs.path("poster"), format="PNG")
    trace.save(outputs.path("trace"))


def render_video(trace, *, beats, width: int, height: int, fps: int, output: Path | None = None,
                 force: bool = False, outputs: OutputSet | None = None, progress: bool = True,
                 report=None, cache_dir: Path | None = None, audit: bool = False
                 ) -> RenderResult:
    """Render the explainer's ``beats`` for ``trace`` into ``output`` (an .mp4).

    Writes, beside it, ``<name>.srt`` (captions), ``<name>.png`` (the poster: the pull
    beat's key frame, else the last beat's) and ``<name>.npz`` (the trace), as one set
    (``outputs``, checked beforehand by the caller, or made from ``output`` and ``force``):
    all new or, after a failure or an interrupt (Ctrl-C, SIGTERM), all as before.
    ``report`` receives one-line notes (stale files removed). ``cache_dir`` keeps manim's
    per-animation segments between renders; without it every frame is drawn afresh.
    ``audit`` (tests) checks every step for small texts and glyph morphs and keeps the
    texts seen on screen.
    """
    from manim import tempconfig

    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats(beats)
    if outputs is None:
        outputs = video_outputs(output, force=force).check()
    started = wallclock.perf_counter()
    with sigterm_as_interrupt(), outputs.opened(report=report), \
            _Progress(names, fps, progress) as bar:
        scratch = outputs.scratch
        media_dir = Path(cache_dir).absolute() if cache_dir else scratch / "media"
        raw_video = scratch / "explainer.mp4"
        conf = manim_config(width, height, fps, fmt="mp4", media_dir=media_dir,
                             output_file=raw_video, caching=cache_dir is not None)
        with tempconfig(conf):
            scene = make_film(trace, names, on_beat=bar.on_beat,
                              snapshot_key_frames=cache_dir is not None, audit=audit)
            scene.renderer.file_writer.on_frames = bar.on_frames
            scene.render()
        bar.finishing()
        if not raw_video.is_file():
            raise RuntimeError("manim wrote no video (the beats played nothing)")
        _write_outputs(scene, names, trace, raw_video, outputs)
        finals = outputs.commit()
        bar.done()
    video, captions, poster, trace_file = finals
    return RenderResult(
        video=video, captions=captions, poster=poster, trace=trace_file,
        width=width, height=height, fps=fps, duration=float(scene.renderer.time),
        beats=names, beat_times=dict(scene.beat_times), key_times=dict(scene.key_times),
        shown_numbers=list(scene.shown_numbers),
        render_seconds=wallclock.perf_counter() - started,
        audit_log=list(scene.audit_log), screen_texts=dict(scene.screen_texts))


# ---- stills ----------------------------------------------------------------------------
def still_label(when: float | str) -> str:
    """The name of a requested still: "key", "end", or seconds like "2.50s"."""
    if isinstance(when, str):
        return when
    return f"{float(when) + 0.0:.2f}s"      # + 0.0: -0 is written 0.00


def _wanted_frames(times, fps: int) -> dict[str, int | str]:
    wanted: dict[str, int | str] = {}
    for when in times:
        if isinstance(when, str):
            if when not in ("key", "end"):
                raise InputError(f"still time {when!r}: use seconds, 'key' or 'end'.")
            wanted[when] = when
        else:
            seconds = float(when)
            if not np.isfinite(seconds) or seconds < 0:
                raise InputError(f"still time {when!r} must be seconds >= 0.")
            wanted[still_label(when)] = int(round(seconds * fps))
    if not wanted:
        raise InputError("no still times given.")
    return wanted


def render_stills(trace, *, beat: str, times: list[float | str], width: int, height: int,
                  fps: int = 30) -> dict:
    """Raw frames of one beat, rendered alone, drawing only the frames asked for.

    ``times``: seconds from the beat's start (frame round(t * fps)), "key" (the beat's key
    frame) or "end" (its last frame, before the stage clears). Everything between is
    skipped, not animated, so a still costs little more than building the beat. Returns
    {still_label(t): RGB image}, each exactly the frame a video render would show there.
    """
    from manim import tempconfig
    from PIL import Image

    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats([beat])
    if len(names) != 1:
        raise InputError("render_stills draws one beat.")
    wanted = _wanted_frames(times, fps)
    with scratch_folder("stills-") as scratch, \
            tempconfig(manim_config(width, height, fps, fmt="none", media_dir=scratch,
                                    output_file=None, caching=False)):
        scene = make_film(trace, names, stills=True, want_ends="end" in wanted)
        writer = scene.renderer.file_writer
        for label, index in wanted.items():
            if isinstance(index, int):
                writer.want(index, label)
            writer.expected.add(label if isinstance(index, int) else f"{index}:{names[0]}")
        scene.render()
    stills = {}
    for label, index in wanted.items():
        frame = writer.captured.get(f"{index}:{names[0]}" if isinstance(index, str) else label)
        if frame is None:
            duration = writer.frames_written / fps
            raise InputError(f"--at {label}: the {beat} beat is only {duration:.2f} s long "
                             f"({writer.frames_written} frames at {fps} fps); ask for a time "
                             f"from 0 to {max(duration - 1 / fps, 0):.2f}, key or end.")
        stills[label] = Image.fromarray(np.asarray(frame)[..., :3].copy())
    return stills
