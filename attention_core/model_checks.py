"""Checks of a model folder, made before anything heavy runs: a BERT folder's completely,
another family's sizes (:func:`check_sizes`) and the memory its weights need, counted from
its config (:func:`parameter_estimate`).

config.json is checked completely and every tensor the forward pass uses is checked against
it from the safetensors header alone. A folder whose parts disagree would otherwise fail deep
inside torch with a traceback, or quietly index past the end of an embedding table.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from .errors import InputError, is_json_int, short_repr
from .user_files import checked_file, opened_checked

__all__ = ["ACTIVATIONS", "CONFIG_INTS", "EMBEDDINGS", "FIX", "MAX_CONFIG_BYTES", "SIZE_LIMITS",
           "SUPPORTED_MODEL_TYPES", "check_config", "check_finite_weights", "check_sizes",
           "check_tensor_shapes", "check_weight_files", "expected_shapes", "parameter_estimate",
           "read_config", "safetensors_shapes", "tensor_prefix"]

SUPPORTED_MODEL_TYPES = ("bert",)
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")
MAX_CONFIG_BYTES = 1 << 20     # a BERT config.json is under a kilobyte
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
    D, I = config["hidden_size"], config["intermediate_size"]
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
        shapes[f"{p}intermediate.dense.weight"] = (I, D)
        shapes[f"{p}intermediate.dense.bias"] = (I,)
        shapes[f"{p}output.dense.weight"], shapes[f"{p}output.dense.bias"] = (D, I), (D,)
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
SIZE_LIMITS = {
    "num_hidden_layers": _LAYERS, "n_layer": _LAYERS, "n_layers": _LAYERS,
    "num_attention_heads": _HEADS, "n_head": _HEADS, "n_heads": _HEADS,
    "num_key_value_heads": _HEADS,
    "hidden_size": _WIDTH, "n_embd": _WIDTH, "dim": _WIDTH, "embedding_size": _WIDTH,
    "head_dim": _WIDTH,
    "intermediate_size": _WIDE, "n_inner": _WIDE, "hidden_dim": _WIDE,
    "max_position_embeddings": _LONG, "n_positions": _LONG, "n_ctx": _LONG,
    "vocab_size": _LONG, "type_vocab_size": (0, 1024),
}
_MAY_BE_NULL = {"n_inner", "head_dim", "num_key_value_heads", "embedding_size"}


def check_sizes(config: dict, what: str) -> None:
    """Every size config.json gives (layers, heads, widths, positions, vocabulary) is an
    integer within :data:`SIZE_LIMITS`, before anything is built from it."""
    for key, (low, high) in SIZE_LIMITS.items():
        if key not in config or (config[key] is None and key in _MAY_BE_NULL):
            continue
        value = config[key]
        if not is_json_int(value) or not low <= value <= high:
            raise InputError(f"{what}: config.json {key} is {short_repr(value)}; it must be "
                             f"an integer from {low} to {high} (use the model's own config).")


def parameter_estimate(*, layers: int, d_model: int, heads: int, kv_heads: int, head_dim: int,
                       intermediate: int, vocab: int, positions: int, gated: bool) -> int:
    """About how many parameters a model of these sizes has, by arithmetic: the embeddings
    (and a learned position table), and per layer the projections of attention and the
    feed-forward's two matrices (three where gated, as Llama's). Biases and norms, a
    few thousandths, are left out: it sizes memory, never a number on screen."""
    attention = d_model * head_dim * (2 * heads + 2 * kv_heads)
    feed_forward = (3 if gated else 2) * d_model * intermediate
    return vocab * d_model + positions * d_model + layers * (attention + feed_forward)


def check_weight_files(paths: list[Path], folder: Path, what: str, parameters: int) -> None:
    """The weight files by the rule for a user's file (regular, inside ``folder``) and, all
    together, no larger than ``parameters`` can fill: each parameter twice (an output head
    beside the embeddings) in float64, and 64 MB of headers. A larger set is not this
    config's weights, and would cost its whole size to hash before that showed."""
    total = 0
    for path in paths:
        total += checked_file(path, what=what, folder=folder,
                              fix="; a model folder's weights are regular files").stat().st_size
    bound = 16 * parameters + (64 << 20)
    if total > bound:
        raise InputError(f"{what}: its weights are {_bytes(total)}, more than the "
                         f"{_bytes(bound)} its config.json's sizes can fill; {FIX}.")


def _bytes(count: int) -> str:
    return f"{count / 2 ** 30:.1f} GiB" if count >= 2 ** 30 else f"{count / 2 ** 20:.0f} MB"


def check_finite_weights(named_tensors, what: str) -> None:
    """Every floating-point weight finite: a NaN or an infinity in a model's weights is
    damage, and would surface later only as attention that differs "by nan"."""
    import torch

    for name, tensor in named_tensors:
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise InputError(f"{what}: its weight {short_repr(name, 80)} holds NaN or infinite "
                             "numbers; the weights are damaged, so save them again.")
