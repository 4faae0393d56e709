"""`experiment heads`: the seeds' experiment, checked, run and written as one set of files
(results.csv, results.json, chart.png, chart.svg and, asked for, film.mp4): all of them, or
— interrupted, failed — none, with every earlier file kept."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..attention_core.errors import InputError
from .signals import interrupts_held

__all__ = ["HeadsRequest", "HeadsResult", "heads", "sweep"]


def sweep(**fields):
    """The sweep ``fields`` describe (a SweepSpec: head counts, d_model, layers, epochs,
    seed, repeats, balance, limit, device, dtype), checked whole (InputError)."""
    from ..attention_core.heads_experiment import SweepSpec

    return SweepSpec(**fields).check()


@dataclass(frozen=True)
class HeadsRequest:
    """What `experiment heads` is asked: the sweep (``spec``, a SweepSpec), the data
    (None: the shipped default), the model whose tokenizer reads it, where the set goes,
    whether a film is drawn (its size, rate and colours), and overwriting."""
    spec: object
    out: Path
    data: str | None = None
    model: str = "minilm"
    film: bool = False
    resolution: tuple[int, int, str] = (1280, 720, "720p")
    fps: int = 30
    theme: str = "3b1b"
    force: bool = False


@dataclass(frozen=True)
class HeadsResult:
    files: list[Path]
    results: dict


def _outputs(request: HeadsRequest):
    from ..files.outputs import OutputSet

    out = Path(request.out)
    files = {"csv": out / "results.csv", "json": out / "results.json",
             "chart": out / "chart.png", "svg": out / "chart.svg"}
    if request.film:
        files["film"] = out / "film.mp4"
    elif (out / "film.mp4").exists() or (out / "film.mp4").is_symlink():
        # --force replaces a set: an earlier film beside new numbers would contradict them
        raise InputError(f"{out / 'film.mp4'} is the film of an earlier sweep; add --film to "
                         "draw this one's, or move it away.")
    return OutputSet(files, force=request.force, what="experiment's results",
                     hint="choose another --out").check()


def _command(request: HeadsRequest, spec, device) -> str:
    """The command line that reproduces the numbers (the film's options left out), with
    the device that was used (``auto`` would pick another on another machine)."""
    words = ["attention-explainer", "experiment", "heads", "--out", str(request.out),
             "--heads", ",".join(map(str, spec.heads)), "--d-model", str(spec.d_model),
             "--layers", str(spec.layers), "--epochs", str(spec.epochs), "--seed",
             str(spec.seed), "--repeats", str(spec.repeats), "--device", device.type,
             "--dtype", spec.dtype]
    if spec.balance:
        words.append("--balance")
    if spec.limit is not None:
        words += ["--limit", str(spec.limit)]
    if request.data:
        words += ["--data", request.data]
    if request.model != "minilm":
        words += ["--model", request.model]
    return shlex.join(words)


def _data(request: HeadsRequest):
    from ..attention_core import labelled_text

    data = (labelled_text.read_user_set(request.data) if request.data
            else labelled_text.default_set())
    return data, labelled_text.split(data, limit=request.spec.limit)


def heads(request: HeadsRequest, *, progress=None, report=None) -> HeadsResult:
    """Check everything (options, data, tokenizer, the outputs' place, the film's fonts),
    train the sweep, then write the set."""
    from ..attention_core.model_kinds import model_files

    spec = request.spec.check()
    outputs = _outputs(request)
    data, split = _data(request)
    files = model_files(request.model)
    tokenizer = files.tokenizer
    if request.film:
        from .work import use_theme

        use_theme(request.theme)          # manim and the fonts are there, before training
    with interrupts_held():               # the first import of torch
        from ..attention_core import heads_experiment as hx
        from ..attention_core.device import resolve_device
        from ..attention_core.heads_results import csv_text, summarise

        device = resolve_device(spec.device)
    runs, memory = hx.sweep(spec, split, tokenizer, device, progress)
    results = summarise(runs, spec=spec, data_source=data.source, split=split,
                        machine=hx.machine(device), labels=data.label_names,
                        memory_by_tokens=memory, tokenizer=files.what,
                        command=_command(request, spec, device))
    with interrupts_held():
        from ..scenes.heads_chart import write_chart
    with outputs.opened(report=report):
        outputs.path("csv").write_text(csv_text(results), encoding="utf-8")
        outputs.path("json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        write_chart(results, outputs.path("chart"), outputs.path("svg"))
        if request.film:
            from ..scenes.heads_film import write_film

            width, height, _ = request.resolution
            write_film(results, outputs.path("film"), width=width, height=height,
                       fps=request.fps, scratch=outputs.scratch)
        outputs.commit()
    return HeadsResult([Path(p) for p in outputs.files.values()], results)
