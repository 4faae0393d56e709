"""Choosing where and in which precision the model runs."""
from __future__ import annotations

from .errors import InputError

DTYPES = ("float32", "float16", "bfloat16")


def resolve_device(name: str = "auto"):
    """'auto' picks CUDA when torch sees one, else the CPU; 'cuda' without one is refused."""
    import torch

    name = (name or "auto").lower()
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


def resolve_dtype(name: str = "float32"):
    import torch

    name = (name or "float32").lower()
    if name not in DTYPES:
        raise InputError(f"--dtype {name!r} is unknown; use one of {', '.join(DTYPES)}.")
    return getattr(torch, name)
