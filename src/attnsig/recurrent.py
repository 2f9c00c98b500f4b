"""A vanilla RNN beside self-attention: Jacobians, dependency maps, costs.

The RNN follows PyTorch's ``nn.RNN`` (``nonlinearity='tanh'``, ``batch_first=True``)
layout::

    h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh),     h_0 given (zeros by
    default)

with ``W_ih`` of shape (H, D) and ``W_hh`` of shape (H, H). Shapes: ``T`` time steps,
``D`` input size, ``H`` hidden size, ``E`` the width of an attention layer.

The Jacobian tools answer the question "which inputs move which outputs": for a map from
a sequence ``x`` of shape (S, D) to a sequence ``y`` of shape (T, H), the Jacobian has
shape (T, H, S, D) and :func:`dependency_matrix` reduces it to the (T, S) matrix of
block norms ``‖∂y_t / ∂x_s‖_F``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._validation import as_float_array, check_callable, check_scalar

__all__ = [
    "rnn_forward",
    "rnn_input_jacobian",
    "numerical_jacobian",
    "dependency_matrix",
    "softmax_jacobian",
    "rnn_param_count",
    "self_attention_param_count",
    "rnn_multiply_adds",
    "self_attention_multiply_adds",
]


def _check_rnn_weights(
    x: np.ndarray, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, h0: Any
) -> tuple[np.ndarray, ...]:
    w_ih = as_float_array(w_ih, "w_ih", ndim=2)
    w_hh = as_float_array(w_hh, "w_hh", ndim=2)
    hidden, d_in = w_ih.shape
    if x.shape[-1] != d_in:
        raise ValueError(
            f"x must have shape (..., T, D) with D = w_ih.shape[1] = {d_in}; got x "
            f"{x.shape}"
        )
    if w_hh.shape != (hidden, hidden):
        raise ValueError(
            f"w_hh must have shape (H, H) = ({hidden}, {hidden}) to match w_ih "
            f"{w_ih.shape}; got {w_hh.shape}"
        )
    biases = []
    for name, b in (("b_ih", b_ih), ("b_hh", b_hh)):
        b = np.zeros(hidden) if b is None else as_float_array(b, name, ndim=1)
        if b.shape != (hidden,):
            raise ValueError(
                f"{name} must have shape (H,) = ({hidden},); got {b.shape}"
            )
        biases.append(b)
    h0 = (
        np.zeros(x.shape[:-2] + (hidden,))
        if h0 is None
        else as_float_array(h0, "h0", ndim_min=1)
    )
    if h0.shape[-1] != hidden:
        raise ValueError(
            f"h0 must have shape (..., H) with H = {hidden}; got {h0.shape}"
        )
    return w_ih, w_hh, biases[0], biases[1], h0


def rnn_forward(
    x: Any, w_ih: Any, w_hh: Any, b_ih: Any = None, b_hh: Any = None, h0: Any = None
) -> np.ndarray:
    """Run a tanh RNN over a sequence, one step after the other.

    Parameters
    ----------
    x : array_like, shape (..., T, D)
        Input sequence(s).
    w_ih : array_like, shape (H, D)
        Input-to-hidden weights.
    w_hh : array_like, shape (H, H)
        Hidden-to-hidden (recurrent) weights.
    b_ih, b_hh : array_like, shape (H,), optional
        Biases (zero when omitted).
    h0 : array_like, shape (..., H), optional
        Initial state (zeros when omitted).

    Returns
    -------
    ndarray, shape (..., T, H)
        The hidden states ``h_1, ..., h_T``. The loop is inherently sequential: ``h_t``
        needs ``h_{t-1}``.

    Examples
    --------
    >>> h = rnn_forward(np.ones((3, 1)), [[1.0]], [[0.0]])  # no recurrence: tanh(1)
    >>> h.round(6)
    array([[0.761594],
           [0.761594],
           [0.761594]])
    """
    x = as_float_array(x, "x", ndim_min=2)
    return _rnn_forward(x, *_check_rnn_weights(x, w_ih, w_hh, b_ih, b_hh, h0))


def _rnn_forward(
    x: np.ndarray,
    w_ih: np.ndarray,
    w_hh: np.ndarray,
    b_ih: np.ndarray,
    b_hh: np.ndarray,
    h: np.ndarray,
) -> np.ndarray:
    """:func:`rnn_forward` of checked arrays, ``h`` the initial state: (..., T, H)."""
    # The input part of every step at once: it does not depend on the state.
    drive = x @ w_ih.T + b_ih + b_hh  # (..., T, H)
    states = []
    for t in range(x.shape[-2]):
        h = np.tanh(drive[..., t, :] + h @ w_hh.T)  # (..., H): needs the previous state
        states.append(h)
    return np.stack(states, axis=-2)  # (..., T, H)


def rnn_input_jacobian(
    x: Any, w_ih: Any, w_hh: Any, b_ih: Any = None, b_hh: Any = None, h0: Any = None
) -> np.ndarray:
    """Exact Jacobian ``∂h_t / ∂x_s`` of the tanh RNN's hidden states.

    With ``D_k = diag(1 - h_k²)`` (the derivative of tanh at step ``k``)::

        ∂h_t/∂x_s = D_t W_hh D_{t-1} W_hh ··· D_{s+1} W_hh D_s W_ih   for s <= t,   0
        for s > t.

    Parameters
    ----------
    x : array_like, shape (T, D)
        One input sequence (no batch axes).
    w_ih, w_hh, b_ih, b_hh, h0
        As in :func:`rnn_forward`; ``h0`` has shape (H,).

    Returns
    -------
    ndarray, shape (T, H, T, D)
        ``J[t, :, s, :] = ∂h_t / ∂x_s``.

    Examples
    --------
    >>> jac = rnn_input_jacobian(np.zeros((3, 1)), [[1.0]], [[0.5]])
    >>> dependency_matrix(jac)  # at zero input: 0.5**(t - s) below the diagonal
    array([[1.  , 0.  , 0.  ],
           [0.5 , 1.  , 0.  ],
           [0.25, 0.5 , 1.  ]])
    """
    x = as_float_array(x, "x", ndim=2)
    w_ih, w_hh, b_ih, b_hh, h0 = _check_rnn_weights(x, w_ih, w_hh, b_ih, b_hh, h0)
    if h0.shape != (w_hh.shape[0],):
        raise ValueError(
            f"h0 must have shape (H,) = ({w_hh.shape[0]},) for one sequence; got "
            f"{h0.shape}"
        )
    h = _rnn_forward(x, w_ih, w_hh, b_ih, b_hh, h0)  # (T, H)
    steps, hidden = h.shape
    d_in = x.shape[1]
    tanh_slope = 1.0 - h**2  # (T, H): the diagonal of D_t
    jac = np.zeros((steps, hidden, steps, d_in))
    for s in range(steps):
        block = tanh_slope[s][:, None] * w_ih  # (H, D) = D_s W_ih
        jac[s, :, s, :] = block
        for t in range(s + 1, steps):
            block = tanh_slope[t][:, None] * (
                w_hh @ block
            )  # (H, D) = D_t W_hh (previous block)
            jac[t, :, s, :] = block
    return jac


def numerical_jacobian(
    f: Callable[[np.ndarray], Any], x: Any, eps: float = 1e-6
) -> np.ndarray:
    """Central-difference Jacobian of ``f`` at ``x``.

    Parameters
    ----------
    f : callable
        Maps an array of the shape of ``x`` to an array of any fixed shape
        ``out_shape``.
    x : array_like, shape in_shape
        The point at which to differentiate.
    eps : float
        Step; the error is ``O(eps²)`` times the third derivative, plus rounding
        ``O(1e-16 / eps)``.

    Returns
    -------
    ndarray, shape out_shape + in_shape
        ``J[i..., j...] = ∂f(x)[i...] / ∂x[j...]``.

    Examples
    --------
    >>> numerical_jacobian(lambda x: 3.0 * x, np.zeros(2)).round(6)
    array([[3., 0.],
           [0., 3.]])
    """
    check_callable(f, "f")
    x = as_float_array(x, "x").astype(np.float64)
    eps = check_scalar(eps, "eps", min_val=0, include_boundaries="neither")
    out_shape = np.shape(f(x))
    jac = np.zeros(out_shape + (x.size,))
    flat = x.ravel()  # (N,)
    for j in range(x.size):
        step = np.zeros_like(flat)
        step[j] = eps
        plus = np.asarray(f((flat + step).reshape(x.shape)), dtype=np.float64)
        minus = np.asarray(f((flat - step).reshape(x.shape)), dtype=np.float64)
        jac[..., j] = (plus - minus) / (2 * eps)
    return jac.reshape(out_shape + x.shape)  # out_shape + in_shape


def dependency_matrix(jacobian: Any) -> np.ndarray:
    """Reduce a sequence-to-sequence Jacobian to the norms of its position blocks.

    Parameters
    ----------
    jacobian : array_like, shape (T, H, S, D)
        ``∂y_t / ∂x_s`` blocks, e.g. from :func:`rnn_input_jacobian` or
        :func:`numerical_jacobian`.

    Returns
    -------
    ndarray, shape (T, S)
        ``M[t, s] = ‖∂y_t / ∂x_s‖_F``: zero exactly when output ``t`` does not depend on
        input ``s`` (to first order).

    Examples
    --------
    >>> dependency_matrix(np.ones((2, 3, 2, 4)))  # every block has 12 ones
    array([[3.46410162, 3.46410162],
           [3.46410162, 3.46410162]])
    """
    jac = as_float_array(jacobian, "jacobian", ndim=4)
    return np.sqrt((jac**2).sum(axis=(1, 3)))  # (T, S)


def softmax_jacobian(p: Any) -> np.ndarray:
    """Jacobian of the softmax at the point where it outputs ``p``: ``diag(p) - p pᵀ``.

    Parameters
    ----------
    p : array_like, shape (..., n)
        Probability vectors (non-negative, summing to one along the last axis).

    Returns
    -------
    ndarray, shape (..., n, n)
        ``J[..., i, j] = ∂p_i / ∂z_j = p_i (δ_ij - p_j)``.

    Examples
    --------
    >>> softmax_jacobian([0.5, 0.5])
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    """
    p = as_float_array(p, "p", ndim_min=1)
    if (p < 0).any() or not np.allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-9):
        raise ValueError(
            "p must hold probability vectors along its last axis (entries >= 0 summing "
            f"to 1); got shape {p.shape} with sums in [{p.sum(axis=-1).min()}, "
            f"{p.sum(axis=-1).max()}]"
        )
    eye = np.eye(p.shape[-1])
    return p[..., :, None] * eye - p[..., :, None] * p[..., None, :]  # (..., n, n)


def rnn_param_count(input_size: int, hidden_size: int, bias: bool = True) -> int:
    """Number of parameters of a tanh RNN layer (PyTorch layout: two bias vectors).

    ``H·D + H·H (+ 2H)``; it does not depend on the sequence length.

    Examples
    --------
    >>> rnn_param_count(3, 4)  # 4*3 + 4*4 + 2*4
    36
    """
    d = check_scalar(input_size, "input_size", int, min_val=1)
    h = check_scalar(hidden_size, "hidden_size", int, min_val=1)
    return h * d + h * h + (2 * h if bias else 0)


def self_attention_param_count(embed_dim: int, bias: bool = True) -> int:
    """Parameters of a multi-head attention layer of width ``E``: ``4E² (+ 4E)``.

    Independent of the number of heads (they split ``E``) and of the sequence length.

    Examples
    --------
    >>> self_attention_param_count(8)  # 4 * 64 + 4 * 8
    288
    """
    e = check_scalar(embed_dim, "embed_dim", int, min_val=1)
    return 4 * e * e + (4 * e if bias else 0)


def rnn_multiply_adds(seq_len: int, input_size: int, hidden_size: int) -> int:
    """Multiply-adds of an RNN pass over ``T`` steps: ``T (H·D + H·H)``.

    A product of an (m, k) and a (k, n) matrix counts ``m·k·n`` multiply-adds; biases
    and tanh are not counted.

    Examples
    --------
    >>> rnn_multiply_adds(10, 3, 4)  # 10 * (12 + 16)
    280
    """
    t = check_scalar(seq_len, "seq_len", int, min_val=1)
    d = check_scalar(input_size, "input_size", int, min_val=1)
    h = check_scalar(hidden_size, "hidden_size", int, min_val=1)
    return t * (h * d + h * h)


def self_attention_multiply_adds(seq_len: int, embed_dim: int) -> int:
    """Multiply-adds of self-attention on ``T`` tokens: ``4 T E² + 2 T² E``.

    Three input projections (``3 T E²``), the scores ``Q Kᵀ`` (``T² E`` summed over
    heads), the weighted values (``T² E``) and the output projection (``T E²``); softmax
    and biases are not counted. The number of heads does not change the count.

    Examples
    --------
    >>> self_attention_multiply_adds(10, 4)  # 4 * 10 * 16 + 2 * 100 * 4
    1440
    """
    t = check_scalar(seq_len, "seq_len", int, min_val=1)
    e = check_scalar(embed_dim, "embed_dim", int, min_val=1)
    return 4 * t * e * e + 2 * t * t * e
