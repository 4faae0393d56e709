"""attention-explainer: a real transformer's attention on your sentence, as a
3Blue1Brown-style video.

The Python API (``explainer``): :func:`trace`, :func:`attentions` (every layer, with
TransformerLens's hook names), :func:`render`, :func:`frames`, :func:`pack` and
:func:`atlas`, :func:`translate` and :func:`generate`, which raise :class:`InputError` where the command line exits 2; the results
display inline in Jupyter.

- ``attention_core``: numbers only (sentence -> AttentionTrace), never imports manim
- ``scenes``: drawing only (AttentionTrace -> beats -> MP4), never runs a model
- ``app``: the application the faces call; ``files``: the user's files
- ``cli``: the command line; ``testing``: a pytest helper for lecture repos
  (``from attention_explainer.testing import assert_frame_matches``)
"""
from .attention_core import __version__

__all__ = ["AttentionTrace", "InputError", "__version__", "atlas", "attentions", "compare", "flow",
           "frames", "generate", "pack", "render", "trace", "translate", "view"]


def __dir__():
    # the API's names are loaded lazily: dir() (a notebook's completion) lists them anyway
    return sorted(set(globals()) | set(__all__))


def __getattr__(name):
    # Lazy, so `import attention_explainer` (and `--help`) does not pay for torch or manim.
    if name == "AttentionTrace":
        from .attention_core.trace import AttentionTrace
        return AttentionTrace
    if name in __all__:
        from . import explainer
        return getattr(explainer, name)
    raise AttributeError(name)
