"""Pick a theme's twelve head colours (run by hand when a palette changes; the result is
written into scenes/vocabulary/style.py and tests/test_palette.py holds it to its rules).

Greedy farthest-point in OKLab over an sRGB grid: each next colour is the candidate farthest
from the heads picked before it and from the reserved colours — the roles, the mask, every
signed entry's colour (the ramp from zero to full, both signs). Candidates read as text on
the stage (4.5:1), have a hue, keep 0.12 from every grey and take no role's or the mask's
hue. Prints each theme's picks (by grid step and least clearance) with their smallest
head-to-head and head-to-reserved distances; style.py holds, per theme, the pick that keeps
both largest (style.HEAD_GAP, style.HEAD_CLEAR are the least over the themes).

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


GREY_CLEAR = 0.12   # from every grey the film draws (tests/test_film.py)


def pick(palette, count: int = 12, step: int = 17, clear: float = style.HEAD_CLEAR
         ) -> list[str]:
    """Greedy: each next head is the candidate farthest from the heads before it (and
    twice as far from the reserved colours, which no head may come within ``clear`` of)."""
    levels = range(0, 256, step)
    greys = [palette.special, palette.dim, palette.faint, palette.grid, palette.background]
    candidates = [f"#{r:02X}{g:02X}{b:02X}" for r, g, b in itertools.product(levels, repeat=3)]
    candidates = [c for c in candidates
                  if colors.contrast(c, palette.background) >= AA
                  and np.hypot(*colors.oklab(c)[1:]) >= 0.08
                  and min(colors.distance(c, g) for g in greys) >= GREY_CLEAR
                  and not any(colors.hue_clash(c, r, style.ROLE_GAP, style.ROLE_ANGLE)
                              for r in (*palette.roles, palette.mask))]
    lab = np.array([colors.oklab(c) for c in candidates])
    fixed = np.array([colors.oklab(c) for c in reserved(palette)])
    away = np.linalg.norm(lab[:, None] - fixed[None], axis=2).min(axis=1)
    keep = away >= clear
    candidates, lab, away = [c for c, k in zip(candidates, keep) if k], lab[keep], away[keep]
    apart = np.full(len(candidates), np.inf)
    chosen = []
    for _ in range(count):
        best = int(np.argmax(np.minimum(apart, 2 * away)))
        chosen.append(candidates[best])
        apart = np.minimum(apart, np.linalg.norm(lab - lab[best], axis=1))
    return chosen


if __name__ == "__main__":
    for theme, palette in style.PALETTES.items():
        for step in (17, 15, 12, 10):
            for clear in (0.06, 0.08):
                heads = pick(palette, step=step, clear=clear)
                gap = min(colors.distance(a, b) for a, b in itertools.combinations(heads, 2))
                near = min(colors.distance(h, r) for h in heads for r in reserved(palette))
                print(f"{theme} (step {step}, clear {clear}): apart {gap:.3f}, clear "
                      f"{near:.3f}: {heads}")
