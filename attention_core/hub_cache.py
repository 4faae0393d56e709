"""A model named as every transformers user names it — its Hugging Face hub id (``gpt2``,
``Qwen/Qwen3-0.6B``, ``gpt2@main`` or ``@<commit>``) — read from the local hub cache, never
fetched: ``huggingface_hub`` resolves the id offline (``local_files_only``) in the cache
it would download into (``HF_HUB_CACHE``, else ``HF_HOME``/hub, else
``~/.cache/huggingface/hub``), and the snapshot it finds is then read as any model folder
is (safetensors only, no remote code, sizes checked, every file inside the snapshot or its
model's blobs once links are resolved)."""
from __future__ import annotations

import re
from pathlib import Path

from .errors import InputError

__all__ = ["HUB_ID", "cached_snapshot", "is_hub_id", "model_folder"]

# owner/name or name, each as the hub allows them, and an optional @revision
HUB_ID = re.compile(r"(?:[A-Za-z0-9][\w.-]{0,95}/)?[A-Za-z0-9][\w.-]{0,95}(?:@[\w./-]{1,200})?")


def is_hub_id(model: str) -> bool:
    """Whether ``model`` is written as a hub id (``gpt2``, ``org/name@rev``): at most one
    separator, no ``..``, no leading dot or ~ (a path written otherwise is a path)."""
    return bool(HUB_ID.fullmatch(model)) and ".." not in model


def cached_snapshot(model: str) -> Path:
    """The snapshot folder of hub id ``model`` in the local cache; an InputError (one line,
    with the command that fetches it) where the cache has none, and where the snapshot
    lies outside its model's folder in the cache (a link out of the cache)."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    repo, _, revision = model.partition("@")
    cache = Path(constants.HF_HUB_CACHE)
    fetch = f"hf download {repo}" + (f" --revision {revision}" if revision else "")
    try:
        folder = Path(snapshot_download(repo, revision=revision or None, cache_dir=cache,
                                        local_files_only=True))
    except (LocalEntryNotFoundError, FileNotFoundError, ValueError, OSError):
        raise InputError(f"--model {model!r} is not in the local Hugging Face cache ({cache}) "
                         f"and nothing is downloaded here; fetch it once with `{fetch}`, or "
                         "give minilm, scratch or a model folder.") from None
    home = (cache / ("models--" + repo.replace("/", "--"))).resolve()
    if not folder.resolve().is_relative_to(home):
        raise InputError(f"--model {model!r}: its snapshot in the Hugging Face cache links "
                         f"outside the cache ({folder.resolve()}); fetch it again with "
                         f"`{fetch} --force-download`.")
    return folder


def model_folder(model: str) -> Path | None:
    """The folder ``model`` names: a path as given (None where nothing is there), else a hub
    id's snapshot in the local cache (:func:`cached_snapshot`)."""
    path = Path(model).expanduser()
    if path.exists() or not is_hub_id(model):
        return path if path.exists() else None
    return cached_snapshot(model)
