"""A pytest helper for lecture repos: assert that a beat still matches a golden PNG.

    from attention_explainer.testing import assert_frame_matches

    def test_pull_beat_is_unchanged():
        assert_frame_matches("golden/pull-key.png", beat="pull", at="key",
                             sentence="The cat ate the fish")

The still is rendered at the golden PNG's own size from the renderer's raw frames. On a
change the fresh frame and a diff image are written beside the golden one
(``NAME.fresh.png``, ``NAME.diff.png``) and the assertion says how much changed.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["assert_frame_matches", "render_still", "trace_for_drawing"]


def trace_for_drawing(*, sentence: str | None = None, trace=None, **trace_options):
    """The trace a still is drawn from: ``trace`` (an AttentionTrace or a saved .npz), or
    the model's trace of ``sentence`` (default: the README's sentence)."""
    from .attention_core import DEFAULT_SENTENCE
    from .attention_core.api import compute_trace
    from .attention_core.trace import AttentionTrace

    if trace is None:
        return compute_trace(sentence or DEFAULT_SENTENCE, **trace_options)
    if isinstance(trace, (str, Path)):
        return AttentionTrace.load(trace)
    return trace


def render_still(*, beat: str, at="key", sentence: str | None = None, trace=None,
                 width: int = 320, height: int = 180, fps: int = 30, **trace_options):
    """One still (a PIL image) of ``beat`` at ``at`` (seconds, "key" or "end")."""
    from .scenes.pipeline.render import render_stills, still_label

    drawn = trace_for_drawing(sentence=sentence, trace=trace, **trace_options)
    stills = render_stills(drawn, beat=beat, times=[at], width=width, height=height, fps=fps)
    return stills[still_label(at)]


def assert_frame_matches(golden_png, *, beat: str, at="key", tolerance: int | None = None,
                         max_share: float | None = None, **kwargs) -> None:
    """Fail (AssertionError) when the fresh still differs from ``golden_png``: by default
    past the tolerance a new machine needs (``scenes.pipeline.regression.DEFAULT_TOLERANCE``);
    ``tolerance=0`` compares exactly."""
    from PIL import Image

    from .scenes.pipeline.regression import (DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE, compare,
                                             diff_image)

    tolerance = DEFAULT_TOLERANCE if tolerance is None else tolerance
    max_share = DEFAULT_MAX_SHARE if max_share is None else max_share

    golden_png = Path(golden_png)
    if not golden_png.is_file():
        raise AssertionError(f"no golden frame at {golden_png}; write one with "
                             "`attention-explainer frames --out DIR`")
    with Image.open(golden_png) as golden:
        golden = golden.convert("RGB")
    fresh = render_still(beat=beat, at=at, width=golden.width, height=golden.height, **kwargs)
    result = compare(golden_png.name, fresh, golden, tolerance=tolerance, max_share=max_share)
    if not result.passed:
        fresh.save(golden_png.with_suffix(".fresh.png"))
        if not result.reason:
            diff_image(fresh, golden).save(golden_png.with_suffix(".diff.png"))
        raise AssertionError(result.line())
