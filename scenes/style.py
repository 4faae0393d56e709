"""One place for the look: palette, fonts, sizes, timings, easing (3Blue1Brown's language).

Colours are bound to roles for the whole video: query, key, value and output each have one
colour everywhere, and each head has its own colour. Hex values on purpose: ManimCE's named
colours are not 3b1b's.
"""
from __future__ import annotations

import unicodedata
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
                           updated="#5CD0B3"),
    # Okabe-Ito colour-blind-safe roles
    "colorblind": Palette(query="#F0E442", key="#56B4E9", value="#D55E00", output="#CC79A7",
                          updated="#009E73",
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
SYMBOLS = "Symbola"               # monochrome emoji (colour emoji render empty in Cairo)
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


_RTL = ("R", "AL", "AN")


def font_for(text: str) -> str:
    """The font family for a piece of user text: CJK needs its own font."""
    for ch in text:
        name = unicodedata.name(ch, "")
        if "CJK" in name or "HIRAGANA" in name or "KATAKANA" in name or "HANGUL" in name:
            return CJK
    return SERIF


def plain(text: str) -> str:
    """User text made safe for Pango's plain-text path: no control characters, and a
    left-to-right mark before right-to-left text (pure RTL Text renders empty otherwise)."""
    cleaned = "".join(ch if unicodedata.category(ch)[0] != "C" else "\uFFFD" for ch in text)
    if any(unicodedata.bidirectional(ch) in _RTL for ch in cleaned):
        cleaned = "\u200E" + cleaned
    return cleaned


def user_text_mobject(text: str, **kwargs):
    """A manim Text of user text: plain text (never markup), font by script, NFC-composed.

    manim's Text with ``disable_ligatures`` insists on one glyph per character, which
    combining marks, right-to-left shaping and some scripts break; for those we let Pango
    shape freely (the glyph-per-character mapping is not needed for user text).
    """
    from manim import Text

    composed = plain(unicodedata.normalize("NFC", text))
    font = kwargs.pop("font", None) or font_for(text)
    try:
        return Text(composed, font=font, disable_ligatures=True, **kwargs)
    except ValueError:
        return Text(composed, font=font, disable_ligatures=False, **kwargs)


# ---- sizes (in manim units; the frame is 14.22 x 8 at 16:9) ----------------------------
FONT_TITLE = 44
FONT_BODY = 30
FONT_TOKEN = 30
FONT_LABEL = 24
FONT_NUMBER = 20
FONT_SMALL = 18
FONT_CAPTION = 22

# ---- motion --------------------------------------------------------------------------
EASE = rate_functions.smootherstep        # ManimGL's "smooth"
T_STEP = 1.0        # a simple step
T_COMPOUND = 2.5    # a compound step or a camera move
T_PAUSE = 1.0       # stillness after each step
LAG_FEW = 0.15      # LaggedStart lag for a few items
LAG_MANY = 0.03     # ... for dozens
DIM_OPACITY = 0.78  # how dark the cover over the unfocused rest is
FAINT_ROW = 0.35    # non-focus rows of the attention grid

# ---- numbers on screen -----------------------------------------------------------------
VECTOR_DECIMALS = 1   # vector entries: signed, one decimal
WEIGHT_DECIMALS = 2   # attention weights
SCORE_DECIMALS = 1    # scores in the grid
MAX_TOKENS_DRAWN = 16  # beyond this a focus window around the focus token is drawn
SEED = 0               # every random choice in a scene (spark hues, jitter) uses this
