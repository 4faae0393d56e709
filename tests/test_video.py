"""The whole explainer as one MP4 that players take (H.264, yuv420p, faststart, captions,
poster, trace), the one beat parser of the API and the command line, and failures or
interrupts of the API that leave the previous files untouched and no temporary behind
(the command line's are in test_sacred_files.py)."""
from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from tests.conftest import assert_numbers_rederive
from tests.videos import frame_rate, shown_count

SENTENCES = {"default": "The cat ate the fish", "chinese": "我爱北京天安门"}


def load(name: str):
    from attention_explainer.attention_core import compute_trace
    return compute_trace(SENTENCES[name])


def video_stream_facts(path: Path) -> dict:
    import av
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return {"codec": stream.codec_context.name, "pix_fmt": stream.codec_context.pix_fmt,
                "size": (stream.width, stream.height), "fps": float(frame_rate(path)),
                "frames": shown_count(path)}


def top_level_atoms(path: Path) -> list[str]:
    """The MP4's top-level box names, in order (faststart puts moov before mdat)."""
    data, names, pos = path.read_bytes(), [], 0
    while pos + 8 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], "big")
        names.append(data[pos + 4:pos + 8].decode("latin-1"))
        if size == 1:
            size = int.from_bytes(data[pos + 8:pos + 16], "big")
        if size < 8:
            break
        pos += size
    return names


def test_resolutions_parse_and_odd_sizes_are_refused():
    from attention_explainer.scenes.pipeline.formats import RESOLUTIONS, check_size, parse_resolution
    assert parse_resolution("1080p") == (1920, 1080, "1080p")
    assert RESOLUTIONS["1080p"] == (1920, 1080)
    assert parse_resolution("4K") == (3840, 2160, "4k")
    assert parse_resolution("1280x720") == (1280, 720, "1280x720")
    assert all(w % 2 == 0 and h % 2 == 0 for w, h in RESOLUTIONS.values())
    for bad in ("1279x720", "1280x721", "huge", "0x0", "99999x2"):
        with pytest.raises(ValueError, match="1080p"):
            parse_resolution(bad)
    with pytest.raises(ValueError, match="odd"):
        check_size(161, 90)


def test_beats_come_in_storyboard_order_from_one_parser(run_cli, tmp_path, monkeypatch):
    """`--beats mask,pull` and the API's beats=["mask", "pull"] give the same video order."""
    from attention_explainer.app import film as render_module
    from attention_explainer.scenes.film.registry import (BEAT_NAMES, FILM_BEATS, BeatUnavailable,
                                                          load_beat, parse_beats)
    from attention_explainer.facts import BEATS

    # the storyboard is facts.BEATS, in its order; an optional beat is drawn only when named
    assert list(BEAT_NAMES) == [b.name for b in BEATS]
    assert parse_beats("all") == list(FILM_BEATS) == [b.name for b in BEATS if not b.optional]
    optional = next(b.name for b in BEATS if b.optional)
    assert parse_beats(f"{optional},title") == ["title", optional]
    for name in BEAT_NAMES:
        assert load_beat(name).name == name
    with pytest.raises(BeatUnavailable, match="unknown beat"):
        load_beat("nonsense")
    with pytest.raises(ValueError, match="nonsense"):
        parse_beats("pull,nonsense")
    assert parse_beats("mask, pull") == parse_beats(["mask", "pull"]) == ["pull", "mask"]
    asked = []

    def recording(trace, *, beats, **kwargs):
        asked.append(list(beats))
        raise KeyboardInterrupt          # stop before drawing: the order is what we test

    monkeypatch.setattr(render_module, "render_video", recording)
    code, _, _ = run_cli("render", "--beats", "mask,pull", "-o", tmp_path / "x.mp4")
    assert code == 130 and asked == [["pull", "mask"]]


@pytest.mark.parametrize("name", ["default", "chinese"])
def test_full_explainer_renders_one_video(name, tmp_path):
    from attention_explainer.facts import FILM_BEATS, TRACE_BEATS
    from attention_explainer.app.film import render_video
    trace = load(name)
    out = tmp_path / "explainer.mp4"
    # the default film, and for one sentence every beat a trace draws (the optional too)
    beats = list(TRACE_BEATS if name == "default" else FILM_BEATS)
    result = render_video(trace, beats=beats, width=160, height=90, fps=5,
                          output=out, progress=False)
    assert list(result.beat_times) == beats
    # every beat, the optional position beat too: each about its typical length (a beat
    # that stalls or skips its steps would not be)
    from attention_explainer.facts import beat_facts

    typical = sum(beat_facts(b).seconds for b in beats)
    assert 0.8 * typical <= result.duration <= 1.2 * typical, (result.duration, typical)
    facts = video_stream_facts(out)
    assert facts["codec"] == "h264" and facts["pix_fmt"] == "yuv420p"
    assert facts["size"] == (160, 90) and facts["fps"] == 5
    assert abs(facts["frames"] - round(result.duration * 5)) <= 1
    atoms = top_level_atoms(out)
    assert atoms.index("moov") < atoms.index("mdat"), "not faststart"
    assert_numbers_rederive(trace, result.shown_numbers)
    from PIL import Image
    with Image.open(result.poster) as poster:
        assert poster.size == (160, 90)
        assert np.asarray(poster).max() > 0, "the poster is black"
    from attention_explainer.attention_core.trace import AttentionTrace
    again = AttentionTrace.load(result.trace)
    assert np.array_equal(again.weights, trace.weights)
    srt = result.captions.read_text(encoding="utf-8")
    assert srt.count("-->") >= len(beats)
    # captions in step: none outlasts the film, each lies inside one beat's span (its
    # chapter), and the first starts once the film has begun to build, not over a title
    # held alone while it is read
    import srt as srt_format

    from attention_explainer.scenes.film.claims import captions_out_of_step
    from attention_explainer.scenes.vocabulary import style
    spans = list(result.beat_times.values())
    captions = [(c.start.total_seconds(), c.end.total_seconds(), c.content)
                for c in srt_format.parse(srt)]
    assert not captions_out_of_step(captions, spans, result.duration, style.T_SHORT)
    # the same captions travel inside the MP4, as its subtitle track, to the millisecond
    from attention_explainer.scenes.pipeline.subtitles import caption_track

    assert caption_track(out) == [(round(a * 1000), round(b * 1000), text)
                                  for a, b, text in captions]
    with av.open(str(out)) as box:                   # our own captions: in English
        assert box.streams.subtitles[0].metadata.get("language") == "eng"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []
    if name == "default":
        # narration-script's times, known without drawing a frame, are the film's own
        from attention_explainer.scenes.pipeline.join import segment_starts, write_captions
        from attention_explainer.scenes.pipeline.render import film_timing

        segments, spans = film_timing(trace, beats=beats, width=160, height=90, fps=5,
                                      jobs=2)
        assert dict(zip(beats, spans)) == result.beat_times
        starts = segment_starts(segments)
        assert {s.beat: start + s.key_time for s, start in zip(segments, starts)} == \
            result.key_times
        write_captions(segments, starts, tmp_path / "timed.srt")
        assert (tmp_path / "timed.srt").read_text(encoding="utf-8") == srt


def test_a_failed_render_keeps_the_previous_file_and_leaves_no_temporary(default_trace, tmp_path,
                                                                          monkeypatch):
    from attention_explainer.app import film as render_module
    out = tmp_path / "talk.mp4"
    previous = {out: b"the previous good video", out.with_suffix(".png"): b"old poster"}
    for path, data in previous.items():
        path.write_bytes(data)

    def broken_script(beat):
        beat.wait(0.4)
        raise RuntimeError("boom in the middle of a beat")

    from attention_explainer.scenes.film.beats import pull as pull_module
    monkeypatch.setattr(pull_module.PullBeat, "script", broken_script)
    with pytest.raises(RuntimeError, match="boom"):
        render_module.render_video(default_trace, beats=["pull"], width=160, height=90, fps=5,
                                   output=out, force=True, progress=False)
    for path, data in previous.items():
        assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["talk.mp4", "talk.png"]


def test_an_interrupt_while_writing_leaves_no_temporary(default_trace, tmp_path, monkeypatch):
    from attention_explainer.scenes.pipeline import join as join_module
    from attention_explainer.app import film as render_module
    out = tmp_path / "talk.mp4"
    out.write_bytes(b"old")

    def interrupted(sources, target, *rest, **named):
        Path(target).write_bytes(b"half a video")
        raise KeyboardInterrupt

    monkeypatch.setattr(join_module, "join_segments", interrupted)
    with pytest.raises(KeyboardInterrupt):
        render_module.render_video(default_trace, beats=["summary"], width=160, height=90, fps=5,
                                   output=out, force=True, progress=False)
    assert out.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["talk.mp4"]


def test_a_process_forked_after_a_beat_is_encoded_here_frees_its_encoder(tmp_path):
    """A beat drawn in this process (one worker, a notebook) leaves nothing a later fork
    (the next render's workers) inherits half-alive: a frame converter that kept its own
    threads hung the forked worker that freed it. Here a beat's video is still open when
    the process forks; the child frees it and exits at once."""
    import gc
    import os
    import time

    import numpy as np

    from attention_explainer.scenes.pipeline import encoding
    from attention_explainer.scenes.pipeline.capture import SegmentVideo

    video = SegmentVideo(tmp_path / "beat.mp4", width=64, height=36, fps=10,
                         options=encoding.options("final", 64, 36, 10))
    for shade in (0, 90, 180):
        video.write(np.full((36, 64, 4), shade, np.uint8), repeat=2)
    pid = os.fork()
    if pid == 0:                      # the child: free what it inherited, then go
        del video
        gc.collect()
        os._exit(0)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("the forked process hung freeing the video it inherited")
    assert os.waitstatus_to_exitcode(status) == 0
    video.close()
