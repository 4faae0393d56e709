"""Our working folders beside a user's files: their names, their locks' grace, the sweep
that removes what a killed run left (rolling back a commit it cut short), and their
removal. :mod:`.outputs` makes and commits them."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from pathlib import Path

from .locks import try_lock

__all__ = ["JOURNAL", "LOCK", "OLD_PART", "UNLOCKED_GRACE", "WORK_PREFIX", "remove_folder",
           "roll_back", "sweep_stale", "write_json"]

WORK_PREFIX = ".attention-explainer-"      # our staging folders and claims (hidden files)
LOCK = "lock"                              # the lock file inside a staging folder
JOURNAL = "commit.json"                    # what a commit moves, and whether it finished
UNLOCKED_GRACE = 60.0                      # seconds: a lock-less staging folder is stale after
REMOVE_TRIES = 40             # a working folder's removal, tried 2 s at most
OLD_PART = re.compile(r"^\..+\.[a-z0-9_]{8}\.part\.(mp4|png|srt|npz|jpg|jpeg|webp)$")


def sweep_stale(folder: Path) -> int:
    """Remove what killed runs of ours left in ``folder``: staging folders and claims whose
    lock is free (rolling back a commit that was cut short), and ``.NAME.XXXXXXXX.part.EXT``
    files of older versions. Returns how many were removed."""
    removed = 0
    try:
        entries = list(folder.iterdir())
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        if name.startswith(WORK_PREFIX) and entry.is_dir() and not entry.is_symlink():
            removed += _sweep_staging(entry)
        elif (name.startswith(WORK_PREFIX + "claim-") and entry.is_file()
              and _age(entry) > UNLOCKED_GRACE):    # a young claim may be mid-lock: never race it
            try:
                fd = try_lock(entry)
            except OSError:                             # removed by its own run meanwhile
                fd = None
            if fd is not None:
                with contextlib.suppress(OSError):
                    entry.unlink()
                os.close(fd)
                removed += 1
        elif OLD_PART.match(name) and entry.is_file() and _age(entry) > UNLOCKED_GRACE:
            with contextlib.suppress(OSError):
                entry.unlink()
                removed += 1
    return removed


def _age(path: Path) -> float:
    with contextlib.suppress(OSError):
        return time.time() - path.stat().st_mtime
    return 0.0


def _sweep_staging(folder: Path) -> int:
    """A working folder of ours: in use while its lock is held; being made (no lock yet)
    for a moment; otherwise stale: roll back a commit it was in the middle of, remove it."""
    if folder.name.startswith(WORK_PREFIX + "trash-"):
        return remove_folder(folder)
    young = _age(folder) <= UNLOCKED_GRACE
    if young and folder.name.startswith(WORK_PREFIX + "new-"):
        # being made: its lock may not be taken yet, unless the run making it is gone
        return remove_folder(folder) if _maker_gone(folder) else 0
    lock = folder / LOCK
    if not lock.exists():
        return 0 if young else remove_folder(folder)
    try:
        fd = try_lock(lock)
    except OSError:                             # renamed or removed by its own run meanwhile
        return 0
    if fd is None:                              # a live run
        return 0
    try:
        journal = folder / JOURNAL
        if journal.exists():
            with contextlib.suppress(OSError, ValueError):
                state = json.loads(journal.read_text())
                if not state.get("done"):
                    roll_back(state["entries"])
        return remove_folder(folder)
    finally:
        os.close(fd)


def _maker_gone(folder: Path) -> bool:
    """Whether the process a "new-PID-" working folder is named for has ended (a run
    killed while it made the folder, between making and locking it)."""
    pid = folder.name[len(WORK_PREFIX + "new-"):].split("-", 1)[0]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:                 # another user's process: alive
        return False
    return False


def remove_folder(folder: Path) -> int:
    """Remove a working folder: first renamed to a trash name (one atomic step), so a run
    killed while deleting never leaves a half-emptied folder that looks in use."""
    trash = folder
    if not folder.name.startswith(WORK_PREFIX + "trash-"):
        trash = folder.with_name(f"{WORK_PREFIX}trash-{os.getpid()}-{folder.name[-8:]}")
        try:
            os.rename(folder, trash)
        except OSError:
            return 0
    for _ in range(REMOVE_TRIES):   # a worker stopped by the same signal may still be
        shutil.rmtree(trash, ignore_errors=True)     # closing a file in it: try again
        if not os.path.lexists(trash):
            break
        time.sleep(0.05)
    return 1


def roll_back(entries: list) -> None:
    """Undo a commit: every final path gets its old file back (or none, if it had none)."""
    for final, staged, backup in entries:
        final, staged = Path(final), Path(staged)
        placed = not staged.exists() and final.exists()
        if backup and Path(backup).exists():
            os.replace(backup, final)
        elif placed:
            final.unlink()


def write_json(path: Path, data: dict) -> None:
    """Write a small JSON file atomically (a reader sees the old or the new, never half)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)
