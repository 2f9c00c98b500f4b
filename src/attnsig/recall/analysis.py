"""The analysis: margins, accuracies (sampled and exact), critical scales."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import as_float_array, check_instance, check_scalar
from .model import (
    Transformer,
    _check_one_scale,
    _check_scale,
    _last_logits,
    _LastLogits,
    embed,
)
from .task import (
    _MAX_CANONICAL_PAIRS,
    _answers,
    _canonical_classes,
    detokenize,
    validate_tokens,
)

__all__ = [
    "margins",
    "accuracy",
    "exact_accuracy",
    "critical_scales",
    "ideal_critical_scale",
]


def _margins(readout: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Read-out of the answer minus the largest other one, per row: (B, 37) -> (B,)."""
    rows = np.arange(len(expected))
    correct = readout[rows, expected]
    others = readout.copy()
    others[rows, expected] = -np.inf
    return correct - others.max(axis=1)


def margins(model: Transformer, sequences: Any, scale: Any = None) -> np.ndarray:
    """Read-out value of the correct answer minus the largest other one, shape (B,).

    Recall is correct at temperature zero exactly when the margin is positive.

    Examples
    --------
    >>> from attnsig.recall import build_transformer
    >>> model = build_transformer(3)
    >>> bool(margins(model, "A6B8C3B?", 3.0)[0] > 0)
    True
    """
    tokens = validate_tokens(sequences, model.num_pairs)
    scales = _check_scale(scale, model.dim, len(tokens))
    return _margins_of(model, tokens, scales)


def _margins_of(
    model: Transformer, tokens: np.ndarray, scales: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """:func:`margins` of checked, answerable tokens (B, T) at checked scales: (B,)."""
    readout = _last_logits(model, embed(model, tokens), scales)  # (B, 37)
    return _margins(readout, _answers(tokens, model.num_pairs))


def accuracy(
    model: Transformer, sequences: Any, scale: Any = None, weights: Any = None
) -> float:
    """Fraction of prompts recalled correctly (positive margin), optionally weighted.

    ``weights`` (shape (B,)) lets one representative stand for many sequences
    (see :func:`~attnsig.recall.task.canonical_tokens`).

    Examples
    --------
    >>> from attnsig.recall import build_transformer
    >>> model = build_transformer(3)
    >>> accuracy(model, ["A6B8C3B?", "A6B8C3C?"], 3.0)
    1.0
    """
    correct = margins(model, sequences, scale) > 0
    if weights is None:
        return float(correct.mean())
    w = as_float_array(weights, "weights", ndim=1)
    if w.shape != correct.shape or (w < 0).any():
        raise ValueError(
            f"weights must be non-negative of shape {correct.shape}; got shape "
            f"{w.shape}"
        )
    return float(w[correct].sum() / w.sum())


def exact_accuracy(model: Transformer, scale: Any = None) -> Fraction:
    """Exact fraction of *all* answerable prompts that the model recalls correctly.

    Every answerable prompt with ``n = model.num_pairs`` pairs
    (``26!/(26-n)! * 10**n * n`` of them) is counted once, through the symmetry classes
    of :func:`~attnsig.recall.task.canonical_tokens`: one representative per
    class is run and stands for all prompts of its class. A prompt counts as correct
    when its margin (:func:`margins`) is positive, so ties count as wrong.

    Parameters
    ----------
    model : Transformer
        The model; ``model.num_pairs`` must be at most 9 (the number of classes grows
        like the Bell numbers).
    scale : float or pair of floats, optional
        One attention scale for every prompt (``math.inf`` allowed), for both blocks or
        ``(block 1, block 2)``; default ``1/sqrt(d)``. Per-prompt arrays make no sense
        here and are refused.

    Returns
    -------
    fractions.Fraction
        Correctly recalled prompts divided by all answerable prompts, in exact
        arithmetic.

    Examples
    --------
    >>> from attnsig.recall import build_transformer
    >>> exact_accuracy(build_transformer(3), 3.0)
    Fraction(1, 1)
    """
    check_instance(
        model,
        "model",
        Transformer,
        "a recall.Transformer (see recall.build_transformer)",
    )
    if model.num_pairs > _MAX_CANONICAL_PAIRS:
        raise ValueError(
            f"model.num_pairs must be at most {_MAX_CANONICAL_PAIRS} for an exact "
            "count (the number of symmetry classes grows like the Bell numbers); got "
            f"{model.num_pairs}"
        )
    parts = scale if isinstance(scale, tuple) else (scale,)
    for part in parts:
        if part is not None and np.ndim(part) != 0:
            raise ValueError(
                f"scale must be one number (or a pair of numbers) for all prompts; "
                f"got an array of shape {np.shape(part)}"
            )
    tokens, counts, total = _canonical_classes(model.num_pairs)
    scales = _check_scale(scale, model.dim, len(tokens))
    correct = _margins_of(model, tokens, scales) > 0  # (C,)
    return Fraction(sum(int(c) for c in counts[correct]), total)


def critical_scales(
    model: Transformer,
    sequences: Any,
    *,
    first_block_scale: Any = None,
    upper: float = 40.0,
    iterations: int = 60,
) -> np.ndarray:
    """Per prompt, the scale at which recall switches from wrong to right, by bisection.

    Parameters
    ----------
    model : Transformer
    sequences : prompts of shape (B, T), answerable.
    first_block_scale : float, optional
        ``None``: both blocks use the scale being searched. A number (``math.inf``
        allowed): block 1 keeps that scale and only block 2's scale is searched.
    upper : float
        Upper end of the search; a prompt still wrong there raises ``ValueError``.
    iterations : int
        Bisection steps; the result is within ``upper / 2**iterations`` above the switch
        point.

    Returns
    -------
    ndarray, shape (B,)
        The smallest scale found with a positive margin. Bisection assumes a single
        switch from wrong to right as the scale grows; check it on a grid when it
        matters.

    Examples
    --------
    >>> from attnsig.recall import build_transformer
    >>> s = critical_scales(build_transformer(3), "A6B8C3B?")
    >>> bool(0 < s[0] < 3.0)
    True
    """
    tokens = validate_tokens(sequences, model.num_pairs)
    iterations = check_scalar(iterations, "iterations", int, min_val=1)
    upper = check_scalar(upper, "upper", min_val=0, include_boundaries="right")
    if first_block_scale is not None:
        first = _check_one_scale(
            first_block_scale, "first_block_scale", model.dim, len(tokens)
        )
    expected = _answers(tokens, model.num_pairs)
    readout = _LastLogits(model, embed(model, tokens))  # block 1 kept if `first` is set

    def correct(scales: np.ndarray) -> np.ndarray:  # (B,) finite scales >= 0
        pair = (scales, scales) if first_block_scale is None else (first, scales)
        return _margins(readout(pair), expected) > 0

    lo = np.zeros(len(expected))
    hi = np.full(len(expected), float(upper))
    if not correct(hi).all():
        b = int(np.argmin(correct(hi)))
        raise ValueError(
            f"prompt {b} ({detokenize(tokens[b])[0]}) is not recalled at scale "
            f"upper={upper}; raise upper"
        )
    for _ in range(iterations):
        mid = (lo + hi) / 2
        ok = correct(mid)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return hi


def ideal_critical_scale(num_pairs: int) -> float:
    """``ln max(2, n - 1)``: block 2's critical scale when block 1 is exact.

    See the chapter: the last query scores the matching pair and itself with ``s`` and
    every other position with 0; the correct digit collects ``e^s`` against at most
    ``max(2, n - 1)`` for any other token.

    Examples
    --------
    >>> round(ideal_critical_scale(3), 12) == round(math.log(2), 12)
    True
    """
    n = check_scalar(num_pairs, "num_pairs", int, min_val=1)
    return math.log(max(2, n - 1))
