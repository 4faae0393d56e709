"""Choosing where and in which precision the model runs."""
from __future__ import annotations

from ..facts import DTYPES, TRACE_DEFAULTS
from .errors import InputError

__all__ = ["check_device_name", "check_dtype_name", "resolve_device", "resolve_dtype"]

DEVICE_NAMES = ("auto", "cpu", "cuda")


def check_device_name(name: str | None) -> str:
    """The device's name, checked for form without torch (whether a CUDA GPU is there is
    known only where the model runs: :func:`resolve_device`)."""
    name = (name or TRACE_DEFAULTS["device"]).lower()
    if name in DEVICE_NAMES or (name.startswith("cuda:") and name[5:].isdigit()):
        return name
    raise InputError(f"--device {name!r} is unknown; use auto, cpu or cuda.")


def check_dtype_name(name: str | None) -> str:
    """The precision's name, one of facts.DTYPES, checked without torch."""
    name = (name or TRACE_DEFAULTS["dtype"]).lower()
    if name not in DTYPES:
        raise InputError(f"--dtype {name!r} is unknown; use one of {', '.join(DTYPES)}.")
    return name


def resolve_device(name: str = TRACE_DEFAULTS["device"]):
    """'auto' picks CUDA when torch sees one, else the CPU; 'cuda' without one is refused."""
    import torch

    name = check_device_name(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():          # cuda or cuda:N
        raise InputError("--device cuda was asked for but this machine has no CUDA GPU "
                         "that torch can use; use --device cpu or --device auto.")
    return torch.device(name)


def resolve_dtype(name: str = TRACE_DEFAULTS["dtype"]):
    """The torch dtype named (one of facts.DTYPES); empty means the default."""
    import torch

    return getattr(torch, check_dtype_name(name))
