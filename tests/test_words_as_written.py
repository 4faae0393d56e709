"""Words as written (issue 57): the film's words are the written sentence's — Unicode's word
segmentation of the text as typed, mapped to tokens by their offsets, never the tokenizer's
pre-split nor its normaliser's output — and what the normaliser drops is said; every ranked
list names words, each the sum of its pieces; the automatic focus is a content word a
teacher would ask about; a minimal pair asks about the word it changes; and the claims
audit fails a piece in a list and a word the sentence does not have. The expected words
are written here by hand, not by the rule under test. Fast: no film is rendered."""
from __future__ import annotations

import dataclasses

import pytest

from attention_explainer.attention_core import api, compute_trace, selection, words
from attention_explainer.attention_core.word_model import WordModel, written_segments

HINDI = "बिल्ली ने मछली खाई क्योंकि वह भूखी थी।"
RUSSIAN = "Кошка съела рыбу, потому что она была голодна."
GERMAN = "Der Hund, den ich gestern im Park sah, bellte laut."
US = "On 3 March 2025 the U.S. central bank raised rates by 0.25% after inflation hit 4.1%."
PAIR = ("The doctor called the nurse because she was late",
        "The doctor called the nurse because he was late")


def _tokens(sentence: str):
    return api.model_files("minilm").tokenize(sentence)


def _segments(sentence: str) -> list[str]:
    return [sentence[a:b] for a, b in written_segments(sentence)]


# ---- Unicode's words, in several scripts, mapped to tokens -----------------------------------
@pytest.mark.parametrize("sentence, expected", [
    (US, ["On", "3", "March", "2025", "the", "U.S.", "central", "bank", "raised", "rates",
          "by", "0.25", "%", "after", "inflation", "hit", "4.1", "%", "."]),
    (HINDI, ["बिल्ली", "ने", "मछली", "खाई", "क्योंकि", "वह", "भूखी", "थी", "।"]),
    ("The animal didn't stop, e.g. here!", ["The", "animal", "didn't", "stop", ",", "e.g.",
                                            "here", "!"]),
    ("القطة أكلت السمكة.", ["القطة", "أكلت", "السمكة", "."]),
    # no dictionary: a script written without spaces has each character for a word
    ("我爱北京。", ["我", "爱", "北", "京", "。"]),
])
def test_the_words_are_unicode_s_segmentation_of_the_text_as_typed(sentence, expected):
    assert _segments(sentence) == expected


def test_a_word_is_the_run_of_tokens_its_characters_are_read_by():
    # the normaliser drops the virama and vowel signs: the word is still the whole word
    tokens = _tokens(HINDI)
    every = selection.every_written_word(tokens)
    assert [text for _, _, text in every] == _segments(HINDI)
    runs = {text: (a, b) for a, b, text in every}
    first, last = runs["बिल्ली"]
    assert last - first == 4                             # ब ि ल ल ी: five pieces, one word
    assert "".join(tokens.display_tokens[first:last + 1]) == "बिल्ली"     # drawn as written
    # a word of one token whose vowel sign no token reads is drawn whole too
    j = runs["ने"][0]
    assert runs["ने"] == (j, j) and tokens.display_tokens[j] == "ने"
    assert tokens.read_as[j] == "न"                      # and what the model read is kept
    # 'U.S.' is one word of four tokens, its closing stop included
    us = {text: (a, b) for a, b, text in selection.every_written_word(_tokens(US))}
    assert us["U.S."][1] - us["U.S."][0] == 3 and "U.S" not in us


def test_a_saved_trace_keeps_its_words_and_an_old_one_still_reads(tmp_path):
    trace = compute_trace(HINDI)
    assert trace.meta["word_breaks"] == "unicode"
    path = trace.save(tmp_path / "hindi.npz")
    from attention_explainer.attention_core.trace import AttentionTrace
    again = AttentionTrace.load(path)
    assert [w.text for w in WordModel.of_trace(again).words] == \
        [w.text for w in WordModel.of_trace(trace).words]
    # an older trace, without the key: its runs are read as they were saved
    meta = {k: v for k, v in trace.meta.items() if k != "word_breaks"}
    old = dataclasses.replace(trace, meta=meta)
    assert [w.text for w in WordModel.of_trace(old).words] == \
        [w.text for w in WordModel.of_trace(trace).words]


def test_the_hindi_answer_names_whole_words_and_says_what_is_dropped():
    from attention_explainer.scenes.film import question as asking
    from attention_explainer.scenes.film.readouts import NumberBook

    trace = compute_trace(HINDI)
    named = {w.text for w in WordModel.of_trace(trace).words}
    assert {"बिल्ली", "भूखी"} <= named and not {"बिल", "ल", "ी"} & named
    answer = " ".join(asking.plain(p) for p in asking.answer(NumberBook(trace), trace))
    assert "\u2018बिल\u2019" not in answer and "\u2018ल\u2019" not in answer
    seen = asking.reading(trace)
    assert "\u2018बिल्ली\u2019 as \u2018बिलली\u2019" in seen
    assert "its normaliser drops" in seen and "vowel signs" in seen and "viramas" in seen
    # a sentence read as written says nothing of it
    assert asking.reading(compute_trace("The cat ate the fish")) is None


def test_dropped_marks_are_named_by_their_unicode_names():
    from attention_explainer.scenes.film.question import dropped_marks

    assert dropped_marks([("mère", "mere")]) == ["accents"]
    assert dropped_marks([("ने", "न")]) == ["vowel signs"]
    assert dropped_marks([("बिल्ली", "बिलली")]) == ["viramas"]
    assert dropped_marks([("が", "か")]) == ["voicing marks"]
    assert dropped_marks([("cat", "cat")]) == []


# ---- the automatic focus -----------------------------------------------------------------------
@pytest.mark.parametrize("sentence, allowed", [
    # one-token content words exist: the focus is one of them, never a piece
    ("The cat ate the fish", {"ate"}),
    (GERMAN, {"Park"}),
    (US, {"bank", "central", "raised", "rates", "inflation", "hit", "March", "after"}),
    ("María le dio el libro a Ana porque ella ya lo había leído.", {"María", "Ana"}),
    # none: a content word in pieces, followed by its first piece (never "because")
    (HINDI, {"बिल्ली", "भूखी"}),
    (RUSSIAN, {"Кошка", "съела", "рыбу", "голодна"}),
])
def test_the_automatic_focus_is_a_content_word_of_one_token_where_there_is_one(sentence,
                                                                                allowed):
    tokens = _tokens(sentence)
    focus = selection.resolve_focus(None, tokens)
    every = selection.every_written_word(tokens)
    word = next(w for w in every if w[0] <= focus.index <= w[1])
    assert word[2] in allowed, word
    assert focus.index == word[0]                   # never a piece that continues a word
    assert words.content_words([word[2]]) == [True]
    one_token = [w for w in every if w[0] == w[1] and not tokens.unknown[w[0]]
                 and words.content_words([w[2] for w in every])[every.index(w)]]
    assert (word[0] == word[1]) == bool(one_token)


def test_function_words_are_never_the_focus_in_any_language():
    # "because" in Hindi is 206th of its list: as frequent as a 200th word of most
    assert words.content_words(["क्योंकि", "बिल्ली"]) == [False, True]
    assert words.content_words(["because", "called", "late"]) == [False, True, True]
    for sentence in (HINDI, RUSSIAN, GERMAN, *PAIR):
        tokens = _tokens(sentence)
        focus = selection.resolve_focus(None, tokens)
        text = next(t for a, b, t in selection.every_written_word(tokens)
                    if a <= focus.index <= b)
        assert text not in {"क्योंकि", "потому", "что", "she", "he", "the", "because", "im"}


# ---- a focus in pieces is followed, and named, as a piece ------------------------------------
def test_a_focus_in_pieces_is_named_as_a_piece_in_every_claim():
    from attention_explainer.scenes.film import question as asking
    from attention_explainer.scenes.film.readouts import NumberBook

    trace = compute_trace(RUSSIAN)
    assert trace.focus_span_text == "съела" and trace.focus_word == "с"
    piece = "\u2018с\u2019 in \u2018съела\u2019"
    assert piece in asking.plain(asking.question(trace))
    assert piece in asking.plain(asking.answer(NumberBook(trace), trace)[0])
    assert piece in asking.plain(asking.why(NumberBook(trace), trace))


# ---- lists name words, each the sum of its pieces --------------------------------------------
def test_ranked_lists_name_words_with_their_sums():
    from attention_explainer.scenes.film.beats.softmax import weights_list
    from attention_explainer.scenes.film.claims import claim_faults
    from attention_explainer.scenes.film.readouts import NumberBook
    from attention_explainer.scenes.film.ranking import ranked_words

    trace = compute_trace(GERMAN)
    words = WordModel.of_trace(trace)
    book = NumberBook(trace)
    listed = weights_list(book)
    names = [words.word_of(j).text for j in listed.keys]
    assert "gestern" in names and not {"ge", "ster", "n"} & set(names)
    assert all(words.word_of(j).first == j for j in listed.keys)
    first = words.word_of(listed.keys[0])
    assert listed.entries[0][0].original_text == book.text("word_weight",
                                                           (trace.primary_slot,
                                                            trace.focus_index, *first.span))
    # the list and its "more" line add up to one as drawn
    drawn = [float(e[0].original_text) for e in listed.entries]
    rest = float(listed.more.original_text.split(": ")[1].split()[0])
    assert round(sum(drawn) + rest, 2) == 1.0
    sums = words.sums(trace.weights[trace.primary_slot, trace.focus_index])
    order = [w for group in ranked_words(book, trace.primary_slot) for w in group]
    assert all(sums[a] >= sums[b] - 0.005 for a, b in zip(order, order[1:]))
    assert book.claims and not claim_faults(trace, book.claims)
    # the corpus check reads a word list and its rest, and finds one that does not add up
    from tests.layout_corpus import sum_faults
    assert not sum_faults(trace, book.shown)
    planted = [dataclasses.replace(n, text="0.99") if n.kind == "shown_word_rest" else n
               for n in book.shown]
    assert [f.split(": ", 1)[1] for f in sum_faults(trace, planted)] == [
        "listed words and the rest do not make one"]


# ---- a word written more than once is told apart in every list (issue 60) --------------------
REPEATED = "the dog chased the cat and the cat ran up the tree"


def test_a_word_written_twice_is_told_apart_in_every_list():
    import re

    from attention_explainer.attention_core.notes import beat_quotes
    from attention_explainer.scenes.film import question as asking
    from attention_explainer.scenes.film.beats.softmax import weights_list
    from attention_explainer.scenes.film.head_table import head_rows
    from attention_explainer.scenes.film.readouts import NumberBook
    from attention_explainer.scenes.film.wording import word_name

    trace = compute_trace(REPEATED, focus="ran")
    words = WordModel.of_trace(trace)
    told = {(w.text, w.occurrence) for w in words.words if w.kind == "word"}
    assert told == {("the", 1), ("dog", 0), ("chased", 0), ("the", 2), ("cat", 1),
                    ("and", 0), ("the", 3), ("cat", 2), ("ran", 0), ("up", 0), ("the", 4),
                    ("tree", 0)}
    cats = [w.first for w in words.words if w.text == "cat"]
    # kept with its word by a no-break space: a line never begins with "(2nd)"
    assert [word_name(trace, j) for j in cats] == ["\u2018cat\u2019\u00a0(1st)",
                                                   "\u2018cat\u2019\u00a0(2nd)"]
    book = NumberBook(trace)
    # the weights drawn as a list: no two labels alike
    labels = [entry[1].original_text for entry in weights_list(book).entries]
    assert len(set(labels)) == len(labels), labels
    assert all(re.fullmatch(r"\[CLS\]|\[SEP\]|\w+(\u00a0\((1st|2nd|3rd|4th)\))?( itself)?", t)
               for t in labels), labels
    assert any("(" in t for t in labels)
    # the heads' rows, the answer and the notes name a repeated word with its ordinal
    notes = [n.original_text for n in head_rows(book).notes]
    assert all(("(" in n) == (n.split()[1] in ("the", "cat")) for n in notes), notes
    answer = asking.plain(asking.answer(book, trace)[0])
    for span, name in asking.answer_named(trace):
        word = words.word_of(span[0])
        assert f"\u2018{name}\u2019{word.told_apart}" in answer
    quoted = [line for lines in beat_quotes(trace).values() for line in lines]
    for line in quoted:
        for found in re.finditer("\u2018(the|cat)\u2019(\u00a0\\(\\d\\w\\w\\))?", line):
            assert found.group(2), line


# ---- a minimal pair asks about the word it changes ---------------------------------------------
def test_a_pronoun_pair_asks_about_the_pronoun_in_both():
    from attention_explainer.attention_core.api import TraceRequest
    from attention_explainer.attention_core.compare import compare_sentences, pair_focus

    assert pair_focus(*PAIR) == ("she", "he")
    assert pair_focus("The cat ate the fish", "The fish ate the cat") is None
    for focus in (None, "she"):
        comparison = compare_sentences(TraceRequest(sentence=PAIR[0], focus=focus), PAIR[1])
        assert (comparison.a.focus_word, comparison.b.focus_word) == ("she", "he")
        assert comparison.focus_pair.text_b == "he"
        assert "\u2018he\u2019" in comparison.summary()


# ---- the audit's two rules fail planted faults -------------------------------------------------
def test_the_audit_fails_a_piece_in_a_list():
    from attention_explainer.scenes.film.claims import claim_faults, pieces_named_as_words
    from attention_explainer.scenes.film.readouts import Claim

    trace = compute_trace(GERMAN)
    words = WordModel.of_trace(trace)
    gestern = next(w for w in words.words if w.text == "gestern")
    slot = trace.primary_slot
    whole = Claim("summary", "listed", ("weights", slot, "all", 2, gestern.span), "gestern")
    assert not claim_faults(trace, [whole])
    piece = dataclasses.replace(whole, facts=("weights", slot, "all", 2,
                                              (gestern.first + 1, gestern.first + 1)))
    assert any("pieces in lists" in f for f in claim_faults(trace, [piece]))
    # a side text or caption listing a piece with a weight, with its word or not
    assert pieces_named_as_words(trace, ["\u2018Park\u2019: ster 0.13, ich 0.11"])
    assert pieces_named_as_words(trace, ["weights: \u2018ster\u2019 in \u2018gestern\u2019 0.13"])
    assert not pieces_named_as_words(trace, ["\u2018Park\u2019: gestern 0.28, ich 0.11",
                                             "for \u2018ster\u2019 in \u2018gestern\u2019, +6.1"])


def test_the_audit_fails_a_word_the_written_sentence_does_not_have():
    from attention_explainer.scenes.film.claims import words_not_written

    trace = compute_trace(HINDI)
    assert words_not_written(trace, ["0.18 to \u2018बिल\u2019 and 0.09 to \u2018ल\u2019"])
    assert not words_not_written(trace, [
        "0.18 to \u2018बिल्ली\u2019", "\u2018ब\u2019 in \u2018बिल्ली\u2019 gives",
        "it reads \u2018बिल्ली\u2019 as \u2018बिलली\u2019"])
    us = compute_trace(US)
    assert words_not_written(us, ["\u2018U.S\u2019 gives"])
    assert not words_not_written(us, ["\u2018U.S.\u2019 gives"])


def test_pieces_of_one_character_are_drawn_as_the_parts_they_read():
    """MiniLM reads a Hangul syllable as its jamo, three tokens sharing one character's
    span: each is drawn as the jamo it reads (the fresh-eyes review saw '책 책 책'); a
    character read whole keeps its written form, accents included."""
    import unicodedata

    from attention_explainer.attention_core import compute_trace

    korean = compute_trace("민수는 책을 읽었다")
    words = [t for t, sp in zip(korean.display_tokens, korean.special) if not sp
             and t != "[UNK]"]
    assert "".join(words) == unicodedata.normalize("NFD", "민수는책을")
    french = compute_trace("Le café était chaud")
    assert "café" in french.display_tokens
