"""List where attnsig turns scores into softmax weights, and check that it is one place.

Usage, from the repository root::

    .venv/bin/python tools/softmax_sites.py

Reads the package's source (nothing is imported or run) and prints

* the softmax arithmetic: every ``exp`` of scores, which must sit in
  ``attnsig._attention_core``, the private module beneath ``attnsig.attention``
  (``_softmax`` and its in-place core ``_softmax_inplace``);
* the places that call that arithmetic to make weights: ``_attention_core._attend``
  (the one "mask, softmax, weight the values" step), ``attention.softmax`` and the fast
  multi-head kernels of ``attnsig._attention_fast``, which run the same in-place core;
* who reaches the weights through ``scaled_dot_product_attention``, its unchecked core
  ``_scaled_dot_product`` or ``_attend``;
* the other exponentials of the package, each with the reason it is not a softmax.

Exits with status 1 if a softmax or an unexplained exponential appears anywhere else.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "attnsig"
HOME = "_attention_core"  # the module where scores become weights
PUBLIC = "attention"  # its public face: softmax() checks x and calls the core
FAST = "_attention_fast"  # the fast multi-head path: the same in-place core, by blocks
SOFTMAX = {"softmax", "_softmax", "_softmax_inplace"}
STEP = {"_attend", "_scaled_dot_product", "scaled_dot_product_attention"}
# Calls of the public softmax outside attention that are closed forms, not attention,
# and why.
CLOSED_FORMS = {
    "bounds.noisy_weights": "the sheet's closed form: softmax of the three distinct "
    "scores",
}
# Exponentials that are not attention weights, and why.
OTHER_EXPONENTIALS = {
    "bounds.outside_weight": "closed form of the outside weight, exp(-gap)",
    "reconstruction.time_moment_terms_from_derivative": "Taylor terms s**k / k! in "
    "logarithms",
    "reconstruction.fourier_tail_bound": "the tail x**N / N! of the exponential series",
    "reconstruction.fourier_coefficients_of_derivative": "Fourier phases exp(-2 pi i "
    "n s)",
    "reconstruction.increment_from_fourier": "Fourier phases exp(2 pi i n t)",
}


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(SRC).with_suffix("").parts)


def scan() -> dict[str, list[tuple[str, int, str]]]:
    """Calls of interest, as {kind: [(module.function, line, callee)]}."""
    found: dict[str, list[tuple[str, int, str]]] = {
        "exp": [],
        "softmax": [],
        "step": [],
    }
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(), filename=str(path))

        def visit(node: ast.AST, where: str, module: str = module) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    inner = child.name if where == module else f"{where}.{child.name}"
                    visit(child, inner)
                    continue
                if isinstance(child, ast.Call):
                    name = _name(child.func)
                    site = (
                        f"{module}.{where}" if where != module else module,
                        child.lineno,
                    )
                    if name == "exp":
                        found["exp"].append((*site, name))
                    elif name in SOFTMAX:
                        found["softmax"].append((*site, name))
                    elif name in STEP:
                        found["step"].append((*site, name))
                visit(child, where)

        visit(tree, module)
    return found


def main() -> int:
    found = scan()
    problems = []
    arithmetic = [s for s in found["exp"] if s[0].split(".")[0] == HOME]
    print("Softmax arithmetic (exp of scores), in attnsig._attention_core only:")
    for site, line, _ in arithmetic:
        print(f"  {site}  (line {line})")
    print("\nWhere scores become weights (calls of the softmax core):")
    closed = []
    for site, line, callee in found["softmax"]:
        module = site.split(".")[0]
        if module not in (HOME, FAST) and callee == "softmax" and site in CLOSED_FORMS:
            closed.append((site, line))
            continue
        ok = module in (HOME, FAST) or (
            module == PUBLIC and site == "attention.softmax"
        )
        print(
            f"  {site}  (line {line}) -> "
            f"{callee}{'' if ok else '   <-- outside attention'}"
        )
        if not ok:
            problems.append(f"{site} computes softmax weights itself (line {line})")
    print(
        "\nWho reaches the weights through attention.scaled_dot_product_attention, "
        "_scaled_dot_product or _attend:"
    )
    for site, line, callee in found["step"]:
        print(f"  {site}  (line {line}) -> {callee}")
    print("\nClosed forms that call attention.softmax (not attention):")
    for site, line in closed:
        print(f"  {site}  (line {line}): {CLOSED_FORMS[site]}")
    print("\nOther exponentials (not attention weights):")
    for site, line, _ in found["exp"]:
        if site.split(".")[0] == HOME:
            continue
        function = ".".join(site.split(".")[:2])
        reason = OTHER_EXPONENTIALS.get(function)
        print(
            f"  {site}  (line {line}): "
            f"{reason or 'UNEXPLAINED: a hand-written softmax?'}"
        )
        if reason is None:
            problems.append(
                f"{site} takes an exponential (line {line}); a softmax belongs in "
                "attnsig._attention_core, other exponentials in OTHER_EXPONENTIALS"
            )
    homes = {s[0].split(".")[0] for s in found["softmax"] if s[0] not in CLOSED_FORMS}
    homes |= {s[0].split(".")[0] for s in arithmetic}
    print(f"\nModules holding softmax weights: {sorted(homes)}")
    if problems:
        print("\nNOT ONE PLACE:\n  " + "\n  ".join(problems))
        return 1
    print(
        "One place: attnsig._attention_core, beneath attnsig.attention (the fast "
        "multi-head kernels share its in-place core)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
