"""The third step of a render: the drawn segments joined into the film and its companions.

:func:`assemble` writes, into the paths of an opened output set, the MP4 (the segments
joined without re-encoding, one chapter mark per beat), its captions (each segment's,
moved to its place in the film), the poster (a segment's key frame, as drawn) and the
trace. Every segment file is read through the check of what its segment recorded
(``BeatSegment.opened``), wherever the segments' folders lie (a worker's scratch folder,
the beat cache). No manim here.
"""
from __future__ import annotations

import contextlib
from fractions import Fraction
from pathlib import Path

from ...facts import STORYBOARDS
from .cache_files import KEY_FRAME, VIDEO
from .narration import encode_sound, sound_stream_in
from .subtitles import add_caption_track, mux_captions
from .timeline import HeldBack

__all__ = ["POSTER_BEAT", "TITLES", "assemble", "beat_spans", "caption_cues", "chapter_marks",
           "cut_clip", "handoff_frame", "join_segments", "poster_of", "segment_starts", "write_captions"]

# the chapter marks: every film's beats (a name is its film's alone)
TITLES = {entry.name: entry.title for beats in STORYBOARDS.values() for entry in beats}
POSTER_BEAT = "pull"        # its key frame is the poster; without it, the last beat's


def segment_starts(segments) -> list[float]:
    """Each segment's start in the joined film, in seconds (whole frames)."""
    fps = segments[0].fps
    return [sum(s.frames for s in segments[:n]) / fps for n in range(len(segments))]


def handoff_frame(segment) -> int:
    """The frame of ``segment`` where its hand-off to the next beat starts (a key frame)."""
    return min(int(round(segment.handoff_time * segment.fps)), segment.frames)


def beat_spans(segments, starts: list[float]) -> list[tuple[float, float]]:
    """Each beat's span in the film, in seconds: from the start of the hand-off into it
    (the film's start for the first) to the start of its own (the film's end for the
    last). A beat's span opens on the motion into its stage and ends on its held end
    state; the spans tile the film."""
    fps = segments[0].fps
    ends = [start + handoff_frame(s) / fps for s, start in zip(segments, starts)]
    ends[-1] = starts[-1] + segments[-1].duration
    return list(zip([0.0] + ends[:-1], ends))


def chapter_marks(segments, starts: list[float]) -> list[tuple[float, float, str]]:
    """(start s, end s, title) of each beat's span in the film (:func:`beat_spans`)."""
    return [(a, b, TITLES[s.beat]) for s, (a, b) in zip(segments, beat_spans(segments, starts))]


def cut_clip(parts: list, target: Path, sound=None, cues=None, language: str = "en", *,
             fps: int) -> None:
    """Frames of segment MP4s (at ``fps``) joined into ``target`` without re-encoding:
    ``parts`` are (video, first frame, end frame), each first frame a key frame of its
    segment (the start, or a hand-off: ``SegmentVideo.key_frame_at``), each end frame
    where a stored frame starts or the segment ends. ``video`` as in
    :func:`join_segments`. ``sound``: the clip's samples, encoded beside it as AAC;
    ``cues``: its captions, in its own seconds, as its subtitle track in ``language``."""
    import av

    with contextlib.ExitStack() as stack:
        out = stack.enter_context(av.open(str(target), "w", format="mp4",
                                          options={"movflags": "+faststart"}))
        out_stream, offset, packets = None, 0, HeldBack(out)
        for path, first, end in parts:
            if end <= first:
                continue
            src = stack.enter_context(av.open(str(path) if isinstance(path, (str, Path))
                                              else path))
            stream = src.streams.video[0]
            if out_stream is None:
                out_stream = out.add_stream_from_template(template=stream)
                sound_stream = sound_stream_in(out) if sound is not None else None
                text_stream = add_caption_track(out, language) if cues is not None else None
            per_frame = 1 / (fps * stream.time_base)
            offset = _copy_packets(src, stream, packets, out_stream, offset,
                                   int(round(first * per_frame)), int(round(end * per_frame)),
                                   int(round(per_frame)))
            src.close()
        packets.finish(offset)
        if sound is not None and out_stream is not None:
            encode_sound(out, sound_stream, sound)
        if cues is not None and out_stream is not None:
            mux_captions(out, text_stream, cues)


def poster_of(segments):
    """The segment whose key frame is the film's poster."""
    names = [s.beat for s in segments]
    return segments[names.index(POSTER_BEAT) if POSTER_BEAT in names else -1]


def caption_cues(segments, starts: list[float]) -> list[tuple[float, float, str]]:
    """The segments' captions moved to their places in the film: (start s, end s, text),
    each ending with its beat's chapter, the text as the .srt and the track hold it (user
    words in bidi isolates)."""
    from ..vocabulary.scripts import isolated

    def until(begins: float, ends: float, chapter_end: float) -> float:
        # a beat's captions end with its chapter, at its hand-off's whole frame (the scene
        # holds them to the hand-off's exact time, which the frames round)
        return min(ends, chapter_end) if begins < chapter_end else ends

    spans = beat_spans(segments, starts) if segments else []
    return [(round(start + a, 3), round(until(start + a, start + b, span_end), 3),
             isolated(text))
            for segment, start, (_, span_end) in zip(segments, starts, spans)
            for a, b, text in segment.captions]


def write_captions(segments, starts: list[float], path: Path) -> None:
    """The segments' captions (:func:`caption_cues`) as one SRT file."""
    import datetime

    import srt

    subtitles = [srt.Subtitle(index=0, start=datetime.timedelta(seconds=a),
                              end=datetime.timedelta(seconds=b), content=text)
                 for a, b, text in caption_cues(segments, starts)]
    path.write_text(srt.compose(subtitles, reindex=True) if subtitles else "",
                    encoding="utf-8")


def assemble(segments, trace, paths: dict, also=None, narration=None, burn=None,
             language: str = "en") -> None:
    """Write the film from its drawn segments: ``paths["video"]`` (joined, with chapter
    marks and its captions as a subtitle track; a .webm or .gif re-encoded from that),
    "captions", "poster" and "trace"; then ``also(segments, starts, paths, sound, burn)`` (a
    lecture pack's files). ``narration`` (``narration.Narration``): each beat's voice from
    its span's start, as the film's sound (``sound``: its samples, else None). ``burn``:
    (width, height, encoder options) of a film whose captions are drawn into its frames,
    below the segments' smaller pictures (``burn``). ``language``: the captions'."""
    starts = segment_starts(segments)
    cues = caption_cues(segments, starts)
    sound = None
    if narration is not None:
        from .narration import film_track

        sound = film_track(beat_spans(segments, starts), [s.beat for s in segments],
                           narration, sum(s.frames for s in segments) / segments[0].fps)
    target = Path(paths["video"])
    # a WebM or a GIF is re-encoded from the joined MP4, made beside it in the staging
    # folder and removed there; so are the frames with their captions burnt in
    joined = target if target.suffix.lower() == ".mp4" else \
        target.with_name(target.name + ".joined.mp4")
    burnt = target.with_name(target.name + ".burnt.mp4")
    try:
        with contextlib.ExitStack() as stack:
            videos = [stack.enter_context(s.opened(VIDEO)) for s in segments]
            lengths = [s.frames for s in segments]
            if burn is not None:
                from .burn import burn_captions

                width, height, options = burn
                burn_captions(videos, cues, burnt, width=width, height=height,
                              fps=segments[0].fps, options=options, lengths=lengths)
                videos, lengths = [burnt], [sum(lengths)]
            join_segments(videos, joined, chapter_marks(segments, starts), sound, cues,
                          language, fps=segments[0].fps, lengths=lengths)
    finally:
        burnt.unlink(missing_ok=True)
    if joined != target:
        from .web_formats import transcode
        try:
            transcode(joined, target, fps=segments[0].fps,
                      frames=sum(s.frames for s in segments))
        finally:
            joined.unlink(missing_ok=True)
    write_captions(segments, starts, paths["captions"])
    poster = poster_of(segments)
    picture = poster.read(KEY_FRAME)
    if burn is not None:
        from .burn import poster_with_band

        at = starts[segments.index(poster)] + poster.key_time
        shown = next((text for a, b, text in cues if a <= at < b), None)
        picture = poster_with_band(picture, shown, burn[0], burn[1])
    paths["poster"].write_bytes(picture)
    trace.save(paths["trace"])
    if also is not None:
        also(segments, starts, paths, sound, burn)


def join_segments(videos: list, target: Path, chapters: list | None = None,
                  sound=None, cues=None, language: str = "en", *, fps: int,
                  lengths: list[int]) -> None:
    """Join segment MP4s of identical streams (same encoder settings, each starting on a
    key frame; ``lengths``: each one's frames at ``fps``) into ``target`` without
    re-encoding, its index first (faststart), with
    ``chapters`` [(start s, end s, title)] as the MP4's chapter marks, ``sound`` (mono
    samples at ``narration.RATE``) as an AAC stream and ``cues`` [(start s, end s, text)]
    as its subtitle track (in ``language``). ``videos`` are paths or open binary files
    (``BeatSegment.opened``: checked as they are read)."""
    import av

    with contextlib.ExitStack() as stack:
        out = stack.enter_context(av.open(str(target), "w", format="mp4",
                                          options={"movflags": "+faststart"}))
        if chapters:
            out.set_chapters([{"id": n, "start": round(start * 1000), "end": round(end * 1000),
                               "time_base": Fraction(1, 1000), "metadata": {"title": title}}
                              for n, (start, end, title) in enumerate(chapters)])
        out_stream, packets = None, HeldBack(out)
        offset = 0           # in the segments' time base (the same in each)
        for path, length in zip(videos, lengths, strict=True):
            src = stack.enter_context(av.open(str(path) if isinstance(path, (str, Path))
                                              else path))
            stream = src.streams.video[0]
            if out_stream is None:
                out_stream = out.add_stream_from_template(template=stream)
                sound_stream = sound_stream_in(out) if sound is not None else None
                text_stream = add_caption_track(out, language) if cues is not None else None
            per_frame = 1 / (fps * stream.time_base)
            offset = _copy_packets(src, stream, packets, out_stream, offset, 0,
                                   int(round(length * per_frame)), int(round(per_frame)))
            src.close()
        packets.finish(offset)
        if sound is not None and out_stream is not None:
            encode_sound(out, sound_stream, sound)
        if cues is not None and out_stream is not None:
            mux_captions(out, text_stream, cues)


def _copy_packets(src, stream, packets: HeldBack, out_stream, offset: int, first: int,
                  end: int, tick: int) -> int:
    """Mux (through ``packets``) ``stream``'s packets shown from ``first`` to before
    ``end`` (time base units; ``tick``: a frame's) into ``out_stream``, moved to start at
    ``offset``; where the next part starts (a held frame is shown up to ``end``:
    ``timeline``)."""
    from av.bitstream import BitStreamFilterContext

    # x264 stamps every segment with an SEI note of its version, settings and web
    # address; players ignore it, and an offline lecture pack names no address
    without_notes = BitStreamFilterContext("filter_units=remove_types=6", stream, out_stream)
    shift = offset - first

    def mux(packet) -> None:
        packet.pts += shift
        packet.dts += shift
        for filtered in without_notes.filter(packet):
            filtered.stream = out_stream
            packets.mux(filtered)

    # x264 decodes the first frames (those a B-frame waits for) before the part's start,
    # as early as the frames after them are late: a held frame's length earlier. Those
    # decoding times are drawn in to one frame apart, just before the start, so that they
    # never fall before the last part's (still before each frame's own time)
    leading: list | None = []

    def mux_leading() -> None:
        for n, early in enumerate(leading or ()):
            early.dts = first - (len(leading) - n) * tick
            mux(early)

    for packet in src.demux(stream):
        if packet.dts is None:      # demux's flushing packets
            continue
        if packet.pts < first or packet.pts >= end:
            continue
        if leading is not None and packet.dts < first:
            leading.append(packet)
            continue
        mux_leading()
        leading = None
        mux(packet)
    mux_leading()
    for filtered in without_notes.filter(None):
        filtered.stream = out_stream
        packets.mux(filtered)
    return offset + end - first
