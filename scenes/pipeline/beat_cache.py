"""The beat cache: rendered beat segments kept between renders, found by what they show.

A beat entry is a folder named by the hash of everything that changes the beat's pixels (the
trace's bytes, the beat, whether it hands off, size, fps, theme, encoder settings, the
package version and a hash of every source file the drawing imports, ``sources``): the
segment MP4, its key frame kept raw and a ``segment.json`` of times, captions, numbers
shown and the size and sha256 of the other two files.

Safe under two renders at once and under a kill: a worker builds an entry in a private
folder (holding its lock) and renames it into place in one step, so a half-written entry
never has a key's name. A rename that loses the race drops its copy. Least recently used
entries go when the cache grows over its cap (a hit touches the entry's folder).

Never trusted: an entry is used only when it checks out whole (``cache_files``); a damaged
or foreign one is discarded (moved aside and removed, a symlink itself, never what it
points to) and the beat drawn again. When another user's entry holds the key's name and
cannot be removed, ours goes under the name :func:`own_name` gives beside it.

Beside the beats, ``texts/`` keeps every text and formula built (``text_store.TextStore``):
a text is shaped and parsed once per machine, not once per process; and ``traces/`` every
trace of the bundled model computed (``trace_store.TraceStore``): the model runs once per
machine for a request, not once per command.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...attention_core import __version__
from ...attention_core.errors import NoSpaceLeft
from ...files.locks import try_lock
from ...files.places import APP, default_cache_folder
from .cache_files import MANIFEST, Damaged, check_entry, remove
from .sources import scenes_source_hash

__all__ = [
    "APP", "BUILDING", "BeatCache", "CAP_ENV", "DEFAULT_CAP_BYTES", "DISCARDED",
    "ENTRY_NAME", "Found", "KEPT", "MANIFEST", "MAX_CAP_MB", "SCHEMA", "cache_enabled",
    "default_cap", "default_folder", "entry_key", "own_name",
]

SCHEMA = 2                        # bump when an entry's layout changes
DEFAULT_CAP_BYTES = 2 * 1024**3   # 2 GiB: a few dozen 1080p films
BUILDING = ".building-"           # private folders of entries being written
DISCARDED = ".discarded-"        # damaged entries moved aside, being removed
SETTLED_S = 60                   # a private folder without a lock this long is a dead build's
LOCK_TRIES = 8                   # new private folders tried while sweeps take their locks
# what is ours in the cache folder, by name: an entry (a key, or a key and the uid of the
# user it was built for) and a kept text (text.py's names); nothing else is ever removed
ENTRY_NAME = re.compile(r"[0-9a-f]{40}(~[0-9]+)?")
TEXT_FOLDER, TEXT_FILE = re.compile(r"[0-9a-f]{2}"), re.compile(r"[0-9a-f]{30}\.pickle")
TRACE_FILE = re.compile(r"[0-9a-f]{30}\.npz")
KEPT = {"texts": TEXT_FILE, "traces": TRACE_FILE}   # the folders of kept files, their names


default_folder = default_cache_folder      # the cache's own name for where it lives


CAP_ENV = "ATTENTION_EXPLAINER_CACHE_MB"
MAX_CAP_MB = 10 ** 9                 # a petabyte: anything larger is a typo


def default_cap() -> int:
    """$ATTENTION_EXPLAINER_CACHE_MB megabytes (a whole number from 0, which turns the
    cache off, to :data:`MAX_CAP_MB`), else 2 GiB. Raises InputError naming the variable."""
    value = os.environ.get(CAP_ENV, "").strip()
    if not value:
        return DEFAULT_CAP_BYTES
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_CAP_MB:
        from ...attention_core.errors import InputError
        raise InputError(f"{CAP_ENV}={value!r} is not a whole number of megabytes from 0 "
                         f"to {MAX_CAP_MB}; set it to e.g. 2000 (0 turns the beat cache off), "
                         "or unset it.")
    return int(value) * 1_000_000


def cache_enabled() -> bool:
    """False when $ATTENTION_EXPLAINER_CACHE_MB is 0 (checked: raises InputError)."""
    return default_cap() > 0


def entry_key(**parts) -> str:
    """The key of an entry: a hash of ``parts`` (JSON-able), the package version, the
    scenes' source hash, manim's and PyAV's versions and the cache schema."""
    import av
    import manim

    payload = dict(parts, schema=SCHEMA, version=__version__, scenes=scenes_source_hash(),
                   manim=manim.__version__, av=av.__version__)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def own_name(key: str) -> str:
    """The name of our entry for ``key`` when another user's entry, which we cannot
    remove, holds the key's own name (a shared cache folder)."""
    return f"{key}~{os.getuid()}"


@dataclass
class Found:
    """What a look-up found: the entry's folder and manifest, checked; or nothing, and
    why the entry that held the key's name was not used (None: there was none)."""

    folder: Path | None = None
    manifest: dict | None = None
    discarded: str | None = None


class BeatCache:
    """The cache folder (``default_folder()`` unless given), capped at ``cap_bytes``."""

    def __init__(self, folder: Path | None = None, cap_bytes: int | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.cap_bytes = cap_bytes if cap_bytes is not None else default_cap()
        self.placed: dict[str, Path] = {}      # key -> where its build here ended up

    def __repr__(self) -> str:
        return f"BeatCache({str(self.folder)!r})"

    def unusable(self) -> str | None:
        """Why the cache's folder cannot hold entries (it cannot be made, is not a folder,
        or takes no file), or None. Made if missing; a probe file is written and removed."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if not self.folder.is_dir():
                return "not a folder"
            fd, probe = tempfile.mkstemp(dir=self.folder, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        return None

    @property
    def texts(self) -> Path:
        return self.folder / "texts"

    @property
    def traces(self) -> Path:
        return self.folder / "traces"

    def entry(self, key: str) -> Path:
        return self.folder / "beats" / key

    def get(self, key: str) -> Path | None:
        """The folder of the entry for ``key`` once it checks out whole, or None."""
        return self.lookup(key).folder

    def holds(self, key: str) -> bool:
        """Whether an entry for ``key`` is there, as an estimate asks: nothing is checked,
        touched or discarded (:meth:`lookup` does that when the beat is wanted)."""
        for name in (key, own_name(key)):
            try:
                if stat.S_ISDIR(os.lstat(self.entry(name)).st_mode):
                    return True
            except OSError:
                continue
        return False

    def lookup(self, key: str) -> Found:
        """The entry for ``key`` once it checks out whole (touched: recently used). A
        damaged one is discarded and said in ``discarded``; when it is not ours to
        remove, our own entry beside it (:func:`own_name`) is looked for."""
        found = Found()
        for name in (key, own_name(key)):
            folder = self.entry(name)
            try:
                seen = os.lstat(folder)
            except FileNotFoundError:
                continue
            except OSError as exc:
                seen, damage = None, Damaged(f"unreadable ({exc.strerror})")
            else:
                try:
                    return Found(folder, check_entry(folder))
                except FileNotFoundError:        # removed since the lstat: a miss
                    continue
                except (Damaged, OSError) as exc:
                    damage = exc if isinstance(exc, Damaged) else \
                        Damaged(f"unreadable ({exc.strerror})")
            removed = self.discard(folder, seen)
            if name == key:
                found.discarded = f"damaged ({damage}); " + ("discarded" if removed
                                                             else "ignored")
            if removed:
                break
        return found

    def discard(self, folder: Path, seen: os.stat_result | None) -> bool:
        """Move the damaged entry ``seen`` (its lstat) at ``folder`` aside, then remove
        it (a symlink itself, never what it points to). True when it no longer holds the
        name; False when it is not ours to move. Moving first, and comparing what was
        moved, keeps a good entry that another render put there meanwhile."""
        if seen is None:
            return False
        aside = folder.parent / f"{DISCARDED}{secrets.token_hex(8)}"
        try:
            os.rename(folder, aside)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        moved = os.lstat(aside)
        if (moved.st_dev, moved.st_ino) != (seen.st_dev, seen.st_ino):
            with contextlib.suppress(OSError):
                os.rename(aside, folder)      # not the one we saw: give its name back
                return True
        remove(aside)
        return True

    @contextlib.contextmanager
    def building(self, key: str, fallback: Path | None = None):
        """A private folder to build the entry for ``key`` in; on a clean exit it becomes
        the entry in one rename (or is dropped if another render's entry got there
        first), and ``placed[key]`` says where. When other users' entries hold both of
        its names, it moves to ``fallback`` to be served from there, this render only.
        On an error it is removed. Killed outright, it stays private until swept."""
        private, lock = self._private_folder(key)
        try:
            try:
                yield private
                if not (private / MANIFEST).is_file():
                    raise RuntimeError(f"cache entry {key} was built without its {MANIFEST}")
                (private / ".lock").unlink()
                placed = self._place(private, key)
            except OSError as exc:      # the beat is drawn inside the cache: it is full
                if not NoSpaceLeft.matches(exc):
                    raise
                placed = exc
            if isinstance(placed, OSError):  # raised without its context (see assemble_task)
                raise NoSpaceLeft.on(self.folder, "the beat cache",
                                     f"or render without it ({CAP_ENV}=0)")
            self.placed[key] = placed or _moved(private, fallback)
        except BaseException:
            remove(private)
            raise
        finally:
            if lock is not None:
                os.close(lock)
        self.trim()

    def _private_folder(self, key: str) -> tuple[Path, int]:
        """A new private folder and the lock on it, held. Between the folder's making and
        its lock another render's :meth:`sweep` may take the lock and remove the folder
        (a render drew into a folder swept from under it: "manim wrote no video"): a
        folder whose lock we did not get is left to that sweep, and we make another."""
        beats = self.folder / "beats"
        for _ in range(LOCK_TRIES):
            beats.mkdir(parents=True, exist_ok=True)
            private = Path(tempfile.mkdtemp(prefix=f"{BUILDING}{key[:12]}-", dir=beats))
            try:
                lock = try_lock(private / ".lock")
            except FileNotFoundError:           # swept already
                lock = None
            if lock is not None:
                return private, lock
        raise RuntimeError(f"could not lock a private folder in {beats}; render without the "
                           f"beat cache ({CAP_ENV}=0)")

    def _place(self, private: Path, key: str) -> Path | None:
        """Rename the complete build ``private`` to the key's name, or to our own name
        beside another user's entry there; the folder that holds the key's entry now
        (another render's, if it won the race), or None."""
        for name in (key, own_name(key)):
            target = self.entry(name)
            for _ in range(3):
                try:
                    os.rename(private, target)
                    return target
                except OSError:
                    pass                      # the name is taken
                seen = None
                try:
                    seen = os.lstat(target)
                    check_entry(target)
                except FileNotFoundError:
                    continue                  # gone meanwhile: rename again
                except (Damaged, OSError):
                    if not self.discard(target, seen):
                        break                 # another user's: try our own name
                    continue
                remove(private)               # another render's, of the same beat
                return target
        return None

    def _children(self) -> list[Path]:
        beats = self.folder / "beats"
        return list(beats.iterdir()) if beats.is_dir() else []

    def entries(self) -> list[Path]:
        """Every beat entry: a real folder (a symlink is none: never followed) with an
        entry's name. Anything else someone put there is not ours and is left alone."""
        return [p for p in self._children() if ENTRY_NAME.fullmatch(p.name) and _is_folder(p)]

    def kept_files(self) -> list[Path]:
        """Every kept text and trace, by its name, never looked for through a symlink."""
        return [path for kind, name in KEPT.items() if _is_folder(self.folder / kind)
                for folder in (self.folder / kind).iterdir()
                if TEXT_FOLDER.fullmatch(folder.name) and _is_folder(folder)
                for path in folder.iterdir()
                if name.fullmatch(path.name) and not _is_folder(path)]

    def size(self) -> int:
        return sum(size for _, size, _ in self._items())

    def _items(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, path) of every beat entry and kept text."""
        items = [(_mtime(p), _folder_bytes(p), p) for p in self.entries()]
        for path in self.kept_files():
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                items.append((info.st_mtime, info.st_size, path))
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
            remove(path)
            total -= size
            removed += 1
        return removed

    def sweep(self) -> int:
        """Remove the private folders of our builds that were killed (their lock is
        free), entries discarded a minute ago or more (a discard in progress keeps its
        own), and anything not a folder that took a builder's name (a symlink itself)."""
        removed = 0
        for path in self._children():
            if path.name.startswith(DISCARDED):
                with contextlib.suppress(OSError):
                    if time.time() - os.lstat(path).st_ctime > 60:
                        removed += remove(path)
                continue
            if not path.name.startswith(BUILDING):
                continue
            if not _is_folder(path):
                removed += remove(path)       # a symlink or a file: nobody's build
                continue
            if not _owned(path) or os.path.islink(path / ".lock"):
                continue                      # another user's, to sweep; or not a lock
            try:        # never a lock file of our own making: its render may be about to
                fd = try_lock(path / ".lock", create=False)     # lock it, or has unlinked
            except FileNotFoundError:                       # it to rename the folder
                if _settled(path):            # ... unless it died doing so
                    shutil.rmtree(path, ignore_errors=True)
                    removed += 1
                continue
            if fd is None:
                continue
            shutil.rmtree(path, ignore_errors=True)
            os.close(fd)
            removed += 1
        return removed

    def clear(self) -> tuple[int, int]:
        """Empty the cache of what is ours: beat entries, whatever took an entry's name (a
        symlink itself, never its target) and kept texts and traces; entries being built by a running
        render stay, and so does anything else (a folder someone put there). Returns
        (beats removed, bytes freed)."""
        entries = self.entries()
        freed = self.size()
        for path in self._children():
            if ENTRY_NAME.fullmatch(path.name):
                remove(path)
        for path in self.kept_files():
            remove(path)
        for kept in (self.folder / kind for kind in KEPT):
            if os.path.islink(kept):
                remove(kept)                  # the link itself, never what it points to
            elif _is_folder(kept):
                for folder in kept.iterdir():
                    if TEXT_FOLDER.fullmatch(folder.name) and not _is_folder(folder):
                        remove(folder)        # a symlink or file in a kept folder's place
            if _is_folder(kept):
                for folder in [kept, *kept.iterdir()][::-1]:
                    with contextlib.suppress(OSError):
                        if _is_folder(folder):
                            folder.rmdir()    # only once empty: nothing of anyone else's
        self.sweep()
        return len(entries), freed


def _moved(private: Path, fallback: Path | None) -> Path:
    """The build moved to ``fallback``, where this render serves it from."""
    if fallback is None:
        raise RuntimeError(f"another user's entries for this beat in {private.parent} "
                           "cannot be removed; render without the beat cache, or use a "
                           "cache folder of your own")
    fallback.parent.mkdir(parents=True, exist_ok=True)
    remove(fallback)
    shutil.move(private, fallback)
    return fallback


def _is_folder(path: Path) -> bool:
    """A real folder: not a symlink to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _settled(path: Path) -> bool:
    """Whether a folder has not changed for ``SETTLED_S`` (a build killed between making
    its folder and locking it, or between unlocking it and its rename)."""
    try:
        return time.time() - os.lstat(path).st_ctime > SETTLED_S
    except OSError:
        return False


def _owned(path: Path) -> bool:
    try:
        return os.lstat(path).st_uid == os.getuid()
    except OSError:
        return False


def _folder_bytes(folder: Path) -> int:
    """Bytes of the regular files in ``folder`` and below, never through a symlink."""
    total = 0
    if not _is_folder(folder):
        return 0
    for parent, _, names in os.walk(folder):      # symlinked folders are not entered
        for name in names:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(parent, name))
                total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def _mtime(path: Path) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return time.time()
