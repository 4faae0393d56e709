"""Texts as text in vector stills: a label in a PDF still can be selected and searched, and
an SVG still carries it as ``<text>``, so a paper's figure can be fixed in an editor.

On screen every text is outlines (manim's Text reads the SVG manimpango wrote). On a
vector surface a text is laid out again by the same Pango calls manimpango made
(:mod:`.pango_lines`), placed where its outlines are and drawn as text: on Cairo's PDF
surface Pango's glyphs become the PDF's text with the fonts embedded; Cairo's SVG surface
writes glyphs as outlines, so there each text leaves a marker that
:func:`.svg_text.svg_with_text` swaps for a ``<text>`` element (each run in the font Pango
picked, named). Glyphs cut out of a text (a word after the "Hg" that fixes its baseline, a
piece of a joined word) are laid out within the whole text and only their glyphs drawn,
mapped to their own letters (:func:`keep_part_source`).

Where the text goes comes from the outlines themselves: a text keeps the outline points
it was built with (:func:`keep_rest_shape`), its outlines now must be those points moved by
one affine map (shifted, scaled, turned: not mid-Write, not mid-morph), and the layout's
own outline box maps onto the box it was built with. A text that is not whole in that
sense, or coloured glyph by glyph other than as built, stays outlines.
"""
from __future__ import annotations

import ctypes
import html
import re
import unicodedata
from dataclasses import dataclass, replace

import numpy as np
from manim import MarkupText, Text

from .fastcopy import Unchanging, family_of
from .pango_lines import Run, cairo_pointer, pango
from .svg_text import MARKER_COLOUR, glued, svg_matrix, text_element

__all__ = ["TextPainter", "TextSource", "keep_part_source", "keep_rest_shape", "lay_out"]

_LIGATURES_OFF = "<span font_features='liga=0,dlig=0,clig=0,hlig=0'>{}</span>"
_COLOUR_ATTRIBUTE = re.compile(r"""\s(?:foreground|fgcolor|color)=(?:"[^"]*"|'[^']*')""")


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
    part: tuple | None = None     # glyphs cut out of the text: its characters (start, end)


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


def keep_part_source(glyphs, whole, start: int, end: int) -> None:
    """Keep on ``glyphs`` (glyphs cut out of the text ``whole``: those of its characters
    ``start`` to ``end``, shaped as they are in it; a negative ``start`` counts from the
    end, as a slice does) what ``whole`` is laid out from, which part is theirs, and their
    outlines."""
    source = getattr(whole, "text_source", None)
    if source is None or source.part is not None or "\n" in source.text \
            or (not source.markup and len(source.settings) != 1):
        return
    if start < 0:                     # counted from the end of the text laid out
        length = source.settings[0][1] if not source.markup else None
        if length is None:
            return
        start, end = length + start, length
    mine = _source(whole, source.markup, source.text, source.settings, source.wrap_width,
                   [g for g in family_of(glyphs) if g.has_points()])
    glyphs.text_source = replace(mine, part=(start, end))


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
                if placed is not None and fmt == "svg" and _opens_on_a_mark(placed.source):
                    placed = None     # an SVG reader would set it on a dotted circle
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
            self.elements.append(text_element(runs, svg_matrix(base, placed.matrix),
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
        if source.part is not None:
            place_part(layout, x, y)
        elif how == "show":
            p.cairo_show_layout(cr, layout)
        elif how == "path":
            p.cairo_layout_path(cr, layout)
        else:
            runs.extend(p.runs(layout, x, y, _scale(ctx)))

    def place_part(layout, x: float, y: float) -> None:
        parts = p.part_runs(layout, x, y, _scale(ctx), *source.part)
        if how == "runs":
            written = ctypes.string_at(p.layout_get_text(layout)).decode()
            runs.extend(replace(part.run, text=glued(part.run.text, written, *source.part))
                        for part in parts)
            return
        for part in parts:
            p.draw_part(cr, part, how)

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


def _opens_on_a_mark(source: TextSource) -> bool:
    """Whether the text (or part) opens on a combining mark: a vowel sign cut from its
    letter, which a reader shaping it alone (an SVG's) draws on a dotted circle, where
    the film draws it as it sits in its word."""
    start = source.part[0] if source.part is not None else 0
    text = source.text if not source.markup else None
    if text is None:                      # a markup's text: its characters without the tags
        text = re.sub(r"<[^>]*>", "", source.text)
        text = html.unescape(text)
    return start < len(text) and unicodedata.category(text[start])[0] == "M"


def _scale(ctx) -> float:
    """How many device units one unit of ``ctx``'s user space is (its matrix's scale)."""
    xx, yx, xy, yy, _, _ = ctx.get_matrix()
    return float(np.sqrt(abs(xx * yy - xy * yx)))


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

    key = (source.points, source.text, source.settings, source.size, source.wrap_width,
           source.part)
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

