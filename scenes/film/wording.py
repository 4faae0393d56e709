"""How the film names the sentence's words in running text, by one rule everywhere (the
screen, the captions, the notes and the deck, which read the captions):

- a word of the sentence is quoted, ‘cat’; on screen the focus word also takes the query
  colour;
- a user's word is never made possessive: "the query of ‘it’", never "it's query" (which
  reads as a contraction);
- a token that is a piece of a word as written is named with its word: ‘man’ in ‘mangé’;
- a word the sentence writes more than once is told apart wherever it is named or listed:
  ‘the’ (1st), ‘the’ (2nd) (``Word.occurrence``, one count for every list);
- a word standing alone beside a mark (a dot, an arrow's tip, a number in a list) is
  quoted when it could be read as a sign: ‘一’ beside a dot reads as a minus, a comma
  token as the comma of a list of labels;
- our own wording has typographic apostrophes, and a caption begins with a capital (or
  with a quoted word).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["LQ", "RQ", "focus_name", "focus_parts", "focus_whole", "mark_label", "quoted",
           "reads_as_a_sign", "tidy", "told_apart", "told_parts", "word_name", "word_quoted", "words_named"]

LQ, RQ = "\u2018", "\u2019"


def quoted(text: str) -> str:
    return f"{LQ}{text}{RQ}"


def word_quoted(word) -> str:
    """A word of the sentence (``word_model.Word``) named in running text or a list:
    ‘cat’, or ‘the’ (2nd) where the sentence writes it more than once."""
    return quoted(word.text) + word.told_apart


def told_parts(word, color) -> list:
    """The parts of a drawn line (``text.line_of``) that tell ``word`` from others written
    the same, in our wording and ``color``, after its label: [(" (2nd)", color)] or []."""
    return [(word.told_apart, color)] if word.occurrence else []


def told_apart(trace, index: int) -> str:
    """What tells token ``index``'s word from others written the same (" (2nd)"), or
    nothing: said after the token's name (:func:`word_name`). Nothing for a focus named
    as a run of several words (--focus "New York"): the run is told by its words."""
    from ...attention_core.word_model import WordModel

    word = WordModel.of_trace(trace).word_of(index)
    named = focus_whole(trace) if index == trace.focus_index else None
    return word.told_apart if named in (None, word.text) else ""


def mark_label(text: str) -> str:
    """A word as drawn alone beside a mark (a dot, an arrow's tip, a number in a list):
    as written, or quoted where it could be read as a sign rather than a word."""
    return quoted(text) if reads_as_a_sign(text) else text


def reads_as_a_sign(text: str) -> bool:
    """Whether ``text`` is made only of punctuation, dashes and characters Unicode lists
    as confusable with a dash (its confusables data, UTS #39): ‘,’, ‘!’, ‘一’, ‘ー’, ‘—’.

    >>> [reads_as_a_sign(w) for w in ("一", "ー", "--", ",", "一条", "-1", "cat")]
    [True, True, True, True, False, False, False]
    """
    return bool(text.strip()) and all(
        unicodedata.category(c).startswith("P") or _dash_like(c) for c in text.strip())


_DASH_PROTOTYPES = "\u2212\u30fc"   # the minus sign, and the prototype of dashes in UTS #39


@lru_cache(maxsize=256)
def _dash_like(char: str) -> bool:
    from confusable_homoglyphs import confusables

    def dash(c: str) -> bool:
        return unicodedata.category(c) == "Pd" or c in _DASH_PROTOTYPES

    if dash(char):
        return True
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=[]) or []
    return any(dash(glyph["c"]) for entry in found for glyph in entry["homoglyphs"]
               if len(glyph["c"]) == 1)


def focus_whole(trace) -> str | None:
    """The word the focus token is a piece of, when it is one (the run the user named
    with --focus, else the written word); None for a token that is a whole word."""
    first, last = trace.focus_span
    if last > first:
        return trace.focus_span_text
    word = trace.written_word_of(trace.focus_index)
    return word[2] if word is not None else None


def word_name(trace, index: int) -> str:
    """Token ``index`` in running text: ‘cat’, ‘man’ in ‘mangé’, or a decoder's
    ‘the start token ‘<s>’’."""
    whole = focus_whole(trace) if index == trace.focus_index else (
        (trace.written_word_of(index) or (0, 0, None))[2])
    token = quoted(trace.display_tokens[index])
    if trace.meta.get("start_token") == index:      # a decoder's BOS: heads park weight there
        return f"the start token {token}"
    return (f"{token} in {quoted(whole)}" if whole else token) + told_apart(trace, index)


def focus_name(trace) -> str:
    return word_name(trace, trace.focus_index)


def words_named(trace, indices) -> list[str]:
    return [word_name(trace, j) for j in indices]


def focus_parts(trace) -> list:
    """The focus word as parts of a beat's line (``headers.beat_line``): quoted, in the
    query colour, with the word it is a piece of."""
    parts = [LQ, ("user", trace.focus_word), RQ]
    whole = focus_whole(trace)
    if whole:
        parts += [f" in {LQ}", ("word", whole), RQ]
    told = told_apart(trace, trace.focus_index)
    return parts + [told] if told else parts


def tidy(text: str) -> str:
    """A caption as shown: typographic apostrophes in our wording (a quoted word of the
    user's is left as written) and a capital first letter."""
    out, i = [], 0
    while i < len(text):
        if text[i] == LQ:
            end = text.find(RQ, i + 1)
            end = len(text) - 1 if end < 0 else end
            out.append(text[i:end + 1])
            i = end + 1
        else:
            out.append("\u2019" if text[i] == "'" else text[i])
            i += 1
    said = "".join(out)
    return said[:1].upper() + said[1:] if said[:1].islower() else said
