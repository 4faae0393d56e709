"""Where the program keeps its own files: the beat cache's folder. Here, below the drawing,
because an output set refuses to be written inside it and the cache keeps its entries
there."""
from __future__ import annotations

from pathlib import Path

__all__ = ["APP", "default_cache_folder"]

APP = "attention-explainer"


def default_cache_folder() -> Path:
    """``$XDG_CACHE_HOME/attention-explainer`` (``~/.cache/attention-explainer``)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP, appauthor=False))
