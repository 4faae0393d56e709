"""The explainer is one continuous film: the default sentence rendered once (320x180,
10 fps, every step audited) and its frames decoded. Nothing goes black between beats;
every beat's end state is held; captions are slow enough to read, their claims true to
the trace and their numbers on screen as written; every text is legible; no glyph morph
turns one text into another; the head colours are far apart."""
from __future__ import annotations

import datetime
import itertools
import re

import numpy as np
import pytest
from tests.videos import shown_frames

FPS = 10
NEAR_BLACK = 0.5          # mean luminance (0-255) below which a frame shows nothing (the
                          # film is mostly black: its sparest frames measure 1.2 to 1.5)
STILL = 1.0               # mean absolute change (0-255) below which two frames are the same
HOLD = 2.5                # seconds every beat's end state stays up
MAX_CPS = 20.0            # characters per second a caption may ask a reader for


@pytest.fixture(scope="module")
def film(default_trace, tmp_path_factory):
    from attention_explainer.scenes.film.registry import FILM_BEATS
    from attention_explainer.app.film import render_video
    out = tmp_path_factory.mktemp("film") / "film.mp4"
    result = render_video(default_trace, beats=list(FILM_BEATS), width=320, height=180,
                          fps=FPS, output=out, progress=False, audit=True)
    return result


@pytest.fixture(scope="module")
def luminance(film) -> np.ndarray:
    """Every frame of the video as luminance (frames x 180 x 320)."""
    return np.stack([np.asarray(f, dtype=np.float32)
                     for f in shown_frames(film.video, "gray")])


def captions(film) -> list[tuple[float, float, str]]:
    """(start, end, text) of every caption of the .srt."""
    def seconds(stamp: str) -> float:
        h, m, rest = stamp.split(":")
        s, ms = rest.split(",")
        return datetime.timedelta(hours=int(h), minutes=int(m), seconds=int(s),
                                  milliseconds=int(ms)).total_seconds()
    found = []
    for block in film.captions.read_text(encoding="utf-8").strip().split("\n\n"):
        lines = block.splitlines()
        start, end = lines[1].split(" --> ")
        found.append((seconds(start), seconds(end), " ".join(lines[2:])))
    return found


def beat_at(film, t: float) -> str:
    return next(b for b, (s, e) in film.beat_times.items() if s - 1e-6 <= t < e + 1e-6)


# ---- one film, never black ---------------------------------------------------------------------
def test_no_two_near_black_frames_anywhere_but_the_end(film, luminance):
    dark = luminance.mean(axis=(1, 2)) < NEAR_BLACK
    last_lit = int(np.flatnonzero(~dark)[-1])
    runs = [(k, len(list(g))) for k, g in itertools.groupby(dark[:last_lit + 1])]
    starts = np.cumsum([0] + [n for _, n in runs])
    black = [(starts[i] / FPS, n) for i, (k, n) in enumerate(runs) if k and n >= 2]
    assert black == [], f"near-black runs (start s, frames): {black}"


def test_every_beat_holds_its_end_state(film, luminance):
    """The frames after each beat's key frame stay unchanged for at least HOLD seconds."""
    change = np.abs(np.diff(luminance, axis=0)).mean(axis=(1, 2))
    for beat, key in film.key_times.items():
        first = int(round(key * FPS)) + 1
        window = change[first:first + int(HOLD * FPS) - 1]
        assert len(window) == int(HOLD * FPS) - 1, f"{beat}: the film ends within its hold"
        assert window.max() < STILL, f"{beat}: the picture moves {window.argmax() / FPS:.1f} s " \
                                     "into its hold"


# ---- captions ----------------------------------------------------------------------------------
def test_captions_can_be_read(film):
    for start, end, text in captions(film):
        assert len(text) / (end - start) <= MAX_CPS + 1e-6, \
            f"{len(text) / (end - start):.1f} characters per second: {text!r}"


def test_caption_numbers_are_on_screen_as_written(film):
    """Every number a caption says was on screen, written the same way, by then."""
    order = list(film.beat_times)
    for start, _, text in captions(film):
        beat = beat_at(film, start)
        seen = set().union(*(film.screen_texts.get(b, set())
                             for b in order[:order.index(beat) + 1]))
        for number in re.findall(r"[+\u2212-]?\d+(?:\.\d+)?", text):
            assert any(number in shown for shown in seen), \
                f"{number!r} of {text!r} was not on screen"


def next_best(trace) -> str:
    """The word that may answer that the second head shown weighs most (a word: the sum of
    its pieces), quoted."""
    from attention_explainer.attention_core.derived import answer_words
    from attention_explainer.attention_core.word_model import WordModel
    words = WordModel.of_trace(trace)
    sums = words.sums(trace.weights[1, trace.focus_index])
    w = max(answer_words(trace), key=lambda v: (sums[v], -v))
    return f"\u2018{words.words[w].text}\u2019"


def claims(trace):
    """The caption claims of the film and what the trace says they must name: (pattern,
    check(match) -> bool). A claim of "most", "largest", "heaviest" or "toward" must match
    one of them, so no new claim goes unchecked."""
    words = [f"\u2018{w}\u2019" for w in trace.display_tokens]     # words are quoted
    slot, f = trace.primary_slot, trace.focus_index
    row = trace.weights[slot, f]
    top = [words[j] for j in np.argsort(-row, kind="stable")]
    dots = trace.q[slot, f] @ trace.k[slot].T
    per_head = {words[int(np.argmax(trace.weights[s, f]))] for s in range(len(trace.heads))}
    return [
        # a tie is named as a tie: every key drawn with the top number, the top one first
        (r"the largest product: (.+?)(?:, [+\u2212]([\d.]+)(?: each)?)?$",
         lambda m: words[int(np.argmax(dots))] in re.split(r", | and ", m[1])
         and all(dots.max() - dots[words.index(w)] < 1.0 for w in re.split(r", | and ", m[1]))
         and (len(re.split(r", | and ", m[1])) == 1) == (" each" not in m[0])),
        (r"gives most to (.+)$", lambda m: m[1] == top[0]),
        # the next best head (the heads beat): the answering word it weighs most
        (r"the next best at sending weight from .+ to (?:the nouns|the other).*: of them it "
         r"gives the most to (.+)$", lambda m: m[1] == next_best(trace)),
        (r"most weight to (.+)$",
         lambda m: set(re.split(r", | or ", m[1])) == per_head),
        (r"pulled toward (.+) and (.+)$", lambda m: [m[1], m[2]] == top[:2]),
        (r"makes them weights: (.+) [\d.]+, (.+) [\d.]+$", lambda m: [m[1], m[2]] == top[:2]),
        (r"now gives ([\d.]+) to (.+?), and", None),    # the mask's renormalised row: below
    ]


def test_caption_claims_are_true_to_the_trace(film, default_trace):
    from attention_explainer.attention_core.derived import causal_weights, shown_row
    trace = default_trace
    checked = 0
    for _, _, text in captions(film):
        matched = False
        for pattern, check in claims(trace):
            m = re.search(pattern, text)
            if m is None:
                continue
            matched = True
            if check is None:           # the causal illustration's heaviest key
                after = causal_weights(trace, trace.primary_slot, trace.focus_index)
                j = int(np.argmax(after))
                shown = shown_row(after, 2)[j]          # drawn rounded with its row
                assert m[2] == f"\u2018{trace.display_tokens[j]}\u2019" \
                    and m[1] == f"{shown:.2f}", text
            else:
                assert check(m), f"the trace does not support: {text!r}"
        if re.search(r"\b(most|largest|heaviest|strongest|toward)\b", text):
            assert matched, f"an unchecked claim: {text!r}"
        checked += matched
    assert checked >= 5


# ---- legible, no glyph morphs ------------------------------------------------------------------
def test_every_text_is_legible_and_no_text_morphs_into_another(film):
    assert film.audit_log == []


def test_head_colours_are_far_apart_and_never_grey():
    from attention_explainer.scenes.vocabulary import colors, style
    for name, palette in style.PALETTES.items():
        heads = list(palette.heads)
        # every grey that means "dimmed" or "not drawn" (the roles: tests/test_palette.py)
        others = [palette.special, palette.dim, palette.faint, palette.grid,
                  palette.background]
        for a, b in itertools.combinations(heads, 2):
            assert colors.distance(a, b) >= style.HEAD_GAP, (name, a, b)   # 3x noticeable
        for a in heads:
            for b in others:
                assert colors.distance(a, b) >= 0.12, (name, a, b)