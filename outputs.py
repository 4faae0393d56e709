"""The user's files: output names, checks before writing, and atomic writes.

Nothing here draws; the command line and the rendering pipeline both write through it.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import unicodedata
from pathlib import Path

from .attention_core.errors import InputError


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
