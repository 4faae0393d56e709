"""`render -o talk.webm` and `-o talk.gif`: the film re-encoded for web pages (VP9, or a GIF
at a capped rate and width with one palette), written as the same set with its sidecars,
decoding to the film's size and length; any other suffix is refused before anything is
written. Renders are tiny (the title beat at 160x90)."""
from __future__ import annotations

import json
import pytest

from attention_explainer.facts import GIF_MAX_FPS, GIF_MAX_WIDTH
from tests.conftest import DEFAULT

FPS = 20


def decoded(path):
    import av
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return stream.codec_context.name, stream.width, stream.height, frames


@pytest.mark.parametrize("suffix, codec", [(".webm", "vp9"), (".gif", "gif")])
def test_a_web_format_decodes_to_the_films_size_and_length(suffix, codec, run_cli, tmp_path):
    target = tmp_path / f"talk{suffix}"
    code, out, err = run_cli("render", DEFAULT, "--beats", "title", "--resolution", "160x90",
                             "--fps", FPS, "-o", target, "--json")
    assert code == 0, err
    facts = json.loads(out)
    name, width, height, frames = decoded(target)
    assert (name, width, height) == (codec, 160, 90)
    rate = FPS if suffix == ".webm" else min(FPS, GIF_MAX_FPS)
    # every frame of the film, or (a GIF) as many as its capped rate shows in that time
    assert abs(frames - facts["duration"] * rate) <= 1, (frames, facts["duration"])
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(f"talk{s}" for s in (suffix, ".srt", ".png", ".npz"))


def test_a_gif_is_narrowed_and_keeps_its_shape():
    from attention_explainer.scenes.pipeline.web_formats import gif_size
    assert gif_size(1920, 1080) == (GIF_MAX_WIDTH, round(1080 * GIF_MAX_WIDTH / 1920))
    assert gif_size(320, 180) == (320, 180)
    assert all(n % 2 == 0 for n in gif_size(3840, 2160))


def test_a_gif_drops_frames_evenly(tmp_path):
    """A 30 fps film of 2 s as a GIF: GIF_MAX_FPS frames a second, in order."""
    import av
    import numpy as np

    from attention_explainer.scenes.pipeline.web_formats import transcode
    source = tmp_path / "film.mp4"
    with av.open(str(source), "w") as out:
        stream = out.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 64, 36, "yuv420p"
        for n in range(60):
            image = np.full((36, 64, 3), 4 * n, np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    transcode(source, tmp_path / "film.gif", fps=30, frames=60)
    with av.open(str(tmp_path / "film.gif")) as gif:
        shades = [int(f.to_ndarray(format="rgb24", threads=1)[0, 0, 0]) for f in gif.decode(video=0)]
    assert len(shades) == 2 * GIF_MAX_FPS
    assert shades == sorted(shades) and len(set(shades)) > GIF_MAX_FPS   # in order


def test_another_suffix_is_refused_and_nothing_is_written(tmp_path):
    from tests.conftest import assert_refused, run_warm
    proc = run_warm("render", "-o", tmp_path / "talk.avi", cwd=tmp_path)
    assert_refused(proc, "'talk.avi' must end in .mp4, .webm or .gif")
    assert list(tmp_path.iterdir()) == []
