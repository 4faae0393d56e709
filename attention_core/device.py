"""Choosing where and in which precision the model runs, and on how many CPU threads."""
from __future__ import annotations

import contextlib
import threading

from ..facts import DTYPES, TRACE_DEFAULTS
from .errors import InputError

__all__ = ["check_device_name", "check_dtype_name", "one_cpu_thread", "resolve_device",
           "resolve_dtype"]

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


_threads = {"lock": threading.Lock(), "users": 0, "before": 0}


@contextlib.contextmanager
def one_cpu_thread():
    """Torch's CPU kernels on one thread while a model runs. A matrix product splits its
    sums over the threads it has, in an order that depends on their number: the last bits
    of a trace, and so its fingerprint (which names its films in the beat cache), would
    differ between a render using every core and a course's worker with one thread. The
    sentence is short: one thread costs little. Threads of one process that run models at
    once share the setting; the last to leave puts the count back."""
    import torch

    with _threads["lock"]:
        if _threads["users"] == 0:
            _threads["before"] = torch.get_num_threads()
            torch.set_num_threads(1)
        _threads["users"] += 1
    try:
        yield
    finally:
        with _threads["lock"]:
            _threads["users"] -= 1
            if _threads["users"] == 0:
                torch.set_num_threads(_threads["before"])
