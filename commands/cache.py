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
    from ..app.beat_cache import cache_summary

    click.echo(cache_summary())


@command.command("clear")
def clear():
    """Empty the beat cache (the next render draws every beat afresh)."""
    from ..app.beat_cache import clear_cache

    click.echo(clear_cache())
