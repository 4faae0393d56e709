"""The lecture pack: every file, clips that are the film cut at its chapters, slides that
read back, a web deck that plays offline in a real browser, and no web address anywhere."""
import json
import shutil
import subprocess
from pathlib import Path

import av
import numpy as np
import pytest

from conftest import run_warm

from attention_explainer.facts import FILM_BEATS
from tests.browser import browser_or_skip, launch
from tests.videos import shown_frames

BEATS = list(FILM_BEATS)        # the default film, in storyboard order
WIDTH, HEIGHT, FPS = 160, 90, 5


@pytest.fixture(scope="module")
def pack(default_trace, tmp_path_factory):
    root = tmp_path_factory.mktemp("pack")
    trace = default_trace.save(root / "trace.npz")
    proc = run_warm("pack", "--trace", trace, "--out", root / "lecture", "--resolution",
                       f"{WIDTH}x{HEIGHT}", "--fps", FPS, "--jobs", 2, "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return root / "lecture", json.loads(proc.stdout)


def _frames(path: Path) -> list[np.ndarray]:
    return shown_frames(path)


def test_a_pack_writes_every_file_and_lists_them(pack):
    folder, report = pack
    expected = {"explainer.mp4", "explainer.srt", "explainer.png", "explainer.npz",
                "chapters.vtt", "captions.vtt", "slides.pptx", "index.html", "handout.pdf"}
    for n, beat in enumerate(BEATS, 1):
        expected |= {f"clips/{n:02d}-{beat}{suffix}" for suffix in (".mp4", ".png", ".vtt")}
    written = {str(Path(p).relative_to(folder)) for p in report["files"]}
    assert written == expected
    on_disk = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert on_disk == expected            # nothing else: no staging, no scratch
    with av.open(str(folder / "explainer.mp4")) as container:
        titles = [c["metadata"]["title"] for c in container.chapters()]
    from attention_explainer.facts import BEATS as FACTS
    assert titles == [next(b.title for b in FACTS if b.name == beat) for beat in BEATS]


def test_each_clip_is_its_chapter_and_the_clips_make_the_film(pack):
    folder, report = pack
    film = _frames(folder / "explainer.mp4")
    chapters = report["chapters"]
    joined = []
    for n, (beat, chapter) in enumerate(zip(BEATS, chapters), 1):
        clip = _frames(folder / f"clips/{n:02d}-{beat}.mp4")
        assert chapter["beat"] == beat
        assert abs(len(clip) / FPS - (chapter["end"] - chapter["start"])) <= 1 / FPS
        joined += clip
    assert len(joined) == len(film)
    for index in np.linspace(0, len(film) - 1, 25).astype(int):
        assert np.array_equal(joined[index], film[index]), index
    vtt = (folder / "chapters.vtt").read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT") and vtt.count("-->") == len(BEATS)


def _mean_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


def test_each_clip_ends_on_its_picture_and_the_hand_off_opens_the_next(pack):
    """Stopped at a clip's end, the room sees the beat's held end state (its key frame,
    the clip's poster), never an emptied hand-off frame; the next clip starts from that
    same picture and moves into its own stage."""
    from PIL import Image

    from attention_explainer.scenes.film.registry import load_beat
    folder, _ = pack
    last_frames = []
    for n, beat in enumerate(BEATS, 1):
        clip = _frames(folder / f"clips/{n:02d}-{beat}.mp4")
        poster = np.asarray(Image.open(folder / f"clips/{n:02d}-{beat}.png").convert("RGB"))
        if load_beat(beat).has_coda():
            # its key picture (the poster) is shown, then the coda, held to the clip's end
            assert min(_mean_difference(f, poster) for f in clip) < 4.0, beat
            assert _mean_difference(clip[-1], clip[-FPS]) < 1.0, f"{beat} ends moving"
        else:
            assert _mean_difference(clip[-1], poster) < 4.0, f"{beat} ends away from its picture"
        if n > 1:      # opens where the last clip stopped, then moves on
            assert _mean_difference(clip[0], last_frames[-1]) < 4.0, beat
            assert _mean_difference(clip[0], clip[len(clip) // 3]) > 1.0, beat
        last_frames.append(clip[-1])


def test_a_clips_captions_are_its_own(pack):
    folder, _ = pack
    for n, beat in enumerate(BEATS, 1):
        cues = (folder / f"clips/{n:02d}-{beat}.vtt").read_text(encoding="utf-8")
        assert cues.count("-->") >= 1, beat


def test_a_beat_after_a_gap_opens_without_the_skipped_beats_heading(tmp_path):
    """A subset of beats: the first drawn after a gap starts from its predecessor's stage,
    but not under that beat's heading (it showed for half a second in each clip)."""
    from manim import tempconfig

    from attention_explainer.scenes.film.beat import Beat, Role
    from attention_explainer.scenes.film.scene import FilmScene
    from tests.conftest import synthetic_trace

    inherited = []
    original = Beat.open

    def open_and_note(self, line, lit, *also):
        inherited.append((self.name, self.stage.get(Role.LINE)))
        original(self, line, lit, *also)
    Beat.open = open_and_note
    try:
        with tempconfig({"pixel_height": 90, "pixel_width": 160, "frame_rate": 5,
                         "format": "none", "disable_caching": True,
                         "media_dir": str(tmp_path / "media"), "progress_bar": "none",
                         "verbosity": "ERROR"}):
            FilmScene(synthetic_trace(), beats=["title", "sparks", "softmax"],
                      skip_animations=True).render()
    finally:
        Beat.open = original
    lines = dict(inherited)
    assert lines["sparks"] is None                    # after a gap: no heading of project
    assert lines["softmax"] is not None               # carried over from sparks, as drawn


def test_no_web_address_anywhere_in_a_pack(pack):
    folder, _ = pack
    found = subprocess.run(["grep", "-r", "-l", "http", str(folder)], capture_output=True,
                           text=True)
    assert found.returncode == 1, found.stdout         # grep: 1 = nothing found


def test_the_slides_read_back_a_movie_and_notes_per_beat(pack):
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    folder, _ = pack
    deck = Presentation(str(folder / "slides.pptx"))
    slides = list(deck.slides)
    assert len(slides) == len(BEATS) + 1
    assert abs(deck.slide_width / deck.slide_height - WIDTH / HEIGHT) < 0.01
    assert "The cat ate the fish" in " ".join(
        shape.text_frame.text for shape in slides[0].shapes if shape.has_text_frame)
    for n, (slide, beat) in enumerate(zip(slides[1:], BEATS), 1):
        movies = [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
        assert len(movies) == 1, beat
        parts = {rel.target_part.partname: rel.target_part.blob
                 for rel in slide.part.rels.values() if not rel.is_external}
        clip = (folder / f"clips/{n:02d}-{beat}.mp4").read_bytes()
        poster = (folder / f"clips/{n:02d}-{beat}.png").read_bytes()
        assert clip in parts.values(), f"{beat}: the clip is not the slide's media"
        assert poster in parts.values(), f"{beat}: no poster image"
        assert slide.notes_slide.notes_text_frame.text.strip()
    for slide in slides:             # the film's stage, not a white slide around a black film
        assert str(slide.background.fill.fore_color.rgb) == "000000"


def test_a_light_pack_is_light_around_the_film(tmp_path):
    """--theme light: the film's stage is white, and so are the slides and the web page."""
    from pptx import Presentation

    out = tmp_path / "light"
    proc = run_warm("pack", "The cat ate the fish", "--beats", "title", "--theme", "light",
                       "--resolution", "96x54", "--fps", 2, "--out", out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    corner = _frames(out / "explainer.mp4")[-1][:4, :4].reshape(-1, 3)
    assert corner.min() >= 245, corner          # white, give or take the encoder
    slides = list(Presentation(str(out / "slides.pptx")).slides)
    assert [str(s.background.fill.fore_color.rgb) for s in slides] == ["FFFFFF"] * 2
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "color-scheme: light" in page and "background: #FFFFFF" in page


def test_the_slides_open_in_libreoffice(pack, tmp_path):
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed here (apt-get install libreoffice-impress "
                    "to check that the slides open)")
    folder, _ = pack
    done = subprocess.run([soffice, "--headless", "--convert-to", "pdf", "--outdir",
                           str(tmp_path), str(folder / "slides.pptx")],
                          capture_output=True, text=True, timeout=300,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    pdf = tmp_path / "slides.pdf"
    assert pdf.is_file() and pdf.stat().st_size > 1000, done.stdout + done.stderr


def test_the_web_deck_plays_offline_in_chromium(pack):
    chromium, sync_playwright = browser_or_skip()
    folder, _ = pack
    current_video = "document.querySelector('section:not([hidden]) video')"
    with sync_playwright() as p:
        browser = launch(p, chromium)
        page = browser.new_page()
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto((folder / "index.html").as_uri())
        page.wait_for_function(f"() => {current_video} && {current_video}.readyState >= 2",
                               timeout=20000)
        first = page.evaluate(f"""() => {{ const v = {current_video};
            return [v.videoWidth, v.videoHeight, window.deck.current(),
                    v.currentSrc.split('/').pop(), v.textTracks.length]; }}""")
        assert first == [WIDTH, HEIGHT, 0, "01-title.mp4", 1]
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => window.deck.current() === 1", timeout=5000)
        second = page.evaluate(f"() => {current_video}.currentSrc.split('/').pop()")
        assert second == "02-embed.mp4"
        # its captions: in the band below the picture (the track hidden, never drawn over
        # it), the cue of the moment; no player controls over the film's text
        page.wait_for_function(f"() => {current_video}.textTracks[0].cues.length > 0",
                               timeout=10000)
        cue = page.evaluate(f"""() => {{ const v = {current_video};
            const cue = v.textTracks[0].cues[0]; v.pause();
            v.currentTime = (cue.startTime + cue.endTime) / 2;
            return cue.getCueAsHTML().textContent; }}""")
        band = "document.querySelector('section:not([hidden]) .caption')"
        page.wait_for_function(f"() => {band}.textContent.length > 0", timeout=10000)
        shown = page.evaluate(f"""() => {{ const v = {current_video}, b = {band};
            return [b.textContent, v.textTracks[0].mode, v.controls,
                    b.getBoundingClientRect().top >= v.getBoundingClientRect().bottom]; }}""")
        assert shown == [cue, "hidden", False, True], shown
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => window.deck.current() === 0", timeout=5000)
        chapters = page.evaluate("() => document.querySelectorAll('#chapters li').length")
        assert chapters == len(BEATS)
        browser.close()
    assert requests and all(url.startswith(("file:", "data:")) for url in requests), requests


def test_the_presenter_view_shows_the_notes_the_next_beat_and_the_time(pack):
    """p opens the presenter view in a second window: the current beat's notes (what to
    say, with its numbers, and a question for the room), the next beat, a running clock;
    it follows the deck, and its keys drive the deck."""
    chromium, sync_playwright = browser_or_skip()
    folder, _ = pack
    with sync_playwright() as p:
        browser = launch(p, chromium)
        page = browser.new_page()
        page.goto((folder / "index.html").as_uri())
        page.wait_for_function("() => window.deck.current() === 0", timeout=20000)
        with page.expect_popup() as opened:
            page.keyboard.press("p")
        view = opened.value
        view.wait_for_selector("#now")

        def text(selector):
            return view.inner_text(selector).strip()
        assert text("#now").startswith("1. The sentence, its question and the formula")
        assert "\u2018ate\u2019: who does it, and to what?" in text("#say")
        assert "minilm, layer 5, head 11" in text("#quote")
        assert "\u2018ate\u2019" in text("#ask") and text("#ask").endswith("?")
        assert text("#next") == "Next: 2. Words become vectors"
        first = text("#elapsed")
        view.wait_for_function("t => document.getElementById('elapsed').textContent !== t",
                               arg=first, timeout=5000)
        page.keyboard.press("ArrowRight")
        view.wait_for_function("() => document.getElementById('now').textContent"
                               ".startsWith('2. Words become vectors')", timeout=5000)
        assert "384" in text("#quote")
        view.keyboard.press("ArrowRight")            # the presenter's keys drive the deck
        page.wait_for_function("() => window.deck.current() === 2", timeout=5000)
        browser.close()


def test_the_slides_notes_say_show_quote_and_ask(pack):
    from pptx import Presentation

    folder, _ = pack
    from attention_explainer.attention_core.notes import beat_quotes
    from attention_explainer.attention_core.trace import AttentionTrace

    trace = AttentionTrace.load(folder / "explainer.npz")
    quotes = beat_quotes(trace)
    assert quotes.keys() & set(BEATS)
    slides = list(Presentation(str(folder / "slides.pptx")).slides)[1:]
    for slide, beat in zip(slides, BEATS):
        notes = slide.notes_slide.notes_text_frame.text
        for part in ("Shows:", "Say:", "Ask the room:", "next:"):
            assert part in notes, (beat, part)
        # the numbers to quote, for every beat that has some, each line as read
        assert ("Quote:" in notes) == bool(quotes.get(beat)), beat
        assert all(line in notes for line in quotes.get(beat, [])), beat
    s, f = trace.primary_slot, trace.focus_index
    dots = trace.q[s, f].astype(float) @ trace.k[s].astype(float).T
    best = int(np.argmax(dots))                  # the notes quote the model's own q·k
    sparks = slides[BEATS.index("sparks")].notes_slide.notes_text_frame.text
    assert (f"q\u00b7k of \u2018ate\u2019 with \u2018{trace.display_tokens[best]}\u2019: "
            f"{dots[best]:+.1f}") in sparks


def test_the_handout_has_a_page_per_beat_with_its_title_and_notes(pack):
    from pypdf import PdfReader

    from attention_explainer.facts import BEATS as FACTS
    folder, _ = pack
    pages = PdfReader(str(folder / "handout.pdf")).pages
    assert len(pages) == len(BEATS)
    for n, (page, beat) in enumerate(zip(pages, BEATS), 1):
        text = " ".join(page.extract_text().split())      # selectable, not a picture
        title = next(b.title for b in FACTS if b.name == beat)
        assert f"{n}. {title}" in text, (beat, text[:200])
        assert "The cat ate the fish" in text and "Ask the room:" in text
        assert page.images, f"{beat}: no key frame on its page"


def test_a_four_by_three_film_gets_four_by_three_slides(tmp_path, default_trace):
    from pptx import Presentation

    trace = default_trace.save(tmp_path / "trace.npz")
    proc = run_warm("pack", "--trace", trace, "--out", tmp_path / "lecture", "--resolution",
                       "96x72", "--fps", 1, "--beats", "title")
    assert proc.returncode == 0, proc.stderr[-2000:]
    deck = Presentation(str(tmp_path / "lecture" / "slides.pptx"))
    assert abs(deck.slide_width / deck.slide_height - 4 / 3) < 0.01
    for slide in deck.slides:
        for shape in slide.shapes:       # nothing past the slide's edges
            assert shape.left >= 0 and shape.left + shape.width <= deck.slide_width


def test_the_notes_say_only_what_applies_to_the_sentence(default_trace):
    """A note on reading from the right, or on words in pieces, is said of a sentence that
    needs it, never of one that does not (the English film's notes said "read from the
    right in Arabic or Hebrew")."""
    from attention_explainer.app.lecture_pack import LecturePack
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.facts import BEATS as FACTS

    title = next(b for b in FACTS if b.name == "title")

    def shows(trace):
        return LecturePack(trace, WIDTH, HEIGHT)._shows(title)

    english = shows(default_trace)
    assert "from the right" not in english and "pieces" not in english
    assert "from the right" in shows(compute_trace("القط الصغير أكل السمكة"))
    assert "pieces" in shows(compute_trace("Die Straßenbahnhaltestelle liegt gegenüber"))


def test_pauses_at_steps_stop_the_deck_and_split_the_slides(tmp_path):
    """`--pauses steps`: each beat's steps begin where its captions do; the deck's clip
    stops at each (→ plays the next step, → while one plays completes it), and the slides
    hold a slide per step, each the beat's clip trimmed to its step."""
    import re

    from pptx import Presentation

    from attention_explainer.app.lecture_pack import beat_steps
    from attention_explainer.scenes.pipeline.subtitles import caption_track

    folder = tmp_path / "steps"
    proc = run_warm("pack", "The cat ate the fish", "--beats", "title,softmax",
                       "--resolution", "160x90", "--fps", "5", "--pauses", "steps",
                       "--quiet", "--out", folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    steps = {}
    for n, beat in enumerate(["title", "softmax"], 1):
        clip = folder / f"clips/{n:02d}-{beat}.mp4"        # its captions: its own track
        cues = [(a / 1000, b / 1000, text) for a, b, text in caption_track(clip)]
        with av.open(str(clip)) as box:
            duration = float(box.duration / av.time_base)
        steps[beat] = beat_steps(cues, duration)
        assert len(steps[beat]) >= 3, steps[beat]
    slides = list(Presentation(str(folder / "slides.pptx")).slides)[1:]
    assert len(slides) == sum(len(s) for s in steps.values())
    trims = [slide._element.xml.split("<p14:trim ")[1].split("/>")[0] for slide in slides]
    expected = [f'st="{a * 1000:.0f}" end="{b * 1000:.0f}"' for s in steps.values()
                for a, b, _ in s]
    assert [" ".join(t.split()) for t in trims] == expected
    deck = (folder / "index.html").read_text(encoding="utf-8")
    stops = [[float(t) for t in found.split()]
             for found in re.findall(r'data-steps="([^"]*)"', deck)]
    assert [len(s) for s in stops] == [len(s) - 1 for s in steps.values()]

    chromium, sync_playwright = browser_or_skip()
    video = "document.querySelector('section:not([hidden]) video')"
    with sync_playwright() as p:
        browser = launch(p, chromium)
        page = browser.new_page()
        page.goto((folder / "index.html").as_uri())
        page.wait_for_function(f"() => {video} && {video}.readyState >= 2", timeout=20000)
        page.evaluate("() => document.querySelectorAll('video').forEach("
                      "(v) => { v.muted = true; v.playbackRate = 4; })")
        for n, stop in enumerate(stops[0][:2], 1):        # → plays one step, and stops
            page.keyboard.press("ArrowRight")
            page.wait_for_function(f"() => {video}.paused && window.deck.step() === {n}",
                                   timeout=20000)
            at = page.evaluate(f"() => {video}.currentTime")
            assert abs(at - stop) < 0.05 and page.evaluate("window.deck.current()") == 0
        page.keyboard.press("ArrowRight")                 # the next step starts playing ...
        page.wait_for_function(f"() => !{video}.paused", timeout=10000)
        page.keyboard.press("ArrowRight")                 # ... and → completes it
        page.wait_for_function(f"() => {video}.paused && window.deck.step() === 3",
                               timeout=10000)
        assert abs(page.evaluate(f"() => {video}.currentTime") - stops[0][2]) < 0.05
        browser.close()
