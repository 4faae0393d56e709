"""A decoder writes, as a film (issue 39): `generate` on tiny random GPT-2 and Llama folders
built here. Every step passes the layout audit (a short prompt, a CJK one, one too long for
the row, one token and eight); every number drawn is the model's, re-derived; the chosen
token is the likeliest (greedy); an attention sink is named, with why, only where the first
token takes more than half; the command writes its four files (a re-render from the beat cache) or, refused, nothing."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests import tiny_models
from tests.layout_corpus import audited

PROMPTS = [("gpt2", "The animal didn't cross the street because it", 5),
           ("llama", "我爱北京天安门", 3),
           ("gpt2", "The chef who won the prize cooked for the guests because the animal "
                    "was too tired to cross the street", 8),
           ("llama", "A small model", 1)]


@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    root = tmp_path_factory.mktemp("decoders")
    # with a language-model head: GPT-2 ties it to its embeddings; the Llama is saved tied
    return {"gpt2": tiny_models.build("gpt2", root / "gpt2"),
            "llama": tiny_models.build("llama", root / "llama", tie_word_embeddings=True)}


def _generation(folder, prompt, count):
    from attention_explainer.attention_core.api import TraceRequest
    from attention_explainer.attention_core.generation import generate

    return generate(TraceRequest(sentence=prompt, model=str(folder), device="cpu"), count)


def _audited(generation, folder):
    from attention_explainer.scenes.writing_film import WritingFilm

    return audited(lambda: WritingFilm(generation, skip_animations=True), folder)


def _rederived(generation, scene) -> None:
    from attention_explainer.attention_core.generation import SINK_SHARE
    from attention_explainer.scenes.film.claims import claim_faults
    from attention_explainer.scenes.film.readouts import format_number

    assert claim_faults(generation, scene.book.claims) == []
    for shown in scene.book.shown:
        beat, what, index, text = shown.beat, shown.kind, shown.index, shown.text
        if what == "probability":
            n, rank = index
            expected = generation.written[n].top[rank][1]
        elif what == "first_share":
            expected = generation.written[index[0]].weights.mean(axis=0)[0]
        else:
            assert what == "mean_first_share"
            expected = generation.mean_first_share()
        assert text == format_number(float(expected), 2), (beat, what, index, text)
    steps = len(generation.written)
    assert {s.index for s in scene.book.shown if s.kind == "first_share"} == \
        {(n,) for n in range(steps)}
    assert list(scene.key_times) == ["prompt", *(f"step{n + 1}" for n in range(steps)), "sink"]
    for beat, kind, facts, said in [(c.beat, c.kind, c.facts, c.said)
                                    for c in scene.book.claims]:
        if kind == "greedy":
            written = generation.written[facts[0]]
            assert said == written.text == written.top[0][0]
            assert written.top[0][1] == max(p for _, p in written.top)
        else:
            sink = generation.mean_first_share() > SINK_SHARE
            assert facts == (sink,) and ("attention sink" in said) == sink, said


@pytest.mark.slow
@pytest.mark.parametrize("family, prompt, count", PROMPTS)
def test_every_step_of_a_writing_film_holds_its_layout(family, prompt, count, decoders,
                                                       tmp_path):
    generation = _generation(decoders[family], prompt, count)
    scene = _audited(generation, tmp_path)
    assert not scene.layout_log, scene.layout_log[:6]
    assert not scene.audit_log, scene.audit_log[:6]
    _rederived(generation, scene)
    # the first token is always drawn (where a sink parks weight), and every written one
    from attention_explainer.scenes.writing_film import layout_of

    drawn = layout_of(scene).drawn
    assert 0 in drawn
    assert all(j in drawn for j in range(len(generation.prompt),
                                         len(generation.written[-1].keys)))


def test_a_sink_is_named_with_why_where_the_first_token_takes_most(tmp_path):
    from attention_explainer.attention_core.generation import Generation, WrittenToken

    prompt = ["The", " cat", " sat"]
    written, keys = [], list(prompt)
    for n, text in enumerate([" on", " the", " mat"]):
        keys = keys + [text]
        weights = np.full((2, len(keys)), 0.2 / (len(keys) - 1))
        weights[:, 0] = 0.8
        written.append(WrittenToken(n, text, 0.5, [(text, 0.5), (" a", 0.2), (" in", 0.1),
                                                   (".", 0.1), (",", 0.05)],
                                    weights, list(keys)))
    generation = Generation(prompt, written, 1, [0, 1], "a decoder", "length")
    scene = _audited(generation, tmp_path)
    assert not scene.layout_log and not scene.audit_log
    (beat, kind, facts, said), = [(c.beat, c.kind, c.facts, c.said)
                                  for c in scene.book.claims if c.kind == "sink"]
    assert facts == (True,) and "attention sink" in said and "0.80" in said
    assert "softmax must give a row's whole weight somewhere" in said


@pytest.mark.slow
def test_generate_writes_the_film_its_captions_poster_and_numbers(decoders, run_cli,
                                                                  tmp_path):
    out = tmp_path / "w.mp4"
    prompt = "The animal didn't cross the street because it"
    args = ("generate", prompt, "--model", decoders["gpt2"], "--tokens", "2",
            "--resolution", "320x180", "--fps", "5", "--theme", "colorblind", "-o", out)
    code, stdout, err = run_cli(*args, "--json")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json", "w.mp4", "w.png", "w.srt"]
    assert json.loads(stdout)["beats"] == ["prompt", "step1", "step2", "sink"]
    assert "Token 2:" in (tmp_path / "w.srt").read_text()
    code, stdout, err = run_cli(*args, "--force", "--json")      # again: from the cache
    assert code == 0, err
    assert json.loads(stdout)["cached_beats"] == ["prompt", "step1", "step2", "sink"]
    doc = json.loads((tmp_path / "w.json").read_text())
    again = _generation(decoders["gpt2"], prompt, 2)
    assert doc["written"] == again.text and len(doc["tokens"]) == 2
    assert np.allclose(doc["tokens"][1]["weights"], again.written[1].weights, atol=1e-9)


BAD = [
    (["generate", "The cat sat", "--model", "minilm"], "is an encoder"),
    (["generate", "The cat sat", "--model", "{gpt2}", "--tokens", "9"], "9 is not in the range"),
    (["generate", "   ", "--model", "{gpt2}"], "the prompt is empty"),
    (["generate", "The cat sat", "--model", "{gpt2}", "-o", "{t}/w.txt"], "must end in .mp4"),
]


@pytest.mark.parametrize("argv, fragment", BAD, ids=[b[1][:20] for b in BAD])
def test_a_bad_generate_is_one_line_and_writes_nothing(argv, fragment, decoders, run_cli,
                                                       tmp_path):
    args = [a.format(gpt2=decoders["gpt2"], t=tmp_path) for a in argv]
    code, _, err = run_cli(*args, "--resolution", "320x180")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert fragment in lines[0], lines[0]
    assert not list(tmp_path.iterdir())
