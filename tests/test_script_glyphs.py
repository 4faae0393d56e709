"""Every script has a glyph (issue 57): the film's pinned fonts reach a Noto font per script
(fonts-noto-core) after the base fonts, so Devanagari, Bengali, Tamil, Thai, ... are drawn
with real glyphs while every glyph the base fonts had keeps its font; a sentence with a
character no pinned font has is refused before anything is drawn, naming the characters
and the package; `doctor --sentence` says which characters lack a glyph."""
from __future__ import annotations

import os
import subprocess

import pytest

from attention_explainer.scenes.vocabulary import fonts

# one sentence per script the base fonts (CMU Serif, Noto Sans CJK, Symbola, DejaVu Sans)
# never drew, with the family fontconfig must choose for it
SCRIPTS = [
    ("hi", "बिल्ली ने मछली खाई क्योंकि वह भूखी थी।", "Noto Sans Devanagari"),
    ("bn", "বিড়ালটি মাছ খেয়েছিল কারণ সে ক্ষুধার্ত ছিল।", "Noto Sans Bengali"),
    ("ta", "பூனை மீனை சாப்பிட்டது ஏனெனில் அது பசியாக இருந்தது.", "Noto Sans Tamil"),
    ("th", "แมวกินปลาเพราะมันหิว", "Noto Sans Thai"),
    ("gu", "બિલાડીએ માછલી ખાધી કારણ કે તે ભૂખી હતી.", "Noto Sans Gujarati"),
    ("am", "ድመቷ ዓሣውን በላች ምክንያቱም ተርባ ነበር።", "Noto Sans Ethiopic"),
    ("km", "ឆ្មាបានស៊ីត្រី ព្រោះវាឃ្លាន។", "Noto Sans Khmer"),
    ("si", "පූසා මාළුව කෑවා මොකද ඌට බඩගිනියි.", "Noto Sans Sinhala"),
]


def _fc_match(family_and_lang: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "FONTCONFIG_PATH"}
    env["FONTCONFIG_FILE"] = str(fonts.CONFIG)
    proc = subprocess.run(["fc-match", "-s", "-f", "%{family[0]}\n", family_and_lang],
                          capture_output=True, text=True, env=env, timeout=60, check=True)
    return proc.stdout


def test_the_script_fonts_are_the_rules_picks():
    """SCRIPT_FONTS is what its rule picks from this machine's fonts-noto-core (installed by
    `make setup`): one font per script, each adding letters no earlier font has."""
    assert not fonts.missing_script_fonts(), "make setup installs fonts-noto-core"
    assert fonts.script_fonts_by_rule() == fonts.SCRIPT_FONTS
    assert fonts.CONFIG.read_text() == fonts.config_text()


@pytest.mark.parametrize("lang, sentence, family", SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_every_script_has_a_glyph_from_its_own_font(lang, sentence, family):
    """Each sentence is printable, and for its language the film's fontconfig falls back
    from CMU Serif to the script's own Noto font first."""
    assert fonts.unprintable(sentence) == []
    order = _fc_match(f"CMU Serif:lang={lang}").splitlines()
    fallback = [f for f in order if f != "CMU Serif"]
    assert fallback[0] == family, order[:5]


@pytest.mark.parametrize("lang", ["en", "ar", "he", "zh", "ru", None])
def test_the_base_fonts_keep_their_order(lang):
    """The script fonts come after every base font: Arabic and Hebrew stay DejaVu Sans,
    symbols Symbola, Han Noto Sans CJK (so no golden of theirs changes)."""
    order = _fc_match("CMU Serif" + (f":lang={lang}" if lang else "")).splitlines()
    base = ["CMU Serif", "Symbola", "DejaVu Sans", "Noto Sans CJK JP"]
    firsts = list(dict.fromkeys(order))[:4]
    assert sorted(firsts) == sorted(base), order[:6]


def test_ignorable_characters_need_no_glyph():
    """Joiners, variation selectors and direction marks are shaped, never drawn."""
    assert fonts.unprintable("I \u2764\ufe0f NY \u200d\u200c\u200f\u202e x") == []
    assert fonts.unprintable("a \U0001FAE0 b \U0001FAE0") == ["\U0001FAE0"]


def test_a_character_no_font_has_is_refused_before_anything_is_written(run_cli, tmp_path):
    code, out, err = run_cli("render", "Smiles \U0001FAE0 everywhere", "-o",
                             tmp_path / "film.mp4")
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "U+1FAE0 MELTING FACE" in lines[0]
    assert "leave them out" in lines[0]
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def without_script_fonts(monkeypatch, tmp_path):
    """A machine without fonts-noto-core: the script fonts' folder is empty."""
    empty = tmp_path / "no-noto"
    empty.mkdir()
    monkeypatch.setattr(fonts, "SCRIPT_FONT_FOLDER", str(empty))
    monkeypatch.setattr(fonts, "FONT_FILES", fonts.BASE_FONT_FILES)


@pytest.mark.parametrize("argv", [
    ["render", SCRIPTS[0][1], "-o", "{out}/film.mp4"],
    ["frames", SCRIPTS[2][1], "--beat", "title", "--out", "{out}/stills"],
    ["render", "The cat ate the fish", "--versus", SCRIPTS[3][1], "-o", "{out}/film.mp4"],
], ids=["render", "frames", "versus"])
def test_an_uncovered_script_is_refused_naming_its_package(argv, run_cli, tmp_path,
                                                          without_script_fonts):
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, err = run_cli(*[a.format(out=out) for a in argv])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert "no glyph for" in lines[0] and "fonts-noto-core" in lines[0]
    assert "sudo apt-get install fonts-noto-core" in lines[0]
    assert list(out.iterdir()) == []


def test_doctor_names_the_missing_script_fonts(run_cli, without_script_fonts):
    code, out, err = run_cli("doctor", "--sentence", SCRIPTS[0][1])
    lines = {line.split(":", 1)[0].split(None, 1)[1]: line for line in out.splitlines()}
    assert lines["fonts for other scripts"].startswith("missing ")
    assert "fonts-noto-core" in lines["fonts for other scripts"]
    glyphs = lines["glyphs of the sentence"]
    assert glyphs.startswith("MISSING ") and "U+092C DEVANAGARI LETTER BA" in glyphs
    assert code == 1 and "no glyph" in err


def test_doctor_says_a_sentence_is_printable(run_cli):
    code, out, err = run_cli("doctor", "--sentence", SCRIPTS[1][1])
    assert "ok       glyphs of the sentence: every character has a glyph" in out
    code, out, err = run_cli("doctor", "--sentence", "x \U0001FAE0")
    assert code == 1 and "U+1FAE0" in out


def test_the_craft_audit_finds_a_text_without_a_glyph(tmp_path):
    """The audit's "no glyph" rule: a label whose letters no pinned font has (planted by
    hiding the script fonts) is a fault; with the script fonts it is not."""
    from manim import tempconfig

    from attention_explainer.scenes.film import craft
    from attention_explainer.scenes.film.scene import FilmScene
    from attention_explainer.scenes.vocabulary.text import label_text
    from tests.conftest import synthetic_trace

    word = SCRIPTS[0][1].split()[0]
    with tempconfig({"pixel_height": 90, "pixel_width": 160, "frame_rate": 5,
                     "format": "none", "disable_caching": True,
                     "media_dir": str(tmp_path / "media"), "progress_bar": "none",
                     "verbosity": "ERROR"}):
        film = FilmScene(synthetic_trace(), beats=["title"], skip_animations=True)
        film.add(label_text(word))
        assert craft.texts_without_glyphs(film) == []
        hidden = pytest.MonkeyPatch()
        hidden.setattr(fonts, "FONT_FILES", fonts.BASE_FONT_FILES)
        try:
            # every letter and sign of a Devanagari word is one the base fonts lack
            lacking = "".join(dict.fromkeys(word))
            assert [found for found, _ in craft.texts_without_glyphs(film)] == [(word, lacking)]
            assert ("no glyph", (word, lacking)) in craft.craft_faults(film)
        finally:
            hidden.undo()


def _shaped(text: str, font: str, folder) -> tuple[int, float]:
    """The glyph count and width of ``text`` set in ``font`` with the film's fonts (in a
    fresh media folder: manim keeps every Text it sets, whatever fontconfig said then)."""
    from manim import tempconfig

    from attention_explainer.scenes.vocabulary import style
    from attention_explainer.scenes.vocabulary.text import user_text_mobject

    style.register_fonts()
    with tempconfig({"media_dir": str(folder)}):
        made = user_text_mobject(text, font=font, font_size=40)
    return len(made.submobjects), round(float(made.width), 3)


@pytest.mark.parametrize("word, family", [("தம்பிக்கு", "Noto Sans Tamil"),
                                          ("புத்தகம்", "Noto Sans Tamil"),
                                          ("बिल्ली", "Noto Sans Devanagari"),
                                          ("ক্ষুধার্ত", "Noto Sans Bengali")])
def test_a_letter_and_its_vowel_sign_fall_to_one_font(word, family, tmp_path):
    """A word in a script the serif lacks is set as its script's own font sets it: a font
    that borrows the script's letters without its marks (Grantha, Tamil letters) comes
    after it, else the letter and its vowel sign fall to two fonts and the sign is drawn
    on a dotted circle."""
    order = fonts.fallback_families()
    assert order.index("Noto Sans Tamil") < order.index("Noto Sans Grantha")
    assert _shaped(word, "CMU Serif", tmp_path) == _shaped(word, family, tmp_path)


@pytest.mark.parametrize("mark", ["\u093f", "\u0bbf", "\u09c7"])
def test_a_vowel_sign_cut_from_its_letter_is_drawn_without_a_dotted_circle(mark, tmp_path):
    """A token that is a vowel sign alone (the normaliser cut it from its letter) is set on
    a no-break space in its script's font: the mark, with no dotted circle beside it."""
    from attention_explainer.scenes.vocabulary.text import baseline_text, font_for

    family = fonts.family_of_mark(mark)
    assert family is not None and font_for(mark) == family
    glyphs, _, _ = baseline_text(mark, 40)
    inked = [m for m in glyphs.submobjects if m.width > 1e-6]
    count, width = _shaped("\u00a0" + mark, family, tmp_path)
    circle = _shaped("\u25cc" + mark, family, tmp_path)[1]
    assert len(inked) == 1 and abs(inked[0].width - width) < 0.05 * circle
