"""Your own model, refused (issues 23 and 61): a folder of a family the film cannot draw as
it computes, a folder that is not what its config says, or one that reaches outside
itself is refused in one line, exit 2, before anything loads, and nothing is written."""
from __future__ import annotations

import json
import os

import pytest

from attention_explainer.attention_core.api import model_files
from attention_explainer.attention_core.hf_models import SUPPORTED
from tests import tiny_models

SENTENCE = "The animal didn't cross the street because it was too tired."


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The tiny models the bad folders are made from."""
    root = tmp_path_factory.mktemp("families")
    yield {family: tiny_models.build(family, root / family)
           for family in ("gpt2", "olmo", "opt", "llama", "falcon", "albert", "deberta-v2")}
    model_files.cache_clear()


# ---- bad folders --------------------------------------------------------------------------
def _bad_folders(root, folders):
    import shutil

    def copy(name, family="gpt2"):
        target = root / name
        shutil.copytree(folders[family], target)
        return target

    made = {}
    made["unsupported"] = copy("unsupported")
    tiny_models.write_config(made["unsupported"], model_type="xlnet")   # t5 translates now
    made["clipped"] = copy("clipped", "olmo")
    tiny_models.write_config(made["clipped"], clip_qkv=8.0)
    made["opt-post-norm"] = copy("opt-post-norm", "opt")
    tiny_models.write_config(made["opt-post-norm"], do_layer_norm_before=False)
    made["remote"] = copy("remote")
    tiny_models.write_config(made["remote"], auto_map={"AutoModel": "modeling_x.XModel"})
    made["tokenizer"] = copy("tokenizer")
    tiny_models.write_config(made["tokenizer"], vocab_size=100)
    made["large"] = copy("large", "llama")
    tiny_models.write_config(made["large"], hidden_size=16384, intermediate_size=53248,
                             num_hidden_layers=160, num_attention_heads=128,
                             num_key_value_heads=8)
    made["pickled"] = copy("pickled")
    os.remove(made["pickled"] / "model.safetensors")
    (made["pickled"] / "pytorch_model.bin").write_bytes(b"\x80\x04not really a pickle")
    made["weights"] = copy("weights")
    shutil.copy(folders["llama"] / "model.safetensors", made["weights"] / "model.safetensors")
    made["positions"] = copy("positions")
    tiny_models.write_config(made["positions"], n_positions=8)
    # sizes nothing may be built from (10^9 layers built on the meta device for minutes,
    # deaf to Ctrl-C; no heads divided by zero), each refused before transformers reads it
    for name, family, changes in (("layers", "gpt2", {"n_layer": 10 ** 9}),
                                  ("llama-layers", "llama", {"num_hidden_layers": 10 ** 9}),
                                  ("no-heads", "gpt2", {"n_head": 0}),
                                  ("minus-layers", "gpt2", {"n_layer": -1}),
                                  ("wide", "llama", {"hidden_size": 2 ** 40})):
        made[name] = copy(name, family)
        tiny_models.write_config(made[name], **changes)
    # a shard index may name only files beside it: not a path elsewhere, nor a link out
    for name, shard in (("shard-absolute", "/etc/passwd"), ("shard-up", "../../../etc/passwd"),
                        ("shard-link", "linked.safetensors")):
        made[name] = copy(name, "llama")
        (made[name] / "model.safetensors").rename(made[name] / "own.safetensors")
        (made[name] / "model.safetensors.index.json").write_text(json.dumps(
            {"weight_map": {"embed_tokens.weight": shard, "norm.weight": "own.safetensors"}}))
    os.symlink(folders["llama"] / "model.safetensors", made["shard-link"] / "linked.safetensors")
    # every file of the folder by the one rule for a user's file
    for name, file in (("weights-out", "model.safetensors"), ("tokenizer-out", "tokenizer.json")):
        made[name] = copy(name, "llama")
        (made[name] / file).unlink()
        (made[name] / file).symlink_to(folders["llama"] / file)
    made["weights-fifo"] = copy("weights-fifo", "llama")
    (made["weights-fifo"] / "model.safetensors").unlink()
    os.mkfifo(made["weights-fifo"] / "model.safetensors")
    made["weights-huge"] = copy("weights-huge", "llama")
    os.truncate(made["weights-huge"] / "model.safetensors", 1 << 30)     # sparse
    made["deberta-v1"] = copy("deberta-v1")
    tiny_models.write_config(made["deberta-v1"], model_type="deberta")
    made["deberta-absolute"] = copy("deberta-absolute", "deberta-v2")
    tiny_models.write_config(made["deberta-absolute"], position_biased_input=True)
    made["falcon-alibi"] = copy("falcon-alibi", "falcon")
    tiny_models.write_config(made["falcon-alibi"], alibi=True)
    made["albert-groups"] = copy("albert-groups", "albert")
    tiny_models.write_config(made["albert-groups"], num_hidden_groups=2)
    made["weights-nan"] = copy("weights-nan", "llama")
    _damage(made["weights-nan"] / "model.safetensors", float("inf"))
    return made


def _damage(weights, value) -> None:
    """One number of the first attention projection set to ``value``."""
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(weights))
    name = next(k for k in sorted(tensors) if "q_proj.weight" in k)
    tensors[name][1, 2] = value
    save_file(tensors, str(weights))


BAD_ROWS = [
    ("unsupported", SENTENCE, "is a 'xlnet' model, not of a supported family; supported model "
                              f"types: {SUPPORTED}"),
    ("clipped", SENTENCE, "clips its queries, keys and values to ±8 (clip_qkv)"),
    ("opt-post-norm", SENTENCE, "is an OPT that norms after attention"),
    ("deberta-v1", SENTENCE, "is a 'deberta' model, whose attention fuses its query, key "
                             "and value with biases of their own"),
    ("deberta-absolute", SENTENCE, "is a DeBERTa that adds position vectors to its input"),
    ("falcon-alibi", SENTENCE, "adds ALiBi's linear position bias to its scores"),
    ("albert-groups", SENTENCE, "shares its layers in 2 groups of 1"),
    ("remote", SENTENCE, "needs code of its own (config.json has auto_map)"),
    ("tokenizer", SENTENCE, "come from different models"),
    ("large", SENTENCE, "billion parameters, about"),
    ("pickled", SENTENCE, "has only pickled weights (pytorch_model.bin), which are never "
                          "unpickled"),
    ("weights", SENTENCE, "the weights and config.json do not belong together"),
    ("positions", SENTENCE, "more than the model's 8 positions"),
    ("layers", SENTENCE, "config.json n_layer is 1000000000; it must be an integer from 1 to"),
    ("llama-layers", SENTENCE, "config.json num_hidden_layers is 1000000000; it must be"),
    ("no-heads", SENTENCE, "config.json n_head is 0; it must be an integer from 1 to 1024"),
    ("minus-layers", SENTENCE, "config.json n_layer is -1; it must be an integer from 1"),
    ("wide", SENTENCE, "config.json hidden_size is 1099511627776; it must be an integer"),
    ("shard-absolute", SENTENCE, "names the shard '/etc/passwd', not a file beside it"),
    ("shard-up", SENTENCE, "names the shard '../../../etc/passwd', not a file beside it"),
    ("shard-link", SENTENCE, "linked.safetensors links outside the folder"),
    ("weights-out", SENTENCE, "model.safetensors links outside the folder"),
    ("tokenizer-out", SENTENCE, "tokenizer.json links outside the folder"),
    ("weights-fifo", SENTENCE, "model.safetensors is not a regular file"),
    ("weights-huge", SENTENCE, "its weights are 1.0 GiB, more than the 64 MB its config.json"),
    ("weights-nan", SENTENCE, "its weight 'layers.0.self_attn.q_proj.weight' holds NaN or "
                              "infinite numbers"),
]


@pytest.mark.parametrize("name, sentence, fragment", BAD_ROWS, ids=[r[0] for r in BAD_ROWS])
@pytest.mark.parametrize("command", ["render", "atlas"])
def test_bad_model_folders_are_refused(name, sentence, fragment, command, folders, tmp_path,
                                       run_cli):
    bad = _bad_folders(tmp_path / "models", folders)
    out = tmp_path / "out"
    out.mkdir()
    before = sorted(p.name for p in (tmp_path / "models" / name).iterdir())
    model_files.cache_clear()
    target = out / ("film.mp4" if command == "render" else "atlas.png")
    flag = "-o" if command == "render" else "--out"
    code, stdout, err = run_cli(command, sentence, "--model", bad[name], flag, target)
    model_files.cache_clear()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert fragment in lines[0], lines[0]
    assert list(out.iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "models" / name).iterdir()) == before
