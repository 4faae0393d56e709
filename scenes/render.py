"""Rendering API: an AttentionTrace -> an MP4 (plus captions, poster and trace), or stills.

The CLI calls :func:`render_video` and :func:`render_stills`; nothing here parses command
lines. Manim is configured per call with ``tempconfig`` and the scene is constructed inside
that block (manim 0.22 fixes the output plan and encoder size in ``Scene.__init__``).

Frames for posters and stills are the renderer's raw RGBA frames, captured as they are
handed to the file writer: never decoded from the MP4 (yuv420p changes pixels).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time as wallclock
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..outputs import temp_beside
from . import style
from .film import FilmScene
from .formats import check_fps, check_size
from .registry import parse_beats
from .stage import frame_size

# ---- frame capture -------------------------------------------------------------------
def _capturing_writer_class():
    """A SceneFileWriter that also keeps chosen raw frames (imported lazily: manim)."""
    from manim.scene.scene_file_writer import SceneFileWriter

    class FrameCaptureWriter(SceneFileWriter):
        """Counts the frames handed to the writer and keeps the ones asked for.

        Frame n shows time n / fps. Requests are by frame index (known in advance) or
        "the next frame written" (a key frame marked now) or "the last frame written".
        """

        def __init__(self, settings):
            super().__init__(settings)
            self.frames_written = 0
            self.last_frame: np.ndarray | None = None
            self.wanted: dict[int, list[str]] = defaultdict(list)
            self.captured: dict[str, np.ndarray] = {}
            self.on_frames: Callable[[int], None] | None = None

        def want(self, index: int, label: str) -> None:
            self.wanted[index].append(label)

        def want_next(self, label: str) -> None:
            self.want(self.frames_written, label)

        def keep_last(self, label: str) -> None:
            if self.last_frame is not None:
                self.captured[label] = self.last_frame

        def write_frame(self, pixels, *, repeat: int = 1) -> None:
            # copy before handing over: the writer owns `pixels` and may encode it later
            kept = pixels.copy()
            super().write_frame(pixels, repeat=repeat)
            first = self.frames_written
            self.frames_written += repeat
            for index in [i for i in self.wanted if first <= i < self.frames_written]:
                for label in self.wanted.pop(index):
                    self.captured[label] = kept
            self.last_frame = kept
            if self.on_frames is not None:
                self.on_frames(self.frames_written)

    return FrameCaptureWriter


def _capturing_scene_class():
    """A FilmScene whose key frames and beat ends are captured by the writer."""

    class CapturingFilm(FilmScene):
        on_beat: Callable[[str, str], None] | None = None   # (event, beat name)
        snapshot_key_frames = False   # with a segment cache, cached plays write no frames

        def mark_key_frame(self, beat: str) -> None:
            super().mark_key_frame(beat)
            label = f"key:{beat}"
            writer = self.renderer.file_writer
            writer.want_next(label)
            if self.snapshot_key_frames:
                # draw the current state directly; every play re-derives its static
                # background afterwards, so this leaves no trace in the video
                self.renderer.static_image = None
                self.renderer.update_frame(self)
                writer.captured[label] = self.renderer.get_frame()

        def clear_stage(self, beat: str) -> None:
            self.renderer.file_writer.keep_last(f"end:{beat}")
            super().clear_stage(beat)

        def run_beat(self, beat_cls) -> None:
            if self.on_beat:
                self.on_beat("start", beat_cls.name)
            super().run_beat(beat_cls)
            if self.on_beat:
                self.on_beat("end", beat_cls.name)

    return CapturingFilm


def _manim_config(width: int, height: int, fps: int, *, fmt: str, media_dir: Path,
                  output_file: Path | None, caching: bool) -> dict:
    conf = {
        "format": fmt,
        "pixel_width": width,
        "pixel_height": height,
        "frame_rate": fps,
        "media_dir": str(media_dir),
        "video_dir": str(media_dir / "videos"),
        "images_dir": str(media_dir / "images"),
        "partial_movie_dir": str(media_dir / "partial_movie_files" / "{scene_name}"),
        "text_dir": str(media_dir / "texts"),
        "output_file": str(output_file) if output_file else "",
        "background_color": style.BACKGROUND,
        "seed": style.SEED,
        "disable_caching": not caching,
        "max_files_cached": 2000,     # the explainer has a few hundred plays
        "verbosity": "ERROR",
        "progress_bar": "none",
        "log_to_file": False,
        "preview": False,
        "write_all": False,
        "save_sections": False,
        "from_animation_number": 0,
        "upto_animation_number": -1,
    }
    conf.update(frame_size(width, height))
    return conf


def _make_scene(trace, beats, **hooks):
    """Construct the capturing film (call inside tempconfig)."""
    from manim import MovingCamera
    from manim.renderer.cairo_renderer import CairoRenderer

    scene_cls = _capturing_scene_class()
    renderer = CairoRenderer(file_writer_class=_capturing_writer_class(),
                             camera_class=MovingCamera)
    scene = scene_cls(trace, beats=beats, renderer=renderer)
    for name, value in hooks.items():
        setattr(scene, name, value)
    return scene


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """Turn SIGTERM into KeyboardInterrupt while rendering, so the clean-up runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt("terminated (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
    """A rich progress bar: beats done of beats asked, and seconds of video drawn."""

    def __init__(self, beats: list[str], fps: int, enabled: bool):
        self.enabled = enabled
        self.fps = fps
        self.beats = beats
        self.progress = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                                   TextColumn, TimeElapsedColumn)
        self.progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
            MofNCompleteColumn(), TextColumn("beats  {task.fields[video]:>6.1f} s of video"),
            TimeElapsedColumn(), console=Console(stderr=True), transient=False)
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


def _write_outputs(scene, names, trace, raw_video: Path, finals: dict, temps: dict) -> None:
    """Write the MP4 (faststart), captions, poster and trace to temporary files beside
    their final paths (``temps`` keeps them, for clean-up), then rename them into place,
    the video last."""
    from PIL import Image

    writer = scene.renderer.file_writer
    temps["video"] = temp_beside(finals["video"])
    remux_faststart(raw_video, temps["video"])
    raw_captions = raw_video.with_suffix(".srt")
    if raw_captions.is_file():
        temps["captions"] = temp_beside(finals["captions"])
        shutil.copyfile(raw_captions, temps["captions"])
    poster_beat = "pull" if "pull" in names else names[-1]
    frame = (writer.captured.get(f"key:{poster_beat}")
             if f"key:{poster_beat}" in writer.captured
             else writer.captured.get(f"end:{poster_beat}", writer.last_frame))
    if frame is None:
        raise RuntimeError("no frame was captured for the poster")
    temps["poster"] = temp_beside(finals["poster"])
    Image.fromarray(np.asarray(frame)[..., :3]).save(temps["poster"], format="PNG")
    temps["trace"] = temp_beside(finals["trace"])
    trace.save(temps["trace"])
    for kind in ("trace", "poster", "captions", "video"):
        if kind in temps:
            os.replace(temps.pop(kind), finals[kind])


def render_video(trace, *, beats: list[str], width: int, height: int, fps: int,
                 output: Path, progress: bool = True,
                 cache_dir: Path | None = None) -> RenderResult:
    """Render the explainer's ``beats`` for ``trace`` into ``output`` (an .mp4).

    Writes, beside it, ``<name>.srt`` (captions), ``<name>.png`` (the poster: the pull
    beat's key frame, else the last beat's) and ``<name>.npz`` (the trace). Everything is
    written to temporary files in the output folder and renamed into place only once all
    succeeded: a failed or interrupted render (KeyboardInterrupt, SIGTERM) leaves no
    temporary file and any previous files at those paths untouched.

    ``cache_dir`` keeps manim's per-animation segments between renders (re-renders of
    unchanged beats are then mostly copies); without it every frame is drawn afresh.
    """
    from manim import tempconfig

    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats(beats)
    output = Path(output).absolute()
    if output.suffix.lower() != ".mp4":
        raise ValueError(f"output {output.name!r} must end in .mp4")
    output.parent.mkdir(parents=True, exist_ok=True)
    finals = {"video": output, "captions": output.with_suffix(".srt"),
              "poster": output.with_suffix(".png"), "trace": output.with_suffix(".npz")}
    started = wallclock.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="attention-explainer-"))
    temps: dict[str, Path] = {}
    try:
        with _sigterm_as_interrupt():
            try:
                media_dir = Path(cache_dir).absolute() if cache_dir else scratch / "media"
                raw_video = scratch / "explainer.mp4"
                conf = _manim_config(width, height, fps, fmt="mp4", media_dir=media_dir,
                                     output_file=raw_video, caching=cache_dir is not None)
                with _Progress(names, fps, progress) as bar:
                    with tempconfig(conf):
                        scene = _make_scene(trace, names, on_beat=bar.on_beat,
                                            snapshot_key_frames=cache_dir is not None)
                        scene.renderer.file_writer.on_frames = bar.on_frames
                        scene.render()
                    bar.finishing()
                    if not raw_video.is_file():
                        raise RuntimeError("manim wrote no video (the beats played nothing)")

                    _write_outputs(scene, names, trace, raw_video, finals, temps)
                    bar.done()
            except BaseException:
                for path in temps.values():
                    with contextlib.suppress(OSError):
                        path.unlink()
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    return RenderResult(
        video=finals["video"],
        captions=finals["captions"] if finals["captions"].is_file() and
        "captions" not in temps else None,
        poster=finals["poster"], trace=finals["trace"],
        width=width, height=height, fps=fps,
        duration=float(scene.renderer.time),
        beats=names,
        beat_times=dict(scene.beat_times),
        key_times=dict(scene.key_times),
        shown_numbers=list(scene.shown_numbers),
        render_seconds=wallclock.perf_counter() - started,
    )


# ---- stills ----------------------------------------------------------------------------
def still_label(when: float | str) -> str:
    """The name of a requested still: "key", "end", or seconds like "2.50s"."""
    if isinstance(when, str):
        return when
    return f"{float(when):.2f}s"


def render_stills(trace, *, beat: str, times: list[float | str], width: int, height: int,
                  fps: int = 30) -> dict:
    """Raw frames of one beat, rendered alone, captured in memory (no video written).

    ``times``: seconds from the beat's start (frame round(t * fps)), "key" (the beat's key
    frame) or "end" (the last frame before the beat clears its stage). Returns
    {still_label(t): RGB image}. Bit-identical across runs on one machine image.
    """
    from manim import tempconfig
    from PIL import Image

    width, height = check_size(width, height)
    fps = check_fps(fps)
    names = parse_beats([beat])
    if len(names) != 1:
        raise ValueError("render_stills draws one beat")
    wanted: dict[str, int | str] = {}
    for when in times:
        if isinstance(when, str):
            if when not in ("key", "end"):
                raise ValueError(f"still time {when!r}: use seconds, 'key' or 'end'")
            wanted[when] = when
        else:
            seconds = float(when)
            if not np.isfinite(seconds) or seconds < 0:
                raise ValueError(f"still time {when!r} must be seconds >= 0")
            wanted[still_label(when)] = int(round(seconds * fps))
    if not wanted:
        raise ValueError("no still times given")

    scratch = Path(tempfile.mkdtemp(prefix="attention-stills-"))
    try:
        conf = _manim_config(width, height, fps, fmt="none", media_dir=scratch,
                             output_file=None, caching=False)
        with tempconfig(conf):
            scene = _make_scene(trace, names)
            writer = scene.renderer.file_writer
            for label, index in wanted.items():
                if isinstance(index, int):
                    writer.want(index, label)
            scene.render()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    stills = {}
    for label, index in wanted.items():
        key = f"{index}:{names[0]}" if isinstance(index, str) else label
        frame = writer.captured.get(key)
        if frame is None and index == "end":
            frame = writer.last_frame
        if frame is None:
            duration = writer.frames_written / fps
            raise ValueError(f"still at {label}: beat {beat!r} is only {duration:.2f} s long "
                             f"({writer.frames_written} frames at {fps} fps)")
        stills[label] = Image.fromarray(np.asarray(frame)[..., :3].copy())
    return stills
