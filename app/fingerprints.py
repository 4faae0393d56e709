"""What each output of a course was made from: its explainer's effective options (the
sentence, the model and its weights' sha256, layer, heads, focus, mask, beats, size, fps,
theme, quality, pack, length, the film's settings (pace, ...), a pack's pauses) and the package's version, with the
beats it holds (fewer where it was fitted to a length), kept as a small JSON file in the output
set itself. A rerun of the course compares it with what the manifest asks now: an output
whose options changed is rendered again (and replaced whole), one that matches is up to
date, and the dry run says which is which and what changed.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..facts import TRACE_DEFAULTS
from ..scenes.film.settings import setting_specs

__all__ = ["KIND", "SCHEMA", "changes", "file_for", "made_from", "read", "write"]

KIND = "fingerprint"            # its kind in the output set
SCHEMA = 1


def file_for(name: str, label: str, pack: bool, out_dir: Path) -> Path:
    """Where an output's fingerprint lives: beside the video, or inside the pack."""
    if pack:
        return out_dir / f"{name}-{label}" / "course.json"
    return out_dir / f"{name}-{label}.course.json"


def made_from(plan) -> dict:
    """The effective options an output plan renders with (defaults filled in)."""
    from ..attention_core import __version__
    from ..attention_core.api import model_files

    options = {k: plan.trace_options.get(k, v) for k, v in TRACE_DEFAULTS.items()}
    model = options["model"]
    if model == "scratch":
        weights = f"seed {options['seed']}"
    elif getattr(plan, "film", "explainer") != "explainer":     # a translation's, a writing's
        from ..attention_core.bert import sha256_of
        from ..attention_core.model_checks import weight_files

        weights = ",".join(sha256_of(p) for p in weight_files(Path(model), model))
        options = {**options, **{k: v for k, v in plan.trace_options.items() if k != "focus"}}
    else:
        weights = model_files(model).sha256
    return {"schema": SCHEMA, "sentence": plan.sentence,
            "focus": plan.trace_options.get("focus") or "", **options,
            "weights_sha256": weights, "beats": list(plan.beats), "size": plan.label,
            "fps": plan.fps, "theme": plan.theme, "quality": plan.quality, "pack": plan.pack,
            "length": plan.length,
            **{spec.option: getattr(plan.settings, spec.name) for spec in setting_specs()},
            **({"pauses": plan.pauses} if plan.pack else {}), "version": __version__}


def read(path: Path) -> dict | None:
    """The fingerprint kept at ``path``, or None (missing, unreadable, not ours)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == SCHEMA else None


def changes(kept: dict | None, wanted: dict) -> list[str]:
    """What differs between the fingerprint kept and the one wanted, by option name."""
    if kept is None:
        return ["made before fingerprints were kept"]
    return [key for key in wanted if kept.get(key) != wanted[key] and key != "schema"]


def write(path: Path, made: dict) -> None:
    Path(path).write_text(json.dumps(made, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                          encoding="utf-8")
