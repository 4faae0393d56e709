"""One place for the look: palette, fonts, sizes, timings, easing (3Blue1Brown's language).

Every run time and lag of the beats is named here; the stage's geometry is in ``stage``.

Colours are bound to roles for the whole video: query, key, value and output each have one
colour everywhere, and each head has its own colour. Hex values on purpose: ManimCE's named
colours are not 3b1b's.
"""
from __future__ import annotations

import math

from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from manim import rate_functions

from ... import facts
from ...facts import DEFAULT_THEME

__all__ = [
    "CAP_PX_PER_POINT", "CJK", "DIM_CONTRAST", "EASE", "FAINT_ROW", "FEW", "FONT_BODY",
    "FONT_LABEL", "FONT_NUMBER", "FONT_SMALL", "FONT_TITLE", "FONT_TOKEN", "LAG_ARCS",
    "HEAD_CLEAR", "HEAD_GAP", "LAG_ARCS_MANY", "LAG_FEW", "LAG_MANY", "MAX_TOKENS_DRAWN",
    "MIN_ARROW", "MIN_CAPTION", "MIN_CAP_PX", "MIN_FONT", "MIN_LABEL_SCALE", "PALETTES",
    "CAPTION_GAP", "Palette", "ROLE_ANGLE", "ROLE_GAP",
    "SCORE_DECIMALS", "SEED", "SERIF", "T_ARC", "T_BUILD", "T_BUNDLE", "T_BUNDLE_MANY",
    "T_CAMERA", "T_COOL", "T_FLICK", "T_HANDOFF", "T_HOLD", "T_HOLD_FLOOR", "T_LAST_HOLD", "T_MOVE",
    "T_PAUSE", "T_POP", "T_QUICK", "T_ROW", "T_ROW_FAST", "T_SHORT", "T_SPARK", "T_STEP",
    "T_WRITE", "VECTOR_DECIMALS", "WEIGHT_DECIMALS", "lag_for", "register_fonts",
    "set_theme", "theme_name",
]

# ---- palette -------------------------------------------------------------------------
# a colour takes a role's hue within ROLE_ANGLE / 2 degrees of it, or within ROLE_ANGLE and
# nearer than ROLE_GAP in OKLab's a-b plane (hue and chroma, lightness aside): colors.hue_clash
ROLE_GAP = 0.12
# the heads' colours keep HEAD_GAP from each other and HEAD_CLEAR from every role, the mask
# and every signed entry's colour, in OKLab, in every theme: a head drawn brown would read
# as a negative entry, and 0.12 from every grey (measured: docs/pick_head_colours.py
# reaches 0.065 apart and 0.063 clear in the tightest theme, illustrated, whose signed
# cyan and orange take the hues its roles leave; 0.08 and more in the others)
HEAD_GAP = 0.06
HEAD_CLEAR = 0.06
MIN_ARROW = 0.12   # scene units (16 px at 1080p): a shorter vector is a dot, not an arrow
ROLE_ANGLE = 45.0


@dataclass(frozen=True)
class Palette:
    """A theme's colours. The four role colours (query, key, value, output) are reserved:
    no other colour the film draws (signed entries, the mask, the arcs, the heads, the
    highlight, the heat map) takes one of their hues (``colors.hue_clash`` with
    ``ROLE_GAP`` and ``ROLE_ANGLE``), so a darker yellow never reads as the query
    (tests/test_palette.py)."""
    query: str
    key: str
    value: str
    output: str
    positive: str                # weight-matrix and embedding entries above zero ...
    negative: str                # ... and below (a diverging pair, named for the key)
    positive_name: str
    negative_name: str
    mask: str                    # a forbidden (masked) cell or score
    mask_name: str
    heads: tuple[str, ...]       # one per head, picked greedily in OKLab (far from the
    #                              roles, the mask, the signed entries, each other and every
    #                              grey: docs/pick_head_colours.py; HEAD_GAP, HEAD_CLEAR)
    background: str = "#000000"  # the stage
    ink: str = "#FFFFFF"         # the most contrast without a hue: what grows as a number,
    #                              an arc or a glow grows (white on a dark stage)
    text: str = "#DDDDDD"
    soft: str = "#BBBBBB"
    dim: str = "#888888"
    faint: str = "#444444"
    grid: str = "#555555"
    highlight: str = "#FFFFFF"   # the moving highlight box: no hue, so no role
    special: str = "#777777"     # [CLS]/[SEP]: dimmed, never hidden (4.7:1 on black)
    arc: str = "#FFB347"         # a query's arcs to the keys (warm; white when strongest)
    zero: str = "#888888"        # an entry drawn as 0.00: no sign, no hue
    # the heat map of weights: from near the stage to the ink, without a hue (cannot be
    # taken for a role)
    heat: tuple[str, ...] = ("#262626", "#5E5E5E", "#9A9A9A", "#D2D2D2", "#FFFFFF")
    signed_floor: float = 0.35   # OKLab lightness of a signed entry near zero (near the stage)

    def head(self, index: int) -> str:
        return self.heads[index % len(self.heads)]

    def projection_color(self, p: int) -> str:
        """The colour of what W_Q, W_K, W_V (``p`` = 0, 1, 2) make: query, key, value."""
        return (self.query, self.key, self.value)[p]

    @property
    def roles(self) -> tuple[str, str, str, str]:
        return (self.query, self.key, self.value, self.output)


# one palette per theme of facts.THEMES (a test keeps the names in step)
PALETTES = {
    # 3b1b's 2024 attention chapter
    "3b1b": Palette(query="#FFFF00", key="#5CD0B3", value="#FC6255", output="#D147BD",
                    positive="#008EFF", negative="#C38E52", positive_name="blue",
                    negative_name="brown", mask="#9662F8", mask_name="violet",
                    heads=("#00A800", "#FCB4CC", "#78FC78", "#0CB4E4", "#F09C00", "#90D8FC",
                           "#FCD890", "#00D800", "#90B4FC", "#F0B484", "#00FC00", "#6C9CF0")),
    # Jay Alammar's Illustrated Transformer (seed 001): query red, key blue, value green
    "illustrated": Palette(query="#F06060", key="#5B8FF9", value="#6DC56D", output="#D147BD",
                           positive="#00D2DA", negative="#FFA500", positive_name="cyan",
                           negative_name="orange", mask="#A24CF2", mask_name="violet",
                           heads=("#FAF000", "#5AFAFA", "#C8B478", "#A08C0A", "#FADCA0",
                                  "#E6C80A", "#82D2E6", "#C8AA00", "#FABE6E", "#FADC5A",
                                  "#B4A05A", "#00E6FA")),
    # Okabe-Ito colour-blind-safe roles; its orange sits between two roles, so grey arcs
    "colorblind": Palette(query="#F0E442", key="#56B4E9", value="#D55E00", output="#CC79A7",
                          positive="#00DA8E", negative="#8769FF", positive_name="green",
                          negative_name="violet", mask="#DA70FF", mask_name="lilac",
                          arc="#D8D8D8",
                          heads=("#78FFF0", "#FF0069", "#00F000", "#9696FF", "#1E69FF",
                                 "#00A500", "#5AB4A5", "#78FF96", "#00E1D2", "#4BC300",
                                 "#96E1A5", "#96FF00")),
    # for a lit room: dark ink on white. Every colour keeps 4.5:1 on white, so a role's hue
    # is darker (the query's yellow turns gold); the roles' hues leave blues, violets and
    # greens to the heads, so the mask is brown
    "light": Palette(query="#8A7500", key="#00758F", value="#D12F2A", output="#A8329C",
                     positive="#3D4FD8", negative="#2E7D32", positive_name="blue",
                     negative_name="green", mask="#794220", mask_name="brown",
                     heads=("#110055", "#9900FF", "#005500", "#0000DD", "#554488", "#330099",
                            "#6600CC", "#4422FF", "#7755FF", "#2244AA", "#222266",
                            "#7744CC"),
                     background="#FFFFFF", ink="#000000", text="#1A1A1A", soft="#3A3A3A",
                     dim="#666666", faint="#C4C4C4", grid="#AAAAAA", highlight="#000000",
                     special="#6E6E6E", arc="#9A9A9A", zero="#6E6E6E",
                     heat=("#EDEDED", "#BDBDBD", "#8A8A8A", "#4F4F4F", "#000000"),
                     signed_floor=0.8),
}
# the palette in use is this context's, not the process's: a thread (two renders of the
# Python API at once) or a worker process (told its beat's theme by name, SegmentJob.theme)
# draws in its own, and starts with the default
_PALETTE: ContextVar[Palette] = ContextVar("palette", default=PALETTES[DEFAULT_THEME])


def __getattr__(name: str):
    """``style.PALETTE``: the palette of this thread's drawing (PEP 562: read at each use,
    so a drawing never keeps another's colours)."""
    if name == "PALETTE":
        return _PALETTE.get()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def set_theme(name: str) -> Palette:
    """Switch this context's palette (this thread's) for what it draws afterwards."""
    _PALETTE.set(PALETTES[name])
    return PALETTES[name]


def theme_name() -> str:
    """The name of the palette in use here (a worker process is told it by name)."""
    current = _PALETTE.get()
    return next(name for name, palette in PALETTES.items() if palette is current)


# ---- fonts ---------------------------------------------------------------------------
SERIF = "CMU Serif"               # Computer Modern: the 3b1b look, for text and numbers
CJK = "Noto Sans CJK SC"
_registered = False


def register_fonts() -> list[str]:
    """Register the fonts by file so Text resolves the same on every machine.

    Returns the font files that are missing (the set-up installs them all).
    """
    from .fonts import FONT_FILES, missing_files, pin

    global _registered
    pin()
    missing = missing_files()
    if not _registered:
        import manimpango
        for f in FONT_FILES:
            if Path(f).is_file():
                manimpango.register_font(f)
        _registered = True
    return missing


# ---- sizes (in manim units; the frame is 14.22 x 8 at 16:9) ----------------------------
# A capital letter is 1.28 px tall per point at 1080p: every text on screen is at least
# MIN_FONT points after scaling and zooming, so at least 28 px (a projector's back row).
FONT_TITLE = 48
FONT_BODY = 30
FONT_TOKEN = 30
FONT_LABEL = 26
FONT_NUMBER = 24
FONT_SMALL = 22
MIN_FONT = 22
MIN_LABEL_SCALE = 0.85  # words of a row or grid shrink to this share before they turn
TURNED = math.pi / 2    # ... and turned, every word reads upward, from its start at the bottom
CAP_PX_PER_POINT = 1.28   # cap height at 1080p per font point (CMU Serif, measured)
MIN_CAP_PX = 28           # the floor: a capital at least this tall at 1080p (21.9 points)
DIM_CONTRAST = 3.0        # a dimmed word keeps this contrast on the stage (WCAG's 3:1)

# ---- motion --------------------------------------------------------------------------
EASE = rate_functions.smootherstep        # ManimGL's "smooth"
T_FLICK = 0.4       # a highlight box leaves, a divisor appears
T_QUICK = 0.5       # a box is drawn, a few small things fade in
T_SHORT = 0.8       # a heading arrives, a word is singled out
T_STEP = 1.0        # a simple step
T_MOVE = 1.4        # things fly to new places: numbers into cells, arrows into a chain
T_BUILD = 1.6       # many things arrive in a lagged wave
T_WRITE = 2.0       # a formula is written, columns of numbers are born
T_PAUSE = 1.0       # stillness after each step
T_HOLD = 3.0        # stillness on a beat's key frame (the floor is 2.5 s)
T_LAST_HOLD = 4.0   # ... on the film's last picture
T_HOLD_FLOOR = 2.5  # a short film's holds (--length): the least a key frame is held
T_HANDOFF = 1.4     # a beat hands its stage to the next: things move, nothing goes black
T_CAMERA = 2.0      # a camera move
CAPTION_GAP = 0.05  # seconds between one caption's end and the next one's start
MIN_CAPTION = 1.6   # ... and at least this long
T_ROW = 0.5         # a matrix row times the vector (the sweep's first matrix)
T_ROW_FAST = 0.3    # ... the same sweep again, for the next matrices
T_COOL = 3.6        # the softmax cools from its hot temperature to 1
T_ARC = 0.6         # an arc from a query to a key is drawn
T_SPARK = 0.9       # a spark's glow runs along its arc
T_POP = 0.3         # a number pops in where a spark lands
T_BUNDLE = 4.0      # a query's whole bundle of arcs, for a few keys
T_BUNDLE_MANY = 5.0  # ... for more
LAG_FEW = 0.15      # LaggedStart lag for a few items
LAG_MANY = 0.03     # ... for dozens
LAG_ARCS = 0.22     # the arcs of a bundle leave one after another, for a few keys
LAG_ARCS_MANY = 0.1  # ... for more
FEW = 9             # up to this many items count as "a few"


def lag_for(count: int, many: float = 0.05) -> float:
    """The LaggedStart lag for ``count`` items: ``LAG_FEW`` for a few, ``many`` beyond."""
    return LAG_FEW if count <= FEW else many


FAINT_ROW = 0.35    # non-focus rows of the attention grid

# ---- numbers on screen -----------------------------------------------------------------
VECTOR_DECIMALS = 1   # vector entries: signed, one decimal
WEIGHT_DECIMALS = 2   # attention weights
SCORE_DECIMALS = 1    # scores in the grid
MAX_TOKENS_DRAWN = facts.MAX_TOKENS_DRAWN  # beyond: a window around the focus token
SEED = 0               # every random choice in a scene (spark hues, jitter) uses this
