"""One validation vocabulary: every module checks its input through attnsig._validation.

Two layers: the errors a user meets (a TypeError or ValueError that names the argument),
and a check on the source that no module grows its own type checks again.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import attnsig
from attnsig import (
    _validation,
    attention,
    bounds,
    constructions,
    heads,
    keysets,
    recall,
    reconstruction,
    signature,
    synthesizer,
)

SRC = Path(attnsig.__file__).resolve().parent


# ---------------------------------------------------------------------- what users meet
@pytest.mark.parametrize(
    "call, error, name",
    [
        (
            lambda: bounds.min_scale_along(np.eye(2), [1.0, 0.0], [0], threshold="0.5"),
            TypeError,
            "threshold",
        ),
        (lambda: bounds.noisy_weights(3, 0.1, "x"), TypeError, "c"),
        (lambda: bounds.noisy_weights(3, 0.1, -1.0), ValueError, "c"),
        (lambda: bounds.head_scale_needed(3, 0.1, True), TypeError, "c"),
        (lambda: bounds.copy_gap(3, True), TypeError, "epsilon"),
        (
            lambda: attention.scaled_dot_product_attention(
                np.eye(2), np.eye(2), np.eye(2), scale=True
            ),
            TypeError,
            "scale",
        ),
        (
            lambda: heads.attention_weights([1.0, 0.0], np.eye(2), scale=True),
            TypeError,
            "scale",
        ),
        (
            lambda: heads.single_head_output(
                [1.0, 0.0], np.eye(2), np.eye(2), scale="2"
            ),
            TypeError,
            "scale",
        ),
        (
            lambda: recall.logits(recall.build_transformer(1), "A1A?", True),
            TypeError,
            "scale",
        ),
        (
            lambda: recall.logits(recall.build_transformer(1), "A1A?", (1.0, True)),
            TypeError,
            "scale[1]",
        ),
        (
            lambda: recall.critical_scales(
                recall.build_transformer(1), "A1A?", upper="9"
            ),
            TypeError,
            "upper",
        ),
        (lambda: constructions.copy_query(np.eye(2), True, 0.1), TypeError, "index"),
        (
            lambda: constructions.average_query(np.eye(3), "01", 0.1),
            TypeError,
            "indices",
        ),
        (
            lambda: constructions.average_query(np.eye(3), (0, 1, 2), 0.1),
            ValueError,
            "indices",
        ),
        (
            lambda: constructions.two_head_queries(
                [1.0, 0.0], [0.0, 1.0], 2, 0.5, c_min=0.0
            ),
            ValueError,
            "c_min",
        ),
        (
            lambda: keysets.noisy_key_covariances(np.eye(2), 0.1, index=2),
            ValueError,
            "index",
        ),
        (
            lambda: keysets.noisy_keys(3, "1", np.random.default_rng(0)),
            TypeError,
            "c",
        ),
        (lambda: keysets.sample_keys(np.eye(2), np.eye(2), 3, 7), TypeError, "rng"),
        (
            lambda: signature.signature(np.zeros((3, 2)), 2, method="fast"),
            ValueError,
            "method",
        ),
        (lambda: signature.word_index("01", 2), TypeError, "word"),
        (lambda: reconstruction.gauss_nodes(0), ValueError, "num_nodes"),
        (lambda: synthesizer.DenseSynthesizer(4, 2, 3, rng="seed"), TypeError, "rng"),
        (lambda: attention.MultiHeadAttention(4, 2, dtype=int), TypeError, "dtype"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, error, name):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert (
        message.startswith(name) or f" {name} " in message or f"{name} must" in message
    ), message


def test_true_is_not_a_number_anywhere():
    for check in (
        lambda v: _validation.check_scalar(v, "x"),
        lambda v: _validation.check_scalar(v, "x", int, min_val=1),
        lambda v: _validation.check_scalar(v, "x", int),
        lambda v: _validation.check_scalar(v, "x", min_val=0, allow_inf=True),
        lambda v: _validation.as_float_array(v, "x", allow_bool=False),
        lambda v: _validation.check_indices([v], 3, "x"),
    ):
        with pytest.raises(TypeError, match="x"):
            check(True)
    with pytest.raises(TypeError, match="x"):
        _validation.check_scalar(np.bool_(True), "x")


def test_check_scalar_bounds_and_messages():
    check = _validation.check_scalar
    assert check(np.float32(0.5), "x", min_val=0, max_val=1) == 0.5
    assert check(math.inf, "x", allow_inf=True) == math.inf
    assert check(np.int64(3), "n", int, min_val=1) == 3
    assert type(check(np.int64(3), "n", int)) is int
    assert type(check(2, "x")) is float  # integers are real numbers
    with pytest.raises(
        ValueError, match=r"x must be a real number in \(0, 1\); got 1.0"
    ):
        check(1, "x", min_val=0, max_val=1, include_boundaries="neither")
    with pytest.raises(
        ValueError, match=r"index must be an integer in \[0, 3\); got 3"
    ):
        check(3, "index", int, min_val=0, max_val=3, include_boundaries="left")
    with pytest.raises(ValueError, match=r"x must be a real number in \(0, 1\]; got 0"):
        check(0, "x", min_val=0, max_val=1, include_boundaries="right")
    with pytest.raises(ValueError, match="x must be a finite real number; got nan"):
        check(math.nan, "x")
    with pytest.raises(ValueError, match="x must be a finite real number >= 0"):
        check(-math.inf, "x", min_val=0)
    with pytest.raises(ValueError, match=">= 2"):
        check(1.5, "x", min_val=2)
    with pytest.raises(ValueError, match="x must be a real number <= 1; got 2.0"):
        check(2, "x", max_val=1)
    with pytest.raises(TypeError, match="n must be an integer >= 1; got 2.0 of type"):
        check(2.0, "n", int, min_val=1)
    with pytest.raises(TypeError, match="t must be a real number; got '1' of type str"):
        check("1", "t")
    with pytest.raises(ValueError, match="include_boundaries must be one of"):
        check(1, "x", include_boundaries="open")


# --------------------------------------------------------------------------- the source
NUMERIC_TYPES = {
    "bool",
    "int",
    "float",
    "complex",
    "Real",
    "Integral",
    "Number",
    "integer",
    "floating",
    "bool_",
    "Generator",
}


def _type_names(node: ast.expr) -> set[str]:
    """The names in the type argument of isinstance: ``int``, ``(int, np.integer)``,
    ..."""
    if isinstance(node, ast.Tuple):
        return set().union(*(_type_names(e) for e in node.elts))
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Name):
        return {node.id}
    return set()


def _own_validation(path: Path, root: Path = SRC.parent) -> list[str]:
    """Places where a module checks input types itself instead of through
    _validation."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(root)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "TypeError":
                found.append(f"{where}: raises TypeError itself")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
            )
            if "numbers" in modules:
                found.append(f"{where}: imports numbers")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
        ):
            numeric = _type_names(node.args[1]) & NUMERIC_TYPES
            if numeric:
                found.append(f"{where}: isinstance against {sorted(numeric)}")
    return found


def test_no_module_validates_on_its_own():
    modules = [p for p in SRC.rglob("*.py") if p.name != "_validation.py"]
    assert len(modules) >= 15  # the package's modules were found
    offenders = [place for path in modules for place in _own_validation(path)]
    assert not offenders, (
        "check input through attnsig._validation instead:\n" + "\n".join(offenders)
    )


def test_the_source_check_catches_a_local_checker(tmp_path):
    # The check above must be able to fail: a module with its own type checks is
    # reported.
    rogue = tmp_path / "rogue.py"
    rogue.write_text(
        "import numbers\n"
        "def f(x):\n"
        "    if isinstance(x, bool) or not isinstance(x, numbers.Real):\n"
        "        raise TypeError('x')\n"
    )
    found = _own_validation(rogue, root=tmp_path)
    assert len(found) == 4, found
