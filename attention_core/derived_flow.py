"""The flow beat's numbers, read from the trace's ``meta["flow"]`` (made by
:func:`.flow.with_flow` before the film: the drawing runs no model), checked."""
from __future__ import annotations

import math

__all__ = ["FLOW_DERIVED", "flow", "why"]


def flow(trace) -> dict:
    """The river of the focus word's sources (``meta["flow"]``), checked: its columns,
    the words' shares at each (each summing to 1), its streams, and the raw row."""
    from ..facts import beat_facts
    from .errors import InputError
    from .word_model import WordModel

    found = trace.meta.get("flow")
    words = len(WordModel.of_trace(trace).words)
    ok = isinstance(found, dict) and isinstance(found.get("columns"), list) and \
        isinstance(found.get("shares"), list) and isinstance(found.get("edges"), list) and \
        len(found["shares"]) == len(found["columns"]) >= 2 and \
        len(found["edges"]) == len(found["columns"]) - 1 and \
        all(isinstance(s, list) and len(s) == words and all(
            isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 for x in s) and
            abs(sum(s) - 1.0) < 1e-3 for s in [*found["shares"], found.get("raw")]) and \
        all(isinstance(e, list) and len(e) == 3 and 0 <= e[0] < words and 0 <= e[1] < words
            for column in found["edges"] for e in column)
    if not ok:
        raise InputError(f"the flow beat needs {beat_facts('flow').needs}; a trace saved "
                         "without them cannot draw it.")
    return found


FLOW_DERIVED = {
    # word w's share of the focus word's sources at drawn column k (0: the input)
    "flow_share": lambda trace, k, w: float(flow(trace)["shares"][int(k)][int(w)]),
    "flow_raw": lambda trace, w: float(flow(trace)["raw"][int(w)]),
    # the words not drawn at column k, as the drawn ones are written (2 decimals): the
    # written shares then make 1
    "flow_rest": lambda trace, k, *drawn: 1.0 - sum(
        round(float(flow(trace)["shares"][int(k)][int(w)]), 2) for w in drawn),
    "flow_tau": lambda trace: float(flow(trace)["tau"]),
    "flow_layers": lambda trace: int(flow(trace)["num_layers"]),
}


def why(trace) -> dict:
    """The why beat's numbers (``meta["why"]``, made by :func:`.why.with_why`), checked:
    its keys, the kinds of part and each key's parts adding up to its score."""
    from ..facts import beat_facts
    from .errors import InputError

    found = trace.meta.get("why")
    ok = isinstance(found, dict) and isinstance(found.get("keys"), list) and \
        isinstance(found.get("parts"), dict) and isinstance(found.get("scores"), list) and \
        len(found["scores"]) == len(found["keys"]) >= 1 and \
        all(isinstance(j, int) and 0 <= j < trace.num_tokens for j in found["keys"]) and \
        all(isinstance(v, list) and len(v) == len(found["keys"]) and
            all(isinstance(x, (int, float)) and math.isfinite(x) for x in v)
            for v in found["parts"].values()) and \
        all(abs(sum(v[n] for v in found["parts"].values()) - found["scores"][n]) < 1e-3
            for n in range(len(found["keys"])))
    if not ok:
        raise InputError(f"the why beat needs {beat_facts('why').needs}; a trace saved "
                         "without them cannot draw it.")
    return found


FLOW_DERIVED.update({
    # key n's (of the drawn keys) part of kind g (its place in meta why's groups), and its
    # score, as split
    "why_part": lambda trace, n, g: float(
        why(trace)["parts"][why(trace)["groups"][int(g)]][int(n)]),
    "why_score": lambda trace, n: float(why(trace)["scores"][int(n)]),
})
