"""Vector stills for print (issue 43): `frames --format svg|pdf` writes each still as vector
graphics, drawn by the same Cairo calls as the PNG on Cairo's SVG or PDF surface. Read back
with Cairo (librsvg; poppler turning the PDF into SVG for it), every beat's key frame is
the PNG within the golden tolerance."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from attention_explainer.facts import FILM_BEATS
from attention_explainer.scenes.pipeline.regression import DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE
from tests.conftest import DEFAULT, run_warm

SIZE = (320, 180)
pytestmark = pytest.mark.skipif(
    not (shutil.which("rsvg-convert") and shutil.which("pdftocairo")),
    reason="librsvg2-bin and poppler-utils are not installed (make test installs them): the "
           "vector stills were not read back")


def rasterised(path, folder):
    """The picture of an SVG or a PDF, rasterised by Cairo (as the PNG was)."""
    svg = path
    if path.suffix == ".pdf":
        svg = folder / (path.stem + "-from-pdf.svg")
        subprocess.run(["pdftocairo", "-svg", str(path), str(svg)], check=True)
    png = folder / (path.stem + f"-{path.suffix[1:]}.png")
    subprocess.run(["rsvg-convert", "-w", str(SIZE[0]), "-h", str(SIZE[1]), str(svg),
                    "-o", str(png)], check=True)
    with Image.open(png) as image:
        return np.asarray(image.convert("RGB"), dtype=int)


def test_every_key_frame_as_svg_and_pdf_is_its_png(tmp_path):
    stills = {}
    for fmt in ("png", "svg", "pdf"):
        proc = run_warm("frames", DEFAULT, "--resolution", "x".join(map(str, SIZE)),
                           "--format", fmt, "--out", tmp_path / fmt, "--quiet")
        assert proc.returncode == 0, proc.stderr[-2000:]
        stills[fmt] = sorted((tmp_path / fmt).glob(f"*.{fmt}"))
        assert [p.stem for p in stills[fmt]] == sorted(f"{b}-key" for b in FILM_BEATS)
    for png, svg, pdf in zip(stills["png"], stills["svg"], stills["pdf"]):
        with Image.open(png) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=int)
        for vector in (svg, pdf):
            changed = (np.abs(rasterised(vector, tmp_path) - pixels).max(axis=-1)
                       > DEFAULT_TOLERANCE).mean()
            assert changed <= DEFAULT_MAX_SHARE, f"{vector.name}: {changed:.2%} of pixels"
        assert b"<path" in svg.read_bytes() and pdf.read_bytes().startswith(b"%PDF")


def test_a_golden_check_of_vector_stills_is_refused(tmp_path):
    (tmp_path / "golden").mkdir()
    proc = run_warm("frames", DEFAULT, "--format", "svg", "--check", tmp_path / "golden",
                       "--out", tmp_path / "out")
    assert proc.returncode == 2 and "--check compares PNG stills" in proc.stderr
