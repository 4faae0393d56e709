"""Texts and formulas kept between processes, in the beat cache's ``texts/`` folder: a
worker or a later render loads a built text instead of shaping and parsing it again
(``vocabulary.text.keep_texts_in`` takes a store like this one).

A file is named by the text's key, manim's version and the hash of all the drawing's
source (a text depends on the style, the fonts' configuration and the code that builds it,
not on one file alone). Unpickling runs code, so a file is unpickled only if it is a
regular file of ours that nobody else can write (never through a symlink: another user's
planted pickle would run as us) and its payload has the sha256 its header says. A file is
only ever complete (written whole, then renamed into place); one that fails any of this is
a miss, never a failure (``cache_files.KeptFiles``).
"""
from __future__ import annotations

import pickle
from pathlib import Path

from ..vocabulary.fastcopy import copy_mobject
from .cache_files import HEADER, KeptFiles
from .sources import scenes_source_hash

__all__ = ["HEADER", "TextStore"]


class TextStore(KeptFiles):
    """Built texts kept under ``folder``, one file each."""

    def file(self, key) -> Path:
        """Where the text for ``key`` is kept."""
        import manim

        return self.path_for(repr((key, manim.__version__, scenes_source_hash())))

    def load(self, key):
        """The text kept for ``key``, or None."""
        payload = self.read(self.file(key))
        if payload is None:
            return None
        try:
            return pickle.loads(payload)
        except Exception:  # noqa: BLE001 - a damaged file is a miss, never a failure
            return None

    def keep(self, key, made) -> None:
        """Keep ``made`` for ``key``: its pickle (the parsed SVG path, only read while
        building, left out)."""
        kept = made
        if any(getattr(part, "path_obj", None) is not None for part in made.get_family()):
            kept = copy_mobject(made)
            for part in kept.get_family():
                if hasattr(part, "path_obj"):
                    part.path_obj = None
        try:
            payload = pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a text that does not pickle is built next time
            return
        self.write(self.file(key), payload)
