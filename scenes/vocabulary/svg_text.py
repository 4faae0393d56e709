"""The SVG side of texts drawn as text (:mod:`.real_text`): a ``<text>`` per text, its
runs as ``<tspan>``s naming the font Pango picked, swapped in for the marker each text
leaves on Cairo's SVG surface (which writes glyphs as outlines only)."""
from __future__ import annotations

import html
import re
import unicodedata

import numpy as np

from .pango_lines import Run

__all__ = ["MARKER_COLOUR", "glued", "svg_matrix", "svg_with_text", "text_element"]

# the marker a text leaves on Cairo's SVG surface: a square an eighth of a pixel wide at
# the origin, in a colour no frame of ours draws there
MARKER_COLOUR = (1.0, 0.0, 1.0)
_SVG_SIZE = re.compile(r'width="([0-9.]+)px" height="([0-9.]+)px"')
MARKER_PATH = re.compile(
    r'<path style=" stroke:none;fill-rule:nonzero;fill:rgb\(100%,0%,100%\);fill-opacity:1;"'
    r' d="M 0 0 L 0.125 0 L 0.125 0.125 L 0 0.125 Z M 0 0 "/>')


def glued(part: str, written: str, start: int, end: int) -> str:
    """A part of a word as an SVG reader shapes it alone in the form it has in its word:
    a joiner (U+200D) on a side where it joins a letter of the word (Unicode's joining
    types: Arabic, Syriac, N'Ko, ...), or after a virama a letter follows (an Indic
    consonant's half form)."""
    import regex

    def kind(text: str) -> str:           # the joining type of its letter nearest the cut
        for ch in text:
            for joining in "DRLCU":
                if regex.match(rf"\p{{Joining_Type={joining}}}", ch):
                    return joining
        return "U"                         # transparent only (marks): nothing to join

    before = kind(written[:start][::-1]) if start else "U"
    after = kind(written[end:])
    glued = part
    if before in "DLC" and kind(part) in "DRC":
        glued = "\u200d" + glued
    if kind(part[::-1]) in "DLC" and after in "DRC":
        glued = glued + "\u200d"
    elif part and unicodedata.combining(part[-1]) == 9 and written[end:end + 1].isalpha():
        glued = glued + "\u200d"         # a virama before a letter: the half form it has there
    return glued


def svg_matrix(base, matrix: np.ndarray) -> str:
    import cairo

    m = cairo.Matrix(matrix[0, 0], matrix[1, 0], matrix[0, 1], matrix[1, 1], matrix[0, 2],
                     matrix[1, 2]).multiply(base)
    return "matrix(" + " ".join(_number(v) for v in m) + ")"


def _number(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".") if value else "0"


def _hex(rgb) -> str:
    return "#" + "".join(f"{int(round(min(max(c, 0.0), 1.0) * 255)):02x}" for c in rgb)


def text_element(runs: list[Run], matrix: str, camera, glyph, outlined: bool) -> str:
    fill = camera.get_fill_rgbas(glyph)[0]
    style = [f"fill:{_hex(fill[:3])}", f"fill-opacity:{_number(float(fill[3]))}",
             "white-space:pre"]
    if outlined:
        stroke = camera.get_stroke_rgbas(glyph, background=True)[0]
        width = (glyph.get_stroke_width(background=True) * camera.cairo_line_width_multiple)
        scale = float(np.sqrt(abs(np.linalg.det(_matrix_of(matrix)))))
        style += [f"stroke:{_hex(stroke[:3])}", f"stroke-opacity:{_number(float(stroke[3]))}",
                  f"stroke-width:{_number(width * _stage_scale(camera) / scale)}",
                  "paint-order:stroke", "stroke-linejoin:round"]
    spans = []
    for run in runs:
        if not run.text.strip():
            continue
        # the run's advance as Pango set it: a reader without the font named keeps the line's
        # spacing in the one it falls back to (a serif, or a sans for another script)
        fallback = "serif" if run.family.startswith("CMU") else "sans-serif"
        attributes = [f'x="{_number(run.x_end if run.right_to_left else run.x)}"',
                      f'y="{_number(run.baseline)}"',
                      f'font-family="{_attribute(_quoted(run.family))}, {fallback}"',
                      f'font-size="{_number(run.size)}"',
                      f'textLength="{_number(run.x_end - run.x)}"', 'lengthAdjust="spacing"']
        if run.weight >= 600:                       # the font's own: CMU Serif says 500
            attributes.append('font-weight="bold"')
        if run.italic:
            attributes.append('font-style="italic"')
        if run.right_to_left:
            attributes.append('direction="rtl" unicode-bidi="embed"')
        if run.colour is not None:
            attributes.append(f'fill="{_hex([c / 255 for c in run.colour])}"')
        spans.append(f"<tspan {' '.join(attributes)}>{html.escape(run.text, quote=False)}"
                     "</tspan>")
    return (f'<text transform="{matrix}" style="{";".join(style)}" xml:space="preserve">'
            + "".join(spans) + "</text>")


def _attribute(value: str) -> str:
    """``value`` escaped for an attribute in double quotes."""
    return html.escape(value, quote=False).replace('"', "&quot;")


def _quoted(family: str) -> str:
    """A family name as CSS takes it in a list: quoted."""
    return "'" + family.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _matrix_of(svg: str) -> np.ndarray:
    a, b, c, d, _, _ = (float(v) for v in svg[len("matrix("):-1].split())
    return np.array([[a, c], [b, d]])


def _stage_scale(camera) -> float:
    return camera.pixel_width / camera.frame_width


def svg_with_text(svg: bytes, elements: list[str], width_mm: float | None = None) -> bytes:
    """Cairo's SVG with each text's marker replaced by its ``<text>``, in drawing order;
    sized ``width_mm`` millimetres wide on paper (its height in proportion) if given."""
    document = svg.decode()
    if width_mm is not None:
        size = _SVG_SIZE.search(document)
        if size is None:
            raise RuntimeError("Cairo's SVG does not open with its size in px")
        mm = width_mm / float(size.group(1))
        document = (document[:size.start()] + f'width="{_number(width_mm)}mm" '
                    f'height="{_number(float(size.group(2)) * mm)}mm"' + document[size.end():])
    markers = MARKER_PATH.findall(document)
    if len(markers) != len(elements):
        raise RuntimeError(f"{len(elements)} texts but {len(markers)} markers in the SVG")
    pieces = MARKER_PATH.split(document)
    out = [pieces[0]]
    for element, after in zip(elements, pieces[1:]):
        out += [element, after]
    return "".join(out).encode()
