"""Pango, called on a pycairo context: the same calls manimpango makes to write a text's SVG
(``text2svg``), so a text can be drawn again as text, not as outlines, on a vector surface
(:mod:`.real_text`). manimpango writes only to a file of its own; here the same layout is
laid on the caller's Cairo context through ctypes, and its runs (the text, the font Pango
picked, where each run starts) are read back for an SVG ``<text>``.

pycairo and manimpango are built against the system's Cairo and Pango (``make setup``
builds them from source), so a ``cairo_t`` from pycairo is one the system's Pango can use.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from dataclasses import dataclass

__all__ = ["PANGO_SCALE", "PartRun", "Run", "cairo_pointer", "pango"]

PANGO_SCALE = 1024
_ATTR_FOREGROUND = 9                   # PangoAttrType's PANGO_ATTR_FOREGROUND


class _Rectangle(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int),
                ("width", ctypes.c_int), ("height", ctypes.c_int)]


class _Analysis(ctypes.Structure):      # PangoAnalysis (Pango 1.44 to 1.56)
    _fields_ = [("shape_engine", ctypes.c_void_p), ("lang_engine", ctypes.c_void_p),
                ("font", ctypes.c_void_p), ("level", ctypes.c_uint8),
                ("gravity", ctypes.c_uint8), ("flags", ctypes.c_uint8),
                ("script", ctypes.c_uint8), ("language", ctypes.c_void_p),
                ("extra_attrs", ctypes.c_void_p)]


class _Item(ctypes.Structure):          # PangoItem
    _fields_ = [("offset", ctypes.c_int), ("length", ctypes.c_int),
                ("num_chars", ctypes.c_int), ("analysis", _Analysis)]


class _GlyphInfo(ctypes.Structure):   # PangoGlyphInfo: the glyph, its geometry, its flags
    _fields_ = [("glyph", ctypes.c_uint32), ("width", ctypes.c_int32),
                ("x_offset", ctypes.c_int32), ("y_offset", ctypes.c_int32),
                ("attr", ctypes.c_uint32)]


class _GlyphString(ctypes.Structure):  # PangoGlyphString
    _fields_ = [("num_glyphs", ctypes.c_int), ("glyphs", ctypes.POINTER(_GlyphInfo)),
                ("log_clusters", ctypes.POINTER(ctypes.c_int)), ("space", ctypes.c_int)]


class CairoGlyph(ctypes.Structure):    # cairo_glyph_t
    _fields_ = [("index", ctypes.c_ulong), ("x", ctypes.c_double), ("y", ctypes.c_double)]


class _Cluster(ctypes.Structure):      # cairo_text_cluster_t
    _fields_ = [("num_bytes", ctypes.c_int), ("num_glyphs", ctypes.c_int)]


class _GSList(ctypes.Structure):
    pass


_GSList._fields_ = [("data", ctypes.c_void_p), ("next", ctypes.POINTER(_GSList))]


class _Attribute(ctypes.Structure):     # PangoAttribute, then PangoAttrColor's colour
    _fields_ = [("klass", ctypes.POINTER(ctypes.c_int)), ("start_index", ctypes.c_uint),
                ("end_index", ctypes.c_uint), ("red", ctypes.c_uint16),
                ("green", ctypes.c_uint16), ("blue", ctypes.c_uint16)]


@dataclass(frozen=True)
class PartRun:
    """The glyphs of a part of a laid-out text that fall in one run, placed as Pango
    placed them (layout units), with the run's font and the part's text in the run."""
    run: Run                          # its text the part's, x to x_end its glyphs' advance
    font: int                         # the run's PangoFont (a PangoCairoFont)
    glyphs: list                      # (glyph index, x, y)
    clusters: list                    # (bytes, glyphs) of each cluster, in the text's order


@dataclass(frozen=True)
class Run:
    """One run of a laid-out line: its text in one font, where it starts (x, its line's
    baseline y) and ends (x_end), in the layout's units (user space, not Pango units)."""
    text: str
    family: str
    size: float                        # the font's size in user space units
    weight: int
    italic: bool
    x: float
    x_end: float
    baseline: float
    right_to_left: bool
    colour: tuple[int, int, int] | None   # a foreground of the markup's (0-255), or None


def _library(*names: str):
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            found = ctypes.util.find_library(name.split(".so")[0].removeprefix("lib"))
            if found:
                return ctypes.CDLL(found)
    raise OSError(f"{names[0]} is not installed (libpango1.0-0)")


def cairo_pointer(context) -> int:
    """The ``cairo_t *`` a pycairo Context wraps (pycairo's object: the Python object's
    head, then the pointer; checked by the size of its type)."""
    import cairo

    head = object.__basicsize__
    if cairo.Context.__basicsize__ != head + 2 * ctypes.sizeof(ctypes.c_void_p):
        raise RuntimeError("this pycairo's Context is not laid out as expected")
    return ctypes.c_void_p.from_address(id(context) + head).value


class _Pango:
    """The functions of Pango, PangoCairo and GObject that text2svg calls, typed."""

    def __init__(self) -> None:
        pango = _library("libpango-1.0.so.0")
        cairo = _library("libpangocairo-1.0.so.0")
        gobject = _library("libgobject-2.0.so.0")
        plain_cairo = _library("libcairo.so.2")
        p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        signatures = {
            (cairo, "pango_cairo_create_layout"): (p, [p]),
            (cairo, "pango_cairo_update_layout"): (None, [p, p]),
            (cairo, "pango_cairo_show_layout"): (None, [p, p]),
            (cairo, "pango_cairo_layout_path"): (None, [p, p]),
            (pango, "pango_layout_get_context"): (p, [p]),
            (pango, "pango_context_set_round_glyph_positions"): (None, [p, i]),
            (pango, "pango_layout_set_width"): (None, [p, i]),
            (pango, "pango_layout_set_justify"): (None, [p, i]),
            (pango, "pango_layout_set_markup"): (None, [p, s, i]),
            (pango, "pango_layout_set_font_description"): (None, [p, p]),
            (pango, "pango_layout_get_size"): (None, [p, ctypes.POINTER(i), ctypes.POINTER(i)]),
            (pango, "pango_layout_get_text"): (p, [p]),
            (pango, "pango_layout_get_iter"): (p, [p]),
            (pango, "pango_layout_iter_free"): (None, [p]),
            (pango, "pango_layout_iter_get_run_readonly"): (ctypes.POINTER(p), [p]),
            (pango, "pango_layout_iter_next_run"): (i, [p]),
            (pango, "pango_layout_iter_get_baseline"): (i, [p]),
            (pango, "pango_layout_iter_get_run_extents"):
                (None, [p, ctypes.POINTER(_Rectangle), ctypes.POINTER(_Rectangle)]),
            (pango, "pango_font_description_new"): (p, []),
            (pango, "pango_font_description_free"): (None, [p]),
            (pango, "pango_font_description_set_size"): (None, [p, i]),
            (pango, "pango_font_description_set_family"): (None, [p, s]),
            (pango, "pango_font_description_set_style"): (None, [p, i]),
            (pango, "pango_font_description_set_weight"): (None, [p, i]),
            (pango, "pango_font_describe_with_absolute_size"): (p, [p]),
            (pango, "pango_font_description_get_family"): (s, [p]),
            (pango, "pango_font_description_get_size"): (i, [p]),
            (pango, "pango_font_description_get_weight"): (i, [p]),
            (pango, "pango_font_description_get_style"): (i, [p]),
            (gobject, "g_object_unref"): (None, [p]),
            (cairo, "pango_cairo_font_get_scaled_font"): (p, [p]),
            (plain_cairo, "cairo_set_scaled_font"): (None, [p, p]),
            (plain_cairo, "cairo_glyph_path"): (None, [p, ctypes.POINTER(CairoGlyph), i]),
            (plain_cairo, "cairo_show_text_glyphs"):
                (None, [p, s, i, ctypes.POINTER(CairoGlyph), i, ctypes.POINTER(_Cluster), i, i]),
        }
        for (library, name), (result, arguments) in signatures.items():
            function = getattr(library, name)
            function.restype, function.argtypes = result, arguments
            setattr(self, name.removeprefix("pango_").removeprefix("g_"), function)

    def layout(self, cr: int, width: float) -> int:
        """A layout on ``cr`` as text2svg makes one: glyph positions not rounded, lines as
        wide as ``width``. The caller unrefs it (:meth:`object_unref`)."""
        layout = self.cairo_create_layout(cr)
        self.context_set_round_glyph_positions(self.layout_get_context(layout), 0)
        self.layout_set_width(layout, units(width))
        return layout

    def set_font(self, layout: int, family: str | None, size: float, style: int,
                 weight: int) -> None:
        description = self.font_description_new()
        self.font_description_set_size(description, units(size))
        if family:
            self.font_description_set_family(description, family.encode())
        self.font_description_set_style(description, style)
        self.font_description_set_weight(description, weight)
        self.layout_set_font_description(layout, description)
        self.font_description_free(description)

    def width(self, layout: int) -> float:
        width = ctypes.c_int()
        self.layout_get_size(layout, ctypes.byref(width), None)
        return width.value / PANGO_SCALE

    def _each_run(self, layout: int):
        """(the layout's iterator, the run) for every run of ``layout``, in line order."""
        it = self.layout_get_iter(layout)
        try:
            while True:
                run = self.layout_iter_get_run_readonly(it)
                if run:
                    yield it, run
                if not self.layout_iter_next_run(it):
                    break
        finally:
            self.layout_iter_free(it)

    def runs(self, layout: int, x0: float, y0: float, scale: float) -> list[Run]:
        """The runs of ``layout`` laid at (x0, y0) (its top left corner, as
        ``pango_cairo_show_layout`` lays it at the current point), in line order; ``scale``:
        how many device units a layout unit is on the context it was laid out on."""
        text = ctypes.string_at(self.layout_get_text(layout))
        return [self._run(it, run, text, x0, y0, scale) for it, run in self._each_run(layout)]

    def part_runs(self, layout: int, x0: float, y0: float, scale: float, start: int,
                  end: int) -> list[PartRun]:
        """The glyphs of the characters ``start`` to ``end`` of ``layout``'s text, run by
        run, as :meth:`runs` lays them (a glyph belongs to the part whose character its
        cluster starts at)."""
        text = ctypes.string_at(self.layout_get_text(layout))
        chars = text.decode()
        first, last = len(chars[:start].encode()), len(chars[:end].encode())
        found = (self._part_of_run(it, run, text, x0, y0, scale, first, last)
                 for it, run in self._each_run(layout))
        return [part for part in found if part is not None]

    def _part_of_run(self, it: int, run, text: bytes, x0: float, y0: float, scale: float,
                     first: int, last: int) -> PartRun | None:
        whole = self._run(it, run, text, x0, y0, scale)
        item = ctypes.cast(run[0], ctypes.POINTER(_Item)).contents
        string = ctypes.cast(run[1], ctypes.POINTER(_GlyphString)).contents
        x, glyphs, starts, left, right = whole.x, [], [], None, None
        for n in range(string.num_glyphs):
            info = string.glyphs[n]
            width = info.width / PANGO_SCALE
            if first <= item.offset + string.log_clusters[n] < last:
                glyphs.append((info.glyph, x + info.x_offset / PANGO_SCALE,
                               whole.baseline + info.y_offset / PANGO_SCALE))
                starts.append(item.offset + string.log_clusters[n])
                left = x if left is None else min(left, x)
                right = x + width if right is None else max(right, x + width)
            x += width
        if not glyphs:
            return None
        start, stop = max(first, item.offset), min(last, item.offset + item.length)
        # each cluster's bytes run to the next cluster's start (in the text's order)
        bounds = sorted(set(starts)) + [stop]
        span = {b: bounds[k + 1] - b for k, b in enumerate(bounds[:-1])}
        clusters: list[list[int]] = []
        for n, byte in enumerate(starts):
            if n and starts[n - 1] == byte:
                clusters[-1][1] += 1
            else:
                clusters.append([span[byte], 1])
        part = Run(text=text[start:stop].decode(), family=whole.family, size=whole.size,
                   weight=whole.weight, italic=whole.italic, x=left, x_end=right,
                   baseline=whole.baseline, right_to_left=whole.right_to_left,
                   colour=whole.colour)
        if whole.right_to_left:
            # cairo reads clusters in the text's order, and with its BACKWARD flag takes
            # their glyphs from the end of the glyphs' (visual) order
            clusters.reverse()
        return PartRun(part, item.analysis.font, glyphs, [tuple(c) for c in clusters])

    def draw_part(self, cr: int, part: PartRun, how: str) -> None:
        """Draw ``part``'s glyphs on ``cr`` as text ("show": its text mapped onto them, so
        a PDF reader finds the part) or add their outlines to the path ("path")."""
        glyphs = (CairoGlyph * len(part.glyphs))(*(CairoGlyph(g, x, y)
                                                   for g, x, y in part.glyphs))
        self.cairo_set_scaled_font(cr, self.cairo_font_get_scaled_font(part.font))
        if how == "path":
            self.cairo_glyph_path(cr, glyphs, len(part.glyphs))
            return
        utf8 = part.run.text.encode()
        clusters = (_Cluster * len(part.clusters))(*(_Cluster(b, g) for b, g in part.clusters))
        # right to left: the glyphs run backward through the text (CAIRO_TEXT_CLUSTER_FLAG_BACKWARD)
        self.cairo_show_text_glyphs(cr, utf8, len(utf8), glyphs, len(part.glyphs), clusters,
                                    len(part.clusters), int(part.run.right_to_left))

    def _run(self, it: int, run, text: bytes, x0: float, y0: float, scale: float) -> Run:
        item = ctypes.cast(run[0], ctypes.POINTER(_Item)).contents
        logical = _Rectangle()
        self.layout_iter_get_run_extents(it, None, ctypes.byref(logical))
        description = self.font_describe_with_absolute_size(item.analysis.font)
        try:
            family = (self.font_description_get_family(description) or b"").decode()
            # the font is sized for the context's matrix: its size in the layout's units
            size = self.font_description_get_size(description) / PANGO_SCALE / scale
            weight = self.font_description_get_weight(description)
            italic = self.font_description_get_style(description) != 0
        finally:
            self.font_description_free(description)
        return Run(text=text[item.offset:item.offset + item.length].decode(),
                   family=family, size=size, weight=weight, italic=italic,
                   x=x0 + logical.x / PANGO_SCALE,
                   x_end=x0 + (logical.x + logical.width) / PANGO_SCALE,
                   baseline=y0 + self.layout_iter_get_baseline(it) / PANGO_SCALE,
                   right_to_left=bool(item.analysis.level % 2),
                   colour=_foreground(item.analysis.extra_attrs))


def _foreground(attributes: int | None) -> tuple[int, int, int] | None:
    node = ctypes.cast(attributes, ctypes.POINTER(_GSList)) if attributes else None
    while node:
        attribute = ctypes.cast(node.contents.data, ctypes.POINTER(_Attribute)).contents
        if attribute.klass.contents.value == _ATTR_FOREGROUND:
            return tuple(c >> 8 for c in (attribute.red, attribute.green, attribute.blue))
        node = node.contents.next
    return None


def units(value: float) -> int:
    """pango_units_from_double."""
    return math.floor(value * PANGO_SCALE + 0.5)


@functools.cache
def pango() -> _Pango:
    """Pango's functions, loaded once per process."""
    return _Pango()
