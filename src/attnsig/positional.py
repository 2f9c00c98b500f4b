"""Positional encodings."""

from __future__ import annotations

import numpy as np

from ._validation import check_scalar

__all__ = ["sinusoidal_encoding"]


def sinusoidal_encoding(
    num_positions: int, dim: int, base: float = 10000.0
) -> np.ndarray:
    """The sinusoidal position encoding of "Attention is all you need".

    ``PE[p, 2i] = sin(p / base**(2i/dim))`` and
    ``PE[p, 2i+1] = cos(p / base**(2i/dim))`` for positions
    ``p = 0, ..., num_positions - 1``. For odd ``dim`` the last column is a sine.

    Parameters
    ----------
    num_positions : int
        Number of positions (rows), at least 1.
    dim : int
        Encoding size (columns), at least 1.
    base : float
        Base of the geometric sequence of wavelengths, > 0 (10000 in the paper).

    Returns
    -------
    ndarray, shape (num_positions, dim)

    Examples
    --------
    >>> pe = sinusoidal_encoding(4, 6)
    >>> pe.shape
    (4, 6)
    >>> pe[0]  # position 0: sin 0 = 0 and cos 0 = 1
    array([0., 1., 0., 1., 0., 1.])
    """
    num_positions = check_scalar(num_positions, "num_positions", int, min_val=1)
    dim = check_scalar(dim, "dim", int, min_val=1)
    base = check_scalar(base, "base", min_val=0, include_boundaries="neither")
    positions = np.arange(num_positions, dtype=np.float64)[:, None]  # (P, 1)
    pair = np.arange(0, dim, 2, dtype=np.float64)  # 2i for each sine/cosine pair
    angles = positions / base ** (pair / dim)  # (P, ceil(dim/2))
    pe = np.empty((num_positions, dim))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : dim // 2])
    return pe
