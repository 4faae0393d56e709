"""Colour discipline, over every theme's palette: the four role hues (query, key, value,
output) are reserved. No other colour the film draws — signed entries at every size, the
mask, the arcs, the highlight, every head, the whole heat ramp — takes a role's hue
(colors.hue_clash: the same hue at any lightness or chroma, so a dark yellow still counts
as yellow, or a neighbouring hue near it in OKLab's a-b plane). Greys (no hue) cannot be
taken for a role."""
from __future__ import annotations

import numpy as np
import pytest

from attention_explainer.scenes.vocabulary import colors, style

CHROMA_OF_A_HUE = 0.04      # below this a colour reads as grey, not as a hue


def hue_distance(a: str, b: str) -> float:
    return float(np.linalg.norm(colors.oklab(a)[1:] - colors.oklab(b)[1:]))


def chroma(c: str) -> float:
    return float(np.hypot(*colors.oklab(c)[1:]))


def drawn_colours(palette) -> dict[str, str]:
    """Every non-role colour the film can draw in this palette, by what it is."""
    drawn = {"mask": palette.mask, "arc": palette.arc, "highlight": palette.highlight,
             "zero": palette.zero}
    drawn.update({f"head {n}": c for n, c in enumerate(palette.heads)})
    for share in np.linspace(0.0, 1.0, 21):
        drawn[f"heat {share:.2f}"] = colors.heat(float(share), palette.heat)
        for sign, name in ((1, "positive"), (-1, "negative")):
            drawn[f"{name} entry {share:.2f}"] = colors.signed(
                sign * float(share), 1.0, palette.positive, palette.negative,
                palette.signed_floor)
    return drawn


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_no_colour_outside_the_roles_takes_a_roles_hue(theme):
    palette = style.PALETTES[theme]
    near = []
    for what, colour in drawn_colours(palette).items():
        if chroma(colour) < CHROMA_OF_A_HUE:
            continue
        for role, role_colour in zip(("query", "key", "value", "output"), palette.roles):
            gap = hue_distance(colour, role_colour)
            if colors.hue_clash(colour, role_colour, style.ROLE_GAP, style.ROLE_ANGLE):
                near.append(f"{what} {colour} is {gap:.3f} from {role} {role_colour}")
    assert not near, f"{theme}: " + "; ".join(near)


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_the_roles_are_far_from_each_other_and_the_signed_pair_apart(theme):
    palette = style.PALETTES[theme]
    roles = palette.roles
    for n, a in enumerate(roles):
        for b in roles[n + 1:]:
            assert hue_distance(a, b) >= style.ROLE_GAP, (theme, a, b)
    assert hue_distance(palette.positive, palette.negative) >= 2 * style.ROLE_GAP
    assert chroma(palette.mask) >= CHROMA_OF_A_HUE     # the mask is a colour of its own


def _signed_entries(palette) -> list[str]:
    return [colors.signed(sign * float(share), 1.0, palette.positive, palette.negative,
                          palette.signed_floor)
            for share in np.linspace(0.0, 1.0, 21) for sign in (1, -1)]


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_the_heads_keep_apart_and_clear_of_the_roles_and_the_signed_entries(theme):
    """Two heads' colours are never near-identical, and no head is taken for a role, the
    mask or a signed entry (a head drawn brown read as a negative number): in OKLab, at
    least style.HEAD_GAP apart and style.HEAD_CLEAR clear (docs/pick_head_colours.py)."""
    palette = style.PALETTES[theme]
    heads = palette.heads
    close = [(a, b, round(colors.distance(a, b), 3)) for n, a in enumerate(heads)
             for b in heads[n + 1:] if colors.distance(a, b) < style.HEAD_GAP]
    assert not close, f"{theme}: heads too alike: {close}"
    taken = {**dict(zip(("query", "key", "value", "output"), palette.roles)),
             "mask": palette.mask,
             **{f"signed {c}": c for c in _signed_entries(palette)}}
    near = [(head, what, round(colors.distance(head, c), 3)) for head in heads
            for what, c in taken.items() if colors.distance(head, c) < style.HEAD_CLEAR]
    assert not near, f"{theme}: a head taken for another colour: {near}"


def test_the_head_distance_check_can_fail():
    """The complaints it answers: the old 3b1b heads held a brown and a blue that read as
    the negative and the positive entries; two heads a shade apart are too alike."""
    old_heads = ("#5FFF42", "#A8E2FF", "#FFA80F", "#00AFFF", "#00C53A", "#E2A8B6",
                 "#007CC5", "#FFE2A8", "#C58316", "#8ABDE2", "#A86600", "#C5A875")
    signed = _signed_entries(style.PALETTES["3b1b"])
    taken = [h for h in old_heads
             if min(colors.distance(h, c) for c in signed) < style.HEAD_CLEAR]
    assert "#C58316" in taken and "#007CC5" in taken
    assert colors.distance("#99BBFF", "#A0C0FF") < style.HEAD_GAP


def test_the_check_can_fail():
    """The complaints it answers: value red as the mask, viridis ending in query yellow,
    signed entries in the key's teal."""
    palette = style.PALETTES["3b1b"]

    def clash(colour, role):
        return colors.hue_clash(colour, role, style.ROLE_GAP, style.ROLE_ANGLE)
    assert clash("#FF3333", palette.value) and clash("#FDE725", palette.query)
    assert clash("#58C4DD", palette.key) and clash("#A29015", palette.query)   # olive
    assert clash("#F8A4A3", palette.value) and clash("#CC086C", palette.output)
    assert clash("#00FF00", style.PALETTES["illustrated"].value)      # green is green
    assert not clash("#9662F8", palette.value) and not clash("#888888", palette.key)


def test_an_entry_drawn_as_zero_has_no_sign():
    from attention_explainer.scenes.vocabulary.matrices import WeightMatrix
    from attention_explainer.scenes.vocabulary.text import label_text
    values = {(0, 0): -0.001, (0, 1): 0.8, (1, 0): -0.8, (1, 1): 0.001}
    texts = {(0, 0): "+0.00", (0, 1): "+0.80", (1, 0): "\u22120.80", (1, 1): "+0.00"}
    m = WeightMatrix(lambda r, c: label_text(texts[r, c]), lambda r, c: values[r, c],
                     [0, 1], [0, 1])
    colours = [e.get_color().to_hex().upper() for e in m.cells]
    pal = style.PALETTE
    assert colours[0] == colours[3] == pal.zero.upper()
    assert colours[1] != colours[2]


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_a_heads_dots_are_never_taken_for_masked_cells(theme):
    """The mask beat draws the followed head's dots beside masked cells."""
    palette = style.PALETTES[theme]
    for head in palette.heads:
        assert not colors.hue_clash(head, palette.mask, style.ROLE_GAP, style.ROLE_ANGLE)
        assert colors.distance(head, palette.mask) >= 0.12, (theme, head)


# every colour a text of the film may be written in, by the palette's field
TEXT_FIELDS = ("text", "soft", "dim", "special", "zero", "query", "key", "value", "output",
               "mask", "positive", "negative")
AA = 4.5                    # WCAG 2 AA: the contrast normal text needs to read


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_every_text_colour_reads_on_the_stage(theme):
    """Words and numbers keep a contrast of 4.5:1 (WCAG AA) on the stage: each text colour,
    the roles and each head's colour (a head's name is written in it). Entries drawn from
    a colour ramp (their brightness is their size) and the lines are not text."""
    palette = style.PALETTES[theme]
    colours = {f: getattr(palette, f) for f in TEXT_FIELDS}
    colours.update({f"head {n}": c for n, c in enumerate(palette.heads)})
    low = {what: round(colors.contrast(c, palette.background), 2)
           for what, c in colours.items() if colors.contrast(c, palette.background) < AA}
    assert not low, f"{theme}: under {AA}:1 on {palette.background}: {low}"


def test_the_contrast_check_can_fail():
    assert colors.contrast("#666666", "#000000") < AA <= colors.contrast("#777777", "#000000")
    assert colors.contrast("#FFFF00", "#FFFFFF") < AA          # yellow on white: unreadable


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_a_dimmed_word_still_reads(theme):
    """A special token's label or a weak score is dimmed, never washed out: each glyph
    keeps style.DIM_CONTRAST on the stage (a bright colour on black keeps its opacity, a
    dark one on white is dimmed less)."""
    from attention_explainer.scenes.vocabulary.text import dimmed, label_text
    palette = style.set_theme(theme)
    try:
        for colour in palette.roles + (palette.text, palette.special, palette.mask):
            word = dimmed(label_text("[CLS]", style.FONT_LABEL, colour), 0.45)
            glyphs = [p for p in word.get_family() if len(p.points)]
            alpha = min(p.get_fill_opacity() for p in glyphs)
            seen = colors.rgb_to_hex(alpha * colors.hex_to_rgb(colour)
                                     + (1 - alpha) * colors.hex_to_rgb(palette.background))
            wanted = min(style.DIM_CONTRAST, colors.contrast(colour, palette.background))
            assert colors.contrast(seen, palette.background) >= wanted - 0.01, (colour, alpha)
            assert alpha < 1.0, f"{colour} is not dimmed at all"
    finally:
        style.set_theme("3b1b")


@pytest.mark.parametrize("theme", sorted(style.PALETTES))
def test_the_update_pictures_faint_words_still_read(theme):
    """The update picture draws its lesser pieces' words fainter (E + ΔE, the other N): no
    fainter than 4.5:1 on the stage (pale pink on white read at 2.8:1)."""
    from attention_explainer.scenes.film.beats.update import _label
    palette = style.set_theme(theme)
    try:
        for opacity in (0.55, 0.6, 0.8):
            word = _label("E + \u0394E", palette.output, opacity)
            glyphs = [p for p in word.get_family() if len(p.points)]
            alpha = min(p.get_fill_opacity() for p in glyphs)
            seen = colors.rgb_to_hex(alpha * colors.hex_to_rgb(palette.output)
                                     + (1 - alpha) * colors.hex_to_rgb(palette.background))
            assert colors.contrast(seen, palette.background) >= AA - 0.01, (opacity, alpha)
    finally:
        style.set_theme("3b1b")


def test_the_palette_is_each_threads_own_not_the_processes():
    """Two drawings at once in one process (the Python API from two threads) each draw in
    their own theme: a thread's set_theme never reaches another thread (issue 36: the
    theme travels with the request, not in a global)."""
    import threading

    from attention_explainer.scenes.vocabulary import style

    before = style.theme_name()
    seen = {}

    def draw(theme):
        style.set_theme(theme)
        barrier.wait()                  # both threads have set their theme
        seen[theme] = style.PALETTE.background

    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=draw, args=(t,)) for t in ("light", "3b1b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"light": style.PALETTES["light"].background,
                    "3b1b": style.PALETTES["3b1b"].background}
    assert style.theme_name() == before
