"""A text read glyph by glyph (vocabulary.glyph_svg) is the text manim reads whole: the
same shapes, in the same order, the same points to far below a pixel, the same colours,
in every script the film draws; an SVG not in Cairo's plain form is read by manim."""
from __future__ import annotations

import numpy as np
import pytest
from manim import MarkupText, Text
from manim.mobject.svg.svg_mobject import SVG_HASH_TO_MOB_MAP

from attention_explainer.scenes.vocabulary import glyph_svg, style
from attention_explainer.scenes.vocabulary.glyph_svg import QuickMarkupText, QuickText

CASES = [
    (Text, "The cat ate the fish", {"font": style.SERIF, "font_size": 40}),
    (Text, "\u22121.50  0.23", {"font": style.SERIF, "font_size": 30, "color": "#FFCC00"}),
    (Text, "小猫吃了一条鱼", {"font": style.CJK, "font_size": 40}),
    (Text, "\u200eالقط الصغير أكل السمكة", {"font": style.SERIF, "font_size": 40}),
    (Text, "\u200eהחתול הקטן אכל את הדג", {"font": style.SERIF, "font_size": 40}),
    (Text, "office \ufb01 naïve", {"font": style.SERIF, "disable_ligatures": True}),
    (Text, "two\nlines here", {"font": style.SERIF, "t2c": {"lines": "#FF0000"}}),
    (Text, "Straßenbahn", {"font": style.SERIF, "weight": "BOLD", "slant": "ITALIC"}),
    (Text, "\U0001F468\u200d\U0001F469\u200d\U0001F467 \U0001F1EF\U0001F1F5",
     {"font": style.SERIF}),
    (MarkupText, 'Die <span foreground="#FF8800">Katze</span> sah', {"font": style.SERIF}),
]


def _built(kind, text, options):
    SVG_HASH_TO_MOB_MAP.clear()
    return kind(text, **options)


@pytest.mark.parametrize("kind, text, options", CASES, ids=[c[1][:12] for c in CASES])
def test_a_text_read_glyph_by_glyph_is_the_text_manim_reads(kind, text, options):
    quick_kind = QuickText if kind is Text else QuickMarkupText
    whole = _built(kind, text, options)
    for _ in range(2):                       # converted, then from the kept glyphs
        _assert_alike(whole, _built(quick_kind, text, options))


@pytest.mark.parametrize("kind, text, options", CASES, ids=[c[1][:12] for c in CASES])
def test_outlines_read_from_their_path_data_are_the_outlines_manim_reads(kind, text, options):
    quick_kind = QuickText if kind is Text else QuickMarkupText
    _built(quick_kind, "Ab1 猫", {"font": style.SERIF})     # the first of a kind: by manim
    assert any(glyph_svg._TEMPLATES.values()), "no kind of outline is read from its data"
    glyph_svg._OUTLINES.clear()              # every outline again, now from its path data
    _assert_alike(_built(kind, text, options), _built(quick_kind, text, options))


def test_path_data_this_reading_does_not_take_goes_to_manim():
    unit = (1.0, 1.0)
    assert glyph_svg._path_points("M 0 0 L 1 0 L 1 1 Z", unit).shape == (12, 3)
    for data in ("M 0 0 Q 1 1 2 0", "m 0 0 l 1 0", "M 0 0 L 1", "L 1 1", "M 0 0 H 2", ""):
        assert glyph_svg._path_points(data, unit) is None, data


def _assert_alike(whole, quick) -> None:
    a, b = whole.family_members_with_points(), quick.family_members_with_points()
    assert len(a) == len(b) and len(whole.submobjects) == len(quick.submobjects)
    for x, y in zip(a, b):
        assert x.points.shape == y.points.shape
        assert np.abs(x.points - y.points).max() < 1e-9
        # every other attribute alike: colours, opacities, strokes, what manim keeps
        assert set(x.__dict__) == set(y.__dict__)
        for name, value in x.__dict__.items():
            if name not in ("points", "path_obj", "submobjects"):
                assert _same(value, y.__dict__[name]), name


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b)
    return type(a) is type(b) and (a == b or a is b)


def test_an_svg_not_in_cairo_s_plain_form_is_read_by_manim(tmp_path):
    text = _built(QuickText, "cat", {"font": style.SERIF})
    svg = text.get_file_path().read_text(encoding="utf-8")
    assert glyph_svg.glyph_mobjects(text, text.get_file_path()) is not None
    turned = tmp_path / "turned.svg"
    turned.write_text(svg.replace("<use ", '<use transform="rotate(30)" ', 1),
                      encoding="utf-8")
    assert glyph_svg.glyph_mobjects(text, turned) is None
    shape = tmp_path / "shape.svg"
    shape.write_text(svg.replace("</svg>", '<rect width="3" height="4"/></svg>'),
                     encoding="utf-8")
    assert glyph_svg.glyph_mobjects(text, shape) is None
