"""A film of a chosen length (issue 38): `--length short` keeps the question (the first
beat) and the answer (the last), every hold at its floor, and the other beats in
facts.KEPT_FIRST's order while the film fits 90 s, and says which; the short film passes
the layout and claims audits, on sentences of several scripts."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attention_explainer.facts import FILM_BEATS, LENGTHS
from tests.conftest import DEFAULT, assert_refused, run_warm
from tests.layout_corpus import audit_film, sum_faults
from tests.videos import shown_count

SHORT = LENGTHS["short"]
SENTENCES = [(DEFAULT, {}), ("小猫吃了一条鱼", {}), ("She gave him the book because he asked", {})]


def fitted(sentence: str, options: dict):
    from attention_explainer.app.length import fitted_film
    from attention_explainer.attention_core import compute_trace

    trace = compute_trace(sentence, **options)
    return trace, fitted_film(trace, list(FILM_BEATS), SHORT, workers=2, width=320,
                              height=180, fps=30, quality="final")


@pytest.mark.parametrize("sentence, options", SENTENCES, ids=["default", "chinese", "pronoun"])
def test_a_short_film_keeps_the_question_and_the_answer_and_passes_the_audits(
        sentence, options, tmp_path):
    from attention_explainer.scenes.film.claims import claim_faults

    _, film = fitted(sentence, options)
    assert film.seconds <= SHORT, film.line()
    assert film.kept[0] == FILM_BEATS[0] and film.kept[-1] == FILM_BEATS[-1]
    assert film.left_out and set(film.kept) | set(film.left_out) == set(FILM_BEATS)
    assert all(task.brief for task in film.tasks)
    assert f"left out: {', '.join(film.left_out)}" in film.line()
    scene = audit_film(sentence, options, "3b1b", tmp_path, beats=film.kept, brief=True)
    assert not scene.layout_log, scene.layout_log[:5]
    assert not scene.audit_log, scene.audit_log[:5]
    assert not sum_faults(scene.trace, scene.shown_numbers)
    assert scene.book.claims and not claim_faults(scene.trace, scene.book.claims)


def test_the_command_line_renders_the_short_film_and_says_which_beats(tmp_path):
    proc = run_warm("render", DEFAULT, "--length", "short", "--resolution", "64x36",
                       "--fps", "30", "--json", "-o", tmp_path / "short.mp4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["duration"] <= SHORT
    assert report["beats"][0] == "title" and report["beats"][-1] == "update"
    assert "--length 90 s:" in proc.stderr and "left out:" in proc.stderr
    assert_refused(run_warm("render", DEFAULT, "--length", "soon", "-o", tmp_path / "x.mp4"),
                   "is not a length")


def test_a_short_pack_holds_the_clips_of_the_beats_it_keeps(tmp_path):
    """`pack --length short` (it always failed: the set was made for every beat before the
    film was fitted): its clips, slides and deck are those of the beats kept, numbered in
    order; the dry run lists the same files; and the clips make the film."""

    args = ["pack", DEFAULT, "--length", "short", "--resolution", "64x36", "--fps", "5"]
    dry = run_warm(*args, "--dry-run", "--json", "--out", tmp_path / "pack")
    assert dry.returncode == 0, dry.stderr[-2000:]
    proc = run_warm(*args, "--json", "--out", tmp_path / "pack")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    folder = tmp_path / "pack"
    kept = report["beats"]
    assert kept[0] == "title" and kept[-1] == "update" and len(kept) < 9
    clips = sorted(p.name for p in (folder / "clips").glob("*.mp4"))
    assert clips == [f"{n:02d}-{beat}.mp4" for n, beat in enumerate(kept, 1)]
    on_disk = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert on_disk == {str(p.relative_to(folder)) for p in map(Path, report["files"])}
    assert {str(Path(p).relative_to(folder)) for p in json.loads(dry.stdout)["files"]} \
        == on_disk
    frames = sum(shown_count(folder / "clips" / clip) for clip in clips)
    assert frames == shown_count(folder / "explainer.mp4")
    # every other kind of the pack holds the beats kept, in order: the slides (a title
    # slide, then one per beat, each its clip), the web deck's sections, the handout's
    # pages, the chapters, and the captions (the film's track is its .srt)
    from pptx import Presentation
    from pypdf import PdfReader

    from attention_explainer.facts import BEATS
    from attention_explainer.scenes.pipeline.subtitles import caption_track

    titles = [next(b.title for b in BEATS if b.name == beat) for beat in kept]
    slides = list(Presentation(str(folder / "slides.pptx")).slides)[1:]
    assert len(slides) == len(kept)
    for slide, clip in zip(slides, clips):
        media = [rel.target_part.blob for rel in slide.part.rels.values() if not rel.is_external]
        assert (folder / "clips" / clip).read_bytes() in media, clip
    deck = (folder / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'data-beat="([a-z]+)"', deck) == kept
    pages = PdfReader(str(folder / "handout.pdf")).pages
    assert [title in " ".join(page.extract_text().split()) for page, title
            in zip(pages, titles)] == [True] * len(kept) == [True] * len(pages)
    chapters = (folder / "chapters.vtt").read_text(encoding="utf-8").split("\n\n")[1:]
    assert [block.splitlines()[2] for block in chapters if block.strip()] == titles
    assert len(caption_track(folder / "explainer.mp4")) == \
        (folder / "explainer.srt").read_text(encoding="utf-8").count(" --> ")
