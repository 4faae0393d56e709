"""2-D views of high-dimensional vectors: numbers only (numpy), no drawing.

A picture of a 384- or 32-dimensional vector is always a projection; these functions fit
one and report what it is, so the scene can say so on screen.

The default view is *uncentred* PCA (the top two right singular vectors of the raw vectors):
a linear map, so the origin of the picture is the true zero vector and an arrow from the
origin is an honest picture of a vector. ``center=True`` gives ordinary (centred) PCA.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Projection2D:
    """An affine map R^D -> R^2: ``x -> axes @ (x - mean)``.

    ``axes`` has orthonormal rows (the two principal directions); ``explained`` is the
    share of the fitted vectors' squared norm (uncentred) or variance (centred) that each
    direction keeps, so a scene can state how faithful the picture is.
    """

    axes: np.ndarray              # 2 x D, orthonormal rows
    mean: np.ndarray              # D (zeros when uncentred)
    explained: tuple[float, float]
    centered: bool

    def __call__(self, vectors) -> np.ndarray:
        """Project vectors (N x D, or one D-vector) to N x 2 (or a 2-vector)."""
        x = np.asarray(vectors, dtype=np.float64)
        return (x - self.mean) @ self.axes.T

    @property
    def matrix(self) -> np.ndarray:
        """The linear part, 2 x D."""
        return self.axes

    @property
    def offset(self) -> np.ndarray:
        """The constant part: the image of the zero vector."""
        return -(self.axes @ self.mean)


def _fix_signs(axes: np.ndarray) -> np.ndarray:
    """Deterministic sign convention: the largest-magnitude entry of each axis is positive
    (an SVD's signs are arbitrary and may differ between LAPACK builds)."""
    axes = axes.copy()
    for r in range(axes.shape[0]):
        pivot = int(np.argmax(np.abs(axes[r])))
        if axes[r, pivot] < 0:
            axes[r] = -axes[r]
    return axes


def fit_pca(vectors, *, center: bool = False) -> Projection2D:
    """Fit a 2-D projection to ``vectors`` (N x D), by SVD in float64.

    Degenerate inputs (N < 2, rank < 2, D < 2) still give two orthonormal axes: missing
    directions are filled with standard basis vectors orthogonal to the ones found.
    """
    x = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    n, d = x.shape
    if d < 2:
        raise ValueError("a 2-D projection needs vectors of at least 2 dimensions")
    mean = x.mean(axis=0) if center else np.zeros(d)
    xc = x - mean
    _, sing, vt = np.linalg.svd(xc, full_matrices=False)
    total = float((sing ** 2).sum())
    tol = max(sing.max(initial=0.0) * 1e-9, 1e-12)
    axes = [vt[r] for r in range(min(2, len(sing))) if sing[r] > tol]
    # fill up to two axes with basis vectors made orthogonal to those found
    for e in np.eye(d):
        if len(axes) >= 2:
            break
        w = e - sum(np.dot(e, a) * a for a in axes)
        if np.linalg.norm(w) > 1e-6:
            axes.append(w / np.linalg.norm(w))
    axes = _fix_signs(np.vstack(axes))
    shares = []
    for r in range(2):
        kept = float(((xc @ axes[r]) ** 2).sum())
        shares.append(kept / total if total > 0 else 0.0)
    return Projection2D(axes=axes, mean=mean, explained=(shares[0], shares[1]), centered=center)


def fit_linear_map_2d(source, target) -> np.ndarray:
    """The 2x2 matrix M minimising ||source @ M.T - target||² (least squares, no offset).

    Used to show the plane of one 2-D view being carried (rotated, stretched) onto another:
    the best *linear* 2-D summary of a map we only see through projections.
    """
    src = np.asarray(source, dtype=np.float64).reshape(-1, 2)
    dst = np.asarray(target, dtype=np.float64).reshape(-1, 2)
    solution, *_ = np.linalg.lstsq(src, dst, rcond=None)
    return solution.T


def fit_residual(source, target, matrix) -> float:
    """Share of the target's squared norm the linear map does not explain (0 = exact)."""
    src = np.asarray(source, dtype=np.float64).reshape(-1, 2)
    dst = np.asarray(target, dtype=np.float64).reshape(-1, 2)
    denom = float((dst ** 2).sum())
    if denom == 0:
        return 0.0
    return float(((src @ np.asarray(matrix).T - dst) ** 2).sum()) / denom
