"""The beat cache: rendered beat segments kept between renders, found by what they show.

A beat entry is a folder named by the hash of everything that changes the beat's pixels (the
trace's bytes, the beat, whether it hands off, size, fps, theme, encoder settings, the
package version and a hash of the scenes' source): the segment MP4, its frames kept raw
(key frame, last frame) and a ``segment.json`` of times, captions and numbers shown.

Safe under two renders at once and under a kill: a worker builds an entry in a private
folder (holding its lock) and renames it into place in one step, so a half-written entry
never has a key's name. A rename that loses the race drops its copy. Least recently used
entries go when the cache grows over its cap (a hit touches the entry's folder).

Beside the beats, ``texts/`` keeps every text and formula built (``text.keep_texts_in``):
a text is shaped and parsed once per machine, not once per process.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from ..attention_core import __version__

APP = "attention-explainer"
SCHEMA = 1                        # bump when an entry's layout changes
DEFAULT_CAP_BYTES = 2 * 1024**3   # 2 GiB: a few dozen 1080p films
BUILDING = ".building-"           # private folders of entries being written
MANIFEST = "segment.json"         # written last into an entry: its presence means complete


def default_folder() -> Path:
    """``$XDG_CACHE_HOME/attention-explainer`` (``~/.cache/attention-explainer``)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP, appauthor=False))


def default_cap() -> int:
    """$ATTENTION_EXPLAINER_CACHE_MB megabytes, else 2 GiB."""
    value = os.environ.get("ATTENTION_EXPLAINER_CACHE_MB", "")
    try:
        return int(float(value) * 1e6) if value else DEFAULT_CAP_BYTES
    except ValueError:
        from ..attention_core.errors import InputError
        raise InputError(f"ATTENTION_EXPLAINER_CACHE_MB={value!r} is not a number of "
                         "megabytes; set it to e.g. 2000, or unset it.") from None


@lru_cache(maxsize=1)
def scenes_source_hash() -> str:
    """A hash of every source file that draws (the scenes package): a change to any of
    them may change pixels, so it changes every key."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def entry_key(**parts) -> str:
    """The key of an entry: a hash of ``parts`` (JSON-able), the package version, the
    scenes' source hash, manim's and PyAV's versions and the cache schema."""
    import av
    import manim

    payload = dict(parts, schema=SCHEMA, version=__version__, scenes=scenes_source_hash(),
                   manim=manim.__version__, av=av.__version__)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


class BeatCache:
    """The cache folder (``default_folder()`` unless given), capped at ``cap_bytes``."""

    def __init__(self, folder: Path | None = None, cap_bytes: int | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.cap_bytes = cap_bytes if cap_bytes is not None else default_cap()

    def __repr__(self) -> str:
        return f"BeatCache({str(self.folder)!r})"

    @property
    def texts(self) -> Path:
        return self.folder / "texts"

    def entry(self, key: str) -> Path:
        return self.folder / "beats" / key

    def get(self, key: str) -> Path | None:
        """The complete entry for ``key`` (touched: recently used), or None."""
        entry = self.entry(key)
        if not (entry / MANIFEST).is_file():
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)
        return entry

    @contextlib.contextmanager
    def building(self, key: str):
        """A private folder to build the entry for ``key`` in; on a clean exit it becomes
        the entry in one rename (or is dropped if another render got there first); on an
        error it is removed. Killed outright, it stays private until swept."""
        from ..outputs import _try_lock

        beats = self.folder / "beats"
        beats.mkdir(parents=True, exist_ok=True)
        private = Path(tempfile.mkdtemp(prefix=f"{BUILDING}{key[:12]}-", dir=beats))
        lock = _try_lock(private / ".lock")
        try:
            yield private
            if not (private / MANIFEST).is_file():
                raise RuntimeError(f"cache entry {key} was built without its {MANIFEST}")
            (private / ".lock").unlink()
            try:
                os.rename(private, self.entry(key))
            except OSError:           # another render renamed its copy first: same content
                shutil.rmtree(private, ignore_errors=True)
        except BaseException:
            shutil.rmtree(private, ignore_errors=True)
            raise
        finally:
            if lock is not None:
                os.close(lock)
        self.trim()

    def entries(self) -> list[Path]:
        beats = self.folder / "beats"
        if not beats.is_dir():
            return []
        return [p for p in beats.iterdir() if p.is_dir() and not p.name.startswith(".")]

    def text_files(self) -> list[Path]:
        return list(self.texts.glob("*/*.pickle")) if self.texts.is_dir() else []

    def size(self) -> int:
        return sum(size for _, size, _ in self._items())

    def _items(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, path) of every beat entry and kept text."""
        items = [(_mtime(p), _folder_bytes(p), p) for p in self.entries()]
        for path in self.text_files():
            with contextlib.suppress(OSError):
                stat = path.stat()
                items.append((stat.st_mtime, stat.st_size, path))
        return items

    def trim(self) -> int:
        """Remove least recently used beats and texts until the cache fits its cap, and
        private folders that killed renders left (their lock is free). Returns how many
        were removed."""
        self.sweep()
        items = sorted(self._items(), key=lambda item: item[0])
        total = sum(size for _, size, _ in items)
        removed = 0
        for _, size, path in items:
            if total <= self.cap_bytes:
                break
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
            total -= size
            removed += 1
        return removed

    def sweep(self) -> int:
        """Remove the private folders of builds that were killed (their lock is free)."""
        from ..outputs import _try_lock

        beats = self.folder / "beats"
        removed = 0
        if not beats.is_dir():
            return 0
        for path in beats.glob(f"{BUILDING}*"):
            fd = _try_lock(path / ".lock") if path.is_dir() else None
            if fd is None:
                continue
            shutil.rmtree(path, ignore_errors=True)
            os.close(fd)
            removed += 1
        return removed

    def clear(self) -> tuple[int, int]:
        """Empty the cache: beats and texts (entries being built by a running render
        stay). Returns (beats removed, bytes freed)."""
        entries = self.entries()
        freed = self.size()
        for path in entries:
            shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree(self.texts, ignore_errors=True)
        self.sweep()
        return len(entries), freed


def _folder_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            total += path.stat().st_size if path.is_file() else 0
    return total


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()
