"""2-D views of high-dimensional vectors: numbers only (numpy), no drawing.

A picture of a 384- or 32-dimensional vector is always a projection; these functions fit
one and report what it is, so the scene can say so on screen.

The default view is *uncentred* PCA (the top two right singular vectors of the raw vectors):
a linear map, so the origin of the picture is the true zero vector and an arrow from the
origin is an honest picture of a vector. ``center=True`` gives ordinary (centred) PCA.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["PolarMotion", "Projection2D", "fit_linear_map_2d", "fit_pca", "polar_motion",
           "view_signs"]


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


def view_signs(source, target) -> np.ndarray:
    """Signs (+1 or -1) for the two axes of the target view, chosen so the best 2x2 fit
    source -> target keeps orientation (a positive determinant) with the smallest turn.

    The sign of a principal direction is a convention, so a PCA view with an axis (or
    both) reversed is as honest as the view itself; choosing them lets the map between
    two views be drawn as a turn of at most a quarter and a stretch, not a flip through
    a line or a half turn.
    """
    dst = np.asarray(target, dtype=np.float64).reshape(-1, 2)
    best, best_angle = np.ones(2), np.inf
    for signs in ((1, 1), (-1, -1), (1, -1), (-1, 1)):
        m = fit_linear_map_2d(source, dst * np.array(signs, dtype=np.float64))
        if np.linalg.det(m) < 0:
            continue
        angle = abs(polar_motion(m).angle)
        if angle < best_angle - 1e-9:
            best, best_angle = np.array(signs, dtype=np.float64), angle
    return best


@dataclass(frozen=True)
class PolarMotion:
    """A 2x2 linear map written as a turn and a stretch (its polar decompositions
    ``M = P R = R Q``: turn then stretch, or stretch then turn), with the stretch limited
    so the picture stays legible.

    ``angle`` is the turn (radians, counter-clockwise); ``axes`` (2x2, orthonormal columns)
    are the stretch directions after the turn, ``in_axes`` the same directions before it;
    ``fitted`` the true stretch factors along them and ``stretch`` the ones drawn (equal
    unless ``clamped``). ``reflects`` is True when the map reverses orientation (the turn
    then cannot carry it: see :func:`view_signs`); the drawn motion leaves the reflection
    out.
    """

    angle: float
    axes: np.ndarray
    fitted: np.ndarray
    stretch: np.ndarray
    reflects: bool
    in_axes: np.ndarray = field(default_factory=lambda: np.eye(2))

    @property
    def clamped(self) -> bool:
        return not np.allclose(self.fitted, self.stretch, rtol=1e-6, atol=1e-12)

    def rotation(self, t: float = 1.0) -> np.ndarray:
        a = self.angle * float(t)
        return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def stretching(self, t: float = 1.0, first: bool = False) -> np.ndarray:
        """The stretch a share ``t`` of the way (geometric: never passes through zero),
        along the directions it has after the turn, or before it when ``first``."""
        axes = self.in_axes if first else self.axes
        factors = np.power(self.stretch, float(t))
        return axes @ np.diag(factors) @ axes.T

    def matrix(self, turn: float = 1.0, stretch: float = 1.0,
               stretch_first: bool = False) -> np.ndarray:
        """The drawn map after ``turn`` of the turn and ``stretch`` of the stretch."""
        if stretch_first:
            return self.rotation(turn) @ self.stretching(stretch, first=True)
        return self.stretching(stretch) @ self.rotation(turn)


def polar_motion(matrix, *, max_ratio: float = 3.0, min_scale: float = 0.4,
                 max_scale: float = 2.5) -> PolarMotion:
    """Split a 2x2 map into a turn and a stretch, limiting the stretch for the picture:
    the larger factor to [min_scale, max_scale], the smaller to at least 1/max_ratio of
    the larger (a nearly singular fit would otherwise squash the plane into a sliver)."""
    m = np.asarray(matrix, dtype=np.float64).reshape(2, 2)
    u, s, vt = np.linalg.svd(m)
    reflects = bool(np.linalg.det(m) < 0)
    if reflects:            # drop the reflection: flip the weakest direction back
        u = u.copy()
        u[:, 1] *= -1
    r = u @ vt
    angle = float(np.arctan2(r[1, 0], r[0, 0]))
    if s[0] <= 1e-12:
        return PolarMotion(0.0, np.eye(2), np.zeros(2), np.ones(2), reflects)
    big = float(np.clip(s[0], min_scale, max_scale))
    small = float(np.clip(s[1] * big / s[0], big / max_ratio, big))
    return PolarMotion(angle, u, s.copy(), np.array([big, small]), reflects, vt.T.copy())
