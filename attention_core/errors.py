"""Errors the user can fix. The CLI turns them into exit code 2 and one line."""
from __future__ import annotations

import errno

__all__ = ["InputError", "NoSpaceLeft", "is_json_int", "short_repr"]


class InputError(ValueError):
    """Bad input: the message says what is wrong and how to fix it, in one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


class NoSpaceLeft(InputError):
    """A file system that filled up while we wrote: the place is named, and what to do."""

    ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})

    @classmethod
    def matches(cls, exc: BaseException) -> bool:
        """Whether ``exc`` is a full disk or an exhausted quota."""
        return isinstance(exc, OSError) and exc.errno in cls.ERRNOS

    @classmethod
    def on(cls, place, what: str = "", hint: str = "") -> NoSpaceLeft:
        """"no space left on PLACE (WHAT): free some space[, HINT]"."""
        named = f"{place} ({what})" if what else f"{place}"
        return cls(f"no space left on {named}: free some space" + (f", {hint}" if hint
                                                                    else "") + ".")


def is_json_int(value) -> bool:
    """A JSON integer: bool is not one, though Python says it is."""
    return isinstance(value, int) and not isinstance(value, bool)


def short_repr(value, limit: int = 40) -> str:
    """A value as a message quotes it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
