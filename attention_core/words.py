"""Which words carry content, in any language the frequency lists of wordfreq cover.

A function word (an article, a particle, a pronoun, an auxiliary: "the", "了", "が", "le")
is one of the most frequent words of its language: wordfreq's lists, which ship with it,
rank them at the top in every language alike (its top 200, or a word as frequent as the
200th of most lists). A word's language is chosen among those
written in its script (the script each language is written in comes from langcodes) by
how frequent the sentence's words of that script are in each; a word of a script no list
covers counts as content. Deterministic, offline, no word list of our own.
"""
from __future__ import annotations

import math
from functools import lru_cache

__all__ = ["FUNCTION_RANK", "FUNCTION_ZIPF", "content_words", "language_of"]

# a word among its language's 200 most frequent is a function word: in every list the top
# holds the articles, particles, pronouns and auxiliaries, and few content words
FUNCTION_RANK = 200
# ... and so is a word used about once in every 2,000 words of its language or more (Zipf
# 5.7): a list whose words are finer cut (Hindi's postpositions and auxiliaries, each a
# word) fills its top 200 sooner, and "because" (क्योंकि) is its 206th
FUNCTION_ZIPF = 5.7
_LIST = "small"          # wordfreq's small lists: every language, quick to load

# ISO 15924 codes that name a writing system made of several scripts (langcodes gives a
# language's code; the regex module tests a character against one script)
_SCRIPTS_OF = {"Jpan": ("Hani", "Hira", "Kana"), "Kore": ("Hang", "Hani"),
               "Hans": ("Hani",), "Hant": ("Hani",)}


@lru_cache(maxsize=1)
def _languages_by_script() -> dict[str, tuple[str, ...]]:
    """Each single script (ISO 15924) and the wordfreq languages written in it."""
    import langcodes
    import wordfreq
    by_script: dict[str, list[str]] = {}
    for lang in sorted(wordfreq.available_languages(wordlist=_LIST)):
        code = langcodes.Language.get(lang).maximize().script
        for script in _SCRIPTS_OF.get(code, (code,)):
            by_script.setdefault(script, []).append(lang)
    return {s: tuple(v) for s, v in by_script.items()}


def _script_of(word: str) -> str | None:
    """The script of a word's first letter that some language list is written in."""
    import regex
    for ch in word:
        if not ch.isalpha():
            continue
        for script in _languages_by_script():
            if regex.match(rf"\p{{Script={script}}}", ch):
                return script
    return None


@lru_cache(maxsize=64)
def _frequencies(lang: str) -> dict[str, float]:
    import wordfreq
    return wordfreq.get_frequency_dict(lang, wordlist=_LIST)


@lru_cache(maxsize=64)
def _top(lang: str) -> frozenset[str]:
    """The language's function words: its FUNCTION_RANK most frequent words, and every
    word at least as frequent as FUNCTION_ZIPF."""
    import wordfreq
    least = 10.0 ** (FUNCTION_ZIPF - 9.0)       # Zipf is log10 of a word's per-billion count
    frequent = {w for w, f in _frequencies(lang).items() if f >= least}
    return frozenset(wordfreq.top_n_list(lang, FUNCTION_RANK, wordlist=_LIST)) | frequent


def language_of(words: list[str]) -> str | None:
    """The wordfreq language, among those written in the words' script, in which these
    words are most frequent (the sum of their Zipf values); None for a script no list
    covers. Ties go to the language first in alphabetical order."""
    of_word = [_script_of(w) for w in words]
    scripts = [s for s in of_word if s is not None]
    if not scripts:
        return None
    script = max(set(scripts), key=lambda s: (scripts.count(s), s))
    mine = [w.casefold() for w, s in zip(words, of_word) if s == script]
    best, best_score = None, -1.0
    for lang in _languages_by_script()[script]:
        freq = _frequencies(lang)
        score = sum(math.log10(freq[w] * 1e9) for w in mine if freq.get(w, 0.0) > 0)
        if score > best_score:
            best, best_score = lang, score
    return best


def content_words(words: list[str]) -> list[bool]:
    """For each word of a sentence: does it carry content? Not when it has no letter or
    digit (punctuation), nor when it is among the most frequent words of its language.
    Words are grouped by script, and each group's language chosen on its own (a Chinese
    name in an English sentence is judged as Chinese)."""
    scripts = [_script_of(w) for w in words]
    langs = {s: language_of([w for w, t in zip(words, scripts) if t == s])
             for s in set(scripts) if s is not None}
    out = []
    for word, script in zip(words, scripts):
        if not any(ch.isalnum() for ch in word):
            out.append(False)
            continue
        lang = langs.get(script)
        out.append(lang is None or word.casefold() not in _top(lang))
    return out
