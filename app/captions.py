"""Your words on screen: ``--captions FILE``, the ``.srt`` a film wrote, edited or translated,
read back as the film's captions. Checked against the film's own caption slots before
anything is drawn: the same count, in the same order (the times in the file are ignored:
the film times each caption by its words), and no number in a caption that the film's
caption in that place does not say (a translation keeps the trace's numbers; "0,40" is
read as 0.40)."""
from __future__ import annotations

import re
from collections import Counter
from itertools import islice
from pathlib import Path

from ..attention_core.errors import InputError, quoted_reason
from ..attention_core.user_files import opened_checked

__all__ = ["MAX_CAPTIONS_BYTES", "MAX_CAPTION_CHARS", "MAX_CAPTIONS", "captions_language",
           "fitted_captions", "numbers_in", "read_captions", "words_language"]

MAX_CAPTIONS_BYTES = 4 << 20      # a film's .srt is a few kB; anything this large is not one
# a film's own captions are under 250 characters, under 100 of them: a caption is read on
# one screen (the film holds it len / FilmSettings.reading_cps seconds: 1 MB would be 15 hours)
MAX_CAPTION_CHARS = 600
MAX_CAPTIONS = 400
# what a terminal, a player or a slide would act on rather than show: control characters
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NUMBER = re.compile(r"(?<![\w.,])[-−]?\d+(?:[.,]\d+)?")


def read_captions(path) -> list[str]:
    """The caption texts of the .srt ``path``, in its order (each entry's lines joined by
    a space). Raises InputError for a file that is not a readable SubRip file."""
    import srt

    with opened_checked(Path(path), what="--captions", max_bytes=MAX_CAPTIONS_BYTES,
                        fix="; give the .srt a render wrote (edited or translated)") as fh:
        data = fh.read()
    try:
        # read no further than a film's captions could go
        entries = list(islice(srt.parse(data.decode("utf-8-sig")), MAX_CAPTIONS + 1))
    except (UnicodeDecodeError, srt.SRTParseError) as exc:
        raise InputError(f"--captions {path}: not a SubRip (.srt) file ({quoted_reason(exc)}); "
                         "give the .srt a film wrote, edited or translated.") from None
    if len(entries) > MAX_CAPTIONS:
        raise InputError(f"--captions {path} has more than {MAX_CAPTIONS} captions; a film has "
                         "far fewer: give the .srt a film wrote, edited or translated.")
    texts = [_CONTROL.sub("", " ".join(e.content.split())).strip() for e in entries]
    long = next((n for n, text in enumerate(texts, 1) if len(text) > MAX_CAPTION_CHARS), None)
    if long is not None:
        raise InputError(f"--captions {path}: caption {long} is {len(texts[long - 1])} "
                         f"characters long, more than the {MAX_CAPTION_CHARS} a caption may be "
                         "(it is read on one screen); shorten it.")
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


def captions_language(captions) -> str:
    """The language of a film's captions: that of the user's words (``captions``: (the
    .srt's path, its texts), from ``--captions``) where it can be told, else our own
    English."""
    return (words_language(captions[1]) if captions is not None else None) or "en"
