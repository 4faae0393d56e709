"""Text on screen: our own wording, the user's text, and words that share a baseline.

User text is data, never markup: it goes through :func:`user_text_mobject` (plain text,
font by script, NFC-composed, control characters replaced). Our own fixed wording uses
:func:`label_text` in Computer Modern.
"""
from __future__ import annotations

import unicodedata
from collections import OrderedDict
from xml.sax.saxutils import escape

import numpy as np
from manim import ORIGIN, RIGHT, ManimColor, MarkupText, MathTypst, Text, VGroup
from manim.mobject.svg.svg_mobject import SVG_HASH_TO_MOB_MAP

from . import fonts, style
from .fastcopy import copy_mobject
from .glyph_svg import QuickMarkupText, QuickText
from .real_text import keep_part_source, keep_rest_shape

__all__ = [
    "Glyphs", "TextLine", "OUTLINE_WIDTH", "TEXT_CACHE_SIZE", "baseline_text", "dimmed", "fit_width", "font_for",
    "glyphs_of", "has_rtl", "keep_texts_in", "label_text", "line_box_height", "line_of", "make_math",
    "make_text", "outlined", "plain", "typographic", "user_text", "user_text_mobject", "wrapped",
]

_RTL = ("R", "AL", "AN")
_TEXTS: OrderedDict = OrderedDict()
TEXT_CACHE_SIZE = 4096
_store = None          # where built texts are kept between processes (or None)


def keep_texts_in(store) -> None:
    """Keep every text built from now on in ``store`` too (or nowhere: None), so that other
    processes and later renders load it instead of shaping and parsing it again. A store
    has ``load(key) -> mobject | None`` and ``keep(key, mobject)``; the render pipeline's
    is ``pipeline.text_store.TextStore`` in the beat cache's folder."""
    global _store
    _store = store


def make_text(text: str, **kwargs) -> Text:
    """``manim.Text(text, **kwargs)``, built once per distinct text and style and copied
    afterwards: building a Text shapes it with Pango and parses an SVG (tens of ms), a
    copy of the same glyphs is exact and far cheaper. Raises what Text raises."""
    return _made(QuickText, text, kwargs)


def make_markup(markup: str, **kwargs) -> MarkupText:
    """``manim.MarkupText(markup, **kwargs)``, built once and copied like :func:`make_text`.
    Only for markup we write ourselves around escaped user text (scripts.pieces_in_word)."""
    return _made(QuickMarkupText, markup, kwargs)


def make_math(code: str, **kwargs) -> MathTypst:
    """``manim.MathTypst(code, **kwargs)``, built once and copied like :func:`make_text`
    (compiling Typst and parsing its SVG costs tens of ms)."""
    return _made(MathTypst, code, kwargs)


def _made(kind, text: str, kwargs: dict):
    from manim import config

    # a formula's strokes (a fraction bar) are set in pixels for the render's size
    key = (kind.__name__, text, tuple(sorted((k, _hashable(v)) for k, v in kwargs.items())),
           config.pixel_width, round(config.frame_width, 6))
    if key in _TEXTS:
        _TEXTS.move_to_end(key)
    else:
        made = _store.load(key) if _store is not None else None
        if made is None:
            # manim keeps a formula's strokes (a fraction bar) in proportion when it is
            # scaled only if it parsed the SVG itself, not when it reused a parse from its
            # per-process SVG cache: the same formula would draw differently by what the
            # process drew before. Ours is the cache; every build parses.
            SVG_HASH_TO_MOB_MAP.clear()
            made = kind(text, **kwargs)
            # its diagonal as set: a turned word's height is its width, the diagonal stays
            made.set_diagonal = float(np.hypot(made.width, made.height))
            keep_rest_shape(made)             # so a vector still can draw it as text
            if _store is not None:
                _store.keep(key, made)
        _TEXTS[key] = made
        if len(_TEXTS) > TEXT_CACHE_SIZE:
            _TEXTS.popitem(last=False)
    return copy_mobject(_TEXTS[key])


def _hashable(value):
    if isinstance(value, ManimColor):
        return ("color", value.to_hex(with_alpha=True))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def font_for(text: str) -> str:
    """The font family for a piece of user text: CJK needs its own font, and a text that
    opens on a combining mark (a vowel sign cut from its letter) its script's font."""
    if text and unicodedata.category(text[0])[0] == "M":
        family = fonts.family_of_mark(text[0])
        if family is not None:
            return family
    for ch in text:
        name = unicodedata.name(ch, "")
        if "CJK" in name or "HIRAGANA" in name or "KATAKANA" in name or "HANGUL" in name:
            return style.CJK
    return style.SERIF


def has_rtl(text: str) -> bool:
    """Whether ``text`` holds a letter of a right-to-left script (Arabic, Hebrew, ...)."""
    return any(unicodedata.bidirectional(ch) in _RTL for ch in text)


_UNDRAWABLE = ("Cc", "Cs", "Co", "Cn")   # controls, lone surrogates, private use, unassigned


def plain(text: str) -> str:
    """User text made safe for Pango's plain-text path: no control characters, and a
    left-to-right mark before right-to-left text (pure RTL Text renders empty otherwise).
    Format characters stay: the zero-width joiner of an emoji family, the tags of a
    flag."""
    cleaned = "".join("\uFFFD" if unicodedata.category(ch) in _UNDRAWABLE else ch
                      for ch in text)
    if has_rtl(cleaned):
        cleaned = "\u200E" + cleaned
    return cleaned


def user_text_mobject(text: str, **kwargs) -> Text:
    """A manim Text of user text: plain text (never markup), font by script, NFC-composed.

    manim's Text with ``disable_ligatures`` insists on one glyph per character, which
    combining marks, right-to-left shaping and some scripts break; for those we let Pango
    shape freely (the glyph-per-character mapping is not needed for user text). Right-to-
    left text always goes that way: with only the fonts we name, its glyph count can match
    and manim then draws nothing visible (measured: Arabic and Hebrew, 0 lit pixels).
    """
    composed = plain(unicodedata.normalize("NFC", text))
    font = kwargs.pop("font", None) or font_for(text)
    if not has_rtl(composed):
        try:
            return make_text(composed, font=font, disable_ligatures=True, **kwargs)
        except ValueError:
            pass
    return make_text(composed, font=font, disable_ligatures=False, **kwargs)


def user_text(text: str, font_size: float = style.FONT_TOKEN, color: str | None = None,
              **kwargs) -> Text:
    """User text (tokens, words) in the text colour unless told otherwise.

    >>> bool(user_text("北京").height > 0)
    True
    """
    return user_text_mobject(text, font_size=font_size, color=color or style.PALETTE.text,
                             **kwargs)


def label_text(text: str, font_size: float = style.FONT_LABEL, color: str | None = None,
               **kwargs) -> Text:
    """Our own fixed wording in Computer Modern (never user text).

    >>> label_text("keys", color=style.PALETTE.key).font == style.SERIF
    True
    """
    if has_rtl(text):
        # a user's word quoted in our wording: shaped and ordered by Pango as user text is
        return user_text_mobject(typographic(text), font=style.SERIF, font_size=font_size,
                                 color=color or style.PALETTE.text, **kwargs)
    return make_text(typographic(text), font=style.SERIF, font_size=font_size,
                     color=color or style.PALETTE.text, **kwargs)


def typographic(text: str) -> str:
    """Our own wording as typeset: a typographic apostrophe (’), never the typewriter's."""
    return text.replace("'", "\u2019")


_BASELINE_REF = "Hg"   # cap height + descender: fixes a line box independent of the word


class Glyphs(VGroup):
    """The glyphs of a word cut out of a Text (so words share a baseline), remembering the
    size they were set in: ``drawn_size`` is the font size they show now."""

    def __init__(self, *glyphs, font_size: float, word: str = "a word"):
        super().__init__(*glyphs)
        self.word = word
        self.set_size = font_size
        # the diagonal, not the height: a word turned on its side keeps its diagonal
        self.set_diagonal = max(float(np.hypot(self.width, self.height)), 1e-9)

    @property
    def drawn_size(self) -> float:
        return self.set_size * float(np.hypot(self.width, self.height)) / self.set_diagonal


def _on_a_base(text: str) -> str:
    """A text that opens on a combining mark (an Indic vowel sign cut from its letter) set
    on a no-break space, the base shaping engines take for a mark shown alone: without one
    the mark is drawn on a dotted circle, a glyph the word does not have."""
    if text and unicodedata.category(text[0])[0] == "M":
        return "\u00a0" + text
    return text


def baseline_text(text: str, font_size: float = style.FONT_TOKEN, color: str | None = None
                  ) -> tuple[VGroup, float, float]:
    """User text whose vertical placement follows the font's baseline, not its ink.

    Centring each word by its ink would make "the", "jumped" and "fish" sit at different
    heights in a row. We render the word after a reference pair ("Hg") in one Text and
    drop the reference glyphs: what is left keeps the shared baseline. Returns the glyphs
    and the y of the line box's top and bottom (from the reference glyphs).
    """
    if getattr(text, "spans", None) is not None:
        drawn = _piece_in_word(text, font_size, color)
        if drawn is not None:
            return drawn
    font = font_for(text)
    based = _on_a_base(text)
    whole = user_text_mobject(_BASELINE_REF + based, font=font, font_size=font_size,
                              color=color or style.PALETTE.text)
    alone = user_text_mobject(based, font=font, font_size=font_size)
    n_ref = len(_BASELINE_REF)
    # a mark after the reference joins the reference's Latin run, where it is drawn on a
    # dotted circle: set on its base alone, it is centred by its ink as below
    if len(whole.submobjects) == n_ref + len(alone.submobjects) and len(alone.submobjects) \
            and based == text:
        return _after_reference(whole, text, font_size)
    # shaping merged glyphs (rare scripts): fall back to centring the ink
    alone.set_color(color or style.PALETTE.text).move_to(ORIGIN)
    glyphs = Glyphs(*(alone.submobjects or [alone]), font_size=font_size, word=text)
    keep_part_source(glyphs, alone, 0, len(based))
    return glyphs, alone.get_top()[1], alone.get_bottom()[1]


_MARK = "#{:06x}"


def _pieces_in_word(piece, font_size: float, font: str):
    """The glyphs of ``piece`` as Pango shapes its whole word (joined, in the word's own
    order), as (glyphs, top and bottom of the line box, the word's left and right edges),
    all where the shaping put them; or None where the pieces cannot be told apart in the
    drawing (a ligature across two pieces)."""

    word = plain(piece.word)
    lead = len(word) - len(piece.word)          # a left-to-right mark before RTL text
    markup = (f'<span foreground="{_MARK.format(0)}">{_BASELINE_REF}</span>' + escape(word[:lead])
              + "".join(f'<span foreground="{_MARK.format(n + 1)}">'
                        f"{escape(piece.word[a:b])}</span>"
                        for n, (a, b) in enumerate(piece.spans)))
    whole = make_markup(markup, font=font, font_size=font_size)
    owners = [int(m.get_fill_color().to_hex()[1:7], 16) - 1 for m in whole.submobjects]
    if sorted(set(owners)) != list(range(-1, len(piece.spans))):
        return None
    reference = VGroup(*[m for m, n in zip(whole.submobjects, owners) if n < 0])
    word_glyphs = VGroup(*[m for m, n in zip(whole.submobjects, owners) if n >= 0])
    mine = VGroup(*[m for m, n in zip(whole.submobjects, owners) if n == piece.at])
    a, b = piece.spans[piece.at]
    at = len(_BASELINE_REF) + lead                # the piece in the text laid out
    return (mine, reference.get_top()[1], reference.get_bottom()[1],
            word_glyphs.get_left()[0], word_glyphs.get_right()[0], (whole, at + a, at + b))


def _piece_in_word(piece, font_size: float, color: str | None):
    """A piece of a word (``scripts.InWord``) in the form it takes inside its word, its
    line box centred at the origin, as :func:`baseline_text` returns a word; the glyphs
    remember where the whole word's edges lie (``word_edges``, relative to their centre at
    the size they are set in). None where the pieces cannot be told apart."""
    found = _pieces_in_word(piece, font_size, font_for(piece.word))
    if found is None or not len(found[0]):
        return None
    mine, top, bottom, left, right, (whole, start, end) = found
    glyphs = Glyphs(*mine.submobjects, font_size=font_size, word=str(piece))
    keep_part_source(glyphs, whole, start, end)
    glyphs.set_color(color or style.PALETTE.text)
    shift = -np.array([glyphs.get_center()[0], (top + bottom) / 2, 0])
    glyphs.shift(shift)
    glyphs.word_edges = (left + shift[0], right + shift[0])
    return glyphs, top + shift[1], bottom + shift[1]


def glyphs_of(text: str, font_size: float, special: bool) -> VGroup:
    """A word whose line box is centred at the origin (so words share a baseline);
    special tokens in their dimmed colour."""
    pal = style.PALETTE
    glyphs, _, _ = baseline_text(text, font_size, pal.special if special else pal.text)
    return glyphs


_LINE_BOX: dict[float, float] = {}


def line_box_height(font_size: float) -> float:
    """The tallest reference line box ("Hg") among the fonts a token may use."""
    if font_size not in _LINE_BOX:
        _LINE_BOX[font_size] = max(
            make_text(_BASELINE_REF, font=font, font_size=font_size).height
            for font in (style.SERIF, style.CJK))
    return _LINE_BOX[font_size]


def wrapped(text: str, width: float, font_size: float = style.FONT_SMALL) -> str:
    """Our own wording with line breaks so that no line is wider than ``width`` (scene
    units) in Computer Modern at ``font_size``: a note keeps its size and wraps instead
    of shrinking below the legible minimum.

    >>> wrapped("one two three", 0.01)
    'one\\ntwo\\nthree'
    """
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in paragraph.split(" "):
            trial = f"{current} {word}" if current else word
            if current and make_text(trial, font=style.SERIF, font_size=font_size).width > width:
                lines.append(current)
                current = word
            else:
                current = trial
        lines.append(current)
    return "\n".join(lines)


OUTLINE_WIDTH = 5      # a word's black outline, drawn behind its glyphs


def outlined(mob):
    """``mob`` with a black outline behind it, so it stays legible over crossing arrows,
    springs and grid lines; returns it."""
    return mob.set_stroke(style.PALETTE.background, width=OUTLINE_WIDTH, background=True)


def dimmed(mob, opacity: float):
    """``mob`` dimmed to ``opacity`` (a special token, a weak score), each glyph no fainter
    than ``style.DIM_CONTRAST`` on the stage: the same opacity that leaves a bright colour
    readable on black would wash a dark one out on white. Returns it."""
    from .colors import legible_opacity

    stage = style.PALETTE.background
    for part in mob.get_family():
        if len(part.points) == 0:
            continue
        fill = part.get_fill_opacity()
        if fill > 0:
            colour = part.get_fill_color().to_hex()
            part.set_fill(opacity=fill * legible_opacity(colour, stage, opacity,
                                                         style.DIM_CONTRAST), family=False)
        if part.get_stroke_width() > 0:
            part.set_stroke(opacity=part.get_stroke_opacity() * opacity, family=False)
    return mob


def legible_fit(mob, width: float, font_size: float):
    """``mob`` (set at ``font_size``) shrunk to at most ``width``, never below the smallest
    legible size; returns it."""
    if mob.width > width:
        mob.scale(max(width / mob.width, style.MIN_FONT / font_size))
    return mob


def fit_width(mobs, limit: float) -> float:
    """Shrink every mobject by ONE factor so the widest is at most ``limit``; returns it."""
    widest = max((m.width for m in mobs), default=0.0)
    factor = min(1.0, limit / widest) if widest > 0 else 1.0
    for m in mobs:
        m.scale(factor)
    return factor


class TextLine(VGroup):
    """Words of ours and the user's set as one line (:func:`line_of`): one text to read,
    however many fonts it takes."""

    def __init__(self, *pieces, text: str = ""):
        super().__init__(*pieces)
        self.original_text = text


def line_of(parts, font_size: float = style.FONT_BODY) -> TextLine:
    """Words of ours and the user's (each in its own font) on one baseline, left to right:
    ``parts`` are (text, colour) pairs; a part is the user's text when its colour is given
    as ``("user", colour)``. Spaces are written out in the parts ("of " + "384").

    >>> len(line_of([("the query of ", "#DDDDDD"), ("ate", ("user", "#FFFF00"))]))
    2
    """
    pieces, x = [], 0.0
    space = 0.14 * font_size / style.FONT_BODY
    for n, (text, color) in enumerate(parts):
        user = isinstance(color, tuple)
        col = color[1] if user else color
        if user:
            glyphs, _, _ = baseline_text(text, font_size, col)
        else:
            glyphs, _, _ = _our_baseline_text(text.strip(), font_size, col)
        if n and not (text[:1].isspace() or parts[n - 1][0][-1:].isspace()):
            x -= space            # spaces are written out: "ate" + "'s query" is "ate's"
            before, after = parts[n - 1][0][-1:], text[:1]
            if _wide(after) or _wide(before) or has_rtl(after + before):
                # an ideograph fills its box, an alef stands at its edge: a quote keeps off
                x += 0.3 * space
            elif _touching(before, after):
                # parts abut ink to ink: a closing quote would touch the comma after it,
                # an opening one the bracket (kerned as one text, they are apart already)
                x += 0.3 * space
        glyphs.shift(RIGHT * (x - glyphs.get_left()[0]))      # keep y: the baselines agree
        x = glyphs.get_right()[0] + space
        pieces.append(glyphs)
    return TextLine(*pieces, text="".join(text for text, _ in parts))


def _touching(before: str, after: str) -> bool:
    """Whether two parts' facing characters touch in CMU Serif: a closing quote or bracket
    and the punctuation after it, an opening quote and a bracket."""
    return (bool(before) and before in "\u2019\u201d)]" and bool(after) and after in ";:?!.,)") \
        or (before in "\u2018\u201c" and bool(before) and after == "[")


def _wide(char: str) -> bool:
    return bool(char) and unicodedata.east_asian_width(char) in "WF"


def _our_baseline_text(text: str, font_size: float, color: str):
    """Our own wording on the shared baseline (as :func:`baseline_text`, in CMU Serif)."""
    text = typographic(text)
    whole = make_text(_BASELINE_REF + text, font=style.SERIF, font_size=font_size, color=color)
    return _after_reference(whole, text, font_size)


def _after_reference(whole: Text, text: str, font_size: float):
    """The glyphs of ``whole`` after the reference pair, their line box centred at the
    origin; with the y of the line box's top and bottom."""
    n_ref = len(_BASELINE_REF)
    ref = VGroup(*whole.submobjects[:n_ref])
    glyphs = Glyphs(*whole.submobjects[n_ref:], font_size=font_size, word=text)
    # the word ends the text laid out (which may open on a direction mark before "Hg")
    keep_part_source(glyphs, whole, -len(text), 0)
    top, bottom = ref.get_top()[1], ref.get_bottom()[1]
    shift = -np.array([glyphs.get_center()[0], (top + bottom) / 2, 0])
    glyphs.shift(shift)
    return glyphs, top + shift[1], bottom + shift[1]
