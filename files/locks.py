"""Locks held while a run writes, free once it is gone (even after SIGKILL): the user's
output sets (``outputs``) and the beat cache (``scenes.pipeline``) both take them. Imports
nothing of ours."""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

__all__ = ["try_lock"]


def try_lock(path: Path, create: bool = True) -> int | None:
    """An open descriptor holding an exclusive lock (``flock``) on ``path``, created if
    missing (else FileNotFoundError where not ``create``), or None when another process
    holds it. Closing the descriptor (or the holder's death) frees it; a lock file removed
    and made again while we waited is locked afresh, so the lock held is always on the
    file at ``path``."""
    fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    if not path.exists() or os.stat(path).st_ino != os.fstat(fd).st_ino:
        os.close(fd)
        return try_lock(path, create)
    return fd
