"""What a player shows of one of our MP4s: a held frame is stored once and shown until the
next frame's time (``scenes.pipeline.timeline``), so a test that counts or indexes frames
asks here for one frame per 1/fps, as the film is seen."""
from __future__ import annotations

from pathlib import Path

import av
import numpy as np

from attention_explainer.scenes.pipeline.timeline import frames_in_time


def frame_rate(path: Path) -> int:
    """The film's frame rate, as its H.264 stream declares it."""
    with av.open(str(path)) as container:
        return int(container.streams.video[0].codec_context.framerate)


def shown_count(path: Path) -> int:
    """How many frames a player shows: the video stream's length at its frame rate."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        fps = stream.codec_context.framerate
        return int(round(stream.duration * stream.time_base * fps))


def shown_frames(path: Path, fmt: str = "rgb24") -> list[np.ndarray]:
    """Every frame a player shows, in ``fmt``, a held frame repeated."""
    total = shown_count(path)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        fps = int(stream.codec_context.framerate)
        shown: list[np.ndarray] = []
        last = None
        for frame in frames_in_time(container, stream, fps, total):
            if frame is not last:     # one thread: a process that forks later must not
                array = frame.to_ndarray(format=fmt, threads=1)     # hold swscale's
            shown.append(array)
            last = frame
        return shown
