"""Build it yourself: the package's functions blocked while a question asks for them.

A course question that asks the student to build what the package provides names those
functions (its `builds`, ``tools/assignments.py``). While its checks call a function
answer, and while the answer cells of a value answer run, each of them raises
``NotImplementedError("<name> is not available for question <q>: build it yourself")``.

Two graders use this module: the course's local ``grade`` (``tools/grading.py``), which
switches the blocks cell by cell in its own runner, and otter-grader on Gradescope (or
``otter run``), through the plugin :class:`Blocking`, which writes the same switches
into the submission as cells before otter runs it, and checks every question once more
at the end (``grade`` too judges the notebook as it stands at the end). Both run in the
student's kernel, so the blocks stop a call of the package, by any route, not a
student who sets out to undo them.

It lives in the package, privately, because the autograder zip installs the package
and nothing else of the course's; it is not part of the book's API.
"""

from __future__ import annotations

import copy
import re

try:
    from otter.plugins import AbstractOtterPlugin
except ImportError:  # the package without otter-grader: only the plugin needs it
    AbstractOtterPlugin = object

#: (question, dotted name) of each blocked call made, in order
CALLS: list[tuple[str, str]] = []
#: True in a kernel whose blocks are switched by :func:`with_blocking`'s cells
ACTIVE = False

_CHECK_CELL = re.compile(r'\s*grader\.check\("(\w+)"\)')
_GRADER = re.compile(r"\s*grader\.")


def blocking(names, question):
    """Block the package functions `names` for `question`; return the undoing.

    `names` are dotted ("attnsig.bounds.copy_gap", or a class's method or
    classmethod, "attnsig.attention.MultiHeadAttention.__call__"). Each is replaced by
    a stub that raises "<name> is not available for question <question>: build it
    yourself"; the function returned puts them back.

    The function object keeps its identity and gets the stub's code, so that every
    reference to it (a module attribute, an alias or re-export, a name the notebook
    imported, a default argument, a partial, a bound method) is blocked; a call from
    inside `attnsig` (another package function using it) still reaches the original.
    Each blocked call is recorded in `CALLS`.
    """
    import pkgutil
    import types

    undo = []
    for dotted in names:
        message = (
            f"{dotted} is not available for question {question}: build it yourself"
        )
        try:  # the longest importable module, then attributes
            function = pkgutil.resolve_name(dotted)
        except (ImportError, AttributeError):
            continue
        if hasattr(function, "py_func"):  # a compiled numba kernel: no code to swap
            undo.append(_swap_attribute(dotted, function, message, question))
            continue
        function = getattr(function, "__func__", function)  # a classmethod's
        code = getattr(function, "__code__", None)
        if code is None or code.co_filename.startswith("<blocked "):  # or blocked
            continue
        original = types.FunctionType(
            code, function.__globals__, function.__name__, function.__defaults__,
            function.__closure__,
        )  # fmt: skip
        original.__kwdefaults__ = function.__kwdefaults__
        registry = function.__globals__.setdefault("__attnsig_originals__", {})
        registry[dotted] = original
        source = (
            "def stub(*args, **kwargs):\n"
            "    import sys\n"
            "    caller = sys._getframe(1).f_globals.get('__name__') or ''\n"
            "    package = caller.split('.')[0] == 'attnsig'\n"
            "    if package and caller != 'attnsig._grading':  # not its wrappers\n"
            f"        return __attnsig_originals__[{dotted!r}](*args, **kwargs)\n"
            "    sys.modules['attnsig._grading'].CALLS.append(\n"
            f"        ({question!r}, {dotted!r}))\n"
            f"    raise NotImplementedError({message!r})\n"
        )
        made = {}
        exec(compile(source, f"<blocked {dotted}>", "exec"), made)
        try:
            function.__code__ = made["stub"].__code__
        except ValueError:  # a closure: the stub cannot take its place
            continue
        undo.append(lambda f=function, c=code: setattr(f, "__code__", c))

    def restore():
        for undo_one in reversed(undo):
            undo_one()

    return restore


def _swap_attribute(dotted, kernel, message, question):
    """Block a compiled kernel where its module holds it; return the undoing.

    A name the notebook bound to the kernel before the block still reaches it.
    """
    import pkgutil
    import sys

    module, _, name = dotted.rpartition(".")
    owner = pkgutil.resolve_name(module)

    def stub(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__") or ""
        if caller.split(".")[0] == "attnsig" and caller != __name__:
            return kernel(*args, **kwargs)
        CALLS.append((question, dotted))
        raise NotImplementedError(message)

    setattr(owner, name, stub)
    return lambda: setattr(owner, name, kernel)


def answer_cells(cells, questions, statements=None) -> dict[int, str]:
    """The code cells of a notebook that answer a question of `questions` (names).

    Those between its statement (or an earlier check cell) and its `grader.check`
    cell, by index, with the question's name. For a question whose check cell is gone
    (Colab lets a student delete it), `statements` may give a line of its statement:
    then the code cells after that statement up to the next cell a student cannot edit.
    """
    found, checked = {}, set()
    for i, cell in enumerate(cells):
        m = _CHECK_CELL.match(cell.source)
        if cell.cell_type != "code" or not m or m.group(1) not in questions:
            continue
        checked.add(m.group(1))
        j = i - 1
        while j >= 0 and cells[j].metadata.get("editable") is not False:
            if cells[j].cell_type == "code":
                if re.match(r"\s*grader\.", cells[j].source):
                    break
                found[j] = m.group(1)
            j -= 1
    for question, line in (statements or {}).items():
        if question in checked or question not in questions or not line:
            continue
        starts = [i for i, c in enumerate(cells) if c.cell_type == "markdown"]
        starts = [i for i in starts if line in cells[i].source]
        for j in range(starts[0] + 1, len(cells)) if starts else ():
            if cells[j].metadata.get("editable") is False or _GRADER.match(
                cells[j].source
            ):
                break
            if cells[j].cell_type == "code":
                found[j] = question
    return found


def guard_checks(questions: dict, answers: dict | None = None) -> None:
    """Make otter's checker run a question's checks under its blocks.

    Wherever a check is called: its check cell, a copy of it, the checks otter runs
    at the end. The last run of a question's checks is its score in otter; a check run
    without its blocks could score a function answer that calls the package. A
    function answer (`answers`: question -> answer names) that calls `exit` fails its
    checks, as in `grade`, rather than stopping otter's run.
    """
    import os
    import sys

    from otter.execute import Checker

    check = Checker.check.__func__

    def guarded(cls, nb_or_test_path, *args, **kwargs):
        env = args[2] if len(args) > 2 else kwargs.get("global_env")
        if env is None:  # the caller's, as otter's
            env = kwargs["global_env"] = sys._getframe(1).f_globals
        name = kwargs.get("test_name") or (args[1:2] or [None])[0]
        name = name or os.path.splitext(os.path.basename(nb_or_test_path))[0]
        spec = questions.get(name)
        restore = blocking(spec["builds"], name) if spec else (lambda: None)
        kept = {
            a: env[a] for a in (answers or {}).get(name, ()) if _function(env.get(a))
        }
        tamed = {a: _tamed(f) for a, f in kept.items()}
        env.update(tamed)
        here = os.getcwd()  # a function answer may change directory: otter's may not
        try:
            return check(cls, nb_or_test_path, *args, **kwargs)
        finally:
            restore()
            os.chdir(here)
            env.update({a: f for a, f in kept.items() if env.get(a) is tamed[a]})

    Checker.check = classmethod(guarded)


def _function(value) -> bool:
    return callable(value) and not isinstance(value, type)


def _tamed(function):
    """`function`, but `exit` or an interrupt in it raises an ordinary error."""
    import functools

    @functools.wraps(function)
    def tamed(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception:
            raise
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: otter stops
            said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise RuntimeError(f"the function raised {said}") from None

    return tamed


def _nothing() -> None:
    pass


# The blocks' state lives here, not in the notebook's namespace: a student's `%reset`
# empties that, and must not switch the blocks off or leave them on.
_restore = _nothing  # lifts the blocks `switch` put in place
_HOME = None  # where the notebook started: otter's tests are found from there


def switch(names, question) -> None:
    """Lift the blocks in place, then block `names` (dotted) for `question`."""
    global _restore
    undo, _restore = _restore, _nothing
    undo()
    _restore = blocking(names, question)


def bind_exit() -> None:
    """Make `exit` and `quit` fail a cell or a question instead of stopping the kernel.

    IPython's `exit` asks the kernel to shut down, and the notebook would be lost;
    `sys.exit` raises `SystemExit`, an error of one cell (or of one function answer's
    checks). Bound again before every cell, since `%reset` puts IPython's back.
    """
    from IPython import get_ipython

    events = get_ipython().events
    _bind_exit()
    if _bind_exit not in events.callbacks["pre_run_cell"]:
        events.register("pre_run_cell", _bind_exit)


def _bind_exit(*_info) -> None:
    import sys

    from IPython import get_ipython

    shell = get_ipython()
    for name in ("exit", "quit"):
        if shell.user_ns.get(name) is shell.exiter:  # not a student's own `exit`
            shell.user_ns[name] = sys.exit


def set_up(questions: dict, answers: dict) -> None:
    """The first cell of a graded run on otter: see :func:`with_blocking`."""
    import os

    global ACTIVE, _HOME
    _HOME = os.getcwd()
    bind_exit()
    ACTIVE = True
    guard_checks(questions, answers)


def check_all(questions) -> None:
    """Check each of `questions` again, from where the notebook started.

    The last run of a question's checks scores it in otter: this judges the notebook
    as it stands at the end, as `grade` does, with each question's blocks in place
    (`guard_checks`).
    """
    import os

    import otter
    from IPython import get_ipython

    os.chdir(_HOME)  # a notebook that changed directory: back
    env = get_ipython().user_ns
    for question in questions:
        try:
            otter.Notebook().check(question, env)
        except Exception as exc:  # its check cell's result stands
            print(f"{question} not checked again: {exc}")


_CELL = '__import__("attnsig._grading", fromlist=["switch"]).{call}\n'


def with_blocking(nb, questions: dict, checks: dict):
    """The notebook `nb` with cells that block as the local grader does.

    `questions` maps a question's name to ``{"builds": [dotted, ...], "in_cells":
    bool, "statement": a line of its statement}``. Its functions are blocked while its
    checks run (`guard_checks`: they call its function answers) and, with `in_cells`,
    while its answer cells run (`answer_cells`; a function answer's cells may compare
    it with the package). The questions `checks` (all of the notebook's, with their
    answer names) are checked once more at the end.
    """
    from nbformat.v4 import new_code_cell as code

    nb = copy.deepcopy(nb)

    def switch(question):
        names = questions[question]["builds"] if question else []
        return code(_CELL.format(call=f"switch({names!r}, {question or ''!r})"))

    in_cells = {q for q, spec in questions.items() if spec.get("in_cells")}
    said = {q: questions[q].get("statement") for q in in_cells}
    region = answer_cells(nb.cells, in_cells, said)
    first = code(_CELL.format(call=f"set_up({questions!r}, {checks!r})"))
    active, cells = None, [first]
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code" and c.source.strip() and region.get(i) != active:
            active = region.get(i)
            cells.append(switch(active))
        cells.append(c)
    cells += [switch(None)] if active else []
    nb.cells = [*cells, code(_CELL.format(call=f"check_all({list(checks)!r})"))]
    return nb


class Blocking(AbstractOtterPlugin):
    """otter-grader's plugin for the questions' `builds`.

    Before otter runs a submission, :func:`with_blocking` adds the cells that switch
    the blocks and guard otter's checker. Its configuration (the autograder zip's
    ``otter_config.json``) is ``{"questions": {name: {"builds": [...], "in_cells":
    bool, "statement": str}}, "checks": {every question: its answer names}}``.
    """

    def before_execution(self, submission):
        config = self.plugin_config
        return with_blocking(submission, config["questions"], config.get("checks", {}))
