"""The atlas as a picture: every layer × head's weight matrix as a heat map, each with the
pattern its weights show and that pattern's share, the head the film explains outlined in
the query's colour; a PNG and an SVG of one layout (a slide takes either).

Drawn with Pillow and written as SVG from the same list of shapes: a still of many small
matrices needs no animation engine. Text uses the film's font files (CMU Serif, with
Noto CJK, Symbola and DejaVu for what it lacks, chosen per character); the SVG names the
same families, its text stays text.
"""
from __future__ import annotations

import base64
import functools
import io
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from .vocabulary import colors, style
from .vocabulary.fonts import FONT_FILES

__all__ = ["MAX_PIXELS", "TAG_WORDS", "atlas_svg", "draw_atlas", "picture_size", "write_atlas"]

TILE = 240                  # a head's heat map, in pixels
GAP = 34                    # between tiles
TAG_H = 62                  # the tag's line under a tile
MARGIN = 60
LAYER_W = 170               # the layer names on the left
FONT = 40                   # cap height about 28 px: legible where the picture is shown whole
SMALL = 36
TITLE = 48
# how a pattern is said under its tile
HEAT_LEVELS = 4096           # the heat map's colours, precomputed on its square-root scale
SVG_CELLS_UP_TO = 40         # a tile of more tokens than this is an image in the SVG
MAX_PIXELS = 120_000_000     # a picture larger than this is no slide: one layer at a time
TAG_WORDS = {"sink": "sink", "previous": "previous", "next": "next", "self": "itself",
             "punctuation": "punct.", "content": "content"}
KEY = ("sink: special or first token · previous / next token · itself · punct.: "
       "punctuation · content: content words · each above an even head's share")
# the families the SVG names, in the order FONT_FILES gives their files
SVG_FAMILIES = "'CMU Serif', 'Noto Sans CJK SC', Symbola, 'DejaVu Sans', serif"


@dataclass(frozen=True)
class _Text:
    x: float
    y: float                 # the baseline
    text: str
    size: int
    color: str
    anchor: str = "start"    # or "middle"


@dataclass(frozen=True)
class _Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str | None
    stroke: str | None = None
    width: float = 0.0


@dataclass(frozen=True)
class _Heat:
    x: float
    y: float
    size: float
    weights: np.ndarray      # queries x keys (T x T, or a translation's target x source)


def _layout(atlas) -> tuple[int, int, list]:
    """The picture's size and its shapes, in drawing order."""
    pal = style.PALETTE
    L, H = atlas.weights.shape[:2]
    which = (f"Every head of {atlas.model}" if L > 1 else
             f"Every head of layer {atlas.layers[0]} of {atlas.model}")
    title = f"{which} on \u201c{atlas.sentence}\u201d"
    width = MARGIN * 2 + LAYER_W + H * TILE + (H - 1) * GAP
    film = atlas.caption or (
        f"outlined: layer {atlas.film_layer}, head {atlas.film_head}, the head the film "
        f"explains; rows are queries, columns keys; its layer's mask: {atlas.mask}")
    if atlas.kept is not None:
        film += (f"; under each, the weight {atlas.variant} keeps (an illustration: not "
                 "trained with it)")
    key = atlas.key or KEY
    width = max(width, MARGIN * 2 + _text_width(key, SMALL), MARGIN * 2 + _text_width(film, SMALL))
    key_line = MARGIN + TITLE + 48 + 2 * SMALL          # the key's baseline
    top = key_line + 40 + FONT + 14                       # the heads' names above the tiles
    tag_h = TAG_H * (2 if atlas.kept is not None else 1)    # a second line: what a mask keeps
    height = top + L * (TILE + tag_h + GAP) + MARGIN
    shapes: list = [_Rect(0, 0, width, height, pal.background)]
    shapes.append(_Text(MARGIN, MARGIN + TITLE, _fit(title, width - 2 * MARGIN, TITLE),
                        TITLE, pal.text))
    shapes.append(_Text(MARGIN, MARGIN + TITLE + 24 + SMALL, film, SMALL, pal.soft))
    shapes.append(_Text(MARGIN, key_line, key, SMALL, pal.dim))
    left = MARGIN + LAYER_W
    for h in range(H):
        shapes.append(_Text(left + h * (TILE + GAP) + TILE / 2, top - 14, f"head {h}", FONT,
                            pal.soft, "middle"))
    for n, layer in enumerate(atlas.layers):
        y = top + n * (TILE + tag_h + GAP)
        shapes.append(_Text(MARGIN, y + TILE / 2 + FONT * 0.35, f"layer {layer}", FONT,
                            pal.soft))
        if atlas.row_name != "layer":        # an encoder–decoder: which stack, above it
            shapes.append(_Text(MARGIN, y + TILE / 2 - FONT * 0.9,
                                atlas.row_name.split()[0], SMALL, pal.dim))
        for h in range(H):
            x = left + h * (TILE + GAP)
            shapes.append(_Heat(x, y, TILE, atlas.weights[n, h]))
            pattern = atlas.pattern(layer, h)
            said = (f"{TAG_WORDS[pattern.tag]} {round(100 * pattern.share)}\u00a0%"
                    if pattern.tag in TAG_WORDS else "no pattern")
            shapes.append(_Text(x + TILE / 2, y + TILE + TAG_H - 16, said, FONT, pal.text,
                                "middle"))
            if atlas.kept is not None:
                kept = f"keeps {round(100 * atlas.kept_share(layer, h))}\u00a0%"
                shapes.append(_Text(x + TILE / 2, y + TILE + 2 * TAG_H - 16, kept, FONT,
                                    pal.mask, "middle"))
            if (layer, h) == (atlas.film_layer, atlas.film_head):
                shapes.append(_Rect(x - 8, y - 8, TILE + 16, TILE + tag_h + 8, None,
                                    pal.query, 5))
    return int(width), int(height), shapes


def picture_size(atlas) -> tuple[int, int]:
    """The picture's width and height in pixels."""
    width, height, _ = _layout(atlas)
    return width, height


@functools.lru_cache(maxsize=4)
def _heat_table(anchors: tuple) -> np.ndarray:
    """The heat-map colour of HEAT_LEVELS weights, evenly spaced on the heat map's own
    square-root scale from 0 to 1, as RGB bytes."""
    return (np.array([colors.hex_to_rgb(colors.heat((n / (HEAT_LEVELS - 1)) ** 2, anchors))
                      for n in range(HEAT_LEVELS)]) * 255).round().clip(0, 255).astype(np.uint8)


def _heat_pixels(weights: np.ndarray) -> np.ndarray:
    """A T x T x 3 picture of the weights in the heat map's colours (one pixel per cell)."""
    table = _heat_table(tuple(style.PALETTE.heat))
    level = np.rint(np.sqrt(np.clip(weights, 0.0, 1.0)) * (HEAT_LEVELS - 1)).astype(int)
    return table[level]


def _png64(pixels: np.ndarray) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _cells(size: float, count: int) -> list[int]:
    """Pixel edges of ``count`` cells across ``size`` (whole pixels, no seams)."""
    return [round(size * c / count) for c in range(count + 1)]


# ---- text: the film's fonts, chosen per character ----------------------------------------
@functools.lru_cache(maxsize=None)
def _covered(path: str) -> frozenset:
    from fontTools.ttLib import TTFont

    try:
        font = TTFont(path, fontNumber=0, lazy=True)
    except Exception:        # a missing or unreadable file covers nothing
        return frozenset()
    return frozenset(font.getBestCmap() or {})


@functools.lru_cache(maxsize=None)
def _font(path: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def _runs(text: str) -> list[tuple[str, str]]:
    """The text cut into runs of one font file each: (file, text)."""
    files = [FONT_FILES[0], *FONT_FILES[3:]]
    runs: list[list] = []
    for ch in text:
        path = next((f for f in files if ord(ch) in _covered(f)), files[0])
        if runs and runs[-1][0] == path:
            runs[-1][1] += ch
        else:
            runs.append([path, ch])
    return [(p, t) for p, t in runs]


def _text_width(text: str, size: int) -> float:
    return sum(_font(p, size).getlength(t) for p, t in _runs(text))


def _fit(text: str, width: float, size: int) -> str:
    """The text, cut with an ellipsis to fit ``width``."""
    if _text_width(text, size) <= width:
        return text
    while text and _text_width(text + "\u2026\u201d", size) > width:
        text = text[:-1]
    return text + "\u2026\u201d"


# ---- the two outputs -------------------------------------------------------------------------
def draw_atlas(atlas):
    """The atlas as a PIL image."""
    from PIL import Image, ImageDraw

    width, height, shapes = _layout(atlas)
    image = Image.new("RGB", (width, height), style.PALETTE.background)
    draw = ImageDraw.Draw(image)
    for s in shapes:
        if isinstance(s, _Rect):
            draw.rectangle([s.x, s.y, s.x + s.w - 1, s.y + s.h - 1], fill=s.fill,
                           outline=s.stroke, width=round(s.width))
        elif isinstance(s, _Heat):
            rows, cols = (np.searchsorted(np.array(_cells(s.size, n)),
                                          np.arange(int(s.size)), side="right") - 1
                          for n in s.weights.shape)
            tile = _heat_pixels(s.weights)[rows[:, None], cols[None, :]]
            image.paste(Image.fromarray(tile, "RGB"), (int(s.x), int(s.y)))
        else:
            x = s.x - (_text_width(s.text, s.size) / 2 if s.anchor == "middle" else 0)
            for path, text in _runs(s.text):
                font = _font(path, s.size)
                draw.text((x, s.y), text, font=font, fill=s.color, anchor="ls")
                x += font.getlength(text)
    return image


def atlas_svg(atlas) -> str:
    """The atlas as SVG: the same shapes, the heat maps as cells, the text as text."""
    width, height, shapes = _layout(atlas)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" shape-rendering="crispEdges">']
    for s in shapes:
        if isinstance(s, _Rect):
            fill = s.fill or "none"
            stroke = f' stroke="{s.stroke}" stroke-width="{s.width:g}"' if s.stroke else ""
            out.append(f'<rect x="{s.x:g}" y="{s.y:g}" width="{s.w:g}" height="{s.h:g}" '
                       f'fill="{fill}"{stroke}/>')
        elif isinstance(s, _Heat) and max(s.weights.shape) > SVG_CELLS_UP_TO:
            # a long sentence: the tile as a picture of one pixel per cell, drawn sharp
            out.append(f'<image x="{s.x:g}" y="{s.y:g}" width="{s.size:g}" height="{s.size:g}" '
                       'style="image-rendering:pixelated" preserveAspectRatio="none" '
                       f'href="data:image/png;base64,{_png64(_heat_pixels(s.weights))}"/>')
        elif isinstance(s, _Heat):
            Q, K = s.weights.shape
            down, across = _cells(s.size, Q), _cells(s.size, K)
            out.append(f'<g transform="translate({s.x:g},{s.y:g})">')
            for i in range(Q):
                for j in range(K):
                    out.append(f'<rect x="{across[j]}" y="{down[i]}" '
                               f'width="{across[j + 1] - across[j]}" '
                               f'height="{down[i + 1] - down[i]}" '
                               f'fill="{colors.heat(float(s.weights[i, j]))}"/>')
            out.append("</g>")
        else:
            out.append(f'<text x="{s.x:g}" y="{s.y:g}" font-family="{SVG_FAMILIES}" '
                       f'font-size="{s.size}" fill="{s.color}" text-anchor="{s.anchor}">'
                       f'{escape(s.text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_atlas(atlas, png: Path, svg: Path) -> None:
    """Write the PNG and the SVG (the caller makes them one output set)."""
    image = draw_atlas(atlas)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    Path(png).write_bytes(buffer.getvalue())
    Path(svg).write_text(atlas_svg(atlas), encoding="utf-8")
