"""What a cheaper attention keeps of a real head (:mod:`.variants`): the weight the real
and the variant's rows share, the output's error and cosine, and whether the focus word's
question gets the same answer; for the focus word and over the whole matrix."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .derived import answer_words
from .variants import parse_variant, real_weights, variant_weights
from .word_model import WordModel

__all__ = ["Kept", "keeps"]


@dataclass(frozen=True)
class Kept:
    """What a variant keeps of one head (``head``, its index in the model's layer):
    ``weight_kept`` is the weight the real and the variant's rows share (the sum of their
    smaller entries: for a mask, the real weight on the keys it leaves), ``error`` the
    output's relative error ‖o' − o‖ / ‖o‖ and ``cosine`` its cosine to the real output
    o = weights · values; each for the focus word's row and over every row (``all_``: the
    mean of the rows' shares, the errors and cosines of the whole T x d output). The
    ``answer`` is the word that gives the focus word's question its largest weight, real
    and under the variant (indices in the trace's word model; None: nothing answers)."""
    variant: str
    head: int
    weight_kept: float
    error: float
    cosine: float
    weight_kept_all: float
    error_all: float
    cosine_all: float
    answer: int | None
    answer_after: int | None

    @property
    def same_answer(self) -> bool:
        return self.answer == self.answer_after


def _error_and_cosine(real: np.ndarray, approx: np.ndarray) -> tuple[float, float]:
    a, b = real.ravel(), approx.ravel()
    norm = float(np.linalg.norm(a))
    error = float(np.linalg.norm(b - a)) / norm if norm else 0.0
    both = norm * float(np.linalg.norm(b))
    return error, (float(a @ b) / both if both else 1.0)


def keeps(trace, variant) -> list[Kept]:
    """What ``variant`` (a mask spec, an Approx, or their text) keeps of each shown head."""
    variant = parse_variant(variant)
    real, after = real_weights(trace), variant_weights(trace, variant)
    values = trace.v.astype(np.float64)
    f = trace.focus_index
    words, answers = WordModel.of_trace(trace), answer_words(trace)

    def answer(row):
        totals = [words.total(row, w) for w in answers]
        return answers[int(np.argmax(totals))] if answers else None

    kept = []
    for slot, head in enumerate(trace.heads):
        shared = np.minimum(real[slot], after[slot]).sum(axis=-1)
        out, out_after = real[slot] @ values[slot], after[slot] @ values[slot]
        error, cosine = _error_and_cosine(out[f], out_after[f])
        error_all, cosine_all = _error_and_cosine(out, out_after)
        kept.append(Kept(variant.name, int(head), float(shared[f]), error, cosine,
                         float(shared.mean()), error_all, cosine_all,
                         answer(real[slot, f]), answer(after[slot, f])))
    return kept
