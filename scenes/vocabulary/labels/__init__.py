"""Labels that never overlap: words at arrow tips, weights on a chain, shared labels for
coincident tips, leader lines when a word had to move far.

- ``placement``: :func:`place_labels` (greedy, deterministic) and :func:`place_arrow_labels`
- ``costs``: the named weights of what a spot costs (:class:`LabelCosts`)
- ``candidates``: the spots around an anchor; ``clustering``: which labels share one
- ``shapes``: how a shared label is written ("cat, fish" or a stacked list)
- ``geometry``: box and segment arithmetic
"""
from .costs import LabelCosts
from .placement import LabelLayout, place_arrow_labels, place_labels
from .shapes import baseline_drop

__all__ = ["LabelCosts", "LabelLayout", "baseline_drop", "place_arrow_labels", "place_labels"]
