"""Captions inside the film (issue 60): every MP4 carries its captions as a subtitle track
(tests/test_video.py, test_captions.py check the track equals the .srt), and
`--burn-captions` draws them into the frames too, in a band below the picture, which is
drawn smaller so that no caption ever covers it."""
from __future__ import annotations

import numpy as np
import pytest
import srt
from PIL import Image

from attention_explainer.scenes.pipeline.burn import picture_size
from attention_explainer.scenes.pipeline.regression import compare
from attention_explainer.scenes.pipeline.subtitles import caption_track
from tests.conftest import run_process
from tests.make_golden import BURNT_ARGS, BURNT_POSTER, TRACE
from tests.videos import shown_frames

WIDTH, HEIGHT = 320, 180


@pytest.fixture(scope="module")
def burnt(tmp_path_factory):
    """The softmax beat of the golden trace, its captions burnt in, as make_golden draws
    its poster."""
    folder = tmp_path_factory.mktemp("burnt")
    proc = run_process("render", "--trace", TRACE, *BURNT_ARGS, "--quiet", "-o",
                       folder / "burnt.mp4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return folder


def frames_of(path) -> list[np.ndarray]:
    return shown_frames(path)


def test_the_burnt_poster_matches_its_golden(burnt):
    """The poster is the key frame above the band with the caption of its moment: a change
    of the band's drawing or of the caption's place shows here (`make golden` writes it)."""
    with Image.open(burnt / "burnt.png") as fresh, Image.open(BURNT_POSTER) as golden:
        result = compare("burnt/poster.png", fresh.convert("RGB"),
                         golden.convert("RGB"))
    assert result.passed, result


def test_each_frame_shows_its_caption_below_the_picture_and_the_film_keeps_its_size(burnt):
    frames = frames_of(burnt / "burnt.mp4")
    assert frames[0].shape == (HEIGHT, WIDTH, 3)
    _, picture_height = picture_size(WIDTH, HEIGHT)
    cues = caption_track(burnt / "burnt.mp4")
    written = [(round(c.start.total_seconds() * 1000), round(c.end.total_seconds() * 1000),
                c.content) for c in srt.parse((burnt / "burnt.srt").read_text("utf-8"))]
    assert cues == written and len(cues) >= 2          # the track is the .srt, burnt or not
    fps = 10

    def band_at(ms: float) -> np.ndarray:
        return frames[min(int(ms / 1000 * fps), len(frames) - 1)][picture_height + 2:]

    def lit(pixels: np.ndarray) -> float:
        return float((pixels.max(axis=2) > 128).mean())

    # while a caption is up its words are in the band; two captions, two bands
    first, second = ((a + b) / 2 for a, b, _ in cues[:2])
    assert lit(band_at(first)) > 0.002 and lit(band_at(second)) > 0.002
    assert np.abs(band_at(first).astype(int) - band_at(second)).max() > 100
    # before the first caption the band is the stage's colour alone
    if cues[0][0] >= 1000 / fps * 2:
        assert lit(band_at(0)) == 0.0


def test_a_burnt_pack_draws_the_captions_into_every_clip_and_poster(tmp_path):
    """`pack --burn-captions`: a slide program plays a clip without its subtitle track, so
    each clip shows its captions in the band below the picture, as the film does; its
    poster too (the slides' and the handout's picture); the web deck then writes no band
    of its own (the same words twice)."""
    pack = tmp_path / "pack"
    proc = run_process("pack", "--trace", TRACE, "--beats", "title,softmax", "--resolution",
                       f"{WIDTH}x{HEIGHT}", "--fps", "10", "--burn-captions", "--quiet",
                       "--out", pack)
    assert proc.returncode == 0, proc.stderr[-2000:]
    _, picture_height = picture_size(WIDTH, HEIGHT)
    for clip in sorted((pack / "clips").glob("*.mp4")):
        frames = frames_of(clip)
        assert frames[0].shape == (HEIGHT, WIDTH, 3)
        cues = caption_track(clip)
        assert cues, clip
        start, end, _ = cues[0]
        middle = frames[min(int((start + end) / 2 / 100), len(frames) - 1)]
        band = middle[picture_height + 2:]
        assert float((band.max(axis=2) > 128).mean()) > 0.002, clip      # its words there
        with Image.open(clip.with_suffix(".png")) as poster:
            assert poster.size == (WIDTH, HEIGHT)
    deck = (pack / "index.html").read_text(encoding="utf-8")
    assert deck.count('class="caption" aria-live="polite" hidden') == 2
