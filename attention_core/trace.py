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

from .errors import InputError

ARRAY_FIELDS = ("embeddings", "q", "k", "v", "scores", "mask", "weights", "context", "output")
NPZ_KEYS = ("tokens",) + ARRAY_FIELDS + ("meta",)
REQUIRED_META = ("model", "weights_sha256", "layer", "heads", "focus", "focus_index",
                 "device", "dtype", "sentence")


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
        return self.meta["focus"]

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
    def display_tokens(self) -> list[str]:
        """What to write on a token chip: the user's own text for the token's span."""
        return list(self.meta.get("display_tokens", self.tokens))

    @property
    def mask_kind(self) -> str:
        return self.meta.get("mask", "none")

    # ---- saving and loading ------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray]:
        arrays = {"tokens": np.array(self.tokens, dtype=np.str_)}
        for name in ARRAY_FIELDS:
            arrays[name] = np.ascontiguousarray(getattr(self, name))
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True, ensure_ascii=False))
        return arrays

    def save(self, path: str | Path) -> Path:
        """Write the trace as an .npz; byte-identical for identical traces.

        ``np.savez`` stamps the zip entries with the current time, so we write the zip
        ourselves with a fixed timestamp.
        """
        path = Path(path)
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, array in self.to_arrays().items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, array, allow_pickle=False)
                info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue())
        return path

    @classmethod
    def load(cls, path: str | Path) -> "AttentionTrace":
        """Read a trace written by :meth:`save`; never unpickles anything."""
        path = Path(path)
        if not path.is_file():
            raise InputError(f"trace file {str(path)!r} does not exist; write one with "
                             "`attention-explainer inspect --npz FILE`.")
        hint = "write a fresh one with `attention-explainer inspect --npz FILE`."
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = [k for k in NPZ_KEYS if k not in data.files]
                if missing:
                    raise InputError(f"{path} is not an attention trace (missing "
                                     f"{', '.join(missing)}); {hint}")
                arrays = {k: data[k] for k in NPZ_KEYS}
        except InputError:
            raise
        except ValueError as exc:  # object arrays need pickle: refused
            raise InputError(f"{path} holds pickled objects, which are never loaded; {hint}") from exc
        except Exception as exc:
            raise InputError(f"{path} is not a readable .npz trace ({type(exc).__name__}); {hint}") from exc
        try:
            meta = json.loads(str(arrays["meta"]))
            if not isinstance(meta, dict):
                raise ValueError("meta is not an object")
            trace = cls(tokens=tuple(str(t) for t in arrays["tokens"].tolist()),
                        meta=meta,
                        **{k: arrays[k] for k in ARRAY_FIELDS})
            trace.validate()
        except InputError:
            raise
        except Exception as exc:
            raise InputError(f"{path} is not a consistent attention trace ({exc}); {hint}") from exc
        return trace

    def validate(self) -> None:
        """Check shapes, dtypes and metadata agree; raise InputError if not."""
        T = len(self.tokens)
        if T == 0:
            raise InputError("trace has no tokens")
        missing = [k for k in REQUIRED_META if k not in self.meta]
        if missing:
            raise InputError(f"trace meta lacks {', '.join(missing)}")
        H = len(self.meta["heads"])
        d_k = self.q.shape[-1] if self.q.ndim == 3 else -1
        D = self.embeddings.shape[-1] if self.embeddings.ndim == 2 else -1
        expected = {
            "embeddings": (T, D), "q": (H, T, d_k), "k": (H, T, d_k), "v": (H, T, d_k),
            "scores": (H, T, T), "mask": (T, T), "weights": (H, T, T),
            "context": (H, T, d_k), "output": (T, D),
        }
        for name, shape in expected.items():
            arr = getattr(self, name)
            if tuple(arr.shape) != shape:
                raise InputError(f"trace field {name} has shape {tuple(arr.shape)}, expected {shape}")
            want = np.bool_ if name == "mask" else np.float32
            if arr.dtype != want:
                raise InputError(f"trace field {name} has dtype {arr.dtype}, expected {np.dtype(want)}")
        if not 0 <= int(self.meta["focus_index"]) < T:
            raise InputError("trace focus_index is out of range")
        if not all(np.isfinite(getattr(self, n)).all() for n in ARRAY_FIELDS if n != "mask"):
            raise InputError("trace holds non-finite numbers")


# ---- the trace a plain `manim` render draws ------------------------------------------------
TRACE_ENV = "ATTENTION_EXPLAINER_TRACE"
DEFAULT_TRACE = Path(__file__).resolve().parent / "data" / "default-trace.npz"


def trace_from_environment() -> AttentionTrace:
    """The trace named by $ATTENTION_EXPLAINER_TRACE, else the shipped trace of the default
    sentence ("The cat ate the fish"). Runs no model: a beat rendered by plain ``manim``
    draws a saved trace."""
    import os

    return AttentionTrace.load(os.environ.get(TRACE_ENV) or DEFAULT_TRACE)
