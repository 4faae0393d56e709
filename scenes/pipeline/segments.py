"""Beats as independent tasks: each beat renders alone into its own segment (an MP4 that
starts on a key frame, its captions, key frame and numbers), in worker processes, through
the beat cache; the segments are then joined into one film without re-encoding.

A beat rendered alone first builds what its predecessor leaves, without drawing a frame
(``FilmScene``), and hands its stage on at its end unless it ends the film, so a segment
is exactly the stretch of the film that shows that beat, whichever worker drew it.

A segment's files are read only as its manifest recorded them (``cache_files``): taken
from the cache, checked whole first; joined into a film or copied into a pack, checked
again as they are read, so a file swapped meanwhile is never what the user gets.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from . import encoding
from .beat_cache import BeatCache, entry_key
from .cache_files import ENTRY_FILES, KEY_FRAME, MANIFEST, VIDEO, Damaged, check_entry, opened_checked, read_checked, record_files, remove


@dataclass(frozen=True)
class SegmentJob:
    """One beat of one film at one size: everything that changes its pixels."""

    beat: str
    hands_off: bool           # False for the film's last beat (it holds, then the film ends)
    width: int
    height: int
    fps: int
    theme: str
    quality: str
    trace_fingerprint: str
    audit: bool = False

    def key(self) -> str:
        return entry_key(kind="beat", **asdict(self),
                         encoder=encoding.options(self.quality, self.width, self.height,
                                                  self.fps))


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
    captions: list = field(default_factory=list)       # (start, end, text)
    shown_numbers: list = field(default_factory=list)  # readouts.ShownNumber as dicts
    audit_log: list = field(default_factory=list)
    screen_texts: list = field(default_factory=list)
    files: dict = field(default_factory=dict)           # name -> {"size", "sha256"}
    from_cache: bool = False
    discarded: str | None = None

    @property
    def video(self) -> Path:
        return self.folder / VIDEO

    @property
    def duration(self) -> float:
        return self.frames / self.fps

    def manifest(self) -> dict:
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

    def key_frame(self) -> np.ndarray:
        """The beat's key frame as drawn (RGB), never decoded from the MP4."""
        import io

        from PIL import Image

        with Image.open(io.BytesIO(self.read(KEY_FRAME))) as image:
            return np.asarray(image.convert("RGB"))


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
                           f"({exc}); render again with --no-cache") from None
    segment.discarded = found.discarded
    return segment


def _draw(job: SegmentJob, trace, folder: Path) -> BeatSegment:
    """Draw the beat with manim into ``folder``; write its manifest last."""
    from manim import tempconfig
    from PIL import Image

    from ..vocabulary import style
    from .capture import SegmentVideo, make_film, manim_config

    style.set_theme(job.theme)
    media = folder / "media"
    raw = folder / "raw.mp4"
    conf = manim_config(job.width, job.height, job.fps, fmt="none", media_dir=media,
                        output_file=None)
    video = SegmentVideo(raw, width=job.width, height=job.height, fps=job.fps,
                         options=encoding.options(job.quality, job.width, job.height, job.fps))
    with tempconfig(conf):
        scene = make_film(trace, [job.beat], ends_film=not job.hands_off, audit=job.audit,
                          video=video)
        scene.render()
    video.close()
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


def _jsonable(value):
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


# ---- workers ---------------------------------------------------------------------------
def _worker_start() -> None:
    """A worker leaves Ctrl-C to the parent, which cancels the render, cleans up, and
    stops the workers with SIGTERM: a worker then dies at once (what it was building in
    the cache stays private, and is swept later)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def render_segments(jobs: list[SegmentJob], trace, *, workers: int, scratch: Path,
                    cache_folder: Path | None, on_done=None) -> list[BeatSegment]:
    """Render every job (in order of the list), ``workers`` at a time in worker
    processes (1: in this process). ``on_done(segment)`` is called as each finishes."""
    from .sources import scenes_source_hash

    scenes_source_hash()     # once here: forked workers inherit it instead of each reading
    calls = [(job, trace, scratch / f"{n:02d}-{job.beat}", cache_folder)
             for n, job in enumerate(jobs)]
    weights = [encoding.beat_weight(job.beat) for job in jobs]
    return run_in_workers(render_segment, calls, workers=workers, weights=weights,
                          on_done=on_done)


def run_in_workers(function, calls: list[tuple], *, workers: int, weights=None,
                   on_done=None) -> list:
    """``[function(*call) for call in calls]``, ``workers`` at a time in worker processes
    (1: in this process), heaviest first (``weights``) so no worker idles at the end.
    ``on_done(result)`` is called as each finishes. On an error or an interrupt the
    workers are stopped and the exception goes on."""
    if workers <= 1 or len(calls) <= 1:
        results = []
        for call in calls:
            results.append(function(*call))
            if on_done:
                on_done(results[-1])
        return results

    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # fork: a worker starts at once with manim imported, and never re-runs the caller's
    # script (spawn and forkserver import __main__ again: a script without a main guard
    # would render recursively). Workers only draw: no torch, no threads of ours.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    results: dict[int, object] = {}
    pool = ProcessPoolExecutor(max_workers=min(workers, len(calls)),
                               mp_context=multiprocessing.get_context(method),
                               initializer=_worker_start)
    processes = {}
    try:
        order = sorted(range(len(calls)), key=lambda n: -(weights[n] if weights else 0))
        futures = {pool.submit(function, *calls[n]): n for n in order}
        processes = dict(pool._processes or {})      # to stop them on an interrupt
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                results[futures[future]] = future.result()
                if on_done:
                    on_done(results[futures[future]])
    except BaseException:
        for process in processes.values():
            with contextlib.suppress(Exception):
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[n] for n in range(len(calls))]


# ---- joining ---------------------------------------------------------------------------
def join_segments(videos: list, target: Path, chapters: list | None = None) -> None:
    """Join segment MP4s of identical streams (same encoder settings, each starting on a
    key frame) into ``target`` without re-encoding, its index first (faststart), with
    ``chapters`` [(start s, end s, title)] as the MP4's chapter marks. ``videos`` are
    paths or open binary files (``BeatSegment.opened``: checked as they are read)."""
    import av
    from av.bitstream import BitStreamFilterContext

    with contextlib.ExitStack() as stack:
        out = stack.enter_context(av.open(str(target), "w", format="mp4",
                                          options={"movflags": "+faststart"}))
        if chapters:
            out.set_chapters([{"id": n, "start": round(start * 1000), "end": round(end * 1000),
                               "time_base": Fraction(1, 1000), "metadata": {"title": title}}
                              for n, (start, end, title) in enumerate(chapters)])
        out_stream = None
        offset = 0           # in the segments' time base (the same in each)
        for path in videos:
            src = stack.enter_context(av.open(str(path) if isinstance(path, (str, Path))
                                              else path))
            stream = src.streams.video[0]
            if out_stream is None:
                out_stream = out.add_stream_from_template(template=stream)
            # x264 stamps every segment with an SEI note of its version, settings and web
            # address; players ignore it, and an offline lecture pack names no address
            without_notes = BitStreamFilterContext("filter_units=remove_types=6", stream,
                                                   out_stream)
            end = offset
            for packet in src.demux(stream):
                if packet.dts is None:      # demux's flushing packets
                    continue
                packet.pts += offset
                packet.dts += offset
                end = max(end, packet.pts + (packet.duration or 0))
                for filtered in without_notes.filter(packet):
                    filtered.stream = out_stream
                    out.mux(filtered)
            for filtered in without_notes.filter(None):
                filtered.stream = out_stream
                out.mux(filtered)
            offset = end
            src.close()
