"""A course's entries of the films beyond the explainer (``film = "translation"`` or
``"writing"``: the translate and generate commands' films on the same tasks): the keys
each takes, checked before the cluster starts, the beats it is parsed against, and the
model's view a worker makes for it."""
from __future__ import annotations

from ..attention_core.errors import InputError
from ..facts import TRACE_DECIDES, TRACE_DEFAULTS, TRANSLATION_DEFAULTS, WRITING_DEFAULTS

__all__ = ["FILMS", "TRACE_KEYS", "Storyboard", "view_of", "view_options"]

# the keys of an explainer that decide its trace, as settings name them ("num-heads")
TRACE_KEYS = tuple(k.replace("_", "-") for k in TRACE_DECIDES if k != "sentence")
# an entry's film (``film = "translation"``: the translate command's, on the same pipeline)
# and the keys that decide its model's view, as the command line names its options
FILMS = {"translation": ("model", "target", "focus", "layer", "heads", "max-new-tokens",
                         "seed", "d-model", "num-heads", "device", "dtype"),
         "writing": ("model", "tokens", "layer", "heads", "device", "dtype")}


def view_options(film: str, merged: dict, value) -> dict:
    """The options of a translation's or a writing's view (``FILMS``) in an entry's keys
    (``merged``), each checked by the command line's parser (``value(key)``); a key of
    another film refused."""
    if film not in FILMS:
        raise InputError(f"film = {film!r}: use explainer, {' or '.join(FILMS)}")
    others = {k for k in ("target", "max-new-tokens", "tokens", "mask", *TRACE_KEYS)
              if k in merged} - set(FILMS[film])
    if others:
        raise InputError(f"{', '.join(sorted(others))}: not an option of a {film} film")
    options = {"film": film}
    for key in FILMS[film]:
        if key == "target":
            target = merged.get("target")
            if target is not None and (not isinstance(target, str) or not target.strip()):
                raise InputError(f"target = {target!r}: give the translation as text")
            options["target"] = target
        elif key == "model" and film == "writing":
            model = merged.get("model")
            if not isinstance(model, str) or not model.strip():
                raise InputError("model: a writing film needs a decoder folder")
            options["model"] = model
        elif key == "model":
            options["model"] = str(merged.get("model",
                                                   TRANSLATION_DEFAULTS["model"]))
        elif key in merged or key in ("layer", "heads"):
            options[key.replace("-", "_")] = value(key)
    if options.get("focus") == "":
        options["focus"] = None
    return options


class Storyboard:
    """What the beats of an entry's film are parsed against before its model runs (a
    writing's steps: the tokens it is asked to write)."""

    def __init__(self, film: str, merged: dict):
        self.storyboard = film
        if film == "writing":
            self.steps = int(merged.get("tokens", WRITING_DEFAULTS["tokens"]))


def view_of(sentence: str, options: dict):
    """The model's view an entry's film draws, made as `translate` or `generate` makes it."""
    from dataclasses import replace

    from ..attention_core.device import resolve_device, resolve_dtype

    film = options.pop("film")
    device = resolve_device(options.pop("device", TRACE_DEFAULTS["device"]))
    dtype = resolve_dtype(options.pop("dtype", TRACE_DEFAULTS["dtype"]))
    if film == "translation":
        from ..attention_core.translation import cross_view

        view = cross_view(options.pop("model"), sentence, device=device, dtype=dtype,
                          **options)
    else:
        from ..attention_core.api import TraceRequest
        from ..attention_core.generation import generate

        tokens = options.pop("tokens", WRITING_DEFAULTS["tokens"])
        view = generate(TraceRequest(sentence=sentence, device=str(device), **options), tokens)
    return replace(view, sentence=sentence)
