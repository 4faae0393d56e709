"""How a render draws and keeps frames: manim's configuration for one render, a file writer
that keeps the raw frames asked for, a renderer that draws *only* the frames asked for,
and the film that asks for key frames and beat ends.

Frames for posters and stills are the renderer's raw RGBA frames, never decoded from the
MP4 (yuv420p changes pixels). Frame n of a render shows time n / fps.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Callable

import numpy as np
from manim import MovingCamera
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene.scene_file_writer import SceneFileWriter
from manim.scene.video_segment_encoder import VideoSegmentEncoder
from manim.utils.exceptions import EndSceneEarlyException

from . import style
from .film import FilmScene
from .stage import frame_size


def manim_config(width: int, height: int, fps: int, *, fmt: str, media_dir: Path,
                 output_file: Path | None, encoder: dict | None = None) -> dict:
    """Everything manim needs for one render, every key spelt out (``tempconfig`` drops
    misspelt keys silently, and leftovers of an earlier render must not leak in)."""
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
        # our beat cache keeps whole beats; manim's per-play cache would hash every
        # mobject of every play for nothing
        "disable_caching": True,
        "video_encoder_options": dict(encoder or {}),
        # one play is encoded while the next is drawn (the default, 1, waits for each)
        "max_inflight_encoders": 2,
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


class HeldFrameEncoder(VideoSegmentEncoder):
    """Encodes a frame shown ``repeat`` times (a wait, a hold) after converting it to the
    encoder's pixel format once, not once per repeat (an 8 MB RGBA frame at 1080p)."""

    def write_frame(self, pixels, *, repeat: int = 1) -> None:
        if repeat == 1:
            return super().write_frame(pixels, repeat=1)
        import av
        from fractions import Fraction

        self._validate_frame(pixels, repeat)
        stream = self._stream
        frame = av.VideoFrame.from_ndarray(pixels, format="rgba").reformat(
            format=stream.pix_fmt, width=stream.width, height=stream.height)
        frame.time_base = Fraction(self.spec.frame_rate.denominator,
                                   self.spec.frame_rate.numerator)
        try:
            for _ in range(repeat):
                frame.pts = self._next_pts
                self._next_pts += 1
                for packet in stream.encode(frame):
                    self._container.mux(packet)
        except BaseException as error:
            raise self._operation_error("encode", error) from error


class FrameCaptureWriter(SceneFileWriter):
    """Counts the frames handed to the writer and keeps the ones asked for.

    Requests are by frame index (known in advance), "the next frame written" (a key frame
    marked now) or "the last frame written" (a beat's end). Frames are kept by reference:
    the renderer hands over a fresh array for every frame and nothing changes it.
    """

    def __init__(self, settings):
        super().__init__(settings)
        self.frames_written = 0
        self.last_frame: np.ndarray | None = None
        self.wanted: dict[int, list[str]] = defaultdict(list)
        self.captured: dict[str, np.ndarray] = {}
        self.expected: set[str] = set()      # stills: once all are captured, the render stops
        self.on_frames: Callable[[int], None] | None = None

    def _create_segment_encoder(self, target: Path) -> VideoSegmentEncoder:
        return HeldFrameEncoder(target=target, spec=self.video_encoder)

    def want(self, index: int, label: str) -> None:
        self.wanted[index].append(label)

    def want_next(self, label: str) -> None:
        self.want(self.frames_written, label)

    def keep_last(self, label: str) -> None:
        if self.last_frame is not None:
            self.captured[label] = self.last_frame

    def keep(self, first: int, count: int, frame: np.ndarray) -> None:
        """Frames ``first`` .. ``first + count - 1`` show ``frame``: keep the wanted ones."""
        for index in [i for i in self.wanted if first <= i < first + count]:
            for label in self.wanted.pop(index):
                self.captured[label] = frame

    def write_frame(self, pixels, *, repeat: int = 1) -> None:
        super().write_frame(pixels, repeat=repeat)
        self.keep(self.frames_written, repeat, pixels)
        self.frames_written += repeat
        self.last_frame = pixels
        if self.on_frames is not None:
            self.on_frames(self.frames_written)


class StillsRenderer(CairoRenderer):
    """A renderer that draws only the frames its writer wants and skips everything else.

    Every play is counted as the normal renderer counts it (the same number of frames at
    the same times), its animations are jumped to the wanted frames' times only, drawn
    exactly as the normal renderer draws them (static background, then what moves), and
    finished at once. The scene's clock advances by whole frames, as in a video, so key
    frames and captions land where they would. Animations must not depend on earlier
    frames (none of ours do: each is a function of its progress).
    """

    def play(self, scene, *args, **kwargs) -> None:
        writer = self.file_writer
        if writer.expected and writer.expected <= writer.captured.keys():
            raise EndSceneEarlyException()         # every still asked for is drawn
        scene.compile_animation_data(*args, **kwargs)
        dt = 1 / self.camera.frame_rate
        frozen = scene.is_current_animation_frozen_frame()
        times = [0.0] if frozen else list(np.arange(0, scene.duration, dt))
        count = int(scene.duration / dt) if frozen else len(times)
        first = writer.frames_written
        scene.begin_animations()
        if any(first <= i < first + count for i in writer.wanted):
            # the background of what does not move: drawn only for a play with a still in it
            self.save_static_frame_data(scene, scene.static_mobjects)
        for n, t in enumerate(times):
            indices = range(first, first + count) if frozen else [first + n]
            if not any(i in writer.wanted for i in indices):
                continue
            if not frozen:
                scene.update_to_time(t)
            self.update_frame(scene, scene.moving_mobjects)
            writer.keep(indices[0], len(indices), self.get_frame())
        for animation in scene.animations:
            animation.finish()
            animation.clean_up_from_scene(scene)
        scene.update_mobjects(0)
        self.static_image = None
        writer.frames_written += count
        self.time += count * dt
        self.num_plays += 1


class CapturingFilm(FilmScene):
    """A FilmScene whose key frames and beat ends are captured by the writer."""

    on_beat: Callable[[str, str], None] | None = None   # (event, beat name)
    want_ends = False             # a stills render asks for each beat's last frame

    def mark_key_frame(self, beat: str) -> None:
        super().mark_key_frame(beat)
        label = f"key:{beat}"
        writer = self.renderer.file_writer
        writer.want_next(label)
        if self.want_ends:
            # the key frame is held, unchanged, until the stage clears: the beat's last
            # frame shows the same picture
            writer.want_next(f"end:{beat}")

    def hand_off(self, beat) -> None:
        if not self.want_ends:
            self.renderer.file_writer.keep_last(f"end:{beat.name}")
        super().hand_off(beat)

    def run_beat(self, beat_cls, last: bool = False) -> None:
        if self.on_beat:
            self.on_beat("start", beat_cls.name)
        super().run_beat(beat_cls, last=last)
        if self.on_beat:
            self.on_beat("end", beat_cls.name)


def make_film(trace, beats, *, stills: bool = False, **hooks) -> CapturingFilm:
    """The capturing film of ``beats`` (call inside ``tempconfig``). With ``stills`` it
    draws only the frames its writer is asked for."""
    renderer_class = StillsRenderer if stills else CairoRenderer
    renderer = renderer_class(file_writer_class=FrameCaptureWriter, camera_class=MovingCamera)
    scene = CapturingFilm(trace, beats=beats, renderer=renderer)
    for name, value in hooks.items():
        setattr(scene, name, value)
    return scene
