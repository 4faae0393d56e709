"""The film's captions as a subtitle track inside the MP4 (3GPP timed text, ``mov_text``):
a clip dropped into PowerPoint or Keynote, or a film opened in a player without its .srt,
still has its words. The track holds each caption exactly as the .srt beside the film
does, at the same milliseconds. No manim here."""
from __future__ import annotations

import struct
from fractions import Fraction

__all__ = ["TRACK_TIME_BASE", "add_caption_track", "caption_track", "mux_captions"]

TRACK_TIME_BASE = Fraction(1, 1000)      # milliseconds, as the .srt counts

# The encoder builds the track's sample description (the tx3g box) from an ASS header: one
# default style, white on the player's own background, at the bottom. The samples are
# written here, not by the encoder (it would read the text as ASS and drop braces and
# backslashes that are part of a caption).
_ASS_HEADER = (
    "[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n\n"
    "[V4+ Styles]\n"
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, "
    "BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, "
    "BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n"
    "Style: Default,Sans,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,"
    "10,0\n\n"
    "[Events]\n"
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")


def add_caption_track(out, language: str = "en"):
    """A timed-text stream in the MP4 container ``out`` (before its first packet), shown
    by default: a player that shows subtitles at all shows these, named by ``language``
    (the captions' language as wordfreq codes it: "en", "fr"), which a player lists."""
    import langcodes

    stream = out.add_stream("mov_text")
    try:                   # an MP4 names a language in three letters (ISO 639-2/T)
        stream.metadata["language"] = langcodes.Language.get(language).to_alpha3()
    except (LookupError, ValueError):
        pass               # a code it does not know: the track's language is left open
    stream.time_base = TRACK_TIME_BASE
    context = stream.codec_context
    context.time_base = TRACK_TIME_BASE
    context.subtitle_header = _ASS_HEADER.encode()
    context.open()
    from av.stream import Disposition

    stream.disposition = Disposition.default
    return stream


def _milliseconds(seconds: float) -> int:
    return int(round(seconds * 1000))


def mux_captions(out, stream, cues) -> None:
    """Each cue (start s, end s, text) as one sample of ``stream``: the text's UTF-8 bytes
    after their length, as the 3GPP timed text format has it."""
    import av

    for start, end, text in cues:
        a, b = _milliseconds(start), _milliseconds(end)
        if b <= a:
            continue
        data = text.encode("utf-8")[:0xFFFF]
        packet = av.Packet(struct.pack(">H", len(data)) + data)
        packet.pts = packet.dts = a
        packet.duration = b - a
        packet.time_base = TRACK_TIME_BASE
        packet.stream = stream
        out.mux(packet)


def caption_track(path) -> list[tuple[int, int, str]]:
    """The captions of the MP4 at ``path``'s subtitle track: (start ms, end ms, text) of
    each sample with text (a player's empty gap samples left out); [] without a track."""
    import av

    with av.open(str(path)) as box:
        if not box.streams.subtitles:
            return []
        stream = box.streams.subtitles[0]
        scale = stream.time_base / TRACK_TIME_BASE
        cues = []
        for packet in box.demux(stream):
            if packet.dts is None:
                continue
            data = bytes(packet)
            size = struct.unpack(">H", data[:2])[0] if len(data) >= 2 else 0
            if size:
                start = int(round(packet.pts * scale))
                cues.append((start, start + int(round(packet.duration * scale)),
                             data[2:2 + size].decode("utf-8")))
        return cues
