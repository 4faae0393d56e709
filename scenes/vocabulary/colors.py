"""Colour arithmetic: OKLab (a perceptual colour space, for distances and ramps), the heat
ramp of weights, and the blue/red of a weight matrix's signed entries."""
from __future__ import annotations

import numpy as np

__all__ = [
    "contrast", "distance", "from_oklab", "heat", "hue_clash", "hex_to_rgb", "legible_opacity",
    "oklab", "rgb_to_hex",
    "signed",
    "text_on",
]


def _to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0.0, None)
    return np.clip(np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055), 0, 1)


def hex_to_rgb(color: str) -> np.ndarray:
    h = color.lstrip("#")
    return np.array([int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)])


def rgb_to_hex(rgb) -> str:
    return "#" + "".join(f"{int(round(float(x) * 255)):02X}" for x in np.clip(rgb, 0, 1))


def oklab(color: str) -> np.ndarray:
    """A hex colour in OKLab (L, a, b); Euclidean distance there follows perceived
    difference (about 0.02 is just noticeable).

    >>> round(float(oklab("#FFFFFF")[0]), 3)
    1.0
    """
    r, g, b = _to_linear(hex_to_rgb(color))
    lms = np.cbrt([0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b,
                   0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b,
                   0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b])
    return np.array([[0.2104542553, 0.7936177850, -0.0040720468],
                     [1.9779984951, -2.4285922050, 0.4505937099],
                     [0.0259040371, 0.7827717662, -0.8086757660]]) @ lms


def from_oklab(lab) -> str:
    L, a, b = lab
    lms = np.array([L + 0.3963377774 * a + 0.2158037573 * b,
                    L - 0.1055613458 * a - 0.0638541728 * b,
                    L - 0.0894841775 * a - 1.2914855480 * b]) ** 3
    rgb = np.array([[4.0767416621, -3.3077115913, 0.2309699292],
                    [-1.2684380046, 2.6097574011, -0.3413193965],
                    [-0.0041960863, -0.7034186147, 1.7076147010]]) @ lms
    return rgb_to_hex(_to_srgb(rgb))


def hue_clash(colour: str, role: str, gap: float, angle: float,
              grey: float = 0.04) -> bool:
    """Whether ``colour`` reads as ``role``'s hue: both have a hue (chroma above ``grey``)
    and their hue angles are within ``angle`` / 2 degrees (the same hue, at any lightness
    or chroma: a dark yellow is still yellow), or within ``angle`` while nearer than
    ``gap`` in OKLab's a-b plane (a neighbouring hue as weak or as strong)."""
    (_, a1, b1), (_, a2, b2) = oklab(colour), oklab(role)
    if min(np.hypot(a1, b1), np.hypot(a2, b2)) < grey:
        return False
    turn = abs((np.degrees(np.arctan2(b1, a1) - np.arctan2(b2, a2)) + 180) % 360 - 180)
    return bool(turn < angle / 2 or (np.hypot(a1 - a2, b1 - b2) < gap and turn < angle))


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two hex colours, 1 to 21 (text needs 4.5 to read, AA).

    >>> round(contrast("#FFFFFF", "#000000"), 1), round(contrast("#777777", "#000000"), 2)
    (21.0, 4.69)
    """
    def luminance(colour: str) -> float:
        lin = _to_linear(hex_to_rgb(colour))
        return float(0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def legible_opacity(colour: str, background: str, opacity: float, floor: float) -> float:
    """``opacity``, or the least opacity above it at which ``colour`` blended on
    ``background`` keeps a contrast of ``floor`` (never more than the colour has alone): a
    word dimmed on a light stage fades toward white, where the same opacity that leaves a
    bright colour readable on black would wash a dark one out.

    >>> legible_opacity("#FFFF00", "#000000", 0.5, 3.0), legible_opacity("#FFFF00", "#FFFFFF", 0.5, 3.0)
    (0.5, 1.0)
    """
    ink, ground = hex_to_rgb(colour), hex_to_rgb(background)
    floor = min(floor, contrast(colour, background))
    for step in range(int(round(opacity * 100)), 101):
        alpha = step / 100
        if contrast(rgb_to_hex(alpha * ink + (1 - alpha) * ground), background) >= floor - 1e-9:
            return max(alpha, opacity)
    return 1.0


def distance(a: str, b: str) -> float:
    """Perceived difference of two hex colours (Euclidean in OKLab)."""
    return float(np.linalg.norm(oklab(a) - oklab(b)))


def heat(weight: float, anchors=None) -> str:
    """The heat-map colour of an attention weight in [0, 1]: the palette's ramp (from near
    the stage to the ink, no hue), interpolated in OKLab, on a square-root scale so that a
    diffuse head (every weight near 0.1) still reads as a pattern, not as the stage.

    >>> heat(0.0, ("#262626", "#FFFFFF")), heat(1.0, ("#262626", "#FFFFFF"))
    ('#262626', '#FFFFFF')
    """
    if anchors is None:
        from . import style
        anchors = style.PALETTE.heat
    t = float(np.clip(weight, 0.0, 1.0)) ** 0.5 * (len(anchors) - 1)
    i = min(int(t), len(anchors) - 2)
    mix = t - i
    return from_oklab((1 - mix) * oklab(anchors[i]) + mix * oklab(anchors[i + 1]))


def text_on(background: str) -> str:
    """Near-black or white, whichever reads on ``background`` (not pure black: manim's
    Text takes a pure black fill for "no colour given" and draws it white)."""
    return "#111111" if oklab(background)[0] > 0.62 else "#FFFFFF"


def signed(value: float, scale: float, positive: str, negative: str,
           floor: float | None = None) -> str:
    """A weight matrix's entry: its sign picks the hue (the palette's diverging pair), its
    size the colour, from a weak tint near the stage (OKLab lightness ``floor``, the
    palette's ``signed_floor`` if None) to the full colour."""
    if floor is None:
        from . import style
        floor = style.PALETTE.signed_floor
    share = 0.0 if scale <= 0 else min(abs(value) / scale, 1.0)
    base = oklab(positive if value >= 0 else negative)
    weak = np.array([floor, base[1] * 0.35, base[2] * 0.35])
    return from_oklab(weak + (share ** 0.7) * (base - weak))
