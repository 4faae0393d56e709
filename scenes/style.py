"""One place for the look: palette, fonts, sizes, timings, easing (3Blue1Brown's language).

Every run time and lag of the beats is named here; the stage's geometry is in ``stage``.

Colours are bound to roles for the whole video: query, key, value and output each have one
colour everywhere, and each head has its own colour. Hex values on purpose: ManimCE's named
colours are not 3b1b's.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from manim import rate_functions

# ---- palette -------------------------------------------------------------------------
BACKGROUND = "#000000"


@dataclass(frozen=True)
class Palette:
    query: str
    key: str
    value: str
    output: str
    updated: str          # the updated embedding E' (3b1b draws it teal)
    text: str = "#DDDDDD"
    soft: str = "#BBBBBB"
    dim: str = "#888888"
    faint: str = "#444444"
    grid: str = "#555555"
    highlight: str = "#FFFF00"   # the moving highlight box
    mask: str = "#FF3333"        # masking is red
    positive: str = "#58C4DD"    # weight-matrix entries: blue for +
    negative: str = "#FC6255"    # red for -
    special: str = "#666666"     # [CLS]/[SEP]: dimmed, never hidden
    # what captions call the role colours (a caption must be true under every theme)
    query_name: str = "yellow"
    key_name: str = "teal"
    value_name: str = "red"
    # head colours avoid the query/key/value/output hues, so a head never reads as a role
    # and differ from each other in hue or lightness (a 12-head layout shows them together)
    heads: tuple[str, ...] = (
        "#58C4DD", "#FF8C00", "#83C167", "#B189F5", "#F7A1A3", "#3B6FE0",
        "#A0522D", "#C0CA33", "#7E57C2", "#90A4AE", "#2E8B57", "#FFD180",
    )

    def head(self, index: int) -> str:
        return self.heads[index % len(self.heads)]


THEMES = {
    # 3b1b's 2024 attention chapter
    "3b1b": Palette(query="#FFFF00", key="#5CD0B3", value="#FC6255", output="#D147BD",
                    updated="#5CD0B3"),
    # Jay Alammar's Illustrated Transformer (seed 001): query red, key blue, value green
    "illustrated": Palette(query="#F06060", key="#5B8FF9", value="#6DC56D", output="#D147BD",
                           updated="#5CD0B3", query_name="red", key_name="blue",
                           value_name="green"),
    # Okabe-Ito colour-blind-safe roles
    "colorblind": Palette(query="#F0E442", key="#56B4E9", value="#D55E00", output="#CC79A7",
                          updated="#009E73", query_name="yellow", key_name="sky blue",
                          value_name="vermilion",
                          heads=("#F0E442", "#56B4E9", "#D55E00", "#CC79A7", "#009E73",
                                 "#E69F00", "#0072B2", "#FFFFFF", "#999999", "#B3DE69",
                                 "#FB8072", "#80B1D3")),
}
PALETTE = THEMES["3b1b"]


def set_theme(name: str) -> Palette:
    """Switch the palette for the scenes constructed afterwards."""
    global PALETTE
    PALETTE = THEMES[name]
    return PALETTE


# ---- fonts ---------------------------------------------------------------------------
SERIF = "CMU Serif"               # Computer Modern: the 3b1b look, for text and numbers
CJK = "Noto Sans CJK SC"
FONT_FILES = (
    "/usr/share/fonts/truetype/cmu/cmunrm.ttf",
    "/usr/share/fonts/truetype/cmu/cmunbx.ttf",
    "/usr/share/fonts/truetype/cmu/cmunti.ttf",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
)
_registered = False


def register_fonts() -> list[str]:
    """Register the fonts by file so Text resolves the same on every machine.

    Returns the font files that are missing (the set-up installs them all).
    """
    global _registered
    missing = [f for f in FONT_FILES if not Path(f).is_file()]
    if not _registered:
        import manimpango
        for f in FONT_FILES:
            if Path(f).is_file():
                manimpango.register_font(f)
        _registered = True
    return missing


# ---- sizes (in manim units; the frame is 14.22 x 8 at 16:9) ----------------------------
FONT_TITLE = 44
FONT_BODY = 30
FONT_TOKEN = 30
FONT_LABEL = 24
FONT_NUMBER = 20
FONT_SMALL = 18
MIN_FONT = 12          # smallest text drawn: digits about 16 px tall at 1080p
MIN_LABEL_SCALE = 0.62  # words of a row or grid shrink to this share before they turn

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
T_BREATH = 0.5      # a short stillness between two parts of one step
T_HOLD = 1.0        # stillness on a beat's key frame before the stage clears
T_CLEAR = 0.8       # the stage fades out between beats
LAG_FEW = 0.15      # LaggedStart lag for a few items
LAG_MANY = 0.03     # ... for dozens
FEW = 9             # up to this many items count as "a few"


def lag_for(count: int, many: float = 0.05) -> float:
    """The LaggedStart lag for ``count`` items: ``LAG_FEW`` for a few, ``many`` beyond."""
    return LAG_FEW if count <= FEW else many


DIM_OPACITY = 0.78  # how dark the cover over the unfocused rest is
FAINT_ROW = 0.35    # non-focus rows of the attention grid

# ---- numbers on screen -----------------------------------------------------------------
VECTOR_DECIMALS = 1   # vector entries: signed, one decimal
WEIGHT_DECIMALS = 2   # attention weights
SCORE_DECIMALS = 1    # scores in the grid
MAX_TOKENS_DRAWN = 16  # beyond this a focus window around the focus token is drawn
SEED = 0               # every random choice in a scene (spark hues, jitter) uses this
