"""Your words on screen: ``--captions FILE``, the ``.srt`` a film wrote, edited or translated,
read back as the film's captions. Checked against the film's own caption slots before
anything is drawn: the same count, in the same order (the times in the file are ignored:
the film times each caption by its words), and no number in a caption that the film's
caption in that place does not say (a translation keeps the trace's numbers; "0,40" is
read as 0.40)."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..attention_core.errors import InputError
from ..attention_core.user_files import opened_checked

__all__ = ["MAX_CAPTIONS_BYTES", "fitted_captions", "numbers_in", "read_captions",
           "words_language"]

MAX_CAPTIONS_BYTES = 4 << 20      # a film's .srt is a few kB; anything this large is not one
_NUMBER = re.compile(r"(?<![\w.,])[-−]?\d+(?:[.,]\d+)?")


def read_captions(path) -> list[str]:
    """The caption texts of the .srt ``path``, in its order (each entry's lines joined by
    a space). Raises InputError for a file that is not a readable SubRip file."""
    import srt

    with opened_checked(Path(path), what="--captions", max_bytes=MAX_CAPTIONS_BYTES,
                        fix="; give the .srt a render wrote (edited or translated)") as fh:
        data = fh.read()
    try:
        entries = list(srt.parse(data.decode("utf-8-sig")))
    except (UnicodeDecodeError, srt.SRTParseError) as exc:
        raise InputError(f"--captions {path}: not a SubRip (.srt) file ({exc}); give the "
                         ".srt a film wrote, edited or translated.") from None
    texts = [" ".join(e.content.split()) for e in entries]
    if not texts or not all(texts):
        raise InputError(f"--captions {path}: "
                         + ("no captions" if not texts else "an empty caption")
                         + "; every caption of the film needs its words.")
    return texts


def numbers_in(text: str) -> Counter:
    """The numbers a caption says, as written ("0,40" and "0.40" alike; "−3" is -3)."""
    return Counter(m.group().replace(",", ".").replace("−", "-")
                   for m in _NUMBER.finditer(text))


def fitted_captions(path, said: dict[str, list[str]], texts: list[str]
                    ) -> dict[str, tuple[str, ...]]:
    """The user's ``texts`` for the film's captions ``said`` ({beat: its captions}, in
    the film's order): {beat: the user's}. Raises InputError for another count, or a
    caption whose number the film's caption there does not say."""
    film = [(beat, text) for beat, captions in said.items() for text in captions]
    if len(film) != len(texts):
        raise InputError(f"--captions {path} has {len(texts)} captions; this film has "
                         f"{len(film)} (`narration-script` lists them, the film's .srt has "
                         "them): keep one per caption, in order.")
    for n, ((beat, said), mine) in enumerate(zip(film, texts), 1):
        extra = numbers_in(mine) - numbers_in(said)
        if extra:
            shown = ", ".join(numbers_in(said)) or "no number"
            raise InputError(f"--captions {path}: caption {n} (the {beat} beat) says "
                             f"{next(iter(extra))}, a number the film does not say there "
                             f"({shown}); keep the film's numbers.")
    fitted: dict[str, list[str]] = {}
    for (beat, _), mine in zip(film, texts):
        fitted.setdefault(beat, []).append(mine)
    return {beat: tuple(words) for beat, words in fitted.items()}


def words_language(texts: list[str]) -> str | None:
    """The language the captions are written in (wordfreq's code), or None."""
    from ..attention_core.words import language_of

    return language_of(re.findall(r"[^\W\d_]+", " ".join(texts)))
