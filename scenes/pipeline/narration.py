"""A voice for the film: one recording per beat (``--narration DIR``), or a draft read aloud
from the beats' captions by espeak-ng (``--narration speak``).

A beat's recording plays from the start of its span (``join.beat_spans``: its chapter, its
clip in a pack). A beat whose recording is longer than its span holds its last picture
longer (:func:`extra_holds`; the beat is drawn again with ``SegmentJob.hold_extra``): the
animation keeps its timing, only the pause grows, and the captions move with the frames. A
beat without a recording is silent and as it was. The voices are mixed into one track
(:func:`film_track`) that ``join`` encodes as AAC beside the video (Opus in a WebM).

Every recording is decoded when the narration is loaded, before anything is written, so a
file that is not audio, is too long or is named for no beat of the film is refused first.
"""
from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from ...attention_core.errors import InputError
from ...attention_core.user_files import opened_checked
from ...facts import MAX_RECORDING_BYTES

__all__ = ["MARGIN", "MAX_SECONDS", "RATE", "SPEAK", "Narration", "decode", "encode_sound",
           "extra_holds", "film_track", "load_narration", "script", "sound_stream_in",
           "spoken"]

RATE = 48000            # samples per second of every voice and of the film's track
MAX_SECONDS = 300.0     # the longest recording a beat takes (a beat is a minute or two)
MARGIN = 0.5            # the beat's picture stays this long after its voice ends
SPEAK = "speak"         # --narration speak: a draft voice from the captions
VOICE_ENGINE = "espeak-ng"


@dataclass
class Narration:
    """The voices of a film's beats, by beat: mono float32 samples at ``RATE``. ``speak``:
    the voices are read from the captions once the beats are drawn (:meth:`voices_for`)."""

    voices: dict[str, np.ndarray] = field(default_factory=dict)
    speak: bool = False

    def seconds(self, beat: str) -> float:
        """How long ``beat``'s voice lasts (0: it has none)."""
        voice = self.voices.get(beat)
        return 0.0 if voice is None else len(voice) / RATE

    def voices_for(self, segments) -> Narration:
        """The voices for the drawn ``segments``: the recordings, or the captions spoken."""
        if not self.speak:
            return self
        return Narration(voices=spoken({s.beat: " ".join(text for _, _, text in s.captions)
                                        for s in segments}))


def load_narration(source: str | Path | None, beats: list[str]) -> Narration | None:
    """The narration ``--narration`` names for a film of ``beats``: None, ``speak`` (the
    voice engine checked now), or a folder of recordings named ``<beat>.<any audio
    suffix>``, each decoded and checked now. Raises InputError."""
    if source is None:
        return None
    if str(source) == SPEAK:
        if shutil.which(VOICE_ENGINE) is None:
            raise InputError(f"--narration {SPEAK} reads the captions with {VOICE_ENGINE}, "
                             f"which is not installed; install it (apt-get install "
                             f"{VOICE_ENGINE}; `attention-explainer doctor` says how "
                             "elsewhere) or give a folder of recordings.")
        return Narration(speak=True)
    folder = Path(source)
    if not folder.is_dir():
        raise InputError(f"--narration {source}: not a folder; give a folder holding one "
                         f"recording per beat (title.wav, sparks.m4a, ...) or '{SPEAK}'.")
    voices: dict[str, np.ndarray] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        beat = path.name.split(".", 1)[0]
        if beat not in beats:
            raise InputError(f"{path} is named for no beat of this film; name each recording "
                             f"after its beat: {', '.join(beats)}.")
        if beat in voices:
            raise InputError(f"{path}: the {beat} beat has two recordings in {folder}; keep "
                             "one.")
        voices[beat] = decode(path)
    return Narration(voices=voices)


def decode(path: Path) -> np.ndarray:
    """The audio of ``path`` as mono float32 samples at ``RATE``. Raises InputError for a
    file that holds no audio PyAV can decode, or more than ``MAX_SECONDS`` of it."""
    import av

    try:
        with opened_checked(path, what=f"--narration {path.parent}",
                            max_bytes=MAX_RECORDING_BYTES, fix="; give a recording") as fh, \
                av.open(fh) as container:
            if not container.streams.audio:
                raise InputError(f"{path} holds no audio; give a recording (.wav, .m4a, "
                                 ".mp3, .ogg, ...).")
            resampler = av.AudioResampler(format="flt", layout="mono", rate=RATE)
            chunks, count = [], 0
            for frame in container.decode(audio=0):
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(-1))
                    count += chunks[-1].size
                if count > MAX_SECONDS * RATE:
                    raise InputError(f"{path} is longer than {MAX_SECONDS:.0f} s, the longest "
                                     "recording a beat takes; cut it or split the beat's "
                                     "text.")
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
    except InputError:
        raise                  # said already: never wrapped in "not audio (...)"
    except (av.FFmpegError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path} is not audio that can be decoded ({exc}); give a "
                         "recording (.wav, .m4a, .mp3, .ogg, ...).") from None
    samples = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    if samples.size == 0:
        raise InputError(f"{path} holds no sound; give a recording.")
    return samples.astype(np.float32)


def spoken(texts: dict[str, str]) -> dict[str, np.ndarray]:
    """Each text read aloud by the voice engine (a draft voice), by beat."""
    voices = {}
    with tempfile.TemporaryDirectory(prefix="attention-explainer-voice-") as folder:
        for beat, text in texts.items():
            if not text.strip():
                continue
            wav = Path(folder) / f"{beat}.wav"
            done = subprocess.run([VOICE_ENGINE, "-v", "en", "-s", "160", "-w", str(wav),
                                   "--", text], capture_output=True, text=True, timeout=120)
            if done.returncode != 0 or not wav.is_file():
                raise RuntimeError(f"{VOICE_ENGINE} could not read the {beat} beat's captions: "
                                   f"{done.stderr.strip()[:200]}")
            voices[beat] = decode(wav)
    return voices


def script(segments, spans, titles: dict[str, str]) -> str:
    """The film's narration script, for reading aloud: per beat its title, the time it
    has now (a longer recording stretches it) and its captions, one per line."""
    lines = []
    for n, (segment, (start, end)) in enumerate(zip(segments, spans), 1):
        lines += [f"## {n}. {titles[segment.beat]} ({segment.beat}.wav): {end - start:.1f} s, "
                  f"from {start:.1f} s", ""]
        lines += [text.replace("\n", " ") for _, _, text in segment.captions] or ["(no captions)"]
        lines.append("")
    return "\n".join(lines)


def sound_stream_in(out, codec: str = "aac"):
    """A mono sound stream in the container ``out`` (before its first packet): AAC in an
    MP4 (plays in PowerPoint, Keynote and browsers), Opus in a WebM."""
    return out.add_stream(codec, rate=RATE, layout="mono")


def encode_sound(out, stream, samples) -> None:
    """Encode ``samples`` (mono float32 at ``narration.RATE``) into ``stream`` of ``out``,
    from the film's start."""
    import av

    size = stream.codec_context.frame_size or 1024
    padded = np.zeros(-(-max(len(samples), 1) // size) * size, np.float32)
    padded[:len(samples)] = samples
    for first in range(0, padded.size, size):
        frame = av.AudioFrame.from_ndarray(padded[first:first + size].reshape(1, -1),
                                           format="fltp", layout="mono")
        frame.sample_rate, frame.pts, frame.time_base = RATE, first, Fraction(1, RATE)
        for packet in stream.encode(frame):
            out.mux(packet)
    for packet in stream.encode(None):
        out.mux(packet)


def extra_holds(segments, spans, narration: Narration) -> dict[str, float]:
    """Seconds each beat's last picture must be held longer so that its span lasts its
    voice and ``MARGIN`` more, rounded up to whole frames (only beats that need it)."""
    extras = {}
    for segment, (start, end) in zip(segments, spans):
        need = narration.seconds(segment.beat) + MARGIN - (end - start) if \
            narration.seconds(segment.beat) else 0.0
        if need > 1e-9:
            extras[segment.beat] = math.ceil(need * segment.fps - 1e-9) / segment.fps
    return extras


def film_track(spans, beats: list[str], narration: Narration, duration: float) -> np.ndarray:
    """The film's sound: each beat's voice from the start of its span, silence elsewhere
    (a voice is cut at its span's end: the beats were stretched to hold them)."""
    track = np.zeros(int(round(duration * RATE)), np.float32)
    for beat, (start, end) in zip(beats, spans):
        voice = narration.voices.get(beat)
        if voice is None:
            continue
        first, last = int(round(start * RATE)), int(round(end * RATE))
        part = voice[:max(0, min(last, track.size) - first)]
        track[first:first + part.size] += part
    return np.clip(track, -1.0, 1.0)
