"""Reading the beat cache without trusting it: what a render serves from the cache is
exactly what it wrote there, or it is not served.

A cache folder may be shared (a course's ``--cache-dir``), damaged (a full disk, a killed
copy, a stray edit) or planted (another user's files, symlinks to files we can read).
So every file is opened without following a symlink (``O_NOFOLLOW``; ``O_NONBLOCK``: a
planted FIFO cannot hang us), must be a regular file of ours that group and others cannot
write, and must have the size and sha256 its entry's manifest recorded; the manifest
itself must be JSON of exactly the expected keys and types. Anything else is
:class:`Damaged`, with a short reason for the one line the render prints. Manim-free.

Also here: :func:`remove`, which never follows a symlink.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import shutil
import stat
import tempfile
from pathlib import Path

__all__ = [
    "Damaged", "ENTRY_FILES", "FIELDS", "HASHED", "HEADER", "KEY_FRAME", "KeptFiles",
    "MANIFEST", "VIDEO",
    "check_entry", "open_file", "open_folder", "opened_checked", "parse_manifest",
    "read_checked", "read_private", "record_files", "remove",
]

VIDEO = "segment.mp4"
KEY_FRAME = "key.png"       # the beat's key frame, raw (never decoded from the MP4)
MANIFEST = "segment.json"   # written last into an entry: its presence means complete
HASHED = (VIDEO, KEY_FRAME)                 # recorded in the manifest's "files"
ENTRY_FILES = frozenset(HASHED + (MANIFEST,))

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


class Damaged(Exception):
    """Why a kept file or entry cannot be used (a short phrase, e.g. "key.png: a symlink")."""


def _private(info: os.stat_result, what: str) -> None:
    if info.st_uid != os.getuid():
        raise Damaged(f"{what}owned by another user")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise Damaged(f"{what}writable by group or others")


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "a folder" if stat.S_ISDIR(mode) else "not a regular file"


def open_folder(folder: Path, private: bool = True) -> int:
    """A descriptor of ``folder`` itself, never of what a symlink there points to; with
    ``private``, it must be ours and not writable by group or others. Raises
    FileNotFoundError when there is nothing there, else Damaged."""
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise Damaged("the entry is " + ("a symlink" if stat.S_ISLNK(info.st_mode)
                                         else "not a folder"))
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:   # swapped for a symlink since the lstat
        raise Damaged(f"the entry cannot be opened ({exc.strerror})") from None
    try:
        if private:
            _private(os.fstat(fd), "the entry is ")
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(dir_fd: int, name: str, expected: dict | None = None) -> io.BufferedReader:
    """``name`` in the folder ``dir_fd``, opened without following a symlink: a regular
    file of ours, not writable by group or others, and (``expected``) of the recorded
    "size" and "sha256". Returned at its start: what is read is what was checked."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise Damaged(f"{name}: missing") from None
    if not stat.S_ISREG(info.st_mode):       # never opened: a device could act on open
        raise Damaged(f"{name}: {_kind(info.st_mode)}")
    try:
        fd = os.open(name, _OPEN, dir_fd=dir_fd)
    except OSError as exc:
        raise Damaged(f"{name}: cannot be opened ({exc.strerror})") from None
    file = os.fdopen(fd, "rb")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Damaged(f"{name}: {_kind(info.st_mode)}")
        _private(info, f"{name}: ")
        if expected is not None:
            _check_content(file, name, info.st_size, expected)
    except BaseException:
        file.close()
        raise
    return file


def _check_content(file, name: str, size: int, expected: dict) -> None:
    if size != expected["size"]:
        raise Damaged(f"{name}: {size} bytes, not {expected['size']}")
    digest = hashlib.sha256()
    while chunk := file.read(_CHUNK):
        digest.update(chunk)
    if digest.hexdigest() != expected["sha256"]:
        raise Damaged(f"{name}: sha256 differs")
    file.seek(0)


def read_checked(folder: Path, name: str, expected: dict, private: bool = False) -> bytes:
    """The bytes of ``name`` in ``folder`` as recorded (:func:`open_file`)."""
    dir_fd = open_folder(folder, private)
    try:
        with open_file(dir_fd, name, expected) as file:
            return file.read()
    finally:
        os.close(dir_fd)


@contextlib.contextmanager
def opened_checked(folder: Path, name: str, expected: dict):
    """:func:`open_file` of ``name`` in ``folder``, as a context manager."""
    dir_fd = open_folder(folder, private=False)
    try:
        file = open_file(dir_fd, name, expected)
    finally:
        os.close(dir_fd)
    with file:
        yield file


def check_entry(folder: Path) -> dict:
    """The manifest of the entry in ``folder`` once the whole entry checks out: a private
    folder holding exactly its three files, a valid manifest, each file as recorded.
    Touches the folder (recently used). FileNotFoundError: no entry; Damaged: unusable."""
    dir_fd = open_folder(folder)
    try:
        names = set(os.listdir(dir_fd))
        if names - ENTRY_FILES:
            raise Damaged(f"unexpected file {sorted(names - ENTRY_FILES)[0]!r}")
        with open_file(dir_fd, MANIFEST) as file:
            manifest = parse_manifest(file.read())
        for name in HASHED:
            open_file(dir_fd, name, manifest["files"][name]).close()
        with contextlib.suppress(OSError):
            os.utime(dir_fd)
        return manifest
    finally:
        os.close(dir_fd)


def record_files(folder: Path) -> dict:
    """The "files" of a manifest for the files just written into ``folder``, made
    readable by all and writable by us alone (whatever the umask), as a check wants."""
    files = {}
    for name in HASHED:
        os.chmod(folder / name, 0o644)
        data = (folder / name).read_bytes()
        files[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return files


def remove(path: Path) -> bool:
    """Remove ``path``: a symlink or a file itself (never what it points to), a folder
    with what it holds. True when nothing is left there."""
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)    # never follows a symlink inside
        else:
            os.unlink(path)
    return not os.path.lexists(path)


def read_private(path: Path) -> bytes:
    """The bytes of a kept file of ours (never through a symlink, never a file others
    could have written); touched, as recently used. Raises OSError or Damaged."""
    fd = os.open(path, _OPEN)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Damaged(f"{path.name}: {_kind(info.st_mode)}")
        _private(info, f"{path.name}: ")
        data = file.read()
        with contextlib.suppress(OSError):
            os.utime(fd)
    return data


# ---- kept files (texts, traces) ----------------------------------------------------------
HEADER = b"attention-explainer text sha256="    # then the payload's hex digest and "\n"


class KeptFiles:
    """Payloads kept under ``folder``, one file each, named by the sha256 of a name:
    read back only whole, ours and unchanged (the sha256 in the file's header)."""

    header = HEADER
    suffix = ".pickle"

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)

    def path_for(self, name: str) -> Path:
        digest = hashlib.sha256(name.encode()).hexdigest()
        return self.folder / digest[:2] / f"{digest[2:32]}{self.suffix}"

    def read(self, path: Path) -> bytes | None:
        """The payload kept at ``path`` (touched: the cache's trim keeps it), or None."""
        try:
            data = read_private(path)
        except (OSError, Damaged):
            return None
        header, _, payload = data.partition(b"\n")
        if header != self.header + hashlib.sha256(payload).hexdigest().encode():
            return None
        return payload

    def write(self, path: Path, payload: bytes) -> None:
        """Keep ``payload`` at ``path`` under a header of its sha256, readable and writable
        by us alone (mkstemp), renamed into place whole; a full, read-only or odd folder
        keeps nothing (the next run makes it again)."""
        temporary = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".part")
            with os.fdopen(fd, "wb") as out:
                out.write(self.header + hashlib.sha256(payload).hexdigest().encode() + b"\n")
                out.write(payload)
            os.replace(temporary, path)
        except OSError:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)


# ---- the manifest ----------------------------------------------------------------------
def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _shown(value) -> bool:
    """A readouts.ShownNumber as a dict: exactly its fields, of its types."""
    return isinstance(value, dict) and set(value) == set(_SHOWN) \
        and all(check(value[key]) for key, check in _SHOWN.items())


def _file(value) -> bool:
    return isinstance(value, dict) and set(value) == {"size", "sha256"} \
        and type(value["size"]) is int and value["size"] >= 0 \
        and isinstance(value["sha256"], str) and len(value["sha256"]) == 64 \
        and all(c in "0123456789abcdef" for c in value["sha256"])


_SHOWN = {"beat": lambda v: isinstance(v, str), "kind": lambda v: isinstance(v, str),
          # positions, and a softmax temperature (a finite float)
          "index": lambda v: isinstance(v, list) and all(
              type(i) is int or (type(i) is float and math.isfinite(i)) for i in v),
          "decimals": lambda v: type(v) is int, "signed": lambda v: isinstance(v, bool),
          "text": lambda v: isinstance(v, str)}

# the stored fields of segments.BeatSegment, each with its check
FIELDS = {
    "beat": lambda v: isinstance(v, str),
    "frames": lambda v: type(v) is int and v > 0,
    "fps": lambda v: type(v) is int and v > 0,
    "key_time": _number,
    "handoff_time": _number,
    "captions": lambda v: isinstance(v, list) and all(
        isinstance(c, list) and len(c) == 3 and _number(c[0]) and _number(c[1])
        and isinstance(c[2], str) for c in v),
    "shown_numbers": lambda v: isinstance(v, list) and all(_shown(n) for n in v),
    "audit_log": lambda v: isinstance(v, list) and all(isinstance(e, list) for e in v),
    "screen_texts": _strings,
    "files": lambda v: isinstance(v, dict) and set(v) == set(HASHED)
    and all(_file(f) for f in v.values()),
}


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number")


def parse_manifest(raw: bytes) -> dict:
    """The manifest in ``raw``: a JSON object of exactly :data:`FIELDS`, each valid."""
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Damaged(f"{MANIFEST}: not JSON") from None
    if not isinstance(data, dict):
        raise Damaged(f"{MANIFEST}: not a JSON object")
    if set(data) - set(FIELDS):
        raise Damaged(f"{MANIFEST}: unexpected key {sorted(set(data) - set(FIELDS))[0]!r}")
    if set(FIELDS) - set(data):
        raise Damaged(f"{MANIFEST}: no {sorted(set(FIELDS) - set(data))[0]!r}")
    for key, check in FIELDS.items():
        if not check(data[key]):
            raise Damaged(f"{MANIFEST}: {key!r} is not valid")
    return data
