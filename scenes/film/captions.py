"""Captions (.srt): one at a time, each on screen as long as the steps it explains.

Manim writes ``play(..., subcaption=...)`` and ``add_subcaption`` into the .srt beside the
video. A beat's captions are tidied once, when the beat ends (``FilmScene.run_beat``).
"""
from __future__ import annotations

import datetime

from ..vocabulary import style

__all__ = ["caption_count", "hold_captions", "separate_captions"]


def caption_count(scene) -> int:
    """How many captions the scene has so far (a beat's first caption index)."""
    return len(scene.renderer.file_writer.subcaptions)


def hold_captions(scene, first: int) -> None:
    """Keep each caption added since ``first`` on screen until the next one starts, the last
    until now, when the stage starts to clear: the beat's chapter ends here (the hand-off
    belongs to the next beat's chapter, and the film ends at the last beat's hold), so
    captions and chapter marks agree and none outlasts the film. Only lengthens."""
    subs = scene.renderer.file_writer.subcaptions[first:]
    last_end = scene.renderer.time
    for a, b in zip(subs, [*subs[1:], None]):
        end = (b.start.total_seconds() - style.CAPTION_GAP) if b is not None else last_end
        if end > a.end.total_seconds():
            a.end = datetime.timedelta(seconds=end)


def separate_captions(scene, first: int) -> None:
    """Captions since ``first`` never overlap: each ends just before the next begins (a
    reader sees one caption at a time)."""
    subs = sorted(scene.renderer.file_writer.subcaptions[first:], key=lambda c: c.start)
    for current, following in zip(subs, subs[1:]):
        limit = following.start - datetime.timedelta(seconds=style.CAPTION_GAP)
        if current.end > limit:
            current.end = max(limit, current.start + datetime.timedelta(seconds=0.3))
