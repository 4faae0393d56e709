"""The rendering API: beats render alone and together, numbers on screen come from the
trace, the MP4 is what players need, stills are deterministic, failures leave no debris.

Renders are tiny (160x90 or 320x180, 5 fps) and share one process, so the file stays fast.
Traces are computed by the real model (MiniLM, about a second each).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


MY_BEATS = ("pull", "heads", "mask", "summary")
SENTENCES = {"default": "The cat ate the fish", "chinese": "我爱北京天安门"}


def load(name: str):
    from attention_core import compute_trace
    return compute_trace(SENTENCES[name])


@pytest.fixture(scope="module")
def default():
    return load("default")


@pytest.fixture(scope="module")
def chinese():
    return load("chinese")


def twelve_heads(trace):
    """The default trace with its 4 heads repeated as 12 (layout test for --heads all)."""
    from attention_core.trace import AttentionTrace
    idx = [s % len(trace.heads) for s in range(12)]
    meta = dict(trace.meta, heads=list(range(12)), primary_head=11)
    t = AttentionTrace(tokens=trace.tokens, embeddings=trace.embeddings, q=trace.q[idx],
                       k=trace.k[idx], v=trace.v[idx], scores=trace.scores[idx],
                       mask=trace.mask, weights=trace.weights[idx],
                       context=trace.context[idx], output=trace.output, meta=meta)
    t.validate()
    return t


def causal(trace):
    """The default trace as if computed with a causal mask (weights renormalised)."""
    from attention_core.trace import AttentionTrace
    T = trace.num_tokens
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    s = np.where(mask[None], -np.inf, trace.scores.astype(np.float64))
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = (w / w.sum(axis=-1, keepdims=True)).astype(np.float32)
    t = AttentionTrace(tokens=trace.tokens, embeddings=trace.embeddings, q=trace.q, k=trace.k,
                       v=trace.v, scores=trace.scores, mask=mask, weights=w,
                       context=(w @ trace.v).astype(np.float32), output=trace.output,
                       meta=dict(trace.meta, mask="causal", model="scratch"))
    t.validate()
    return t


def assert_numbers_rederive(trace, shown):
    """Every number drawn re-derives from the trace alone, as the same text."""
    from scenes.numbers import format_number, lookup
    assert shown, "no numbers were recorded"
    for n in shown:
        expected = format_number(lookup(trace, n.kind, n.index), n.decimals, n.signed)
        assert n.text == expected, n


def video_stream_facts(path: Path) -> dict:
    import av
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return {"codec": stream.codec_context.name, "pix_fmt": stream.codec_context.pix_fmt,
                "size": (stream.width, stream.height), "fps": float(stream.average_rate),
                "frames": frames}


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


# ---- parsing ---------------------------------------------------------------------------
def test_resolutions_parse_and_odd_sizes_are_refused():
    from scenes.render import RESOLUTIONS, check_size, parse_resolution
    assert parse_resolution("1080p") == (1920, 1080) == RESOLUTIONS["1080p"]
    assert parse_resolution("4K") == (3840, 2160)
    assert parse_resolution("1280x720") == (1280, 720)
    assert all(w % 2 == 0 and h % 2 == 0 for w, h in RESOLUTIONS.values())
    for bad in ("1279x720", "1280x721", "huge", "0x0", "99999x2"):
        with pytest.raises(ValueError, match="1080p"):
            parse_resolution(bad)
    with pytest.raises(ValueError, match="odd"):
        check_size(161, 90)


def test_beat_registry_is_ordered_and_names_missing_beats():
    from scenes.explainer import BEATS, BEAT_NAMES, BeatUnavailable, load_beat, parse_beats
    assert list(BEATS) == list(BEAT_NAMES) == ["title", "embed", "project", "sparks",
                                               "softmax", "pull", "heads", "mask", "summary"]
    for name in MY_BEATS:
        assert BEATS[name].beat_name == name
    with pytest.raises(BeatUnavailable, match="unknown beat"):
        load_beat("nonsense")
    with pytest.raises(ValueError, match="pull"):
        parse_beats("pull,nonsense")
    assert parse_beats("mask, pull") == ["mask", "pull"]


# ---- each beat alone ---------------------------------------------------------------------
@pytest.mark.parametrize("beat", MY_BEATS)
def test_beat_renders_alone_and_its_numbers_come_from_the_trace(beat, default, tmp_path):
    from scenes.render import render_video
    result = render_video(default, beats=[beat], width=160, height=90, fps=5,
                          output=tmp_path / f"{beat}.mp4", progress=False)
    assert result.video.is_file() and result.poster.is_file()
    start, end = result.beat_times[beat]
    assert 6.0 <= end - start <= 16.0, "a beat should take about 7-12 s"
    assert start <= result.key_times[beat] <= end
    assert_numbers_rederive(default, result.shown_numbers)
    captions = result.captions.read_text(encoding="utf-8")
    assert captions.strip()
    if beat == "pull":      # the real weights, drawn and captioned
        shown = {(n.kind, n.index): n.text for n in result.shown_numbers}
        slot, f = default.primary_slot, default.focus_index
        cat, fish = default.tokens.index("cat"), default.tokens.index("fish")
        assert shown[("weights", (slot, f, fish))] == "0.38"
        assert shown[("weights", (slot, f, cat))] == "0.37"
        assert "ate gives 0.38 of its attention to fish, 0.37 to cat" in captions




def test_heads_lays_out_twelve_heads(default, tmp_path):
    from scenes.render import render_stills
    stills = render_stills(twelve_heads(default), beat="heads", times=["key"], width=320,
                           height=180, fps=5)
    assert stills["key"].size == (320, 180)


def test_mask_on_a_causal_trace_and_on_chinese(default, chinese, tmp_path):
    from scenes.render import render_video
    for name, trace in (("causal", causal(default)), ("chinese", chinese)):
        result = render_video(trace, beats=["mask"], width=160, height=90, fps=5,
                              output=tmp_path / f"{name}.mp4", progress=False)
        assert_numbers_rederive(trace, result.shown_numbers)
        kinds = {n.kind for n in result.shown_numbers}
        assert ("masked_score" in kinds) == (name == "causal")


# ---- the whole explainer --------------------------------------------------------------------
@pytest.mark.parametrize("name", ["default", "chinese"])
def test_full_explainer_renders_one_video(name, tmp_path):
    from scenes.explainer import BEAT_NAMES
    from scenes.render import render_video
    trace = load(name)
    out = tmp_path / "explainer.mp4"
    result = render_video(trace, beats=list(BEAT_NAMES), width=160, height=90, fps=5,
                          output=out, progress=False)
    assert list(result.beat_times) == list(BEAT_NAMES)
    assert 50 <= result.duration <= 120
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
    from attention_core.trace import AttentionTrace
    again = AttentionTrace.load(result.trace)
    assert np.array_equal(again.weights, trace.weights)
    srt = result.captions.read_text(encoding="utf-8")
    assert srt.count("-->") >= len(BEAT_NAMES)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []


# ---- stills ------------------------------------------------------------------------------
def test_stills_are_bit_identical_across_runs(default):
    from scenes.render import render_stills
    times = [0.0, 2.5, "key", "end"]
    a = render_stills(default, beat="pull", times=times, width=160, height=90, fps=5)
    b = render_stills(default, beat="pull", times=times, width=160, height=90, fps=5)
    assert list(a) == ["0.00s", "2.50s", "key", "end"]
    for label in a:
        assert np.array_equal(np.asarray(a[label]), np.asarray(b[label])), label
    assert np.asarray(a["key"]).max() > 0
    with pytest.raises(ValueError, match="long"):
        render_stills(default, beat="pull", times=[999.0], width=160, height=90, fps=5)


# ---- failure leaves nothing behind ----------------------------------------------------------
def test_a_failed_render_keeps_the_previous_file_and_leaves_no_temporary(default, tmp_path,
                                                                          monkeypatch):
    from scenes import render as render_module
    out = tmp_path / "talk.mp4"
    previous = {out: b"the previous good video", out.with_suffix(".png"): b"old poster"}
    for path, data in previous.items():
        path.write_bytes(data)

    def broken_build(scene):
        scene.wait(0.4)
        raise RuntimeError("boom in the middle of a beat")

    from scenes.beats import pull as pull_module
    monkeypatch.setattr(pull_module, "build_pull", broken_build)
    with pytest.raises(RuntimeError, match="boom"):
        render_module.render_video(default, beats=["pull"], width=160, height=90, fps=5,
                                   output=out, progress=False)
    for path, data in previous.items():
        assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["talk.mp4", "talk.png"]


def test_an_interrupt_while_writing_leaves_no_temporary(default, tmp_path, monkeypatch):
    from scenes import render as render_module
    out = tmp_path / "talk.mp4"
    out.write_bytes(b"old")

    def interrupted(source, target):
        Path(target).write_bytes(b"half a video")
        raise KeyboardInterrupt

    monkeypatch.setattr(render_module, "remux_faststart", interrupted)
    with pytest.raises(KeyboardInterrupt):
        render_module.render_video(default, beats=["summary"], width=160, height=90, fps=5,
                                   output=out, progress=False)
    assert out.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["talk.mp4"]
