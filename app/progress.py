"""What a face needs to show a render's progress: the protocol a render reports to
(``RenderProgress``: each beat started, drawn or taken from the cache), a beat's typical
share of a film's time, and a duration in words."""
from __future__ import annotations

from ..scenes.pipeline.estimate import beat_weight, spoken_seconds
from ..scenes.pipeline.render import RenderProgress

__all__ = ["RenderProgress", "beat_weight", "spoken_seconds"]
