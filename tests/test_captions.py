"""Your words on screen (issue 38): `--captions FILE`, the .srt a film wrote, translated,
goes into the film's captions, a pack's notes and deck and the draft voice (read in the
captions' language); a file with another count of captions, or a number the film does not
say in that caption, is refused before anything is written."""
from __future__ import annotations

import json
import re
import shutil

import pytest
import srt

from attention_explainer.app.captions import numbers_in, words_language
from tests.conftest import DEFAULT, assert_refused, run_warm

TINY = ["--resolution", "96x54", "--fps", "5"]
BEATS = ["--beats", "title,softmax"]


def french(text: str) -> str:
    """A caption "translated" in the test: French words around the caption's numbers."""
    numbers = re.findall(r"\d+(?:\.\d+)?", text)
    said = " et ".join(n.replace(".", ",") for n in numbers)       # 0.40 -> 0,40
    return f"Voici ce que dit cette légende, en français : {said or 'rien de plus'}."


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """The film of two beats, and its captions written again in French."""
    root = tmp_path_factory.mktemp("captions")
    proc = run_warm("render", DEFAULT, *BEATS, *TINY, "--quiet", "-o", root / "en.mp4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    captions = list(srt.parse((root / "en.srt").read_text(encoding="utf-8")))
    translated = [c.__class__(c.index, c.start, c.end, french(c.content)) for c in captions]
    (root / "translated.srt").write_text(srt.compose(translated), encoding="utf-8")
    return root, captions, translated


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_translated_srt_is_the_films_captions_and_its_voice(film):
    root, english, translated = film
    proc = run_warm("render", DEFAULT, *BEATS, *TINY, "--json", "--narration", "speak",
                       "--captions", root / "translated.srt", "-o", root / "fr.mp4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = list(srt.parse((root / "translated.srt").read_text(encoding="utf-8")))
    drawn = list(srt.parse((root / "fr.mp4").with_suffix(".srt").read_text(encoding="utf-8")))
    assert [c.content for c in drawn] == [c.content for c in written]
    assert json.loads(proc.stdout)["duration"] > 0
    assert words_language([c.content for c in drawn]) == "fr"     # the voice reads French


def test_a_pack_carries_the_translated_words_into_its_notes_and_deck(film, tmp_path):
    root, _, translated = film
    proc = run_warm("pack", DEFAULT, "--beats", "title", *TINY, "--quiet",
                       "--captions", root / "translated.srt", "--out", tmp_path / "pack")
    assert_refused(proc, f"has {len(translated)} captions; this film has")   # two beats' worth
    assert not (tmp_path / "pack").exists()
    proc = run_warm("render", DEFAULT, "--beats", "title", *TINY, "--quiet",
                       "-o", tmp_path / "title.mp4")
    count = len(list(srt.parse((tmp_path / "title.srt").read_text(encoding="utf-8"))))
    (tmp_path / "fr-title.srt").write_text(srt.compose(translated[:count]), encoding="utf-8")
    proc = run_warm("pack", DEFAULT, "--beats", "title", *TINY, "--quiet",
                       "--captions", tmp_path / "fr-title.srt", "--out", tmp_path / "pack")
    assert proc.returncode == 0, proc.stderr[-2000:]
    deck = (tmp_path / "pack" / "index.html").read_text(encoding="utf-8")
    assert "Voici ce que dit cette légende" in deck and 'srclang="fr"' in deck
    # the edited words travel inside the film and its clip too, as their subtitle tracks
    from attention_explainer.scenes.pipeline.subtitles import caption_track

    film_srt = list(srt.parse((tmp_path / "pack" / "explainer.srt").read_text("utf-8")))
    assert [text for _, _, text in caption_track(tmp_path / "pack" / "explainer.mp4")] == \
        [c.content for c in film_srt] == [c.content for c in translated[:count]]
    clip, = (tmp_path / "pack").glob("clips/*.mp4")
    assert [text for _, _, text in caption_track(clip)] == [c.content for c in film_srt]
    import av

    for made in (clip, tmp_path / "pack" / "explainer.mp4"):     # named in their language
        with av.open(str(made)) as box:
            assert box.streams.subtitles[0].metadata.get("language") == "fra", made


def test_a_changed_number_or_another_count_is_refused_before_anything_is_written(film, tmp_path):
    root, english, translated = film
    n, changed = next((n, c) for n, c in enumerate(translated, 1) if numbers_in(c.content))
    number = next(iter(numbers_in(changed.content)))
    wrong = list(translated)
    wrong[n - 1] = changed.__class__(changed.index, changed.start, changed.end,
                                     changed.content.replace(number.replace(".", ","), "999", 1))
    (tmp_path / "wrong.srt").write_text(srt.compose(wrong), encoding="utf-8")
    proc = run_warm("render", DEFAULT, *BEATS, *TINY, "--captions", tmp_path / "wrong.srt",
                       "-o", tmp_path / "x.mp4")
    assert_refused(proc, f"caption {n}", "999", "keep the film's numbers")
    (tmp_path / "short.srt").write_text(srt.compose(translated[:-1]), encoding="utf-8")
    proc = run_warm("render", DEFAULT, *BEATS, *TINY, "--captions", tmp_path / "short.srt",
                       "-o", tmp_path / "x.mp4")
    assert_refused(proc, f"{len(translated) - 1} captions", f"this film has {len(translated)}")
    (tmp_path / "junk.srt").write_text("not captions at all\n", encoding="utf-8")
    proc = run_warm("render", DEFAULT, *BEATS, *TINY, "--captions", tmp_path / "junk.srt",
                       "-o", tmp_path / "x.mp4")
    assert_refused(proc, "--captions")
    assert not list(tmp_path.glob("x.*"))


def test_a_slow_pace_keeps_every_caption_at_15_characters_a_second_or_fewer(film, tmp_path):
    """--pace slow: each caption stays up long enough to be read at 15 characters a second
    (the picture waits: the film grows), as the normal pace keeps 18; the gap before the
    next caption and a chapter's whole-frame end taken into account."""
    from attention_explainer.facts import PACES

    root, normal, _ = film
    proc = run_warm("render", DEFAULT, *BEATS, *TINY, "--quiet", "--pace", "slow",
                       "-o", tmp_path / "slow.mp4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    slow = list(srt.parse((tmp_path / "slow.srt").read_text(encoding="utf-8")))
    assert [c.content for c in slow] == [c.content for c in normal]

    def fastest(captions) -> float:
        return max(len(c.content) / (c.end - c.start).total_seconds() for c in captions)

    assert fastest(slow) <= PACES["slow"] < fastest(normal) <= PACES["normal"]
    assert slow[-1].end > normal[-1].end


def test_the_pace_times_the_narration_script_and_the_stills_as_the_film(run_cli, tmp_path):
    """--pace is the film's setting everywhere the film is timed: narration-script's beat
    lasts as long as the slow film's, and a still past the normal title's end exists at the
    slow pace (the beat is longer there too)."""
    seconds = {}
    for pace in ("normal", "slow"):
        code, out, err = run_cli("narration-script", DEFAULT, "--beats", "title", "--pace", pace)
        assert code == 0, err
        seconds[pace] = float(re.search(r"\(title\.wav\): ([\d.]+) s", out).group(1))
    assert seconds["slow"] > seconds["normal"] + 1
    late = f"{seconds['normal'] + 0.5:.1f}"
    code, _, err = run_cli("frames", DEFAULT, "--beat", "title", "--at", late, *TINY[:2],
                           "--out", tmp_path / "normal")
    assert code == 2 and "the title beat is only" in err
    code, _, err = run_cli("frames", DEFAULT, "--beat", "title", "--at", late, *TINY[:2],
                           "--out", tmp_path / "slow", "--pace", "slow")
    assert code == 0, err
    assert list((tmp_path / "slow").glob("title-*.png"))


def test_numbers_are_read_as_written_in_either_decimal_mark():
    assert numbers_in("0,40 et 0.40, W_Q, 7 × 7") == {"0.40": 2, "7": 2}
