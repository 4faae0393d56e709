"""What one layer's attention call was given and gave back (:class:`LayerWatch`), as the
watches of :mod:`.hf_models` (transformers' attention interface) and :mod:`.term_watch`
(the families outside it) keep it."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LayerWatch"]


@dataclass
class LayerWatch:
    """What one layer's attention call was given and gave back, batch first."""
    module: object
    hidden: object          # B x T x D   what the attention module read (after a pre-norm)
    residual: object        # B x T x D   the layer's input (the residual stream)
    q: object               # B x H x T x d_k   as the model rotated it
    k: object               # B x KV x T x d_k
    v: object               # B x KV x T x d_k
    mask: object            # the additive mask the model built, or None
    scaling: float
    weights: object         # B x H x T x T   the model's own
    output: object = None   # B x T x D   W_O's output
    bias: object = None     # what the model adds to the scores besides the mask (T5's
    #                         relative position bias), or None
    terms: object = None    # S x B x H x T x T: the terms of a family that adds its own to
    #                         each score (Family.score_terms), or None
    term_names: tuple = ()  # ... each one's name, in that order
    softcap: float | None = None   # scores capped as cap·tanh(s/cap) (Gemma 2), or None
