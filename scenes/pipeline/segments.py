"""One beat's segment: drawn alone, or taken from the beat cache, and kept as the files
the rest of the render reads (an MP4 that starts on a key frame, the key frame itself, and
a manifest of its times, captions and numbers).

A beat rendered alone first builds what its predecessor leaves, without drawing a frame
(``FilmScene``), and hands its stage on at its end unless it ends the film, so a segment
is exactly the stretch of the film that shows that beat, whichever worker drew it.

A segment's files are read only as its manifest recorded them (``cache_files``): taken
from the cache, checked whole first; joined into a film or copied into a pack, checked
again as they are read, so a file swapped meanwhile is never what the user gets.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import encoding
from .beat_cache import BeatCache
from .cache_files import (ENTRY_FILES, KEY_FRAME, MANIFEST, VIDEO, Damaged, check_entry,
                          opened_checked, read_checked, record_files, remove)
from .capture import SegmentVideo, make_film, manim_config
from .plan import SegmentJob

__all__ = ["BeatSegment", "render_segment", "timed_segment"]


@dataclass
class BeatSegment:
    """A rendered beat: its folder (segment.mp4, key.png, segment.json) and what
    the film needs to place it. Times are seconds from the segment's first frame.
    ``files`` are the size and sha256 of segment.mp4 and key.png; ``from_cache`` and
    ``discarded`` (why the cache's entry was not used, if it held a damaged one) are
    this render's, not stored."""

    beat: str
    folder: Path
    frames: int
    fps: int
    key_time: float
    handoff_time: float       # its hand-off to the next beat starts (= duration: none)
    captions: list = field(default_factory=list)       # (start, end, text)
    shown_numbers: list = field(default_factory=list)  # readouts.ShownNumber as dicts
    audit_log: list = field(default_factory=list)
    screen_texts: list = field(default_factory=list)
    files: dict = field(default_factory=dict)           # name -> {"size", "sha256"}
    from_cache: bool = False
    discarded: str | None = None

    @property
    def duration(self) -> float:
        """Seconds of video (whole frames)."""
        return self.frames / self.fps

    def manifest(self) -> dict:
        """What ``segment.json`` keeps: every field but this render's own."""
        data = asdict(self)
        for name in ("folder", "from_cache", "discarded"):
            data.pop(name)
        return data

    @classmethod
    def load(cls, folder: Path, from_cache: bool = False) -> "BeatSegment":
        """The segment of the cache entry in ``folder``, checked whole
        (``cache_files.check_entry``: raises Damaged or FileNotFoundError)."""
        return cls(folder=folder, from_cache=from_cache, **check_entry(folder))

    def opened(self, name: str = VIDEO):
        """``name`` (segment.mp4 or key.png) opened as a context manager, never through
        a symlink, checked against the size and sha256 recorded when it was made."""
        return opened_checked(self.folder, name, self.files[name])

    def read(self, name: str = KEY_FRAME) -> bytes:
        """The bytes of ``name``, checked as :meth:`opened` checks them."""
        return read_checked(self.folder, name, self.files[name])


def render_segment(job: SegmentJob, trace, folder: Path | None = None,
                   cache_folder: Path | None = None) -> BeatSegment:
    """Render ``job`` (a worker's task): from the cache when it holds the beat, else drawn
    into a new cache entry, or into ``folder`` when there is no cache."""
    from ..vocabulary.text import keep_texts_in
    from .text_store import TextStore

    if cache_folder is not None:
        keep_texts_in(TextStore(BeatCache(cache_folder).texts))
    if cache_folder is not None and not job.audit:
        return _through_cache(job, trace, BeatCache(cache_folder), folder)
    if folder is None:
        raise ValueError("render_segment needs a folder or a cache")
    folder.mkdir(parents=True, exist_ok=True)
    return _draw(job, trace, folder)


def timed_segment(job: SegmentJob, trace, cache_folder: Path | None = None) -> BeatSegment:
    """``job``'s segment as a render makes it, but for its files: frames, key and hand-off
    times and captions. From the cache's entry when there is one, else from the beat's
    script run without drawing a frame: the stills renderer counts every play's frames as
    a video does and, asked for none, draws none. No file is written but a text kept."""
    from manim import tempconfig

    from ...files.outputs import scratch_folder
    from ..vocabulary import style
    from ..vocabulary.text import keep_texts_in
    from .text_store import TextStore

    if cache_folder is not None:
        cache = BeatCache(cache_folder)
        found = cache.lookup(job.key())
        if found.folder is not None:
            return BeatSegment(folder=found.folder, from_cache=True, **found.manifest)
        keep_texts_in(TextStore(cache.texts))
    style.set_theme(job.theme)
    with scratch_folder("timing-") as scratch, \
            tempconfig(manim_config(job.width, job.height, job.fps, fmt="none",
                                    media_dir=scratch, output_file=None)):
        scene = make_film(trace, [job.beat], stills=True, ends_film=not job.hands_off,
                          carried_over=job.follows, extra_holds={job.beat: job.hold_extra},
                          caption_seconds={job.beat: job.caption_seconds},
                          caption_words={job.beat: job.caption_words},
                          brief=job.brief, settings=job.settings)
        writer = scene.renderer.file_writer
        writer.draws = False
        scene.render()
    return BeatSegment(
        beat=job.beat, folder=Path(), frames=writer.frames_written, fps=job.fps,
        key_time=scene.key_times[job.beat],
        handoff_time=scene.handoff_times.get(job.beat, writer.frames_written / job.fps),
        captions=[(c.start.total_seconds(), c.end.total_seconds(), c.content)
                  for c in writer.subcaptions])


def _through_cache(job: SegmentJob, trace, cache: BeatCache, folder: Path | None
                   ) -> BeatSegment:
    """The beat from its cache entry if that checks out, else drawn into a new entry
    (served from ``folder`` if other users' entries leave it no name in the cache)."""
    key = job.key()
    found = cache.lookup(key)
    if found.folder is not None:
        return BeatSegment(folder=found.folder, from_cache=True, **found.manifest)
    with cache.building(key, fallback=folder) as private:
        _draw(job, trace, private)
    try:
        segment = BeatSegment.load(cache.placed[key])
    except (Damaged, OSError) as exc:   # evicted at once by a render that trimmed the cache
        raise RuntimeError(f"the cache entry of the {job.beat} beat vanished or changed "
                           f"({exc}); render again without the beat cache") from None
    segment.discarded = found.discarded
    return segment


def _draw(job: SegmentJob, trace, folder: Path) -> BeatSegment:
    """Draw the beat with manim into ``folder``; write its manifest last."""
    from manim import tempconfig
    from PIL import Image

    from ..vocabulary import style

    style.set_theme(job.theme)
    media = folder / "media"
    raw = folder / "raw.mp4"
    conf = manim_config(job.width, job.height, job.fps, fmt="none", media_dir=media,
                        output_file=None)
    video = SegmentVideo(raw, width=job.width, height=job.height, fps=job.fps,
                         options=encoding.options(job.quality, job.width, job.height, job.fps))
    try:
        with tempconfig(conf):
            scene = make_film(trace, [job.beat], ends_film=not job.hands_off,
                              audit=job.audit, carried_over=job.follows, video=video,
                              extra_holds={job.beat: job.hold_extra},
                              caption_seconds={job.beat: job.caption_seconds},
                              caption_words={job.beat: job.caption_words},
                          brief=job.brief, settings=job.settings)
            scene.render()
        video.close()
    except Exception as exc:
        failure = _as_full_disk(exc, folder)
        if failure is exc:
            # as it is: `raise exc from exc` made the error its own cause, a loop that Dask
            # walks for ever to send the error back (a course's worker grew without bound)
            raise
        raise failure from exc
    writer = scene.renderer.file_writer
    if not raw.is_file():
        raise RuntimeError(f"manim wrote no video for the {job.beat} beat")
    os.replace(raw, folder / VIDEO)
    shutil.rmtree(media, ignore_errors=True)
    frame = writer.captured.get(f"key:{job.beat}")
    if frame is None:
        raise RuntimeError(f"no key frame was captured for the {job.beat} beat")
    Image.fromarray(np.asarray(frame)[..., :3]).save(folder / KEY_FRAME, format="PNG",
                                                     compress_level=1)
    for path in folder.iterdir():       # manim's side files (raw.srt): an entry holds three
        if path.name not in ENTRY_FILES and path.name != ".lock":
            remove(path)
    segment = BeatSegment(
        beat=job.beat, folder=folder, frames=writer.frames_written, fps=job.fps,
        key_time=scene.key_times[job.beat],
        handoff_time=scene.handoff_times.get(job.beat, writer.frames_written / job.fps),
        captions=[(c.start.total_seconds(), c.end.total_seconds(), c.content)
                  for c in writer.subcaptions],
        shown_numbers=[asdict(n) for n in scene.shown_numbers],
        audit_log=[list(entry) for entry in scene.audit_log],
        screen_texts=sorted(scene.screen_texts.get(job.beat, set())),
        files=record_files(folder))
    # the manifest goes last: an entry without one is incomplete and never used
    (folder / MANIFEST).write_text(json.dumps(segment.manifest(), default=_jsonable),
                                   encoding="utf-8")
    os.chmod(folder / MANIFEST, 0o644)     # whatever the umask: a check wants it ours only
    return segment


# A drawing needs far more room than this: a failure with less left is put down to the disk
ROOM_TO_DRAW = 1 << 20


def _as_full_disk(exc: Exception, folder: Path) -> Exception:
    """``exc``, or ENOSPC when ``folder``'s file system has all but run out. manim writes
    each text's SVG into the folder and parses it back: on a full disk the write is cut
    short without an error and the failure surfaces later as a parse error of the
    half-written file, never as the full disk it is."""
    if isinstance(exc, OSError):
        return exc
    try:
        usage = shutil.disk_usage(folder)
    except OSError:
        return exc
    if usage.free < ROOM_TO_DRAW:
        return OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} ({type(exc).__name__}: "
                                     f"{exc})", str(folder))
    return exc


def _jsonable(value):
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)
