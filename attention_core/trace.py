"""The AttentionTrace: every tensor of one attention layer, as float32 numpy arrays.

This is the boundary between numbers (attention_core) and drawing (scenes). It is saved
to a plain ``.npz`` (no pickle) whose keys are exactly the field names, with ``meta`` as a
JSON string, so a scene can be drawn from a saved trace alone.
"""
from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..facts import TRACE_DEFAULTS, TRACE_ENV
from .errors import InputError, is_json_int, short_repr
from .score_terms import check_score_terms
from .trace_file import (HINT, OPTIONAL_SHAPES, SHAPES, arrays_from, check_token_lists,
                         describe_shape, read_trace_arrays)
# how the numbers were made (meta update and positions), said in trace_kinds
from .trace_kinds import (POSITIONS_LEARNED, POSITIONS_NONE, POSITIONS_ROTARY,
                          POSITIONS_SINUSOIDAL, UPDATES_TO_STREAM, UPDATE_NORMED, UPDATE_PLAIN,
                          UPDATE_PRENORM, UPDATE_SANDWICH)

__all__ = ["ARRAY_FIELDS", "AttentionTrace", "DEFAULT_TRACE", "NPZ_KEYS", "OPTIONAL_FIELDS",
           "PROJECTION_ROWS", "REQUIRED_META", "ROW_SUM_TOLERANCE", "TRACE_ENV",
           "POSITIONS_LEARNED", "POSITIONS_NONE", "POSITIONS_ROTARY", "POSITIONS_SINUSOIDAL",
           "UPDATE_NORMED", "UPDATE_PLAIN", "UPDATE_PRENORM", "UPDATE_SANDWICH",
           "UPDATES_TO_STREAM",
           "drawn_projection_rows", "kept_projection_rows", "model_label", "trace_from_environment"]

NPZ_KEYS = tuple(SHAPES)     # tokens, the arrays below, meta: one source with the file checks
ARRAY_FIELDS = NPZ_KEYS[1:-1]   # embeddings, q, k, v, scores, mask, weights, context, output
OPTIONAL_FIELDS = tuple(OPTIONAL_SHAPES)    # projection_rows, ..., updated
REQUIRED_META = ("model", "weights_sha256", "layer", "heads", "focus", "focus_index",
                 "device", "dtype", "sentence")
# How far a row of weights may sum from 1: half-precision models round each weight.
ROW_SUM_TOLERANCE = {"bfloat16": 1e-2}
# The components of a query whose W_Q, W_K and W_V rows a trace keeps, with the last one.
PROJECTION_ROWS = (0, 1, 2, 3)


def model_label(meta: dict) -> str:
    """The model as the screen names it: the scratch model with its seed, a folder by its
    name and family ("my-llama, a Llama decoder")."""
    model = str(meta.get("model", ""))
    if model == "scratch" and "seed" in meta:
        return f"scratch (seed {meta['seed']})"
    if meta.get("family_title"):
        title = str(meta["family_title"])
        # "an" before a vowel's sound: an OPT, an ELECTRA, an XLM-RoBERTa, an MPNet; a Llama
        article = "an" if title[:1] in tuple("AEIOU") or title[:2].isupper() and title[0] in "FHLMNRSX" else "a"
        return f"{Path(model).name}, {article} {title}"
    return model


def kept_projection_rows(d_k: int) -> list[int]:
    """The rows of the primary head's W_Q, W_K and W_V a trace keeps for a head of size
    d_k (``meta["projection_rows"]``): PROJECTION_ROWS below d_k and the last, d_k - 1."""
    return sorted({r for r in PROJECTION_ROWS if r < d_k} | {d_k - 1})


def drawn_projection_rows(kept_rows) -> list[int]:
    """The rows the project beat writes out: the first three and the last of the kept
    rows (0, 1, 2 and d_k - 1 for a head of four components or more), in order."""
    rows = sorted(set(kept_rows))
    return sorted(set(rows[:3]) | set(rows[-1:]))


@dataclass(frozen=True, eq=False)
class AttentionTrace:
    """One layer's attention on one sentence.

    Shapes: T tokens, H selected heads (``meta["heads"]`` gives their indices in the
    model, in axis order), d_k per-head size, D = d_model.
    """

    tokens: tuple[str, ...]      # T model tokens, special tokens included
    embeddings: np.ndarray       # T x D   the layer's input hidden states
    q: np.ndarray                # H x T x d_k
    k: np.ndarray                # H x T x d_k
    v: np.ndarray                # H x T x d_k
    scores: np.ndarray           # H x T x T   QK^T / sqrt(d_k), before the mask
    mask: np.ndarray             # T x T bool  True where a query may NOT look at a key
    weights: np.ndarray          # H x T x T   softmax of the masked scores; rows sum to 1
    context: np.ndarray          # H x T x d_k weights @ v
    output: np.ndarray           # T x D   concat(all heads) @ W_O + b
    meta: dict = field(default_factory=dict)
    # optional: rows of the primary head's W_Q, W_K, W_V (3 x R x D) and their biases
    # (3 x R), the rows ``meta["projection_rows"]`` of each (see kept_projection_rows); the
    # project beat writes out drawn_projection_rows of them
    projection_rows: np.ndarray | None = None
    projection_bias: np.ndarray | None = None
    # optional: the focus word's update. contributions (T x D): what each token adds to the
    # focus's attention output, its weight times its value through W_O, summed over every
    # head of the layer (the norm-based view of Kobayashi et al., EMNLP 2020); they and
    # output_bias (D, W_O's bias) sum to output[focus]. updated (D): the focus's vector
    # after the residual connection (and the layer norm, as ``meta["update"]`` says)
    contributions: np.ndarray | None = None
    output_bias: np.ndarray | None = None
    updated: np.ndarray | None = None
    # optional: the focus token's row of weights in every head of the layer (A x T, A =
    # meta["num_heads_total"]), shown or not: the update sums over them all
    focus_weights_all: np.ndarray | None = None
    # optional: the position vectors the model adds to the embeddings of its first N
    # tokens (N x D, N >= T), as ``meta["positions"]`` says (learned, or sines and cosines)
    positions: np.ndarray | None = None
    # optional: the focus word's residual stream entering the layer (D), in a pre-norm
    # model (``meta["update"]`` is UPDATE_PRENORM): its update is added to this, while
    # ``embeddings`` holds what attention read, the layer norm of it
    residual: np.ndarray | None = None
    # optional: terms a model adds to each score (S x H x T x T, meta "score_terms"), in scores
    score_terms: np.ndarray | None = None

    # ---- convenient views used by the scenes and the CLI -------------------------
    @property
    def sentence(self) -> str:
        return self.meta["sentence"]

    @property
    def layer(self) -> int:
        return int(self.meta["layer"])

    @property
    def heads(self) -> list[int]:
        """Model head indices, in the order of the head axis."""
        return [int(h) for h in self.meta["heads"]]

    @property
    def primary_head(self) -> int:
        """The head the single-head beats explain (a model head index)."""
        return int(self.meta.get("primary_head", self.heads[0]))

    @property
    def primary_slot(self) -> int:
        """Position of the primary head on the head axis."""
        return self.heads.index(self.primary_head)

    @property
    def focus_index(self) -> int:
        return int(self.meta["focus_index"])

    @property
    def focus_word(self) -> str:
        """The focus token's text as the user wrote it (the query explained)."""
        return self.meta["focus"]

    @property
    def focus_span(self) -> tuple[int, int]:
        """The run of tokens (first, last) the user named with --focus; the focus token is
        one of them (a word of several tokens, a CJK word)."""
        span = self.meta.get("focus_span") or [self.focus_index, self.focus_index]
        return int(span[0]), int(span[1])

    @property
    def focus_span_text(self) -> str:
        return str(self.meta.get("focus_span_text", self.focus_word))

    @property
    def model_label(self) -> str:
        return model_label(self.meta)

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return int(self.q.shape[-1])

    @property
    def special(self) -> list[bool]:
        """True for tokens the model adds ([CLS], [SEP], ...)."""
        return [bool(s) for s in self.meta.get("special", [False] * len(self.tokens))]

    @property
    def word_ids(self) -> list[int]:
        """Word index of each token (-1 for special tokens)."""
        return [int(w) for w in self.meta.get("word_ids", range(len(self.tokens)))]

    @property
    def words(self) -> list[str]:
        """The sentence's words as the user wrote them (original case and accents)."""
        return list(self.meta.get("words", self.tokens))

    @property
    def written_words(self) -> list[tuple[int, int, str]]:
        """Words as written that are several tokens: (first, last, text). Older traces:
        the tokenizer's words of several tokens."""
        if "written_words" in self.meta:
            return [(int(a), int(b), str(t)) for a, b, t in self.meta["written_words"]]
        ids, words, runs = self.word_ids, self.words, []
        for wid in sorted(set(i for i in ids if i >= 0)):
            where = [n for n, i in enumerate(ids) if i == wid]
            if len(where) > 1 and where[-1] - where[0] == len(where) - 1 and wid < len(words):
                runs.append((where[0], where[-1], words[wid]))
        return runs

    def written_word_of(self, index: int) -> tuple[int, int, str] | None:
        """The written word of several tokens that token ``index`` is a piece of."""
        return next(((a, b, t) for a, b, t in self.written_words if a <= index <= b), None)

    @property
    def display_tokens(self) -> list[str]:
        """What to write on a token chip: the user's own text for the token's span."""
        return list(self.meta.get("display_tokens", self.tokens))

    @property
    def input_name(self) -> tuple[str, str]:
        """What the layer reads, named truly (singular, plural): a token's embedding only
        where the layer's input is the embedding (the first layer of a model that norms
        after attention, or the scratch layer); a pre-norm model's layer reads its residual
        stream, normed; a later layer reads the hidden state the one before made."""
        if self.meta.get("update") in UPDATES_TO_STREAM:
            if self.meta.get("input_normed", True) is False:     # OLMo 2 reads it as is
                return "residual stream", "residual streams"
            return "normed residual stream", "normed residual streams"
        if self.layer == 0 or self.meta.get("model") == "scratch":
            return "embedding", "embeddings"
        return f"hidden state from layer {self.layer - 1}", \
            f"hidden states from layer {self.layer - 1}"

    @property
    def has_bias(self) -> bool:
        """Whether the explained head's W_Q, W_K and W_V add a bias (a Llama's do not);
        an older trace without the rows is taken to have one."""
        return self.projection_bias is None or bool(np.any(self.projection_bias != 0))

    @property
    def mask_kind(self) -> str:
        return self.meta.get("mask", TRACE_DEFAULTS["mask"])     # older traces: no mask

    # ---- saving and loading ------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray]:
        arrays = {"tokens": np.array(self.tokens, dtype=np.str_)}
        for name in ARRAY_FIELDS + OPTIONAL_FIELDS:
            if getattr(self, name) is not None:
                arrays[name] = np.ascontiguousarray(getattr(self, name))
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True, ensure_ascii=False))
        return arrays

    def fingerprint(self) -> str:
        """A hash of every field (names, dtypes, shapes, bytes): equal for traces that
        draw the same film, whatever file they came from."""
        import hashlib

        digest = hashlib.sha256()
        for name, array in self.to_arrays().items():
            digest.update(f"{name}:{array.dtype.str}:{array.shape}:".encode())
            digest.update(array.tobytes())
        return digest.hexdigest()

    def save(self, path: str | Path) -> Path:
        """Write the trace as an .npz; byte-identical for identical traces.

        ``np.savez`` stamps the zip entries with the current time, so we write the zip
        ourselves with a fixed timestamp.
        """
        self._write_zip(path := Path(path))
        return path

    def to_bytes(self) -> bytes:
        """The bytes :meth:`save` writes."""
        self._write_zip(buffer := io.BytesIO())
        return buffer.getvalue()

    def _write_zip(self, target) -> None:
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, array in self.to_arrays().items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, array, allow_pickle=False)
                info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "AttentionTrace":
        """Read a trace written by :meth:`save`. The file may be hostile: it never unpickles,
        reads nothing before every declared size is checked (see :mod:`.trace_file`), and
        the trace it returns is validated like one the model computed."""
        return cls._from_arrays(read_trace_arrays(Path(path)), Path(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str | Path) -> "AttentionTrace":
        """:meth:`load` of the bytes of a trace file (``name`` names it in errors)."""
        return cls._from_arrays(arrays_from(io.BytesIO(data), name), Path(name))

    @classmethod
    def _from_arrays(cls, arrays: dict, path: Path) -> "AttentionTrace":
        try:
            meta = json.loads(str(arrays["meta"]))
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{path}: its meta is not JSON ({type(exc).__name__}); "
                             f"{HINT}") from None
        if not isinstance(meta, dict):
            raise InputError(f"{path}: its meta is not a JSON object; {HINT}")
        trace = cls(tokens=tuple(str(t) for t in arrays["tokens"].tolist()), meta=meta,
                    **{k: arrays[k] for k in ARRAY_FIELDS + OPTIONAL_FIELDS if k in arrays})
        try:
            trace.validate()
        except InputError as exc:
            raise InputError(f"{path} is not a consistent attention trace: {exc}; {HINT}") from None
        return trace

    def validate(self) -> None:
        """Check shapes, dtypes, metadata and weights agree; raise InputError if not.

        The scenes index tokens, heads and words with these numbers and draw the weights as
        probabilities, so a trace that lies about them is refused here, in words, rather than
        failing later inside a drawing with a numpy warning or an IndexError."""
        T = len(self.tokens)
        if T == 0:
            raise InputError("trace has no tokens")
        missing = [k for k in REQUIRED_META if k not in self.meta]
        if missing:
            raise InputError(f"trace meta lacks {', '.join(missing)}")
        _check_meta(self.meta, T)
        self._check_arrays(T, len(self.meta["heads"]))
        self._check_weights()
        self._check_projection()
        self._check_update()
        self._check_focus_weights_all()
        self._check_positions()
        check_score_terms(self)

    @property
    def has_update(self) -> bool:
        """Whether the trace holds the focus word's update (older traces do not)."""
        return self.contributions is not None

    def _check_update(self) -> None:
        """The optional update: all three or none, float32 of T x D, D and D, finite, and
        adding up: the contributions and W_O's bias make the focus's attention output."""
        parts = (self.contributions, self.output_bias, self.updated)
        if all(p is None for p in parts):
            return
        T, D = self.embeddings.shape
        if any(p is None or p.dtype != np.float32 for p in parts) \
                or self.contributions.shape != (T, D) or self.output_bias.shape != (D,) \
                or self.updated.shape != (D,):
            raise InputError("trace contributions, output_bias and updated must be float32 "
                             "arrays of T x d_model, d_model and d_model, all three or none")
        if not all(np.isfinite(p).all() for p in parts):
            raise InputError("trace update holds non-finite numbers")
        made = self.contributions.sum(0, dtype=np.float64) + self.output_bias
        out = self.output[self.focus_index].astype(np.float64)
        scale = max(float(np.abs(out).max()), 1.0)
        tolerance = ROW_SUM_TOLERANCE.get(str(self.meta.get("dtype")), 1e-3)
        if float(np.abs(made - out).max()) > tolerance * scale * 10:
            raise InputError("trace contributions and output_bias do not add up to the focus "
                             "token's attention output")
        x = self.residual       # there exactly when a pre-norm model's update needs it
        if (x is not None) != (self.meta.get("update") in UPDATES_TO_STREAM) or \
                x is not None and (x.dtype != np.float32 or x.shape != (D,)
                                   or not np.isfinite(x).all()):
            raise InputError(f"trace residual must be finite float32 of d_model, there exactly "
                             f"when meta update is {UPDATE_PRENORM!r} or {UPDATE_SANDWICH!r}")

    @property
    def update_base(self) -> np.ndarray:
        """The vector the focus word's update is added to: its residual stream in a
        pre-norm model, else its input to the layer (float64)."""
        base = self.residual if self.residual is not None else self.embeddings[self.focus_index]
        return base.astype(np.float64)

    def _check_focus_weights_all(self) -> None:
        """The optional focus rows of every head: float32 A x T, one row per head of the
        layer, each a distribution over the keys the mask leaves, and the shown heads' rows
        the trace's own."""
        rows = self.focus_weights_all
        if rows is None:
            return
        T, A = len(self.tokens), int(self.meta.get("num_heads_total", -1))
        if rows.dtype != np.float32 or rows.shape != (A, T):
            raise InputError("trace focus_weights_all must be a float32 array of "
                             "num_heads_total x T (the focus row of every head)")
        if not np.isfinite(rows).all() or (rows < 0).any() \
                or np.logical_and(rows != 0, self.mask[self.focus_index]).any():
            raise InputError("trace focus_weights_all are not weights (negative, non-finite "
                             "or where the mask blocks a key)")
        tolerance = ROW_SUM_TOLERANCE.get(str(self.meta.get("dtype")), 1e-3)
        if not self.mask[self.focus_index].all() and float(np.abs(
                rows.sum(axis=-1, dtype=np.float64) - 1.0).max()) > tolerance:
            raise InputError("trace focus_weights_all has a row not summing to 1")
        if any(h >= A for h in self.heads) or float(np.abs(
                rows[self.heads] - self.weights[:, self.focus_index]).max()) > tolerance:
            raise InputError("trace focus_weights_all disagrees with the shown heads' weights")

    @property
    def has_positions(self) -> bool:
        """Whether the trace holds the model's position vectors (older traces do not)."""
        return self.positions is not None

    def _check_positions(self) -> None:
        """The optional position vectors: float32 N x D, N at least T, finite, and named."""
        table = self.positions
        if table is None:
            return
        if table.dtype != np.float32 or table.ndim != 2 \
                or table.shape[1] != self.embeddings.shape[-1] or table.shape[0] < len(self.tokens):
            raise InputError("trace positions must be a float32 array of N x d_model with "
                             "N at least the number of tokens")
        if not np.isfinite(table).all():
            raise InputError("trace positions hold non-finite numbers")
        if self.meta.get("positions") not in (POSITIONS_LEARNED, POSITIONS_SINUSOIDAL):
            raise InputError(f"trace meta positions must say how they were made: "
                             f"{POSITIONS_LEARNED} or {POSITIONS_SINUSOIDAL}")

    def _check_projection(self) -> None:
        """The optional W rows: both or neither, 3 x R x D and 3 x R, rows named in meta."""
        rows, bias = self.projection_rows, self.projection_bias
        if rows is None and bias is None:
            return
        R = len(self.meta.get("projection_rows", []))
        if rows is None or bias is None or rows.shape != (3, R, self.embeddings.shape[-1]) \
                or bias.shape != (3, R) or rows.dtype != np.float32 or bias.dtype != np.float32:
            raise InputError("trace projection_rows and projection_bias must be float32 arrays "
                             f"of 3 x R x d_model and 3 x R for the {R} rows its meta names")
        if not all(is_json_int(r) and 0 <= r < self.d_k for r in self.meta["projection_rows"]):
            raise InputError("trace meta projection_rows must be components of a query (0 to "
                             f"{self.d_k - 1})")
        if not np.isfinite(rows).all() or not np.isfinite(bias).all():
            raise InputError("trace projection rows hold non-finite numbers")

    def _check_arrays(self, T: int, H: int) -> None:
        d_k = self.q.shape[-1] if self.q.ndim == 3 else -1
        D = self.embeddings.shape[-1] if self.embeddings.ndim == 2 else -1
        dims = {"T": T, "H": H, "d_k": d_k, "D": D}
        for name in ARRAY_FIELDS:
            arr = getattr(self, name)
            shape = tuple(dims[s] for s in SHAPES[name])
            if tuple(arr.shape) != shape:
                raise InputError(f"trace field {name} has shape {tuple(arr.shape)}, expected "
                                 f"{describe_shape(name, dims)}")
            want = np.bool_ if name == "mask" else np.float32
            if arr.dtype != want:
                raise InputError(f"trace field {name} has dtype {arr.dtype}, expected "
                                 f"{np.dtype(want)}")
        if not all(np.isfinite(getattr(self, n)).all() for n in ARRAY_FIELDS if n != "mask"):
            raise InputError("trace holds non-finite numbers")

    def _check_weights(self) -> None:
        """Each row of weights is a probability distribution over the keys the mask leaves."""
        w = self.weights
        if (w < 0).any():
            raise InputError("trace weights are negative somewhere; attention weights are "
                             "probabilities")
        if np.logical_and(w != 0, self.mask).any():
            raise InputError("trace weights are non-zero where the mask blocks a key")
        tolerance = ROW_SUM_TOLERANCE.get(str(self.meta.get("dtype")), 1e-3)
        open_rows = ~self.mask.all(axis=-1)
        error = np.abs(w.sum(axis=-1, dtype=np.float64) - 1.0)[:, open_rows]
        if error.size and error.max() > tolerance:
            raise InputError(f"trace weights have a row summing to 1 ± {error.max():.3g}; each "
                             f"row of attention weights sums to 1 (within {tolerance:g})")


def _check_meta(meta: dict, T: int) -> None:
    """The metadata the scenes index with: heads, layer, focus and the per-token lists."""
    heads = meta["heads"]
    if not (isinstance(heads, list) and heads and all(is_json_int(h) and h >= 0 for h in heads)
            and len(set(heads)) == len(heads)):
        raise InputError(f"trace meta heads {short_repr(heads, 60)} is not a list of distinct "
                         "non-negative head numbers")
    primary = meta.get("primary_head", heads[0])
    if not is_json_int(primary) or primary not in heads:
        raise InputError(f"trace meta primary_head {short_repr(primary, 60)} is not among the heads "
                         f"{short_repr(heads, 60)}")
    if not is_json_int(meta["layer"]) or meta["layer"] < 0:
        raise InputError(f"trace meta layer {short_repr(meta['layer'], 60)} is not a non-negative "
                         "integer")
    index = meta["focus_index"]
    if not is_json_int(index) or not 0 <= index < T:
        raise InputError(f"trace meta focus_index {short_repr(index, 60)} is not a token position "
                         f"(an integer from 0 to {T - 1})")
    for key in ("sentence", "focus"):
        if not isinstance(meta[key], str):
            raise InputError(f"trace meta {key} {short_repr(meta[key], 60)} is not text")
    span = meta.get("focus_span", [index, index])
    if not (isinstance(span, list) and len(span) == 2 and all(is_json_int(s) for s in span)
            and 0 <= span[0] <= index <= span[1] < T):
        raise InputError(f"trace meta focus_span {short_repr(span, 60)} is not a run of tokens "
                         f"holding the focus token {index}")
    check_token_lists(meta, T)


# ---- the trace a plain `manim` render draws ------------------------------------------------
DEFAULT_TRACE = Path(__file__).resolve().parent / "data" / "default-trace.npz"


def trace_from_environment() -> AttentionTrace:
    """The trace named by $ATTENTION_EXPLAINER_TRACE, else the shipped trace of the default
    sentence ("The cat ate the fish"). Runs no model: a beat rendered by plain ``manim``
    draws a saved trace."""
    import os

    return AttentionTrace.load(os.environ.get(TRACE_ENV) or DEFAULT_TRACE)
