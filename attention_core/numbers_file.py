"""A film's numbers as a file, for the films whose views are not an AttentionTrace (a
translation's, a decoder's writing): the JSON sidecar the film is written with, and the
hash the beat cache keys its beats by."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

__all__ = ["numbers_fingerprint", "save_json"]


def numbers_fingerprint(storyboard: str, sentence: str, numbers: dict) -> str:
    """A hash of a film's storyboard, sentence and numbers (every float as Python writes
    it back exactly)."""
    text = json.dumps([storyboard, sentence, numbers], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def save_json(path, numbers: dict) -> None:
    """``numbers`` written to ``path`` as indented UTF-8 JSON."""
    Path(path).write_text(json.dumps(numbers, ensure_ascii=False, indent=2) + "\n",
                          encoding="utf-8")
