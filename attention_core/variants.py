"""The seeds' cheaper attentions on a real head: a mask asked for at the traced layer
(sliding window, global + window, top-k), the scores' best low-rank approximation, and
what each keeps of the head's real weights and output.

Everything here is derived from a trace's own scores and values and the model's own mask:
the real weights are the softmax of the scores under the model's own mask (none for an
encoder such as MiniLM, a decoder's causal one), a variant's are the softmax under the
variant. None of these models was trained with a variant: each is an illustration, and
every measure says how far it is from what the model does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .attention import build_mask, masked_softmax, parse_mask, topk_blocked
from .errors import InputError

__all__ = ["APPROX_HELP", "Approx", "asked_blocked", "blocked_for_all", "head_blocked",
           "kept_shares", "lowrank_scores", "mask_meta", "model_own_mask", "parse_approx", "parse_variant",
           "real_weights", "variant_weights", "weights_under"]

APPROX_HELP = "use lowrank:R (R a positive rank, less than the sentence's tokens)"
_OWN_WINDOW = re.compile(r"causal, a window of (\d+)")


@dataclass(frozen=True)
class Approx:
    """``lowrank:R``: each head's scores replaced by their best rank-R approximation (the
    truncated SVD of the T x T scores, in the least-squares sense) before the softmax.
    Linformer learns a projection of the keys and values to R rows instead; the best
    rank-R scores bound from above what any rank-R scores keep."""
    rank: int

    @property
    def name(self) -> str:
        return f"lowrank:{self.rank}"


def parse_approx(spec: str | Approx | None) -> Approx | None:
    """'none' (or None) or 'lowrank:R' (R >= 1)."""
    if spec is None or isinstance(spec, Approx):
        return spec
    text = str(spec).strip().lower()
    if text in ("", "none"):
        return None
    match = re.fullmatch(r"lowrank:(\d+)", text)
    if match and int(match.group(1)) > 0:
        return Approx(int(match.group(1)))
    raise InputError(f"--approx {spec!r} is not an approximation; {APPROX_HELP}.")


def parse_variant(spec):
    """A mask spec's or an approximation's text (or either, parsed) as one of them."""
    if isinstance(spec, str):
        lowrank = spec.strip().lower().startswith("lowrank")
        return parse_approx(spec) if lowrank else parse_mask(spec)
    return spec


# ---- the mask of a rerun, and what a trace records of it ------------------------------------
def asked_blocked(spec, static_mask: np.ndarray, cap):
    """The mask a rerun of ``cap``'s layer runs under: the model's own and the one asked
    for; a top-k mask is each head's own (B x H x T x T), from that head's scores."""
    import torch

    blocked = cap.blocked | torch.as_tensor(static_mask, device=cap.blocked.device)[None]
    if not spec.depends_on_scores:
        return blocked
    scores = cap.scores.float().detach().cpu().numpy()
    per_head = topk_blocked(scores, blocked.cpu().numpy()[:, None], spec.top)
    return torch.as_tensor(per_head, device=blocked.device)


def blocked_for_all(blocked: np.ndarray) -> np.ndarray:
    """The T x T mask a trace keeps: ``blocked`` itself, or where each head has its own
    (H x T x T, top-k), the keys blocked for every head (a head's own mask is re-derived
    from its scores: :func:`head_blocked`)."""
    blocked = np.asarray(blocked, dtype=bool)
    return blocked.all(axis=0) if blocked.ndim == 3 else blocked


def mask_meta(spec, own: np.ndarray, causal: bool) -> dict:
    """What the trace's mask is: the model's own (a decoder's causal mask, read from the
    mask the model built: ``own``), one asked for to teach with, or none."""
    T = own.shape[0]
    if not causal:
        # a mask on a bidirectional model is drawn for teaching, not what it does
        return {"mask": spec.name, "bidirectional": True, "mask_is_illustration":
                spec.kind != "none", "mask_is_model_own": False}
    name = "causal"
    if not np.array_equal(own, build_mask("causal", T)):
        reach = int((~own).sum(axis=1).max())           # a sliding window's width
        name = f"causal, a window of {reach}"
    asked = spec.kind not in ("none", "causal")
    return {"mask": spec.name if asked else name, "bidirectional": False,
            "mask_is_illustration": asked, "mask_is_model_own": not asked, "model_mask": name}


def model_own_mask(trace) -> np.ndarray:
    """The mask the model itself runs under on the trace's sentence (True = blocked): none
    for a model that reads both ways, a decoder's causal one (its own window too)."""
    T = trace.num_tokens
    meta = trace.meta
    if meta.get("model") == "minilm" or meta.get("bidirectional", False):
        return np.zeros((T, T), dtype=bool)
    own = meta.get("model_mask", meta.get("mask", "causal"))
    if not str(own).startswith("causal"):       # a trace from before model_mask was kept
        return np.zeros((T, T), dtype=bool) if own == "none" else np.asarray(trace.mask, bool)
    blocked = build_mask("causal", T)
    match = _OWN_WINDOW.fullmatch(str(own))
    if match:
        i, j = np.indices((T, T))
        blocked |= i - j >= int(match.group(1))
    return blocked


def head_blocked(trace, h: int) -> np.ndarray:
    """Head h's (on the head axis) own mask, T x T: the trace's, and for a top-k mask the
    keys its scores did not keep."""
    spec = parse_mask(trace.mask_kind) if str(trace.mask_kind).startswith("topk") else None
    if spec is None:
        return np.asarray(trace.mask, dtype=bool)
    return topk_blocked(trace.scores[h], model_own_mask(trace), spec.top) | trace.mask


# ---- a variant's weights, and what it keeps -----------------------------------------------
def real_weights(trace) -> np.ndarray:
    """The shown heads' weights as the model runs them (H x T x T, float64): the softmax
    of the scores under the model's own mask, whatever mask the trace was asked for."""
    return masked_softmax(trace.scores, model_own_mask(trace)[None])


def lowrank_scores(scores: np.ndarray, rank: int) -> np.ndarray:
    """Each head's scores (... x T x T) replaced by their best rank-``rank`` approximation."""
    u, s, vt = np.linalg.svd(np.asarray(scores, np.float64), full_matrices=False)
    r = min(rank, s.shape[-1])
    return (u[..., :, :r] * s[..., None, :r]) @ vt[..., :r, :]


def weights_under(scores: np.ndarray, own: np.ndarray, variant) -> np.ndarray:
    """Weights (float64, the shape of ``scores``: ... x T x T) under ``variant`` (a MaskSpec,
    an Approx or their text; global tokens resolved) and the model's own mask ``own``."""
    variant = parse_variant(variant)
    T = scores.shape[-1]
    if isinstance(variant, Approx):
        if variant.rank >= T:
            raise InputError(f"--approx {variant.name}: the rank must be less than the "
                             f"sentence's {T} tokens to leave anything out.")
        return masked_softmax(lowrank_scores(scores, variant.rank), own)
    if variant.depends_on_scores:
        return masked_softmax(scores, topk_blocked(scores, own, variant.top))
    return masked_softmax(scores, own | build_mask(variant, T))


def variant_weights(trace, variant) -> np.ndarray:
    """The shown heads' weights (H x T x T, float64) under ``variant``, re-derived from the
    trace's real scores and the model's own mask."""
    return weights_under(trace.scores, model_own_mask(trace)[None], variant)


def kept_shares(scores: np.ndarray, own: np.ndarray, variant) -> np.ndarray:
    """Each head's (H x T x T scores, ``own`` its model's mask, T x T) weight kept under
    ``variant``: the mean over its rows of the weight the real and the variant's rows share."""
    real = masked_softmax(scores, own[None])
    after = weights_under(scores, own[None], variant)
    return np.minimum(real, after).sum(axis=-1).mean(axis=-1)
