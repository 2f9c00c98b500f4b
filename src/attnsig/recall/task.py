"""The associative-recall task: vocabulary, tokens, well-formed prompts, prompt sets.

A prompt holds ``n`` key-value pairs, then a key, then ``?``; the answer is the value
stored under that key. Example: ``A6B8C3B?`` -> ``8``. Keys are capital letters, values
digits.

**Vocabulary.** 37 tokens ``0-9``, ``A-Z``, ``?`` with indices 0-9, 10-35, 36
(``VOCAB``).
"""

from __future__ import annotations

import math
import string
from functools import cache
from typing import Any

import numpy as np

from .._validation import as_int_array, check_rng, check_scalar

__all__ = [
    "VOCAB",
    "VOCAB_SIZE",
    "QUERY_TOKEN",
    "MAX_PAIRS",
    "tokenize",
    "detokenize",
    "validate_tokens",
    "answers",
    "random_tokens",
    "canonical_tokens",
    "hardest_tokens",
]

VOCAB: tuple[str, ...] = tuple(string.digits) + tuple(string.ascii_uppercase) + ("?",)
VOCAB_SIZE = len(VOCAB)  # 37
QUERY_TOKEN = "?"
_TOKEN_ID = {t: i for i, t in enumerate(VOCAB)}
_DIGITS = np.arange(0, 10)
_LETTERS = np.arange(10, 36)
_QUERY_ID = 36
MAX_PAIRS = len(_LETTERS)  # keys are distinct letters
_NUM_DIGITS = len(_DIGITS)


def tokenize(sequences: Any) -> np.ndarray:
    """Token indices of recall sequences.

    Parameters
    ----------
    sequences : str, sequence of str, or array_like of int
        Strings over ``VOCAB`` (all of one length), or token indices of shape (T,) or
        (B, T).

    Returns
    -------
    ndarray of int64, shape (B, T)

    Examples
    --------
    >>> tokenize("A6B8C3B?")
    array([[10,  6, 11,  8, 12,  3, 11, 36]])
    """
    if isinstance(sequences, str):
        sequences = [sequences]
    if (
        isinstance(sequences, (list, tuple))
        and sequences
        and all(isinstance(s, str) for s in sequences)
    ):
        lengths = {len(s) for s in sequences}
        if len(lengths) != 1:
            raise ValueError(
                "sequences must all have the same length; got lengths "
                f"{sorted(lengths)}"
            )
        for b, s in enumerate(sequences):
            bad = [ch for ch in s if ch not in _TOKEN_ID]
            if bad:
                raise ValueError(
                    f"sequences[{b}] = {s!r} contains {bad[0]!r}, which is not in the "
                    f"vocabulary 0-9, A-Z, '?'"
                )
        return np.array(
            [[_TOKEN_ID[ch] for ch in s] for s in sequences], dtype=np.int64
        )
    arr = as_int_array(sequences, "sequences", "strings or integer token indices")
    if arr.ndim == 1:
        arr = arr[None, :]  # (1, T)
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(
            "sequences must have shape (T,) or (B, T) with T >= 1; got shape "
            f"{arr.shape}"
        )
    if arr.size and (arr.min() < 0 or arr.max() >= VOCAB_SIZE):
        raise ValueError(
            f"token indices must lie in 0..{VOCAB_SIZE - 1}; got values in "
            f"{arr.min()}..{arr.max()}"
        )
    return arr.astype(np.int64)


def detokenize(tokens: Any) -> list[str]:
    """Strings of token indices of shape (B, T) (or (T,)).

    Examples
    --------
    >>> detokenize([[10, 6, 11, 8, 12, 3, 11, 36]])
    ['A6B8C3B?']
    """
    arr = tokenize(tokens)
    return ["".join(VOCAB[t] for t in row) for row in arr]


def _where(condition: np.ndarray) -> tuple[int, int]:
    b, i = np.argwhere(condition)[0]
    return int(b), int(i)


def validate_tokens(
    sequences: Any, num_pairs: int, *, check_answerable: bool = True
) -> np.ndarray:
    """Check that sequences are well-formed recall prompts; return their tokens.

    A prompt for ``n`` pairs has length ``2n + 2``: letter, digit (``n`` times), a
    letter, ``?``. With ``check_answerable`` the keys must be distinct and the queried
    letter one of them, so that the answer is defined (:func:`answers`).

    Parameters
    ----------
    sequences : str, sequence of str, or array_like of int
        See :func:`tokenize`.
    num_pairs : int
        Expected number ``n`` of key-value pairs.
    check_answerable : bool
        Also require distinct keys and a queried key that occurs among them.

    Returns
    -------
    ndarray of int64, shape (B, 2n + 2)

    Raises
    ------
    ValueError
        Naming the first offending sequence and position.

    Examples
    --------
    >>> validate_tokens("A6B8C3B?", 3).shape
    (1, 8)
    >>> validate_tokens("A6B8A3B?", 3)
    Traceback (most recent call last):
    ...
    ValueError: sequence 0: the key 'A' occurs more than once; associative recall needs
    distinct keys (the construction would average their values)
    """
    n = check_scalar(num_pairs, "num_pairs", int, min_val=1)
    tokens = tokenize(sequences)
    seq_len = 2 * n + 2
    if tokens.shape[1] != seq_len:
        raise ValueError(
            f"a recall sequence with num_pairs={n} has length {seq_len} "
            f"(n key-value pairs, a key, '?'); got length {tokens.shape[1]}"
        )
    keys = tokens[:, 0 : 2 * n : 2]  # (B, n)
    values = tokens[:, 1 : 2 * n : 2]  # (B, n)
    queried = tokens[:, 2 * n]  # (B,)
    is_letter = (tokens >= _LETTERS[0]) & (tokens <= _LETTERS[-1])
    if not is_letter[:, 0 : 2 * n : 2].all():
        b, m = _where(~is_letter[:, 0 : 2 * n : 2])
        raise ValueError(
            f"sequence {b}: position {2 * m} must hold a key (a letter A-Z); "
            f"got {VOCAB[keys[b, m]]!r}"
        )
    if not (values <= _DIGITS[-1]).all():
        b, m = _where(values > _DIGITS[-1])
        raise ValueError(
            f"sequence {b}: position {2 * m + 1} must hold a value (a digit 0-9); "
            f"got {VOCAB[values[b, m]]!r}"
        )
    if not is_letter[:, 2 * n].all():
        b = int(np.argmin(is_letter[:, 2 * n]))
        raise ValueError(
            f"sequence {b}: position {2 * n} must hold the queried key (a letter A-Z); "
            f"got {VOCAB[queried[b]]!r}"
        )
    if not (tokens[:, -1] == _QUERY_ID).all():
        b = int(np.argmin(tokens[:, -1] == _QUERY_ID))
        raise ValueError(
            f"sequence {b}: the last position must hold '?'; "
            f"got {VOCAB[tokens[b, -1]]!r}"
        )
    if check_answerable:
        sorted_keys = np.sort(keys, axis=1)  # (B, n)
        repeated = (sorted_keys[:, 1:] == sorted_keys[:, :-1]).any(axis=1)
        if repeated.any():
            b = int(np.argmax(repeated))
            row = sorted_keys[b]
            letter = VOCAB[row[1:][row[1:] == row[:-1]][0]]
            raise ValueError(
                f"sequence {b}: the key {letter!r} occurs more than once; associative "
                "recall needs distinct keys (the construction would average their "
                "values)"
            )
        found = (keys == queried[:, None]).any(axis=1)
        if not found.all():
            b = int(np.argmin(found))
            listed = "".join(VOCAB[k] for k in keys[b])
            raise ValueError(
                f"sequence {b}: the queried key {VOCAB[queried[b]]!r} is not among the "
                f"keys {listed!r}; there is nothing to recall"
            )
    return tokens


def answers(sequences: Any, num_pairs: int) -> np.ndarray:
    """The correct answers (token indices of shape (B,)) of answerable recall prompts.

    Examples
    --------
    >>> [VOCAB[t] for t in answers(["A6B8C3B?", "A6B8C3C?"], 3)]
    ['8', '3']
    """
    return _answers(validate_tokens(sequences, num_pairs), num_pairs)


def _answers(tokens: np.ndarray, n: int) -> np.ndarray:
    """:func:`answers` of checked, answerable tokens (B, 2n + 2)."""
    match = tokens[:, 0 : 2 * n : 2] == tokens[:, [2 * n]]  # (B, n), one True per row
    return tokens[:, 1 : 2 * n : 2][match]


# --------------------------------------------------------------------------------------
# Prompt sets
# --------------------------------------------------------------------------------------


def random_tokens(num_pairs: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Random answerable prompts: distinct keys, random digits and queried key.

    Returns
    -------
    ndarray of int64, shape (size, 2n + 2)

    Examples
    --------
    >>> detokenize(random_tokens(2, 3, np.random.default_rng(0)))[0][-1]
    '?'
    """
    n = check_scalar(num_pairs, "num_pairs", int, min_val=1)
    size = check_scalar(size, "size", int, min_val=1)
    if n > MAX_PAIRS:
        raise ValueError(f"num_pairs must be at most {MAX_PAIRS}; got {n}")
    rng = check_rng(rng)
    keys = _LETTERS[
        np.argsort(rng.random((size, len(_LETTERS))), axis=1)[:, :n]
    ]  # (size, n) distinct
    values = rng.integers(0, _NUM_DIGITS, size=(size, n))
    which = rng.integers(0, n, size=size)
    tokens = np.empty((size, 2 * n + 2), dtype=np.int64)
    tokens[:, 0 : 2 * n : 2] = keys
    tokens[:, 1 : 2 * n : 2] = values
    tokens[:, 2 * n] = keys[np.arange(size), which]
    tokens[:, -1] = _QUERY_ID
    return tokens


def _value_patterns(n: int) -> list[list[int]]:
    """Equality patterns of n values: restricted growth strings of at most 10 blocks."""
    patterns: list[list[int]] = []

    def extend(prefix: list[int], blocks: int) -> None:
        if len(prefix) == n:
            patterns.append(prefix)
            return
        for v in range(min(blocks + 1, _NUM_DIGITS)):
            extend(prefix + [v], max(blocks, v + 1))

    extend([], 0)
    return patterns


def canonical_tokens(num_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """One prompt per class of prompts equal up to renaming letters and renaming digits.

    The weights of :func:`~attnsig.recall.model.build_transformer` treat all
    letters alike and all digits alike, so the read-out of a renamed prompt is the
    renamed read-out: every prompt in a class is recalled correctly or none is. Keys are
    ``A, B, C, ...``; the classes differ in which values are equal and which key is
    queried.

    Returns
    -------
    tokens : ndarray of int64, shape (C, 2n + 2)
    counts : ndarray of int64, shape (C,)
        The number of answerable prompts each representative stands for;
        ``counts.sum()`` is the number of all answerable prompts,
        ``26!/(26-n)! * 10**n * n``.

    Examples
    --------
    >>> tokens, counts = canonical_tokens(1)
    >>> detokenize(tokens), counts  # one class: 26 letters times 10 digits
    (['A0A?'], array([260]))
    """
    n = check_scalar(num_pairs, "num_pairs", int, min_val=1)
    if n > 9:
        raise ValueError(
            "num_pairs must be at most 9 here (the number of classes grows like the "
            f"Bell numbers); got {n}"
        )
    key_orders = math.perm(len(_LETTERS), n)
    rows, counts = [], []
    for pattern in _value_patterns(n):
        blocks = max(pattern) + 1
        digit_choices = math.perm(_NUM_DIGITS, blocks)
        for which in range(n):
            row = []
            for m in range(n):
                row += [_LETTERS[m], pattern[m]]
            rows.append(row + [_LETTERS[which], _QUERY_ID])
            counts.append(key_orders * digit_choices)
    return np.array(rows, dtype=np.int64), np.array(counts, dtype=np.int64)


_MAX_CANONICAL_PAIRS = 9  # the number of classes grows like the Bell numbers


@cache
def _canonical_classes(n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Cached :func:`canonical_tokens` (read-only) and the number of all prompts."""
    tokens, counts = canonical_tokens(n)
    tokens.flags.writeable = False
    counts.flags.writeable = False
    return tokens, counts, math.perm(len(_LETTERS), n) * _NUM_DIGITS**n * n


def hardest_tokens(num_pairs: int) -> np.ndarray:
    """The prompt that needs the largest scale: ``A0 B0 ... C1 C?``.

    Keys ``A, B, ...``; the first ``n - 1`` pairs hold the same digit ``0``, the last
    pair holds ``1`` and is queried, e.g. ``A0B0C1C?`` for ``n = 3``. Two effects make
    it hard: ``n - 1`` copies of one wrong digit compete with the answer in block 2, and
    block 1 copies the last pair's key with the smallest weight (its row sees the most
    positions). Checked to be the hardest symmetry class (largest
    :func:`~attnsig.recall.analysis.critical_scales` with both blocks soft) by
    exhaustive search over :func:`canonical_tokens` for ``2 <= n <= 6`` (the book's
    chapter up to 5, the grading tests at 6); for larger ``n`` this is a conjecture,
    spot-checked on random prompts. For ``n = 1`` there is only one class.

    Parameters
    ----------
    num_pairs : int
        Number ``n`` of key-value pairs, ``1 <= n <= 26``.

    Returns
    -------
    ndarray of int64, shape (1, 2n + 2)
        One prompt, with a leading batch axis so it can be passed to
        :func:`~attnsig.recall.model.run` and friends.

    Examples
    --------
    >>> detokenize(hardest_tokens(3))
    ['A0B0C1C?']
    """
    n = check_scalar(num_pairs, "num_pairs", int, min_val=1)
    if n > MAX_PAIRS:
        raise ValueError(
            f"num_pairs must be at most {MAX_PAIRS} (keys are distinct letters); got "
            f"{n}"
        )
    tokens = np.empty((1, 2 * n + 2), dtype=np.int64)
    tokens[0, 0 : 2 * n : 2] = _LETTERS[:n]
    tokens[0, 1 : 2 * n : 2] = _DIGITS[0]
    tokens[0, 2 * n - 1] = _DIGITS[1]  # the last pair's value differs from the others
    tokens[0, 2 * n] = _LETTERS[n - 1]  # ... and it is the one queried
    tokens[0, -1] = _QUERY_ID
    return tokens
