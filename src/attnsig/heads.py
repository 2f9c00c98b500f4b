"""What one attention head computes from a single query, and summaries of its outputs.

The self-attention exercises ("Self-Attention and Transformers") use a single query
attending over a set of keys, with the *unscaled* dot-product scores of the exercise
sheet,

    scores_i = scale * k_i . q,      p = softmax(scores),      c = sum_i p_i v_i,

(``scale = 1`` by default; pass ``scale=1/sqrt(d)`` for the Transformer convention).
These functions are :func:`attnsig.attention.scaled_dot_product_attention` with one
query row.

Shapes use ``n`` for the number of keys, ``d`` for the key/query dimension, ``dv`` for
the value dimension, ``S`` for a batch of samples (any number of leading axes) and ``H``
for heads.

Related modules: the queries that make a head copy or average are built in
:mod:`attnsig.constructions`, the score gaps and query lengths they need are in
:mod:`attnsig.bounds`, and random or adversarial key sets in :mod:`attnsig.keysets`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._attention_core import _scaled_dot_product
from ._validation import as_float64_array, check_scalar

__all__ = [
    "attention_weights",
    "single_head_output",
    "multi_head_output",
    "segment_coordinate",
    "fraction_near",
]


def single_head_output(
    query, keys, values, *, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Output ``c = sum_i p_i v_i`` of one attention head with a single query.

    Parameters
    ----------
    query : array_like, shape (..., d)
    keys : array_like, shape (..., n, d)
    values : array_like, shape (..., n, dv)
        Leading axes of the three arguments broadcast: e.g. one query, keys of shape
        (S, n, d) for S samples and one value matrix (n, dv) give S outputs.
    scale : float, default 1
        Multiplies the scores ``k_i . q``; a real number ``>= 0``.

    Returns
    -------
    output : ndarray, shape (..., dv)
    weights : ndarray, shape (..., n)

    Examples
    --------
    >>> values = [[2.0, 0.0], [0.0, 4.0]]
    >>> out, w = single_head_output([np.log(3.0), 0.0], np.eye(2), values)
    >>> w.round(12), out.round(12)
    (array([0.75, 0.25]), array([1.5, 1. ]))
    """
    q, k, v = _checked_head_inputs(query, "query", keys, values)
    return _single_head(q, k, v, check_scalar(scale, "scale", min_val=0))


def _checked_head_inputs(
    query: Any, query_name: str, keys: Any, values: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query (..., d), keys (..., n, d) and values (..., n, dv) as float64, checked.

    ``values=None`` stands for no values (only the weights are wanted): an array of
    shape (..., n, 0). With ``query_name="queries"`` the first axis of the queries is
    the head axis, which does not broadcast against the keys.
    """
    q = as_float64_array(query, query_name, ndim_min=1)
    k = as_float64_array(keys, "keys", ndim_min=2)
    if values is None:
        v = np.zeros(k.shape[:-1] + (0,))  # (..., n, 0)
    else:
        v = as_float64_array(values, "values", ndim_min=2)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"{query_name} has dimension {q.shape[-1]} but keys have dimension "
            f"{k.shape[-1]}; expected {query_name} (..., d) and keys (..., n, d)"
        )
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"values has {v.shape[-2]} rows but there are {k.shape[-2]} keys; expected "
            "values (..., n, dv)"
        )
    lead = q.shape[:-1] if query_name == "query" else q.shape[:-2]
    try:
        np.broadcast_shapes(lead, k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading axes of {query_name} {q.shape}, keys {k.shape} and values "
            f"{v.shape} do not broadcast"
        ) from None
    return q, k, v


def _single_head(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`single_head_output` on checked arrays: (..., dv) and (..., n)."""
    output, weights = _scaled_dot_product(
        q[..., None, :], k, v, None, scale
    )  # (..., 1, dv), (..., 1, n): one query row
    return output[..., 0, :], weights[..., 0, :]


def _weights(query: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``softmax(keys @ query)`` of a checked query (d,) and keys (n, d): shape (n,).

    The unscaled weights of the sheets, for loops that have checked their arrays once
    (``bounds``).
    """
    return _single_head(query, keys, np.zeros((keys.shape[0], 0)), 1.0)[1]


def attention_weights(query, keys, *, scale: float = 1.0) -> np.ndarray:
    """Attention weights of one query over a set of keys.

    Parameters
    ----------
    query : array_like, shape (..., d)
    keys : array_like, shape (..., n, d)
        Leading axes of ``query`` and ``keys`` broadcast against each other.
    scale : float, default 1
        Multiplies the scores ``k_i . q`` (1 as in the exercise sheet; ``1/sqrt(d)`` for
        the Transformer convention); a real number ``>= 0``.

    Returns
    -------
    weights : ndarray, shape (..., n)
        ``softmax(scale * keys @ query)``: non-negative, summing to 1 along the last
        axis.

    Examples
    --------
    >>> attention_weights([np.log(3.0), 0.0], np.eye(2)).round(12)
    array([0.75, 0.25])
    """
    q, k, no_values = _checked_head_inputs(query, "query", keys, None)
    return _single_head(q, k, no_values, check_scalar(scale, "scale", min_val=0))[1]


def multi_head_output(
    queries, keys, values, *, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The simplified multi-head attention of the exercise sheet: the mean of H heads.

    Head ``h`` is a single head with query ``queries[h]`` over the *same* keys and
    values (no projections); the output is ``(c_1 + ... + c_H) / H``.

    Parameters
    ----------
    queries : array_like, shape (H, d)
    keys : array_like, shape (..., n, d)
    values : array_like, shape (..., n, dv)
    scale : float, default 1

    Returns
    -------
    output : ndarray, shape (..., dv)
        The average of the heads' outputs.
    weights : ndarray, shape (..., H, n)
        Each head's weights; the heads' outputs are ``weights @ values``.

    Examples
    --------
    >>> out, w = multi_head_output(100 * np.eye(2), np.eye(2), [[2.0], [4.0]])
    >>> out.round(12), w.round(12)
    (array([3.]), array([[1., 0.],
           [0., 1.]]))
    """
    q, k, v = _checked_head_inputs(queries, "queries", keys, values)
    if q.ndim != 2:
        raise ValueError(f"queries must have shape (H, d), got shape {q.shape}")
    scale = check_scalar(scale, "scale", min_val=0)
    # A head axis so that every head sees the same keys and values.
    head_outputs, weights = _single_head(
        q, k[..., None, :, :], v[..., None, :, :], scale
    )  # (..., H, dv), (..., H, n)
    return head_outputs.mean(axis=-2), weights


def segment_coordinate(outputs, value_a, value_b) -> np.ndarray:
    """Where outputs sit along the line from ``value_b`` (0) to ``value_a`` (1).

    Returns ``t = (c - v_b) . (v_a - v_b) / ||v_a - v_b||^2``: 1 at ``v_a``, 0 at
    ``v_b``, 1/2 at their average (for points off the line, the coordinate of their
    projection).

    Parameters
    ----------
    outputs : array_like, shape (..., dv)
    value_a, value_b : array_like, shape (dv,)
        Two different vectors.

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> segment_coordinate([[1.0, 0.0], [0.5, 0.5]], [1.0, 0.0], [0.0, 1.0])
    array([1. , 0.5])
    """
    c = as_float64_array(outputs, "outputs", ndim_min=1)
    va = as_float64_array(value_a, "value_a", ndim_min=1)
    vb = as_float64_array(value_b, "value_b", ndim_min=1)
    if not (va.shape == vb.shape == (c.shape[-1],)):
        raise ValueError(
            f"value_a and value_b must have shape ({c.shape[-1]},), got "
            f"{va.shape} and {vb.shape}"
        )
    direction = va - vb
    length2 = float(direction @ direction)
    if length2 == 0.0:
        raise ValueError("value_a and value_b must differ")
    return (c - vb) @ direction / length2


def fraction_near(outputs, target, radius: float) -> float:
    """Fraction of outputs within Euclidean distance ``radius`` of ``target``.

    Parameters
    ----------
    outputs : array_like, shape (S, dv)
    target : array_like, shape (dv,)
    radius : float
        Positive distance.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> fraction_near([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]], [0.0, 0.0], 1.5)
    0.6666666666666666
    """
    c = as_float64_array(outputs, "outputs", ndim_min=2)
    if c.ndim != 2:
        raise ValueError(f"outputs must have shape (S, dv), got {c.shape}")
    t = as_float64_array(target, "target", ndim_min=1)
    if t.shape != (c.shape[1],):
        raise ValueError(f"target must have shape ({c.shape[1]},), got {t.shape}")
    radius = check_scalar(radius, "radius", min_val=0, include_boundaries="neither")
    return float(np.mean(np.linalg.norm(c - t, axis=1) <= radius))
