"""The user's files: output paths, checks before anything is written, a claim against a
second run, and output sets committed all-or-nothing.

A command's outputs (an MP4 and its sidecars, a folder of stills) form one
:class:`OutputSet`. It is checked before the model runs (nothing exists that would be
replaced without ``--force``, nothing is a folder, the place is writable), and written
only once everything is valid: folders are created then, the set is claimed (a second run
writing the same name sees the claim and is refused), files are written into a private
staging folder beside their final place (same file system, so renames are atomic) and
committed together through a journal. A failure or an interrupt leaves every previous
file as it was and nothing of ours; a run killed outright (SIGKILL) leaves its staging
folder, which the next run in that folder recognises as stale (its lock is free) and
removes, rolling back a commit the kill cut short.
"""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

from ..attention_core.errors import InputError, NoSpaceLeft
from ..facts import DEFAULT_OUTPUT_DIR, VIDEO_SUFFIXES
from .locks import try_lock
from .staging import (JOURNAL, LOCK, WORK_PREFIX, remove_folder, roll_back, sweep_stale,
                      write_json)

__all__ = ["refuse_links", "COMMITTED", "signals_deferred",
    "OutputSet", "VIDEO_SIDECARS", "WORK_PREFIX", "check_place", "output_path",
    "refuse_inside_the_cache", "scratch_folder", "sigterm_as_interrupt", "slugify",
    "sweep_stale", "short_film_outputs", "video_outputs",
]

PLACE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM,
                errno.ENOTDIR, errno.EEXIST}     # the place, not the program: exit 2


def slugify(sentence: str, max_length: int = 48) -> str:
    """A file-name-safe slug of a sentence: ASCII letters, digits and hyphens only, never a
    path. Other scripts are transliterated (我爱北京 -> wo-ai-bei-jing); symbols that have
    no transliteration are named (🍮 -> custard).

    >>> slugify("我爱北京天安门"), slugify("../../etc/passwd")
    ('wo-ai-bei-jing-tian-an-men', 'etc-passwd')
    """
    from slugify import slugify as transliterate

    slug = transliterate(sentence, max_length=max_length, word_boundary=True)
    if not slug:
        names = " ".join(unicodedata.name(ch, "") for ch in sentence if not ch.isspace())
        slug = transliterate(names, max_length=max_length, word_boundary=True)
    return slug or "explainer"


def output_path(path: str | Path) -> Path:
    """An output path made absolute and normal (``sub/../x.mp4`` is ``x.mp4``: ``sub`` is
    never created), with symbolic links of existing folders followed."""
    try:
        return Path(path).expanduser().resolve(strict=False)
    except (OSError, RuntimeError) as exc:
        raise InputError(f"the output path {str(path)!r} cannot be resolved ({exc}); "
                         "choose another path.") from exc


def refuse_inside_the_cache(paths, hint: str, cache: Path | None = None) -> None:
    """Refuse an output inside the beat cache's folder (default: the user's): the cache
    removes what it finds there, and an output there would be lost to `cache clear`."""
    if cache is None:
        from .places import default_cache_folder
        cache = default_cache_folder()
    cache = Path(cache).resolve()
    for path in paths:
        if Path(path).resolve().is_relative_to(cache):
            raise InputError(f"{path} is inside the beat cache ({cache}), which keeps only "
                             f"its own files; {hint}.")


def refuse_links(paths, what: str = "output") -> None:
    """Refuse a symbolic link where a file of a set, or a folder inside the set, would be:
    a write would land wherever the link points. The set's own place (the folders that
    hold all of it, which the user chose) may be a link."""
    paths = [Path(p) for p in paths]
    if not paths:
        return
    root = Path(os.path.commonpath([p.parent for p in paths]))
    for path in paths:
        inside = [path] + [f for f in path.parents if f.is_relative_to(root) and f != root]
        for place in inside:
            if place.is_symlink():
                kind = "file" if place == path else "folder"
                raise InputError(f"{place} is a symbolic link, where a {what} {kind} would be "
                                 "written; attention-explainer never writes through one: "
                                 "remove the link or choose another place.")


def check_place(folder: Path, hint: str = "choose a writable folder with -o") -> None:
    """Refuse a folder that cannot receive files, without writing anything: the nearest
    existing ancestor must be a writable folder on a writable file system."""
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"the output folder {folder} cannot be made: {existing} is a file; "
                         f"{hint}.")
    writable = os.access(existing, os.W_OK | os.X_OK)
    try:
        writable = writable and not (os.statvfs(existing).f_flag & os.ST_RDONLY)
    except OSError:
        pass
    if not writable or _is_pseudo_file_system(existing):
        raise InputError(f"the output folder {folder} is not writable; {hint}.")


def _is_pseudo_file_system(folder: Path) -> bool:
    """/proc and /sys take no new files even for root (os.access says yes to root)."""
    return folder.parts[:2] in (("/", "proc"), ("/", "sys"))


# ---- locks: held while a run writes, free once it is gone (even after SIGKILL) -----------
def _holder(path: Path) -> str:
    with contextlib.suppress(OSError, ValueError):
        return f" (pid {int(path.read_text().strip())})"
    return ""


# ---- stale leftovers of killed runs ---------------------------------------------------------
def _new_working_folder(parent: Path, prefix: str) -> tuple[Path, int | None]:
    """A working folder that is never seen without its lock: made under a temporary
    name, locked, then renamed into place."""
    # named for the process making it: a sweep leaves a young "new-" folder alone while
    # that process lives (never contended), and removes it once the process is gone
    making = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}new-{os.getpid()}-", dir=parent))
    fd = try_lock(making / LOCK)
    final = parent / (WORK_PREFIX + prefix + making.name[len(WORK_PREFIX + "new-"):])
    os.rename(making, final)
    return final, fd


@contextlib.contextmanager
def scratch_folder(prefix: str = "scratch-"):
    """A private, locked working folder in the temporary folder (for renders that write
    no file of the user's), removed afterwards; stale ones of killed runs are swept first."""
    base = Path(tempfile.gettempdir())
    sweep_stale(base)
    folder, fd = _new_working_folder(base, prefix)
    try:
        yield folder
    finally:
        remove_folder(folder)
        if fd is not None:
            os.close(fd)


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Turn SIGTERM into KeyboardInterrupt while files are being written, so the clean-up
    runs (a render or a still is killed politely by schedulers and `kill`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    owner, received = os.getpid(), []

    def handler(signum, frame):
        if os.getpid() != owner:
            # a worker forked meanwhile, not yet given its own handler: it ends at once
            # and silently (a traceback of its own would reach the user's terminal)
            os._exit(128 + signum)
        received.append(signum)
        raise KeyboardInterrupt("terminated (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    except Exception as exc:
        if received:
            # the signal stopped the workers too (it goes to the process group): what then
            # failed (a broken process pool) is the termination, not a fault of its own
            raise KeyboardInterrupt("terminated (SIGTERM)") from exc
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


# every file this process committed, for the one line an interrupt then says (the CLI's)
COMMITTED: list[Path] = []


@contextlib.contextmanager
def signals_deferred():
    """Ctrl-C and SIGTERM wait (in the main thread) while the block runs: a commit and its
    staging's removal, native code calling Python (``app.signals``). Yields those heard."""
    heard: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield heard
        return
    previous = {sig: signal.signal(sig, lambda signum, frame: heard.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield heard
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class OutputSet:
    """The files one command writes, committed as one set.

    ``files`` maps a kind ("video", "poster", "still:pull-key", ...) to its final path.
    Use :meth:`check` before any heavy work (it writes nothing), then::

        with outputs.opened(report=print):
            write each file to outputs.path(kind)
            outputs.commit()

    Leaving the block without :meth:`commit` (an error, Ctrl-C, SIGTERM) removes
    everything written and every folder created, and keeps every previous file.
    """

    def __init__(self, files: dict[str, Path], *, force: bool = False,
                 what: str = "output", hint: str = "choose another name with -o"):
        # as asked (absolute, ".." taken lexically, links not followed): links are looked for
        # there, before the paths are resolved
        self.asked = {kind: Path(os.path.abspath(Path(p).expanduser())) for kind, p in files.items()}
        self.files = {kind: output_path(p) for kind, p in files.items()}
        self.force, self.what, self.hint = force, what, hint
        self._created: list[Path] = []
        self._locks: list[int] = []
        self._claim: Path | None = None
        self._staging: dict[Path, Path] = {}
        self.committed = False

    def add(self, kind: str, path: Path) -> "OutputSet":
        """One more file of the set, checked with the others (:meth:`check`)."""
        self.asked[kind] = Path(os.path.abspath(Path(path).expanduser()))
        self.files[kind] = output_path(path)
        return self.check()

    def replan(self, files: dict[str, Path]) -> None:
        """The set's files once what it holds is known, while it is open and before any of
        them is written (a course's pack fitted to a length keeps fewer clips, numbered
        anew): each in a folder the set already stages, checked as :meth:`check` does."""
        paths = {kind: output_path(p) for kind, p in files.items()}
        outside = [p for p in paths.values() if p.parent not in self._staging]
        if outside:
            raise RuntimeError(f"{outside[0]} is outside the folders this set stages")
        written = [p for p in self.files.values() if self._staged(p).exists()]
        if written:
            raise RuntimeError(f"{written[0].name} is written already: replan before writing")
        self.asked = {kind: Path(os.path.abspath(Path(p).expanduser()))
                      for kind, p in files.items()}
        self.files = paths
        self.check()

    def _staged(self, final: Path) -> Path:
        return self._staging[final.parent] / final.name

    @property
    def folders(self) -> list[Path]:
        return list(dict.fromkeys(p.parent for p in self.files.values()))

    # ---- before anything is written ---------------------------------------------------
    def check(self) -> "OutputSet":
        """Refuse folders among the files, files that exist (without ``force``) and
        places that cannot be written. Writes nothing."""
        refuse_links(self.asked.values(), self.what)
        for path in self.files.values():
            if path.is_dir():
                raise InputError(f"{path} is a folder, where the {self.what} would be "
                                 f"written; {self.hint}.")
        refuse_inside_the_cache(self.files.values(), self.hint)
        existing = [p for p in self.files.values() if p.exists() or p.is_symlink()]
        if existing and not self.force:
            names = ", ".join(p.name for p in existing[:4]) + (" …" if len(existing) > 4 else "")
            raise InputError(f"{names} already exist{'s' if len(existing) == 1 else ''} in "
                             f"{existing[0].parent}; pass --force to overwrite, or {self.hint}.")
        for folder in self.folders:
            check_place(folder)
        return self

    # ---- writing ------------------------------------------------------------------------
    @contextlib.contextmanager
    def opened(self, report: Callable[[str], None] | None = None):
        """Make the folders, claim the set, sweep stale leftovers, open staging folders;
        while it is open, SIGTERM is an interrupt (``sigterm_as_interrupt``), so that a
        killed run, from any face, leaves no staging folder and no claim behind."""
        with sigterm_as_interrupt():
            yield from self._opened(report)

    def _opened(self, report):
        try:
            self._make_folders()
            self._take_claim()
            removed = sum(sweep_stale(folder) for folder in self.folders)
            if removed and report is not None:
                report(f"removed {removed} stale temporary item{'s' * (removed > 1)} left "
                       f"by an interrupted run in {self.folders[0]}")
            self.check()                      # again, under the claim
            for folder in self.folders:
                staging, fd = _new_working_folder(folder, "staging-")
                self._staging[folder] = staging
                if fd is not None:
                    self._locks.append(fd)
            yield self
        except OSError as exc:
            if NoSpaceLeft.matches(exc):
                raise NoSpaceLeft.on(self._full_folder(exc), hint=f"or {self.hint}") from None
            if exc.errno not in PLACE_ERRORS:
                raise
            raise InputError(f"cannot write to {self.folders[0]} ({exc.strerror or exc}); "
                             f"{self.hint}.") from exc
        finally:
            self._release()
            if not self.committed:
                self._discard()

    def _full_folder(self, exc: OSError) -> Path:
        """The folder of ours that a full disk hit: the output folder the failed file was
        in (its staging folder is inside), else that file's folder, else the first."""
        if exc.filename:
            failed = Path(os.fsdecode(exc.filename))
            for folder in self.folders:
                if failed.is_relative_to(folder):
                    return folder
            return failed.parent
        return self.folders[0]

    def path(self, kind: str) -> Path:
        """Where to write ``kind`` now: its name, in the staging folder beside it."""
        return self._staged(self.files[kind])

    @property
    def scratch(self) -> Path:
        """A working folder that goes with the staging (manim's media files)."""
        folder = self._staging[self.folders[0]] / "scratch"
        folder.mkdir(exist_ok=True)
        return folder

    def commit(self) -> list[Path]:
        """Move every staged file into place, replacing old files, all or nothing."""
        entries = []
        for kind, final in self.files.items():
            staged = self.path(kind)
            if not staged.is_file():
                raise RuntimeError(f"nothing was written for {final.name}")
            had_old = final.exists() or final.is_symlink()
            backup = staged.parent / ("old-" + final.name) if had_old else None
            entries.append([str(final), str(staged), str(backup) if backup else None])
        journal = self._staging[self.folders[0]] / JOURNAL
        with signals_deferred() as heard:
            write_json(journal, {"entries": entries, "done": False})
            try:
                for final, _, backup in entries:
                    if backup:
                        os.replace(final, backup)
                for final, staged, _ in entries:
                    os.replace(staged, final)
                write_json(journal, {"entries": entries, "done": True})
            except BaseException:
                roll_back(entries)
                raise
            self.committed = True
            self._discard()
        COMMITTED.extend(self.files.values())
        if heard:       # the set is whole: the interrupt goes on, and says what was written
            raise KeyboardInterrupt("interrupted after the files were written")
        return list(self.files.values())

    # ---- clean-up -----------------------------------------------------------------------
    def _make_folders(self) -> None:
        for folder in self.folders:
            missing = []
            parent = folder
            while not parent.exists():
                missing.append(parent)
                parent = parent.parent
            folder.mkdir(parents=True, exist_ok=True)
            self._created += reversed(missing)

    def _take_claim(self) -> None:
        first = min(self.files.values(), key=lambda p: (str(p.parent), p.name))
        claim = first.parent / f"{WORK_PREFIX}claim-{first.name}.lock"
        fd = try_lock(claim)
        for _ in range(5):            # a sweep removing a stale claim holds it for a moment
            if fd is not None:
                break
            time.sleep(0.02)
            fd = try_lock(claim)
        if fd is None:
            raise InputError(f"another attention-explainer run{_holder(claim)} is writing "
                             f"{first.name} in {first.parent}; wait for it to finish, or "
                             f"{self.hint}.")
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._locks.append(fd)
        self._claim = claim

    def _discard(self) -> None:
        for staging in self._staging.values():
            remove_folder(staging)
        self._staging = {} if self.committed else self._staging
        if not self.committed:
            for folder in reversed(self._created):     # deepest first, only if empty
                with contextlib.suppress(OSError):
                    folder.rmdir()

    def _release(self) -> None:
        if self._claim is not None:
            with contextlib.suppress(OSError):
                self._claim.unlink()
            self._claim = None
        for fd in self._locks:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._locks = []


VIDEO_SIDECARS = {"captions": ".srt", "poster": ".png", "trace": ".npz"}


def video_outputs(output: Path, *, force: bool = False, numbers: str = ".npz") -> OutputSet:
    """The files of one render: the video (MP4, WebM or GIF) and, beside it, its captions,
    poster and trace (``numbers``: its suffix; a translation's or a writing's view, .json)."""
    output = Path(output)
    if output.suffix.lower() not in VIDEO_SUFFIXES:
        raise InputError(f"the output {output.name!r} must end in "
                         f"{', '.join(list(VIDEO_SUFFIXES)[:-1])} or {list(VIDEO_SUFFIXES)[-1]}"
                         f"; give -o NAME.mp4 (or .webm, .gif).")
    files = {"video": output}
    files.update({kind: output.with_suffix(suffix) for kind, suffix in VIDEO_SIDECARS.items()})
    files["trace"] = output.with_suffix(numbers)
    return OutputSet(files, force=force, what="video or one of its sidecars")


def short_film_outputs(output: Path | None, sentence: str, kind: str, resolution: str, *,
                       force: bool = False) -> OutputSet:
    """The files of a film drawn whole by manim (a translation's, a decoder's writing):
    the MP4 (``output``, else renders/<slug>-<kind>-<resolution>.mp4), its poster .png and
    the numbers it draws, .json, beside it."""
    film = Path(output or Path(DEFAULT_OUTPUT_DIR) /
                f"{slugify(sentence)}-{kind}-{resolution}.mp4")
    if film.suffix.lower() != ".mp4":
        raise InputError(f"the output {film.name!r} must end in .mp4; give -o NAME.mp4.")
    return OutputSet({"video": film, "poster": film.with_suffix(".png"),
                      "numbers": film.with_suffix(".json")}, force=force,
                     what="film or one of its sidecars", hint="choose another -o").check()

