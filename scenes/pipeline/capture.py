"""How a render draws and keeps frames: manim's configuration for one render, a file writer
that keeps the raw frames asked for, a renderer that draws *only* the frames asked for,
and the film that asks for key frames and beat ends.

Frames for posters and stills are the renderer's raw RGBA frames, never decoded from the
MP4 (yuv420p changes pixels). Frame n of a render shows time n / fps.
"""
from __future__ import annotations

import contextlib
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import cairo
import numpy as np
from manim import MovingCamera
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene.scene_file_writer import SceneFileWriter
from manim.utils.exceptions import EndSceneEarlyException

from ..film.scene import FilmScene
from ..vocabulary import style
from ..vocabulary.real_text import TextPainter
from ..vocabulary.svg_text import svg_with_text
from ..vocabulary.stage import frame_size
from .timeline import HeldBack

__all__ = ["CapturingFilm", "FilmRenderer", "FrameCaptureWriter", "SNAP", "SegmentVideo", "SteadyCamera",
           "render_alone",
           "StillsRenderer", "make_film", "manim_config", "vector_picture"]


def manim_config(width: int, height: int, fps: int, *, fmt: str, media_dir: Path,
                 output_file: Path | None) -> dict:
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
        "background_color": style.PALETTE.background,
        "seed": style.SEED,
        # our beat cache keeps whole beats; manim's per-play cache would hash every
        # mobject of every play for nothing
        "disable_caching": True,
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


class SegmentVideo:
    """A beat's frames encoded, as they are drawn and in the drawing thread, into one H.264
    stream (``target``, an MP4).

    Instead of manim's own writer, which encodes each play into a file of its own on a
    thread and then joins the files: one encoder fed in order is the simplest thing whose
    bytes are a function of the frames alone (with ``encoding.deterministic_options``:
    7 of 7 renders of the default film in fresh processes, sequential, parallel and from
    the cache, gave the same bytes), and a beat is one stream with one key frame, not one
    per play (the default film at 1080p: 9.1 MB instead of 14.9 MB). A frame shown
    ``repeat`` times (a wait, a hold) is converted to the encoder's pixel format once.
    """

    def __init__(self, target: Path, *, width: int, height: int, fps: int, options: dict):
        import av

        self.target = Path(target)
        self._container = av.open(str(self.target), "w", format="mp4")
        # a frame asked to be a key frame (key_frame_at) is an IDR: nothing after it
        # refers to what came before, so a clip may start there without re-encoding
        self._stream = self._container.add_stream("libx264", rate=fps,
                                                  options={**options, "forced-idr": "1"})
        self._stream.width, self._stream.height = width, height
        self._stream.pix_fmt = "yuv420p"
        self._time_base = Fraction(1, fps)
        self._next_pts = 0
        self._key_frames: set[int] = set()
        self._rgba = None                     # the RGBA frame each frame is copied into
        self._converter = None                # RGBA to the encoder's YUV, made with it
        self._rgba_pixels: np.ndarray | None = None
        self._packets = HeldBack(self._container)

    def key_frame_at(self, index: int) -> None:
        """Make frame ``index`` (not yet written) a key frame."""
        self._key_frames.add(int(index))

    def write(self, pixels: np.ndarray, repeat: int = 1) -> None:
        """Encode ``pixels`` (RGBA, read now and not kept) as the next ``repeat`` frames:
        once, shown until the next frame's time (``timeline``), and again where one of
        those frames is to be a key frame."""
        import av

        # the RGBA frame is one buffer, filled anew each time: a fresh 8 MB buffer per
        # 1080p frame cost more (its pages faulted in) than the copy into it
        if self._rgba is None:
            from av.video.reformatter import VideoReformatter

            height, width = pixels.shape[:2]
            self._rgba = av.VideoFrame(width, height, "rgba")
            plane = self._rgba.planes[0]
            self._rgba_pixels = np.frombuffer(plane, dtype=np.uint8).reshape(
                height, plane.line_size // 4, 4)[:, :width]
            # a converter of this video's own, made here: a render worker forked from a
            # process whose swscale held threads hung (CI, and a fresh clone here, twice)
            # converting through a frame's cached converter that reached that state
            self._converter = VideoReformatter()
        np.copyto(self._rgba_pixels, pixels)
        # on this thread alone: swscale's own threads would live on in the converter, and
        # a render's worker forked meanwhile would hang freeing them
        frame = self._converter.reformat(self._rgba, format="yuv420p", threads=1)
        frame.time_base = self._time_base
        first, end = self._next_pts, self._next_pts + repeat
        starts = [first, *sorted(k for k in self._key_frames if first < k < end)]
        for start in starts:
            frame.pts = start
            frame.pict_type = av.video.frame.PictureType.I if start in self._key_frames \
                else av.video.frame.PictureType.NONE
            for packet in self._stream.encode(frame):
                self._packets.mux(packet)
        self._next_pts = end

    def close(self) -> None:
        self._rgba = self._rgba_pixels = self._converter = None
        for packet in self._stream.encode():
            self._packets.mux(packet)
        self._packets.finish(self._next_pts)
        self._container.close()


class FrameCaptureWriter(SceneFileWriter):
    """Counts the frames handed to the writer and keeps the ones asked for.

    Requests are by frame index, known in advance (:meth:`want`) or "the next frame
    written" (:meth:`want_next`: a key frame marked now). A frame kept is copied: the
    film's renderer hands over the camera's own pixels, drawn over for the next frame.
    """

    def __init__(self, settings):
        super().__init__(settings)
        self.frames_written = 0
        self.wanted: dict[int, list[str]] = defaultdict(list)
        self.captured: dict[str, np.ndarray] = {}
        self.expected: set[str] = set()      # stills: once all are captured, the render stops
        self.vector: tuple | None = None      # stills: ("svg" or "pdf", width in mm or None) too
        self.vectors: dict[str, bytes] = {}   # label -> that frame as vector graphics

    draws = True          # False: a timing run, which keeps (and so draws) no frame at all

    def want(self, index: int, label: str) -> None:
        """Keep frame ``index`` as ``captured[label]``."""
        if self.draws:
            self.wanted[index].append(label)

    def want_next(self, label: str) -> None:
        """Keep the next frame written as ``captured[label]``."""
        self.want(self.frames_written, label)

    def keep(self, first: int, count: int, frame: np.ndarray) -> None:
        """Frames ``first`` .. ``first + count - 1`` show ``frame``: keep the wanted ones."""
        for index in [i for i in self.wanted if first <= i < first + count]:
            for label in self.wanted.pop(index):
                self.captured[label] = frame.copy()

    video: SegmentVideo | None = None     # where the frames are encoded (a segment)

    def write_frame(self, pixels, *, repeat: int = 1) -> None:
        super().write_frame(pixels, repeat=repeat)
        if self.video is not None:
            self.video.write(pixels, repeat)
        self.keep(self.frames_written, repeat, pixels)
        self.frames_written += repeat


def vector_picture(camera, mobjects, fmt: str, width_mm: float | None = None) -> bytes:
    """The frame ``camera`` shows of ``mobjects`` drawn again on Cairo's SVG or PDF surface
    (``fmt``), by the same calls that draw the pixels (manim's own ``capture_mobjects``):
    every shape a path, every text as text (:mod:`..vocabulary.real_text`), the stage its
    background colour; a pixel a px (SVG) or a point (PDF), or the whole ``width_mm``
    millimetres wide on paper."""
    import io

    from manim.utils.color import ManimColor

    width, height = camera.pixel_width, camera.pixel_height
    out = io.BytesIO()
    # points a pixel on a PDF's page (an SVG keeps pixels and says its size in mm)
    per_pixel = 1.0 if width_mm is None or fmt == "svg" else width_mm / 25.4 * 72 / width
    surface = (cairo.SVGSurface if fmt == "svg" else cairo.PDFSurface)(
        out, width * per_pixel, height * per_pixel)
    if fmt == "svg":
        surface.set_document_unit(cairo.SVGUnit.PX)
    ctx = cairo.Context(surface)
    ctx.scale(per_pixel, per_pixel)
    ctx.set_source_rgba(*ManimColor(camera.background_color).to_rgb(),
                        camera.background_opacity)
    ctx.paint()
    fw, fh, centre = camera.frame_width, camera.frame_height, camera.frame_center
    ctx.transform(cairo.Matrix(*(float(np.rint(v * SNAP) / SNAP) for v in (
        width / fw, 0, 0, -(height / fh), width / 2 - centre[0] * (width / fw),
        height / 2 + centre[1] * (height / fh)))))       # as SteadyCamera's, snapped
    # every draw of this frame lands on the vector surface (a moving camera caches no
    # context: it asks for one per draw)
    camera.get_cairo_context = lambda pixel_array: ctx
    # manim hands Cairo each colour as B, G, R (its pixels are read as RGBA from Cairo's
    # BGRA memory); a vector surface stores colours as given: swapped back before
    paint = type(camera).set_cairo_context_color
    camera.set_cairo_context_color = lambda context, rgbas, vmobject: paint(
        camera, context, np.asarray(rgbas)[:, [2, 1, 0, 3]], vmobject)
    # texts are drawn as text, not as their outlines (real_text)
    texts = TextPainter(camera, ctx, fmt, mobjects)
    display = type(camera).display_vectorized
    camera.display_vectorized = lambda vmobject, context: (
        texts.draw(vmobject) or display(camera, vmobject, context))
    try:
        camera.capture_mobjects(mobjects)
    finally:
        del camera.get_cairo_context, camera.set_cairo_context_color, camera.display_vectorized
        surface.finish()
    if fmt == "svg":
        return svg_with_text(out.getvalue(), texts.elements, width_mm)
    return out.getvalue()


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
            if writer.vector is not None:        # the same picture, as vector graphics
                for label in [label for i in indices for label in writer.wanted.get(i, [])]:
                    writer.vectors[label] = vector_picture(self.camera, scene.mobjects,
                                                           *writer.vector)
            writer.keep(indices[0], len(indices), self.get_frame())
        for animation in scene.animations:
            animation.finish()
            animation.clean_up_from_scene(scene)
        scene.update_mobjects(0)
        self.static_image = None
        writer.frames_written += count
        # the clock as the normal renderer moves it, to the bit: one addition for a frozen
        # frame held, one per frame otherwise (a sum of 10 steps of 0.2 is not 10 x 0.2,
        # and a wait computed from the clock would then be a frame shorter)
        if frozen:
            self.time += count * dt
        else:
            for _ in range(count):
                self.time += 1 * dt
        self.num_plays += 1


class CapturingFilm(FilmScene):
    """A FilmScene whose key frames (``key:BEAT``) and, asked for, beat ends
    (``end:BEAT``) are captured by the writer."""

    want_ends = False             # a stills render asks for each beat's last frame

    def mark_hand_off(self, beat: str) -> None:
        super().mark_hand_off(beat)
        writer = self.renderer.file_writer
        if writer.video is not None:       # the next clip of a pack starts here
            writer.video.key_frame_at(writer.frames_written)

    def mark_key_frame(self, beat: str) -> None:
        super().mark_key_frame(beat)
        label = f"key:{beat}"
        writer = self.renderer.file_writer
        writer.want_next(label)

    def mark_held_end(self, beat: str) -> None:
        super().mark_held_end(beat)
        if self.want_ends:
            # the picture held from here is unchanged until the stage clears: the beat's
            # last frame shows it
            self.renderer.file_writer.want_next(f"end:{beat}")


# A binary grid far finer than a pixel (2^-18 scene units: 0.002 px at 8K) and far coarser
# than floating-point noise (~1e-15): see SteadyCamera.
SNAP = 2.0 ** 18


class SteadyCamera(MovingCamera):
    """manim's moving camera, fed coordinates snapped to a fixed fine grid.

    The same film computed on another CPU differs in the last bits of its coordinates
    (OpenBLAS and numpy pick kernels by SIMD level, and sum in another order). Cairo turns
    coordinates into 24.8 fixed point and flattens curves by thresholds on those, so a
    last-bit difference that crosses a rounding boundary redraws a glyph's edge several
    levels apart (measured: a footnote 9/255 off with OPENBLAS_CORETYPE=Haswell against
    SkylakeX). On the grid, both round to the same point unless the noise straddles a grid
    line, ~1e-9 per coordinate.
    """

    def transform_points_pre_display(self, mobject, points):
        points = super().transform_points_pre_display(mobject, points)
        return np.rint(points * SNAP) / SNAP

    def get_cairo_context(self, pixel_array):
        ctx = super().get_cairo_context(pixel_array)
        xx, yx, xy, yy, x0, y0 = ctx.get_matrix()
        ctx.set_matrix(cairo.Matrix(*(float(np.rint(v * SNAP) / SNAP)
                                      for v in (xx, yx, xy, yy, x0, y0))))
        return ctx


class FilmRenderer(CairoRenderer):
    """manim's renderer, handing each frame to the writer as the camera's own pixels: the
    writer encodes them at once and copies only a frame it keeps (manim copies every
    frame first, 8 MB at 1080p, its pages faulted in: a tenth of a film's render)."""

    def render(self, scene, time, moving_mobjects=None) -> None:
        self.update_frame(scene, moving_mobjects)
        self.add_frame(self.camera.pixel_array)

    def freeze_current_frame(self, duration: float) -> None:
        self.add_frame(self.camera.pixel_array,
                       num_frames=int(duration / (1 / self.camera.frame_rate)))


def make_film(trace, beats, *, stills: bool = False, video: SegmentVideo | None = None,
              **hooks) -> CapturingFilm:
    """The capturing film of ``beats`` (call inside ``tempconfig``, with manim's own output
    off: format "none"). With ``stills`` it draws only the frames its writer is asked for;
    with ``video`` its frames are encoded there."""
    renderer_class = StillsRenderer if stills else FilmRenderer
    renderer = renderer_class(file_writer_class=FrameCaptureWriter, camera_class=SteadyCamera)
    scene = CapturingFilm(trace, beats=beats, renderer=renderer)
    scene.renderer.file_writer.video = video
    for name, value in hooks.items():
        setattr(scene, name, value)
    return scene


def render_alone(make_scene, target: Path, *, width: int, height: int, fps: int,
                 scratch: Path, quality: str = "final"):
    """A scene drawn whole into ``target`` (an MP4), as a beat's segment is drawn: each
    frame handed to one H.264 stream as it is drawn (``SegmentVideo``, the film's
    encoding), not manim's writer (a file per play, encoded at its own settings, then
    joined: a translation's film took as long to render as it lasts). For a film with no
    beats to cache or join (the heads experiment's).
    ``make_scene(renderer)`` builds the scene with that renderer under the film's
    configuration, its media in ``scratch``; the scene is returned (its key times)."""
    from manim import tempconfig

    from . import encoding

    video = SegmentVideo(target, width=width, height=height, fps=fps,
                         options=encoding.options(quality, width, height, fps))
    try:
        with tempconfig(manim_config(width, height, fps, fmt="none", media_dir=scratch,
                                     output_file=None)):
            scene = make_scene(FilmRenderer(file_writer_class=FrameCaptureWriter,
                                            camera_class=SteadyCamera))
            scene.renderer.file_writer.video = video
            scene.render()
    except BaseException:
        # the stream closed, quietly: what stopped the drawing (Ctrl-C, a full disk) is
        # what the user is told, and the half-written film is the output set's to remove
        with contextlib.suppress(Exception):
            video.close()
        raise
    video.close()
    if scene.renderer.file_writer.frames_written == 0:
        raise RuntimeError("the scene drew no frame")
    return scene

