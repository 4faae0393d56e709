"""The fonts the film draws with, and nothing else: a fontconfig configuration of our own.

Left to the machine's fontconfig, a glyph that CMU Serif lacks is drawn from whatever font
the system's fallback finds first, and the system's conf.d decides hinting and antialiasing:
installing an office suite or a browser (which bring fonts and settings of their own) then
changes frames. So every drawing process renders with :data:`CONFIG`, which reaches exactly
the font files in :data:`FONT_FILES` (every other file is rejected) and fixes how glyphs are
rasterised (greyscale antialiasing, no hinting, no embedded bitmaps). Typst formulas carry
their own fonts; they are compiled with the system's fonts hidden for the same reason.

Manim-free: ``pin()`` must run before anything asks fontconfig for a font, so importing the
drawing packages calls it.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = ["CONFIG", "FONT_FILES", "SYMBOLS", "config_text", "missing_files", "pin", "pinned"]

# The families the film names (style.SERIF, style.CJK), Symbola for symbols and emoji that
# neither has, and DejaVu Sans for the scripts none of them has (Arabic, Hebrew, ...).
# Debian's fonts-cmu, fonts-noto-cjk, fonts-symbola and fonts-dejavu-core.
FONT_FILES = (
    "/usr/share/fonts/truetype/cmu/cmunrm.ttf",     # CMU Serif
    "/usr/share/fonts/truetype/cmu/cmunbx.ttf",     # CMU Serif Bold
    "/usr/share/fonts/truetype/cmu/cmunti.ttf",     # CMU Serif Italic
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
)

SYMBOLS = "Symbola"
CONFIG = Path(__file__).resolve().parent / "fonts.conf"

# how glyphs are rasterised: the same on every machine whatever its conf.d says
_RENDERING = (("antialias", "bool", "true"), ("hinting", "bool", "false"),
              ("hintstyle", "const", "hintnone"), ("autohint", "bool", "false"),
              ("rgba", "const", "none"), ("lcdfilter", "const", "lcdnone"),
              ("embeddedbitmap", "bool", "false"))


def config_text(files=FONT_FILES) -> str:
    """The fontconfig configuration that reaches only ``files``."""
    folders = sorted({str(Path(f).parent) for f in files})
    lines = ['<?xml version="1.0"?>', '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
             "<!-- written by scenes/vocabulary/fonts.py: the only fonts attention-explainer draws with -->",
             "<fontconfig>"]
    lines += [f"  <dir>{escape(folder)}</dir>" for folder in folders]
    # fontconfig keeps its scan of those folders here; the system's cache is read as well
    lines += ['  <cachedir prefix="xdg">attention-explainer/fontconfig</cachedir>',
              "  <cachedir>/var/cache/fontconfig</cachedir>",
              "  <selectfont>", "    <rejectfont><glob>*</glob></rejectfont>", "    <acceptfont>"]
    lines += [f"      <glob>{escape(f)}</glob>" for f in files]
    lines += ["    </acceptfont>", "  </selectfont>"]
    # a glyph the named family lacks comes from Symbola first (symbols, arrows, emoji)
    lines += ['  <match target="pattern">', '    <edit name="family" mode="append_last">',
              f"      <string>{SYMBOLS}</string>", "    </edit>", "  </match>"]
    lines += ['  <match target="font">']
    lines += [f'    <edit name="{name}" mode="assign"><{kind}>{value}</{kind}></edit>'
              for name, kind, value in _RENDERING]
    lines += ["  </match>", "  <config><rescan><int>0</int></rescan></config>", "</fontconfig>", ""]
    return "\n".join(lines)


def missing_files() -> list[str]:
    """The font files of :data:`FONT_FILES` that this machine lacks."""
    return [f for f in FONT_FILES if not Path(f).is_file()]


@functools.lru_cache(maxsize=1)
def pin() -> str:
    """Make this process (and the processes it starts) draw with :data:`CONFIG` only, and
    compile Typst without the system's fonts. Returns the configuration's path."""
    os.environ["FONTCONFIG_FILE"] = str(CONFIG)
    os.environ.pop("FONTCONFIG_PATH", None)
    _hide_system_fonts_from_typst()
    return str(CONFIG)


def pinned() -> bool:
    """Whether fontconfig in this process reaches only our fonts (asked of Pango itself)."""
    import manimpango

    reached = set(manimpango.list_fonts())
    return bool(reached) and reached <= {"CMU Serif", "Noto Sans CJK SC", "Noto Sans CJK TC",
                                         "Noto Sans CJK JP", "Noto Sans CJK KR",
                                         "Noto Sans CJK HK", "Noto Sans Mono CJK SC",
                                         "Noto Sans Mono CJK TC", "Noto Sans Mono CJK JP",
                                         "Noto Sans Mono CJK KR", "Noto Sans Mono CJK HK",
                                         "Symbola", "DejaVu Sans", "Monospace", "Sans",
                                         "Serif", "System-ui"}


def _hide_system_fonts_from_typst() -> None:
    """manim compiles a MathTypst through ``typst.compile`` with the system's fonts
    visible: a font installed later with a family Typst knows could change a formula."""
    try:
        import typst
    except ImportError:          # formulas are then refused by manim itself
        return
    if getattr(typst.compile, "_without_system_fonts", False):
        return
    original = typst.compile

    @functools.wraps(original)
    def compile_without_system_fonts(*args, **kwargs):
        kwargs["ignore_system_fonts"] = True
        return original(*args, **kwargs)

    compile_without_system_fonts._without_system_fonts = True
    typst.compile = compile_without_system_fonts
