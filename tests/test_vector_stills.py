"""Vector stills for print (issues 43 and 62): `frames --format svg|pdf` writes each still as
vector graphics, drawn by the same Cairo calls as the PNG on Cairo's SVG or PDF surface,
with every label as text: selectable in the PDF (its fonts embedded), a `<text>` in the
SVG. Read back with Cairo (librsvg; poppler turning the PDF into SVG for it) and in
Chromium, every beat's key frame is the PNG within the golden tolerance, but for the edges
of glyphs, which the reader's own font rasteriser draws."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from attention_explainer.facts import FILM_BEATS
from attention_explainer.scenes.pipeline.regression import DEFAULT_TOLERANCE
from tests.conftest import DEFAULT, run_warm

SIZE = (320, 180)
# glyphs drawn by the reader's font rasteriser (hinting, gamma) rather than Cairo's path
# filler: their edges may differ by more than the tolerance, in at most this share of pixels
TEXT_EDGE_SHARE = 0.01
pytestmark = pytest.mark.skipif(
    not (shutil.which("rsvg-convert") and shutil.which("pdftocairo")
         and shutil.which("pdftotext")),
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
            assert changed <= TEXT_EDGE_SHARE, f"{vector.name}: {changed:.2%} of pixels"
        assert b"<path" in svg.read_bytes() and pdf.read_bytes().startswith(b"%PDF")
    # the labels are text: every word of the sentence in the title's PDF (pdftotext) and
    # in its SVG's <text>s, the beat's heading in every beat's PDF
    title_pdf = pdf_text(tmp_path / "pdf" / "title-key.pdf")
    title_svg = svg_text(tmp_path / "svg" / "title-key.svg")
    for word in DEFAULT.split():
        assert re.search(rf"\b{word}\b", title_pdf) and re.search(rf"\b{word}\b", title_svg)
    assert "query" in title_pdf and "query" in title_svg
    for pdf in stills["pdf"]:
        assert len(pdf_text(pdf).split()) >= 3, f"{pdf.name} has no text"


def pdf_text(path) -> str:
    """The text poppler finds in a PDF."""
    return subprocess.run(["pdftotext", str(path), "-"], check=True, capture_output=True,
                          text=True).stdout


def svg_text(path) -> str:
    """The text of an SVG's <text> elements, one line each."""
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    return "\n".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))


def test_a_vector_still_has_the_width_on_paper_it_is_given(tmp_path):
    for fmt, width in (("svg", "120"), ("pdf", "120"), ("pdf", None)):
        proc = run_warm("frames", DEFAULT, "--beat", "softmax", "--format", fmt,
                        *(["--width-mm", width] if width else []),
                        "--resolution", "x".join(map(str, SIZE)),
                        "--out", tmp_path / (width or "plain"), "--quiet")
        assert proc.returncode == 0, proc.stderr[-2000:]
    svg = (tmp_path / "120" / "softmax-key.svg").read_text(encoding="utf-8")
    assert 'width="120mm" height="67.5mm" viewBox="0 0 320 180"' in svg
    pdf = tmp_path / "120" / "softmax-key.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True,
                          text=True).stdout
    width, height = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info).groups())
    assert abs(width - 120 / 25.4 * 72) < 0.01 and abs(height - 67.5 / 25.4 * 72) < 0.01
    # the page is the picture scaled, not cropped: drawn by poppler at one size, the page
    # of a pixel a point
    pages = []
    for name, path in (("mm", pdf), ("plain", tmp_path / "plain" / "softmax-key.pdf")):
        subprocess.run(["pdftocairo", "-png", "-singlefile", "-scale-to-x", str(SIZE[0]),
                        "-scale-to-y", str(SIZE[1]), str(path), str(tmp_path / name)],
                       check=True)
        with Image.open(tmp_path / f"{name}.png") as page:
            pages.append(np.asarray(page.convert("RGB"), dtype=int))
    changed = (np.abs(pages[0] - pages[1]).max(axis=-1) > DEFAULT_TOLERANCE).mean()
    assert changed <= TEXT_EDGE_SHARE and "fish" in pdf_text(pdf)


def test_a_golden_check_of_vector_stills_is_refused(tmp_path):
    (tmp_path / "golden").mkdir()
    proc = run_warm("frames", DEFAULT, "--format", "svg", "--check", tmp_path / "golden",
                       "--out", tmp_path / "out")
    assert proc.returncode == 2 and "--check compares PNG stills" in proc.stderr


HINDI = "बिल्ली ने मछली खाई क्योंकि वह भूखी थी।"
GOLDEN_SIZE = (960, 540)
BLOCK = 4              # Chromium's text is hinted and bolder: compared in 4 x 4 pixel means
BLOCK_TOLERANCE = 100  # no mean may move further (a label gone or moved moves one 150+) ...
BLOCK_SHARE = 0.005    # ... and at most this share of them by more than the tolerance


def block_change(png, picture) -> tuple[float, float]:
    """(largest change, share of 4 x 4 blocks changed by more than the tolerance) between
    two pictures of the same size."""
    def blocks(a):
        h, w = a.shape[0] // BLOCK * BLOCK, a.shape[1] // BLOCK * BLOCK
        return a[:h, :w].reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3).mean(axis=(1, 3))

    change = np.abs(blocks(png) - blocks(picture)).max(axis=-1)
    return float(change.max()), float((change > DEFAULT_TOLERANCE).mean())


def test_an_svg_still_in_chromium_is_its_png(tmp_path):
    """The golden of the SVG: Chromium draws it (its own text engine, the fonts the SVG
    names) as the PNG still shows it, on Devanagari; a label taken out of the SVG fails."""
    import io

    from tests.browser import browser_or_skip, launch

    chromium, sync_playwright = browser_or_skip()
    for fmt in ("png", "svg"):
        proc = run_warm("frames", HINDI, "--beat", "title,update", "--format", fmt,
                        "--resolution", "x".join(map(str, GOLDEN_SIZE)),
                        "--out", tmp_path / fmt, "--quiet")
        assert proc.returncode == 0, proc.stderr[-2000:]
    svgs = sorted((tmp_path / "svg").glob("*.svg"))
    assert [p.stem for p in svgs] == ["title-key", "update-key"]
    planted = tmp_path / "planted.svg"
    document = svgs[-1].read_text(encoding="utf-8")
    label = next(m for m in re.finditer(r"<text [^>]*>.*?</text>", document)
                 if any(word in m.group(0) for word in HINDI.split()))
    planted.write_text(document.replace(label.group(0), "", 1), encoding="utf-8")
    with sync_playwright() as p:
        browser = launch(p, chromium)
        page = browser.new_page(viewport=dict(zip(("width", "height"), GOLDEN_SIZE)))
        page.route("**/*", lambda route: route.continue_()
                   if route.request.url.startswith("file:") else route.abort())

        def drawn(svg):
            page.goto(svg.resolve().as_uri())
            with Image.open(io.BytesIO(page.screenshot())) as shot:
                return np.asarray(shot.convert("RGB"), dtype=float)

        for svg in svgs:
            with Image.open(tmp_path / "png" / f"{svg.stem}.png") as image:
                png = np.asarray(image.convert("RGB"), dtype=float)
            largest, share = block_change(png, drawn(svg))
            assert largest <= BLOCK_TOLERANCE and share <= BLOCK_SHARE, \
                f"{svg.name}: a block changed by {largest:.0f}, {share:.2%} by more than " \
                f"{DEFAULT_TOLERANCE}"
        largest, _ = block_change(png, drawn(planted))
        browser.close()
    assert largest > BLOCK_TOLERANCE, "a label taken out of the SVG was not missed"
