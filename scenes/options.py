"""Render options checked before anything heavy runs (no manim import here)."""
from __future__ import annotations

import hashlib
import os
import tempfile
import re
import unicodedata
from pathlib import Path

from attention_core.errors import InputError

RESOLUTIONS = {
    "480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080),
    "1440p": (2560, 1440), "4k": (3840, 2160),
}
RESOLUTION_HELP = "use 480p, 720p, 1080p, 1440p, 4k or WxH with even sizes from 64x36 to 7680x4320"
BEAT_NAMES = ("title", "embed", "project", "sparks", "softmax", "pull", "heads", "mask", "summary")
FPS_RANGE = (1, 120)


def parse_resolution(spec: str) -> tuple[int, int, str]:
    """(width, height, label) from '1080p', '4K' or 'WxH'; H.264 needs even sizes."""
    text = (spec or "1080p").strip().lower()
    if text in RESOLUTIONS:
        return (*RESOLUTIONS[text], text)
    match = re.fullmatch(r"(\d+)x(\d+)", text)
    if not match:
        raise InputError(f"--resolution {spec!r} is unknown; {RESOLUTION_HELP}.")
    width, height = int(match.group(1)), int(match.group(2))
    if width % 2 or height % 2:
        raise InputError(f"--resolution {spec} has an odd size (H.264 needs even width and "
                         f"height); {RESOLUTION_HELP}.")
    if not (64 <= width <= 7680 and 36 <= height <= 4320):
        raise InputError(f"--resolution {spec} is out of range; {RESOLUTION_HELP}.")
    return width, height, f"{width}x{height}"


def check_fps(fps: int) -> int:
    if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise InputError(f"--fps {fps} is out of range; use {FPS_RANGE[0]} to {FPS_RANGE[1]} "
                         "(30 is usual, 60 for smooth motion).")
    return fps


def parse_beats(spec: str | None) -> list[str]:
    """Beat names in storyboard order; 'all' (or nothing) means every beat."""
    text = (spec or "all").strip().lower()
    if text == "all":
        return list(BEAT_NAMES)
    names = [b.strip() for b in text.split(",") if b.strip()]
    unknown = [b for b in names if b not in BEAT_NAMES]
    if unknown or not names:
        raise InputError(f"--beats: {unknown[0] if unknown else spec!r} is not a beat; choose from "
                         f"{', '.join(BEAT_NAMES)} (comma-separated) or all.")
    return [b for b in BEAT_NAMES if b in names]


def slugify(sentence: str, max_length: int = 48) -> str:
    """A file-name-safe slug: ASCII letters, digits and hyphens only, never a path."""
    ascii_text = unicodedata.normalize("NFKD", sentence).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:max_length].strip("-")
    if len(slug) < 3:   # e.g. a Chinese sentence: name it by a short hash of the text
        slug = "sentence-" + hashlib.sha256(sentence.encode("utf-8", "replace")).hexdigest()[:8]
    return slug


def check_output(path: Path, force: bool) -> Path:
    """The output path, absolute; refuse to overwrite without --force or write where we can't."""
    path = Path(path).expanduser().absolute()
    if path.is_dir():
        raise InputError(f"output {str(path)!r} is a folder; give a file name ending in .mp4.")
    if path.exists() and not force:
        raise InputError(f"{path} already exists; pass --force to overwrite it or choose "
                         "another name with -o.")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output folder {folder} ({exc.strerror}); "
                         "choose a writable place with -o.") from exc
    try:   # a real probe: os.access says yes to root even on read-only mounts
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as exc:
        raise InputError(f"the output folder {folder} is not writable ({exc.strerror}); "
                         "choose a writable place with -o.") from exc
    return path


def temp_beside(final: Path) -> Path:
    """An empty temporary file in the output folder (same file system: atomic rename),
    with the mode a normally created file would get (mkstemp makes 0600 files)."""
    fd, name = tempfile.mkstemp(prefix=f".{final.stem}.", suffix=f".part{final.suffix}",
                                dir=final.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(name, 0o666 & ~umask)
    return Path(name)
