"""The heads experiment's results as one document: a row per head count (accuracy over the
seeds, time, parameters, memory), what the data and the setup were, what would change the
numbers, and the seeds' expectations each checked against what was measured.

An accuracy difference counts only where the seeds' ranges are apart and the gap is more
than twice its sampling error on the validation set: with one seed there is no range, and
it is said that nothing can be told.
"""
from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import dataclass

__all__ = ["CSV_COLUMNS", "Expectation", "csv_text", "expectations", "summarise"]

CSV_COLUMNS = ("heads", "d_head", "accuracy_mean", "accuracy_std", "accuracy_min",
               "accuracy_max", "repeats", "epoch_seconds_mean", "parameters",
               "attention_parameters", "peak_bytes")
WOULD_CHANGE = ("another device, or a CPU of another SIMD level (float sums are ordered "
                "differently)", "another torch version", "another number of CPU threads",
                "another data file or tokenizer", "another --seed, --epochs or --limit")


@dataclass(frozen=True)
class Expectation:
    """A seed's expectation and what the measurement says of it: ``holds`` True, False
    (contradicted), or None (not shown: within the spread, or one seed only)."""
    source: str
    claim: str
    holds: bool | None
    measured: str

    @property
    def verdict(self) -> str:
        failed = "fails" if self.source == "this run" else "contradicted"
        return {True: "holds", False: failed, None: "not shown"}[self.holds]

    def as_dict(self) -> dict:
        return {"source": self.source, "claim": self.claim, "holds": self.holds,
                "verdict": self.verdict, "measured": self.measured}


def _row(runs) -> dict:
    accs = [r.accuracy for r in runs]
    first = runs[0]
    return {"heads": first.heads, "d_head": first.d_head, "width": first.heads * first.d_head,
            "accuracy_mean": statistics.fmean(accs),
            "accuracy_std": statistics.stdev(accs) if len(accs) > 1 else 0.0,
            "accuracy_min": min(accs), "accuracy_max": max(accs), "repeats": len(runs),
            "epoch_seconds_mean": statistics.fmean(s for r in runs for s in r.epoch_seconds),
            "epoch_seconds_min": min(s for r in runs for s in r.epoch_seconds),
            "epoch_seconds_max": max(s for r in runs for s in r.epoch_seconds),
            "parameters": first.parameters, "attention_parameters": first.attention_parameters,
            "peak_bytes": first.peak_bytes, "runs": [r.as_dict() for r in runs]}


def _heads(row: dict) -> str:
    return f"{row['heads']} head{'s' * (row['heads'] != 1)}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _gap(worse: dict, better: dict, examples: int) -> tuple[bool, str]:
    """Whether ``better`` beats ``worse`` by a gap the measurement can tell: the seeds'
    ranges apart, and the gap of the means more than twice the sampling error of that
    gap on ``examples`` validation examples (each accuracy binomial, taken as
    independent). Returns (counts, what was measured, in words)."""
    p, q = worse["accuracy_mean"], better["accuracy_mean"]
    floor = 2 * math.sqrt((p * (1 - p) + q * (1 - q)) / examples)
    apart = worse["accuracy_max"] < better["accuracy_min"]
    counts = apart and q - p > floor
    said = (f"{_heads(worse)} {_pct(p)}, {_heads(better)} {_pct(q)}: a gap of "
            f"{100 * (q - p):.1f} points, "
            + ("more than" if q - p > floor else "within")
            + f" the {100 * floor:.1f} that {examples:,} validation examples can tell"
            + ("" if apart or q - p <= floor else ", but the seeds' ranges overlap"))
    return counts, said


def _worse_than_the_best(rows, which: dict, examples: int, source: str,
                         claim: str) -> Expectation:
    """``which`` (the fewest or the most heads) does worse than the best count."""
    if which["repeats"] < 2:
        return Expectation(source, claim, None, f"{_heads(which)}: "
                           f"{_pct(which['accuracy_mean'])}; one seed: the spread between "
                           "seeds is not measured (use --repeats 3)")
    others = [r for r in rows if r is not which]
    best_other = max(others, key=lambda r: r["accuracy_mean"])
    if which["accuracy_mean"] >= best_other["accuracy_mean"]:     # it is the best itself
        beaten = [_gap(r, which, examples) for r in others]
        place = "is the best" if which["accuracy_mean"] > best_other["accuracy_mean"] else \
            "ties the best"
        return Expectation(source, claim, False if all(c for c, _ in beaten) else None,
                           f"{_heads(which)} {place}; {_gap(best_other, which, examples)[1]}")
    counts, said = _gap(which, best_other, examples)
    return Expectation(source, claim, True if counts else None, said)


def _more_heads_better(rows, examples: int) -> Expectation:
    fewest, most = rows[0], rows[-1]
    source, claim = "seed article 001 §7.2", "more heads of a smaller d_head do better"
    if most["repeats"] < 2:
        return Expectation(source, claim, None, "one seed: the spread between seeds is not "
                                                "measured (use --repeats 3)")
    if most["accuracy_mean"] >= fewest["accuracy_mean"]:
        counts, said = _gap(fewest, most, examples)
        return Expectation(source, claim, True if counts else None, said)
    counts, said = _gap(most, fewest, examples)
    return Expectation(source, claim, False if counts else None, said)


def _learned(rows, baseline: float) -> Expectation:
    """Whether the run says anything: every count above the majority class."""
    claim = "every head count learned more than always answering the majority class"
    lowest = min(rows, key=lambda r: r["accuracy_min"])
    holds = True if lowest["accuracy_min"] > baseline else (
        False if max(r["accuracy_mean"] for r in rows) <= baseline else None)
    return Expectation("this run", claim, holds,
                       f"the lowest, {_heads(lowest)}: {_pct(lowest['accuracy_min'])}; the "
                       f"majority class: {_pct(baseline)}"
                       + ("" if holds else "; more data or epochs before reading the rest"))


def _memory(rows) -> Expectation:
    peaks = [r["peak_bytes"] for r in rows]
    grows = all(a < b for a, b in zip(peaks, peaks[1:]))
    said = ", ".join(f"{r['heads']}: {r['peak_bytes'] / 2 ** 20:.0f} MiB" for r in rows)
    short = min(rows[0].get("peak_bytes_by_tokens", {}) or {"0": 0}, key=int)
    if short != "0" and len(rows) > 1:
        first, last = (r["peak_bytes_by_tokens"][short] / 2 ** 20 for r in (rows[0], rows[-1]))
        said += (f" (a full batch; at {short} tokens {_heads(rows[0])} {first:.0f} MiB, "
                 f"{_heads(rows[-1])} {last:.0f} MiB)")
    return Expectation("seed article 000", "memory grows with the number of heads (each head "
                       "keeps its T × T scores and weights)", grows if len(rows) > 1 else None,
                       said)


def expectations(rows: list[dict], *, balance: bool, examples: int,
                 baseline: float) -> list[Expectation]:
    """Whether the run learned at all; seed article 000's two expectations (the fewest and
    the most heads do worse than the best count) and its memory; with ``balance``, seed
    article 001's (more, smaller heads: better, slower). ``rows`` in order of heads;
    ``examples``: the validation set's size."""
    said = [_learned(rows, baseline)]
    if balance and len(rows) > 1:
        fewest, most = rows[0], rows[-1]
        slower = most["epoch_seconds_min"] > fewest["epoch_seconds_max"]
        said += [_more_heads_better(rows, examples), Expectation(
            "seed article 001 §7.2", "more heads of a smaller d_head train slower",
            True if slower else None,
            f"an epoch: {fewest['epoch_seconds_mean']:.1f} s with {_heads(fewest)}, "
            f"{most['epoch_seconds_mean']:.1f} s with {_heads(most)}"
            + ("" if slower else " (the epochs' times overlap)"))]
    elif len(rows) > 1:
        said += [_worse_than_the_best(rows, rows[0], examples, "seed article 000",
                                      "the fewest heads do worse than the best count (too "
                                      "few heads miss patterns)"),
                 _worse_than_the_best(rows, rows[-1], examples, "seed article 000",
                                      "the most heads do worse than the best count (each "
                                      "head's d_k is then too small)")]
    return said + [_memory(rows)]


def summarise(runs, *, spec, data_source: dict, split, machine: dict, labels,
              memory_by_tokens: dict, tokenizer: str, command: str) -> dict:
    """The results document (results.json)."""
    by_heads: dict[int, list] = {}
    for run in runs:
        by_heads.setdefault(run.heads, []).append(run)
    rows = [_row(by_heads[h]) for h in spec.heads if h in by_heads]
    for row in rows:
        row["peak_bytes_by_tokens"] = {str(t): b for t, b in memory_by_tokens[row["heads"]].items()}
    return {
        "experiment": "heads",
        "data": {**data_source, "training": len(split.train.texts),
                 "validation": len(split.validation.texts), "labels": list(labels),
                 "majority_share": split.validation.majority_share},
        "setup": {"d_model": spec.d_model, "layers": spec.layers, "epochs": spec.epochs,
                  "batch_size": spec.batch_size, "max_tokens": spec.max_tokens,
                  "learning_rate": spec.learning_rate, "dropout": spec.dropout,
                  "optimiser": "AdamW", "balance": spec.balance, "dtype": spec.dtype,
                  "seeds": [spec.seed + n for n in range(spec.repeats)], "limit": spec.limit,
                  "split": "stratified 80/20, drawn with seed 0 whatever --seed",
                  "tokenizer": tokenizer,
                  "memory": "the peak of a training step's forward and backward pass "
                            "(batch_size x max_tokens) above the model's weights and "
                            "gradients"},
        "machine": machine,
        "rows": rows,
        "majority_baseline": split.validation.majority_share,
        "expectations": [e.as_dict() for e in expectations(
            rows, balance=spec.balance, examples=len(split.validation.texts),
            baseline=split.validation.majority_share)],
        "command": command,
        "would_change_the_numbers": list(WOULD_CHANGE),
    }


def csv_text(results: dict) -> str:
    """results.csv: a row per head count."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in results["rows"]:
        writer.writerow([f"{row[c]:.6g}" if isinstance(row[c], float) else row[c]
                         for c in CSV_COLUMNS])
    return out.getvalue()
