"""Which token to explain (the focus) and which layer/heads to show."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .word_model import words_as_written
from .words import content_words

__all__ = ["AUTO_HEAD_COUNT", "Focus", "choose", "content_tokens", "every_written_word",
           "head_scores", "uniform_row", "parse_heads", "parse_layer", "resolve_focus",
           "word_content", "written_content", "written_words"]

AUTO_HEAD_COUNT = 4   # heads shown side by side when --heads auto


def _fold(text: str) -> str:
    """Case- and accent-insensitive form for matching --focus against the sentence."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _is_cjk(text: str) -> bool:
    """Ideographs, kana and hangul: scripts written without spaces, where touching tokens
    are not one word (``translation`` reads a translation's pieces with it)."""
    return any(unicodedata.east_asian_width(ch) in "WF" for ch in text)


def written_words(tokens) -> list[tuple[int, int, str]]:
    """The words of the sentence as written that the tokenizer cut into several tokens:
    (first, last, text) for each, the text the word as written ("mangé" is man + gé;
    "didn't" is didn + ' + t; ‘बिल्ली’ is five pieces, its virama read by none). Words are
    Unicode's (:func:`word_model.words_as_written`): "Moon!" is the word Moon and a mark,
    "U.S." one word, and each ideograph of a script written without spaces a word, but the
    byte tokens of one character (a byte-level BPE's pieces of 猫) are that character."""
    return [w for w in every_written_word(tokens) if w[1] > w[0]]


def every_written_word(tokens) -> list[tuple[int, int, str]]:
    """Every word as written that the tokens read, of one token or several: (first, last,
    text) in sentence order (:func:`word_model.words_as_written`)."""
    return words_as_written(tokens.sentence, tokens.offsets, tokens.special)


def written_content(tokens) -> np.ndarray:
    """Boolean per token: a piece of a content word (``words.content_words``), each word
    judged whole as written ("didn't" is a function word, whatever its pieces "didn" and
    "t" look like; ‘ने’ is Hindi's particle, though its vowel sign is dropped before the
    model reads it); special tokens and punctuation never are."""
    every = every_written_word(tokens)
    verdict = content_words([text for _, _, text in every])
    out = np.zeros(len(tokens.special), dtype=bool)
    for (a, b, _), content in zip(every, verdict):
        out[a:b + 1] = content
    return out & ~np.asarray(tokens.special, dtype=bool)


def content_tokens(special: list[bool], word_ids: list[int], words: list[str],
                   written=()) -> np.ndarray:
    """Boolean per token: a piece of a content word (not special, punctuation or a function
    word of its language). A word the tokenizer cut up (``written``: (first, last, text)
    token runs, :func:`written_words`) is judged whole: "didn't" is a function word,
    whatever its pieces "didn" and "t" look like."""
    content = word_content(word_ids, words, written)
    return np.array([(not sp) and wid >= 0 and content[wid]
                     for sp, wid in zip(special, word_ids)], dtype=bool)


def word_content(word_ids: list[int], words: list[str], written=()) -> list[bool]:
    """For each word of the tokenizer's pre-split (``words``): does it carry content, the
    words as written (``written``) judged whole (``words.content_words``)."""
    written = list(written)
    verdict = content_words(list(words) + [text for _, _, text in written])
    content = verdict[:len(words)]
    for (a, b, _), whole in zip(written, verdict[len(words):]):
        for n in range(a, b + 1):
            if word_ids[n] >= 0:
                content[word_ids[n]] = whole
    return content


@dataclass(frozen=True)
class Focus:
    """The query explained: token ``index`` (``text`` as the user wrote it), chosen from
    the run of whole tokens ``span`` (first, last) that the user named (``span_text``)."""
    index: int
    text: str
    span: tuple[int, int]
    span_text: str


_PICK = re.compile(r"^(?P<words>.*\S)\s*\[(?P<n>-?\d{1,4})\]$", re.S)


def resolve_focus(focus: str | None, tokens, reads_ahead: bool = True) -> Focus:
    """The query token to explain, from ``--focus`` and a TokenizedSentence.

    Empty (the default) picks the middle content word, "ate" in "The cat ate the fish"
    (:func:`_automatic_focus`); in a causal model (not ``reads_ahead``) the last, which sees
    the whole sentence: "fish".
    Otherwise ``focus`` is any run of whole tokens of the sentence, matched case- and
    accent-insensitively ("北京" is the two tokens 北 and 京; "unbelievably" is un ##bel
    ##ie ##va ##bly); its first token's query is explained, or the n-th with
    "WORDS[n]" (from 0; -1 is the last).
    """
    words = tokens.words
    if not words:
        raise InputError("the sentence has no words to explain; type a sentence with words.")
    if focus is None or not focus.strip():
        return _automatic_focus(tokens, reads_ahead)
    match = _PICK.match(focus.strip())
    wanted, pick = (match["words"], int(match["n"])) if match else (focus.strip(), 0)
    span = _find_span(tokens, wanted)
    if span is None:
        shown = ", ".join(dict.fromkeys(text for _, _, text in every_written_word(tokens)))
        shown = shown[:300] + "…" if len(shown) > 300 else shown
        raise InputError(f"--focus {focus!r} is not a run of whole tokens of the sentence; "
                         f"choose words from: {shown}.")
    size = span[1] - span[0] + 1
    if not -size <= pick < size:
        raise InputError(f"--focus {focus!r}: {wanted} is {size} token{'s' * (size > 1)}; "
                         f"pick one with [0] to [{size - 1}].")
    sentence = tokens.sentence
    return _focus(tokens, span, pick % size,
                  sentence[tokens.offsets[span[0]][0]:tokens.offsets[span[1]][1]])


def _automatic_focus(tokens, reads_ahead: bool) -> Focus:
    """The word a teacher would ask about: a content word (a function word carries little
    of its own, in any language: ``words.content_words``) that the model reads as written
    (never one read as its unknown token: it did not see what it would be asked), of one
    token where the sentence has one (a word in pieces is followed by its first piece's
    query, which the film must then say); the middle one of them, or in a causal model the
    last content word, one token or not. A sentence of function words alone gives its middle word with a letter or digit.
    The focus span is the whole word, so the film names a piece with its word."""
    every = every_written_word(tokens)
    if not every:
        raise InputError("the sentence has no words to explain; type a sentence with words.")
    content = content_words([text for _, _, text in every])
    seen = [not any(tokens.unknown[j] for j in range(a, b + 1)) if tokens.unknown else True
            for a, b, _ in every]
    readable = [n for n in range(len(every)) if seen[n]]
    # in a causal model a word sees only what precedes it: being last (seeing the
    # sentence) counts before being one token
    tiers = (
        [n for n in readable if content[n] and (every[n][0] == every[n][1] or not reads_ahead)],
        [n for n in readable if content[n]],
        [n for n in readable if any(ch.isalnum() for ch in every[n][2])],
        readable,
        list(range(len(every))),
    )
    candidates = next(tier for tier in tiers if tier)
    first, last, text = every[candidates[(len(candidates) - 1) // 2 if reads_ahead else -1]]
    return _focus(tokens, (first, last), 0, text)


def _focus(tokens, span: tuple[int, int], pick: int, span_text: str) -> Focus:
    index = span[0] + pick
    return Focus(index, tokens.display_tokens[index], span, span_text)


def _find_span(tokens, wanted: str) -> tuple[int, int] | None:
    """The first run of non-special tokens whose text in the sentence is ``wanted``."""
    target = " ".join(_fold(wanted).split())
    if not target:
        return None
    offsets, special, sentence = tokens.offsets, tokens.special, tokens.sentence
    for a in range(len(offsets)):
        if special[a]:
            continue
        for b in range(a, len(offsets)):
            if special[b]:
                break
            text = " ".join(_fold(sentence[offsets[a][0]:offsets[b][1]]).split())
            if text == target:
                return a, b
            if len(text) > len(target):
                break
    return None


def head_scores(focus_rows: np.ndarray, focus_index: int, targets: np.ndarray,
                spread: bool = True, word_of=None) -> np.ndarray:
    """How well each head answers the focus word's question: the attention it sends to
    the words that may answer (``targets``, a boolean per token, ``grammar.Question``),
    times, with ``spread``, how evenly that is spread over those words (1 - the sum of
    their squared shares).

    focus_rows: ... x H x T (the focus token's weights). ``word_of`` (the word index of
    each token, ``WordModel``) counts a word as the sum of all its pieces, the focus's own
    word never; without it each token is a word. A head that sends everything to one
    neighbour is usually positional ("look at the previous token") and explains little; when
    only one word may answer the spread term is skipped. A pronoun's question is answered
    by a head that commits to one noun, so it is scored without ``spread``.
    """
    T = focus_rows.shape[-1]
    word_of = np.arange(T) if word_of is None else np.asarray(word_of)
    targets = np.asarray(targets, dtype=bool)
    chosen = set(word_of[targets].tolist()) - {int(word_of[focus_index])}
    words = sorted(chosen)
    if not words:
        return np.zeros(focus_rows.shape[:-1])
    # each target word's weight: its pieces' sum
    per_word = np.stack([(focus_rows * (word_of == w)).sum(axis=-1) for w in words], axis=-1)
    mass = per_word.sum(axis=-1)
    if not spread or len(words) < 2:
        return mass
    shares = per_word / np.maximum(mass[..., None], 1e-12)
    return mass * (1.0 - (shares ** 2).sum(axis=-1))


def uniform_row(allowed) -> np.ndarray:
    """The weights of a head that spreads its attention evenly over the keys ``allowed``
    (a boolean per token): the chance baseline a head's score is measured against."""
    allowed = np.asarray(allowed, dtype=np.float64)
    return allowed / max(allowed.sum(), 1.0)


def parse_heads(spec: str | None, num_heads: int) -> str | list[int]:
    """'auto', 'all' or a list of head indices (checked against the model)."""
    text = (spec or "auto").strip().lower()
    if text in ("auto", "all"):
        return text
    if not re.fullmatch(r"\d+(\s*,\s*\d+)*", text):
        raise InputError(f"--heads {spec!r} is malformed; use auto, all or indices like 0,5,11 "
                         f"(0 to {num_heads - 1}).")
    heads = [int(h) for h in text.split(",")]
    bad = [h for h in heads if h >= num_heads]
    if bad:
        raise InputError(f"--heads {bad[0]} is out of range; this model has {num_heads} heads "
                         f"per layer (0 to {num_heads - 1}).")
    if len(set(heads)) != len(heads):
        raise InputError(f"--heads {spec!r} names a head twice; list each head once.")
    return heads


def parse_layer(spec: str | int | None, num_layers: int) -> str | int:
    text = str("auto" if spec is None else spec).strip().lower()
    if text == "auto":
        return "auto"
    if not re.fullmatch(r"-?\d+", text):
        raise InputError(f"--layer {spec!r} is malformed; use auto or a number from 0 to "
                         f"{num_layers - 1}.")
    layer = int(text)
    if not 0 <= layer < num_layers:
        raise InputError(f"--layer {layer} is out of range; this model has {num_layers} "
                         f"layers (0 to {num_layers - 1}).")
    return layer


def choose(scores: np.ndarray, layer_spec, head_spec) -> tuple[int, list[int], int]:
    """From per-layer, per-head scores (L x H) pick (layer, heads in axis order, primary).

    auto: the best head and the next best of its layer (AUTO_HEAD_COUNT in all), best first;
    all: every head in order, the best one primary; a list: those heads in the given order,
    the first one primary. --layer auto takes the layer holding the best eligible head.
    """
    num_layers, num_heads = scores.shape
    eligible = list(range(num_heads)) if isinstance(head_spec, str) else head_spec
    if layer_spec == "auto":
        # ties broken by the lowest layer, then the lowest head: deterministic
        layer = int(max(range(num_layers), key=lambda L: (max(scores[L, h] for h in eligible), -L)))
    else:
        layer = int(layer_spec)
    row = scores[layer]
    ranked = sorted(range(num_heads), key=lambda h: (-row[h], h))
    if head_spec == "auto":
        heads = ranked[:min(AUTO_HEAD_COUNT, num_heads)]
        return layer, heads, heads[0]
    if head_spec == "all":
        return layer, list(range(num_heads)), ranked[0]
    return layer, list(head_spec), head_spec[0]
