"""A voice for the film: one recording per beat or per caption (``--narration DIR``), or a
draft read aloud from the captions by espeak-ng (``--narration speak``).

Voices per caption (the draft voice, or recordings named ``<beat>-<n>.wav``, n from 1):
the film is timed first, without drawing, for its captions; the draft voice speaks each
(written for the eye, QKᵀ and √d_k, it is read as words: :func:`speakable`; a word quoted
from the sentence in the sentence's language where espeak-ng has it); the film is then
drawn with each caption up at least as long as its voice and a ``PAUSE``
(``SegmentJob.caption_seconds``: the picture waits while it speaks), and each voice starts
with its caption.

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
import re
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

__all__ = ["MARGIN", "MAX_SECONDS", "PAUSE", "RATE", "SPEAK", "Narration", "decode",
           "encode_sound", "extra_holds", "film_track", "load_narration", "script",
           "sound_stream_in", "speakable", "spoken_captions"]

RATE = 48000            # samples per second of every voice and of the film's track
MAX_SECONDS = 300.0     # the longest recording a beat takes (a beat is a minute or two)
MARGIN = 0.5            # the beat's picture stays this long after its voice ends
PAUSE = 0.6             # a spoken caption stays up this long after its voice, to look
SPEAK = "speak"         # --narration speak: a draft voice from the captions
VOICE_ENGINE = "espeak-ng"


@dataclass
class Narration:
    """The voices of a film's beats, by beat: mono float32 samples at ``RATE``. ``speak``:
    a draft voice per caption (``captions``: each beat's, in order, spoken before the film
    is drawn, :meth:`spoken_for`), each placed at its caption's start once the beats are
    drawn (``placed``: (seconds into the film, samples), :meth:`voices_for`)."""

    voices: dict[str, np.ndarray] = field(default_factory=dict)
    speak: bool = False
    language: str | None = None      # the sentence's: its quoted words are read in it
    voice: str = "en"                # the language the captions are read in
    captions: dict[str, list] = field(default_factory=dict)    # beat -> a voice or None each
    placed: list = field(default_factory=list)
    # beat -> {caption number from 1: its recording} (``<beat>-<n>.wav``), before the film
    # is timed (:meth:`spoken_for` sets them in order)
    recorded_captions: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)

    @property
    def per_caption(self) -> bool:
        """Whether voices go caption by caption (a draft voice, or recordings per caption):
        the film is then timed first, and each caption held for its voice."""
        return self.speak or bool(self.recorded_captions)

    def seconds(self, beat: str) -> float:
        """How long ``beat``'s recording lasts (0: it has none)."""
        voice = self.voices.get(beat)
        return 0.0 if voice is None else len(voice) / RATE

    def spoken_for(self, texts: dict[str, list[str]]) -> Narration:
        """Each caption's voice for the captions ``texts`` (by beat, in order): the draft
        voice's, or the recording of each caption numbered (None where a caption has
        none). Raises InputError for a recording numbered past its beat's captions."""
        if self.speak:
            return Narration(speak=True, language=self.language, voice=self.voice,
                             captions=spoken_captions(texts, self.language, self.voice))
        captions = {}
        for beat, recorded in self.recorded_captions.items():
            count = len(texts.get(beat, []))
            beyond = sorted(n for n in recorded if n > count)
            if beyond:
                raise InputError(f"--narration: {beat}-{beyond[0]} names no caption; the "
                                 f"{beat} beat has {count} on this sentence "
                                 "(`narration-script` lists them).")
            captions[beat] = [recorded.get(n) for n in range(1, count + 1)]
        return Narration(voices=self.voices, captions=captions)

    def read_in(self, language: str | None) -> Narration:
        """This draft voice reading its captions in ``language`` (the captions' own, a
        translation's), where the voice engine speaks it; else as it was."""
        if language is None or language not in _voices():
            return self
        return Narration(speak=self.speak, language=self.language, voice=language)

    def caption_seconds(self, beat: str) -> tuple[float, ...]:
        """How long each caption of ``beat`` must stay up: its voice, then ``PAUSE`` (0: a
        caption with no voice keeps its reading time)."""
        return tuple(0.0 if v is None else round(len(v) / RATE + PAUSE, 3)
                     for v in self.captions.get(beat, []))

    def voices_for(self, segments, starts) -> Narration:
        """The voices for the drawn ``segments`` (each from its start in the film,
        ``starts``): the recordings, or each caption's voice placed at its caption's
        start."""
        if not self.captions:
            return self
        placed = []
        for segment, start in zip(segments, starts):
            voices = self.captions.get(segment.beat)
            if voices is None:
                continue
            if len(voices) != len(segment.captions):
                raise RuntimeError(f"the {segment.beat} beat drew {len(segment.captions)} "
                                   f"captions but {len(voices)} were timed")
            placed += [(start + caption[0], voice)
                       for caption, voice in zip(segment.captions, voices) if voice is not None]
        return Narration(voices=self.voices, speak=self.speak, language=self.language,
                         voice=self.voice, captions=self.captions, placed=placed)


def load_narration(source: str | Path | None, beats: list[str],
                   language: str | None = None) -> Narration | None:
    """The narration ``--narration`` names for a film of ``beats``: None, ``speak`` (the
    voice engine checked now; ``language``: the sentence's), or a folder of recordings
    named ``<beat>.<any audio suffix>``, each decoded and checked now. Raises InputError."""
    if source is None:
        return None
    if str(source) == SPEAK:
        if shutil.which(VOICE_ENGINE) is None:
            raise InputError(f"--narration {SPEAK} reads the captions with {VOICE_ENGINE}, "
                             f"which is not installed; install it (apt-get install "
                             f"{VOICE_ENGINE}; `attention-explainer doctor` says how "
                             "elsewhere) or give a folder of recordings.")
        return Narration(speak=True, language=language)
    folder = Path(source)
    if not folder.is_dir():
        raise InputError(f"--narration {source}: not a folder; give a folder holding one "
                         f"recording per beat (title.wav, sparks.m4a, ...) or '{SPEAK}'.")
    voices: dict[str, np.ndarray] = {}
    per_caption: dict[str, dict[int, np.ndarray]] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        stem = path.name.split(".", 1)[0]
        beat, dash, number = stem.rpartition("-") if re.fullmatch(r".+-\d+", stem) \
            else (stem, "", "")
        if beat not in beats:
            raise InputError(f"{path} is named for no beat of this film; name each recording "
                             f"after its beat ({', '.join(beats)}), or after a caption of "
                             "it (sparks-1.wav, sparks-2.wav, ...).")
        if (beat in voices and not dash) or (dash and int(number) in per_caption.get(beat, {})):
            raise InputError(f"{path}: {stem} has two recordings in {folder}; keep one.")
        if (beat in voices) if dash else (beat in per_caption):
            raise InputError(f"{path}: the {beat} beat has a recording of its own and "
                             f"recordings per caption in {folder}; keep one kind.")
        if dash and int(number) < 1:
            raise InputError(f"{path}: captions are counted from 1 ({beat}-1.wav is the "
                             "beat's first); rename it.")
        if dash:
            per_caption.setdefault(beat, {})[int(number)] = decode(path)
        else:
            voices[beat] = decode(path)
    return Narration(voices=voices, recorded_captions=per_caption)


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


# what is written for the eye, as it is read aloud (longest first where one holds another)
_SPOKEN_AS = [
    ("QKᵀ", " Q K transposed "), ("Kᵀ", " K transposed "), ("ᵀ", " transposed "),
    ("√d_k", " the square root of d k "), ("√", " the square root of "),
    ("d_k", " d k "), ("d_model", " d model "), ("W_Q", " W Q "), ("W_K", " W K "),
    ("W_V", " W V "), ("W_O", " W O "), ("ΔE", " delta E "), ("E′", " E prime "),
    ("−∞", " minus infinity "), ("∞", " infinity "), ("→", " to "), ("←", " from "),
    ("×", " times "), ("÷", " divided by "), ("≈", " about "), ("·", " dot "),
    ("−", " minus "), ("Σ", " the sum of "), ("≤", " at most "), ("≥", " at least "),
    ("[CLS]", " C L S "), ("[SEP]", " S E P "), ("[UNK]", " unknown "),
    ("…", ", "), ("—", ", "), ("–", " to "), ("“", ""), ("”", ""), ("\"", ""),
]


def speakable(text: str, language: str | None = None, voice: str = "en") -> str:
    """A caption as the voice engine should read it (SSML): symbols as words, and each
    word quoted from the sentence (‘…’) in the sentence's ``language`` when the engine
    has a voice for it (and it is not the ``voice``'s own)."""
    import html

    quoted = []

    def keep(match):           # a quoted word is the sentence's: never rewritten
        quoted.append(match.group(1))
        return f"\x00{len(quoted) - 1}\x00"

    text = re.sub("\u2018(.*?)\u2019", keep, text.replace("\n", " "))
    for written, said in _SPOKEN_AS:        # the symbols' words are English
        text = text.replace(written, f" \x01{said.strip()}\x02 " if said.strip() else said)
    text = html.escape(re.sub(r"\s+", " ", text).strip(), quote=False)
    english = voice != "en" and "en" in _voices()
    text = text.replace("\x01", '<voice xml:lang="en">' if english else "")
    text = text.replace("\x02", "</voice>" if english else "")
    own = language if language and language != voice and language in _voices() else None

    def word(match):
        said = html.escape(quoted[int(match.group(1))], quote=False)
        return f'<voice xml:lang="{own}">{said}</voice>' if own else said

    return re.sub("\x00(\\d+)\x00", word, text)


def _voices() -> frozenset[str]:
    """The languages the voice engine speaks (its voices' codes, and their first parts)."""
    done = subprocess.run([VOICE_ENGINE, "--voices"], capture_output=True, text=True,
                          timeout=30)
    codes = {line.split()[1] for line in done.stdout.splitlines()[1:] if len(line.split()) > 1}
    return frozenset(codes | {c.split("-")[0] for c in codes})


def spoken_captions(texts: dict[str, list[str]], language: str | None = None,
                    voice: str = "en") -> dict[str, list[np.ndarray]]:
    """Each caption read aloud by the voice engine (a draft voice), by beat and in order;
    the silence it begins with cut, so that a voice starts with its caption."""
    voices: dict[str, list[np.ndarray]] = {}
    with tempfile.TemporaryDirectory(prefix="attention-explainer-voice-") as folder:
        for beat, captions in texts.items():
            voices[beat] = []
            for n, caption in enumerate(captions):
                wav = Path(folder) / f"{beat}-{n}.wav"
                done = subprocess.run([VOICE_ENGINE, "-m", "-v", voice, "-s", "160", "-w",
                                       str(wav), "--", speakable(caption, language, voice)],
                                      capture_output=True, text=True, timeout=120)
                if done.returncode != 0 or not wav.is_file():
                    raise RuntimeError(f"{VOICE_ENGINE} could not read a caption of the "
                                       f"{beat} beat: {done.stderr.strip()[:200]}")
                heard = decode(wav)
                sound = np.nonzero(np.abs(heard) > 0.01)[0]
                voices[beat].append(heard[sound[0]:sound[-1] + 1] if sound.size
                                    else heard[:0])
    return voices


def script(segments, spans, titles: dict[str, str]) -> str:
    """The film's narration script, for reading aloud: per beat its title, the time it
    has now (a longer recording stretches it) and its captions, one per line, each with
    the name its own recording takes (``[sparks-2]``: sparks-2.wav)."""
    lines = []
    for n, (segment, (start, end)) in enumerate(zip(segments, spans), 1):
        lines += [f"## {n}. {titles[segment.beat]} ({segment.beat}.wav): {end - start:.1f} s, "
                  f"from {start:.1f} s", ""]
        lines += [f"[{segment.beat}-{n}] " + text.replace("\n", " ")
                  for n, (_, _, text) in enumerate(segment.captions, 1)] or ["(no captions)"]
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
    """The film's sound: each beat's recording from the start of its span (cut at its
    span's end: the beats were stretched to hold them), each spoken caption from its
    caption's start; silence elsewhere."""
    track = np.zeros(int(round(duration * RATE)), np.float32)
    for at, voice in narration.placed:
        first = int(round(at * RATE))
        part = voice[:max(0, track.size - first)]
        track[first:first + part.size] += part
    for beat, (start, end) in zip(beats, spans):
        voice = narration.voices.get(beat)
        if voice is None:
            continue
        first, last = int(round(start * RATE)), int(round(end * RATE))
        part = voice[:max(0, min(last, track.size) - first)]
        track[first:first + part.size] += part
    return np.clip(track, -1.0, 1.0)
