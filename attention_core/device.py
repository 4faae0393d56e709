"""Choosing where and in which precision the model runs."""
from __future__ import annotations

from ..facts import DTYPES, TRACE_DEFAULTS
from .errors import InputError

__all__ = ["resolve_device", "resolve_dtype"]


def resolve_device(name: str = TRACE_DEFAULTS["device"]):
    """'auto' picks CUDA when torch sees one, else the CPU; 'cuda' without one is refused."""
    import torch

    name = (name or TRACE_DEFAULTS["device"]).lower()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise InputError("--device cuda was asked for but this machine has no CUDA GPU "
                             "that torch can use; use --device cpu or --device auto.")
        return torch.device(name)
    raise InputError(f"--device {name!r} is unknown; use auto, cpu or cuda.")


def resolve_dtype(name: str = TRACE_DEFAULTS["dtype"]):
    """The torch dtype named (one of facts.DTYPES); empty means the default."""
    import torch

    name = (name or TRACE_DEFAULTS["dtype"]).lower()
    if name not in DTYPES:
        raise InputError(f"--dtype {name!r} is unknown; use one of {', '.join(DTYPES)}.")
    return getattr(torch, name)
