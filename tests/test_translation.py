"""Models that translate (issue 39, its first part, in numbers): tiny random Marian, T5 and
BART folders built here, with tokenizers trained on a few sentences (Marian's a
SentencePiece model, as opus-mt ships). `inspect` on them prints
the attention asked for — cross (the default), the encoder's or the decoder's own — and
every weight equals transformers' own `cross_attentions` / `encoder_attentions` /
`decoder_attentions` to 1e-5, on a given translation and on the model's own (greedy, as
`generate` writes it); what cannot be asked is refused in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests import tiny_models

PAIRS = [("the cat sat on the mat", "le chat"),
         ("The animal didn't cross the street because it was too tired.",
          "Le chat a mangé la souris")]
OWN = {"cross": "cross_attentions", "self": "encoder_attentions",
       "decoder": "decoder_attentions"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("seq2seq")
    built = {family: tiny_models.build_seq2seq(family, root / family) for family in ("t5", "bart")}
    return {**built, "marian": tiny_models.build_marian(root / "marian")}


def _theirs(folder, sentence, target, kind, layer):
    import torch
    import transformers as T

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tokenizer = T.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = T.AutoModelForSeq2SeqLM.from_pretrained(str(folder), local_files_only=True,
                                                    attn_implementation="eager").eval()
    src = torch.tensor([tokenizer(sentence).input_ids])
    with torch.no_grad():
        if target is None:
            written = model.generate(src, do_sample=False, num_beams=1, max_new_tokens=8)
            dec_in, labels = written[:, :-1], written[:, 1:]
        else:
            labels = torch.tensor([tokenizer(text_target=target).input_ids])
            dec_in = model.prepare_decoder_input_ids_from_labels(labels=labels)
        out = model(input_ids=src, decoder_input_ids=dec_in, output_attentions=True)
    return getattr(out, OWN[kind])[layer][0].double().numpy(), labels[0].tolist()


@pytest.mark.parametrize("family", ["marian", "t5", "bart"])
@pytest.mark.parametrize("sentence, target", PAIRS + [(PAIRS[1][0], None)],
                         ids=["given", "given-long", "own"])
@pytest.mark.parametrize("kind", ["cross", "self", "decoder"])
def test_every_weight_is_the_models_own(family, sentence, target, kind, folders, run_cli):
    args = ["inspect", sentence, "--model", folders[family], "--layer", "1", "--json",
            "--max-new-tokens", "8"]
    if kind != "cross":
        args += ["--attention", kind]
    if target is not None:
        args += ["--target", target]
    code, out, err = run_cli(*args)
    assert code == 0, err
    doc = json.loads(out)
    theirs, labels = _theirs(folders[family], sentence, target, kind, 1)
    assert doc["attention"] == kind and doc["heads"] == [0, 1, 2, 3]
    assert np.abs(np.array(doc["weights"]) - theirs).max() < 1e-5
    assert len(doc["target"]) == len(labels)
    assert doc["translation"] == ("the model's own (greedy)" if target is None else "given")


def test_the_text_reads_each_target_token_against_the_source(folders, run_cli):
    code, out, err = run_cli("inspect", PAIRS[0][0], "--model", folders["bart"], "--target",
                             PAIRS[0][1])
    assert code == 0, err
    assert out.startswith("BART encoder–decoder, layer 1: cross-attention")
    assert "each target token (the query that wrote it): the keys it weighs most" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--attention", "cross"], "is not one"),                  # MiniLM reads, it is no pair
    (["--target", "le chat"], "is not one"),
])
def test_an_encoder_only_model_refuses_cross_attention(argv, fragment, run_cli):
    code, _, err = run_cli("inspect", "the cat sat", *argv)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, fragment", [
    (["--npz", "t.npz"], "drop --npz"),
    (["--layer", "5"], "layers 0 to 1"),
    (["--heads", "7"], "heads 0 to 3"),
    (["--target", " ".join(["chat"] * 80)], "positions"),
])
def test_what_cannot_be_read_of_a_translation_is_refused(argv, fragment, folders, run_cli):
    code, _, err = run_cli("inspect", "the cat sat", "--model", folders["bart"], *argv)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_render_on_a_translation_points_to_translate_and_inspect(folders, run_cli, tmp_path):
    code, _, err = run_cli("render", "the cat sat", "--model", folders["t5"], "-o",
                           tmp_path / "t.mp4")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "film is `translate`'s, its numbers `inspect`'s" in err
    assert not (tmp_path / "t.mp4").exists()


def test_a_focus_word_is_its_row_head_by_head(folders, run_cli):
    sentence, target = PAIRS[0]
    code, out, err = run_cli("inspect", sentence, "--model", folders["bart"], "--target",
                             target, "--focus", "chat", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert "".join(doc["target"][r] for r in doc["focus_rows"]).strip() == "chat"
    code, out, err = run_cli("inspect", sentence, "--model", folders["bart"], "--target",
                             target, "--focus", "chat")
    row = np.array(doc["weights"])[:, doc["focus_rows"][0]]          # its first piece
    for head in range(4):                # each head's strongest source token, as it weighs
        best = int(np.argmax(row[head]))
        assert f"  head {head:<3} {doc['source'][best]!r} {row[head, best]:.2f}" in out
    code, _, err = run_cli("inspect", sentence, "--model", folders["bart"], "--target",
                           target, "--focus", "Katze")
    assert code == 2 and "none of the target tokens" in err
    # a word of several pieces (Marian's SentencePiece cuts "chat" here) is all of them
    code, out, err = run_cli("inspect", sentence, "--model", folders["marian"], "--target",
                             target, "--focus", "chat", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert len(doc["focus_rows"]) > 1
    assert "".join(doc["target"][r] for r in doc["focus_rows"]).strip() == "chat"


@pytest.mark.parametrize("family", ["marian", "t5"])
@pytest.mark.parametrize("kind", ["cross", "self", "decoder"])
def test_the_atlas_of_each_kind_is_every_layer_of_the_models_own(family, kind, folders,
                                                                 run_cli, tmp_path):
    """`atlas` on an encoder–decoder draws one kind of attention, every layer and head,
    under that kind's own label; each tile's weights are transformers' own."""
    import torch

    from attention_explainer.attention_core.kinds_atlas import KIND_TITLES, kind_atlas
    from attention_explainer.attention_core.seq2seq import seq2seq_files

    sentence, target = PAIRS[0]
    atlas = kind_atlas(seq2seq_files(str(folders[family])), sentence, kind=kind,
                       target=target, max_new_tokens=8, device=torch.device("cpu"),
                       dtype=torch.float32)
    assert KIND_TITLES[kind] in atlas.model
    for layer in range(atlas.weights.shape[0]):
        theirs, labels = _theirs(folders[family], sentence, target, kind, layer)
        assert np.abs(atlas.weights[layer] - theirs).max() < 1e-5
    if kind == "cross":                  # another sentence's queries: no positional pattern
        assert atlas.weights.shape[2] == len(labels)
        assert all(p.tag not in ("previous", "next", "self") for p in atlas.patterns)
        assert atlas.film_layer == atlas.weights.shape[0] - 1
    else:
        assert atlas.film_layer == -1 and "outlined" not in atlas.caption
    out = tmp_path / f"{kind}.png"
    args = ["atlas", sentence, "--model", folders[family], "--target", target,
            "--out", out] + (["--attention", kind] if kind != "cross" else [])
    code, _, err = run_cli(*args)
    assert code == 0, err
    svg = out.with_suffix(".svg").read_text()
    assert out.stat().st_size > 0 and KIND_TITLES[kind].split(" (")[0] in svg


def test_an_atlas_of_a_kind_is_refused_on_a_model_that_reads_one_sentence(run_cli, tmp_path):
    code, _, err = run_cli("atlas", "the cat sat", "--attention", "cross", "--out",
                           tmp_path / "a.png")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "reads an encoder–decoder folder" in err and not list(tmp_path.iterdir())
