"""A voice for the film: a recording per beat stretches that beat to hold it (its picture
held longer, the captions moved with it), the others stay as they were, and the sound
goes into the MP4 and every clip of a pack as AAC, into a WebM as Opus, each beat's voice
from its start; bad recordings are refused before anything is written; `--narration speak`
reads the captions with espeak-ng; `narration-script` says what each beat has."""
from __future__ import annotations

import json
import shutil
from fractions import Fraction

import av
import numpy as np
import pytest
import srt

from attention_explainer.scenes.pipeline.narration import MARGIN, MAX_SECONDS, PAUSE, RATE
from tests.conftest import DEFAULT, assert_refused, run_warm

FPS = 5
TINY = ["--resolution", "96x54", "--fps", str(FPS)]
BEATS = "title,embed,sparks,softmax"


def tone(path, seconds: float, codec: str = "pcm_s16le") -> None:
    """A 440 Hz tone of ``seconds``, loud from its first sample."""
    samples = (0.5 * np.sin(2 * np.pi * 440 * np.arange(int(seconds * RATE)) / RATE))
    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=RATE, layout="mono")
        size = stream.codec_context.frame_size or 1024
        kind = "fltp" if codec == "aac" else "s16"
        for first in range(0, samples.size, size):
            chunk = samples[first:first + size]
            data = chunk.astype(np.float32) if kind == "fltp" else (chunk * 32767).astype(np.int16)
            frame = av.AudioFrame.from_ndarray(data.reshape(1, -1), format=kind, layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = RATE, first, Fraction(1, RATE)
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)


def render(*args):
    proc = run_warm("render", DEFAULT, "--beats", BEATS, *TINY, "--json", *args)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def spans(report) -> dict[str, tuple[float, float]]:
    return {c["beat"]: (c["start"], c["end"]) for c in report["chapters"]}


def sound_of(path) -> np.ndarray:
    with av.open(str(path)) as container:
        assert [s.codec_context.name for s in container.streams.audio] in (["aac"], ["opus"])
        return np.concatenate([f.to_ndarray()[0] for f in container.decode(audio=0)])


def onset(sound: np.ndarray, after: float) -> float:
    """The first moment from ``after`` on where the sound is loud, in seconds."""
    first = max(0, int(after * RATE))
    loud = np.nonzero(np.abs(sound[first:]) > 0.1)[0]
    return (first + loud[0]) / RATE if loud.size else float("inf")


@pytest.fixture(scope="module")
def narrated(tmp_path_factory):
    """The film of four beats plain, then with tones: title and sparks longer than their
    beats (a WAV and an M4A), embed shorter than its beat, softmax silent."""
    root = tmp_path_factory.mktemp("narrated")
    plain = render("-o", root / "plain.mp4")
    before = spans(plain)
    voices = root / "voices"
    voices.mkdir()
    lengths = {"title": before["title"][1] - before["title"][0] + 2.3,
               "embed": 1.0,
               "sparks": before["sparks"][1] - before["sparks"][0] + 3.1}
    tone(voices / "title.wav", lengths["title"])
    tone(voices / "embed.wav", lengths["embed"])
    tone(voices / "sparks.m4a", lengths["sparks"], "aac")
    voiced = render("--narration", voices, "-o", root / "voiced.mp4")
    return root, plain, voiced, lengths


def test_a_narrated_beat_lasts_its_recording_and_the_others_are_unchanged(narrated):
    root, plain, voiced, lengths = narrated
    before, after = spans(plain), spans(voiced)
    for beat, seconds in lengths.items():
        start, end = after[beat]
        assert end - start >= seconds, (beat, end - start, seconds)
    for beat in ("title", "sparks"):      # held just as long as needed: a frame at most more
        start, end = after[beat]
        assert end - start <= lengths[beat] + MARGIN + 1 / FPS + 1e-6, beat
    for beat in ("embed", "softmax"):
        assert np.isclose(after[beat][1] - after[beat][0], before[beat][1] - before[beat][0])


def test_the_sound_is_aac_and_each_voice_starts_with_its_beat(narrated):
    root, plain, voiced, lengths = narrated
    sound = sound_of(root / "voiced.mp4")
    assert abs(len(sound) / RATE - voiced["duration"]) < 0.1
    for beat in lengths:
        start = spans(voiced)[beat][0]
        assert abs(onset(sound, start - 0.5 / FPS) - start) <= 1 / FPS, beat
    softmax = spans(voiced)["softmax"]
    quiet = sound[int(softmax[0] * RATE) + RATE // 10:int(softmax[1] * RATE)]
    assert np.abs(quiet).max() < 0.01                  # a beat without a recording is silent
    with av.open(str(root / "plain.mp4")) as container:
        assert not container.streams.audio            # no narration, no sound track


def test_the_captions_move_with_the_stretched_beats(narrated):
    root, plain, voiced, _ = narrated
    shift = {}
    before, after = spans(plain), spans(voiced)
    for beat in before:
        shift[beat] = after[beat][0] - before[beat][0]
    old = list(srt.parse((root / "plain.srt").read_text(encoding="utf-8")))
    new = list(srt.parse((root / "voiced.srt").read_text(encoding="utf-8")))
    assert [c.content for c in old] == [c.content for c in new]
    for a, b in zip(old, new):
        beat = next(name for name, (s, e) in before.items()
                    if s - 1e-6 <= a.start.total_seconds() < e)
        # a caption of a stretched beat keeps its place in the beat, or moves by its hold
        moved = b.start.total_seconds() - a.start.total_seconds()
        assert moved >= shift[beat] - 0.002, (a.content, moved, shift[beat])
    assert shift["embed"] > 2 and shift["softmax"] > shift["embed"] + 3    # title, sparks


def test_every_clip_of_a_narrated_pack_has_its_voice_and_a_webm_opus(narrated, tmp_path):
    root, _, voiced, lengths = narrated
    proc = run_warm("pack", DEFAULT, "--beats", BEATS, *TINY, "--narration", root / "voices",
                       "--out", tmp_path / "pack")
    assert proc.returncode == 0, proc.stderr[-2000:]
    clips = sorted((tmp_path / "pack" / "clips").glob("*.mp4"))
    assert len(clips) == 4
    for clip, beat in zip(clips, BEATS.split(",")):
        sound = sound_of(clip)
        if beat in lengths:
            assert onset(sound, 0.0) <= 1 / FPS, clip.name     # its own voice, from its start
        else:
            assert np.abs(sound).max() < 0.01, clip.name
    webm = render("--narration", root / "voices", "-o", tmp_path / "voiced.webm")
    assert webm["duration"] == voiced["duration"]
    sound = sound_of(tmp_path / "voiced.webm")
    assert abs(onset(sound, 0.0)) <= 1 / FPS


def test_bad_recordings_are_refused_before_anything_is_written(tmp_path):
    cases = {
        "not audio": ("title.wav", lambda p: p.write_text("not a recording"), "not audio"),
        "no beat": ("mask.wav", lambda p: tone(p, 0.5), "named for no beat of this film"),
        "too long": ("title.wav", lambda p: tone(p, MAX_SECONDS + 1),
                     f"longer than {MAX_SECONDS:.0f} s"),
    }
    # a FIFO would block the open for ever (a Ctrl-C then said "not audio"), a device
    # read for ever; a file larger than any recording is refused by its size, unread
    import os

    cases["fifo"] = ("title.wav", os.mkfifo, "title.wav is not a regular file")
    cases["device"] = ("title.wav", lambda p: p.symlink_to("/dev/zero"),
                       "title.wav is not a regular file")
    cases["huge"] = ("title.wav", lambda p: (p.write_bytes(b""), os.truncate(p, 600 << 20)),
                     "title.wav is 600 MB, more than the 512 MB it may be")
    for name, (file, make, said) in cases.items():
        voices = tmp_path / name / "voices"
        voices.mkdir(parents=True)
        make(voices / file)
        out = tmp_path / name / "out"
        proc = run_warm("render", DEFAULT, "--beats", "title,embed", *TINY,
                           "--narration", voices, "-o", out / "talk.mp4", timeout=120)
        assert_refused(proc, said)
        assert name == "not audio" or "not audio" not in proc.stderr, proc.stderr  # never nested
        assert not out.exists(), name
    proc = run_warm("render", DEFAULT, "--narration", tmp_path / "nowhere", *TINY,
                       "-o", tmp_path / "x.mp4")
    assert_refused(proc, "not a folder")


@pytest.mark.skipif(shutil.which("espeak-ng") is None,
                    reason="espeak-ng is not installed (make test installs it from Debian; "
                           "apt-get install espeak-ng): --narration speak was not tried")
def test_speak_reads_each_caption_as_it_appears_and_stops_before_the_next(tmp_path):
    """The draft voice of the default film speaks caption by caption: each caption's
    speech starts within one frame of the caption and is over before the next caption
    begins (the picture waited for it); every beat is voiced (issue 38, acceptance 3)."""
    proc = run_warm("render", DEFAULT, *TINY, "--json", "--narration", "speak",
                       "-o", tmp_path / "spoken.mp4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    sound = sound_of(tmp_path / "spoken.mp4")
    captions = list(srt.parse((tmp_path / "spoken.srt").read_text(encoding="utf-8")))
    assert len(captions) > 30
    frame = 1 / FPS
    for caption, following in zip(captions, captions[1:]):
        start, next_start = caption.start.total_seconds(), following.start.total_seconds()
        assert abs(onset(sound, start - frame / 2) - start) <= frame, caption.content
        tail = sound[int((next_start - 0.2) * RATE):int(next_start * RATE)]
        assert np.abs(tail).max() < 0.05, f"still speaking when {following.content!r} came"
    for beat, (start, end) in spans(report).items():
        voiced = np.abs(sound[int(start * RATE):int(end * RATE)]).max()
        assert voiced > 0.05, f"the {beat} beat is silent"


@pytest.mark.skipif(shutil.which("espeak-ng") is None,
                    reason="espeak-ng is not installed: its voices were not listed")
def test_what_is_written_for_the_eye_is_spoken_as_words():
    from attention_explainer.scenes.pipeline.narration import speakable

    said = speakable("softmax(QKᵀ/√d_k) → 0.40 × ‘chat’; ΔE, 26 %", "fr")
    assert "Q K transposed" in said and "the square root of d k" in said
    assert " to 0.40 times " in said and "delta E" in said and "26 %" in said   # its own
    assert '<voice xml:lang="fr">chat</voice>' in said      # the sentence's own word
    assert "‘" not in said and "→" not in said
    assert speakable("‘ate’ & ‘<b>’", "en") == "ate &amp; &lt;b&gt;"    # SSML, escaped


def test_a_recording_per_caption_starts_with_its_caption_which_waits_for_it(tmp_path):
    """`sparks-2.wav` is the sparks beat's second caption's voice: it plays from that
    caption's start, the caption stays up while it plays and a pause after; a recording
    numbered past the beat's captions is refused before anything is written."""
    voices = tmp_path / "voices"
    voices.mkdir()
    tone(voices / "sparks-2.wav", 6.0)
    render("--narration", voices, "--beats", "title,sparks", "-o", tmp_path / "v.mp4")
    sound = sound_of(tmp_path / "v.mp4")
    captions = list(srt.parse((tmp_path / "v.srt").read_text(encoding="utf-8")))
    spoken = [c for c in captions if np.abs(sound[int(c.start.total_seconds() * RATE):
                                                  int(c.end.total_seconds() * RATE)]).max() > 0.1]
    assert len(spoken) == 1 and spoken[0].content.startswith("Bold arcs"), spoken
    start = spoken[0].start.total_seconds()
    assert abs(onset(sound, start - 0.1) - start) <= 1 / FPS
    following = captions[captions.index(spoken[0]) + 1].start.total_seconds()
    assert following - start >= 6.0 + PAUSE - 1 / FPS - 1e-6     # the .srt keeps ms
    tone(voices / "sparks-9.wav", 1.0)
    proc = run_warm("render", DEFAULT, "--beats", "title,sparks", *TINY, "--narration",
                       voices, "-o", tmp_path / "w.mp4")
    assert_refused(proc, "sparks-9 names no caption")
    assert not (tmp_path / "w.mp4").exists() and not (tmp_path / "w.srt").exists()


def test_the_narration_script_gives_each_beat_its_time_and_captions():
    proc = run_warm("narration-script", DEFAULT, "--beats", "title,embed", *TINY)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "(title.wav)" in out and "(embed.wav)" in out
    assert "\u2018ate\u2019: who does it, and to what?" in out       # the question, a caption
