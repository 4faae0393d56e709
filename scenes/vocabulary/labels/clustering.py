"""Which labels share one written label: their anchors (arrow tips) nearly coincide."""
from __future__ import annotations

import numpy as np

__all__ = ["cluster_anchors"]


def cluster_anchors(anchors: np.ndarray, merge_within: float, solo: set[int]) -> list[list[int]]:
    """Agglomerative clustering with complete linkage, closest pair first: two clusters
    merge while every pair of their anchors is closer than ``merge_within``. Labels in
    ``solo`` never merge. Deterministic (ties go to the earlier pair)."""
    n = len(anchors)
    dist = np.linalg.norm(anchors[:, None, :] - anchors[None, :, :], axis=2)
    clusters: list[list[int]] = [[i] for i in range(n)]
    while True:
        best = None
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                ca, cb = clusters[a], clusters[b]
                if solo & {*ca, *cb}:
                    continue
                d = float(dist[np.ix_(ca, cb)].max())
                if d < merge_within and (best is None or d < best[0] - 1e-12):
                    best = (d, a, b)
        if best is None:
            return clusters
        _, a, b = best
        clusters[a] = sorted(clusters[a] + clusters[b])
        del clusters[b]
