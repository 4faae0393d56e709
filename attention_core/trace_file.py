"""Reading a trace file that may be hostile: the .npz is checked as a zip, from its declared
sizes and the .npy headers of its members, before a single array is read.

``np.load`` trusts the file it is given: a header may declare a 40 GB array, a member may
inflate to gigabytes, an object array needs pickle, and opening a FIFO blocks forever. Here
the path must be a regular file; every member must be a trace field; every header is parsed
from at most HEADER_LIMIT bytes; every shape must agree with the trace's own token count and
stay within LIMITS; and every member's declared size must be exactly header + payload. Only
then are the arrays read, so what is read is exactly as large as promised, and small.
"""
from __future__ import annotations

import io
import math
import os
import stat
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError, is_json_int, quoted_reason, short_repr

__all__ = ["ALL_SHAPES", "HEADER_LIMIT", "HINT", "LIMITS", "LIMITS_TEXT",
           "MAX_DIRECTORY_BYTES", "MAX_ENTRIES", "MAX_META_CHARS", "MAX_TOKEN_CHARS",
           "MAX_TOTAL_BYTES", "Member", "OPTIONAL_GROUPS", "OPTIONAL_SHAPES", "SHAPES",
           "arrays_from", "check_token_lists", "describe_shape",
           "open_regular", "read_trace_arrays"]

# The shape of each field, in symbols; the tokens fix T, embeddings D, q H and d_k.
SHAPES = {
    "tokens": ("T",), "embeddings": ("T", "D"), "q": ("H", "T", "d_k"), "k": ("H", "T", "d_k"),
    "v": ("H", "T", "d_k"), "scores": ("H", "T", "T"), "mask": ("T", "T"),
    "weights": ("H", "T", "T"), "context": ("H", "T", "d_k"), "output": ("T", "D"), "meta": (),
}
# Optional fields (older traces lack them), in groups saved whole or not at all: the rows
# of the primary head's W_Q, W_K and W_V (and biases) that the project beat writes out, for
# the components it shows; and the focus word's update: what each token adds to its
# attention output (over all heads, through W_O), W_O's bias, and the vector it becomes.
# The focus row of the weights of every head of the layer (the update sums over them all),
# and the position vectors the model adds to its first N tokens, are groups of one; so is
# the focus word's residual stream entering the layer, where a pre-norm model's attention
# reads its layer norm instead (the update is added to it); and the terms a model adds to
# each score of its own (MPNet's relative position bias), counted in the scores.
OPTIONAL_GROUPS = (("projection_rows", "projection_bias"),
                   ("contributions", "output_bias", "updated"),
                   ("focus_weights_all",), ("positions",), ("residual",), ("score_terms",))
OPTIONAL_SHAPES = {"projection_rows": ("P", "R", "D"), "projection_bias": ("P", "R"),
                   "contributions": ("T", "D"), "output_bias": ("D",), "updated": ("D",),
                   "focus_weights_all": ("A", "T"), "positions": ("N", "D"),
                   "residual": ("D",), "score_terms": ("S", "H", "T", "T")}
ALL_SHAPES = {**SHAPES, **OPTIONAL_SHAPES}
LIMITS = {"T": 512, "H": 64, "d_k": 1024, "D": 8192, "P": 3, "R": 64, "A": 64, "N": 512,
          "S": 4}
LIMITS_TEXT = "at most 512 tokens, 64 heads, d_k 1024 and d_model 8192"
MAX_TOKEN_CHARS = 1000               # one model token; real ones are a few characters
MAX_META_CHARS = 1_000_000           # the JSON metadata; a real one is a few thousand
MAX_TOTAL_BYTES = 256 << 20          # all arrays together; BERT-large on 512 tokens is ~45 MiB
HEADER_LIMIT = 16 << 10              # bytes read to parse one .npy header; real ones are 128
MAX_ENTRIES = 64                     # zip entries; a trace has 16
MAX_DIRECTORY_BYTES = 64 << 10       # the zip's central directory; a trace's is under 1 KiB
HINT = "write a fresh one with `attention-explainer inspect --npz FILE`."


@dataclass(frozen=True)
class Member:
    """One .npy member of the zip, as its header and the zip's directory declare it."""
    info: zipfile.ZipInfo
    shape: tuple[int, ...]
    dtype: np.dtype
    header_bytes: int

    @property
    def payload_bytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def read_trace_arrays(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of a trace file, keyed by field name, after every declared size is checked.

    Raises InputError naming the real cause; never unpickles, never reads more than the
    checked, declared sizes."""
    path = Path(path)
    with open_regular(path) as fh:
        return arrays_from(fh, path)


def arrays_from(fh, path: str | Path) -> dict[str, np.ndarray]:
    """:func:`read_trace_arrays` of an open binary file ``fh`` (``path`` names it in
    errors): the same checks, for a trace already read into memory."""
    path = Path(path)
    _check_entry_count(fh, path)
    try:
        with zipfile.ZipFile(fh) as zf:
            members = {key: _header(zf, info, path) for key, info in _entries(zf, path).items()}
            _check_members(members, path)
            return {key: _read(zf, m) for key, m in members.items()}
    except InputError:
        raise
    except Exception as exc:   # a damaged zip or stream, whatever its exact kind
        raise InputError(f"{path} is not a readable .npz trace ({type(exc).__name__}); "
                         f"{HINT}") from exc


def open_regular(path: Path):
    """Open ``path`` for reading only if it is a regular file.

    Checked before opening, because opening a FIFO blocks until a writer comes and a device
    such as /dev/zero never ends; checked again on the open descriptor (opened non-blocking)
    in case the path was swapped in between."""
    try:
        kind = _file_kind(os.stat(path).st_mode)
        if kind is None:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            kind = _file_kind(os.fstat(fd).st_mode)
            if kind is None:
                return os.fdopen(fd, "rb")
            os.close(fd)
    except FileNotFoundError:
        raise InputError(f"trace file {str(path)!r} does not exist; write one with "
                         "`attention-explainer inspect --npz FILE`.") from None
    except OSError as exc:
        raise InputError(f"trace file {str(path)!r} cannot be read ({exc.strerror}); "
                         "check its permissions.") from None
    raise InputError(f"trace file {str(path)!r} is {kind}, not a regular file; give the .npz "
                     "written by `attention-explainer inspect --npz FILE`.")


def _file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is, in words."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a file"


def _check_entry_count(fh, path: Path) -> None:
    """Refuse a zip with a large directory, from its end record alone: ZipFile reads the whole
    directory and builds an object for each entry (millions fit in a small file)."""
    size = fh.seek(0, os.SEEK_END)
    fh.seek(max(0, size - (1 << 16) - 22))
    tail = fh.read()
    fh.seek(0)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        return   # no end record: ZipFile says it is not a zip
    entries, directory_bytes = struct.unpack("<HI", tail[at + 10:at + 16])
    if entries > MAX_ENTRIES or directory_bytes > MAX_DIRECTORY_BYTES:
        raise InputError(f"{path} lists {entries} zip entries in a {directory_bytes}-byte "
                         f"directory; a trace has {len(SHAPES)}, so it is not an attention "
                         f"trace; {HINT}")


def _entries(zf: zipfile.ZipFile, path: Path) -> dict[str, zipfile.ZipInfo]:
    """The zip's entries by field name, tokens first: each exactly once, nothing else."""
    found: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        key = info.filename[:-len(".npy")] if info.filename.endswith(".npy") else None
        if key not in ALL_SHAPES:
            raise InputError(f"{path} is not an attention trace (it holds {info.filename!r}, "
                             f"which is not a trace field); {HINT}")
        if key in found:
            raise InputError(f"{path} holds {info.filename} twice, so it is not an attention "
                             f"trace; {HINT}")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise InputError(f"{path}: {info.filename} is compressed with zip method "
                             f"{info.compress_type}; traces are stored or deflated; {HINT}")
        found[key] = info
    missing = [k for k in SHAPES if k not in found]
    if missing:
        raise InputError(f"{path} is not an attention trace (missing {', '.join(missing)}); "
                         f"{HINT}")
    for group in OPTIONAL_GROUPS:
        held = [k for k in group if k in found]
        if held and len(held) < len(group):
            lacking = ", ".join(k for k in group if k not in found)
            raise InputError(f"{path} holds {held[0]} without {lacking}; {HINT}")
    return {k: found[k] for k in ALL_SHAPES if k in found}


def _header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> Member:
    """Parse one member's .npy header from at most HEADER_LIMIT inflated bytes."""
    with zf.open(info) as stream:
        head = stream.read(HEADER_LIMIT)
    buf = io.BytesIO(head)
    fmt = np.lib.format
    try:
        version = fmt.read_magic(buf)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f".npy version {version[0]}.{version[1]} is not one numpy writes "
                             "for plain arrays")
        length_format = "<H" if version == (1, 0) else "<I"
        declared = struct.unpack(length_format, head[8:8 + struct.calcsize(length_format)])[0]
        if declared > HEADER_LIMIT - 12:
            raise InputError(f"{path}: {info.filename} declares a {declared}-byte .npy header; a "
                             f"trace's headers are under {HEADER_LIMIT} bytes; {HINT}")
        read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, _, dtype = read(buf, max_header_size=HEADER_LIMIT)
    except InputError:
        raise                    # ours, whole: never cut down as numpy's reasons are
    except (ValueError, EOFError, struct.error) as exc:
        reason = quoted_reason(exc)
        raise InputError(f"{path}: {info.filename} is not a valid .npy array ({reason}); "
                         f"{HINT}") from None
    if dtype.hasobject:
        raise InputError(f"{path} holds pickled objects ({info.filename}), which are never "
                         f"loaded; {HINT}")
    return Member(info, tuple(shape), dtype, buf.tell())


def _check_members(members: dict[str, Member], path: Path) -> None:
    """Shapes within LIMITS and agreeing with each other, dtypes as saved, and each declared
    size exactly header + payload; all arrays together at most MAX_TOTAL_BYTES."""
    dims: dict[str, int] = {}
    for key, m in members.items():
        _check_shape(key, m, dims, path)
        _check_dtype(key, m, path)
        held = m.info.file_size - m.header_bytes
        if held != m.payload_bytes:
            raise InputError(f"{path}: {m.info.filename} declares shape {m.shape} "
                             f"({m.payload_bytes} bytes) but the zip says it holds {held}; "
                             f"the file is damaged or forged; {HINT}")
    total = sum(m.payload_bytes for m in members.values())
    if total > MAX_TOTAL_BYTES:
        raise InputError(f"{path} declares {total / 2**20:.0f} MiB of arrays, too large for "
                         f"a trace (at most {MAX_TOTAL_BYTES >> 20} MiB); {HINT}")


def describe_shape(key: str, dims: dict[str, int]) -> str:
    """The shape field ``key`` must have, in words: "(H=4, T=7, d_k)" while d_k is unknown."""
    parts = [f"{s}={dims[s]}" if s in dims else s for s in ALL_SHAPES[key]]
    return "(" + ", ".join(parts) + ")"


def _check_shape(key: str, m: Member, dims: dict[str, int], path: Path) -> None:
    """Within LIMITS first (so a huge declared array is called that), then consistent with
    the sizes fixed by the fields before it; records the sizes it fixes."""
    pattern = ALL_SHAPES[key]
    if len(m.shape) == len(pattern):
        if any(n > LIMITS[s] for s, n in zip(pattern, m.shape)):
            raise InputError(f"{path}: {m.info.filename} declares shape {m.shape}, too large "
                             f"for a trace ({LIMITS_TEXT}); {HINT}")
        if 0 in m.shape:
            raise InputError(f"{path}: {m.info.filename} has shape {m.shape}; a trace has at "
                             f"least one token, head and dimension; {HINT}")
    known = dict(dims)
    for symbol, n in zip(pattern, m.shape):
        known.setdefault(symbol, n)
    if len(m.shape) != len(pattern) or any(known[s] != n for s, n in zip(pattern, m.shape)):
        raise InputError(f"{path}: {m.info.filename} has shape {m.shape}, expected "
                         f"{describe_shape(key, dims)}; {HINT}")
    dims.update(known)


def _check_dtype(key: str, m: Member, path: Path) -> None:
    if key in ("tokens", "meta"):
        limit = MAX_TOKEN_CHARS if key == "tokens" else MAX_META_CHARS
        if m.dtype.kind != "U":
            raise InputError(f"{path}: {m.info.filename} has dtype {m.dtype}, expected text; "
                             f"{HINT}")
        if m.dtype.itemsize // 4 > limit:
            raise InputError(f"{path}: {m.info.filename} declares text of "
                             f"{m.dtype.itemsize // 4} characters, too large for a trace (at "
                             f"most {limit}); {HINT}")
        return
    want = np.dtype(bool) if key == "mask" else np.dtype(np.float32)
    if m.dtype != want:
        raise InputError(f"{path}: {m.info.filename} has dtype {m.dtype}, expected {want}; "
                         f"{HINT}")


def _read(zf: zipfile.ZipFile, m: Member) -> np.ndarray:
    """Read one member whose declared size was checked; the zip stream stops at that size."""
    with zf.open(m.info) as stream:
        return np.lib.format.read_array(stream, allow_pickle=False,
                                        max_header_size=HEADER_LIMIT)


def check_token_lists(meta: dict, T: int) -> None:
    """special, word_ids and display_tokens have one entry per token; words covers every
    word id."""
    kinds = {"special": (bool, "true/false"), "word_ids": (int, "integers"),
             "display_tokens": (str, "text")}
    for key, (kind, words) in kinds.items():
        if key not in meta:
            continue
        value = meta[key]
        if not isinstance(value, list) or len(value) != T:
            size = len(value) if isinstance(value, list) else "not a list"
            raise InputError(f"trace meta {key} has {size} entries; it needs one per token ({T})")
        if not all(isinstance(v, kind) and (kind is bool or not isinstance(v, bool))
                   for v in value):
            raise InputError(f"trace meta {key} must hold {words}, got {short_repr(value, 60)}")
    words = meta.get("words", [])
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise InputError(f"trace meta words {short_repr(words, 60)} is not a list of text")
    written = meta.get("written_words", [])
    if not isinstance(written, list) or not all(
            isinstance(w, list) and len(w) == 3 and is_json_int(w[0]) and is_json_int(w[1])
            and isinstance(w[2], str) and 0 <= w[0] < w[1] < T for w in written):
        raise InputError(f"trace meta written_words {short_repr(written, 60)} is not a list of "
                         f"[first, last, text] runs of the trace's {T} tokens")
    unknown = meta.get("unknown_tokens", [])
    if not isinstance(unknown, list) or not all(is_json_int(j) and 0 <= j < T for j in unknown):
        raise InputError(f"trace meta unknown_tokens {short_repr(unknown, 60)} is not a list of "
                         f"token positions (0 to {T - 1})")
    read_as = meta.get("read_as", {})
    if not isinstance(read_as, dict) or not all(
            isinstance(k, str) and k.isdigit() and int(k) < T and isinstance(v, str)
            for k, v in read_as.items()):
        raise InputError(f"trace meta read_as {short_repr(read_as, 60)} is not a map of token "
                         f"positions (0 to {T - 1}) to text")
    count = len(words) if "words" in meta else T      # words default to the tokens
    if any(not -1 <= i < count for i in meta.get("word_ids", [])):
        raise InputError(f"trace meta word_ids {short_repr(meta['word_ids'], 60)} refers to words "
                         f"that the trace's {count} words do not include")
