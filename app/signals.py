"""Signals held while native code runs: one rule for every face and the application."""
from __future__ import annotations

import contextlib

from ..files.outputs import sigterm_as_interrupt  # the faces' rule too, reached here

__all__ = ["interrupts_held", "sigterm_as_interrupt"]


@contextlib.contextmanager
def interrupts_held():
    """Hold Ctrl-C and SIGTERM while C++ code calls Python (importing torch or manim, the
    model's forward): a KeyboardInterrupt raised inside such a call crosses C++ code that
    cannot pass it on, and pybind11 then aborts the process ("terminate called …") instead
    of the clean exit 130. A signal that comes meanwhile is acted on when the block ends."""
    from ..files.outputs import signals_deferred

    with signals_deferred() as heard:
        yield
    if heard:
        raise KeyboardInterrupt

