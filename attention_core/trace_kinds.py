"""The words a trace's meta uses for how its numbers were made: how the focus word's
update joins its stream (``meta["update"]``) and what tells the model where each word
stands (``meta["positions"]``). Kept in :mod:`.trace`'s name as well."""
from __future__ import annotations

__all__ = ["POSITIONS_LEARNED", "POSITIONS_NONE", "POSITIONS_RELATIVE", "POSITIONS_ROTARY", "POSITIONS_SINUSOIDAL",
           "UPDATES_TO_STREAM", "UPDATE_NORMED", "UPDATE_PLAIN", "UPDATE_PRENORM",
           "UPDATE_SANDWICH"]

# How a trace's ``updated`` was made (``meta["update"]``): BERT norms the residual after
# its attention; the seed's module is attention alone, the block's residual added to it
UPDATE_NORMED = "layernorm(E + dE)"
UPDATE_PLAIN = "E + dE"
# a pre-norm model (GPT-2, Llama): attention reads E, the layer norm of the residual stream
# x, and its update is added to x itself (``residual``), not normed until the next part
UPDATE_PRENORM = "x + dE"
# ... and one that norms dE before adding it (Gemma 2 and 3, OLMo 2): x + norm(dE)
UPDATE_SANDWICH = "x + norm(dE)"
UPDATES_TO_STREAM = (UPDATE_PRENORM, UPDATE_SANDWICH)   # a trace of these holds ``residual``
# The position vectors a trace keeps (``meta["positions"]``): a table the model learned
# (BERT), or the sines and cosines of Vaswani et al. 2017 (the scratch model's input)
POSITIONS_LEARNED = "learned"
POSITIONS_SINUSOIDAL = "sinusoidal"
# no vectors added: the query and key are rotated by an angle per position (RoPE, Su et al.
# 2021) inside attention, and the trace holds them rotated
POSITIONS_ROTARY = "rotary"
# ... or none at all in this layer (SmolLM3's NoPE layers): order reaches it only through
# the causal mask and what earlier layers made
POSITIONS_NONE = "none"
# no vectors added: positions enter each score as terms of their own (DeBERTa-v3's
# content-to-position and position-to-content terms, ``score_terms``)
POSITIONS_RELATIVE = "relative"
