"""Your own model (issue 23): a tiny random model of every family, built here with
transformers (tests/tiny_models.py), gives a trace whose weights are transformers' own
to 1e-5 in every layer; a decoder's mask is its own and the film says so; rotary and
grouped-query models are drawn as what they are, every drawn number re-derived; the atlas
tags re-derive from the weights; bad folders are refused in one line, writing nothing."""
from __future__ import annotations

import json

import numpy as np
import pytest

from attention_explainer.attention_core.api import compute_trace, model_files
from tests import tiny_models
from tests.conftest import assert_numbers_rederive

SENTENCE = "The animal didn't cross the street because it was too tired."
OTHER = "Le chat a mangé la souris parce qu'elle était lente."
SHORT = "The dog slept because it was tired."      # a film drawn in the suite: few tokens


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    built = {family: tiny_models.build(family, root / family)
             for family in tiny_models.FAMILIES}
    built["bert"] = _tiny_bert(root / "bert")
    yield built
    model_files.cache_clear()


def _tiny_bert(folder):
    """A BERT folder: computed by our explicit forward, not transformers."""
    import shutil

    import torch
    import transformers as T

    from attention_explainer.attention_core import bert

    torch.manual_seed(0)
    config = T.BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2,
                          num_attention_heads=4, intermediate_size=64, max_position_embeddings=64)
    T.BertModel(config).save_pretrained(str(folder))
    shutil.copy(bert.minilm_dir() / "tokenizer.json", folder / "tokenizer.json")
    return folder


def json_files(printed: str) -> list:
    from pathlib import Path

    return [Path(f) for f in json.loads(printed)["files"]]


# ---- the oracle, every family ------------------------------------------------------------
# the tiny models' own score scales (tiny_models: Gemma 2's query_pre_attn_scalar 16,
# Granite's attention_multiplier) and caps, where they are not 1/√d_k and none
OWN_SCALE = {"gemma2": 16 ** -0.5, "granite": 0.25, "deberta-v2": (3 * 8) ** -0.5}
SOFTCAP = {"gemma2": 5.0}
TERMS = {"mpnet": ["relative position bias"],
         "deberta-v2": ["content-to-position term", "position-to-content term"]}
SANDWICH = ("gemma2", "gemma3_text", "olmo2")      # ΔE normed before the residual adds it
PRENORM = (*tiny_models.DECODERS, "modernbert")     # ΔE added to the residual stream x


@pytest.mark.parametrize("family", ("bert", *tiny_models.FAMILIES))
@pytest.mark.parametrize("sentence", [SENTENCE, OTHER])
def test_weights_are_transformers_own(family, sentence, folders):
    from attention_explainer.attention_core.errors import InputError
    from attention_explainer.explainer import attentions

    reference, ids = tiny_models.oracle_attentions(folders[family], sentence)
    every = attentions(sentence, model=str(folders[family]))
    for layer in range(reference.shape[0]):
        # every layer's weights, as the API gives them (TransformerLens's names)
        np.testing.assert_allclose(every[f"blocks.{layer}.attn.hook_pattern"],
                                   reference[layer], atol=1e-5, rtol=0)
        if (family, layer) == ("modernbert", 1):
            # a both-ways layer that sees a window of a sentence longer than it: not drawn,
            # said in one line
            with pytest.raises(InputError, match="reads a window of at most 7 of the"):
                compute_trace(sentence, model=str(folders[family]), layer=layer)
            continue
        trace = compute_trace(sentence, model=str(folders[family]), layer=layer, heads="all",
                              focus=None)
        assert trace.num_tokens == len(ids)
        np.testing.assert_allclose(trace.weights, reference[layer], atol=1e-5, rtol=0)
        # the scores are q.k / sqrt(d_k) of the trace's own (rotated) queries and keys, or
        # times the model's own scale (from its config, by hand), capped where it caps them
        again = trace.q.astype(np.float64) @ trace.k.astype(np.float64).transpose(0, 2, 1)
        scale, cap = OWN_SCALE.get(family, trace.d_k ** -0.5), SOFTCAP.get(family)
        assert trace.meta.get("score_scale") == OWN_SCALE.get(family)
        assert trace.meta.get("score_softcap") == cap
        again = again * scale if cap is None else cap * np.tanh(again * scale / cap)
        # plus the terms a family adds of its own (MPNet's relative position bias)
        assert trace.meta.get("score_terms") == TERMS.get(family)
        if family in TERMS:
            again = again + trace.score_terms.astype(np.float64).sum(0)
        np.testing.assert_allclose(trace.scores, again, atol=1e-4)
        # and the update adds up to the model's attention output
        made = trace.contributions.sum(0) + trace.output_bias
        np.testing.assert_allclose(made, trace.output[trace.focus_index], atol=1e-4)
        # the rows of W_Q, W_K, W_V kept (of the primary head) make its q, k, v from the
        # embeddings: the maps are read right (GPT-2's transposed Conv1D, grouped-query
        # heads' shared key and value rows); a rotary model's q and k are turned after
        _the_maps_make_the_vectors(trace, rotary=family in tiny_models.ROTARY)
        if family == "qwen3":        # QK-norm: each head's query and key RMS-normed (the
            # gains are the built model's ones), and turning keeps a vector's length
            for vectors in (trace.q, trace.k):
                lengths = np.linalg.norm(vectors.astype(np.float64), axis=-1)
                np.testing.assert_allclose(lengths, np.sqrt(trace.d_k), rtol=1e-4)
    if family == "bert":          # a BERT folder keeps the explicit forward
        from attention_explainer.attention_core.bert import BertModelFiles

        assert isinstance(model_files(str(folders[family].resolve())), BertModelFiles)


def test_every_family_is_tested_and_the_docs_table_is_the_code_s():
    """The families table in docs/own-model.md is written from hf_models.FAMILIES, and
    each family the code runs has a tiny model in this file's tests."""
    from pathlib import Path

    from attention_explainer.attention_core.hf_models import FAMILIES, families_table

    assert set(FAMILIES) == set(tiny_models.FAMILIES)
    docs = (Path(__file__).parents[1] / "docs" / "own-model.md").read_text(encoding="utf-8")
    assert families_table() in docs, "write hf_models.families_table() into docs/own-model.md"


def _the_maps_make_the_vectors(trace, rotary: bool) -> None:
    from attention_explainer.attention_core.derived import projected

    slot = trace.primary_slot
    for p, vectors in enumerate((trace.q, trace.k, trace.v)):
        # a rotary query or key is turned by its position's angles, none at position 0:
        # there it is W x + b (unless normed first: Qwen3's QK-norm)
        if rotary and p < 2 and trace.meta.get("qk_norm"):
            continue
        tokens = range(1 if rotary and p < 2 else trace.num_tokens)
        for r in trace.meta["projection_rows"]:
            made = [projected(trace, p, i, r) for i in tokens]
            np.testing.assert_allclose(made, vectors[slot, :len(tokens), r], atol=1e-4)


def test_what_each_family_is_said_to_be(folders):
    """Causal masks are the model's own; rotary models keep no position vectors; grouped
    query heads name their key/value head; a start token is named."""
    for family in tiny_models.FAMILIES:
        t = compute_trace(SENTENCE, model=str(folders[family]), heads="all")
        decoder = family in tiny_models.DECODERS
        assert t.meta["bidirectional"] is not decoder
        assert t.meta["mask_is_model_own"] is decoder
        assert t.meta["mask_is_illustration"] is False
        assert bool(t.mask.any()) is decoder
        if decoder:
            T = t.num_tokens
            # Gemma 2 and 3 window their first layer's keys (tiny_models), and Mistral every
            # layer's (tested below)
            windowed = family == "mistral" or family in ("gemma2", "gemma3_text") and t.layer == 0
            assert (t.meta["mask"] != "causal") is windowed
            if family in ("gemma2", "gemma3_text") and windowed:
                assert t.meta["mask"] == "causal, a window of 4"
            if not windowed:
                assert not t.mask[np.tril_indices(T)].any()
            assert t.meta["update"] == ("x + norm(dE)" if family in SANDWICH else "x + dE")
            assert t.residual is not None
        rotary = family in tiny_models.ROTARY
        # SmolLM3's second layer turns nothing (its NoPE layer); ALBERT's position table
        # is in its narrower embedding space: not drawn
        assert t.meta["positions"] == ("none" if (family, t.layer) == ("smollm3", 1) else
                                       "rotary" if rotary else
                                       "relative" if family == "deberta-v2" else "learned")
        assert (t.positions is None) is (rotary or family in ("albert", "deberta-v2"))
        if rotary and family not in ("gpt_neox", "phi", "modernbert"):   # keys of their own
            assert t.meta["kv_head_of"] == [h // 2 for h in t.heads]
        assert ("start_token" in t.meta) is (family in ("llama", "mistral"))
    window = compute_trace(SENTENCE, model=str(folders["mistral"]))
    assert window.meta["mask"] == "causal, a window of 6"
    T = window.num_tokens
    i, j = np.indices((T, T))
    np.testing.assert_array_equal(window.mask, (j > i) | (i - j >= 6))


def test_a_causal_model_explains_a_word_that_sees_the_sentence(folders):
    """Left alone, the focus is the last content word (a decoder's other words see only
    part of the sentence), and what it is asked about lies before it."""
    t = compute_trace(SENTENCE, model=str(folders["gpt2"]))
    targets = t.meta["question"]["targets"]
    assert targets and all(j < t.focus_index for j in targets)
    assert t.display_tokens[t.focus_index] in ("tire", "tired")


def test_minilm_masks_are_still_illustrations():
    t = compute_trace("The cat ate the fish", mask="causal")
    assert t.meta["mask_is_illustration"] is True and t.meta["mask_is_model_own"] is False


# ---- the film, drawn for a decoder ------------------------------------------------------------
# the beats a decoder draws otherwise than an encoder (the others are the same code on
# the same kind of trace, and audited on many sentences by the layout corpus)
DECODER_BEATS = {"llama": ["position", "project", "heads", "mask", "update"],
                 "gpt2": ["mask", "update"], "qwen3": ["project", "sparks"],
                 "phi3": ["project", "mask"], "gpt_neox": ["project"]}


@pytest.mark.parametrize("family", sorted(DECODER_BEATS))
def test_the_film_of_a_decoder(family, folders, tmp_path):
    """The beats a decoder changes, audited, every drawn number re-derived; the mask beat
    says the mask is the model's own, the project beat says q and k are turned by position
    (rotary), the heads beat which heads share keys, the update starts from the residual
    stream x."""
    from tests.test_beats import render_tiny

    trace = compute_trace(SHORT, model=str(folders[family]))
    scene = render_tiny(DECODER_BEATS[family], trace, tmp_path)
    said = " ".join(c.content for c in scene.renderer.file_writer.subcaptions)
    if family in ("qwen3", "phi3", "gpt_neox"):
        if family == "gpt_neox":  # partial rotary: which dimensions turn, said
            assert "turned by angles set by its word\u2019s position (rotary, on its first " \
                   "2 of 8 dimensions)" in said
        elif family == "qwen3":   # QK-norm, named where the query and key are made
            assert "Each query is then normed (QK-norm: scaled to one root-mean-square, " \
                   "times a learned gain), then turned by angles" in said
            assert "every word gets a key, normed and turned by its position too" in said
        else:                     # W_Q's numbers drawn are the rows of the fused qkv_proj
            assert "Each query is then turned by angles" in said
            assert "This mask is the model\u2019s own, as trained." in said
        assert scene.layout_log == [] and scene.findings == []
        assert_numbers_rederive(trace, scene.shown_numbers)
        return
    assert "This mask is the model\u2019s own, as trained." in said
    assert "Illustration" not in said
    assert "x + \u0394E" in said
    if family == "llama":
        assert "turned by angles set by its word\u2019s position (rotary)" in said
        assert "Grouped-query attention: the 4 query heads share 2 key and value heads" in said
        assert "adds no position vectors" in said
    else:
        assert "rotary" not in said and "Grouped-query" not in said
    assert_numbers_rederive(trace, scene.shown_numbers)


@pytest.mark.parametrize("family", ["xlm-roberta", "camembert", "gemma", "starcoder2", "olmo",
                                    "phi", "gpt_neox", "opt", "albert", "gemma2", "gemma3_text",
                                    "olmo2", "granite", "smollm3", "falcon", "modernbert",
                                    "mpnet", "deberta-v2"])
def test_a_two_beat_film_of_each_family_added_by_its_facts(family, folders, tmp_path):
    """A family the watcher runs by a row of facts (hf_models.FAMILIES) draws: its
    softmax and update beats pass the layout and claims audits, every number re-derived,
    and the update is said as the family adds it (a decoder's from the residual stream)."""
    from attention_explainer.scenes.film.claims import claim_faults
    from tests.test_beats import render_tiny

    trace = compute_trace(SHORT, model=str(folders[family]))
    scene = render_tiny(["softmax", "update"], trace, tmp_path)
    assert scene.layout_log == [] and scene.findings == [] and scene.audit_log == []
    assert claim_faults(trace, scene.book.claims) == []
    assert_numbers_rederive(trace, scene.shown_numbers)
    said = " ".join(c.content for c in scene.renderer.file_writer.subcaptions)
    assert ("x + \u0394E" in said) is (family in PRENORM and family not in SANDWICH)
    assert ("x + norm(\u0394E)" in said) is (family in SANDWICH)
    for words in SAID.get(family, ()):
        assert words in said, words


# what a family's softmax and update beats say of what its attention adds
SAID = {"gemma2": ["Divide by 4, the model\u2019s own scale (query_pre_attn_scalar), not "
                   "\u221ad_k, then cap them as 5\u00b7tanh(s/5), so none passes \u00b15",
                   "This model norms \u0394E first"],
        "granite": ["Divide by 4, the model\u2019s own scale (attention_multiplier)",
                    "adds it, scaled by 0.5 (residual_multiplier, counted in \u0394E here)"],
        "olmo2": ["(attention read it as it is): x + norm(\u0394E)"],
        "mpnet": ["Then the model adds its relative position bias, a number it learned "
                  "for each distance between two tokens", "Each column summed: these are the "
                  "scores, b its relative position bias"],
        "deberta-v2": ["Divide by 4.899, the model\u2019s own scale (\u221a(3\u00b7d_k), for "
                       "q\u00b7k and its 2 position terms), not \u221ad_k",
                       "Then the model adds 2 terms of its own: its content-to-position "
                       "term", "And its position-to-content term",
                       "Each column summed: these are the scores, b its 2 position terms"]}


def test_minilm_mask_beat_still_says_illustration(folders):
    """On MiniLM (no mask, or --mask causal) the mask beat says it is an illustration; on
    a decoder, that the mask is the model's own."""
    from attention_explainer.scenes.film.beats.mask import notice_text

    plain = compute_trace("The cat ate the fish")
    assert notice_text(plain, False).startswith("Illustration: this model reads\nboth ways")
    asked = compute_trace("The cat ate the fish", mask="causal")
    assert notice_text(asked, True).startswith("Illustration: this model reads")
    own = compute_trace(SENTENCE, model=str(folders["llama"]))
    assert notice_text(own, True).startswith("The model\u2019s own mask")


# ---- the atlas ----------------------------------------------------------------------------
def _tags_by_hand(weights, special, content, punctuation):
    """The atlas's shares, written out again: over the rows of the sentence's own tokens
    after the first."""
    T = weights.shape[0]
    rows = [i for i in range(1, T) if not special[i]]
    sink = np.array(special, bool)
    sink[0] = True
    out = {}
    out["sink"] = np.mean([weights[i][sink].sum() for i in rows])
    out["previous"] = np.mean([weights[i, i - 1] for i in rows])
    out["next"] = np.mean([weights[i, i + 1] for i in rows if i + 1 < T])
    out["self"] = np.mean([weights[i, i] for i in rows])
    out["punctuation"] = np.mean([sum(weights[i, j] for j in range(T)
                                      if punctuation[j] and j != i) for i in rows])
    out["content"] = np.mean([sum(weights[i, j] for j in range(T)
                                  if content[j] and j != i) for i in rows])
    spreads = []
    for i in rows:
        p = weights[i][weights[i] > 0].astype(np.float64)
        spreads.append(0.0 if len(p) < 2 else float(-(p * np.log(p)).sum() / np.log(len(p))))
    out["broad"] = np.mean(spreads)
    return out


def _tag_by_hand(weights, special, content, punctuation, blocked):
    """A head is tagged with the pattern whose share most exceeds an even head's (weight
    1/n on each of the n keys each row may see), by 0.15 at least; else untagged."""
    seen = ~np.asarray(blocked, bool)
    even = seen / seen.sum(axis=1, keepdims=True)
    shares = _tags_by_hand(weights, special, content, punctuation)
    chance = _tags_by_hand(even, special, content, punctuation)
    excess = {k: shares[k] - chance[k] for k in ("sink", "previous", "next", "self",
                                                  "punctuation", "content")}
    best = max(excess, key=lambda k: excess[k])
    return (best if excess[best] >= 0.15 else "none"), best, shares, chance


def test_diagnose_tags_rederive_from_the_weights(run_cli):
    """inspect --diagnose --json on minilm: every head's tag and share, re-derived here from
    the weights of a trace of that layer with every head."""
    from attention_explainer.attention_core import selection
    from attention_explainer.attention_core.api import model_files
    from attention_explainer.attention_core.atlas import punctuation_tokens

    sentence = "The lawyer questioned the witness, because she was lying."
    code, out, err = run_cli("inspect", sentence, "--diagnose", "--json")
    assert code == 0, err
    diagnosis = json.loads(out)["diagnosis"]
    assert len(diagnosis["heads"]) == 6 * 12
    tokens = model_files("minilm").tokenize(sentence)
    content = selection.content_tokens(tokens.special, tokens.word_ids, tokens.words,
                                       selection.written_words(tokens))
    punctuation = punctuation_tokens(tokens.display_tokens)
    assert punctuation.any()
    tags = set()
    for layer in range(6):
        trace = compute_trace(sentence, layer=layer, heads="all")
        for h in range(12):
            tag, best, shares, chance = _tag_by_hand(
                trace.weights[h].astype(np.float64), tokens.special, content, punctuation,
                np.zeros((trace.num_tokens,) * 2, bool))
            told = diagnosis["heads"][layer * 12 + h]
            assert (told["layer"], told["head"], told["tag"]) == (layer, h, tag)
            assert told["share"] == pytest.approx(shares[best], abs=1e-3)
            assert told["baseline"] == pytest.approx(chance[best], abs=1e-3)
            if tag != "none":
                assert told["share"] >= told["baseline"] + 0.15
            tags.add(tag)
    assert len(tags) >= 3            # the rule tells heads apart on a real model
    film = compute_trace(sentence)
    assert diagnosis["film"] == {"layer": film.layer, "head": film.primary_head}
    code, out, _ = run_cli("inspect", sentence, "--diagnose")
    assert "<- the film's head" in out and "in all:" in out


@pytest.mark.parametrize("family", ["minilm", "scratch", *tiny_models.FAMILIES])
def test_atlas_of_every_family(family, folders, tmp_path, run_cli):
    """A PNG and an SVG, as big as the model has heads, the film's head outlined."""
    from PIL import Image

    model = family if family in ("minilm", "scratch") else str(folders[family])
    out = tmp_path / "atlas.png"
    code, stdout, err = run_cli("atlas", SENTENCE, "--model", model, "--out", out)
    assert code == 0, err
    image = Image.open(out)
    svg = (tmp_path / "atlas.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<text") > 4
    layers = {"minilm": 6, "scratch": 1}.get(family, 2)
    assert svg.count(">layer ") == layers
    assert image.width > 1000 and image.height > 600
    code, _, err = run_cli("atlas", SENTENCE, "--model", model, "--out", out)
    assert code == 2 and "--force" in err                  # never clobbered


def test_a_pack_of_a_decoder(folders, tmp_path, run_cli):
    code, out, err = run_cli("pack", SENTENCE, "--model", str(folders["qwen2"]),
                             "--resolution", "160x90", "--fps", "4", "--beats", "title,mask",
                             "--out", tmp_path / "pack", "--no-cache", "--json")
    assert code == 0, err
    written = {p.name for p in json_files(out)}
    assert {"slides.pptx", "handout.pdf", "index.html"} <= written, written
    assert any(name.endswith(".mp4") for name in written)


# ---- precision and devices ------------------------------------------------------------------
@pytest.mark.parametrize("family", ["llama", "qwen3", "gemma2", "olmo2", "falcon", "granite"])
@pytest.mark.parametrize("dtype, tolerance", [("bfloat16", 6e-2), ("float16", 1e-2)])
def test_a_decoder_in_half_precision(family, dtype, tolerance, folders):
    """The watched weights agree with ours in half precision too (the check's own
    tolerance), and come back float32, close to the float32 run's: QK-norm, a capped
    score, a fused weight and a scaled ΔE included."""
    full = compute_trace(SENTENCE, model=str(folders[family]), heads="all", layer=1)
    half = compute_trace(SENTENCE, model=str(folders[family]), heads="all", layer=1,
                         dtype=dtype)
    assert half.weights.dtype == np.float32 and half.meta["dtype"] == dtype
    np.testing.assert_allclose(half.weights, full.weights, atol=tolerance)


@pytest.mark.cuda
@pytest.mark.parametrize("family", ["llama", "gpt2", "roberta", "qwen3", "gemma2"])
def test_families_on_cuda(family, folders):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    cpu = compute_trace(SENTENCE, model=str(folders[family]), heads="all", device="cpu")
    gpu = compute_trace(SENTENCE, model=str(folders[family]), heads="all", device="cuda")
    assert gpu.meta["device"].startswith("cuda")
    np.testing.assert_allclose(gpu.weights, cpu.weights, atol=1e-4)
    for dtype in ("float16", "bfloat16"):
        half = compute_trace(SENTENCE, model=str(folders[family]), heads="all", device="cuda",
                             dtype=dtype)
        np.testing.assert_allclose(half.weights, cpu.weights, atol=6e-2)


def test_atlas_of_one_layer(folders, tmp_path, run_cli):
    """--layer N draws that layer's heads alone, under their own layer's name."""
    out = tmp_path / "one.png"
    code, _, err = run_cli("atlas", SENTENCE, "--model", folders["gpt2"], "--layer", "1",
                           "--out", out)
    assert code == 0, err
    svg = (tmp_path / "one.svg").read_text()
    assert svg.count(">layer ") == 1 and ">layer 1<" in svg
    assert "Every head of layer 1 of gpt2, a GPT-2 decoder" in svg
