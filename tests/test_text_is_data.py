"""User text is data: markup and TeX are drawn literally; every script draws as glyphs."""
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT

MARKUP = '<span foreground="red">x</span> &amp; <b>bold</b>'
TEX = r"\input{/etc/passwd} $x$ 100% \write18{rm -rf /}"


# ---- glyphs, not boxes ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def raster():
    from manim import Camera, tempconfig

    from attention_explainer.scenes.vocabulary import style
    from attention_explainer.scenes.vocabulary.text import user_text

    style.register_fonts()

    def draw(text):
        with tempconfig({"pixel_width": 320, "pixel_height": 90, "frame_width": 8,
                         "frame_height": 2.25}):
            camera = Camera()
            camera.capture_mobject(user_text(text, font_size=48))
            return np.asarray(camera.get_image().convert("L")).astype(int)

    return draw


SAMPLES = {"emoji": "🍮", "cjk": "北京", "emoji family": "👨\u200d👩\u200d👧", "arabic": "مرحبا", "hebrew": "שלום",
           "combining accent": "e\u0301te\u0301", "accented": "Crème brûlée"}


def test_every_script_draws_distinct_glyphs(raster):
    missing = raster("\uFFFF")         # what a character without a glyph becomes
    images = {name: raster(text) for name, text in SAMPLES.items()}
    for name, image in images.items():
        assert (image > 60).sum() > 40, f"{name} drew nothing"
        assert not np.array_equal(image, missing), f"{name} drew the missing-glyph box"
    names = list(images)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not np.array_equal(images[a], images[b]), f"{a} and {b} look the same"


def test_two_different_cjk_characters_differ(raster):
    assert not np.array_equal(raster("北"), raster("京"))


# ---- markup and TeX are data ----------------------------------------------------------------
# the focus near the quotes: a long sentence is drawn as a window around it
@pytest.mark.parametrize("sentence, focus, fragments",
                         [(MARKUP, "red", ("<", ">", "&", '"', "span")),
                          (TEX, "input", ("\\", "}", "$", "%", "write"))],
                         ids=["pango-markup", "tex"])
def test_markup_is_drawn_literally(sentence, focus, fragments, monkeypatch):
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.scenes.vocabulary import text
    from attention_explainer.scenes.pipeline.render import render_stills

    drawn = []
    real = text.user_text_mobject

    def recording(text, **kwargs):
        drawn.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(text, "user_text_mobject", recording)
    trace = compute_trace(sentence, focus=focus)
    stills = render_stills(trace, beat="title", times=["key"], width=320, height=180, fps=5)
    assert np.asarray(stills["key"]).max() > 100
    from attention_explainer.scenes.film.views import drawn_indices

    for i in drawn_indices(trace):       # long sentences are drawn as a window
        if not trace.special[i]:
            token = trace.display_tokens[i]
            assert token in drawn, f"token {token!r} was not drawn as plain text"
    joined = "".join(drawn)
    # the window holds whole words: the fragments among its tokens are drawn, literally
    window = "".join(trace.display_tokens[i] for i in drawn_indices(trace))
    present = [f for f in fragments if f in window]
    assert len(present) >= 3, (present, window)
    for fragment in present:
        assert fragment in joined


def test_tex_sentence_never_touches_passwd(tmp_path):
    """Run a real render of the TeX sentence with an audit hook that fails on any Python
    open() of /etc/passwd and on any .tex file."""
    code = (
        "import sys\n"
        "def hook(event, args):\n"
        "    if event == 'open' and args and isinstance(args[0], (str, bytes)):\n"
        "        path = args[0] if isinstance(args[0], str) else args[0].decode()\n"
        "        if 'passwd' in path or path.endswith('.tex'):\n"
        "            raise SystemExit('forbidden open: ' + path)\n"
        "sys.addaudithook(hook)\n"
        "from attention_explainer import cli\n"
        "cli.main()\n")
    out = tmp_path / "frames"
    proc = subprocess.run([sys.executable, "-c", code, "frames", TEX, "--beat", "title,summary",
                           "--at", "key", "--resolution", "320x180", "--fps", "5", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "forbidden" not in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["summary-key.png", "title-key.png"]


def test_joiners_and_tags_are_kept_not_replaced():
    """A zero-width joiner (emoji families) and tag characters (subdivision flags) are
    format characters: drawn as part of their sequence, never as U+FFFD."""
    from attention_explainer.scenes.vocabulary.text import plain

    for text in ("👨\u200d👩\u200d👧", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
                 "e\u0301"):
        assert "\ufffd" not in plain(text)
    assert plain("a\x07b") == "a\ufffdb"              # a control character is not text
