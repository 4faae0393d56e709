"""The heads experiment's results as one document: a row per head count (accuracy over the
seeds, time, parameters, memory), what the data and the setup were, what would change the
numbers, and the seeds' expectations each checked against what was measured.

An expectation about accuracy holds only where the seeds' ranges do not overlap: with one
seed there is no range, and it is said that nothing can be told.
"""
from __future__ import annotations

import csv
import io
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
        return {True: "holds", False: "contradicted", None: "not shown"}[self.holds]

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


def _accuracy_claim(rows, which: dict, best: dict, source: str, claim: str) -> Expectation:
    """``which`` does worse than the best count: only if their seeds' ranges are apart."""
    said = (f"{_heads(which)}: {_pct(which['accuracy_mean'])}; the best, "
            f"{_heads(best)}: {_pct(best['accuracy_mean'])}")
    if which["repeats"] < 2:
        return Expectation(source, claim, None, f"{said} (one seed: the spread between seeds "
                                                "is not measured; use --repeats 3)")
    if which is best:
        others = [r for r in rows if r is not which]
        beaten = all(which["accuracy_min"] > r["accuracy_max"] for r in others)
        return Expectation(source, claim, False if beaten else None,
                           f"{_heads(which)}: {_pct(which['accuracy_mean'])}, the best"
                           f"{', beyond every spread' if beaten else ', within the spread'}")
    apart = which["accuracy_max"] < best["accuracy_min"]
    why = "the seeds' ranges are apart" if apart else "within the spread between seeds"
    return Expectation(source, claim, True if apart else None, f"{said} ({why})")


def expectations(rows: list[dict], balance: bool) -> list[Expectation]:
    """Seed 000's two expectations (too few heads, too many) and its memory figure; with
    ``balance``, seed 001's (more, smaller heads: better, slower)."""
    best = max(rows, key=lambda r: r["accuracy_mean"])
    fewest, most = rows[0], rows[-1]
    said: list[Expectation] = []
    if balance:
        said.append(_accuracy_claim(rows, fewest, best, "seed 001 §7.2",
                                    "more heads of a smaller d_head do better"))
        slower = most["epoch_seconds_min"] > fewest["epoch_seconds_max"]
        said.append(Expectation(
            "seed 001 §7.2", "more heads of a smaller d_head train slower",
            True if slower else None,
            f"an epoch: {fewest['epoch_seconds_mean']:.1f} s with {fewest['heads']} heads, "
            f"{most['epoch_seconds_mean']:.1f} s with {most['heads']}"))
    elif len(rows) > 1:
        said.append(_accuracy_claim(rows, fewest, best, "seed 000",
                                    "too few heads miss patterns"))
        said.append(_accuracy_claim(rows, most, best, "seed 000",
                                    "too many heads leave each head's d_k too small"))
    peaks = [r["peak_bytes"] for r in rows]
    grows = all(a < b for a, b in zip(peaks, peaks[1:]))
    said.append(Expectation(
        "seed 000", "memory grows with the number of heads (each head keeps its T × T scores and weights)",
        grows if len(rows) > 1 else None,
        ", ".join(f"{r['heads']}: {r['peak_bytes'] / 2 ** 20:.0f} MiB" for r in rows)))
    return said


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
        "expectations": [e.as_dict() for e in expectations(rows, spec.balance)],
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
