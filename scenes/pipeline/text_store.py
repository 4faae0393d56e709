"""Texts and formulas kept between processes, in the beat cache's ``texts/`` folder: a
worker or a later render loads a built text instead of shaping and parsing it again
(``vocabulary.text.keep_texts_in`` takes a store like this one).

A file is named by the text's key, manim's version and the hash of all the drawing's
source (a text depends on the style, the fonts' configuration and the code that builds it,
not on one file alone). Unpickling runs code, so a file is unpickled only if it is a
regular file of ours that nobody else can write (never through a symlink: another user's
planted pickle would run as us) and its payload has the sha256 its header says. A file is
only ever complete (written whole, then renamed into place); one that fails any of this is
a miss, never a failure.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from ..vocabulary.fastcopy import copy_mobject
from .cache_files import Damaged, read_private
from .sources import scenes_source_hash

__all__ = ["HEADER", "TextStore"]

HEADER = b"attention-explainer text sha256="    # then the payload's hex digest and "\n"


class TextStore:
    """Built texts kept under ``folder``, one file each."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)

    def file(self, key) -> Path:
        """Where the text for ``key`` is kept."""
        import manim

        name = repr((key, manim.__version__, scenes_source_hash()))
        digest = hashlib.sha256(name.encode()).hexdigest()
        return self.folder / digest[:2] / f"{digest[2:32]}.pickle"

    def load(self, key):
        """The text kept for ``key``, or None."""
        try:
            data = read_private(self.file(key))    # touched: the cache's trim keeps it
        except (OSError, Damaged):
            return None
        header, _, payload = data.partition(b"\n")
        if header != HEADER + hashlib.sha256(payload).hexdigest().encode():
            return None
        try:
            return pickle.loads(payload)
        except Exception:  # noqa: BLE001 - a damaged file is a miss, never a failure
            return None

    def keep(self, key, made) -> None:
        """Keep ``made`` for ``key``: its pickle under a header of its sha256, readable and
        writable by us alone (mkstemp), renamed into place whole."""
        path = self.file(key)
        kept = made
        if any(getattr(part, "path_obj", None) is not None for part in made.get_family()):
            kept = copy_mobject(made)      # the parsed SVG path: only read while building
            for part in kept.get_family():
                if hasattr(part, "path_obj"):
                    part.path_obj = None
        temporary = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".part")
            payload = pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(fd, "wb") as out:
                out.write(HEADER + hashlib.sha256(payload).hexdigest().encode() + b"\n")
                out.write(payload)
            os.replace(temporary, path)
        except Exception:  # noqa: BLE001 - a full, read-only or odd cache: build next time
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
