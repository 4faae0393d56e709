"""One truth on any sentence (issue 34): a word as written is the run of tokens that make it,
in every tokenizer family; every claim about a word (the question's candidates, the head
choice, "gives the most to", the answer, the notes, inspect) counts it as the sum of its
pieces; the window never splits a word and what it draws adds up to what it writes; the
film says only what the model has (a bias, an embedding); a head's score and tag stand
beside what an even head scores; a mask that hides every answer is said."""
from __future__ import annotations

import json
import re

import pytest

from attention_explainer.attention_core import compute_trace, derived
from attention_explainer.attention_core.word_model import WordModel
from tests import tiny_models
from tests.conftest import assert_numbers_rederive
from tests.test_beats import render_tiny

# unseen by the film's design: German compounds, French pieces, a pronoun, numbers with
# hyphens, Japanese with [UNK]s and normalised kana, a long English sentence (a window)
SENTENCES = [
    ("Die Katze sah gestern den warmen Ofen, weil sie müde war und schlafen wollte.", {}),
    ("Le petit garçon a couru vers sa mère en criant très fort", {"focus": "couru"}),
    ("The animal didn't cross the street because it was too tired of the zookeeper",
     {"focus": "it"}),
    ("Between 1999-2004 the 3-person team shipped 12 well-tested releases", {}),
    ("彼は図書館で珍しい本を読んだ", {}),
    ("Unbelievably, the quick-witted zookeeper outmanoeuvred the extraordinarily "
     "mischievous chimpanzees yesterday afternoon", {}),
]


@pytest.fixture(scope="module")
def traces():
    return [compute_trace(s, **o) for s, o in SENTENCES]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("truth")
    return {f: tiny_models.build(f, root / f) for f in ("gpt2", "llama", "distilbert")}


def words_are_runs(trace):
    """Every token is in exactly one word; a word of several tokens is written as the
    sentence writes it, its pieces touching."""
    words = WordModel.of_trace(trace)
    covered = [j for w in words.words for j in w.pieces]
    assert covered == list(range(trace.num_tokens))
    for w in words.words:
        if w.kind == "word" and w.split:
            assert w.text in trace.sentence, w
    return words


# ---- the word model, every tokenizer family --------------------------------------------------
def test_words_are_runs_of_pieces_in_every_tokenizer(traces, folders):
    for trace in traces:
        words_are_runs(trace)
    for family, folder in folders.items():
        for sentence in ("The zookeeper's chimpanzees outmanoeuvred everybody",
                         "我爱北京天安门", "Ça, c'est très-très bien !"):
            trace = compute_trace(sentence, model=str(folder))
            words = words_are_runs(trace)
            # the words, in order, write the sentence once: a byte-level BPE's pieces of
            # one character (or of characters it merged across) are one word, no glyph
            # drawn twice, none as a lone byte
            written = "".join(w.text for w in words.words if w.kind == "word")
            if any(w.kind == "unknown" for w in words.words):   # drawn [UNK]: said apart
                continue
            assert written == "".join(sentence.split()), (family, [w.text for w in words.words])
            for j, shown in enumerate(trace.display_tokens):
                assert "\u0120" not in shown and "\ufffd" not in shown, (family, shown)


def test_a_space_token_is_named_as_a_space():
    from attention_explainer.attention_core.bert import ModelFiles  # noqa: F401
    from attention_explainer.attention_core.word_model import SPACE_TOKEN, WordModel

    words = WordModel.from_parts(["Hi", SPACE_TOKEN, "there"], [False, False, False], [])
    assert [w.kind for w in words.words] == ["word", "space", "word"]


def test_the_focus_word_is_never_another_word(traces):
    for trace in traces:
        words = WordModel.of_trace(trace)
        own = words.index_of(trace.focus_index)
        assert own not in derived.answer_words(trace)
        for j in derived.question_targets(trace):
            assert words.index_of(j) != own


# ---- every claim about a word is the sum of its pieces -------------------------------------
def test_the_answer_and_the_runner_up_count_words_whole(traces, tmp_path):
    from attention_explainer.scenes.film import question as asking
    from attention_explainer.scenes.film.readouts import NumberBook

    for trace in traces:
        words = WordModel.of_trace(trace)
        book = NumberBook(trace)
        f, slot = trace.focus_index, trace.primary_slot
        answering = derived.answer_words(trace)
        for parts in asking.answer(book, trace)[:1]:
            text = asking.plain(parts)
            for n in book.shown:
                # a word's weight is drawn rounded with its row of words: within a unit of
                # its last decimal
                if n.kind == "shown_word_weight":
                    h, i, a, b, _ = n.index
                    assert float(n.text) == pytest.approx(
                        trace.weights[h, i, a:b + 1].sum(), abs=0.01)
                    assert words.index_of(a) in answering
            # the words named are ranked by their sums, most first
            # (after the focus, which a piece of a word names as ‘man’ in ‘mangé’)
            named = re.findall(r"\u2018([^\u2019]+)\u2019", text.split(" gives ", 1)[1])
            sums = {words.words[w].text: words.total(trace.weights[slot, f], w)
                    for w in answering}
            assert [sums[t] for t in named] == sorted((sums[t] for t in named), reverse=True)
            assert all(t in sums for t in named), (named, sums)
        said = asking.runner_up(book, trace)
        if said:
            other = 1 if slot == 0 else 0
            best = max(answering, key=lambda w: words.total(trace.weights[other, f], w))
            assert said.endswith(f"\u2018{words.words[best].text}\u2019")
        assert_numbers_rederive(trace, book.shown)


def test_the_notes_name_pieces_with_their_words(traces):
    from attention_explainer.attention_core.notes import beat_quotes
    from attention_explainer.scenes.film.claims import pieces_named_as_words

    for trace in traces:
        lines = [line for said in beat_quotes(trace).values() for line in said]
        assert not pieces_named_as_words(trace, lines)
    # the rule fails a piece named alone
    german = traces[0]
    assert pieces_named_as_words(german, ["weight of \u2018ster\u2019: 0.03"])
    assert not pieces_named_as_words(german, ["\u2018ster\u2019 in \u2018gestern\u2019"])


def test_inspect_and_json_count_words_whole(run_cli):
    sentence, options = SENTENCES[0]
    code, out, err = run_cli("inspect", sentence, "--json")
    assert code == 0, err
    doc = json.loads(out)
    trace = compute_trace(sentence)
    words = WordModel.of_trace(trace)
    assert [w["text"] for w in doc["words"]] == [w.text for w in words.words]
    for entry, word in zip(doc["words"], words.words):
        assert entry["weights"][0] == pytest.approx(
            float(trace.weights[0, trace.focus_index, word.first:word.last + 1].sum()), abs=1e-6)
    code, out, err = run_cli("inspect", sentence)
    why = [line for line in out.splitlines() if "of the weight of" in line]
    assert why and all("an even spread:" in line for line in why)
    assert "a word in pieces weighs the sum of its pieces" in out


# ---- an honest window ----------------------------------------------------------------------------
def test_the_window_holds_whole_words_and_its_bars_add_up(traces, tmp_path):
    from attention_explainer.scenes.film.views import drawn_indices

    long = [t for t in traces if t.num_tokens > 16]
    assert len(long) >= 2
    for trace in long:
        words = WordModel.of_trace(trace)
        drawn = drawn_indices(trace)
        assert len(drawn) < trace.num_tokens
        for w in words.words_of(drawn):
            assert set(words.words[w].pieces) <= set(drawn), words.words[w]
    trace = long[0]
    scene = render_tiny(["softmax", "heads"], trace, tmp_path)
    shown = [n for n in scene.shown_numbers if n.beat == "softmax"]
    bars = [n for n in shown if n.kind in ("shown_weights", "shown_weight_rest")
            and n.decimals == 2 and (n.kind != "shown_weights" or n.index[-1] == 2)]
    drawn = drawn_indices(trace)
    entries = {n.index[2]: n.text for n in bars if n.kind == "shown_weights"}
    rest = [n.text for n in bars if n.kind == "shown_weight_rest"]
    assert set(entries) == set(drawn) and rest, (entries, rest)
    total = [n.text for n in shown if n.kind == "shown_weight_sum"]
    assert round(sum(float(t) for t in entries.values()) + float(rest[0]), 2) == float(total[0])
    # every row's note in the heads beat names a drawn word
    heads = [n for n in scene.shown_numbers if n.beat == "heads"
             and n.kind == "shown_word_weight"]
    assert heads
    for n in heads:
        assert n.index[2] in drawn and n.index[3] in drawn
    said = [c.content for c in scene.renderer.file_writer.subcaptions if "dot products" in c.content]
    assert all("of" in s for s in said)
    assert_numbers_rederive(trace, scene.shown_numbers)


# ---- what the model saw, and only what it has ---------------------------------------------------
def test_unknown_tokens_are_drawn_as_the_model_read_them(traces):
    from attention_explainer.scenes.film import question as asking

    japanese = traces[4]
    unknown = japanese.meta["unknown_tokens"]
    assert unknown and all(japanese.display_tokens[j] == "[UNK]" for j in unknown)
    words = WordModel.of_trace(japanese)
    # no claim is made about what the model never saw
    assert all(words.words[w].kind != "unknown" for w in derived.answer_words(japanese))
    seen = asking.reading(japanese)
    assert "cannot read" in seen and "\u2018\u3067\u2019 as \u2018\u3066\u2019" in seen


def test_a_llama_without_bias_is_never_said_to_have_one(folders, tmp_path):
    trace = compute_trace("The dog slept because it was tired.", model=str(folders["llama"]))
    assert not trace.has_bias
    scene = render_tiny(["project"], trace, tmp_path)
    said = " ".join(c.content for c in scene.renderer.file_writer.subcaptions)
    assert "bias" not in said.replace("adds no bias", "")
    assert "embedding" not in said                     # it reads its normed residual stream
    assert "adds no bias" in said


def test_a_mask_that_hides_every_answer_is_said(run_cli):
    sentence = "The lawyer questioned the witness because she was lying"
    trace = compute_trace(sentence, focus="she", mask="window:1", layer=3)
    asked = derived.question(trace)
    assert asked["hidden"] == "pronoun" and asked["kind"] != "pronoun"
    visible = ~trace.mask[trace.focus_index]
    assert all(visible[j] for j in asked["targets"])
    code, out, err = run_cli("inspect", sentence, "--focus", "she", "--mask", "window:1",
                             "--layer", "3")
    assert code == 0, err
    assert "the mask hides the nouns before it" in out


def test_a_random_model_has_few_heads_above_chance(folders, run_cli):
    code, out, err = run_cli("inspect", "The dog slept because it was tired.", "--model",
                             str(folders["gpt2"]), "--diagnose", "--json")
    assert code == 0, err
    heads = json.loads(out)["diagnosis"]["heads"]
    tagged = [h for h in heads if h["tag"] != "none"]
    assert len(tagged) <= len(heads) // 2, tagged
    for h in tagged:
        assert h["share"] >= h["baseline"] + 0.15
    code, out, err = run_cli("inspect", "The dog slept because it was tired.", "--model",
                             str(folders["gpt2"]), "--diagnose")
    assert "chance" in out


# ---- the claims audit -------------------------------------------------------------------------
def test_the_claims_audit_passes_a_film_and_fails_planted_contradictions(traces, tmp_path):
    import dataclasses

    from attention_explainer.scenes.film.claims import claim_faults

    trace = traces[0]                    # a window, words in pieces
    scene = render_tiny(["softmax", "heads", "update"], trace, tmp_path)
    claims = scene.book.claims
    kinds = {c.kind for c in claims}
    assert {"heaviest", "ranked", "update_ranked", "adds_up"} <= kinds, kinds
    assert claim_faults(trace, claims) == []
    words = WordModel.of_trace(trace)

    def planted(claim, facts):
        return claim_faults(trace, [dataclasses.replace(claim, facts=facts)])
    # a caption's word swapped for a lighter one
    heaviest = next(c for c in claims if c.kind == "heaviest")
    slot, span, among = heaviest.facts
    sums = words.sums(trace.weights[slot, trace.focus_index])
    lighter = min((w for w in range(len(words)) if words.words[w].kind == "word"),
                  key=lambda w: sums[w])
    assert planted(heaviest, (slot, words.words[lighter].span, "all"))
    # a piece named as if it were the word
    split = next(w for w in words.words if w.split)
    assert planted(heaviest, (slot, (split.first, split.first), "all"))
    # the answer's order reversed
    ranked = next(c for c in claims if c.kind == "ranked")
    if len(ranked.facts) > 2:
        assert planted(ranked, (ranked.facts[0], *reversed(ranked.facts[1:])))
    # a sum drawn short: a bar's number lowered by one unit
    adds = next(c for c in claims if c.kind == "adds_up" and c.beat == "softmax")
    total, first, *rest = adds.facts
    lowered = f"{float(first) - 0.01:.2f}"
    assert planted(adds, (total, lowered, *rest))
    # the update's words out of order
    update = next(c for c in claims if c.kind == "update_ranked")
    assert planted(update, tuple(reversed(update.facts)))


@pytest.mark.parametrize("key, value", [
    ("unknown_tokens", [999]), ("unknown_tokens", "1"), ("unknown_tokens", [True]),
    ("read_as", {"x": "a"}), ("read_as", {"999": "a"}), ("read_as", {"1": 2}),
    ("read_as", ["1"]),
])
def test_a_trace_lying_about_what_the_model_saw_is_refused(traces, key, value):
    import dataclasses

    from attention_explainer.attention_core.errors import InputError

    lying = dataclasses.replace(traces[0], meta={**traces[0].meta, key: value})
    with pytest.raises(InputError, match=key):
        lying.validate()
