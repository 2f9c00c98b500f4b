"""How each exercise of a chapter is graded: the questions of its checks file.

A chapter notebook `chapters/<part>/<name>.ipynb` is graded by the Python file beside
it, `chapters/<part>/<name with _ for ->_checks.py` (`checks_path`). That file defines
`QUESTIONS`, a dict from an exercise's label (the `:label:` of its `{exercise}`
directive, which its `{solution-start}` names too) to the question's spec; the format
is described in `tools/assignments.py`, which builds the otter assignments from it.

Checks are plain functions of the answers they judge, looked up by argument name, so
that further arguments (a student's variant parameters, say) can join the answers
without another format.

This module reads the specs and matches them with the notebook's gated solutions. It
imports no other tool but `tools.book` and `tools.nbtools`, so that
`tools.student_edition` (the exercise map) and `tools.assignments` can both use it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import textwrap
from pathlib import Path

import nbformat

from tools.book import ROOT, chapter_notebooks, solution_blocks
from tools.nbtools import _assigned_names, _parse

CHECKS_SUFFIX = "_checks.py"
# The verdicts a student gives a sheet's claim (the chapters' verdict tables use them).
VERDICTS = ("right", "right with a caveat", "wrong", "garbled", "unverifiable")
# What each of the book's verdicts accepts from a student: a garbled formula read
# literally is wrong, and a claim the book cannot verify may be taken on trust.
ACCEPTS = {
    "right": ("right", "right with a caveat"),
    "right with a caveat": ("right", "right with a caveat"),
    "wrong": ("wrong",),
    "garbled": ("garbled", "wrong"),
    "unverifiable": ("unverifiable", "right", "right with a caveat"),
}
KINDS = ("proof", "explanation", "figure", "computable")
COVERAGE = 0.75
# The keys a question's spec may have (tools/assignments.py describes them).
SPEC_KEYS = {
    "points", "answer", "describe", "public", "hidden", "wrong", "rubric", "manual",
    "kind", "verdicts", "builds", "builds_in_cells", "variant", "fixed",
}  # fmt: skip
# The keys of a `VARIANTS` entry, and the argument by which a hidden check gets the
# student's draw (reserved: never an answer name).
VARIANT_KEYS = {"draw", "cell", "names", "after", "describe"}
VARIANT_ARG = "variant"
_EXERCISE = re.compile(r"```+\{exercise\}[^\n]*\n:label:\s*(\S+)")


def checks_path(notebook: Path) -> Path:
    """The checks file of a chapter notebook: beside it, named after it."""
    notebook = Path(notebook)
    return notebook.with_name(notebook.stem.replace("-", "_") + CHECKS_SUFFIX)


def load_checks(notebook: Path) -> dict[str, dict] | None:
    """The `QUESTIONS` of a notebook's checks file; None if it has none."""
    found = _load(notebook)
    return None if found is None else found[0]


def load_variants(notebook: Path) -> dict[str, dict]:
    """The `VARIANTS` of a notebook's checks file (`{}` if it has none)."""
    found = _load(notebook)
    return {} if found is None else found[1]


def _load(notebook: Path) -> tuple[dict, dict] | None:
    path = checks_path(notebook)
    if not path.exists():
        return None
    name = "chapter_checks_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = getattr(module, "QUESTIONS", None)
    if not isinstance(found, dict):
        raise ValueError(f"{path.name}: expected a dict QUESTIONS, got {found!r}")
    for label, q in found.items():
        if extra := set(q) - SPEC_KEYS:
            raise ValueError(f"{path.name}, {label}: unknown keys {sorted(extra)}")
    variants = getattr(module, "VARIANTS", {})
    for key, v in variants.items():
        if set(v) != VARIANT_KEYS:
            expected = f"expected the keys {sorted(VARIANT_KEYS)}, got {sorted(v)}"
            raise ValueError(f"{path.name}, VARIANTS[{key!r}]: {expected}")
    return found, variants


def variant_problems(notebook: Path) -> list[str]:
    """What breaks the variant rules in a chapter's checks file (CONTRIBUTING.md):
    every auto-checked question has exactly one of `variant` (a key of `VARIANTS`)
    or `fixed`; each `after` names an exercise of the notebook; `variant` is no
    answer name; public checks never take it, hidden ones only with a `variant`."""
    specs, variants = load_checks(notebook) or {}, load_variants(notebook)
    cells = nbformat.read(notebook, as_version=4).cells
    labels = {
        m
        for c in cells
        if c.cell_type == "markdown"
        for m in _EXERCISE.findall(c.source)
    }
    bad = [
        f"VARIANTS[{k!r}]: after {v['after']!r}, no exercise of the notebook"
        for k, v in variants.items()
        if v["after"] not in labels
    ]
    for label, q in specs.items():
        if "answer" not in q or q.get("verdicts") or q.get("manual"):
            if "variant" in q or "fixed" in q:
                bad.append(f"{label}: not auto-checked, so neither variant nor fixed")
            continue
        if ("variant" in q) == ("fixed" in q):
            bad.append(f"{label}: exactly one of 'variant' or 'fixed'")
        if "variant" in q and q["variant"] not in variants:
            bad.append(f"{label}: variant {q['variant']!r} is no key of VARIANTS")
        if VARIANT_ARG in q["answer"]:
            bad.append(f"{label}: {VARIANT_ARG!r} is reserved, not an answer name")
        for f in q.get("public", []):
            if VARIANT_ARG in inspect.signature(f).parameters:
                bad.append(f"{label}: the public check {f.__name__} takes variant")
        for f in q.get("hidden", []):
            takes = VARIANT_ARG in inspect.signature(f).parameters
            if takes and "variant" not in q:
                bad.append(f"{label}: {f.__name__} takes variant, the question not")
    return bad


def is_annotated(notebook: Path) -> bool:
    """Whether a chapter has grading checks (a chapter without is no assignment)."""
    return checks_path(notebook).exists()


# --- Checks as source: what otter runs in the student's notebook


def check_source(function) -> str:
    """A check function's source, to stand alone in an otter test file.

    A check imports what it needs in its body and takes the notebook's names it
    reads as arguments (otter's exception-based tests look them up by name).
    """
    return textwrap.dedent(inspect.getsource(function)).strip() + "\n"


def mistake_cell(function) -> str:
    """A code cell that turns the solution's answer into a typical mistake.

    `function` takes notebook names (by argument name) and returns a dict of the
    answer names it changes; the cell defines it, calls it on the notebook's names
    and rebinds those names.
    """
    args = ", ".join(inspect.signature(function).parameters)
    return (
        check_source(function) + f"\n\nglobals().update({function.__name__}({args}))\n"
    )


def roster_key(salt: str, text) -> str:
    """How `variants.json` names a student: a slow salted hash (PBKDF2-SHA256, 200,000
    rounds, about 40 ms) of the id or email, composed (NFC), stripped and in lower
    case, as `grade` compares ids. Code that a notebook runs on Gradescope can read
    the zip: it holds no id or email, and trying every seven-digit student number
    against it takes days on one core (hours on many) rather than seconds."""
    import hashlib
    import unicodedata

    said = unicodedata.normalize("NFC", str(text or "").strip()).lower()
    return hashlib.pbkdf2_hmac("sha256", said.encode(), salt.encode(), 200_000).hex()


# How a hidden check taking `variant` finds the student's seed, in otter's test file:
# the judge (tools/grading.py) sets ATTNSIG_SEED in the file's globals; under Gradescope
# the student's id or email (submission_metadata.json) is looked up in variants.json,
# which `distribute` adds to the autograder zip (`roster_key`: salted hashes, no ids);
# a student it does not find fails the check, saying why (a roster whose ids are not
# Gradescope's would otherwise judge the class on the book's public numbers), and so
# does a group whose members have different seeds (one of them would be judged on a
# classmate's numbers); with no Gradescope files at all (`otter run`), the book's
# numbers, with a note that a failed check adds to its message.
SEED_SOURCE = (
    inspect.getsource(roster_key)
    + """
def _attnsig_seed():
    import json
    import sys

    if globals().get("ATTNSIG_SEED") is not None:
        return globals()["ATTNSIG_SEED"], ""
    book = "judged on the book's numbers (variant 0): "
    try:
        with open("/autograder/submission_metadata.json") as f:
            users = json.load(f)["users"]
        with open("/autograder/source/variants.json") as f:
            carried = json.load(f)
        salt, seeds = carried["salt"], carried["seeds"]
        keys = [roster_key(salt, u.get(k)) for u in users for k in ("sid", "email")]
    except Exception:
        note = book + "no roster seeds here (not Gradescope, or no variants.json)"
    else:
        found = {seeds[k] for k in keys if k in seeds}
        if len(found) == 1:
            return int(found.pop()), ""
        note = (
            "the roster has no seed for this student's Gradescope id or email: "
            "ask your instructor"
        )
        if found:  # a group whose members' numbers differ: whose did it answer?
            note = (
                "this submission's Gradescope ids and emails find different seeds in "
                "the roster (a group: give its members one variant; else a row's id "
                "or email is another student's): ask your instructor"
            )
        print("variant: " + note, file=sys.stderr)
        return None, note
    print("variant: " + note, file=sys.stderr)
    return 0, note
"""
)


def variant_check(function, draw) -> str:
    """A hidden check taking `variant`, as otter's test file holds it: a function of
    the answers alone, which draws the variant itself from the student's seed
    (`SEED_SOURCE`), so that otter never reads `variant` from the notebook."""
    params = [p for p in inspect.signature(function).parameters if p != VARIANT_ARG]
    name, doc = function.__name__, inspect.getdoc(function)
    inner = [check_source(draw), check_source(function), SEED_SOURCE.strip()]
    args = "".join(f"{p}, " for p in params)
    lines = [f"def {name}({', '.join(params)}):"]
    lines += [f"    {doc!r}"] if doc else []
    lines += [textwrap.indent(src, "    ") for src in inner]
    # A check that fails on the book's numbers in place of the student's says so.
    lines += [
        "    _seed, _note = _attnsig_seed()",
        "    if _seed is None:",
        "        raise AssertionError(_note)",
        "    try:",
        f"        return {name}({args}variant={draw.__name__}(_seed))",
        "    except AssertionError as _exc:",
        "        if not _note:",
        "            raise",
        "        raise AssertionError(f'{_exc} ({_note})'.lstrip()) from None",
    ]
    return "\n".join(lines) + "\n"


def blocked_names(builds: list[str]) -> list[str]:
    """A question's `builds` with each "module.*" spelled out: every name of the
    module's `__all__` (so that a function added to it is blocked there too)."""
    found = []
    for dotted in builds:
        if dotted.endswith(".*"):
            module = importlib.import_module(dotted[:-2])
            found += [f"{module.__name__}.{name}" for name in module.__all__]
        else:
            found.append(dotted)
    return found


def _spec(raw: dict, label: str, variants: dict | None = None) -> dict:
    """The question's spec with its checks as source text (as otter wants them)."""
    spec = dict(raw)
    if "builds" in spec:
        spec["builds"] = blocked_names(spec["builds"])
    for kind in ("public", "hidden"):
        if kind in spec:
            spec[kind] = [check_source(f) for f in spec[kind]]
    for i, f in enumerate(raw.get("hidden", [])):
        if VARIANT_ARG in inspect.signature(f).parameters:
            if raw.get("variant") not in (variants or {}):
                raise ValueError(f"{label}: {f.__name__} takes variant, but no draw")
            spec["hidden"][i] = variant_check(f, variants[raw["variant"]]["draw"])
    if "wrong" in spec:
        spec["wrong"] = {k: mistake_cell(f) for k, f in spec["wrong"].items()}
    if raw.get("verdicts") and {"public", "hidden", "wrong"} & set(raw):
        raise ValueError(f"{label}: a verdict question is checked by its table")
    return spec


def _answer_cell(nb, start: int, stop: int, names: list[str], label: str) -> int:
    """The solution cell that computes the answer: the last one binding an answer."""
    found = None
    for j in range(start, stop):
        tree = _parse(nb.cells[j].source) if nb.cells[j].cell_type == "code" else None
        if tree is not None and set(names) & _assigned_names(tree):
            found = j
    if found is None:
        raise ValueError(f"{label}: no solution cell binds any of {names}")
    return found


def questions(notebook: Path, nb=None) -> list[dict]:
    """Every exercise of a notebook with its solution block and grading spec.

    Returns dicts with keys `label`, `name` (otter question name), `exercise` (index of
    the exercise cell), `start`, `stop` (the solution block, stop exclusive), `spec`
    (None for an exercise without a question; public and hidden checks as source
    text, typical mistakes as code cells), `answer_cell` (index of the solution code
    cell that computes the answer, None for a question graded by hand) and `claims`
    (a verdict question's (claim, verdict) rows). `nb`: the notebook, if read already.
    """
    notebook = Path(notebook)
    if nb is None:
        nb = nbformat.read(notebook, as_version=4)
    specs, variants = load_checks(notebook) or {}, load_variants(notebook)
    exercises = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and (m := _EXERCISE.search(cell.source)):
            exercises[m.group(1)] = i
    found = []
    for start, stop, label in solution_blocks(nb):
        raw, spec, answer_cell, claims = specs.get(label), None, None, None
        if raw is not None:
            spec = _spec(raw, label, variants)
            if raw.get("verdicts"):
                answer_cell, claims = verdict_table(nb.cells[start:stop], label)
                answer_cell += start
                spec = verdict_spec(spec, claims)
            elif not raw.get("manual"):
                answer_cell = _answer_cell(nb, start, stop, raw["answer"], label)
        name = re.sub(r"\W", "_", label.removeprefix("ex-"))
        found.append(
            dict(
                label=label,
                name=name,
                exercise=exercises.get(label),
                start=start,
                stop=stop,
                spec=spec,
                answer_cell=answer_cell,
                claims=claims,
            )
        )
    unknown = sorted(set(specs) - {q["label"] for q in found})
    if unknown:
        raise ValueError(
            f"{checks_path(notebook).name}: questions for {unknown}, which "
            f"{notebook.name} does not solve"
        )
    return found


def coverage(qs: list[dict]) -> tuple[int, int]:
    """(auto-checked, with a computable answer) among a chapter's questions."""
    auto = sum(q["answer_cell"] is not None for q in qs)
    by_hand = [q for q in qs if q["answer_cell"] is None and q["spec"]]
    return auto, auto + sum(q["spec"].get("kind") == "computable" for q in by_hand)


def how_graded(root: Path = ROOT) -> dict[str, str]:
    """How each exercise is graded in its chapter's assignment, by label."""
    found = {}
    for path in chapter_notebooks(root):
        for q in questions(path):
            spec = q["spec"] or {}
            if q["claims"]:
                written = " + rubric" if spec.get("rubric") else ""
                found[q["label"]] = f"checks per claim{written}"
            elif q["answer_cell"] is not None:
                found[q["label"]] = "checks + rubric" if "rubric" in spec else "checks"
                if "fixed" in spec:  # no variant: the full edition's answer scores
                    found[q["label"]] += " (the book's code passes)"
            elif spec.get("manual"):
                found[q["label"]] = f"rubric ({spec.get('kind', 'proof')})"
    return found


def rubric_points(items: list[str]) -> float:
    """The points of a rubric: each item ends with its points, "... (0.5)"."""
    found = [re.search(r"\((\d+(?:\.\d+)?)\)$", item.strip()) for item in items]
    missing = [item for item, m in zip(items, found, strict=True) if m is None]
    if missing:
        raise ValueError(f"a rubric item should end with its points: {missing[0]!r}")
    return sum(float(m.group(1)) for m in found)


# --- Verdict tables


def _row(line: str) -> list[str]:
    """The cells of a Markdown table row (a `\\|` inside a cell is no separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def verdict_of(text: str) -> str:
    """The verdict a table cell starts with ("right with a caveat: ..." -> that)."""
    low = text.lower().lstrip("*_ ")
    for verdict in sorted(VERDICTS, key=len, reverse=True):
        if re.match(re.escape(verdict) + r"\b", low):
            return verdict
    raise ValueError(
        f"a verdict cell should start with one of {VERDICTS}, got {text[:60]!r}"
    )


def verdict_table(cells, label: str) -> tuple[int, list[tuple[str, str]]]:
    """The index (within `cells`) of the verdict table and its (claim, verdict) rows."""
    for k, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        rows = [line for line in cell.source.splitlines() if line.startswith("|")]
        if len(rows) < 3:
            continue
        header = [h.lower() for h in _row(rows[0])]
        where = [i for i, h in enumerate(header) if "verdict" in h]
        if not where or where[0] == 0:
            continue
        v = where[0]
        claims = []
        for line in rows[2:]:
            row = _row(line)
            if len(row) != len(header):
                raise ValueError(
                    f"{label}: a row of the verdict table has {len(row)} cells, the "
                    f"header {len(header)}: {line[:80]!r}"
                )
            claim = row[v - 1]
            # a part or question column first; a column numbering the claims is not
            if v >= 2 and row[0] and row[0] != str(len(claims) + 1):
                claim = f"{row[0]}: {claim}"
            claims.append((claim, verdict_of(row[v])))
        return k, claims
    raise ValueError(f"{label}: no table with a verdict column in its solution")


# A verdict's one-letter code in a hidden check (the key stays short in the test file).
CODES = {"right": "r", "right with a caveat": "c", "wrong": "w", "garbled": "g",
         "unverifiable": "u"}  # fmt: skip
NUANCED = ("right", "right with a caveat")
# Claims a verdict question must score beyond its constant baseline (`claim_accepts`).
MIN_JUDGED = 3


def claim_accepts(key: dict[int, str]) -> dict[int, tuple[str, ...]]:
    """Per claim, the verdicts judged as the book judges it (`ACCEPTS`).

    In a table where fewer than `MIN_JUDGED` claims are flagged, "right" and "right with
    a caveat" accepting each other would leave almost nothing beyond what one verdict
    for every claim judges: the judgement asked there is which claims need a caveat, so
    each of the two accepts only itself.
    """
    accepts = {i: ACCEPTS[v] for i, v in key.items()}
    if len(key) - constant_baseline(accepts) < MIN_JUDGED:
        accepts = {i: (v,) if v in NUANCED else ACCEPTS[v] for i, v in key.items()}
    return accepts


def constant_baseline(accepts: dict[int, tuple[str, ...]]) -> int:
    """The most claims one verdict given to every claim judges as the book does."""
    return max(sum(v in a for a in accepts.values()) for v in VERDICTS)


def verdict_points(verdicts: dict, key: dict[int, str], points: float) -> float:
    """A verdict question's score: only the claims judged beyond the constant baseline.

    With n claims, b the best score of one verdict for every claim (`constant_baseline`:
    "right" everywhere, or the hedge "right with a caveat" everywhere, or ...) and c the
    claims judged as the book does, the score is points * max(0, c - b) / (n - b). One
    verdict for every claim, or any mix of verdicts that accept each other, scores 0.
    The hidden checks of `verdict_spec` give exactly this in otter's format.
    """
    accepts = claim_accepts(key)
    b, n = constant_baseline(accepts), len(accepts)
    said = {
        k: " ".join(str(v).split()).lower() for k, v in verdicts.items()
    }  # "Right "
    judged = sum(said.get(i) in a for i, a in accepts.items())
    return points * max(0, judged - b) / (n - b)


def verdict_spec(spec: dict, claims: list[tuple[str, str]]) -> dict:
    """A verdict exercise's full question: stub, checks and typical mistakes.

    Scored by `verdict_points`: otter's test cases pass or fail, so the hidden checks
    are n - b thresholds, the j-th passed when the claims judged as the book does number
    at least b + j, each worth points / (n - b); the public check is worth nothing.
    """
    n = len(claims)
    key = {i + 1: verdict for i, (_, verdict) in enumerate(claims)}
    accepts = claim_accepts(key)
    b = constant_baseline(accepts)
    if b == n:
        raise ValueError(
            "a verdict table that one verdict judges entirely rewards no judgement: "
            f"every claim is {key[1]!r}"
        )
    public = (
        "def test_form(verdicts):\n"
        f"    allowed = {VERDICTS!r}\n"
        "    assert isinstance(verdicts, dict), "
        "'verdicts: a dict, claim number -> verdict'\n"
        f"    assert sorted(verdicts) == list(range(1, {n + 1})), "
        f"'one verdict for each claim, numbered 1 to {n}'\n"
        "    said = {k: ' '.join(str(v).split()).lower()\n"
        "            for k, v in verdicts.items()}\n"
        "    bad = sorted(k for k, v in said.items() if v not in allowed)\n"
        "    assert not bad, f'answer one of {allowed}: claims {bad}'"
    )
    codes = tuple("".join(CODES[v] for v in a) for a in accepts.values())
    hidden = [
        f"def test_judgement_{j}(verdicts):\n"
        f"    code = {CODES!r}\n"
        f"    accepts = {codes!r}\n"
        "    judged = sum(\n"
        "        code.get(' '.join(str(verdicts.get(i + 1)).split()).lower(), '-')\n"
        "        in a\n"
        "        for i, a in enumerate(accepts)\n"
        "    )\n"
        f"    assert judged >= {b + j}, (\n"
        f"        f'{{judged}} of {n} claims judged as the book does; '\n"
        f"        'one verdict for every claim would judge {b}, '\n"
        "        'and only the claims beyond those score'\n"
        "    )"
        for j in range(1, n - b + 1)
    ]
    # One verdict everywhere scores 0 (the baseline); the hedge, "right with a caveat"
    # everywhere, is judged as "right" everywhere is, or worse.
    wrong = {
        "trusting the sheet": "verdicts = {k: 'right' for k in verdicts}",
        "rejecting every claim": "verdicts = {k: 'wrong' for k in verdicts}",
    }
    describe = (
        f"verdicts: a dict, claim number (1 to {n}: the claims to judge) -> one of\n"
        + ", ".join(f'"{v}"' for v in VERDICTS)
    )
    full = dict(spec)
    full.update(
        answer=["verdicts"], describe=describe, public=[public], hidden=hidden,
        wrong=wrong, key=key, partial=True, baseline=b,
    )  # fmt: skip
    return full
