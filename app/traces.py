"""The model's numbers as the faces ask for them: a sentence's trace, a minimal pair, the
flow across layers, every layer's attentions, and a trace saved before. Each takes the
sentence and its checked trace options (a dict of ``TraceRequest``'s fields)."""
from __future__ import annotations

from pathlib import Path

__all__ = ["attentions", "check_flow_method", "flow", "is_trace", "load_trace", "pair", "trace"]


def trace(sentence: str, options: dict):
    """The model's attention on ``sentence``: an AttentionTrace."""
    from ..attention_core.api import TraceRequest, trace_for

    return trace_for(TraceRequest(sentence=sentence, **options))


def pair(sentence_a: str, sentence_b: str, options: dict):
    """The minimal pair (a Comparison): layer, heads and focus chosen on ``sentence_a``."""
    from ..attention_core.api import TraceRequest
    from ..attention_core.compare import compare_sentences

    return compare_sentences(TraceRequest(sentence=sentence_a, **options), sentence_b)


def check_flow_method(method: str | None) -> None:
    """Refuse an unknown flow method (InputError) before any model runs."""
    if method is not None:
        from ..attention_core.flow import check_method

        check_method(method)


def flow(sentence: str, method: str, options: dict):
    """Where each word's information comes from through every layer, by ``method``
    (refused first if it is not one)."""
    from ..attention_core.api import TraceRequest
    from ..attention_core.flow import flow_for

    check_flow_method(method)
    return flow_for(TraceRequest(sentence=sentence, **options), method)


def attentions(sentence: str, options: dict, *, as_torch: bool = False):
    """Every layer's attention on ``sentence`` from one run of the model."""
    from ..attention_core.api import TraceRequest
    from ..attention_core.layers import attentions_for

    return attentions_for(TraceRequest(sentence=sentence, **options), as_torch=as_torch)


def load_trace(path: str | Path):
    """A trace saved before (``inspect --npz``, ``ae.trace(...).save``), checked whole."""
    from ..attention_core.trace import AttentionTrace

    return AttentionTrace.load(path)


def is_trace(value) -> bool:
    """Whether ``value`` is an AttentionTrace."""
    from ..attention_core.trace import AttentionTrace

    return isinstance(value, AttentionTrace)
