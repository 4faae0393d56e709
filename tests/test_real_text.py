"""Texts drawn as text on a vector surface (scenes/vocabulary/real_text.py, issue 62): a
text, a word cut out of a line, and a piece of a joined word are laid out again by
Pango where their outlines are, and read back as the text they show; an SVG reader is
given the joiners that keep a piece in the form it has in its word."""
from __future__ import annotations

import shutil
import subprocess

import cairo
import numpy as np
import pytest

from attention_explainer.scenes.vocabulary import style
from attention_explainer.scenes.vocabulary.fastcopy import family_of
from attention_explainer.scenes.vocabulary.real_text import lay_out
from attention_explainer.scenes.vocabulary.scripts import InWord
from attention_explainer.scenes.vocabulary.svg_text import glued
from attention_explainer.scenes.vocabulary.text import baseline_text, label_text

ARABIC = "يضيء"          # ي ض ي ء: the second yeh joins the dad before it, not the hamza after


def pdf_of(source, path) -> str:
    """``source`` laid out and shown on a PDF page, as pdftotext reads it back (without
    the direction marks it puts around right-to-left text)."""
    with cairo.PDFSurface(str(path), 300, 100) as surface:
        lay_out(source, cairo.Context(surface), "show")
    text = subprocess.run(["pdftotext", str(path), "-"], check=True, capture_output=True,
                          text=True).stdout
    return "".join(ch for ch in text if ch not in "\u200e\u200f\u202a\u202b\u202c\u202d\u202e")


def laid_box(source) -> np.ndarray:
    """The box of the outlines of ``source`` laid out again (layout units)."""
    surface = cairo.SVGSurface(None, 1e6, 1e6)
    ctx = cairo.Context(surface)
    lay_out(source, ctx, "path")
    x0, y0, x1, y1 = ctx.fill_extents()
    return np.array([x1 - x0, y1 - y0])


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is not installed")
def test_a_text_a_word_of_a_line_and_a_piece_of_a_joined_word_read_back(tmp_path):
    line = label_text("the query of")
    word, _, _ = baseline_text("fish", style.FONT_TOKEN)
    piece, _, _ = baseline_text(InWord("ض", ARABIC, [(0, 1), (1, 2), (2, 3), (3, 4)], 1),
                                style.FONT_TOKEN)
    assert pdf_of(line.text_source, tmp_path / "line.pdf").strip() == "the query of"
    # the word is its glyphs of "Hg" + word, shown alone and read as the word
    assert word.text_source.part is not None
    assert pdf_of(word.text_source, tmp_path / "word.pdf").strip() == "fish"
    # the piece is its glyph in the joined word (a medial dad), read as the letter
    assert piece.text_source.part is not None
    assert pdf_of(piece.text_source, tmp_path / "piece.pdf").strip() == "ض"
    # and what is laid out again has the outlines' proportions
    for made in (line, word, piece):
        rest = np.frombuffer(made.text_source.points).reshape(-1, 3)[:, :2]
        glyphs = [g for g in family_of(made) if g.has_points()]
        assert len(glyphs) == len(made.text_source.counts)
        width, height = laid_box(made.text_source)
        assert abs((np.ptp(rest[:, 0]) / np.ptp(rest[:, 1])) / (width / height) - 1) < 0.02


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is not installed")
def test_a_word_cut_out_of_a_line_reads_back_as_pango_draws_it_whole(tmp_path):
    """A right-to-left word with a ligature (lam-alef: two letters, one glyph) cut out of
    "Hg" + word maps its glyphs to its letters as Pango's own drawing of the word does."""
    from attention_explainer.scenes.vocabulary.text import user_text

    word = "الطلاب"
    cut, _, _ = baseline_text(word, style.FONT_TOKEN)
    whole = user_text(word, style.FONT_TOKEN)
    assert cut.text_source.part is not None and whole.text_source.part is None
    assert pdf_of(cut.text_source, tmp_path / "cut.pdf") == \
        pdf_of(whole.text_source, tmp_path / "whole.pdf")


def test_a_piece_alone_is_glued_to_the_form_it_has_in_its_word():
    assert glued("ض", ARABIC, 1, 2) == "\u200dض\u200d"          # medial: joined both sides
    assert glued("ي", ARABIC, 2, 3) == "\u200dي"                 # final: hamza does not join
    assert glued("ي", ARABIC, 0, 1) == "ي\u200d"                 # initial
    assert glued("ء", ARABIC, 3, 4) == "ء"                       # hamza joins nothing
    assert glued("د", "دب", 0, 1) == "د"                        # dal joins only before it
    assert glued("स्", "पुस्तक", 2, 4) == "स्\u200d"            # a half form before त
    assert glued("fi", "fish", 0, 2) == "fi"


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is not installed")
def test_a_text_that_cannot_be_text_stays_outlines_beside_those_that_are(tmp_path):
    """A text recoloured glyph by glyph has no text to say it: it is drawn as outlines, and
    the texts beside it are still text (in the PDF and as the SVG's <text>)."""
    from manim import DOWN, Camera, tempconfig

    from attention_explainer.scenes.pipeline.capture import vector_picture

    with tempconfig({"pixel_width": 320, "pixel_height": 180}):
        camera = Camera()
        plain_line = label_text("plain words")
        mixed = label_text("mixed colours").next_to(plain_line, DOWN)
        mixed.submobjects[0].set_fill("#ff0000")
        pictures = {fmt: vector_picture(camera, [plain_line, mixed], fmt)
                    for fmt in ("pdf", "svg")}
    (tmp_path / "both.pdf").write_bytes(pictures["pdf"])
    read = subprocess.run(["pdftotext", str(tmp_path / "both.pdf"), "-"], check=True,
                          capture_output=True, text=True).stdout
    assert "plain words" in read and "mixed" not in read
    svg = pictures["svg"].decode()
    assert "plain words" in svg and "mixed" not in svg and svg.count("<text ") == 1
