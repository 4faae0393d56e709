"""The beat cache as the user sees it (`cache info`, `cache clear`): where it is, what it
holds, and emptying it."""
from __future__ import annotations

__all__ = ["cache_summary", "clear_cache"]


def cache_summary() -> str:
    """Where the beat cache is, its entries, its size and its cap, in one line."""
    from ..scenes.pipeline.beat_cache import CAP_ENV, BeatCache

    beat_cache = BeatCache()
    entries = beat_cache.entries()
    cap = f"cap {beat_cache.cap_bytes / 1e9:.1f} GB" if beat_cache.cap_bytes else \
        f"off: {CAP_ENV}=0"
    return f"{beat_cache.folder}: {len(entries)} beats, {beat_cache.size() / 1e6:.1f} MB ({cap})"


def clear_cache() -> str:
    """Empty the beat cache; what was removed, in one line."""
    from ..scenes.pipeline.beat_cache import BeatCache

    beat_cache = BeatCache()
    removed, freed = beat_cache.clear()
    return f"removed {removed} cached beats ({freed / 1e6:.1f} MB) from {beat_cache.folder}"
