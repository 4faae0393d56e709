"""Where a word's information comes from, through every layer: four ways to carry one
layer's attention across all of them, each a tokens x tokens matrix whose row i says how
much of the last layer's token i comes from each input token j, and how far each agrees
with what the model bears out (leave-one-out).

- ``rollout`` (Abnar & Zuidema 2020): per layer the heads' mean weights A, then
  0.5·A + 0.5·I with rows renormalised (the residual connection), multiplied from the
  first layer up: R = Â_L ⋯ Â_1.
- ``flow`` (Abnar & Zuidema 2020): the same Â as capacities of a graph of the layers'
  tokens (an edge from token j below to token i above, Â_l[i, j]); the maximum flow from
  input token j to last-layer token i.
- ``value-zeroing`` (Mohebbi et al. 2023): per layer, token j's value set to zero in that
  layer alone; 1 − cos between token i's output of the layer with and without it, rows
  normalised to sum to 1; multiplied from the first layer up (their rollout).
- ``norms`` (Kobayashi et al. 2020): per layer ‖Σ_h α^h_ij · v^h_j W_O^h‖, what token j's
  weighted value adds to token i, rows normalised, then carried as rollout carries A.

Leave-one-out: token j's value zeroed in every layer, 1 − cos between the focus token's
last hidden state with and without it. Faithfulness is Kendall's τ between a method's
focus row and leave-one-out's, over the sentence's tokens other than the focus itself.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError

__all__ = ["FLOW_METHODS", "Flow", "carried", "check_method", "flow_for", "max_flow_matrix", "norms_per_layer",
           "rollout", "value_zeroing_per_layer"]

FLOW_METHODS = ("rollout", "flow", "value-zeroing", "norms")
SOURCES = {"rollout": "Abnar & Zuidema 2020", "flow": "Abnar & Zuidema 2020",
           "value-zeroing": "Mohebbi et al. 2023", "norms": "Kobayashi et al. 2020"}


@dataclass(frozen=True)
class Flow:
    """One method's matrix over all layers (T x T: rows the last layer's tokens, columns
    the input tokens), the last layer's own mean weights beside it, and its agreement
    with leave-one-out at the focus token."""
    method: str
    tokens: tuple
    focus_index: int
    matrix: np.ndarray          # T x T, float64
    raw: np.ndarray             # T x T: the last layer's weights, the heads' mean
    leave_one_out: np.ndarray   # T: the focus's change with each token's value zeroed
    kendall_tau: float          # the focus row against leave_one_out (NaN: undefined)
    words: tuple = ()           # the words as written: (name, first token, last token)
    num_layers: int = 0

    def lines(self) -> list[str]:
        """The focus word's row, word by word (the pieces of a word summed), its share
        beside the raw weight, and the agreement with leave-one-out: for the terminal."""
        def shares(row):
            row = np.asarray(row, np.float64)
            total = row.sum()
            row = row / total if total > 0 else row
            return [float(row[a:b + 1].sum()) for _, a, b in self.words]

        f = self.focus_index
        focus = next(name for name, a, b in self.words if a <= f <= b)
        flowed, raw = shares(self.matrix[f]), shares(self.raw[f])
        order = sorted(range(len(self.words)), key=lambda w: -flowed[w])
        width = max(len(name) for name, _, _ in self.words) + 2
        out = [f"flow into \u2018{focus}\u2019 through all {self.num_layers} layers: "
               f"{self.method} ({SOURCES[self.method]}); raw: the last layer's weights, "
               "the heads' mean" + ("; flow as shares of its row" if self.method == "flow"
                                   else ""),
               f"  {'word':<{width}} {self.method:>13}   raw"]
        for w in order:
            out.append(f"  {chr(0x2018) + self.words[w][0] + chr(0x2019):<{width}} "
                       f"{flowed[w]:>13.3f}  {raw[w]:.3f}  {'#' * round(20 * flowed[w])}")
        tau = ("undefined (a constant row)" if not np.isfinite(self.kendall_tau)
               else f"{self.kendall_tau:+.2f}")
        out.append(f"agreement with leave-one-out (each token's value zeroed in every layer, "
                   f"the change of \u2018{focus}\u2019's last hidden state): Kendall "
                   f"\u03c4 = {tau}")
        return out

    def to_json(self) -> dict:
        return {"method": self.method, "source": SOURCES[self.method],
                "tokens": list(self.tokens),
                "focus_index": self.focus_index,
                "matrix": [[float(x) for x in row] for row in self.matrix],
                "raw": [[float(x) for x in row] for row in self.raw],
                "leave_one_out": [float(x) for x in self.leave_one_out],
                "kendall_tau": None if not np.isfinite(self.kendall_tau)
                else float(self.kendall_tau)}


def _with_residual(a: np.ndarray) -> np.ndarray:
    """0.5·A + 0.5·I, rows renormalised (Abnar & Zuidema's residual)."""
    mixed = 0.5 * a + 0.5 * np.eye(a.shape[-1])
    return mixed / mixed.sum(axis=-1, keepdims=True)


def carried(per_layer: np.ndarray) -> np.ndarray:
    """Layer matrices (L x T x T, rows of each summing to 1) multiplied from the first
    layer up: M_L ⋯ M_1."""
    out = np.eye(per_layer.shape[-1])
    for m in per_layer:
        out = m @ out
    return out


def rollout(weights: np.ndarray) -> np.ndarray:
    """Attention rollout of every layer's weights (L x H x T x T)."""
    return carried(_with_residual(np.asarray(weights, np.float64).mean(axis=1)))


def max_flow_matrix(weights: np.ndarray) -> np.ndarray:
    """Attention flow: the maximum flow from each input token to each last-layer token
    through the graph whose capacities are the layers' Â (networkx's preflow-push)."""
    import networkx as nx

    layers = _with_residual(np.asarray(weights, np.float64).mean(axis=1))
    L, T, _ = layers.shape
    graph = nx.DiGraph()
    for n, a in enumerate(layers):
        for i in range(T):
            for j in range(T):
                if a[i, j] > 0:
                    graph.add_edge((n, j), (n + 1, i), capacity=float(a[i, j]))
    out = np.zeros((T, T))
    for i in range(T):
        for j in range(T):
            if (0, j) in graph and (L, i) in graph:
                out[i, j] = nx.maximum_flow_value(graph, (0, j), (L, i))
    return out


def _rows_normalised(m: np.ndarray) -> np.ndarray:
    m = np.clip(m, 0.0, None)
    total = m.sum(axis=-1, keepdims=True)
    return np.divide(m, total, out=np.zeros_like(m), where=total > 0)


def _cosine_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 − cos, row by row (T x D each)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    both = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    dots = (a * b).sum(axis=-1)
    return 1.0 - np.divide(dots, both, out=np.ones_like(dots), where=both > 0)


def norms_per_layer(attentions, out_maps) -> np.ndarray:
    """‖Σ_h α^h_ij v^h_j W_O^h‖ for every layer (L x T x T), rows normalised; ``out_maps``
    the layers' W_O (D x H·d)."""
    layers = []
    for n in range(attentions.num_layers):
        w = np.asarray(attentions.weights[n], np.float64)             # H x T x T
        v = np.asarray(attentions.v[n], np.float64)                   # H x T x d
        H, T, d = v.shape
        w_o = np.asarray(out_maps[n], np.float64).reshape(-1, H, d)   # D x H x d
        through = np.einsum("hjd,ehd->hje", v, w_o)                    # H x T x D
        parts = np.einsum("hij,hje->ije", w, through)                  # T x T x D
        layers.append(_rows_normalised(np.linalg.norm(parts, axis=-1)))
    return np.stack(layers)


def value_zeroing_per_layer(runner) -> np.ndarray:
    """Mohebbi et al.'s matrix of every layer (L x T x T): 1 − cos between each token's
    output of layer n as run and with token j's value zeroed in layer n alone, rows
    normalised."""
    L, T = runner.attentions.num_layers, len(runner.attentions.tokens)
    kept = runner.hidden()
    return np.stack([_rows_normalised(np.stack(
        [_cosine_distance(kept[n + 1], runner.hidden(zeroed=(n, j))[n + 1]) for j in range(T)],
        axis=1)) for n in range(L)])


def _kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import kendalltau

    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(kendalltau(a, b).statistic)


def check_method(method) -> str:
    if method not in FLOW_METHODS:
        raise InputError(f"--flow {method!r} is not a method; give one of "
                         f"{', '.join(FLOW_METHODS)}.")
    return method


def flow_for(req, method: str, runner=None) -> Flow:
    """``method``'s matrix for the sentence of ``req`` (a TraceRequest), with the focus
    word's agreement with leave-one-out (``runner``: its model's runs, when made already)."""
    check_method(method)
    from .flow_runs import ZeroingRunner

    runner = runner or ZeroingRunner(req)
    attentions = runner.attentions
    weights = np.asarray(attentions.weights, np.float64)
    if method == "rollout":
        matrix = rollout(weights)
    elif method == "flow":
        matrix = max_flow_matrix(weights)
    elif method == "norms":
        matrix = carried(_with_residual(norms_per_layer(attentions, runner.out_maps())))
    else:
        matrix = carried(value_zeroing_per_layer(runner))
    T, f = len(attentions.tokens), runner.focus
    kept = runner.hidden()[-1][f][None]
    loo = np.array([_cosine_distance(kept, runner.hidden(zeroed=(None, j))[-1][f][None])[0]
                    for j in range(T)])
    others = [j for j in range(T) if j != f]
    tau = _kendall_tau(matrix[f, others], loo[others])
    words = tuple((w.text + w.told_apart, w.first, w.last) for w in attentions.words.words)
    return Flow(method, attentions.tokens, f, matrix, weights[-1].mean(axis=0), loo, tau,
                words, attentions.num_layers)


# ---- the flow beat's river ------------------------------------------------------------------
MAX_COLUMNS = 9          # the layer boundaries a film draws (the input, the last, and between)
LEAST_EDGE = 0.002       # a stream thinner than this share is not kept


def _columns(num_layers: int) -> list[int]:
    """The layer boundaries drawn: 0 (the input) to L, at most MAX_COLUMNS, evenly, the
    last layer's input always among them (its own weights are drawn alone first)."""
    if num_layers + 1 <= MAX_COLUMNS:
        return list(range(num_layers + 1))
    last = num_layers - 1
    return sorted({int(n * last / (MAX_COLUMNS - 2) + 0.5) for n in range(MAX_COLUMNS - 1)}
                  | {num_layers})


def river(layers: np.ndarray, focus: int, words) -> dict:
    """Where the focus token's last vector comes from, boundary by boundary, by the layer
    matrices ``layers`` (L x T x T, rows summing to 1: rollout's Â): the words' shares at
    each drawn boundary (the focus alone at the last) and the streams between two drawn
    boundaries (a word above drawing on a word below, its share times the layers' product
    between them), words as written (their pieces summed)."""
    L, T, _ = layers.shape
    columns = _columns(L)
    word_of = np.array([words.index_of(j) for j in range(T)])
    W = len(words.words)

    def by_words(m: np.ndarray) -> np.ndarray:
        out = np.zeros((W, W))
        np.add.at(out, (word_of[:, None], word_of[None, :]), m)
        return out
    share = np.zeros(T)
    share[focus] = 1.0
    shares, edges = [words.sums(share)], []
    for upper, lower in zip(columns[::-1][:-1], columns[::-1][1:]):
        between = carried(layers[lower:upper])           # layer lower+1 .. upper
        streams = by_words(share[:, None] * between)     # word above (row) from word below
        edges.append([[int(i), int(j), round(float(streams[i, j]), 4)]
                      for i, j in zip(*np.nonzero(streams >= LEAST_EDGE))])
        share = share @ between
        shares.append(words.sums(share))
    return {"columns": columns, "shares": [[round(float(x), 6) for x in s]
                                           for s in shares[::-1]],
            "edges": edges[::-1]}


def with_flow(trace, req):
    """``trace`` with the flow beat's numbers in its meta (``flow``): the river of rollout
    through every layer, the last layer's own weights (the heads' mean) word by word, and
    rollout's agreement with leave-one-out; the drawing runs no model."""
    import dataclasses

    from .flow_runs import ZeroingRunner
    from .word_model import WordModel

    runner = ZeroingRunner(req)            # one run of the model serves both
    found = flow_for(req, "rollout", runner)
    if found.tokens != tuple(trace.display_tokens) or found.focus_index != trace.focus_index:
        raise InputError("the flow beat's run of the model does not match the film's trace "
                         "(its tokens or focus word); draw it from the sentence.")
    words = WordModel.of_trace(trace)
    weights = np.asarray(runner.attentions.weights, np.float64)
    layers = _with_residual(weights.mean(axis=1))
    flow = {"method": "rollout", **river(layers, found.focus_index, words),
            "raw": [round(float(x), 6) for x in words.sums(found.raw[found.focus_index])],
            "tau": None if not np.isfinite(found.kendall_tau) else
            round(float(found.kendall_tau), 6), "num_layers": int(weights.shape[0])}
    return dataclasses.replace(trace, meta={**trace.meta, "flow": flow})

