"""Pick a theme's twelve head colours (run by hand when a palette changes; the result is
written into scenes/vocabulary/style.py and tests/test_palette.py holds it to its rules).

Greedy farthest-point in OKLab over an sRGB grid: each next colour is the candidate farthest
from every colour already taken — the roles, the mask, every signed entry's colour (the
ramp from zero to full, both signs) and the heads picked before it. Candidates read as text
on the stage (4.5:1), have a hue (a grey is no head's colour) and take no role's or the
mask's hue. Prints each theme's pick with its smallest head-to-head and head-to-reserved
distances (style.HEAD_GAP, style.HEAD_CLEAR).

    .venv/bin/python docs/pick_head_colours.py
"""
from __future__ import annotations

import itertools

import numpy as np

from attention_explainer.scenes.vocabulary import colors, style

AA = 4.5


def reserved(palette) -> list[str]:
    """The colours a head must keep clear of: roles, mask, and every signed entry."""
    taken = list(palette.roles) + [palette.mask]
    for share in np.linspace(0.0, 1.0, 21):
        for sign in (1, -1):
            taken.append(colors.signed(sign * float(share), 1.0, palette.positive,
                                       palette.negative, palette.signed_floor))
    return taken


def pick(palette, count: int = 12, step: int = 17) -> list[str]:
    levels = range(0, 256, step)
    candidates = [f"#{r:02X}{g:02X}{b:02X}" for r, g, b in itertools.product(levels, repeat=3)]
    candidates = [c for c in candidates
                  if colors.contrast(c, palette.background) >= AA
                  and np.hypot(*colors.oklab(c)[1:]) >= 0.08
                  and not any(colors.hue_clash(c, r, style.ROLE_GAP, style.ROLE_ANGLE)
                              for r in (*palette.roles, palette.mask))]
    lab = np.array([colors.oklab(c) for c in candidates])
    fixed = np.array([colors.oklab(c) for c in reserved(palette)])
    clear = np.linalg.norm(lab[:, None] - fixed[None], axis=2).min(axis=1)
    apart = np.full(len(candidates), np.inf)
    chosen = []
    for _ in range(count):
        best = int(np.argmax(np.minimum(clear, apart)))
        chosen.append(candidates[best])
        apart = np.minimum(apart, np.linalg.norm(lab - lab[best], axis=1))
    return chosen


if __name__ == "__main__":
    for theme, palette in style.PALETTES.items():
        for step in (17, 15):
            heads = pick(palette, step=step)
            gap = min(colors.distance(a, b) for a, b in itertools.combinations(heads, 2))
            clear = min(colors.distance(h, r) for h in heads for r in reserved(palette))
            print(f"{theme} (grid step {step}): apart {gap:.3f}, clear {clear:.3f}: {heads}")
