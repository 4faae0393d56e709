"""The one rule for a file read from a user's folder (a model's files, a narration's
recordings, a settings file): a regular file, never a FIFO, a device or a folder (opening a
FIFO waits for a writer for ever), no larger than its reader takes, opened without waiting,
and (for a model folder's files) inside that folder once links are resolved.

Checked before anything is read, so a refusal is one line and costs nothing: a 159 MB
tokenizer.json was parsed for 28 s and 2.2 GB before it was refused, a FIFO named
title.wav blocked a render until it was killed.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InputError

__all__ = ["checked_file", "checked_folder", "inside_folder", "opened_checked"]


def checked_folder(folder: Path, *, what: str, fix: str = "") -> Path:
    """``folder``, if it is a folder whose entries can be listed; else an InputError (an
    unreadable folder would otherwise fail later, deep in a loader, as a PermissionError)."""
    try:
        os.listdir(folder)                     # needs the right to read it
        os.stat(os.path.join(folder, "."))     # and to enter it
    except NotADirectoryError:
        raise InputError(f"{what} is not a folder{fix}.") from None
    except OSError as exc:
        raise InputError(f"{what}: the folder cannot be read ({exc.strerror}){fix}.") from None
    return folder


def inside_folder(path: Path, folder: Path) -> bool:
    """Whether ``path``, its links resolved, lies inside ``folder``. A Hugging Face hub
    cache keeps a snapshot's files (``.../snapshots/<revision>/``) as links into the same
    model's ``blobs`` folder, so for a snapshot folder that is inside too."""
    target, home = Path(path).resolve(), Path(folder).resolve()
    homes = [home]
    if home.parent.name == "snapshots":
        homes.append(home.parent.parent / "blobs")
    return any(target.is_relative_to(place) and target != place for place in homes)


def checked_file(path: str | Path, *, what: str, max_bytes: int | None = None,
                 fix: str = "", folder: Path | None = None) -> Path:
    """``path``, if it is a regular file (a link to one counts) of at most ``max_bytes``
    and, when ``folder`` is given, inside it (:func:`inside_folder`); else an InputError
    naming ``what`` and how to ``fix`` it."""
    path = Path(path)
    if folder is not None and not inside_folder(path, folder):
        raise InputError(f"{what}: {path.name} links outside the folder; a model folder's "
                         "files are read from the folder itself, so copy the file in.")
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"{what}: {path.name} cannot be read ({exc.strerror}){fix}.") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{what}: {path.name} is not a regular file (a FIFO, a device or a "
                         f"folder is never read){fix}.")
    if max_bytes is not None and info.st_size > max_bytes:
        raise InputError(f"{what}: {path.name} is {info.st_size / 2 ** 20:.0f} MB, more than "
                         f"the {max_bytes / 2 ** 20:.0f} MB it may be{fix}.")
    return path


def opened_checked(path: str | Path, *, what: str, max_bytes: int | None = None,
                   fix: str = "", folder: Path | None = None):
    """``path`` opened for reading (binary) once :func:`checked_file` holds, without
    waiting (a FIFO swapped in after the check would otherwise block the open), and
    checked again as opened."""
    checked_file(path, what=what, max_bytes=max_bytes, fix=fix, folder=folder)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputError(f"{what}: {Path(path).name} cannot be read ({exc.strerror}){fix}.") \
            from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or (max_bytes is not None and info.st_size > max_bytes):
        os.close(fd)
        raise InputError(f"{what}: {Path(path).name} changed as it was opened; it is no "
                         f"longer a regular file of its size{fix}.")
    return os.fdopen(fd, "rb")
