"""Numbers only: sentence -> AttentionTrace. Never imports manim; imports torch lazily."""
__version__ = "0.2.0"
from ..facts import DEFAULT_SENTENCE

__all__ = ["AttentionTrace", "DEFAULT_SENTENCE", "InputError", "compute_trace", "__version__"]


def __getattr__(name):
    # Lazy, so `attention-explainer --help` does not pay for torch.
    if name == "compute_trace":
        from .api import compute_trace
        return compute_trace
    if name == "AttentionTrace":
        from .trace import AttentionTrace
        return AttentionTrace
    if name == "InputError":
        from .errors import InputError
        return InputError
    raise AttributeError(name)
