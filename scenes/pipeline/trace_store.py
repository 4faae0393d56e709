"""Traces kept between processes, in the beat cache's ``traces/`` folder: a render, a still,
an inspect or a course worker that asks again for a trace this machine computed loads it
instead of importing torch and running the model (most of a cached render's time).

A trace is kept under ``attention_core.api.trace_key``: a hash of the request, the model's
files, the numbers code, the libraries' versions and the CPU, so a kept trace is the one
the model would compute now; where that key cannot be known before the model runs (a
folder transformers runs, a GPU) nothing is kept. A kept file is read like any trace file
that may be hostile (its sizes checked before reading, never unpickled, validated), and
only if it is ours, whole and unchanged (``cache_files.KeptFiles``); anything else is a
miss: the model runs. Manim-free and torch-free.
"""
from __future__ import annotations

from pathlib import Path

from ...attention_core.errors import InputError
from .cache_files import KeptFiles

__all__ = ["TRACE_HEADER", "TraceStore", "kept_or_computed"]

TRACE_HEADER = b"attention-explainer trace sha256="


class TraceStore(KeptFiles):
    """Traces kept under ``folder``, one .npz each (under a header of its sha256)."""

    header = TRACE_HEADER
    suffix = ".npz"

    def file(self, key: str) -> Path:
        return self.path_for(key)

    def load(self, key: str):
        """The trace kept for ``key``, or None."""
        from ...attention_core.trace import AttentionTrace

        payload = self.read(self.file(key))
        if payload is None:
            return None
        try:
            return AttentionTrace.from_bytes(payload, self.file(key))
        except InputError:
            return None

    def keep(self, key: str, trace) -> None:
        self.write(self.file(key), trace.to_bytes())


def kept_or_computed(key: str | None, folder: Path | None, compute):
    """The trace kept in ``folder`` under ``key`` (``attention_core.api.trace_key``; None,
    or no folder: nothing kept), else ``compute()``, then kept there."""
    store = TraceStore(folder) if key is not None and folder is not None else None
    trace = store.load(key) if store is not None else None
    if trace is None:
        trace = compute()
        if store is not None:
            store.keep(key, trace)
    return trace
