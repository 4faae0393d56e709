"""Captions drawn into the film's frames (``--burn-captions``), for players that ignore a
subtitle track (a projector's media player, a GIF-like web embed, some slide programs).

The captions never cover the picture: the beats are drawn smaller (:func:`picture_size`,
the film's shape kept) and each frame of the film is that picture at the top, centred,
above a band of the stage's colour in which the caption of the moment is written (the
same words and times as the .srt and the subtitle track). Frames are composed from the
drawn segments' decoded frames and encoded once more; the poster gets the same band.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["BAND_SHARE", "CaptionBand", "burn_captions", "drawn_size", "picture_size",
           "poster_with_band", "smallest_film"]

BAND_SHARE = 0.18         # of the film's height: two lines of a caption and their margins
SAFE_MARGIN = 0.035       # of the film's height below a caption's last line (title-safe)
MERGED_GAP = 0.1          # seconds: a shorter gap between two captions keeps the first up


def _even(value: float) -> int:
    return max(2, int(round(value / 2)) * 2)


def picture_size(width: int, height: int) -> tuple[int, int]:
    """The size the beats are drawn at when the captions are burnt in: the film's shape,
    as high as the film less the caption band (even sizes, as H.264 wants).

    >>> picture_size(1920, 1080)
    (1576, 886)
    """
    picture_height = _even(height * (1 - BAND_SHARE))
    return min(width, _even(width * picture_height / height)), picture_height


def smallest_film(width: int, height: int) -> tuple[int, int]:
    """The smallest film of about this shape whose picture, above the band, is still a
    size a film is drawn at (``facts.MIN_SIZE``)."""
    from ...facts import MIN_SIZE

    scale = max(MIN_SIZE[0] / width, MIN_SIZE[1] / height)
    while True:
        film = (_even(width * scale), _even(height * scale))
        picture = picture_size(*film)
        if picture[0] >= MIN_SIZE[0] and picture[1] >= MIN_SIZE[1]:
            return film
        scale *= 1.01


def drawn_size(width: int, height: int, burn_captions: bool) -> tuple[int, int]:
    """The size a film's beats are drawn at: its own, or with burnt captions the picture's
    above their band."""
    return picture_size(width, height) if burn_captions else (width, height)


@dataclass
class CaptionBand:
    """The band under the picture, ``width`` x ``height`` - picture height pixels, with a
    caption written in it: in the theme's text colour on the stage's, set in lines by
    :func:`_set_in_lines`, its last line at one height in every caption."""

    width: int
    height: int

    def __post_init__(self):
        self.band_height = self.height - picture_size(self.width, self.height)[1]
        self._drawn: dict[str, np.ndarray] = {}
        self._canvas: np.ndarray | None = None

    def background(self) -> np.ndarray:
        """The stage's colour as one RGBA pixel."""
        from manim import ManimColor

        from ..vocabulary import style

        rgb = ManimColor(style.PALETTE.background).to_int_rgb()
        return np.array([*rgb, 255], np.uint8)

    def compose(self, picture: np.ndarray, text: str | None) -> np.ndarray:
        """The film's frame (RGBA, kept and drawn over by the next call): ``picture``
        (RGBA, drawn at :func:`picture_size`) at the top, centred, above the band with
        ``text``."""
        if self._canvas is None:
            self._canvas = np.empty((self.height, self.width, 4), np.uint8)
            self._canvas[:] = self.background()
        picture_height, picture_width = picture.shape[:2]
        left = (self.width - picture_width) // 2
        self._canvas[:picture_height, left:left + picture_width] = picture
        self._canvas[picture_height:] = self.strip(text)
        return self._canvas

    def strip(self, text: str | None) -> np.ndarray:
        """The band (RGBA) with ``text`` written in it, drawn once per text."""
        key = text or ""
        if key not in self._drawn:
            self._drawn[key] = self._draw(key)
        return self._drawn[key]

    def _draw(self, text: str) -> np.ndarray:
        from manim import DOWN, UP, Camera, VGroup

        from ..vocabulary import style
        from ..vocabulary.stage import frame_size
        from ..vocabulary.text import user_text_mobject

        units = frame_size(self.width, self.height)
        per_unit = self.height / units["frame_height"]          # the film's own scale
        camera = Camera(pixel_width=self.width, pixel_height=self.band_height,
                        frame_width=self.width / per_unit,
                        frame_height=self.band_height / per_unit,
                        background_color=style.PALETTE.background, background_opacity=1)
        if text.strip():
            # no wider than the picture above; the last line a title-safe margin above the
            # frame's edge, where every caption's last line sits (they grow upwards)
            room_width = picture_size(self.width, self.height)[0] / per_unit * 0.96
            bottom = SAFE_MARGIN * self.height / per_unit
            room_height = camera.frame_height - bottom - 0.08 * camera.frame_height
            size, lines = _set_in_lines(" ".join(text.split()), room_width)
            # a line each, as written (user text with right-to-left words is drawn as
            # plain text, where a line break would be a control character)
            caption = VGroup(*(user_text_mobject(line, font=style.SERIF, font_size=size,
                                                 color=style.PALETTE.text)
                               for line in lines)).arrange(DOWN, buff=0.1)
            if caption.width > room_width or caption.height > room_height:
                caption.scale(min(room_width / caption.width, room_height / caption.height))
            caption.move_to([0, 0, 0]).shift(
                UP * (bottom - camera.frame_height / 2 - caption.get_bottom()[1]))
            camera.capture_mobject(caption)
        return np.array(camera.pixel_array, np.uint8)


def _set_in_lines(text: str, width: float) -> tuple[float, list[str]]:
    """(font size, lines) of a caption: at the film's body size in two lines at most, else
    at its small size in three, the breaks balanced (the narrowest width that keeps the
    count of lines: no word left alone on the last line)."""
    from ..vocabulary import style
    from ..vocabulary.text import wrapped

    for size, most in ((style.FONT_BODY, 2), (style.FONT_SMALL, 3)):
        count = len(wrapped(text, width, size).split("\n"))
        if count <= most:
            break
    low, high = width / count, width
    while high - low > 0.05 * width / count:
        middle = (low + high) / 2
        if len(wrapped(text, middle, size).split("\n")) <= count:
            high = middle
        else:
            low = middle
    return size, wrapped(text, high, size).split("\n")


def burn_captions(videos: list, cues: list, target: Path, *, width: int, height: int,
                  fps: int, options: dict, lengths: list[int]) -> None:
    """Encode into ``target`` (an MP4 of one H.264 stream) the frames of the segment
    videos ``videos`` (paths or open files, drawn at :func:`picture_size`; ``lengths``:
    each one's frames), each placed above the band with the caption of its moment
    (``cues``: (start s, end s, text), the film's seconds, in order and apart).
    ``options``: the encoder's, as the segments'. A picture held while the caption
    under it changes is encoded once per caption (``timeline``)."""
    import av

    from .capture import SegmentVideo
    from .timeline import frames_in_time

    band = CaptionBand(width, height)
    # the band is never blank for a frame between two captions (the .srt's gap)
    cues = [(a, nxt[0] if nxt is not None and 0 <= nxt[0] - b <= MERGED_GAP else b, text)
            for (a, b, text), nxt in zip(cues, [*cues[1:], None])]
    out = SegmentVideo(target, width=width, height=height, fps=fps, options=options)
    index, at, run = 0, 0, None         # run: (picture, caption, frames) not yet written
    try:
        for video, length in zip(videos, lengths, strict=True):
            with av.open(str(video) if isinstance(video, (str, Path)) else video) as box:
                for frame in frames_in_time(box, box.streams.video[0], fps, length):
                    seconds = index / fps
                    while at < len(cues) and cues[at][1] <= seconds:
                        at += 1
                    shown = cues[at][2] if at < len(cues) and cues[at][0] <= seconds else None
                    if run is not None and run[0] is frame and run[1] == shown:
                        run[2] += 1
                    else:
                        if run is not None:
                            out.write(band.compose(run[0].to_ndarray(format="rgba", threads=1), run[1]),
                                      run[2])
                        run = [frame, shown, 1]
                    index += 1
        if run is not None:
            out.write(band.compose(run[0].to_ndarray(format="rgba", threads=1), run[1]), run[2])
    finally:
        out.close()


def poster_with_band(png: bytes, text: str | None, width: int, height: int) -> bytes:
    """A key frame's PNG (drawn at :func:`picture_size`) as the burnt film shows it: above
    the band with ``text``."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        picture = np.asarray(image.convert("RGBA"))
    out = io.BytesIO()
    Image.fromarray(CaptionBand(width, height).compose(picture, text)).save(out, format="PNG")
    return out.getvalue()
