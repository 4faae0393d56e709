"""Errors the user can fix. The CLI turns them into exit code 2 and one line."""
from __future__ import annotations

import errno
import re

from ..facts import MAX_SENTENCE_CHARS
from . import DEFAULT_SENTENCE

__all__ = ["InputError", "NoSpaceLeft", "check_sentence", "for_terminal", "is_json_int",
           "quoted_reason", "short_repr"]

# what a terminal acts on instead of showing: control characters (a bell, an escape sequence
# that recolours or clears it) and the bidi embeddings and overrides that reorder what follows
_UNSHOWN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]")
# a message quotes what it was given (a file's line, a library's error): at most this much,
# its start and its end (where the fix is said)
MAX_MESSAGE_CHARS = 2000


class InputError(ValueError):
    """Bad input: the message says what is wrong and how to fix it, in one line."""

    def __init__(self, message: str):
        text = " ".join(str(message).split())
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS - 500] + " … " + text[-497:]
        super().__init__(text)


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


def for_terminal(text: str, *, json: bool = False) -> str:
    """``text`` as a terminal may be given it: every control character but a newline, and
    every bidi embedding or override, written as its escape (\\x07, \\u202e; in ``json``
    text, \\u0007: still JSON, the same string)."""
    def escape(match) -> str:
        ch = match.group()
        return f"\\u{ord(ch):04x}" if json else ch.encode("unicode_escape").decode("ascii")
    return _UNSHOWN.sub(escape, text)


def is_json_int(value) -> bool:
    """A JSON integer: bool is not one, though Python says it is."""
    return isinstance(value, int) and not isinstance(value, bool)


def short_repr(value, limit: int = 40) -> str:
    """A value as a message quotes it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def quoted_reason(exc: BaseException, limit: int = 120) -> str:
    """Another library's message as one of ours quotes it: its first line, whitespace
    made single, cut at a word (never mid-word) to about ``limit`` characters."""
    text = " ".join(str(exc).splitlines()[0].split()) if str(exc).strip() else ""
    if not text:
        return type(exc).__name__
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + " …"


def check_sentence(sentence: str | None) -> str:
    """The sentence, if a model can take it; else an InputError saying how to fix it."""
    if sentence is None or not sentence.strip():
        raise InputError("the sentence is empty; type a sentence, e.g. "
                         f"attention-explainer inspect \"{DEFAULT_SENTENCE}\".")
    if len(sentence) > MAX_SENTENCE_CHARS:
        raise InputError(f"the sentence is {len(sentence)} characters long, more than the "
                         f"{MAX_SENTENCE_CHARS} read; a film explains a sentence: shorten it.")
    if "\x00" in sentence:
        raise InputError("the sentence contains a NUL character; remove it.")
    try:
        sentence.encode("utf-8")
    except UnicodeEncodeError as exc:     # lone surrogates: bytes the shell could not decode
        raise InputError("the sentence holds bytes that are not valid UTF-8 text (character "
                         f"{exc.start + 1}); check your terminal's encoding, e.g. "
                         "export LANG=C.UTF-8.") from exc
    return sentence
