"""The question a focus word poses in its sentence, and the words that answer it.

For a pronoun: which noun it may stand for (the nouns before it); for a verb: who does it,
and to what (the sentence's nouns); for an adjective: which noun it describes; for a
number: what it counts (the nouns); for a noun: what is said of it (the verbs and
adjectives); for another content word, or where no tagger knows the language: what it
needs from the other content words; with no other content word: where it looks (every
other word). The head choice (``selection.head_scores``) looks for the answer among these
``targets``; one word answers a pronoun's, an adjective's and a number's (``ONE_ANSWER``).

Word classes come from a part-of-speech tagger that ships its data: pattern's Brill tagger
with its English lexicon, as textblob ships it. Other languages get the question of a
content word: no tagger that ships offline covers them (a CJK segmenter's tags would be one
more source of truth for a single script).
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["CLASS_QUESTIONS", "MIN_OPTIONS", "ONE_ANSWER", "QUESTION_KINDS", "Question", "TAGGER", "TARGETS_SAID", "UNTAGGED",
           "question_for", "word_classes"]

# what the question asks, by kind (the wording is the drawing side's, scenes/film/wording)
QUESTION_KINDS = ("pronoun", "verb", "adjective", "number", "noun", "word", "open")
# the words a question of each kind looks for its answer in, said once for the screen and
# for inspect
TARGETS_SAID = {"pronoun": "the nouns before it", "verb": "the nouns",
                "adjective": "the nouns", "number": "the nouns",
                "noun": "the verbs and adjectives",
                "word": "the other content words", "open": "the other words"}
# said where a question is a content word's because no tagger here covers the language
UNTAGGED = "no word classes are known for this language: a content word's question"
# the questions one word answers (the head choice does not ask for a spread over them)
ONE_ANSWER = ("pronoun", "adjective", "number")
# the questions a word's class poses: each offers a choice of words, two at least
CLASS_QUESTIONS = ("pronoun", "verb", "adjective", "number", "noun")
MIN_OPTIONS = 2
TAGGER = "pattern's Brill tagger (as textblob ships it), English"
# Penn Treebank tags -> the classes a question needs
_CLASSES = {"PRP": "pronoun", "PRP$": "pronoun", "WP": "pronoun", "WP$": "pronoun",
            "NN": "noun", "NNS": "noun", "NNP": "noun", "NNPS": "noun",
            "VB": "verb", "VBD": "verb", "VBG": "verb", "VBN": "verb", "VBP": "verb",
            "VBZ": "verb", "JJ": "adjective", "JJR": "adjective", "JJS": "adjective",
            "CD": "number"}


@dataclass(frozen=True)
class Question:
    """What the focus word asks of its sentence: ``kind`` (one of QUESTION_KINDS) and the
    tokens whose weight answers it (``targets``, ascending); ``tagger`` names what told the
    word classes, None where none was used. ``hidden`` is the kind of the question the word
    would ask had the mask (a causal model's, a sliding window) not hidden every word that
    answers it: this question is the nearest one the visible words can answer."""
    kind: str
    targets: tuple[int, ...]
    tagger: str | None
    hidden: str | None = None

    def to_meta(self) -> dict:
        meta = {"kind": self.kind, "targets": list(self.targets), "tagger": self.tagger}
        if self.hidden is not None:
            meta["hidden"] = self.hidden
        return meta


@lru_cache(maxsize=1)
def _english_parser():
    """pattern's tagger module from textblob's files, loaded alone: importing the textblob
    package imports NLTK and SciPy (2 s on every trace), and the tagger needs neither."""
    spec = importlib.util.find_spec("textblob")       # finds the package, runs nothing
    folder = spec.submodule_search_locations[0]
    loader = importlib.util.spec_from_file_location(
        "attention_explainer_pattern_text", os.path.join(folder, "_text.py"))
    text = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(text)
    en = os.path.join(folder, "en")
    lexicon = text.Lexicon(path=os.path.join(en, "en-lexicon.txt"),
                           morphology=os.path.join(en, "en-morphology.txt"),
                           context=os.path.join(en, "en-context.txt"),
                           entities=os.path.join(en, "en-entities.txt"), language="en")
    return text.Parser(lexicon=lexicon, default=("NN", "NNP", "CD"), language="en")


def word_classes(sentence: str, offsets, special, language: str | None) -> list[str | None]:
    """For each token: "pronoun", "noun", "verb", "adjective", "number" or None (another
    class, a special token, or a language no tagger here covers). The tagger's own tokens
    are found in the sentence in order, and a token takes the class of the tagger's token
    its first character is in."""
    if language != "en":
        return [None] * len(offsets)
    parser = _english_parser()
    spans, cursor = [], 0
    for line in parser.find_tokens(sentence):
        words = line.split()
        for word, tag in parser.find_tags(words):
            at = sentence.find(word, cursor)
            if at < 0:
                continue
            spans.append((at, at + len(word), _CLASSES.get(tag)))
            cursor = at + len(word)
    out = []
    for (start, end), sp in zip(offsets, special):
        found = None if sp or end <= start else next(
            (c for a, b, c in spans if a <= start < b), None)
        out.append(found)
    return out


def question_for(focus: int, focus_span: tuple[int, int], content, classes,
                 special, reads_ahead: bool = True, visible=None, word_of=None) -> Question:
    """The question of the focus token ``focus`` (of the word ``focus_span``: all its
    pieces, none of them "another word"), from the content tokens (a boolean per token),
    each token's class (:func:`word_classes`) and ``special``, the tokens that are no word
    to ask of (added by the model, or read as its unknown token). A causal model (not ``reads_ahead``) can
    answer only from the tokens before it; ``visible`` (a boolean per token: the keys the
    mask leaves the focus) narrows every question to what the focus can see, and a question
    whose answers are all hidden gives way to the next that can be answered (``hidden``).
    A word-class question offers its answers, so it is asked only where it offers
    ``MIN_OPTIONS`` words or more (``word_of``: each token's word; default: each token its
    own): "Which noun does ‘young’ describe: ‘boats’?" is no question; the plain content
    word's is asked instead."""
    first, last = focus_span
    T = len(classes)
    mine = set(range(first, last + 1))
    if not reads_ahead:     # what a causal model cannot see cannot answer: left out
        mine |= set(range(focus + 1, T))
    seen = [True] * T if visible is None else [bool(v) for v in visible]
    tagged = any(c is not None for c in classes)
    tagger = TAGGER if tagged else None
    nouns = [j for j, c in enumerate(classes) if c == "noun" and content[j] and j not in mine]
    kind = classes[focus]
    hidden = None

    def options(targets) -> int:
        return len({j if word_of is None else int(word_of[j]) for j in targets})

    def asked(name: str, targets: list[int]) -> Question | None:
        nonlocal hidden
        if not targets:
            return None
        shown = tuple(j for j in targets if seen[j])
        if shown and name in CLASS_QUESTIONS and options(shown) < MIN_OPTIONS:
            return None         # one offered answer: the plain question is asked
        if shown:
            return Question(name, shown, tagger, hidden)
        hidden = hidden or name
        return None

    if kind == "pronoun":
        found = asked("pronoun", [j for j in nouns if j < first])
        if found:
            return found
    # a number may be a function word to the stop list ("three"): its question still is
    if kind in ("verb", "adjective", "number") and (content[focus] or kind == "number"):
        found = asked(kind, nouns)
        if found:
            return found
    if kind == "noun" and content[focus]:
        found = asked("noun", [j for j, c in enumerate(classes) if c in ("verb", "adjective")
                               and content[j] and j not in mine])
        if found:
            return found
    found = asked("word", [j for j, c in enumerate(content) if c and j not in mine])
    if found:
        return found
    rest = [j for j, sp in enumerate(special) if not sp and j not in mine and seen[j]]
    if not rest:    # a causal model's first word, or a window: it sees only itself
        rest = [focus]
    return Question("open", tuple(rest), tagger, hidden)
