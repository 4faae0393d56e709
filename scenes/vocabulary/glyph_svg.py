"""Text drawn from Cairo's SVG a glyph at a time: manim's Text reads its SVG with
svgelements, which parses every glyph's outline again at each place the glyph is used (a
text of 17 letters is 17 parses, and every number on screen is its own text); half of a
film's scene graph time went there. Cairo writes a text's SVG in one plain form — each
glyph's outline once, as a symbol, then groups of a style (a colour) that place the
symbols — so each outline is converted once whatever its colour, and each style once
whatever the outline, by manim and svgelements themselves reading a small SVG of the same
form (an outline of a kind manim has already read the same way is read from its path
data: see _from_path_data); each use is a copy of its outline moved to its place, in its
style. An SVG in any other form (a transform, an attribute we do not know, a shape of its
own) is read by manim as before.

The points agree with manim's own reading to the last bits of a float (a straight line's
control points are interpolated before, not after, the move), far below a pixel, and every
other attribute is the same; tests/test_glyph_svg.py compares both on every script the
film draws.
"""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections import OrderedDict

import numpy as np
from manim import RIGHT, MarkupText, Text, VGroup

from .fastcopy import copy_mobject

__all__ = ["QuickMarkupText", "QuickText", "glyph_mobjects"]

_SVG = "{http://www.w3.org/2000/svg}"
_XLINK = "{http://www.w3.org/1999/xlink}href"
_ROOT_KEYS = {"width", "height", "viewBox", "version"}
_OUTLINES: OrderedDict = OrderedDict()   # (prototype at the origin, scale) per outline
_STYLES: OrderedDict = OrderedDict()     # a shape carrying the style, per style of a use
KEPT = 8192                              # of each
# what of a shape manim's reading sets from the SVG's styles (the rest is the outline's)
STYLE_ATTRIBUTES = ("fill_rgbas", "fill_opacity", "stroke_rgbas", "stroke_opacity",
                    "stroke_width", "background_stroke_color", "background_stroke_opacity",
                    "background_stroke_rgbas", "background_stroke_width")
_SQUARE = "M 0 0 L 1 0 L 1 1 L 0 1 Z"      # an outline to carry a style


def glyph_mobjects(svg_mobject, file_path) -> list | None:
    """The mobjects manim would make from ``file_path`` (a Cairo text SVG) for
    ``svg_mobject``, in order, or None where the file is not in Cairo's plain form."""
    try:
        root = ET.parse(file_path).getroot()
    except (OSError, ET.ParseError):
        return None
    if root.tag != _SVG + "svg" or not set(root.attrib) <= _ROOT_KEYS:
        return None
    symbols: dict[str, tuple[str, str]] = {}
    placed: list[tuple[str, tuple, float, float]] = []
    for child in root:
        if child.tag == _SVG + "defs":
            if not _read_defs(child, symbols):
                return None
        elif not _read_uses(child, (), symbols, placed):
            return None
    common = (type(svg_mobject).__name__, tuple(sorted(root.attrib.items())),
              tuple(sorted(svg_mobject.path_string_config.items())))
    config_style = tuple(sorted(svg_mobject.generate_config_style_dict().items()))
    # an outline is converted once whatever its colour; a colour once whatever the outline
    outlines = [common + (symbols[name],) for name, _, _, _ in placed]
    styles = [common + (config_style, symbols[name][0], chain)
              for name, chain, _, _ in placed]
    _read_outlines(svg_mobject, [k for k in dict.fromkeys(outlines) if k not in _OUTLINES])
    _read_styles(svg_mobject, [k for k in dict.fromkeys(styles) if k not in _STYLES])
    made = []
    for outline, style, (_, _, x, y) in zip(outlines, styles, placed):
        glyph, carrier = _OUTLINES.get(outline), _STYLES.get(style)
        if glyph is None or carrier is None:
            return None
        _OUTLINES.move_to_end(outline)
        _STYLES.move_to_end(style)
        prototype, scale = glyph
        if prototype is False:
            continue                        # a space: manim makes nothing of an empty path
        mob = copy_mobject(prototype)
        del mob.original_id                 # a shape of its own, as manim's reading makes
        mob.points = mob.points + np.array([x * scale[0], y * scale[1], 0.0])
        for name in STYLE_ATTRIBUTES:
            value = carrier.__dict__[name]
            setattr(mob, name, value.copy() if isinstance(value, np.ndarray) else value)
        made.append(mob)
    return made


def _read_uses(element, styles: tuple, symbols: dict, placed: list) -> bool:
    """The ``<use>`` of ``element`` (a group of groups of a style) into ``placed``: (symbol,
    the styles of the groups around it, x, y); False for anything but groups and uses."""
    if element.tag == _SVG + "g" and set(element.attrib) <= {"id", "style"}:
        inner = styles + (element.get("style", ""),)
        return all(_read_uses(child, inner, symbols, placed) for child in element)
    if element.tag != _SVG + "use" or not set(element.attrib) <= {_XLINK, "x", "y"} \
            or len(element):
        return False
    ref = element.get(_XLINK, "")
    if not ref.startswith("#") or ref[1:] not in symbols:
        return False
    try:
        placed.append((ref[1:], styles, float(element.get("x", 0)),
                       float(element.get("y", 0))))
    except ValueError:
        return False
    return True


def _read_defs(defs, symbols: dict) -> bool:
    """Cairo's ``<defs><g><symbol id=..><path style=.. d=../></symbol>...</g></defs>``
    into ``symbols`` (id: (path style, path data)); False for anything else."""
    for group in defs:
        if group.tag != _SVG + "g" or group.attrib:
            return False
        for symbol in group:
            if symbol.tag != _SVG + "symbol" or not set(symbol.attrib) <= {"overflow", "id"}:
                return False
            paths = list(symbol)
            if len(paths) != 1 or paths[0].tag != _SVG + "path" or len(paths[0]) \
                    or not set(paths[0].attrib) <= {"style", "d"}:
                return False
            symbols[symbol.get("id", "")] = (paths[0].get("style", ""), paths[0].get("d", ""))
    return True


def _manim_reads(svg_mobject, root_attrs, symbols: list[tuple[str, str]],
                 uses: list[tuple[tuple, int, str]]) -> list:
    """What manim's reading (SVGMobject.generate_mobject's steps) makes of an SVG of
    Cairo's form: ``symbols`` (path style, path data) in its defs, then ``uses``
    (the styles of the groups around it, which symbol, at x = y =)."""
    import svgelements as se

    svg = ET.Element(_SVG + "svg", dict(root_attrs))
    defs = ET.SubElement(ET.SubElement(svg, _SVG + "defs"), _SVG + "g")
    for n, (path_style, data) in enumerate(symbols):
        symbol = ET.SubElement(defs, _SVG + "symbol", {"overflow": "visible", "id": f"g{n}"})
        ET.SubElement(symbol, _SVG + "path", {"style": path_style, "d": data})
    for chain, n, at in uses:
        group = svg
        for style in chain:
            group = ET.SubElement(group, _SVG + "g", {"style": style} if style else {})
        ET.SubElement(group, _SVG + "use", {_XLINK: f"#g{n}", "x": at, "y": at})
    out = io.BytesIO()
    svg_mobject.modify_xml_tree(ET.ElementTree(svg)).write(out)
    out.seek(0)
    return svg_mobject.get_mobjects_from(se.SVG.parse(out))[0]


def _read_outlines(svg_mobject, keys: list) -> None:
    """Convert the outlines of ``keys`` (not yet kept): from their path data where a
    template of their kind is known (:func:`_from_path_data`), the rest by manim."""
    by_manim = []
    for key in keys:
        made = _from_path_data(key)
        if made is None:
            by_manim.append(key)
        else:
            _keep(_OUTLINES, key, made)
    _read_outlines_by_manim(svg_mobject, by_manim)


def _read_outlines_by_manim(svg_mobject, keys: list) -> None:
    """Convert the outlines of ``keys`` all in one reading by manim, each used twice: at
    the origin and one unit on, which gives the scale a use's place is multiplied by.
    Each is kept as (prototype at the origin, or False where manim makes no shape of it,
    (x scale, y scale)), or None where manim's reading is not one shape per use moved by
    a plain scale (then a text using it is read whole). The first of a kind teaches
    :func:`_from_path_data` (a template), if it reads the same."""
    if not keys:
        return
    uses = [((), n, at) for n in range(len(keys)) for at in ("0", "1")]
    mobs = _manim_reads(svg_mobject, keys[0][1], [k[-1] for k in keys], uses)
    drawn = [key for key in keys if key[-1][1].strip()]     # an empty outline draws nothing
    if len(mobs) != 2 * len(drawn):
        if len(keys) > 1:                  # which outline misread is not known: one by one
            for key in keys:
                _read_outlines_by_manim(svg_mobject, [key])
        else:
            _keep(_OUTLINES, keys[0], None)
        return
    for key in keys:
        if key not in drawn:
            _keep(_OUTLINES, key, (False, (1.0, 1.0)))
    for n, key in enumerate(drawn):
        at_origin, moved = mobs[2 * n], mobs[2 * n + 1]
        if len(at_origin.points) != len(moved.points) or not len(at_origin.points):
            _keep(_OUTLINES, key, None)
            continue
        shift = (moved.points - at_origin.points)[:, :2]
        scale = shift.mean(0)
        # the parsed SVG path is only read while a shape is built (generate_points): a
        # use never needs it, and a kept text is pickled without copying it away first
        at_origin.path_obj = None
        plain = np.allclose(shift, scale, rtol=0, atol=1e-9)
        _keep(_OUTLINES, key, (at_origin, tuple(float(v) for v in scale)) if plain else None)
        if plain and _template_key(key) not in _TEMPLATES:
            _learn_template(svg_mobject, key, at_origin, tuple(float(v) for v in scale))


# ---- outlines from their path data ------------------------------------------------------
# svgelements parsing a glyph's path data was most of a cold text's cost. Cairo writes an
# outline as absolute M, L, C and Z only; read here, each point is what svgelements makes
# of it (the number times the SVG's unit scale, as its matrix multiplies it) and what
# manim's path reading then builds (a line as a cubic with control points at thirds, a
# close drawn only when the pen is away from where its subpath began). A kind of outline
# (one text class, SVG size and path style) is read so only after its first outline read
# by manim came out exactly the same; any other path data goes to manim.
_TEMPLATES: dict = {}    # (kind, path style) -> (a shape to copy, (x, y) unit scale) or False


def _template_key(key) -> tuple:
    return key[:-1] + (key[-1][0],)


def _learn_template(svg_mobject, key, at_origin, scale) -> None:
    """Learn from ``at_origin`` (manim's reading of ``key``) how this kind of outline is
    read, if reading its path data here gives exactly its points; else manim reads them."""
    # the exact unit scale: where svgelements puts the point (1, 1), with no sums to round
    unit = _manim_reads(svg_mobject, key[1], [(key[-1][0], "M 1 1 L 2 1 Z")], [((), 0, "0")])
    template = False
    if len(unit) == 1 and len(unit[0].points):
        exact = (float(unit[0].points[0][0]), float(unit[0].points[0][1]))
        points = _path_points(key[-1][1], exact)
        if np.allclose(exact, scale, rtol=1e-9, atol=0) and points is not None \
                and points.shape == at_origin.points.shape \
                and np.array_equal(points, at_origin.points):
            template = (at_origin, exact)
    _TEMPLATES[_template_key(key)] = template


def _from_path_data(key):
    """(prototype, scale) of ``key``'s outline read from its path data, or None (no
    template of its kind yet, or data this reading does not take)."""
    template = _TEMPLATES.get(_template_key(key))
    if not template:
        return None
    shape, scale = template
    points = _path_points(key[-1][1], scale)
    if points is None:
        return None
    prototype = copy_mobject(shape)
    del prototype.original_id
    prototype.points = points
    return prototype, scale


def _path_points(data: str, scale: tuple[float, float]) -> np.ndarray | None:
    """The points manim makes of path ``data`` (absolute M, L, C, Z) at ``scale``, or
    None for any other command or an empty outline."""
    sx, sy = scale
    tokens = data.split()
    points: list = []
    pen = start = None

    def at(i: int) -> np.ndarray:
        return np.array([float(tokens[i]) * sx, float(tokens[i + 1]) * sy, 0.0])

    def line(a, b) -> None:
        points.extend((a, (a + a + b) / 3, (a + b + b) / 3, b))

    i = 0
    try:
        while i < len(tokens):
            command = tokens[i]
            if command == "M":
                pen = start = at(i + 1)
                i += 3
            elif command == "L":
                end = at(i + 1)
                line(pen, end)
                pen, i = end, i + 3
            elif command == "C":
                end = at(i + 5)
                points.extend((pen, at(i + 1), at(i + 3), end))
                pen, i = end, i + 7
            elif command == "Z":
                if abs(np.linalg.norm(pen - start)) > 0.0001:
                    line(pen, start)
                    pen = start
                i += 1
            else:
                return None
    except (IndexError, ValueError, TypeError):
        return None
    return np.array(points, ndmin=2, dtype="float64") if points else None


def _read_styles(svg_mobject, keys: list) -> None:
    """The shape manim's reading makes of a square drawn in each style of ``keys``
    (the path's own style under its groups' styles), all in one reading: what a glyph
    in that style takes its colours and strokes from."""
    if not keys:
        return
    symbols = [(key[-2], _SQUARE) for key in keys]
    mobs = _manim_reads(svg_mobject, keys[0][1], symbols,
                        [(key[-1], n, "0") for n, key in enumerate(keys)])
    if len(mobs) != len(keys):
        if len(keys) > 1:
            for key in keys:
                _read_styles(svg_mobject, [key])
        else:
            _keep(_STYLES, keys[0], None)
        return
    for key, mob in zip(keys, mobs):
        _keep(_STYLES, key, mob)


def _keep(kept: OrderedDict, key, value) -> None:
    kept[key] = value
    if len(kept) > KEPT:
        kept.popitem(last=False)


class _GlyphByGlyph:
    """The reading of a Text's SVG that converts each glyph once (see the module)."""

    def generate_mobject(self):
        mobjects = glyph_mobjects(self, self.get_file_path())
        if mobjects is None:
            return super().generate_mobject()
        self.add(*mobjects)
        self.id_to_vgroup_dict = {"root": VGroup(*mobjects)}
        self.flip(RIGHT)  # as manim: SVG's y runs down
        return self


class QuickText(_GlyphByGlyph, Text):
    """manim's Text, read glyph by glyph."""


class QuickMarkupText(_GlyphByGlyph, MarkupText):
    """manim's MarkupText, read glyph by glyph."""
