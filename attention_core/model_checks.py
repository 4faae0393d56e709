"""Checks of a model folder, made before anything heavy runs: a BERT folder's completely,
every other family's (decoders and encoder–decoders alike) by one rule: its sizes and
numbers as config.json writes them (:func:`check_config_numbers`), its files
(:func:`weight_files`, :func:`check_folder_files`, :func:`check_weight_files`), the token
ids it names (:func:`check_token_ids`) and the memory its weights need, counted from its
config (:func:`parameter_estimate`, :func:`encoder_decoder_estimate`,
:func:`check_memory_for`).

A BERT folder's config.json is checked completely and every tensor the forward pass uses is
checked against it from the safetensors header alone. A folder whose parts disagree would
otherwise fail deep inside torch with a traceback, or quietly index past the end of an
embedding table.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from ..facts import MAX_TOKENIZER_BYTES
from .errors import InputError, is_json_int, short_repr
from .user_files import checked_file, opened_checked

__all__ = ["ACTIVATIONS", "CONFIG_INTS", "EMBEDDINGS", "EPSILONS", "FIX", "FOLDER_FILES",
           "MAX_CONFIG_BYTES", "SIZE_LIMITS", "SUPPORTED_MODEL_TYPES", "TOKEN_ID_KEYS",
           "check_config", "check_config_numbers", "check_finite_weights", "check_folder_files",
           "check_memory_for", "check_sizes", "check_tensor_shapes", "check_token_ids",
           "check_weight_files", "encoder_decoder_estimate", "expected_shapes",
           "parameter_estimate", "read_config", "read_settings_file", "safetensors_shapes",
           "tensor_prefix", "weight_files"]

SUPPORTED_MODEL_TYPES = ("bert",)
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")
MAX_CONFIG_BYTES = 1 << 20     # a BERT config.json is under a kilobyte
PICKLED = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
# a model loaded needs its weights and about this much more (activations, the tokenizer)
MEMORY_MARGIN = 1.25
# Integer settings the forward pass relies on: (smallest, largest or None).
CONFIG_INTS = {
    "num_hidden_layers": (1, 128),
    "num_attention_heads": (1, 256),
    "hidden_size": (1, 16384),
    "max_position_embeddings": (1, 65536),
    "vocab_size": (1, None),
    "intermediate_size": (1, None),
}
EMBEDDINGS = "embeddings.word_embeddings.weight"
FIX = "use the folder's own config.json, or a folder whose config.json and weights match"


def read_config(path: Path, what: str, *, folder: Path | None = None) -> dict:
    """config.json, parsed and checked; ``what`` names the model in messages, ``folder``
    is the model folder it must lie in."""
    with opened_checked(path, what=what, max_bytes=MAX_CONFIG_BYTES, fix=f"; {FIX}",
                        folder=folder) as fh:
        data = fh.read()
    try:
        config = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise InputError(f"{what}: config.json is not readable JSON (nested too deeply).") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{what}: config.json is not readable JSON ({exc}).") from None
    check_config(config, what)
    return config


def check_config(config, what: str) -> None:
    """Every setting the forward pass reads: present, of the right type and in range."""
    if not isinstance(config, dict):
        raise InputError(f"{what}: config.json holds a JSON {type(config).__name__}, not an "
                         "object; a model config is an object such as "
                         "{\"model_type\": \"bert\", ...}.")
    model_type = config.get("model_type")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise InputError(f"{what} is a {short_repr(model_type)} model; only BERT-family folders "
                         f"(model_type {', '.join(SUPPORTED_MODEL_TYPES)}) are supported.")
    if config.get("hidden_act", "gelu") not in ACTIVATIONS:
        raise InputError(f"{what} uses activation {short_repr(config.get('hidden_act'))}; "
                         f"supported: {', '.join(ACTIVATIONS)}.")
    for key, (low, high) in CONFIG_INTS.items():
        if key not in config:
            raise InputError(f"{what}: config.json lacks {key}; a BERT config gives it ({FIX}).")
        _check_int(config, key, low, high, what)
    if "type_vocab_size" in config:
        _check_int(config, "type_vocab_size", 1, None, what)
    heads, hidden = config["num_attention_heads"], config["hidden_size"]
    if hidden % heads:
        raise InputError(f"{what}: config.json hidden_size {hidden} is not divisible by "
                         f"num_attention_heads {heads}; {FIX}.")
    eps = config.get("layer_norm_eps", 1e-12)
    if not (isinstance(eps, (int, float)) and not isinstance(eps, bool)
            and math.isfinite(eps) and eps > 0):
        raise InputError(f"{what}: config.json layer_norm_eps is {short_repr(eps)}; it must be a "
                         f"positive number; {FIX}.")
    kind = config.get("position_embedding_type", "absolute")
    if kind != "absolute":
        raise InputError(f"{what}: config.json position_embedding_type is {short_repr(kind)}; only "
                         "absolute position embeddings are supported.")


def _check_int(config: dict, key: str, low: int, high: int | None, what: str) -> None:
    value = config[key]
    if not is_json_int(value) or value < low or (high is not None and value > high):
        allowed = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise InputError(f"{what}: config.json {key} is {short_repr(value)}; it must be an integer "
                         f"{allowed}; {FIX}.")


def tensor_prefix(names) -> str:
    """The prefix of the BERT tensors ("" or e.g. "bert."), found by the word embeddings."""
    if EMBEDDINGS in names:
        return ""
    candidates = sorted(k[:-len(EMBEDDINGS)] for k in names if k.endswith(EMBEDDINGS))
    if not candidates:
        raise InputError(f"the weights file has no BERT embeddings ({EMBEDDINGS}); "
                         "is it a BERT model?")
    return candidates[0]


def expected_shapes(config: dict) -> dict[str, tuple[int, ...]]:
    """The shape config.json implies for every tensor the forward pass uses."""
    D, inner = config["hidden_size"], config["intermediate_size"]
    shapes = {
        EMBEDDINGS: (config["vocab_size"], D),
        "embeddings.position_embeddings.weight": (config["max_position_embeddings"], D),
        "embeddings.token_type_embeddings.weight": (config.get("type_vocab_size", 2), D),
        "embeddings.LayerNorm.weight": (D,), "embeddings.LayerNorm.bias": (D,),
    }
    for n in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{n}."
        for dense in ("attention.self.query", "attention.self.key", "attention.self.value",
                      "attention.output.dense"):
            shapes[f"{p}{dense}.weight"], shapes[f"{p}{dense}.bias"] = (D, D), (D,)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[f"{p}{norm}.weight"], shapes[f"{p}{norm}.bias"] = (D,), (D,)
        shapes[f"{p}intermediate.dense.weight"] = (inner, D)
        shapes[f"{p}intermediate.dense.bias"] = (inner,)
        shapes[f"{p}output.dense.weight"], shapes[f"{p}output.dense.bias"] = (D, inner), (D,)
    return shapes


def safetensors_shapes(path: Path, what: str) -> dict[str, tuple[int, ...]]:
    """Each tensor's shape, read from the file's header (no tensor is loaded)."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
    except Exception as exc:   # the safetensors library raises its own error types
        raise InputError(f"{what}: model.safetensors is not readable "
                         f"({type(exc).__name__}).") from None


def check_tensor_shapes(shapes: dict[str, tuple[int, ...]], config: dict, what: str) -> None:
    """Every tensor the forward pass uses is present with the shape config.json implies."""
    prefix = tensor_prefix(shapes)
    for name, want in expected_shapes(config).items():
        key = prefix + name
        if key not in shapes:
            raise InputError(f"{what}: model.safetensors lacks {key}; is it a BERT model "
                             "with as many layers as config.json says?")
        if shapes[key] != want:
            raise InputError(f"{what}: model.safetensors tensor {key} has shape {shapes[key]} "
                             f"but config.json implies {want}; the weights and config.json "
                             "do not belong together.")


# The sizes a config.json of any family may give, under each family's own names: far past
# any released model, and small enough that nothing built from them can exhaust a machine
# before the memory check (a config of 10^9 layers had transformers build layer after
# layer, deaf to Ctrl-C). A name whose value may be null is checked only when given.
_LAYERS, _HEADS, _WIDTH = (1, 1024), (1, 1024), (1, 65536)
_WIDE, _LONG = (1, 1 << 20), (1, 1 << 22)
# T5's encoder splits its relative-position buckets between the two directions and keeps
# half of each exact: under 4 none is left, and its bucket arithmetic indexes below 0
_BUCKETS = (4, 1 << 22)
SIZE_LIMITS = {
    "num_hidden_layers": _LAYERS, "n_layer": _LAYERS, "n_layers": _LAYERS,
    "num_attention_heads": _HEADS, "n_head": _HEADS, "n_heads": _HEADS,
    "num_key_value_heads": _HEADS,
    "hidden_size": _WIDTH, "n_embd": _WIDTH, "dim": _WIDTH, "embedding_size": _WIDTH,
    "head_dim": _WIDTH,
    "intermediate_size": _WIDE, "n_inner": _WIDE, "hidden_dim": _WIDE,
    "max_position_embeddings": _LONG, "n_positions": _LONG, "n_ctx": _LONG,
    "vocab_size": _LONG, "type_vocab_size": (0, 1024),
    # the encoder–decoders': Marian, BART and mBART's names, then T5 and mT5's
    "encoder_layers": _LAYERS, "decoder_layers": _LAYERS,
    "encoder_attention_heads": _HEADS, "decoder_attention_heads": _HEADS,
    "d_model": _WIDTH, "encoder_ffn_dim": _WIDE, "decoder_ffn_dim": _WIDE,
    "decoder_vocab_size": _LONG,
    "num_layers": _LAYERS, "num_decoder_layers": _LAYERS, "num_heads": _HEADS,
    "d_kv": _WIDTH, "d_ff": _WIDE,
    "relative_attention_num_buckets": _BUCKETS, "relative_attention_max_distance": _LONG,
}
_MAY_BE_NULL = {"n_inner", "head_dim", "num_key_value_heads", "embedding_size",
                "num_decoder_layers", "decoder_vocab_size"}
# each family's norm epsilon: a positive number (NaN there makes every layer's output NaN)
EPSILONS = ("layer_norm_eps", "layer_norm_epsilon", "rms_norm_eps")


def check_config_numbers(config: dict, what: str) -> None:
    """The numbers a model is built from, under every family's names, checked from
    config.json as written (before transformers reads it, which would build whatever they
    say, or blame another file for a wrong type): its sizes (:func:`check_sizes`) and its
    norms' epsilons, each refusal naming the key."""
    check_sizes(config, what)
    for key in EPSILONS:
        value = config.get(key)
        if key in config and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                  and math.isfinite(value) and value > 0):
            raise InputError(f"{what}: config.json {key} is {short_repr(value)}; it must be a "
                             "positive number (use the model's own config).")


def check_sizes(config: dict, what: str) -> None:
    """Every size config.json gives (layers, heads, widths, positions, vocabulary, T5's
    buckets) is an integer within :data:`SIZE_LIMITS`, before anything is built from it."""
    for key, (low, high) in SIZE_LIMITS.items():
        if key not in config or (config[key] is None and key in _MAY_BE_NULL):
            continue
        value = config[key]
        if not is_json_int(value) or not low <= value <= high:
            raise InputError(f"{what}: config.json {key} is {short_repr(value)}; it must be "
                             f"an integer from {low} to {high} (use the model's own config).")


# The settings that name a token by its id, in config.json and generation_config.json: the
# decoder starts with one, pads and ends with others, is forced to or barred from some; each
# indexes the embeddings or the logits, so each must be an id of the vocabulary (a list
# where several may be named, such as eos_token_id, or lists of lists: bad_words_ids).
TOKEN_ID_KEYS = ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id",
                 "forced_bos_token_id", "forced_eos_token_id", "bad_words_ids",
                 "suppress_tokens", "begin_suppress_tokens")


def check_token_ids(settings: dict, vocab: int | None, what: str, file: str) -> None:
    """Every token id ``settings`` (the JSON of ``file``) names is an integer from 0 to
    ``vocab`` - 1 (None: not yet known, at least 0); an id past the embeddings would fail
    deep in torch as an IndexError."""
    for key in TOKEN_ID_KEYS:
        value = settings.get(key)
        if value is None:                       # not set
            continue
        ids, pending = [], [value]
        while pending:                          # the ids of any nesting of lists
            item = pending.pop()
            if isinstance(item, list):
                pending.extend(item)
            else:
                ids.append(item)
        if any(not is_json_int(i) or i < 0 or (vocab is not None and i >= vocab) for i in ids):
            allowed = "at least 0" if vocab is None else \
                f"from 0 to {vocab - 1}, the model's vocabulary"
            raise InputError(f"{what}: {file} {key} is {short_repr(value)}; a token id is an "
                             f"integer {allowed} (use the model's own {file}).")


# The files transformers may read from a model folder besides its weights, with the most
# each may weigh: the settings, and every tokenizer's own files (fast: tokenizer.json;
# SentencePiece: spiece.model, sentencepiece.bpe.model, Marian's source.spm and target.spm;
# byte-level BPE: vocab.json and merges.txt). Each one there is read by the rule for a
# user's file before transformers opens any: a link out, a FIFO or a device never is.
FOLDER_FILES = {
    **dict.fromkeys(("config.json", "generation_config.json", "tokenizer_config.json",
                     "special_tokens_map.json", "added_tokens.json", "chat_template.json",
                     "chat_template.jinja", "model.safetensors.index.json"), MAX_CONFIG_BYTES),
    **dict.fromkeys(("tokenizer.json", "spiece.model", "sentencepiece.bpe.model",
                     "source.spm", "target.spm", "vocab.json", "target_vocab.json",
                     "merges.txt", "vocab.txt"), MAX_TOKENIZER_BYTES),
}


def check_folder_files(folder: Path, what: str) -> None:
    """Each of :data:`FOLDER_FILES` that ``folder`` holds: a regular file inside it, no
    larger than it may be (its weights: :func:`check_weight_files`)."""
    for name, most in FOLDER_FILES.items():
        if os.path.lexists(folder / name):
            checked_file(folder / name, what=what, max_bytes=most, folder=folder,
                         fix="; use the model's own files")


def read_settings_file(path: Path, what: str, folder: Path) -> dict:
    """A JSON object of settings in the model folder (config.json, generation_config.json):
    bounded and inside the folder, read whole, an object."""
    with opened_checked(path, what=what, max_bytes=MAX_CONFIG_BYTES, folder=folder,
                        fix=f"; use the model's own {path.name}") as fh:
        data = fh.read()
    try:
        settings = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise InputError(f"{what}: {path.name} is not readable JSON "
                         f"({type(exc).__name__}).") from None
    if not isinstance(settings, dict):
        raise InputError(f"{what}: {path.name} holds a JSON {type(settings).__name__}, not "
                         "an object.")
    return settings


def parameter_estimate(*, layers: int, d_model: int, heads: int, kv_heads: int, head_dim: int,
                       intermediate: int, vocab: int, positions: int, gated: bool) -> int:
    """About how many parameters a model of these sizes has, by arithmetic: the embeddings
    (and a learned position table), and per layer the projections of attention and the
    feed-forward's two matrices (three where gated, as Llama's). Biases and norms, a
    few thousandths, are left out: it sizes memory, never a number on screen."""
    attention = d_model * head_dim * (2 * heads + 2 * kv_heads)
    feed_forward = (3 if gated else 2) * d_model * intermediate
    return vocab * d_model + positions * d_model + layers * (attention + feed_forward)


def encoder_decoder_estimate(*, encoder_layers: int, decoder_layers: int, d_model: int,
                             encoder_width: int, decoder_width: int, encoder_ffn: int,
                             decoder_ffn: int, vocab: int, positions: int, gated: bool,
                             output_head: bool, position_bias: int) -> int:
    """About how many parameters an encoder–decoder of these sizes has, by the arithmetic
    of :func:`parameter_estimate`: the shared embeddings (and an output head of its own
    where it is not tied to them), each side's learned positions (or T5's relative-position
    tables, ``position_bias`` numbers), each encoder layer's attention (Q, K, V and O
    projections, ``encoder_width`` wide) and feed-forward, each decoder layer's two
    attentions (its own, then over the encoder) and feed-forward."""
    def attention(width):
        return 4 * d_model * width

    def feed_forward(inner):
        return (3 if gated else 2) * d_model * inner

    embeddings = vocab * d_model * (2 if output_head else 1) + 2 * positions * d_model
    return (embeddings + position_bias
            + encoder_layers * (attention(encoder_width) + feed_forward(encoder_ffn))
            + decoder_layers * (2 * attention(decoder_width) + feed_forward(decoder_ffn)))


def check_weight_files(paths: list[Path], folder: Path, what: str,
                       parameters: int | None = None) -> None:
    """The weight files by the rule for a user's file (regular, inside ``folder``) and,
    where ``parameters`` is given, all together no larger than they can fill: each
    parameter twice (an output head beside the embeddings) in float64, and 64 MB of
    headers. A larger set is not this config's weights, and would cost its whole size to
    hash before that showed."""
    total = 0
    for path in paths:
        total += checked_file(path, what=what, folder=folder,
                              fix="; a model folder's weights are regular files").stat().st_size
    bound = None if parameters is None else 16 * parameters + (64 << 20)
    if bound is not None and total > bound:
        raise InputError(f"{what}: its weights are {_bytes(total)}, more than the "
                         f"{_bytes(bound)} its config.json's sizes can fill; {FIX}.")


def _bytes(count: int) -> str:
    return f"{count / 2 ** 30:.1f} GiB" if count >= 2 ** 30 else f"{count / 2 ** 20:.0f} MB"


def weight_files(folder: Path, what: str) -> list[Path]:
    """The weight files transformers loads from ``folder``: the shards its index names, or
    model.safetensors (never a folder's other .safetensors, such as an adapter)."""
    index = folder / "model.safetensors.index.json"
    if os.path.lexists(index):
        with opened_checked(index, what=what, max_bytes=MAX_CONFIG_BYTES,
                            folder=folder) as fh:
            data = fh.read()
        try:
            shards = sorted(set(json.loads(data.decode("utf-8"))["weight_map"].values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise InputError(f"{what}: model.safetensors.index.json is not a "
                             "readable index of shards.") from None
        outside = [name for name in shards if not isinstance(name, str)
                   or Path(name).name != name or name in ("", ".", "..")]
        if outside:
            raise InputError(f"{what}: model.safetensors.index.json names the shard "
                             f"{short_repr(outside[0])}, not a file beside it; a shard "
                             "index names files of its own folder only.")
        missing = [name for name in shards if not os.path.lexists(folder / name)]
        if missing:
            raise InputError(f"{what} lacks the shard {missing[0]} its index names.")
        return [folder / name for name in shards]      # checked with their sizes
    if os.path.lexists(folder / "model.safetensors"):
        return [folder / "model.safetensors"]
    pickled = sorted(p.name for p in folder.iterdir() if p.suffix in PICKLED)
    if pickled:
        raise InputError(f"{what} has only pickled weights ({pickled[0]}), which are "
                         "never unpickled here (they can run code); convert them to "
                         "model.safetensors, e.g. with transformers' save_pretrained.")
    raise InputError(f"{what} has no model.safetensors; a Hugging Face model folder "
                     "has config.json, model.safetensors and tokenizer.json.")


def check_memory_for(params: int, device, dtype, what: str) -> None:
    """Refuse a model of ``params`` parameters too large for the device's free memory in
    ``dtype``, before anything of it is built."""
    import torch

    need = params * torch.empty((), dtype=dtype).element_size() * MEMORY_MARGIN
    free, where = _free_memory(device)
    if need > free:
        half = "" if dtype in (torch.float16, torch.bfloat16) else \
            " --dtype bfloat16 halves it;"
        raise InputError(f"{what} has {params / 1e9:.2f} billion parameters, about "
                         f"{need / 2**30:.1f} GiB in {str(dtype).replace('torch.', '')}, but "
                         f"{where} has {free / 2**30:.1f} GiB free;{half} or use a machine "
                         "with more memory or a smaller model.")


def _free_memory(device) -> tuple[int, str]:
    import torch

    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return free, f"the GPU {device}"
    import psutil

    return psutil.virtual_memory().available, "this machine"


def check_finite_weights(named_tensors, what: str) -> None:
    """Every floating-point weight finite: a NaN or an infinity in a model's weights is
    damage, and would surface later only as attention that differs "by nan"."""
    import torch

    for name, tensor in named_tensors:
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise InputError(f"{what}: its weight {short_repr(name, 80)} holds NaN or infinite "
                             "numbers; the weights are damaged, so save them again.")
