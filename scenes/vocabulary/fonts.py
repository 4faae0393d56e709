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

__all__ = ["BASE_FONT_FILES", "CONFIG", "FALLBACK_FAMILIES", "FONT_FILES", "SCRIPT_FONTS",
           "SCRIPT_FONT_PACKAGE", "SYMBOLS", "config_text", "glyphs_of", "missing_files",
           "missing_script_fonts", "pin", "pinned", "script_fonts_by_rule", "unprintable"]

# The families the film names (style.SERIF, style.CJK), Symbola for symbols and emoji that
# neither has, and DejaVu Sans for the scripts none of them has (Arabic, Hebrew, ...).
# Debian's fonts-cmu, fonts-noto-cjk, fonts-symbola and fonts-dejavu-core.
BASE_FONT_FILES = (
    "/usr/share/fonts/truetype/cmu/cmunrm.ttf",     # CMU Serif
    "/usr/share/fonts/truetype/cmu/cmunbx.ttf",     # CMU Serif Bold
    "/usr/share/fonts/truetype/cmu/cmunti.ttf",     # CMU Serif Italic
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
)
# Every other script (Devanagari, Bengali, Tamil, Thai, Ethiopic, ...): one Noto font per
# script from Debian's fonts-noto-core, (file, family), each adding letters or marks that no
# font before it has (:func:`script_fonts_by_rule`, which a test runs against this list).
# They come last in the fallback order, so a glyph an earlier font has keeps its font (and
# every golden its pixels); where Pango knows the text's language, a font made for it wins.
SCRIPT_FONT_FOLDER = "/usr/share/fonts/truetype/noto"
SCRIPT_FONT_PACKAGE = "fonts-noto-core"
SCRIPT_FONTS = (
    ("NotoSansAdlam-Regular.ttf", "Noto Sans Adlam"),
    ("NotoSansAnatolianHieroglyphs-Regular.ttf", "Noto Sans Anatolian Hieroglyphs"),
    ("NotoSansArabic-Regular.ttf", "Noto Sans Arabic"),
    ("NotoSansArmenian-Regular.ttf", "Noto Sans Armenian"),
    ("NotoSansAvestan-Regular.ttf", "Noto Sans Avestan"),
    ("NotoSansBalinese-Regular.ttf", "Noto Sans Balinese"),
    ("NotoSansBamum-Regular.ttf", "Noto Sans Bamum"),
    ("NotoSansBassaVah-Regular.ttf", "Noto Sans Bassa Vah"),
    ("NotoSansBatak-Regular.ttf", "Noto Sans Batak"),
    ("NotoSansBengali-Regular.ttf", "Noto Sans Bengali"),
    ("NotoSansBhaiksuki-Regular.ttf", "Noto Sans Bhaiksuki"),
    ("NotoSansBrahmi-Regular.ttf", "Noto Sans Brahmi"),
    ("NotoSansBuginese-Regular.ttf", "Noto Sans Buginese"),
    ("NotoSansBuhid-Regular.ttf", "Noto Sans Buhid"),
    ("NotoSansCanadianAboriginal-Regular.ttf", "Noto Sans Canadian Aboriginal"),
    ("NotoSansCarian-Regular.ttf", "Noto Sans Carian"),
    ("NotoSansCaucasianAlbanian-Regular.ttf", "Noto Sans Caucasian Albanian"),
    ("NotoSansChakma-Regular.ttf", "Noto Sans Chakma"),
    ("NotoSansCham-Regular.ttf", "Noto Sans Cham"),
    ("NotoSansCherokee-Regular.ttf", "Noto Sans Cherokee"),
    ("NotoSansCuneiform-Regular.ttf", "Noto Sans Cuneiform"),
    ("NotoSansCypriot-Regular.ttf", "Noto Sans Cypriot"),
    ("NotoSansDeseret-Regular.ttf", "Noto Sans Deseret"),
    ("NotoSansDevanagari-Regular.ttf", "Noto Sans Devanagari"),
    ("NotoSansDuployan-Regular.ttf", "Noto Sans Duployan"),
    ("NotoSansEgyptianHieroglyphs-Regular.ttf", "Noto Sans Egyptian Hieroglyphs"),
    ("NotoSansElbasan-Regular.ttf", "Noto Sans Elbasan"),
    ("NotoSansElymaic-Regular.ttf", "Noto Sans Elymaic"),
    ("NotoSansEthiopic-Regular.ttf", "Noto Sans Ethiopic"),
    ("NotoSansGeorgian-Regular.ttf", "Noto Sans Georgian"),
    ("NotoSansGlagolitic-Regular.ttf", "Noto Sans Glagolitic"),
    ("NotoSansGothic-Regular.ttf", "Noto Sans Gothic"),
    ("NotoSansGrantha-Regular.ttf", "Noto Sans Grantha"),
    ("NotoSansGujarati-Regular.ttf", "Noto Sans Gujarati"),
    ("NotoSansGunjalaGondi-Regular.ttf", "Noto Sans Gunjala Gondi"),
    ("NotoSansGurmukhi-Regular.ttf", "Noto Sans Gurmukhi"),
    ("NotoSansHanifiRohingya-Regular.ttf", "Noto Sans Hanifi Rohingya"),
    ("NotoSansHanunoo-Regular.ttf", "Noto Sans Hanunoo"),
    ("NotoSansHatran-Regular.ttf", "Noto Sans Hatran"),
    ("NotoSansHebrew-Regular.ttf", "Noto Sans Hebrew"),
    ("NotoSansImperialAramaic-Regular.ttf", "Noto Sans Imperial Aramaic"),
    ("NotoSansInscriptionalPahlavi-Regular.ttf", "Noto Sans Inscriptional Pahlavi"),
    ("NotoSansInscriptionalParthian-Regular.ttf", "Noto Sans Inscriptional Parthian"),
    ("NotoSansJavanese-Regular.ttf", "Noto Sans Javanese"),
    ("NotoSansKaithi-Regular.ttf", "Noto Sans Kaithi"),
    ("NotoSansKannada-Regular.ttf", "Noto Sans Kannada"),
    ("NotoSansKayahLi-Regular.ttf", "Noto Sans Kayah Li"),
    ("NotoSansKharoshthi-Regular.ttf", "Noto Sans Kharoshthi"),
    ("NotoSansKhmer-Regular.ttf", "Noto Sans Khmer"),
    ("NotoSansKhojki-Regular.ttf", "Noto Sans Khojki"),
    ("NotoSansKhudawadi-Regular.ttf", "Noto Sans Khudawadi"),
    ("NotoSansLao-Regular.ttf", "Noto Sans Lao"),
    ("NotoSansLepcha-Regular.ttf", "Noto Sans Lepcha"),
    ("NotoSansLimbu-Regular.ttf", "Noto Sans Limbu"),
    ("NotoSansLinearA-Regular.ttf", "Noto Sans Linear A"),
    ("NotoSansLinearB-Regular.ttf", "Noto Sans Linear B"),
    ("NotoSansLycian-Regular.ttf", "Noto Sans Lycian"),
    ("NotoSansLydian-Regular.ttf", "Noto Sans Lydian"),
    ("NotoSansMahajani-Regular.ttf", "Noto Sans Mahajani"),
    ("NotoSansMalayalam-Regular.ttf", "Noto Sans Malayalam"),
    ("NotoSansMandaic-Regular.ttf", "Noto Sans Mandaic"),
    ("NotoSansManichaean-Regular.ttf", "Noto Sans Manichaean"),
    ("NotoSansMarchen-Regular.ttf", "Noto Sans Marchen"),
    ("NotoSansMasaramGondi-Regular.ttf", "Noto Sans Masaram Gondi"),
    ("NotoSansMedefaidrin-Regular.ttf", "Noto Sans Medefaidrin"),
    ("NotoSansMeeteiMayek-Regular.ttf", "Noto Sans Meetei Mayek"),
    ("NotoSansMendeKikakui-Regular.ttf", "Noto Sans Mende Kikakui"),
    ("NotoSansMeroitic-Regular.ttf", "Noto Sans Meroitic"),
    ("NotoSansMiao-Regular.ttf", "Noto Sans Miao"),
    ("NotoSansModi-Regular.ttf", "Noto Sans Modi"),
    ("NotoSansMongolian-Regular.ttf", "Noto Sans Mongolian"),
    ("NotoSansMro-Regular.ttf", "Noto Sans Mro"),
    ("NotoSansMultani-Regular.ttf", "Noto Sans Multani"),
    ("NotoSansMyanmar-Regular.ttf", "Noto Sans Myanmar"),
    ("NotoSansNKo-Regular.ttf", "Noto Sans NKo"),
    ("NotoSansNabataean-Regular.ttf", "Noto Sans Nabataean"),
    ("NotoSansNewTaiLue-Regular.ttf", "Noto Sans New Tai Lue"),
    ("NotoSansNewa-Regular.ttf", "Noto Sans Newa"),
    ("NotoSansNushu-Regular.ttf", "Noto Sans Nushu"),
    ("NotoSansOlChiki-Regular.ttf", "Noto Sans Ol Chiki"),
    ("NotoSansOldHungarian-Regular.ttf", "Noto Sans Old Hungarian"),
    ("NotoSansOldItalic-Regular.ttf", "Noto Sans Old Italic"),
    ("NotoSansOldNorthArabian-Regular.ttf", "Noto Sans Old North Arabian"),
    ("NotoSansOldPermic-Regular.ttf", "Noto Sans Old Permic"),
    ("NotoSansOldPersian-Regular.ttf", "Noto Sans Old Persian"),
    ("NotoSansOldSogdian-Regular.ttf", "Noto Sans Old Sogdian"),
    ("NotoSansOldSouthArabian-Regular.ttf", "Noto Sans Old South Arabian"),
    ("NotoSansOldTurkic-Regular.ttf", "Noto Sans Old Turkic"),
    ("NotoSansOriya-Regular.ttf", "Noto Sans Oriya"),
    ("NotoSansOsage-Regular.ttf", "Noto Sans Osage"),
    ("NotoSansOsmanya-Regular.ttf", "Noto Sans Osmanya"),
    ("NotoSansPahawhHmong-Regular.ttf", "Noto Sans Pahawh Hmong"),
    ("NotoSansPalmyrene-Regular.ttf", "Noto Sans Palmyrene"),
    ("NotoSansPauCinHau-Regular.ttf", "Noto Sans Pau Cin Hau"),
    ("NotoSansPhagsPa-Regular.ttf", "Noto Sans PhagsPa"),
    ("NotoSansPhoenician-Regular.ttf", "Noto Sans Phoenician"),
    ("NotoSansPsalterPahlavi-Regular.ttf", "Noto Sans Psalter Pahlavi"),
    ("NotoSansRejang-Regular.ttf", "Noto Sans Rejang"),
    ("NotoSansRunic-Regular.ttf", "Noto Sans Runic"),
    ("NotoSansSamaritan-Regular.ttf", "Noto Sans Samaritan"),
    ("NotoSansSaurashtra-Regular.ttf", "Noto Sans Saurashtra"),
    ("NotoSansSharada-Regular.ttf", "Noto Sans Sharada"),
    ("NotoSansShavian-Regular.ttf", "Noto Sans Shavian"),
    ("NotoSansSiddham-Regular.ttf", "Noto Sans Siddham"),
    ("NotoSansSignWriting-Regular.ttf", "Noto Sans SignWriting"),
    ("NotoSansSinhala-Regular.ttf", "Noto Sans Sinhala"),
    ("NotoSansSogdian-Regular.ttf", "Noto Sans Sogdian"),
    ("NotoSansSoraSompeng-Regular.ttf", "Noto Sans Sora Sompeng"),
    ("NotoSansSoyombo-Regular.ttf", "Noto Sans Soyombo"),
    ("NotoSansSundanese-Regular.ttf", "Noto Sans Sundanese"),
    ("NotoSansSylotiNagri-Regular.ttf", "Noto Sans Syloti Nagri"),
    ("NotoSansSyriac-Regular.ttf", "Noto Sans Syriac"),
    ("NotoSansTagalog-Regular.ttf", "Noto Sans Tagalog"),
    ("NotoSansTagbanwa-Regular.ttf", "Noto Sans Tagbanwa"),
    ("NotoSansTaiLe-Regular.ttf", "Noto Sans Tai Le"),
    ("NotoSansTaiTham-Regular.ttf", "Noto Sans Tai Tham"),
    ("NotoSansTaiViet-Regular.ttf", "Noto Sans Tai Viet"),
    ("NotoSansTakri-Regular.ttf", "Noto Sans Takri"),
    ("NotoSansTamil-Regular.ttf", "Noto Sans Tamil"),
    ("NotoSansTelugu-Regular.ttf", "Noto Sans Telugu"),
    ("NotoSansThaana-Regular.ttf", "Noto Sans Thaana"),
    ("NotoSansThai-Regular.ttf", "Noto Sans Thai"),
    ("NotoSansTifinagh-Regular.ttf", "Noto Sans Tifinagh"),
    ("NotoSansTirhuta-Regular.ttf", "Noto Sans Tirhuta"),
    ("NotoSansUgaritic-Regular.ttf", "Noto Sans Ugaritic"),
    ("NotoSansVai-Regular.ttf", "Noto Sans Vai"),
    ("NotoSansWancho-Regular.ttf", "Noto Sans Wancho"),
    ("NotoSansWarangCiti-Regular.ttf", "Noto Sans Warang Citi"),
    ("NotoSansYi-Regular.ttf", "Noto Sans Yi"),
    ("NotoSansZanabazarSquare-Regular.ttf", "Noto Sans Zanabazar Square"),
    ("NotoSerifAhom-Regular.ttf", "Noto Serif Ahom"),
    ("NotoSerifDogra-Regular.ttf", "Noto Serif Dogra"),
    ("NotoSerifNyiakengPuachueHmong-Regular.ttf", "Noto Serif Hmong Nyiakeng"),
    ("NotoSerifTangut-Regular.ttf", "Noto Serif Tangut"),
    ("NotoSerifTibetan-Regular.ttf", "Noto Serif Tibetan"),
    ("NotoSerifYezidi-Regular.ttf", "Noto Serif Yezidi"),
)
FONT_FILES = BASE_FONT_FILES + tuple(f"{SCRIPT_FONT_FOLDER}/{name}" for name, _ in SCRIPT_FONTS)
# the families a glyph the named family lacks is looked for in: the base fonts in the order
# fontconfig gave them before the script fonts came, then the script fonts in name order;
# CONFIG holds them as :func:`fallback_families` reorders the script fonts (a font after
# those whose letters it borrows without their marks)
FALLBACK_FAMILIES = ("Symbola", "DejaVu Sans", "Noto Sans CJK JP",
                     *(family for _, family in SCRIPT_FONTS))
# Noto fonts that are not a script's: Latin/Greek/Cyrillic (CMU has them), symbols, math
_NOT_SCRIPT_FONTS = {"", "Display", "Mono", "Math", "Symbols", "Symbols2", "MayanNumerals",
                     "IndicSiyaqNumbers"}

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
    # a glyph the named family lacks comes from Symbola first (symbols, arrows, emoji), then
    # DejaVu Sans, CJK, and the script fonts: the order fixed, whatever the machine's scan
    lines += ['  <match target="pattern">', '    <edit name="family" mode="append_last">']
    lines += [f"      <string>{escape(family)}</string>" for family in fallback_families()]
    lines += ["    </edit>", "  </match>"]
    lines += ['  <match target="font">']
    lines += [f'    <edit name="{name}" mode="assign"><{kind}>{value}</{kind}></edit>'
              for name, kind, value in _RENDERING]
    lines += ["  </match>", "  <config><rescan><int>0</int></rescan></config>", "</fontconfig>", ""]
    return "\n".join(lines)


def _script_word(family: str) -> str:
    """The script a script font is named for, as Unicode names its letters' first word:
    "Noto Sans Tamil Supplement" -> "tamil"."""
    return family.split(" ", 2)[-1].split(" ")[0].lower()


def fallback_families(folder: str = SCRIPT_FONT_FOLDER) -> tuple[str, ...]:
    """:data:`FALLBACK_FAMILIES` with each script font after the fonts of the scripts it
    borrows letters from without their marks (Grantha holds Tamil letters and not Tamil's
    vowel signs: before Noto Sans Tamil it would draw a Tamil consonant apart from its
    vowel sign, on a dotted circle): a letter falls to a font that has its marks too. Reads every script font's cmap (for writing
    :data:`CONFIG` and its test, never for a film)."""
    import unicodedata

    scripts = [(name, family) for name, family in SCRIPT_FONTS
               if Path(folder, name).is_file()]
    own = {family: _script_word(family) for _, family in scripts}
    by_script: dict[str, str] = {}
    for _, family in scripts:
        by_script.setdefault(own[family], family)
    def script_of(c: int) -> str:
        return unicodedata.name(chr(c), " ").split(" ")[0].lower()

    cmaps = {family: glyphs_of(str(Path(folder, name))) for name, family in scripts}
    marks = {family: {c for c in cmap if unicodedata.category(chr(c))[0] == "M"}
             for family, cmap in cmaps.items()}
    # F borrows from G (G, the font of script S, comes first) where F has letters of S but
    # not every mark of S that G has: a letter drawn by F would lose its vowel sign to G
    lenders = {}
    for family, cmap in cmaps.items():
        borrowed = {script_of(c) for c in cmap if unicodedata.category(chr(c))[0] == "L"}
        lenders[family] = set()
        for script in borrowed - {own[family]}:
            lender = by_script.get(script)
            if lender is not None and lender != family and any(
                    script_of(c) == script for c in marks[lender] - marks[family]):
                lenders[family].add(lender)
    pending = [family for _, family in SCRIPT_FONTS]
    ordered: list[str] = []
    while pending:
        ready = next((f for f in pending
                      if all(g in ordered or g not in pending for g in lenders.get(f, ()))),
                     pending[0])        # a cycle of borrowing: the name order decides
        ordered.append(ready)
        pending.remove(ready)
    return (*FALLBACK_FAMILIES[:3], *ordered)


def missing_files() -> list[str]:
    """The base font files (:data:`BASE_FONT_FILES`) this machine lacks: without them no
    film is drawn. A script font missing refuses only the text that needs it
    (:func:`unprintable`, :func:`missing_script_fonts`)."""
    return [f for f in BASE_FONT_FILES if not Path(f).is_file()]


def missing_script_fonts() -> list[str]:
    """The families of :data:`SCRIPT_FONTS` whose file this machine lacks."""
    return [family for name, family in SCRIPT_FONTS
            if not Path(SCRIPT_FONT_FOLDER, name).is_file()]


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
    ours = {"CMU Serif", "Symbola", "DejaVu Sans", "Monospace", "Sans", "Serif", "System-ui",
            *(f"Noto Sans {kind}CJK {region}" for kind in ("", "Mono ")
              for region in ("SC", "TC", "JP", "KR", "HK")),
            *(family for _, family in SCRIPT_FONTS)}
    return bool(reached) and reached <= ours


# ---- which characters the film can draw -------------------------------------------------------
# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties): joiners, direction marks,
# variation selectors, tags. No font draws them and none need a glyph: Pango shapes with them.
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
              (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
              (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
              (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0000, 0xE0FFF))


def _needs_glyph(char: str) -> bool:
    import unicodedata

    code = ord(char)
    if any(low <= code <= high for low, high in _IGNORABLE):
        return False
    return unicodedata.category(char) not in ("Cc", "Zs", "Zl", "Zp")


@functools.lru_cache(maxsize=None)
def glyphs_of(path: str) -> frozenset[int]:
    """The characters the font file at ``path`` has a glyph for (its first face)."""
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, fontNumber=0, lazy=True).getBestCmap() or ())


@functools.lru_cache(maxsize=512)
def family_of_mark(mark: str) -> str | None:
    """The pinned script font that draws combining mark ``mark`` (by its script's name:
    a Devanagari vowel sign, Noto Sans Devanagari), where one has it; a mark set alone
    must be set in its script's font, or its run falls to another font and the mark is
    drawn on a dotted circle."""
    import unicodedata

    script = unicodedata.name(mark, "").split(" ")[0].lower()
    for name, family in SCRIPT_FONTS:
        path = Path(SCRIPT_FONT_FOLDER) / name
        if family.replace(" ", "").lower() in (f"notosans{script}", f"notoserif{script}") \
                and path.is_file() and ord(mark) in glyphs_of(str(path)):
            return family
    return None


def unprintable(text: str) -> list[str]:
    """The characters of ``text`` (each once, in order) that no font the film draws with
    has a glyph for, on this machine: what would be drawn as an empty box. Fonts are read
    smallest first and only until every character is found (a Latin sentence reads one)."""
    wanted = {c for c in text if _needs_glyph(c)}
    present = sorted((f for f in FONT_FILES if Path(f).is_file()),
                     key=lambda f: Path(f).stat().st_size)
    for path in present:
        if not wanted:
            break
        wanted -= {c for c in wanted if ord(c) in glyphs_of(path)}
    return [c for c in dict.fromkeys(text) if c in wanted]


def script_fonts_by_rule(folder: str = SCRIPT_FONT_FOLDER) -> tuple[tuple[str, str], ...]:
    """The rule :data:`SCRIPT_FONTS` was written by, run on the Noto fonts in ``folder``:
    every ``NotoSans<Script>-Regular`` then ``NotoSerif<Script>-Regular`` file in name order
    that has a letter or mark (Unicode L* or M*) neither the base fonts nor an earlier pick
    has. Reads every file: for the test and for a new fonts-noto-core, never for a film."""
    import re
    import unicodedata

    from fontTools.ttLib import TTFont

    covered = set().union(*(glyphs_of(f) for f in BASE_FONT_FILES if Path(f).is_file()))
    picked = []
    for style in ("Sans", "Serif"):
        for path in sorted(Path(folder).glob(f"Noto{style}*-Regular.ttf")):
            script = re.fullmatch(rf"Noto{style}(.*)-Regular\.ttf", path.name)
            if script is None or script.group(1) in _NOT_SCRIPT_FONTS:
                continue
            cmap = glyphs_of(str(path))
            if any(unicodedata.category(chr(c))[0] in "LM" for c in cmap - covered):
                names = TTFont(str(path), lazy=True)["name"]     # typographic family first
                family = names.getDebugName(16) or names.getDebugName(1)
                picked.append((path.name, family))
                covered |= cmap
    return tuple(picked)


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
