"""Beats as tasks: a parallel render equals a sequential one, the beat cache gives back
byte-identical films, and a killed render never leaves an entry a later render uses."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import av
import numpy as np
import pytest

from attention_explainer.scenes.pipeline.beat_cache import MANIFEST, BeatCache
from attention_explainer.app.film import render_video
from tests.videos import frame_rate, shown_count, shown_frames

SIZE = dict(width=160, height=90, fps=5)


def _frames_at(video: Path, times: dict) -> dict:
    """Decoded RGB frames at the given seconds (frame round(t * fps))."""
    fps, frames = frame_rate(video), shown_frames(video)
    return {name: frames[int(round(t * fps))] for name, t in times.items()}


@pytest.fixture(scope="module")
def renders(default_trace, tmp_path_factory):
    """The default film three times: sequential filling a cache, parallel without it, and
    parallel again from the cache."""
    root = tmp_path_factory.mktemp("beat-tasks")
    cache = BeatCache(root / "cache")
    sequential = render_video(default_trace, beats="all", output=root / "a" / "film.mp4",
                              progress=False, jobs=1, cache=cache, **SIZE)
    parallel = render_video(default_trace, beats="all", output=root / "b" / "film.mp4",
                            progress=False, jobs=2, cache=None, **SIZE)
    cached = render_video(default_trace, beats="all", output=root / "c" / "film.mp4",
                          progress=False, jobs=2, cache=cache, **SIZE)
    return sequential, parallel, cached, cache


def test_parallel_and_sequential_renders_show_the_same_key_frames(renders):
    sequential, parallel, _, _ = renders
    assert sequential.key_times == parallel.key_times
    assert sequential.beat_times == parallel.beat_times
    a = _frames_at(sequential.video, sequential.key_times)
    b = _frames_at(parallel.video, parallel.key_times)
    assert set(a) == set(sequential.beats)
    for beat in sequential.beats:
        assert np.array_equal(a[beat], b[beat]), beat
    assert sequential.poster.read_bytes() == parallel.poster.read_bytes()
    assert sequential.video.read_bytes() == parallel.video.read_bytes()


def test_a_second_render_takes_every_beat_from_the_cache_byte_for_byte(renders):
    sequential, _, cached, cache = renders
    assert sequential.cached_beats == []
    assert cached.cached_beats == cached.beats
    for name in ("video", "captions", "poster", "trace"):
        assert getattr(sequential, name).read_bytes() == getattr(cached, name).read_bytes(), name
    assert len(cache.entries()) == len(sequential.beats)


def test_the_joined_film_is_one_faststart_h264_stream_with_every_frame(renders):
    sequential = renders[0]
    head = sequential.video.read_bytes()[:64]
    assert head.index(b"moov") < 64          # the index comes first: plays while loading
    with av.open(str(sequential.video)) as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.name, stream.codec_context.pix_fmt) == ("h264", "yuv420p")
    assert shown_count(sequential.video) == round(sequential.duration * SIZE["fps"])
    starts = sorted(start for start, _ in sequential.beat_times.values())
    captions = sequential.captions.read_text(encoding="utf-8")
    assert captions.count("-->") >= len(starts)


def test_ending_the_film_elsewhere_renders_only_the_beat_that_changed(default_trace, renders,
                                                                     tmp_path):
    """The last beat of a film holds instead of handing off, so it is another task; the
    beats before it are the same tasks and come from the cache."""
    cache = renders[3]
    result = render_video(default_trace, beats="title,embed,project", output=tmp_path / "f.mp4",
                          progress=False, jobs=1, cache=cache, **SIZE)
    assert result.cached_beats == ["title", "embed"]


def test_a_failed_build_leaves_no_entry_and_killed_builds_are_swept(tmp_path):
    cache = BeatCache(tmp_path)
    with pytest.raises(RuntimeError):
        with cache.building("k" * 40) as private:
            (private / "segment.mp4").write_bytes(b"half")
            raise RuntimeError("killed half-way")
    assert cache.get("k" * 40) is None and cache.entries() == []
    # a build whose process died: its folder stays private (no key name), its lock file
    # free, then is swept (one without a lock file waits a minute: tests/test_cache_races.py)
    beats = tmp_path / "beats"
    leftover = beats / ".building-kkkk-x"
    leftover.mkdir(parents=True)
    (leftover / MANIFEST).write_text("{}")
    (leftover / ".lock").touch()
    assert cache.get("kkkk") is None
    assert cache.sweep() == 1 and not leftover.exists()


def test_a_killed_render_leaves_only_complete_entries(default_trace, tmp_path):
    """SIGKILL a render half-way: every entry with a key's name is complete (its MP4 holds
    as many frames as its manifest says) and the next render uses only those."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    trace_file = default_trace.save(tmp_path / "trace.npz")
    command = [sys.executable, "-m", "attention_explainer.cli", "render", "--trace",
               str(trace_file), "--resolution", "160x90", "--fps", "5", "--jobs", "2",
               "-o", str(tmp_path / "killed.mp4"), "--quiet"]
    process = subprocess.Popen(command, env=env, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    beats = tmp_path / "xdg" / "attention-explainer" / "beats"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if beats.is_dir() and any(p.name.startswith(".building-") for p in beats.iterdir()) \
                and any(not p.name.startswith(".") for p in beats.iterdir()):
            break            # one beat done, others being built: kill it now
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL         # killed half-way, not finished
    cache = BeatCache(tmp_path / "xdg" / "attention-explainer")
    for entry in cache.entries():
        manifest = json.loads((entry / MANIFEST).read_text())
        assert shown_count(entry / "segment.mp4") == manifest["frames"], entry.name
    complete = len(cache.entries())
    result = render_video(default_trace, beats="all", output=tmp_path / "after.mp4",
                          progress=False, jobs=2, cache=cache, **SIZE)
    assert len(result.cached_beats) == complete
    assert not list(beats.glob(".building-*"))       # swept once their builders were gone
    assert not (tmp_path / "killed.mp4").exists()
