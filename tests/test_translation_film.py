"""The film of a translation's cross-attention (issues 39, 59): `translate` on a tiny random
Marian (its SentencePiece model trained here) and on the scratch encoder–decoder. Every
beat passes the layout audit on pairs in Latin, CJK, accented and right-to-left script and
on pairs of 15 tokens and more (drawn in a window); every number drawn and every claim in
words is re-derived from the view, and the claims audit agrees (a planted lie fails it);
the scratch model's weights are the formula's; the command writes its four files (the film
with its chapters, captions, poster and numbers), a re-render comes from the beat cache, a
lecture pack holds a clip per beat; refused, it writes nothing."""
from __future__ import annotations

import json

import numpy as np
import pytest

from attention_explainer.facts import TRANSLATION_BEATS
from tests import tiny_models
from tests.layout_corpus import audited

MARIAN_PAIRS = [       # (source, target or None: the model's own, focus or None)
    ("The chef cooked for the guests.", "Le chat a mangé.", None),
    ("The street is tired.", "我爱北京天安门", None),
    ("Le chat a mangé la souris", "The cat was tired.", None),
    ("The animal didn't cross the street because it was too tired.",
     "Le chat a mangé la souris parce qu'elle était lente.", None),
    ("我爱北京天安门", None, None),
]
SCRATCH_PAIRS = [
    ("The cat ate the fish", "Die Katze hat den Fisch gegessen", "Katze"),
    ("I love Beijing", "我爱北京天安门", "北"),
    ("The coffee was too hot", "Le café était trop chaud", "café"),
    ("The lawyer questioned the witness because she doubted his story about that night.",
     "L'avocate a interrogé le témoin parce qu'elle doutait de son histoire.", "témoin"),
    ("القط الصغير أكل السمكة", "The small cat ate the fish", "cat"),
    ("The small cat ate the fish", "القط الصغير أكل السمكة", None),
    ("I like green tea in the morning", "我喜欢早上喝绿茶", None),     # [UNK]s: MiniLM lacks them
    ("The boy wrote the letter on the table", "הילד כתב את המכתב על השולחן", "המכתב"),
]


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    return tiny_models.build_marian(tmp_path_factory.mktemp("marian") / "marian")


def _view(model, source, target, focus, **kwargs):
    import torch

    from attention_explainer.attention_core.translation import cross_view

    sizes = dict(d_model=64, num_heads=4) if model == "scratch" else {}
    return cross_view(model, source, target=target, focus=focus, max_new_tokens=6,
                      device=torch.device("cpu"), dtype=torch.float32, **sizes, **kwargs)


def _audited(view, folder):
    from attention_explainer.scenes.translation_film import TranslationFilm

    return audited(lambda: TranslationFilm(view, skip_animations=True), folder)


def _rederived(view, scene) -> None:
    """Every number drawn is the view's, as drawn; every claim holds, here and in the
    claims audit."""
    from attention_explainer.scenes.film.claims import claim_faults
    from attention_explainer.scenes.film.readouts import format_number
    from attention_explainer.scenes.translation_film import layout_of

    assert scene.book.shown, "the film drew no number"
    assert claim_faults(view, scene.book.claims) == []
    for number in scene.book.shown:
        beat, what, index, text = number.beat, number.kind, number.index, number.text
        sums = view.word_weights(index[0])
        if what == "word_weight":
            expected = sums[index[1]]
        elif what == "words_sum":        # the tokens a window leaves out: their weight
            expected = sum(sums[w] for w in index[1:])
            assert not any(view.source_words.words[w].first in layout_of(scene).src
                           for w in index[1:])
        elif what == "even_ratio":
            words = view.source_words.words
            count = sum(len(w.pieces) for w in words)
            expected = sums[index[1]] * count / len(words[index[1]].pieces)
        else:
            assert what == "row_sum"
            expected = sums.sum()
        assert text == format_number(float(expected), number.decimals), (beat, what, index,
                                                                          text)
    (beat, kind, facts, said), = [(c.beat, c.kind, c.facts, c.said) for c in scene.book.claims]
    head, *named = facts
    sums = view.word_weights(head)
    words = view.source_words.words
    if view.untrained:
        # no winner named: the words furthest below and above an even spread, with its
        # share of a token, and nothing said to be preferred
        count = sum(len(w.pieces) for w in words)
        ratios = [sums[w] * count / len(words[w].pieces) for w in range(len(words))]
        assert kind == "even" and named == [int(np.argmin(ratios)), int(np.argmax(ratios))]
        assert format_number(1 / count, 2) in said and "draws most" not in said
        assert f"{format_number(min(ratios), 1)} to {format_number(max(ratios), 1)} times" \
            in said, said
        assert ("near evenly" in said) == all(0.5 <= r <= 2.0 for r in ratios), said
        return
    assert kind == "most" and named[0] == int(np.argmax(sums)), said
    assert all(sums[a] >= sums[b] for a, b in zip(named, named[1:])), said
    assert all(words[w].text[:10] in said for w in named), said
    # the words the answer names are drawn, whatever the windows leave out
    for drawn in (layout_of(scene).src, layout_of(scene).grid_src):
        assert all(j in drawn for w in named for j in words[w].pieces)


def _assert_clean(scene, label) -> None:
    assert not scene.layout_log, f"{label}: {scene.layout_log[:6]}"
    assert not scene.audit_log, f"{label}: {scene.audit_log[:6]}"
    assert list(scene.key_times) == list(TRANSLATION_BEATS)
    assert all(scene.book.claims or beat != "answer" for beat in scene.key_times)


@pytest.mark.slow
@pytest.mark.parametrize("source, target, focus", MARIAN_PAIRS)
def test_every_beat_of_a_marian_film_holds_its_layout(source, target, focus, marian,
                                                      tmp_path):
    view = _view(str(marian), source, target, focus)
    scene = _audited(view, tmp_path)
    _assert_clean(scene, source)
    _rederived(view, scene)


@pytest.mark.slow
@pytest.mark.parametrize("source, target, focus", SCRATCH_PAIRS)
def test_every_beat_of_a_scratch_film_holds_its_layout(source, target, focus, tmp_path):
    view = _view("scratch", source, target, focus)
    assert view.untrained
    scene = _audited(view, tmp_path)
    _assert_clean(scene, source)
    _rederived(view, scene)
    if focus:
        assert view.focus_text == focus
    assert not any(view.target_unknown[j] or view.target_special[j] for j in view.focus)


def test_a_long_pair_is_drawn_in_a_window_that_keeps_the_answer():
    from attention_explainer.scenes.translation_views import drawn_windows

    source, target, focus = SCRATCH_PAIRS[3]
    view = _view("scratch", source, target, focus)
    src, tgt = drawn_windows(view, grid=True)
    assert len(view.source) >= 15 and len(view.target) >= 15
    assert len(src) < len(view.source) or len(tgt) < len(view.target)
    assert set(view.focus) <= set(tgt)
    top = view.source_words.words[view.ranked_words()[0]]
    assert set(top.pieces) <= set(src)
    # whole words only: a drawn piece's word is drawn whole
    for words, drawn in ((view.source_words, src), (view.target_words, tgt)):
        for j in drawn:
            assert set(words.word_of(j).pieces) <= set(drawn)


def test_the_scratch_cross_attention_is_the_formula():
    """Queries from the decoder's states, keys from the encoder's, each seeded module's
    own maps: softmax(QKᵀ/√d_k) recomputed here from the modules."""
    import math

    import torch

    from attention_explainer.attention_core import bert, scratch
    from attention_explainer.attention_core.model_kinds import model_files

    source, target = "The cat ate the fish", "Die Katze hat den Fisch"
    view = _view("scratch", source, target, None, seed=3)
    files = model_files("scratch")
    src, tgt = files.tokenize(source), files.tokenize(target)
    cpu, f32 = torch.device("cpu"), torch.float32
    weights = files.load_weights(cpu, f32)
    proj = scratch.seeded_input_projection(weights.d_model, 64, 3, cpu, f32)

    def embedded(ids):
        ids = torch.tensor([ids])
        return bert.embed(weights, ids, positions=False) @ proj + \
            scratch.sinusoidal_positions(ids.shape[1], 64, cpu, f32)[None]

    enc, dec, cross = (scratch.seeded_module(64, 4, 3 + n, cpu, f32) for n in range(3))
    with torch.no_grad():
        x = embedded(src.ids)
        memory = x + enc(x)
        y = embedded(tgt.ids[:-1])
        later = torch.triu(torch.ones(y.shape[1], y.shape[1], dtype=torch.bool), 1)
        states = y + dec(y, later[None, None])
        w, b = cross.qkv_proj.weight, cross.qkv_proj.bias
        q = states @ w[:64].T + b[:64]
        k = memory @ w[64:128].T + b[64:128]
        q = q.view(1, -1, 4, 16).transpose(1, 2)
        k = k.view(1, -1, 4, 16).transpose(1, 2)
        expected = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(16), dim=-1)[0]
    assert view.weights.shape == (4, len(tgt.ids) - 1, len(src.ids))
    np.testing.assert_allclose(view.weights, expected.double().numpy(), atol=1e-6)
    np.testing.assert_allclose(view.weights.sum(-1), 1.0, atol=1e-5)


def test_the_marian_view_is_its_checked_cross_attention(marian):
    import torch

    from attention_explainer.attention_core.seq2seq import align, seq2seq_files

    source, target, _ = MARIAN_PAIRS[0]
    view = _view(str(marian), source, target, None)
    found = align(seq2seq_files(str(marian)), source, target=target, kind="cross",
                  device=torch.device("cpu"), dtype=torch.float32)
    np.testing.assert_array_equal(view.weights, found.weights)
    assert view.layer == found.layer == found.num_layers - 1
    assert view.source_special[-1] and view.target_special[-1]        # </s>
    assert view.translation == "given" and not view.untrained


def test_the_claims_audit_catches_a_lying_answer():
    from attention_explainer.scenes.film.claims import claim_faults
    from attention_explainer.scenes.film.readouts import Claim

    view = _view("scratch", *SCRATCH_PAIRS[0])
    sums = view.word_weights()
    light = int(np.argmin(sums))
    lie = Claim("answer", "most", (view.head, light), f"draws most on {view.source_words.words[light].text}")
    assert any("not the heaviest" in f for f in claim_faults(view, [lie]))
    even = Claim("answer", "even", (view.head, 0, 0), "spreads its weight unevenly")
    assert claim_faults(view, [even])


@pytest.mark.slow
def test_translate_writes_the_film_its_captions_poster_and_numbers(run_cli, tmp_path):
    import av

    from attention_explainer.facts import beat_facts

    out = tmp_path / "cat.mp4"
    args = ("translate", "The cat ate the fish", "--target", "Die Katze hat den Fisch gegessen",
            "--focus", "Katze", "--d-model", "64", "--num-heads", "4",
            "--resolution", "320x180", "--fps", "5", "--theme", "light", "-o", out)
    code, stdout, stderr = run_cli(*args, "--json")
    assert code == 0, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat.json", "cat.mp4", "cat.png",
                                                          "cat.srt"]
    with av.open(str(out)) as box:
        assert box.streams.video[0].width == 320
        titles = [c["metadata"]["title"] for c in box.chapters()]
        assert titles == [beat_facts(b).title for b in TRANSLATION_BEATS]
        duration = box.duration / 1e6
    captions = (tmp_path / "cat.srt").read_text()
    assert "Katze" in captions and captions.count("-->") >= len(TRANSLATION_BEATS)
    last = captions.strip().split("\n\n")[-1].splitlines()[1].split(" --> ")[1]
    h, m, rest = last.split(":")
    assert int(h) * 3600 + int(m) * 60 + float(rest.replace(",", ".")) <= duration + 0.05
    code, stdout, stderr = run_cli(*args, "--force", "--json")      # again: from the cache
    assert code == 0, stderr
    assert set(json.loads(stdout)["cached_beats"]) == set(TRANSLATION_BEATS)
    numbers = json.loads((tmp_path / "cat.json").read_text())
    view = _view("scratch", "The cat ate the fish", "Die Katze hat den Fisch gegessen",
                 "Katze", seed=0)
    assert numbers["focus"]["word"] == "Katze" and numbers["head"] == view.head
    assert numbers["untrained"] is True
    np.testing.assert_allclose(np.array(numbers["weights"]), view.weights, atol=1e-9)
    got = numbers["focus_word_weights"]      # a word each, repeated words apart
    assert len(got) == len(view.source_words.words)
    assert abs(sum(w["weight"] for w in got) - 1.0) < 1e-5


BAD = [       # beside the rows of tests/test_bad_input.py
    (["translate", "The cat sat", "--target", "   "], "--target is empty"),
    (["translate", "", "--target", "Le chat"], "the sentence is empty"),
    (["translate", "The cat sat", "--target", "Le chat", "-o", "{t}/kept.mp4"],
     "already exists"),
]


@pytest.mark.parametrize("argv, fragment", BAD, ids=[b[1][:24] for b in BAD])
def test_a_bad_translate_is_one_line_and_writes_nothing(argv, fragment, run_cli, tmp_path):
    (tmp_path / "kept.mp4").write_bytes(b"a lecturer's film")
    before = sorted(tmp_path.iterdir())
    code, stdout, stderr = run_cli(*[a.format(t=tmp_path) for a in argv], "--d-model", "64",
                                   "--num-heads", "4", "--resolution", "320x180")
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in stderr, stderr
    assert fragment in lines[0], lines[0]
    assert sorted(tmp_path.iterdir()) == before
    assert (tmp_path / "kept.mp4").read_bytes() == b"a lecturer's film"


@pytest.mark.slow
def test_the_python_api_draws_the_same_film(tmp_path):
    import attention_explainer as ae

    made = ae.translate("The cat ate the fish", tmp_path / "cat.mp4",
                        target="Die Katze hat den Fisch gegessen", focus="Katze",
                        resolution="320x180", d_model=64, num_heads=4, fps=5)
    assert [p.suffix for p in made.files] == [".mp4", ".srt", ".png", ".json"]
    assert all(p.exists() for p in made.files) and made.video == made.files[0]
    assert json.loads(made.files[3].read_text())["focus"]["word"] == "Katze"
    assert "<video" in made._repr_html_()
    with pytest.raises(ae.InputError, match="takes no 'colour'"):
        ae.translate("The cat", tmp_path / "x.mp4", target="Le chat", colour="red")
    with pytest.raises(ae.InputError, match="whole number"):
        ae.translate("The cat", tmp_path / "x.mp4", target="Le chat", d_model="64")
    assert not (tmp_path / "x.mp4").exists()


@pytest.mark.slow
def test_a_translation_makes_a_lecture_pack_of_a_length_with_a_voice(run_cli, tmp_path):
    """--pack, --length and --narration as render's: the pack's clips are the beats the
    length keeps (the question and the answer always), each with its sound."""
    import av

    folder = tmp_path / "pack"
    code, stdout, stderr = run_cli("translate", "The coffee was too hot", "--target",
                                   "Le café était trop chaud", "--focus", "café",
                                   "--d-model", "64", "--num-heads", "4",
                                   "--resolution", "320x180", "--fps", "5", "--pack",
                                   "--length", "30", "--narration", "speak", "-o", folder)
    assert code == 0, stderr
    clips = sorted(p.name for p in (folder / "clips").glob("*.mp4"))
    assert clips[0] == "01-question.mp4" and clips[-1].endswith("-answer.mp4")
    assert len(clips) < len(TRANSLATION_BEATS)
    assert (folder / "explainer.json").is_file() and (folder / "slides.pptx").is_file()
    assert "café" in (folder / "index.html").read_text()
    with av.open(str(folder / "explainer.mp4")) as box:
        assert box.streams.audio and box.duration / 1e6 <= 30 + 15


@pytest.mark.parametrize("source, target", [
    ("The cat ate the fish because it was very hungry this morning",
     "Η γάτα έφαγε το ψάρι επειδή πεινούσε πολύ σήμερα το πρωί"),
    ("The cat ate the fish", "Die Katze hat den Fisch gegessen"),
    ("The mouse was eaten by the cat", "La souris a été mangée par le chat")])
def test_the_automatic_focus_of_a_translation_is_a_content_word(source, target):
    """No --focus: the most decided word with content of its own, never an article or a
    preposition of the translation's language (the explainer's rule)."""
    from attention_explainer.attention_core.words import content_words

    view = _view("scratch", source, target, None)
    words = [w.text for w in view.target_words.words if w.kind == "word"]
    assert dict(zip(words, content_words(words)))[view.focus_text], view.focus_text


def test_a_right_to_left_row_reads_from_the_right_whatever_its_tokenizer_adds():
    """[CLS] before an Arabic source is no Latin word: the row and the grid's source keys
    read from the right, the English target from the left (the film's own rule)."""
    from attention_explainer.scenes.translation_film import Layout

    view = _view("scratch", *SCRATCH_PAIRS[4])
    assert view.source_special[0]                   # [CLS], a Latin-looking added token
    layout = Layout(view)
    source, target = layout.rows()
    assert source.right_to_left and not target.right_to_left
    assert layout.alignment()[0].right_to_left
