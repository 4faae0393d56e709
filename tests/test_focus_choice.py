"""The automatic focus is a content word in every script: never a particle, a function
word, punctuation or a piece that continues a word (issue 21). The content words of each
sentence are named here by hand, not by the rule under test."""
from __future__ import annotations

import pytest

from attention_explainer.attention_core import api, selection, words

# sentence: the words as written that may be its focus (the content words)
CONTENT = {
    "The cat ate the fish": {"cat", "ate", "fish"},
    # MiniLM reads 猫, 吃, 条 and 鱼 as [UNK]: no content word it reads is left, so the
    # focus is a word it does read (never one it did not see)
    "小猫吃了一条鱼": {"小", "了", "一"},
    "Le chat a mangé le poisson": {"chat", "mangé", "poisson"},
    "猫が魚を食べた": {"猫", "魚", "食べた", "食"},          # never が, を, た
    "Кошка съела рыбу": {"кошка", "съела", "рыбу"},
    "Ο γάτος έφαγε το ψάρι": {"γάτος", "έφαγε", "ψάρι"},
    "Die Straßenbahnhaltestelle liegt gegenüber": {"straßenbahnhaltestelle", "liegt"},
    "The animal didn't cross the street because it was too tired":
        {"animal", "cross", "street", "tired"},
}


def _written_word(tokens, index: int) -> tuple[int, str]:
    """(first token, text) of the word as written that token ``index`` belongs to."""
    for a, b, text in selection.written_words(tokens):
        if a <= index <= b:
            return a, text
    start, end = tokens.offsets[index]
    return index, tokens.sentence[start:end]


@pytest.mark.parametrize("sentence", list(CONTENT))
def test_the_automatic_focus_is_a_content_word(sentence):
    tokens = api.model_files("minilm").tokenize(sentence)
    focus = selection.resolve_focus(None, tokens)
    first, word = _written_word(tokens, focus.index)
    assert word.casefold() in CONTENT[sentence], (sentence, word)
    assert not tokens.unknown[focus.index]
    assert first == focus.index, f"{sentence!r}: the focus continues the word {word!r}"


def test_function_words_are_known_in_each_language():
    # the rule itself, on words a reader knows: each list's top holds its function words
    assert words.content_words(["the", "cat", ",", "it"]) == [False, True, False, False]
    assert words.content_words(["了", "猫"]) == [False, True]
    assert words.content_words(["le", "poisson"]) == [False, True]
    assert words.language_of(["le", "chat", "a", "mangé"]) == "fr"
    assert words.language_of(["小", "猫", "吃", "了"]) == "zh"
    # a script no list covers: every word with a letter counts as content
    assert words.content_words(["ሰላም"]) == [True]
