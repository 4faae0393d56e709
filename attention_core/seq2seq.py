"""Models that translate: an encoder–decoder folder (Marian, BART, mBART, T5, mT5) run by
transformers itself, its attention watched as for the other families.

The source sentence goes to the encoder; the target is the given translation (teacher
forced) or, by default, the model's own greedy one. Every attention call is kept in the
order the model makes them (the encoder's layers, then for each decoder layer its own
self-attention and its cross-attention), and the kind asked for — the encoder's
self-attention, the cross-attention (the decoder's queries over the encoder's keys and
values) or the decoder's causal self-attention — is recomputed from the watched Q and K
(with T5's relative position bias, added to its unscaled scores) and checked against the
model's own weights before anything is said.

A target row is the decoder's query at the step that writes that target token: the row
of "Katze" is the query that chose "Katze".
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..facts import MAX_NEW_TOKENS_RANGE
from .errors import InputError

__all__ = ["FAMILIES", "KINDS", "Alignment", "Seq2SeqFiles", "align", "is_seq2seq",
           "seq2seq_files"]

FAMILIES = {"marian": "Marian", "bart": "BART", "mbart": "mBART", "t5": "T5", "mt5": "mT5"}
T5_LIKE = ("t5", "mt5")        # T5's names for its sizes, and relative positions
# a Marian (opus-mt) folder's tokenizer is SentencePiece's own files; the others' tokenizer.json
MARIAN_TOKENIZER = ("source.spm", "target.spm", "vocab.json")
KINDS = ("cross", "self", "decoder")
KIND_NAMES = {"cross": "the cross-attention of decoder layer",
              "self": "the self-attention of encoder layer",
              "decoder": "the self-attention of decoder layer"}
MAX_NEW_TOKENS = MAX_NEW_TOKENS_RANGE[1]


def is_seq2seq(config: dict) -> bool:
    return config.get("model_type") in FAMILIES


def seq2seq_files(model: str) -> "Seq2SeqFiles | None":
    """The encoder–decoder folder ``model`` names, checked; None for anything else (the
    bundled models, another family's folder, a path that is no folder: the trace's own
    checks say what is wrong with those)."""
    from .hf_models import read_raw_config

    from .hub_cache import model_folder

    if model in ("minilm", "scratch"):
        return None
    path = model_folder(model)          # a folder, or a hub id's snapshot in the cache
    if path is None or not path.is_dir():
        return None
    config = read_raw_config(path, f"--model {str(path)!r}")
    name = str(path) if Path(model).expanduser().exists() else model     # a hub id as given
    return Seq2SeqFiles(path.resolve(), config, name=name) if is_seq2seq(config) else None


@dataclass(frozen=True)
class Alignment:
    """One layer's weights of one kind of attention: heads x queries x keys."""
    kind: str
    layer: int
    heads: list
    source: list                # the encoder's tokens, as texts
    target: list                # the target tokens, as texts (a row each, for cross)
    decoder_inputs: list        # what the decoder read: its start token, then the target
    weights: np.ndarray
    model: str
    own_translation: bool       # the model's greedy translation, not a given one
    source_special: tuple = ()  # which source tokens the tokenizer added (</s>, a language)
    target_special: tuple = ()  # ... and which target tokens
    num_layers: int = 0         # the layers of this kind the model has
    source_unknown: tuple = ()  # which source tokens the model reads as its unknown token
    target_unknown: tuple = ()
    every_layer: np.ndarray | None = None   # L x H x queries x keys, where asked for

    @property
    def queries(self) -> list:
        return self.source if self.kind == "self" else self.target

    @property
    def keys(self) -> list:
        return self.decoder_inputs if self.kind == "decoder" else self.source

    def rows_of(self, focus: str) -> list:
        """The query rows of ``focus``: the first run of tokens whose text together reads
        it (spaces and case aside), a word of several pieces being all of its pieces."""
        wanted = "".join(focus.split()).casefold()
        texts = ["".join(t.split()).casefold() for t in self.queries]
        rows = []
        for start in range(len(texts)):
            joined, end = "", start
            while end < len(texts) and len(joined) < len(wanted):
                joined, end = joined + texts[end], end + 1
            if joined == wanted and texts[start]:
                rows = list(range(start, end))
                break
        if not rows:
            shown = ", ".join(repr(t.strip()) for t in self.queries if t.strip())
            raise InputError(f"--focus {focus!r} is none of the "
                             f"{'target' if self.kind != 'self' else 'source'} tokens; choose "
                             f"from {shown}.")
        return rows

    def to_json(self) -> dict:
        return {"model": self.model, "attention": self.kind, "layer": self.layer,
                "heads": self.heads, "source": self.source, "target": self.target,
                "decoder_inputs": self.decoder_inputs,
                "translation": "the model's own (greedy)" if self.own_translation else "given",
                "queries": self.queries, "keys": self.keys, "weights": self.weights.tolist()}


class Seq2SeqFiles:
    """A local encoder–decoder folder: config.json of a supported family (no remote
    code), safetensors weights, its tokenizer (tokenizer.json; Marian's SentencePiece
    files), checked by the rules every model folder is (:mod:`.model_checks`), in two steps.

    At once, from config.json as written and the folder's listing (no torch: faces build
    this before the first import of torch): its sizes and numbers, each of its files a
    regular one inside it. Then, as its run starts (:attr:`config`): its sizes with
    transformers' defaults filled in, the weights' size and the memory those sizes need,
    and every token id it names, before anything of it is built."""

    def __init__(self, folder: Path, config: dict, *, name: str):
        from .model_checks import (check_config_numbers, check_folder_files,
                                   check_weight_files, weight_files)

        self.folder, self.name = Path(folder), name
        self.what = f"--model {str(folder)!r}"
        if "auto_map" in config:
            raise InputError(f"{self.what} needs code of its own (config.json has auto_map); "
                             "attention-explainer never runs a model's own code.")
        self.model_type = config["model_type"]
        self.title = f"{FAMILIES[self.model_type]} encoder–decoder"
        self.config_as_written = config
        check_config_numbers(config, self.what)     # before transformers builds anything
        self.weights = weight_files(self.folder, self.what)     # the same rule: never pickles
        check_weight_files(self.weights, self.folder, self.what)
        check_folder_files(self.folder, self.what)  # before transformers opens any of them
        written = config.get("decoder_vocab_size") or config.get("vocab_size")   # checked
        self._check_token_ids(written)              # and again, with transformers' defaults
        for name in MARIAN_TOKENIZER if self.model_type == "marian" else ("tokenizer.json",):
            if not os.path.lexists(self.folder / name):
                raise InputError(f"{self.what} lacks {name}, its tokenizer's file; save it "
                                 "with tokenizer.save_pretrained.")

    @cached_property
    def config(self):
        """config.json as transformers reads it, checked where the JSON alone could not
        be: the family's settings with its defaults, the weights no larger than its sizes
        fill, and the token ids of config.json and generation_config.json."""
        from .hf_models import transformers_config
        from .model_checks import check_weight_files

        c = transformers_config(self.folder, self.what)
        if self.model_type in T5_LIKE:
            buckets, distance = c.relative_attention_num_buckets, c.relative_attention_max_distance
            if distance <= buckets // 2:    # the decoder's bucket arithmetic divides by log(1)
                raise InputError(f"{self.what}: config.json relative_attention_max_distance "
                                 f"{distance} must be more than half of "
                                 f"relative_attention_num_buckets {buckets}; use the model's "
                                 "own config.json.")
        else:
            for key in ("encoder_attention_heads", "decoder_attention_heads"):
                if c.d_model % getattr(c, key):
                    raise InputError(f"{self.what}: config.json d_model {c.d_model} is not "
                                     f"divisible by {key} {getattr(c, key)}; use the model's "
                                     "own config.json.")
        self._check_token_ids(int(getattr(c, "decoder_vocab_size", None) or c.vocab_size))
        check_weight_files(self.weights, self.folder, self.what, _parameter_count(c))
        return c

    def _check_token_ids(self, vocab: int | None) -> None:
        """The token ids of config.json and generation_config.json (generate reads its own
        there) are ids of the decoder's vocabulary, ``vocab`` (None: not known yet)."""
        from .model_checks import check_token_ids, read_settings_file

        check_token_ids(self.config_as_written, vocab, self.what, "config.json")
        generation = self.folder / "generation_config.json"
        if os.path.lexists(generation):
            check_token_ids(read_settings_file(generation, self.what, self.folder), vocab,
                            self.what, generation.name)

    @property
    def tokenizer(self):
        from transformers import AutoTokenizer

        from .hf_models import _quiet_transformers

        _quiet_transformers()
        # Marian's asks for sacremoses (as it loads and as it reads), which only normalises
        # the punctuation it is given: not for our users' terminals
        warnings.filterwarnings("ignore", message=".*sacremoses.*")
        try:
            return AutoTokenizer.from_pretrained(str(self.folder), local_files_only=True,
                                                 trust_remote_code=False, use_fast=True)
        except Exception as exc:
            raise InputError(f"{self.what}: its tokenizer cannot be read "
                             f"({type(exc).__name__}).") from None

    def check_memory(self, device, dtype) -> None:
        """Refuse a model too large for the device's free memory, before it loads."""
        from .model_checks import check_memory_for

        check_memory_for(_parameter_count(self.config), device, dtype, self.what)

    def load(self, device, dtype):
        from transformers import AutoModelForSeq2SeqLM, GenerationConfig

        from .hf_models import CAPTURE_ATTENTION, _register_watch, from_folder
        from .model_checks import TOKEN_ID_KEYS, check_finite_weights

        self.check_memory(device, dtype)
        _register_watch()
        model, info = from_folder(AutoModelForSeq2SeqLM, self, dtype, CAPTURE_ATTENTION)
        if info.get("missing_keys"):
            raise InputError(f"{self.what}: its weights lack {sorted(info['missing_keys'])[0]}"
                             "; the weights and config.json do not belong together.")
        check_finite_weights(model.state_dict().items(), self.what)
        # its greedy translation reads of its generation settings only the tokens that start,
        # pad and end it and those forced or barred (each checked): the rest (beams,
        # sampling, lengths, what generate hands back) is not a greedy translation's
        ids = {key: getattr(model.generation_config, key, None) for key in TOKEN_ID_KEYS}
        model.generation_config = GenerationConfig(
            **{key: value for key, value in ids.items() if value is not None})
        return model.to(device).eval()


def _parameter_count(c) -> int:
    """About how many parameters the encoder–decoder of config ``c`` has, by arithmetic
    (``model_checks.encoder_decoder_estimate``): nothing is built, so nothing in the config
    can make this slow."""
    from .model_checks import encoder_decoder_estimate

    untied = not getattr(c, "tie_word_embeddings", True)
    if c.model_type in T5_LIKE:         # relative positions: a table of buckets per side
        width = c.num_heads * c.d_kv
        return encoder_decoder_estimate(
            encoder_layers=c.num_layers, decoder_layers=c.num_decoder_layers,
            d_model=c.d_model, encoder_width=width, decoder_width=width, encoder_ffn=c.d_ff,
            decoder_ffn=c.d_ff, vocab=c.vocab_size, positions=0, gated=c.is_gated_act,
            output_head=untied, position_bias=2 * c.relative_attention_num_buckets * c.num_heads)
    return encoder_decoder_estimate(
        encoder_layers=c.encoder_layers, decoder_layers=c.decoder_layers, d_model=c.d_model,
        encoder_width=c.d_model, decoder_width=c.d_model, encoder_ffn=c.encoder_ffn_dim,
        decoder_ffn=c.decoder_ffn_dim,
        vocab=max(c.vocab_size, int(getattr(c, "decoder_vocab_size", None) or 0)),
        positions=c.max_position_embeddings, gated=False, output_head=untied, position_bias=0)


def _target_ids(model, tokenizer, src, target: str | None, max_new: int, device):
    """(decoder input ids, target ids): the given target shifted right as in training,
    or the model's greedy translation (its start token, then what it wrote)."""
    import torch

    if target is not None:
        labels = torch.tensor([tokenizer(text_target=target).input_ids], device=device)
        return model.prepare_decoder_input_ids_from_labels(labels=labels), labels
    written = model.generate(src, do_sample=False, num_beams=1, max_new_tokens=max_new)
    return written[:, :-1], written[:, 1:]


def _split_calls(model, calls) -> dict:
    """The watched calls by kind: {"self": [...], "decoder": [...], "cross": [...]}."""
    config = model.config
    encoder = int(getattr(config, "encoder_layers", None) or config.num_layers)
    decoder = int(getattr(config, "decoder_layers", None)
                  or getattr(config, "num_decoder_layers", None) or config.num_layers)
    if len(calls) != encoder + 2 * decoder:
        raise InputError(f"the model called attention {len(calls)} times for its {encoder} "
                         f"encoder and {decoder} decoder layers; its layout is not supported.")
    rest = calls[encoder:]
    return {"self": calls[:encoder], "decoder": rest[0::2], "cross": rest[1::2]}


def _recomputed(watch, dtype, what: str, where: str) -> np.ndarray:
    """softmax(QKᵀ·scaling + bias + mask) from the watched call, checked against the
    model's own weights (``hf_models.check_agreement``). The scores are summed in the
    model's dtype, as its eager attention sums them (T5's are unscaled: in bfloat16 a score
    of 40 is only good to 0.25, which moves a weight far more than the tolerance; rounded
    as the model rounded it, what is left is the softmax's own rounding); the softmax runs
    in float64."""
    import torch

    from .bert import to_numpy
    from .hf_models import check_agreement

    scores = torch.matmul(watch.q, watch.k.transpose(-1, -2)) * watch.scaling
    if watch.bias is not None:
        scores = scores + watch.bias
    if watch.mask is not None:
        scores = scores + watch.mask[..., : watch.k.shape[-2]]
    weights = torch.softmax(scores.double(), dim=-1)
    check_agreement(float((weights - watch.weights.double()).abs().max()), dtype, what, where)
    return to_numpy(weights[0])


def _watched_run(files: Seq2SeqFiles, sentence: str, target: str | None, kind: str,
                 max_new_tokens: int, device, dtype):
    """One run of the model on ``sentence`` and its translation, every attention call
    watched: (tokenizer, source ids, decoder inputs, target ids, the calls by kind)."""
    import torch

    from .device import one_cpu_thread
    from .hf_models import _WATCH

    if kind not in KINDS:
        raise InputError(f"--attention {kind!r} is unknown; use {', '.join(KINDS)}.")
    if not 1 <= max_new_tokens <= MAX_NEW_TOKENS:
        raise InputError(f"--max-new-tokens {max_new_tokens}: give 1 to {MAX_NEW_TOKENS}.")
    files.check_memory(device, dtype)       # its settings and sizes, before its tokenizer
    tokenizer = files.tokenizer
    model = files.load(device, dtype)
    src = torch.tensor([tokenizer(sentence).input_ids], device=device)
    # BART's learned positions end; T5's relative buckets do not, 512 is what it trained on
    positions = int(getattr(model.config, "max_position_embeddings", None) or 512)
    with one_cpu_thread(), torch.inference_mode():
        dec_in, labels = _target_ids(model, tokenizer, src, target, max_new_tokens, device)
        for what, ids in (("the sentence", src), ("--target", dec_in)):
            if ids.shape[1] > positions:
                raise InputError(f"{what} is {ids.shape[1]} tokens long, more than the model's "
                                 f"{positions} positions; shorten it.")
        _WATCH.calls = calls = []
        try:
            model(input_ids=src, decoder_input_ids=dec_in, output_attentions=True)
        finally:
            _WATCH.calls = None
    return tokenizer, src, dec_in, labels, _split_calls(model, calls)


def align(files: Seq2SeqFiles, sentence: str, *, target: str | None = None,
          kind: str = "cross", layer="auto", heads="auto", max_new_tokens: int = 32,
          device, dtype, every_layer: bool = False) -> Alignment:
    """The ``kind`` of attention in ``layer`` (auto: the last), ``heads`` (auto: all), on
    ``sentence`` and its translation (``target``, or the model's own greedy one);
    ``every_layer``: each layer's weights too, each recomputed and checked (the atlas's)."""
    tokenizer, src, dec_in, labels, by_kind = _watched_run(files, sentence, target, kind,
                                                           max_new_tokens, device, dtype)
    count = len(by_kind[kind])
    chosen = count - 1 if layer == "auto" else int(layer)
    if not 0 <= chosen < count:
        raise InputError(f"--layer {layer}: this model's {kind} attention has layers 0 to "
                         f"{count - 1}.")
    def checked(n):
        return _recomputed(by_kind[kind][n], dtype, files.what, f"{KIND_NAMES[kind]} {n}")

    weights = checked(chosen)
    shown = list(range(weights.shape[0])) if heads in ("auto", "all") else \
        [int(h) for h in str(heads).split(",") if h.strip()]
    if not shown or not all(0 <= h < weights.shape[0] for h in shown):
        raise InputError(f"--heads {heads}: this model's {kind} attention has heads 0 to "
                         f"{weights.shape[0] - 1}; give auto, all or indices such as 0,2.")
    def texts(ids):
        # a SentencePiece piece that starts a word keeps its space, as a byte-level one does
        ids = ids[0].tolist()
        return [" " + tokenizer.decode([i]).lstrip() if str(piece).startswith("\u2581")
                else tokenizer.decode([i])
                for piece, i in zip(tokenizer.convert_ids_to_tokens(ids), ids)]

    specials, unknown_id = set(tokenizer.all_special_ids), tokenizer.unk_token_id

    def special(ids):
        return tuple(int(i) in specials and int(i) != unknown_id for i in ids[0].tolist())

    def unknown(ids):
        return tuple(unknown_id is not None and int(i) == unknown_id for i in ids[0].tolist())

    return Alignment(kind, chosen, shown, texts(src), texts(labels), texts(dec_in),
                     weights[shown], files.title, target is None, special(src),
                     special(labels), count, unknown(src), unknown(labels),
                     np.stack([checked(n) for n in range(count)]) if every_layer else None)
