"""Hugging Face models through transformers itself: RoBERTa, DistilBERT and ELECTRA encoders,
GPT-2, and Llama-style decoders (Llama, Mistral, Qwen2: rotary positions, grouped-query
attention).

The model runs as trained, with transformers' own eager attention. Each layer's call of
it is watched (an attention function registered with transformers that hands every call on
to the model's own eager function and keeps what went in and came out): the query and key
as the model rotated them, the value, the mask the model built (causal, sliding window)
and its weights. The trace's scores and weights are recomputed from those Q, K, V and
checked against the model's own weights before anything is drawn.

Nothing is downloaded and no code of a model's own runs: ``local_files_only``, never
``trust_remote_code``, safetensors only (pickled ``.bin`` weights are refused, never
unpickled). A BERT folder keeps the explicit forward of :mod:`.bert`.
"""
from __future__ import annotations

import hashlib
import math
import os
import sys
import threading
from pathlib import Path

from .bert import ModelFiles, sha256_of
from .errors import InputError, quoted_reason
from .layer_watch import LayerWatch
from .user_files import checked_folder
from .model_checks import (check_config_numbers, check_finite_weights, check_folder_files,
                           check_memory_for, check_weight_files, parameter_estimate,
                           read_settings_file, weight_files)
from .model_families import FAMILIES, SUPPORTED, Family, families_table
from .model_parts import (heads_and_mask, layer_module, model_scores, module_at,
                          out_map, output_norm, own_scale, position_table, post_norm, qkv_maps,
                          residual_scale, unpositioned_layers)

__all__ = ["CAPTURE_ATTENTION", "FAMILIES", "Family", "HFModelFiles", "LayerWatch",
           "SUPPORTED", "agreement_tolerance", "check_agreement", "families_table",
           "family_of_config",
           "from_folder", "heads_and_mask", "layer_module", "model_scores", "module_at",
           "out_map", "output_norm", "own_scale", "position_table", "post_norm", "qkv_maps",
           "residual_scale", "run_watched", "transformers_config", "unpositioned_layers"]

CAPTURE_ATTENTION = "attention_explainer_watch"
# how far the recomputed weights may be from the model's own, by the dtype it ran in
AGREEMENT = {"float32": 1e-5, "float64": 1e-9, "float16": 2e-3, "bfloat16": 1.6e-2}




# families whose attention does not go through transformers' attention interface, and
# what it adds that the film would have to draw
NOT_DRAWN = {
    "deberta": "fuses its query, key and value with biases of their own (DeBERTa's first "
               "version; v2 and v3, model type 'deberta-v2', are drawn)",
}


def family_of_config(config: dict, what: str) -> str:
    """The config's model_type, if it is one this path runs; else an InputError."""
    if "auto_map" in config:
        raise InputError(f"{what} needs code of its own (config.json has auto_map); "
                         "attention-explainer never runs a model's own code: use a model of a "
                         f"supported family ({SUPPORTED}).")
    model_type = config.get("model_type")
    if model_type in NOT_DRAWN:
        raise InputError(f"{what} is a {model_type!r} model, whose attention "
                         f"{NOT_DRAWN[model_type]}: the film cannot draw it yet; supported "
                         f"model types: {SUPPORTED}.")
    if model_type not in FAMILIES:
        shown = f"a {model_type!r}" if isinstance(model_type, str) else "an unnamed"
        reads = ("; an encoder–decoder's film is `translate`'s, its numbers `inspect`'s"
                 if model_type in ("marian", "bart", "mbart", "t5", "mt5") else "")
        raise InputError(f"{what} is {shown} model, not of a supported family; supported "
                         f"model types: {SUPPORTED}{reads}.")
    return model_type


def read_raw_config(folder: Path, what: str) -> dict:
    """config.json as JSON, bounded in size (the families' own checks come later)."""
    checked_folder(folder, what=what)
    path = folder / "config.json"
    if not os.path.lexists(path):
        raise InputError(f"{what} lacks config.json; a Hugging Face model folder has "
                         "config.json, model.safetensors and tokenizer.json.")
    return read_settings_file(path, what, folder)


def transformers_config(folder: Path, what: str):
    """config.json as transformers reads it (its defaults filled in); its failure in one
    line."""
    from transformers import AutoConfig

    _quiet_transformers()
    try:
        return AutoConfig.from_pretrained(str(folder), local_files_only=True,
                                          trust_remote_code=False)
    except Exception as exc:     # transformers raises ValueError, KeyError, OSError...
        raise InputError(f"{what}: transformers cannot read its config.json "
                         f"({type(exc).__name__}: {quoted_reason(exc)}).") from None


class HFModelFiles(ModelFiles):
    """A local Hugging Face folder of a supported family, checked before its weights load:
    no remote code, safetensors weights, a tokenizer that fits the embeddings, and (by
    :meth:`check_memory`) room for it on the device."""

    def __init__(self, folder: Path, config: dict, *, name: str):
        self.folder, self.name = Path(folder), name
        self.what = f"--model {str(folder)!r}"
        self.model_type = family_of_config(config, self.what)
        self.family = FAMILIES[self.model_type]
        check_config_numbers(config, self.what)     # before transformers builds anything of it
        self.weights = weight_files(self.folder, self.what)
        check_folder_files(self.folder, self.what)  # before transformers opens any of them
        self.tokenizer_path = self.folder / "tokenizer.json"
        if not os.path.lexists(self.tokenizer_path):
            raise InputError(f"{self.what} lacks tokenizer.json (a fast tokenizer's file); "
                             "save it with tokenizer.save_pretrained on a machine that has "
                             "the model's tokenizer.")
        self.config = transformers_config(self.folder, self.what)
        c = self.config
        try:
            self.num_layers = int(c.num_hidden_layers)
            self.num_heads = int(c.num_attention_heads)
            self.num_kv_heads = int(getattr(c, "num_key_value_heads", None) or self.num_heads)
            self.d_model = int(c.hidden_size)
            self.max_positions = int(c.max_position_embeddings)
            self.vocab_size = int(c.vocab_size)
        except (AttributeError, TypeError, ValueError) as exc:
            raise InputError(f"{self.what}: config.json lacks a setting its family needs or "
                             f"gives one of the wrong type ({exc}); use the model's own "
                             "config.json.") from None
        if self.family.positions_after_pad:     # RoBERTa counts positions from pad + 1
            self.max_positions -= int(getattr(c, "pad_token_id", None) or 0) + 1
        self._check_settings()
        check_weight_files(self.weights, self.folder, self.what, self.parameter_count())
        listed = self.tokenizer.get_vocab_size(with_added_tokens=True)
        if listed > self.vocab_size:
            raise InputError(f"{self.what}: tokenizer.json has {listed} tokens but the model's "
                             f"embeddings have {self.vocab_size}; the tokenizer and config.json "
                             "come from different models: use the folder's own tokenizer.")
        self._sha256 = None

    def _check_settings(self) -> None:
        """What the film's formula relies on: scores scaled by 1/sqrt(d_k), heads that
        divide the width."""
        c = self.config
        if self.model_type == "gpt2" and (not c.scale_attn_weights
                                         or c.scale_attn_by_inverse_layer_idx
                                         or c.reorder_and_upcast_attn):
            raise InputError(f"{self.what} computes its scores otherwise than softmax(QKᵀ/√d_k) "
                             "(scale_attn_weights, scale_attn_by_inverse_layer_idx or "
                             "reorder_and_upcast_attn); such a GPT-2 is not supported.")
        if not self.family.causal and (getattr(c, "is_decoder", False)
                                       or getattr(c, "add_cross_attention", False)):
            raise InputError(f"{self.what} is a {self.family.title} configured as a decoder "
                             "(is_decoder or add_cross_attention); only the encoder as trained "
                             "for its family is supported.")
        if self.model_type == "opt" and not c.do_layer_norm_before:
            raise InputError(f"{self.what} is an OPT that norms after attention "
                             "(do_layer_norm_before false, as OPT-350m): only the OPTs that "
                             "norm before it are supported.")
        if getattr(c, "alibi", False):
            raise InputError(f"{self.what} adds ALiBi's linear position bias to its scores "
                             "(alibi, as Falcon-RW): the film's scores would not be its own, so "
                             "such a model is not supported.")
        if self.family.shared_layers and (int(getattr(c, "num_hidden_groups", 1)) != 1 or
                                          int(getattr(c, "inner_group_num", 1)) != 1):
            raise InputError(f"{self.what} shares its layers in {c.num_hidden_groups} groups "
                             f"of {c.inner_group_num} (num_hidden_groups, inner_group_num): "
                             "only an ALBERT whose layers all share one is supported.")
        if self.family.relative_positions and (getattr(c, "position_biased_input", False)
                                               or not getattr(c, "relative_attention", False)):
            raise InputError(f"{self.what} is a DeBERTa that adds position vectors to its "
                             "input or has no relative attention (position_biased_input, "
                             "relative_attention): only one whose positions enter its scores "
                             "alone, as DeBERTa-v3's, is supported.")
        if getattr(c, "clip_qkv", None):
            raise InputError(f"{self.what} clips its queries, keys and values to "
                             f"±{c.clip_qkv:g} (clip_qkv): the film's W_Q times the input would "
                             "not be its query, so such a model is not supported.")
        if self.num_heads % self.num_kv_heads:
            raise InputError(f"{self.what}: {self.num_heads} query heads cannot share "
                             f"{self.num_kv_heads} key/value heads evenly.")

    @property
    def title(self) -> str:
        return self.family.title

    @property
    def sha256(self) -> str:
        """One file's sha256, or for several shards the sha256 of their names and digests."""
        if self._sha256 is None:
            if len(self.weights) == 1:
                self._sha256 = sha256_of(self.weights[0])
            else:
                digest = hashlib.sha256()
                for path in self.weights:
                    digest.update(f"{path.name}:{sha256_of(path)}\n".encode())
                self._sha256 = digest.hexdigest()
        return self._sha256

    # ---- memory ----------------------------------------------------------------------
    def parameter_count(self) -> int:
        """About how many parameters the base model has, by arithmetic from its config
        (``model_checks.parameter_estimate``): nothing is built, so nothing in the config
        can make this slow."""
        c = self.config
        head_dim = int(getattr(c, "head_dim", None) or self.d_model // self.num_heads)
        intermediate = int(getattr(c, "intermediate_size", None) or getattr(c, "n_inner", None)
                           or getattr(c, "hidden_dim", None) or 4 * self.d_model)
        return parameter_estimate(
            layers=self.num_layers, d_model=self.d_model, heads=self.num_heads,
            kv_heads=self.num_kv_heads, head_dim=head_dim, intermediate=intermediate,
            vocab=self.vocab_size, positions=0 if self.family.rotary else self.max_positions,
            gated=self.family.rotary)          # the rotary families gate their MLP

    def check_memory(self, device, dtype) -> None:
        """Refuse a model too large for the device's free memory, before it loads."""
        check_memory_for(self.parameter_count(), device, dtype, self.what)

    # ---- loading ---------------------------------------------------------------------
    def load_weights(self, device, dtype):
        """The base model, eager attention watched, on ``device`` in ``dtype``."""
        from transformers import AutoModel

        self.check_memory(device, dtype)
        _register_watch()
        # a family outside transformers' attention interface runs its own eager attention,
        # watched by hooks (run_watched)
        model, info = from_folder(AutoModel, self, dtype,
                                  "eager" if self.family.score_terms else CAPTURE_ATTENTION)
        # transformers fills a weight the file lacks with random numbers: never drawn
        missing = sorted(info.get("missing_keys") or []) + sorted(
            str(k[0]) if isinstance(k, tuple) else str(k) for k in info.get("mismatched_keys") or [])
        if missing:
            raise InputError(f"{self.what}: its weights lack {len(missing)} tensor"
                             f"{'s' * (len(missing) > 1)} its config.json implies (such as "
                             f"{missing[0]}); the weights and config.json do not belong "
                             "together.")
        check_finite_weights(model.state_dict().items(), self.what)
        return model.to(device).eval()


def from_folder(auto_class, files, dtype, attention: str, *, with_what: str = ""):
    """``auto_class.from_pretrained`` on the folder by the rules (local files only, no
    remote code, safetensors only): (model, loading info); its failure in one line."""
    _quiet_transformers()
    try:
        # mismatched shapes come back in the loading info, said below: transformers' own
        # refusal points at a load report it logs, which our users never see
        model, info = auto_class.from_pretrained(
            str(files.folder), local_files_only=True, trust_remote_code=False,
            use_safetensors=True, dtype=dtype, attn_implementation=attention,
            output_loading_info=True, ignore_mismatched_sizes=True)
    except Exception as exc:
        reason = "its weights could not be converted" if "above report" in str(exc) \
            else quoted_reason(exc)
        raise InputError(f"{files.what}: transformers cannot load it{with_what} "
                         f"({type(exc).__name__}: {reason}).") from None
    mismatched = sorted(info.get("mismatched_keys") or [], key=str)
    if mismatched:
        name, found, wanted = mismatched[0]      # its shape in the file, the config's
        raise InputError(f"{files.what}: its weights' {name} has shape {tuple(found)} but its "
                         f"config.json implies {tuple(wanted)}; the weights and config.json "
                         "do not belong together.")
    return model, info


def _quiet_transformers() -> None:
    """transformers' own warnings and progress bars are not for our users' terminals."""
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()


# ---- watching the model's own attention ----------------------------------------------------
_WATCH = threading.local()


def _watched_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                       **kwargs):
    """The model's own eager attention, with what went in and came out kept."""
    eager = sys.modules[type(module).__module__].eager_attention_forward
    zeroed = getattr(_WATCH, "zeroed", None)     # (layer or None: every layer, token)
    if zeroed is not None:                       # value zeroing (:mod:`.flow_runs`)
        layer, token = zeroed
        if layer is None or layer == _WATCH.count:
            value = value.clone()
            value[:, :, token] = 0
        _WATCH.count += 1
    out, weights = eager(module, query, key, value, attention_mask, scaling=scaling,
                         dropout=dropout, **kwargs)
    calls = getattr(_WATCH, "calls", None)
    if calls is not None:
        calls.append(LayerWatch(module, None, None, query, key, value, attention_mask,
                                query.shape[-1] ** -0.5 if scaling is None else float(scaling),
                                weights, bias=kwargs.get("position_bias"),
                                softcap=kwargs.get("softcap")))
    return out, weights


def _register_watch() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(CAPTURE_ATTENTION, _watched_attention)
    # the masks the model builds for it are eager's: additive, -inf where blocked
    AttentionMaskInterface.register(CAPTURE_ATTENTION, eager_mask)


def run_watched(model, family: Family, ids) -> list[LayerWatch]:
    """Run the model once on ``ids`` (1 x T) and return each layer's LayerWatch, with the
    attention module's input, the layer's input and W_O's output filled in."""
    layers = list(module_at(model, family.layers))
    # kept in the order the layers run: a model whose layers share one module (ALBERT)
    # runs it once per layer
    inputs, residuals, outputs = [], [], []
    handles = []

    def keep(store, from_output=False):
        def hook(module, args, kwargs, *result):
            if from_output:
                store.append(result[0])
            else:
                store.append(args[0] if args else kwargs["hidden_states"])
        return hook

    _WATCH.calls = calls = []

    def watched(module, args, kwargs, output):     # a family outside the interface
        from .term_watch import watched_call

        calls.append(watched_call(module, args, kwargs, output))

    for layer in layers:
        attention = module_at(layer, family.attention)
        handles.append(attention.register_forward_pre_hook(keep(inputs), with_kwargs=True))
        if family.score_terms:
            handles.append(attention.register_forward_hook(watched, with_kwargs=True))
        handles.append(layer.register_forward_pre_hook(keep(residuals), with_kwargs=True))
        handles.append(module_at(layer, family.out).register_forward_hook(
            keep(outputs, True), with_kwargs=True))
    try:
        model(input_ids=ids, output_attentions=True)
    finally:
        _WATCH.calls = None
        for h in handles:
            h.remove()
    expected = int(model.config.num_hidden_layers) if family.shared_layers else len(layers)
    if not len(calls) == len(inputs) == len(residuals) == len(outputs) == expected:
        raise InputError(f"the model called attention {len(calls)} times for its "
                         f"{expected} layers; this model's layout is not supported.")
    for n, call in enumerate(calls):
        call.hidden, call.residual, call.output = inputs[n], residuals[n], outputs[n]
    return calls


def agreement_tolerance(dtype) -> float:
    return AGREEMENT[str(dtype).replace("torch.", "")]


def check_agreement(gap: float, dtype, what: str, where: str) -> None:
    """The weights recomputed from the Q and K of ``where`` (such as "layer 3") differ from
    the model's own by ``gap``: within the tolerance of ``dtype``, else the film's formula
    is not this model's attention (or, not finite, its numbers overflowed ``dtype``)."""
    name = str(dtype).replace("torch.", "")
    if not math.isfinite(gap):          # finite weights (checked at load) overflowed
        raise InputError(f"{what}: the attention weights of {where} overflow {name} (they "
                         "are not finite numbers); " + ("use --dtype float32."
                                                        if name != "float32"
                                                        else "this model cannot be drawn."))
    tolerance = agreement_tolerance(dtype)
    if not gap <= tolerance:
        raise InputError(f"{what}: the weights recomputed from the Q, K and V of {where} "
                         f"differ from the model's by {gap:.2g} (more than {tolerance:g}); "
                         "this model's attention is not the one the film explains, so it is "
                         "not drawn.")
