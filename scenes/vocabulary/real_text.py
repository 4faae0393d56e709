"""Texts as text in vector stills: a label in a PDF still can be selected and searched, and
an SVG still carries it as ``<text>``, so a paper's figure can be fixed in an editor.

On screen every text is outlines (manim's Text reads the SVG manimpango wrote). On a
vector surface a text is laid out again by the same Pango calls manimpango made
(:mod:`.pango_lines`), placed where its outlines are and drawn as text: on Cairo's PDF
surface Pango's glyphs become the PDF's text with the fonts embedded; Cairo's SVG surface
writes glyphs as outlines, so there each text leaves a marker that :func:`svg_with_text`
swaps for a ``<text>`` element (each run in the font Pango picked, named).

Where the text goes comes from the outlines themselves: a text keeps the outline points
it was built with (:func:`keep_rest_shape`), its outlines now must be those points moved by
one affine map (shifted, scaled, turned: not mid-Write, not mid-morph), and the layout's
own outline box maps onto the box it was built with. A text that is not whole in that
sense, or coloured glyph by glyph other than as built, stays outlines.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

import numpy as np
from manim import MarkupText, Text

from .fastcopy import Unchanging, family_of
from .pango_lines import Run, cairo_pointer, pango

__all__ = ["TextPainter", "TextSource", "keep_rest_shape", "keep_word_source", "lay_out",
           "svg_with_text"]

_LIGATURES_OFF = "<span font_features='liga=0,dlig=0,clig=0,hlig=0'>{}</span>"
_COLOUR_ATTRIBUTE = re.compile(r"""\s(?:foreground|fgcolor|color)=(?:"[^"]*"|'[^']*')""")
# the marker a text leaves on Cairo's SVG surface: a square an eighth of a pixel wide at
# the origin, in a colour no frame of ours draws there
MARKER_COLOUR = (1.0, 0.0, 1.0)
_SVG_SIZE = re.compile(r'width="([0-9.]+)px" height="([0-9.]+)px"')
MARKER_PATH = re.compile(
    r'<path style=" stroke:none;fill-rule:nonzero;fill:rgb\(100%,0%,100%\);fill-opacity:1;"'
    r' d="M 0 0 L 0.125 0 L 0.125 0.125 L 0 0.125 Z M 0 0 "/>')


@dataclass(frozen=True)
class TextSource(Unchanging):
    """What a text was laid out from and how its outlines were when it was built: enough
    to lay it out again as manimpango did (:func:`lay_out`) and to find where it is."""
    markup: bool                  # a MarkupText's markup, or a Text's plain text
    text: str
    size: float                   # manim's font size
    settings: tuple               # a Text's (start, end, font, slant, weight, line) runs
    font: str
    slant: str
    weight: str
    line_spacing: float
    ligatures_off: bool
    justify: bool
    wrap_width: float             # the layout's width, in its own units
    colour: str                   # the colour it was built in (a markup's own default)
    points: bytes                 # its outlines' points then (n x 3 floats)
    counts: tuple                 # ... so many per glyph
    colours: bytes                # each glyph's fill then (RGBA floats)


def keep_rest_shape(made) -> None:
    """Keep on a text just built what it was laid out from and the outlines it had."""
    from manim import config

    if not isinstance(made, (Text, MarkupText)):
        return
    if isinstance(made, MarkupText):
        text, settings, wrap = made.original_text, (), 500.0
    else:
        text = made.original_text.replace("\t", " " * made.tab_width)
        settings = tuple((s.start, s.end, s.font, s.slant, s.weight, s.line_num)
                         for s in _settings(made, text))
        wrap = float(config.pixel_width)        # manim lays a Text out as wide as the render
    made.text_source = _source(made, isinstance(made, MarkupText), text, settings, wrap,
                               [g for g in family_of(made) if g.has_points()])


def keep_word_source(glyphs, whole, word: str) -> None:
    """Keep on ``glyphs`` (a word's glyphs cut out of the Text ``whole``, shaped as
    ``word`` alone shapes) what ``word`` alone is laid out from, and their outlines."""
    source = getattr(whole, "text_source", None)
    if source is None or source.markup or "\n" in word or len(
            {s[2:5] for s in source.settings}) != 1:
        return
    font, slant, weight = source.settings[0][2:5]
    glyphs.text_source = _source(whole, False, word, ((0, len(word), font, slant, weight, 0),),
                                 source.wrap_width,
                                 [g for g in family_of(glyphs) if g.has_points()])


def _source(made, markup: bool, text: str, settings: tuple, wrap: float, glyphs: list
            ) -> TextSource:
    points = np.concatenate([g.points for g in glyphs]) if glyphs else np.zeros((0, 3))
    colours = np.concatenate([g.get_fill_rgbas() for g in glyphs]) if glyphs else points
    return TextSource(markup=markup, text=text, size=float(made._font_size), settings=settings,
                      font=made.font, slant=made.slant, weight=made.weight,
                      line_spacing=float(made.line_spacing),
                      ligatures_off=bool(made.disable_ligatures),
                      justify=bool(getattr(made, "justify", False)), wrap_width=wrap,
                      colour=made.color.to_hex(),
                      points=np.ascontiguousarray(points, dtype=float).tobytes(),
                      counts=tuple(len(g.points) for g in glyphs),
                      colours=np.ascontiguousarray(colours, dtype=float).tobytes())


@dataclass
class _Placed:
    """A text to draw as text: its glyphs, its map from layout units to the stage."""
    source: TextSource
    glyphs: list
    matrix: np.ndarray            # 3x3, layout (manimpango's SVG units) -> stage units
    uncoloured: bool              # one colour for all: the markup's colours left out
    inked: object                 # a glyph with ink: its fill and stroke are the text's


class TextPainter:
    """Draws the texts among a frame's mobjects as text on ``ctx`` (a PDF or SVG
    surface's context with the camera's matrix set), in place of their outlines.

    ``draw(vmobject)`` is called for every vectorized mobject in drawing order; it returns
    False for one it does not draw (manim draws its outlines), True for a glyph it drew
    as part of its text or skips (its text was drawn at its first glyph).
    """

    def __init__(self, camera, ctx, fmt: str, mobjects) -> None:
        self.camera, self.ctx, self.fmt = camera, ctx, fmt
        self.elements: list[str] = []      # an SVG still's <text>s, one per marker
        self.outlines: list[str] = []      # texts on the frame left as outlines
        self._text_of: dict[int, _Placed] = {}
        self._done: set[int] = set()
        shown = {id(m) for m in camera.get_mobjects_to_display(mobjects)}
        for mobject in mobjects:
            for text in family_of(mobject):
                if getattr(text, "text_source", None) is None:
                    continue
                placed = _placement(text, shown)
                if placed is None:
                    if any(id(g) in shown for g in family_of(text)):
                        self.outlines.append(text.text_source.text)
                    continue
                for glyph in placed.glyphs:
                    self._text_of.setdefault(id(glyph), placed)

    def draw(self, vmobject) -> bool:
        placed = self._text_of.get(id(vmobject))
        if placed is None:
            return False
        if id(placed) not in self._done:
            self._done.add(id(placed))
            self._draw(placed)
        return True

    def _draw(self, placed: _Placed) -> None:
        camera, ctx, first = self.camera, self.ctx, placed.inked
        fill = camera.get_fill_rgbas(first)
        stroke = camera.get_stroke_rgbas(first, background=True)
        stroke_width = first.get_stroke_width(background=True)
        outlined = stroke_width > 0 and stroke[:, 3].max() > 0
        if fill[:, 3].max() <= 0 and not outlined:
            return                                   # drawn fully transparent: nothing
        base = ctx.get_matrix()
        if outlined:                                 # manim's background stroke, as it draws it
            ctx.new_path()
            self._lay(placed, base, "path")
            camera.apply_stroke(ctx, first, background=True)
        ctx.new_path()
        camera.set_cairo_context_color(ctx, fill, first)
        if self.fmt == "svg":
            runs = self._lay(placed, base, "runs")
            self.elements.append(_text_element(runs, _svg_matrix(base, placed.matrix),
                                               camera, first, outlined))
            ctx.save()
            ctx.identity_matrix()
            ctx.rectangle(0, 0, 0.125, 0.125)
            ctx.set_source_rgb(*MARKER_COLOUR)
            ctx.fill()
            ctx.restore()
        else:
            self._lay(placed, base, "show")
        ctx.new_path()

    def _lay(self, placed: _Placed, base, how: str) -> list[Run]:
        import cairo

        m = placed.matrix
        self.ctx.set_matrix(cairo.Matrix(m[0, 0], m[1, 0], m[0, 1], m[1, 1], m[0, 2],
                                         m[1, 2]).multiply(base))
        try:
            return lay_out(placed.source, self.ctx, how, uncoloured=placed.uncoloured)
        finally:
            self.ctx.set_matrix(base)


def lay_out(source: TextSource, ctx, how: str, *, uncoloured: bool = True) -> list[Run]:
    """Lay ``source`` out on ``ctx`` as manimpango's text2svg did, in its SVG's units:
    ``how`` "show" draws it as text, "path" adds its outlines to the path, "runs" only
    returns its runs."""
    from manim.mobject.text.text_mobject import START_X, START_Y, TEXT2SVG_ADJUSTMENT_FACTOR
    from manimpango import PangoUtils

    p, cr = pango(), cairo_pointer(ctx)
    size = source.size / TEXT2SVG_ADJUSTMENT_FACTOR
    runs: list[Run] = []
    layout = p.layout(cr, source.wrap_width)

    def place(font: str, slant: str, weight: str, markup: str, x: float, y: float) -> None:
        p.set_font(layout, font, size, PangoUtils.str2style(slant).value,
                   PangoUtils.str2weight(weight).value)
        if source.ligatures_off:
            markup = _LIGATURES_OFF.format(markup)
        ctx.move_to(x, y)
        p.cairo_update_layout(cr, layout)
        p.layout_set_markup(layout, markup.encode(), -1)
        if how == "show":
            p.cairo_show_layout(cr, layout)
        elif how == "path":
            p.cairo_layout_path(cr, layout)
        else:
            xx, yx, xy, yy, _, _ = ctx.get_matrix()
            runs.extend(p.runs(layout, x, y, float(np.sqrt(abs(xx * yy - xy * yx)))))

    try:
        if source.markup:
            if source.justify:
                p.layout_set_justify(layout, 1)
            markup = (_COLOUR_ATTRIBUTE.sub("", source.text) if uncoloured else
                      f'<span foreground="{source.colour}">{source.text}</span>')
            place(source.font, source.slant, source.weight, markup, START_X, START_Y)
            return runs
        line_spacing = source.line_spacing / TEXT2SVG_ADJUSTMENT_FACTOR
        offset_x, last_line = 0.0, 0
        for start, end, font, slant, weight, line in source.settings:
            if line != last_line:
                offset_x, last_line = 0.0, line
            piece = html.escape(source.text[start:end].replace("\n", " "), quote=False)
            place(font, slant, weight, piece, START_X + offset_x, START_Y + line_spacing * line)
            offset_x += p.width(layout)
    finally:
        p.object_unref(layout)
    return runs


def _settings(text, whole: str):
    """manim's own split of a Text into settings (font, slant, weight, line), computed
    on the text as it was laid out (manim keeps it without spaces afterwards)."""
    kept = text.text
    text.text = whole
    try:
        return text._text2settings(None)
    finally:
        text.text = kept


def _placement(text, shown: set[int]) -> _Placed | None:
    """Where ``text`` is, if it can be drawn as text: every glyph on the frame, its
    outlines its rest outlines under one affine map, its colours one or as built."""
    source: TextSource = text.text_source
    glyphs = [g for g in family_of(text) if g.has_points()]
    if (len(glyphs) != len(source.counts) or not glyphs
            or any(len(g.points) != n for g, n in zip(glyphs, source.counts))
            or any(id(g) not in shown for g in glyphs)):
        return None
    rest = np.frombuffer(source.points).reshape(-1, 3)[:, :2]
    now = np.concatenate([g.points for g in glyphs])[:, :2]
    affine = _affine(rest, now)
    if affine is None:
        return None
    fills = [g.get_fill_rgbas() for g in glyphs]
    if any(len(f) != 1 for f in fills):                  # a gradient: outlines
        return None
    fills = np.concatenate(fills)
    # a glyph of no size (a space manim keeps as a glyph, unfilled) draws nothing either way
    span = float(np.ptp(now, axis=0).max())
    inked = np.array([np.ptp(g.points[:, :2], axis=0).max() > 1e-9 * span for g in glyphs])
    if not inked.any():
        return None
    fills = fills[inked]
    uncoloured = bool(np.all(fills == fills[0]))
    # glyphs of several colours: a markup's own, as built (a plain text's glyph hidden or
    # recoloured alone has no text to say it)
    if not uncoloured and not (source.markup and np.allclose(
            fills, np.frombuffer(source.colours).reshape(-1, 4)[inked])):
        return None
    if any(g.get_stroke_width() > 0 and g.get_stroke_opacity() > 0 for g in glyphs):
        return None                                       # mid-Write: a stroke of its own
    background = {(g.get_stroke_width(background=True),
                   tuple(g.get_stroke_rgbas(background=True).ravel()))
                  for g, ink in zip(glyphs, inked) if ink}
    if len(background) != 1:
        return None
    fitted = _layout_to_rest(source, rest)
    if fitted is None:
        return None
    return _Placed(source, glyphs, affine @ fitted, uncoloured,
                   glyphs[int(np.flatnonzero(inked)[0])])


def _affine(rest: np.ndarray, now: np.ndarray) -> np.ndarray | None:
    """The affine map taking ``rest`` to ``now`` (3x3), or None where none does."""
    design = np.hstack([rest, np.ones((len(rest), 1))])
    solution, *_ = np.linalg.lstsq(design, now, rcond=None)
    span = max(float(np.ptp(now, axis=0).max()), 1e-9)
    if np.abs(design @ solution - now).max() > 1e-6 * span:
        return None
    return np.vstack([solution.T, [0.0, 0.0, 1.0]])


_FITTED: dict = {}


def _layout_to_rest(source: TextSource, rest: np.ndarray) -> np.ndarray | None:
    """The map from the text's layout (manimpango's SVG units, y down) to its rest outlines
    (y up): the outline box of the layout laid again onto the box of the rest points."""
    import cairo

    key = (source.points, source.text, source.settings, source.size, source.wrap_width)
    if key not in _FITTED:
        # a vector surface, as manimpango drew on, unbounded enough: Pango leaves out
        # glyphs outside the clip
        surface = cairo.SVGSurface(None, 1e6, 1e6)
        ctx = cairo.Context(surface)
        lay_out(source, ctx, "path")
        path = list(ctx.copy_path())
        # a move with nothing drawn from it (the current point Pango puts back) is no outline
        points = [xy for n, (kind, segment) in enumerate(path)
                  if not (kind == cairo.PATH_MOVE_TO
                          and (n + 1 == len(path) or path[n + 1][0] == cairo.PATH_MOVE_TO))
                  for xy in zip(segment[::2], segment[1::2])]
        surface.finish()
        _FITTED[key] = _box_map(np.array(points), rest) if points else None
        if len(_FITTED) > 4096:
            _FITTED.pop(next(iter(_FITTED)))
    return _FITTED[key]


def _box_map(laid: np.ndarray, rest: np.ndarray) -> np.ndarray | None:
    (x0, y0), (x1, y1) = laid.min(axis=0), laid.max(axis=0)
    (r0, s0), (r1, s1) = rest.min(axis=0), rest.max(axis=0)
    if min(x1 - x0, y1 - y0, r1 - r0, s1 - s0) <= 0:
        return None
    sx, sy = (r1 - r0) / (x1 - x0), (s1 - s0) / (y1 - y0)
    if abs(sx - sy) > 2e-3 * sx:                # laid out otherwise than it was built
        return None
    return np.array([[sx, 0.0, r0 - sx * x0], [0.0, -sy, s1 + sy * y0], [0.0, 0.0, 1.0]])


def _svg_matrix(base, matrix: np.ndarray) -> str:
    import cairo

    m = cairo.Matrix(matrix[0, 0], matrix[1, 0], matrix[0, 1], matrix[1, 1], matrix[0, 2],
                     matrix[1, 2]).multiply(base)
    return "matrix(" + " ".join(_number(v) for v in m) + ")"


def _number(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".") if value else "0"


def _hex(rgb) -> str:
    return "#" + "".join(f"{int(round(min(max(c, 0.0), 1.0) * 255)):02x}" for c in rgb)


def _text_element(runs: list[Run], matrix: str, camera, glyph, outlined: bool) -> str:
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
