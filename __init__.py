"""attention-explainer: a real transformer's attention on your sentence, as a
3Blue1Brown-style video.

- ``attention_core``: numbers only (sentence -> AttentionTrace), never imports manim
- ``scenes``: drawing only (AttentionTrace -> beats -> MP4), never runs a model
- ``cli``: the command line; ``outputs``: the user's files; ``testing``: a pytest helper
  for lecture repos (``from attention_explainer.testing import assert_frame_matches``)
"""
from .attention_core import __version__

__all__ = ["__version__"]
