"""A decoder's folder loaded with its language-model head (for what it predicts: a head
silenced, a sentence continued), by the base model's rules: local safetensors, no remote
code, and a head the files lack refused rather than filled with random numbers."""
from __future__ import annotations

from .errors import InputError

__all__ = ["with_lm_head"]


def with_lm_head(files, device, dtype, *, needed_for: str, watched: bool = False):
    """The model on ``device`` in ``dtype``; ``watched``: its attention calls kept (the
    hf_models watch), else transformers' eager attention. ``needed_for`` names the option
    in the refusal of a folder saved without its head."""
    from transformers import AutoModelForCausalLM

    from .hf_models import CAPTURE_ATTENTION, _register_watch, from_folder

    if watched:
        files.check_memory(device, dtype)
        _register_watch()
    model, info = from_folder(AutoModelForCausalLM, files, dtype,
                              CAPTURE_ATTENTION if watched else "eager",
                              with_what=" with its language-model head")
    if info.get("missing_keys"):
        raise InputError(f"{files.what}: its files have no language-model head "
                         f"({sorted(info['missing_keys'])[0]}); {needed_for} needs a decoder "
                         "saved with its head.")
    return model.to(device).eval()
