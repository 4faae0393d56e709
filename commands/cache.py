"""`attention-explainer cache info|clear`: the beat cache, where it is, what it holds, and
emptying it."""
from __future__ import annotations

import click

__all__ = ["command"]


@click.group("cache")
def command():
    """The beat cache: rendered beats kept for the next render ($XDG_CACHE_HOME/attention-explainer)."""


@command.command("info")
def info():
    """Print where the beat cache is, its entries and its size."""
    from ..scenes.pipeline.beat_cache import CAP_ENV, BeatCache

    beat_cache = BeatCache()
    entries = beat_cache.entries()
    cap = f"cap {beat_cache.cap_bytes / 1e9:.1f} GB" if beat_cache.cap_bytes else \
        f"off: {CAP_ENV}=0"
    click.echo(f"{beat_cache.folder}: {len(entries)} beats, "
               f"{beat_cache.size() / 1e6:.1f} MB ({cap})")


@command.command("clear")
def clear():
    """Empty the beat cache (the next render draws every beat afresh)."""
    from ..scenes.pipeline.beat_cache import BeatCache

    beat_cache = BeatCache()
    removed, freed = beat_cache.clear()
    click.echo(f"removed {removed} cached beats ({freed / 1e6:.1f} MB) from {beat_cache.folder}")
