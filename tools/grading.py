"""Grading a class: one table, per-student feedback, rubric pages and final grades.

    python -m tools.assignments grade CHAPTER DIR [--roster R.csv] [--timeout S] ...
    python -m tools.assignments rubric CHAPTER DIR     one page per rubric question
    python -m tools.assignments merge CHAPTER DIR --roster R.csv [--rubric S.csv]

`grade` writes `DIR/graded/`: `scores.csv` (one row per notebook of DIR, always),
`feedback/<name>.md` (what the student sees), `log/<name>.log` (the TA's full log) and a
cache, so that a second run grades only new or changed notebooks (and those that timed
out, or whose kernel died: the cache keeps only what the notebook alone decides).

How one submission is graded (`judge`, run in a fresh interpreter per submission):

1. The notebook is parsed (a broken upload is `invalid`; a detail of the schema that
   Jupyter only warns about is `repaired`) and its code cells, without the
   `grader.check` calls, run in a kernel inside a sandbox (`sandbox`): a scratch
   directory with no check in it, no network, every other file system read-only, the
   checks, the submissions and `/tmp` (but `kept_in_tmp`) hidden, own process tree.
2. The checks (the autograder zip's `tests/*.py`, otter's format) run in the judge.
   Each name a check asks for is made plain data in the kernel (`plain`: no symbols)
   and read back allowing only builtins, Fraction and NumPy (`_Answers`); a function
   answer stays in the sandbox and each call a check makes runs there, likewise.
   Nothing the notebook does can change the checks, NumPy or the judge.
   A check taking `variant` (a question with per-student numbers) gets the draw of the
   student's seed, which the judge sets (`with_seed`) from the roster: a submission
   belongs to the roster id its file name starts with (`student_of`; none: the row
   says `unknown-student`), and without a roster every one gets seed 0, the book's.
3. A hint per failed check, without expected values: what the answer raised (then
   alone), else the check's `failure_message` (its docstring) and the assertion's
   message if the check file writes it out, else that message, or the check's name.

The whole submission has one deadline (`--timeout`, default `TIMEOUT`); past it the
sandbox's process tree is killed and the row says `timeout`, with the cell it was in.
Nothing is retried. The kernels that "stopped answering" under the former `otter run`
loop: parallel kernels on TCP ports, which jupyter_client picks by binding port 0 and
letting go, so two kernels started together can be handed the same port; and widget
cells waiting for a front end's comm reply (jupyter/nbclient#312). Here each kernel
talks over Unix sockets in its own scratch directory, and any other wait ends at the
deadline.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import codecs
import collections
import csv
import functools
import hashlib
import html
import inspect
import io
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
import unicodedata
import warnings
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from attnsig._grading import answer_cells, blocking

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "assignments"
TIMEOUT = 120.0
TAIL = 65536  # bytes of a submission's raw output kept for the log
DISTRIBUTED = "distributed.txt"  # in OUT: the zips `distribute` wrote, a path a line
STATUSES = ("ok", "timeout", "error", "invalid", "unknown-student")
NO_ROSTER = "no roster: graded on the book's numbers (seed 0)"
NO_SEED = "no seed in the roster: judged on the book's numbers"
NOT_ANSWERED = "not answered yet"
FULL = "the notebook filled its scratch space (1 GB): its answers could not be read"
BLOCKED = ": build it yourself"  # ends the message of a blocked call (`blocking`)
# What a public check says when it passes: it tests the form, not the answer.
FORM_OK = "form OK - the score comes from hidden checks after submission"
# Version of the grading procedure: part of the cache key, with the judge's own
# source (`JUDGE_SOURCES`), so a fix to the judge or its runner regrades by itself.
VERSION = "1"
# The judge, its sandbox and kernel runner (all in this file), and what it imports.
JUDGE_SOURCES = (Path(__file__).resolve(), ROOT / "tools" / "nbtools.py")
# The statuses the notebook alone decides, kept in the cache; a `timeout` or `error`
# (the machine's load, the --timeout given) is graded again on the next run.
KEPT = ("ok", "invalid")
_GRADER_CALL = re.compile(r"^\s*(grader\.(check|check_all|export)\(.*\)\s*)?(#.*)?$")

# --- The sandbox


# New user (root inside), mount, network and PID namespaces; the tree dies with us.
UNSHARE = ["unshare", "-rmnp", "--fork", "--kill-child", "--mount-proc"]


@functools.cache
def can_sandbox() -> bool:
    """Whether `unshare` gives us user, mount, network and PID namespaces here."""
    if not shutil.which("unshare") or not shutil.which("setpriv"):
        return False
    return subprocess.run([*UNSHARE, "true"], capture_output=True).returncode == 0


# Run as namespace root, inside `unshare`: every mount read-only, then a fresh /tmp and
# /dev/shm (both of bounded size), a copy of the scratch directory (the current one) at
# $ATTNSIG_WORK in that /tmp, so whatever the notebook writes stays bounded, and the
# hidden paths ($1, ...) covered by empty file systems (a file by /dev/null). The
# folders of /tmp that hold the Python, the book or attnsig ($ATTNSIG_KEEP: a clone in
# /tmp) are opened before /tmp is covered and bound back read-only, hidden directories
# included.
# Each step is a command of its own, so that `set -e` stops the sandbox (the kernel
# "died") rather than run the notebook with a step left out. Python starts without
# any capability (`setpriv`): namespace root could otherwise remount a file system
# writable or unmount a cover.
_SANDBOX = """
set -e
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
    mount -o remount,bind,ro "$m" 2>/dev/null || true
done
for d in "$@"; do
    if [ -d "$d" ]; then mount -t tmpfs -o ro,size=4k none "$d"
    else mount --bind /dev/null "$d"; fi
done
fd=3
for k in $ATTNSIG_KEEP; do eval "exec $fd<\\"\\$k\\""; fd=$((fd + 1)); done
mount -t tmpfs -o size=1g none /tmp
fd=3
for k in $ATTNSIG_KEEP; do
    mkdir -p "$k"
    mount -c --rbind "/proc/self/fd/$fd" "$k"
    mount -o remount,bind,ro "$k"
    eval "exec $fd<&-"; fd=$((fd + 1))
done
mount -t tmpfs -o size=64m none /dev/shm 2>/dev/null || true
mkdir "$ATTNSIG_WORK"
cp -R ./. "$ATTNSIG_WORK"
cd "$ATTNSIG_WORK"
exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs \\
    "$ATTNSIG_PYTHON" -c "$ATTNSIG_RUNNER"
"""

# The sandboxed side: run the notebook's code cells, then answer the judge's requests
# (one JSON line each on stdin: the value of a name, or a call of a function answer)
# with the kernel's pickled reply, base64-encoded, one line on stdout. The `[grading]`
# marks go to stderr; the raw output of the kernel (which inherits file descriptors 1
# and 2) and of this runner goes into a pipe, of which only the last TAIL bytes are
# kept and passed on: a cell writing to them without end fills neither disk nor memory.
# It is passed on as one `[grading] raw` line (JSON), apart from the marks (`spool`).
_RUNNER = r"""
import atexit, json, os, sys, base64, threading, time, nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
reply_to = os.fdopen(os.dup(1), "w")
marks = os.fdopen(os.dup(2), "w")
TAIL = 65536  # as grading.TAIL
raw, into = os.pipe()
os.dup2(into, 1), os.dup2(into, 2), os.close(into)
tail = bytearray()

def drain():
    while data := os.read(raw, 1 << 16):
        tail.extend(data)
        del tail[:-TAIL]

def pass_on():  # the raw output's tail, once, to the judge's log
    sys.stdout.flush(), sys.stderr.flush()
    time.sleep(0.2)  # what a dying kernel wrote last
    text = bytes(tail).decode(errors="replace")
    tail.clear()
    marks.write("[grading] raw " + json.dumps(text) + "\n"), marks.flush()

threading.Thread(target=drain, daemon=True).start()
atexit.register(pass_on)  # a traceback of this runner

class Client(NotebookClient):
    def output(self, outs, msg, display_id, cell_index):  # keep errors only
        if msg["msg_type"] == "error":
            return super().output(outs, msg, display_id, cell_index)

def send(**message):
    reply_to.write(json.dumps(message) + "\n")
    reply_to.flush()

def full():  # the scratch space (the sandbox's /tmp) filled: no reply can be written
    st = os.statvfs(".")
    return st.f_bavail * st.f_frsize < 2**20 or st.f_favail == 0

nb = nbformat.read("submission.ipynb", as_version=4)
# Unix sockets, not TCP: the sandbox has no network, not even a loopback.
ipc = os.path.abspath("kernel")
km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=ipc)
client = Client(nb, km=km, timeout=None, allow_errors=True,
                resources={"metadata": {"path": os.getcwd()}})
ASK = '''
def __attnsig_reply(op, name, payload, builds=(), question=""):
    import base64, pickle
    try:
        if name not in globals():
            r = ("missing",)
        else:
            v = globals()[name]
            if op == "call":
                a, k = pickle.loads(base64.b64decode(payload))
                restore = __attnsig_blocking(builds, question)
                try:
                    v = v(*a, **k)
                finally:
                    restore()
            if op == "get" and callable(v) and not isinstance(v, type):
                r = ("callable",)
            else:
                try:
                    r = ("value", __attnsig_plain(v))
                    pickle.dumps(r)
                except Exception as e:
                    r = ("unreadable", f"{type(e).__name__}: {e}"[:300])
        data = pickle.dumps(r)
    except BaseException as e:
        said = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        data = pickle.dumps(("error", said[:300]))
    with open(_attnsig_reply_path, "wb") as f:
        f.write(data)
'''
with open("builds.json") as f:
    regions = {int(k): (tuple(v[0]), v[1]) for k, v in json.load(f).items()}
# The blocks' state lives in the module, where a student's %reset cannot reach it;
# IPython's exit and quit stop the kernel: sys.exit's SystemExit fails one cell or one
# question instead (as otter's plugin has it).
GRADING = "__import__('attnsig._grading', fromlist=['switch'])"
BLOCK = f"__attnsig_blocking = {GRADING}.blocking\n{GRADING}.bind_exit()\n"
t0 = time.monotonic()
with client.setup_kernel():
    errors, n = [], len(nb.cells)
    active, k = None, 0
    codes = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    if nb.cells:  # nbclient stores an executed cell at its index: the first put back
        first = nb.cells[0]
        client.execute_cell(nbformat.v4.new_code_cell(BLOCK), 0)
        nb.cells[0] = first
    try:
        for k, i in enumerate(codes, 1):  # code cell k, as a student counts them
            cell = nb.cells[i]
            if not cell.source.strip():
                continue
            print(f"[grading] code cell {k} of {len(codes)} at "
                  f"{time.monotonic() - t0:.1f} s", file=marks, flush=True)
            if regions.get(i) != active:  # a question's answer cells: builds blocked
                active = regions.get(i)
                names, question = active or ((), "")
                switch = f"{GRADING}.switch({list(names)!r}, {question!r})"
                client.execute_cell(nbformat.v4.new_code_cell(switch), i)
            client.execute_cell(cell, i)
            for out in cell.outputs:
                if out.output_type == "error":
                    errors.append(f"code cell {k}: {out.ename}: {out.evalue}"[:300])
            cell.outputs = []
    except Exception as exc:
        pass_on()
        send(event="dead", cell=k, error=f"{type(exc).__name__}: {exc}"[:300],
             full=full())
        raise SystemExit(1)
    pass_on()
    send(event="done", errors=errors, full=full())
    reply = os.path.join(os.getcwd(), ".reply")
    # back where the notebook started: it may have left for a folder since deleted
    home = f"__import__('os').chdir({os.getcwd()!r})\n"
    ask = nbformat.v4.new_code_cell(
        home + f"_attnsig_reply_path = {reply!r}\n" + os.environ["ATTNSIG_PLAIN"] + ASK
        + f"\n{GRADING}.switch([], '')\n" + BLOCK
    )  # the last answer cells' blocks lifted, the blocking function defined afresh
    nb.cells += [ask, ask]  # nbclient stores each executed cell in the notebook
    client.execute_cell(ask, n)
    for line in sys.stdin:
        op, name, payload, *blocked = json.loads(line)
        cell = nbformat.v4.new_code_cell(
            home + f"__attnsig_reply({op!r}, {name!r}, {payload!r}, *{blocked!r})")
        client.execute_cell(cell, n + 1)
        try:
            with open(reply, "rb") as f:
                data = f.read()
            os.remove(reply)
        except OSError:
            data = b""
        send(reply=base64.b64encode(data).decode())
"""


def hidden_dirs(*extra: Path) -> list[str]:
    """What a submission must not read: the chapters (solutions), the built assignments
    (checks), the repository's history and tests, the grading folders and the roster;
    none inside another (a covered folder's inside cannot be covered again)."""
    roots = {ROOT}
    try:
        import attnsig

        roots.add(Path(attnsig.__file__).resolve().parents[2])
    except ImportError:
        pass
    found = [r / d for r in roots for d in ("chapters", "_build", ".git", "tests")]
    paths = sorted({str(p.resolve()) for p in [*found, *extra] if p.exists()})
    return [p for p in paths if not any(p.startswith(q + os.sep) for q in paths)]


# What the notebook's environment keeps of the instructor's: where Python, its packages
# and the locale are, nothing else. A notebook can read its environment and raise it
# in an error message, which reaches the student's own feedback: tokens, keys and
# paths of the instructor's shell must not be there to read.
KEPT_ENV = re.compile(
    r"PATH|PYTHON\w*|VIRTUAL_ENV|CONDA_PREFIX|CONDA_DEFAULT_ENV|LANG|LANGUAGE|LC_\w+"
    r"|TZ|TERM|OPENBLAS_CORETYPE|JUPYTER_PATH|JUPYTER_DATA_DIR|JUPYTER_CONFIG_DIR"
)


def sandbox_env(scratch: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if KEPT_ENV.fullmatch(k)}
    for key in ("HOME", "TMPDIR", "IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR"):
        env[key] = scratch
    # numba would compile afresh in every sandbox (its cache is out of reach, and a
    # shared one could be poisoned): attnsig's NumPy route gives the same numbers.
    env.update(MPLBACKEND="Agg", ATTNSIG_DISABLE_NUMBA="1", JUPYTER_PLATFORM_DIRS="1")
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.update(ATTNSIG_PYTHON=sys.executable, ATTNSIG_RUNNER=_RUNNER, ATTNSIG_WORK=WORK)
    source = inspect.getsource(plain)
    env["ATTNSIG_PLAIN"] = source.replace("plain(", "__attnsig_plain(")
    env["ATTNSIG_KEEP"] = " ".join(kept_in_tmp())
    return env


WORK = "/tmp/.attnsig-work"  # the scratch directory inside the sandbox


def kept_in_tmp() -> list[str]:
    """The top folders of /tmp that hold the Python, the book or attnsig: the sandbox
    covers /tmp, and a clone or venv there must stay visible (read-only)."""
    import attnsig

    tmp = Path("/tmp").resolve()
    found = set()
    for p in (sys.prefix, sys.base_prefix, sys.executable, ROOT, attnsig.__file__):
        parts = Path(p).resolve().parts
        if parts[: len(tmp.parts)] == tmp.parts and len(parts) > len(tmp.parts):
            found.add(str(tmp / parts[len(tmp.parts)]))
    return sorted(found)[:4]  # file descriptors 3 to 6


def start_runner(scratch: Path, hide: list[str]) -> subprocess.Popen:
    """The notebook in `scratch` running in the sandbox (or plainly, if none)."""
    command = [sys.executable, "-c", _RUNNER]
    if inside := can_sandbox():
        command = [*UNSHARE, "sh", "-c", _SANDBOX, "sandbox", *hide]
    env, pipe = sandbox_env(WORK if inside else str(scratch)), subprocess.PIPE
    return subprocess.Popen(
        command, cwd=scratch, env=env, stdin=pipe, stdout=pipe, text=True
    )


# --- Reading the answers back: data only


class _Answers(pickle.Unpickler):
    """Unpickles plain data only (what `plain` makes): builtins, fractions, NumPy
    arrays and scalars. No other class: a pickle may call any class it names, and
    SymPy's classes evaluate a string argument as Python code (in the judge)."""

    ALLOWED = (
        "fractions.Fraction builtins.complex builtins.set builtins.frozenset "
        "builtins.slice builtins.range builtins.Ellipsis "
        "numpy.ndarray numpy.dtype "
        "numpy.core.multiarray._reconstruct numpy.core.multiarray.scalar "
        "numpy._core.multiarray._reconstruct numpy._core.multiarray.scalar"
    ).split()

    def find_class(self, module, name):
        if f"{module}.{name}" in self.ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not a data type")


def plain(value):
    """`value` as data the judge reads back (`_Answers`), run in the student's kernel:
    a SymPy or mpmath number as an int, a Fraction, a float or a complex, a matrix as
    a list of rows, a Decimal as a Fraction, anything else with an array form (torch,
    pandas, np.matrix) as a NumPy array, containers item by item; a symbolic
    expression raises (the judge reads numbers)."""
    import decimal
    import fractions

    import numpy as np

    top = type(value).__module__.split(".")[0]
    if top == "torch":
        return value.detach().cpu().numpy()
    if top in ("sympy", "mpmath"):
        if hasattr(value, "tolist"):  # a matrix or an array: nested lists
            return plain(value.tolist())
        if type(value).__name__ in ("BooleanTrue", "BooleanFalse"):
            return bool(value)
        if getattr(value, "is_Rational", False):
            p, q = int(value.p), int(value.q)
            return p if q == 1 else fractions.Fraction(p, q)
        try:
            return float(value)
        except TypeError:
            try:
                return complex(value)
            except TypeError:
                raise TypeError(f"{value}: symbols, not a number") from None
    if isinstance(value, decimal.Decimal):
        return fractions.Fraction(value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        kind = next(t for t in (list, tuple, set, frozenset) if isinstance(value, t))
        return kind(plain(v) for v in value)
    if hasattr(value, "__array__") and not isinstance(value, np.generic | np.ndarray):
        return plain(np.asarray(value))  # a DataFrame, a Series, ...
    if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
        return plain(np.asarray(value))  # np.matrix, a masked array: the plain array
    if isinstance(value, np.ndarray) and value.dtype.kind == "O":  # item by item
        flat = [plain(v) for v in value.ravel()]
        return np.array(flat + [None], dtype=object)[:-1].reshape(value.shape)
    return value


def guard_unanswered(source: str) -> str:
    """A public check that first says "not answered yet" while a name it takes is
    still `...` (or a dict of nothing else), rather than failing on the ellipsis."""
    m = re.match(r"\s*def \w+\((.*?)\):\n", source, flags=re.S)
    names = [a.strip() for a in m.group(1).split(",") if a.strip()] if m else []
    if not names:
        return source
    # a dict only when all of it is unset: a verdict table half filled in is told
    # which claims lack a verdict (its form check names them)
    unset = "v is ... or isinstance(v, dict) and all(x is ... for x in v.values())"
    guard = f"    assert not any({unset} for v in ({', '.join(names)},)), "
    guard += f"'{NOT_ANSWERED}'\n"
    return source[: m.end()] + guard + source[m.end() :]


def hint_of(source: str) -> str | None:
    """A check's hint: the first paragraph of its docstring, which says what is wrong
    when it fails, never the expected value (quotes made single for otter)."""
    import ast

    doc = ast.get_docstring(ast.parse(source).body[0]) if source.strip() else None
    first = " ".join(doc.split("\n\n")[0].split()) if doc else ""
    return first.replace('"', "'").replace("\\", "/") or None


def test_cases_of(spec: dict, name: str = "question") -> list[tuple[str, dict]]:
    """A question's checks as otter's test cases: (source, test config) in order.

    A public check tests the form and says so (`FORM_OK`), first saying "not answered
    yet" on a stub; in a question with partial credit it is worth nothing. A hidden
    check's hint is its docstring's first paragraph (`hint_of`). A question that
    `builds` package functions gets one more public check, the first (`builds_check`).
    """
    public = list(spec.get("public", []))
    config = {"hidden": False, "success_message": FORM_OK}
    config |= {"points": 0} if spec.get("partial") else {}
    # first: why an answer is missing, before the form checks fail on it
    found = [(builds_check(name, spec), config)] if spec.get("builds") else []
    found += [(guard_unanswered(source), dict(config)) for source in public]
    for source in spec.get("hidden", []):
        hidden = {"hidden": True}
        if text := hint_of(source):
            hidden["failure_message"] = text
        found.append((source, hidden))
    return found


def read_reply(data: bytes):
    """The kernel's reply, data only, at most 100 containers deep and 2 million items
    counted along every path (a deeper or self-holding reply would break the judge's
    hints, a shared one make it count forever)."""
    import numpy as np

    value = _Answers(io.BytesIO(data)).load()
    nested = list | tuple | set | frozenset | dict | np.ndarray
    todo, count = [(value, 0)], 0
    while todo:
        item, depth = todo.pop()
        if isinstance(item, np.ndarray):
            if item.dtype.kind != "O":
                continue
            item = list(item.ravel())
        item = [*item.keys(), *item.values()] if isinstance(item, dict) else item
        count += len(item)
        if depth > 100 or count > 2_000_000:
            raise pickle.UnpicklingError("containers nested too deep or too many")
        todo += [(x, depth + 1) for x in item if isinstance(x, nested)]
    return value


def _unanswered(value, depth: int = 0) -> bool:
    """A stub: `...`, or a dict, list or tuple of nothing else (a verdict table with
    some claims still `...` is scored, those claims unjudged, as otter scores it)."""
    if isinstance(value, dict | list | tuple) and depth < 2:
        items = list(value.values() if isinstance(value, dict) else value)
        return bool(items) and all(_unanswered(v, depth + 1) for v in items)
    return value is ...


class StudentError(Exception):
    """A submitted function raised (in the sandbox), or a value could not be read."""


class Session:
    """The judge's end of a running submission."""

    def __init__(self, proc: subprocess.Popen):
        self.proc, self.values, self.dead = proc, {}, ""
        self.builds = {}  # answer name -> (package functions blocked, question)

    def ask(self, op: str, name: str, payload=""):
        blocked = list(self.builds.get(name, ())) if op == "call" else []
        if op == "call":
            import dill  # a check may pass a function (a lambda) to the answer

            payload = base64.b64encode(dill.dumps(payload, recurse=True)).decode()
        try:
            self.proc.stdin.write(json.dumps([op, name, payload, *blocked]) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError:
            line = ""
        if not line:
            self.dead = self.dead or name
            raise StudentError("the kernel stopped while the checks ran")
        try:
            return read_reply(base64.b64decode(json.loads(line)["reply"]))
        except Exception as exc:
            raise StudentError(f"{name}: the value cannot be read ({exc})") from None

    def value(self, name: str):
        if name not in self.values:
            reply = self.ask("get", name)
            kind = reply[0] if isinstance(reply, tuple) and reply else "error"
            if kind == "value":
                self.values[name] = reply[1]
            elif kind == "callable":
                self.values[name] = functools.partial(self.call, name)
            elif kind == "missing":
                self.values[name] = ...
            else:
                self.values[name] = StudentError(f"{name}: {reply[1:]}")
        return self.values[name]

    def call(self, name, *args, **kwargs):
        reply = self.ask("call", name, (args, kwargs))
        if isinstance(reply, tuple) and reply and reply[0] == "value":
            return reply[1]
        detail = reply[1] if isinstance(reply, tuple) and len(reply) > 1 else reply
        if isinstance(reply, tuple) and reply[:1] == ("unreadable",):
            raise StudentError(f"{name} returned what the checks cannot read: {detail}")
        raise StudentError(f"{name} raised {detail}")


# --- Build it yourself: the package's answer functions blocked where a question asks
# for them (a question's `builds`, tools/assignments.py; `attnsig._grading`, which the
# autograder zip's otter plugin uses as well)


_BUILDS_CHECK = '''
def {name}_builds({args}):
    """An answer calls the package's own function instead of building it."""
    import dis
    import functools
    import importlib
    import inspect
    import pkgutil
    import re
    import types

    blocked = {blocked!r}
    in_cells = {in_cells!r}
    answers = {answers!r}
    message = "{{}} is not available for question {name}: build it yourself"
    graded = __import__("sys").modules.get("attnsig._grading")
    if graded is not None and graded.ACTIVE:
        # a graded run (otter's plugin, `with_blocking`): the functions themselves
        # are blocked, and the values decide, as in `grade`. This check only says
        # why an answer is missing: its cell called a blocked function. (A function
        # answer that calls one fails the checks that call it, with the message.)
        said = [d for q, d in graded.CALLS if q == "{name}"]
        unset = any(v is ... or v is None for v in ({args},))  # None: not defined
        assert not (said and unset), message.format(said[-1])
        return
    targets = {{}}  # dotted: (what an answer names, its name); a method: its class
    for dotted in blocked:
        try:
            owner = pkgutil.resolve_name(dotted.rpartition(".")[0])
            found = pkgutil.resolve_name(dotted)
        except (ImportError, AttributeError):
            continue
        named = owner if isinstance(owner, type) else found
        targets[dotted] = named, dotted.split(".")[-1 - (named is owner)]

    def names_of(code):
        """The global names the code reads; for each read of an attribute its base
        (how the base is loaded, its name) and the attributes read off it so far; the
        modules it imports and the names it imports from them."""
        reads, imports, stack = [], [], [code]
        names = set()  # read as a global: a name of the notebook's (not an attribute)
        loads = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_FAST", "LOAD_CLOSURE")
        while stack:
            c = stack.pop()
            chain, module = None, None
            for i in dis.get_instructions(c):
                if i.opname in loads:
                    chain = (i.opname, i.argval, ())
                    if i.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                        names.add(i.argval)
                elif i.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain:
                    chain = (*chain[:2], (*chain[2], i.argval))
                    reads.append(chain)
                elif i.opname == "IMPORT_NAME":  # an import inside the function
                    module = i.argval
                    imports.append((module, None))
                elif i.opname == "IMPORT_FROM" and module:
                    imports.append((module, i.argval))
                else:
                    chain = None
            stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        return names | set(code.co_freevars), reads, imports

    def uses(f, depth=0, seen=None):
        seen = set() if seen is None else seen
        if depth > 8 or id(f) in seen or inspect.ismethod(f):  # a method: the judge's
            return None  # route to an answer
        seen.add(id(f))
        if isinstance(f, functools.partial):
            inner = [g for g in (f.func, *f.args) if callable(g)]
            return next(filter(None, (uses(g, depth + 1, seen) for g in inner)), None)
        # what a decorator (functools.cache), np.vectorize or a callable object wraps
        inner = getattr(f, "__wrapped__", None) or getattr(f, "pyfunc", None)
        if inner is None and callable(f) and not inspect.isroutine(f):
            inner = None if isinstance(f, type) else getattr(type(f), "__call__", None)
        if inspect.isfunction(inner) and inner is not f:
            return uses(inner, depth + 1, seen)
        code = getattr(f, "__code__", None)
        names, reads, imports = names_of(code) if code else (set(), [], [])
        own = getattr(f, "__globals__", {{}})
        cells = dict(zip(code.co_freevars, f.__closure__ or ())) if code else {{}}
        held = [f, *map(own.get, names)]
        held += [c.cell_contents for c in getattr(f, "__closure__", None) or ()]
        held += [*(getattr(f, "__defaults__", None) or ())]
        # the package's functions kept in a dict, list or class of the notebook's
        for h in list(held[1:]):
            if isinstance(h, dict):
                held += list(h.values())
            elif isinstance(h, list | tuple):
                held += list(h)
            elif isinstance(h, type) and h.__module__ == f.__module__:
                held += [getattr(m, "__func__", m) for m in vars(h).values()]
        local = any(m.split(".")[0] == "attnsig" for m, _ in imports)

        def base(kind, name):  # the object a load stands for (None: not known)
            if kind in ("LOAD_DEREF", "LOAD_CLOSURE") and name in cells:
                return cells[name].cell_contents
            return own.get(name) if kind in ("LOAD_GLOBAL", "LOAD_NAME") else None

        for dotted, (target, short) in targets.items():
            if any(h is target for h in held):
                return dotted
            for kind, name, attrs in reads:  # m.short or m.sub.short, m the package's
                if attrs[-1] != short:
                    continue
                obj = base(kind, name)
                for part in attrs[:-1]:
                    obj = getattr(obj, part, None)
                if getattr(obj, short, None) is target or obj is None and local:
                    return dotted
            for module, name in imports:  # from attnsig.bounds import copy_gap
                if name == short and module.split(".")[0] == "attnsig":
                    found = getattr(importlib.import_module(module), short, None)
                    if found is target:
                        return dotted
        # the notebook's own functions and classes it calls: their code too
        helpers = [h for h in held[1:] if inspect.isfunction(h) and h is not f]
        for h in helpers:
            if h.__module__ == f.__module__ and (found := uses(h, depth + 1, seen)):
                return found
        return None

    def code_of(text):  # what a cell runs: its tokens without comments and strings
        import io
        import tokenize

        # the text of strings and f-strings (Python 3.12 splits these); their {{...}}
        # expressions stay
        text_only = {{tokenize.COMMENT, tokenize.STRING}}
        text_only.add(getattr(tokenize, "FSTRING_MIDDLE", tokenize.COMMENT))
        kept, last = [], None
        try:
            for t in tokenize.generate_tokens(io.StringIO(text).readline):
                if t.type in text_only:
                    continue
                word = (tokenize.NAME, tokenize.NUMBER)
                if last in word and t.type in word:
                    kept.append(" ")
                kept.append(t.string)
                last = t.type
        except (tokenize.TokenError, SyntaxError):  # a magic, say: the comments go
            return re.sub(r"#[^\\n]*", "", text)
        return "".join(kept)

    def resolve(chain):  # what a dotted name of the notebook's stands for, or None
        head, *rest = chain.split(".")
        found = names.get(head)
        for part in rest:
            found = getattr(found, part, None)
        return found

    for value in ({args},):
        if callable(value):
            found = uses(value)
            assert found is None, message.format(found)
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    history = list(shell.user_ns.get("In", [])) if shell and in_cells else []
    names = shell.user_ns if shell else {{}}
    for answer in answers:
        # every cell run so far that names the answer (the one that binds it, a
        # tidying one after it, a walrus, a target list over several lines)
        cells = [c for c in history if re.search(rf"\\b{{answer}}\\b", c)]
        cell = "\\n".join(map(code_of, cells))
        words = set(re.findall(r"\\w+", cell))
        calls = set(re.findall(r"(?<![\\w.])(\\w+)\\(", cell))  # name( , not obj.name(
        # a function of the notebook's own that the cell calls, and what it reaches
        helpers = [names.get(w) for w in calls if inspect.isfunction(names.get(w))]
        helpers = [h for h in helpers if h.__module__ in (None, "__main__")]
        reached = next(filter(None, map(uses, helpers)), None)
        assert reached is None, message.format(reached)
        for dotted, (target, short) in targets.items():
            # the student's own function or class of that name, in any cell run so
            # far; a value bound to the name (the answer) is not one
            bound = names.get(short, target)
            made = inspect.isfunction(bound) or isinstance(bound, type)
            defines = rf"^[ \\t]*(def|class)[ \\t]+{{short}}\\b"
            defined = any(re.search(defines, c, re.M) for c in history)
            mine = defined or made and bound is not target
            if isinstance(target, type):
                held = [names.get(w) for w in words]
                used = any(isinstance(h, target) for h in held)
                used = used or short in words and not mine
            else:
                # read off an object of the notebook's that has it: a package module
                chains = re.findall(rf"([\\w.]+)\\.{{short}}\\b", cell)
                read = any(getattr(resolve(c), short, None) is target for c in chains)
                package = rf"\\bfrom attnsig[\\w.]* import\\b[^\\n]*\\b{{short}}\\b"
                imported = re.search(package, cell)  # from the package: its own
                bare = set(re.findall(r"(?<![\\w.])(\\w+)", cell))  # not obj.attr
                bare -= {{short}} if defined else set()  # a def of the name: its own
                alias = any(names.get(w) is target for w in bare)
                used = read or imported or alias or short in calls and not mine
            assert not used, message.format(dotted)
'''


def builds_check(name: str, spec: dict) -> str:
    """The public check of a question with `builds`: it fails at once, with the graded
    run's message, when a function answer calls one of the package functions it must
    build (or is one), or, with `builds_in_cells`, when the cell that binds a value
    answer calls one."""
    in_cells, answers = bool(spec.get("builds_in_cells")), list(spec["answer"])
    blocked, args = list(spec["builds"]), ", ".join(answers)
    return _BUILDS_CHECK.format(**locals()).lstrip()


def builds_of(source: str) -> tuple[list[str], bool]:
    """A test file's `builds` (the names its question blocks) and `builds_in_cells`,
    read from its builds check (`builds_check`; otter rewrites the source, so it is
    read as a syntax tree)."""
    import ast

    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_builds"):
            for stmt in node.body:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
                if getattr(target, "id", "") in ("blocked", "in_cells"):
                    found[target.id] = ast.literal_eval(stmt.value)
    return list(found.get("blocked", [])), bool(found.get("in_cells", False))


def builds_by_name(checks: dict) -> dict[str, tuple[list[str], str]]:
    """For each answer name of a question with `builds`: what a call of it blocks."""
    return {
        p: (check["builds"], check["name"])
        for check in checks.values()
        if check.get("builds")
        for tc in check["cases"]
        for p in tc.params
    }


def note_builds(result: dict) -> None:
    """Tell a student whose answer cell called a blocked function (the cell stopped
    there, so the answer may be missing) why the question lost its points: the
    runner's error of that cell ("code cell K: Type: message"), its first line; the
    checks' own hints follow where the answer was there all the same."""
    for name, out in result["questions"].items():
        said = f"for question {name}{BLOCKED}"
        cells = [e for e in result["log"] if e.startswith("code cell ") and said in e]
        found = [e.split(": ", 1)[1].splitlines()[0] for e in cells]
        if found and out["score"] == 0:
            hints = [found[0], *out["hints"]]
            # an answer computed by hand and kept: its own hints say what is wrong
            out["hints"] = (
                list(dict.fromkeys(hints))
                if out.get("answered")
                else (only_blocked(hints))
            )


def write_builds(scratch: Path, answering: dict, checks: dict) -> None:
    """`builds.json` for the runner: by index, the answer cells (`answering`, from
    `answer_cells`) of the questions with `builds_in_cells`, with (names blocked,
    question)."""
    regions = {
        str(i): (checks[q]["builds"], checks[q]["name"])
        for i, q in answering.items()
        if checks[q]["builds_in_cells"]
    }
    (scratch / "builds.json").write_text(json.dumps(regions))


# --- Judging one submission (in its own interpreter)


class test_case:  # noqa: N801 (otter's name)
    """Otter's test case decorator, without importing otter (slow) in the judge."""

    def __init__(self, name=None, points=None, hidden=False, **messages):
        self.name, self.points, self.hidden = name, points, hidden
        self.success_message = messages.get("success_message")
        self.failure_message = messages.get("failure_message")

    def __call__(self, func):
        self.func, self.params = func, list(inspect.signature(func).parameters)
        self.name = self.name or func.__name__
        return self


def load_check(source: str, path: str) -> dict:
    """An otter test file: its `name`, `cases` (with points resolved as otter does),
    `all_or_nothing` and the messages its asserts write out (`said`)."""
    import ast

    fake = type(sys)("otter.test_files")
    fake.test_case = test_case
    saved = {k: sys.modules.get(k) for k in ("otter", "otter.test_files")}
    sys.modules.update({"otter": type(sys)("otter"), "otter.test_files": fake})
    try:
        env = {}
        exec(compile(source, path, "exec"), env)
    finally:
        for k, v in saved.items():
            sys.modules.pop(k) if v is None else sys.modules.update({k: v})
    cases = [v for v in env.values() if isinstance(v, test_case)]
    total, given = env.get("points"), sum(c.points or 0 for c in cases)
    free = sum(c.points is None for c in cases)  # their points resolved as otter does
    share = ((total - given) if total is not None else (given == 0)) / max(free, 1)
    for c in cases:
        c.points = share if c.points is None else c.points
    possible = sum(c.points for c in cases)
    check = {"name": env["name"], "cases": cases, "possible": possible, "path": path}
    check["all"] = env.get("all_or_nothing")
    check["builds"], check["builds_in_cells"] = builds_of(source)
    said = [n.msg for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Assert)]
    check["said"] = {m.value for m in said if isinstance(m, ast.Constant)}
    return check


def check_of(name: str, spec: dict) -> dict:
    """A question's check made from its spec (`tools.questions.questions`), as the
    autograder zip's test file holds it, without building the assignment."""
    lines = ["from otter.test_files import test_case", f"name = {name!r}"]
    lines += [f"points = {spec.get('points', 1)!r}"]
    lines += [f"all_or_nothing = {not spec.get('partial')}"]
    for source, config in test_cases_of(spec, name):
        lines += [f"@test_case(**{config!r})", source]
    return load_check("\n".join(lines), f"{name}.py")


def read_checks(autograder_zip: Path) -> dict[str, str]:
    with zipfile.ZipFile(autograder_zip) as zf:
        return {
            Path(n).stem: zf.read(n).decode()
            for n in sorted(zf.namelist())
            if n.startswith("tests/") and n.endswith(".py")
        }


def statements(autograder_zip: Path) -> dict[str, str]:
    """A line of the statement of each question with `builds`, from the zip's otter
    plugin (`attnsig._grading.with_blocking`): its answer cells without a check cell."""
    with zipfile.ZipFile(autograder_zip) as zf:
        names = zf.namelist()
        found = zf.read("otter_config.json") if "otter_config.json" in names else "{}"
    config = json.loads(found)
    plugins = [p for p in config.get("plugins", []) if isinstance(p, dict)]
    found = [p.get("attnsig._grading.Blocking", {}) for p in plugins]
    found = [q for f in found for q in f.get("questions", {}).items()]
    return {q: v.get("statement") for q, v in found}


def has_variants(autograder_zip: Path) -> bool:
    """Whether a check of the assignment takes the student's variant (the seed the
    judge sets, `tools.questions`): else every student has the book's numbers."""
    return any("_attnsig_seed(" in s for s in read_checks(autograder_zip).values())


def hint(tc: test_case, exc: BaseException, check: dict) -> str:
    """What a student may read about a failed check: never an expected value. That
    the answer raised; else the docstring, followed by the assertion's message where
    the check file writes it out as a string (it holds nothing computed, and may say
    more than the docstring); else the answers it takes, and the error's type."""
    if isinstance(exc, StudentError):
        return str(exc)
    literal = isinstance(exc, AssertionError) and str(exc) in check.get("said", ())
    if tc.failure_message:
        return joined([tc.failure_message, str(exc)]) if literal else tc.failure_message
    last = traceback.extract_tb(exc.__traceback__)[-1]
    text = str(exc).strip().splitlines()
    if isinstance(exc, AssertionError) and last.filename == check["path"] and text:
        return text[0][:200]
    # the answers the check takes, as a student named them: "Q, K or V"
    names = [p for p in tc.params if p != "variant"]
    names = names or [tc.name.removeprefix("test_").replace("_", " ")]
    what = " or ".join(filter(None, [", ".join(names[:-1]), names[-1]]))
    if isinstance(exc, AssertionError):
        return f"{what}: not met"
    return f"{what}: of the wrong type or form ({type(exc).__name__})"


# What a cell's key missing or of the wrong form becomes (an id: a new one).
CELL_DEFAULTS = {"metadata": {}, "source": "", "outputs": [], "execution_count": None}


def repaired(nb) -> str:
    """Make a notebook that nbformat's schema rejects but Jupyter opens (with a
    warning) valid, in place, by the schema's own errors: a key it does not allow is
    dropped (outputs of a markdown cell, cell ids in nbformat 4.4, a key of the
    notebook), so is a metadata entry of the wrong form (a kernelspec without its
    name) and a cell's invalid outputs (grading runs the cell again); a cell's key
    missing or of the wrong form is added afresh. What was done, or "" when the notebook
    was valid; one the schema still rejects is left to `nbformat.validate`."""
    from nbformat import from_dict
    from nbformat.v4 import new_code_cell
    from nbformat.validator import get_validator

    check = get_validator(4, nb.get("nbformat_minor", 5), name="jsonschema")
    done: dict[str, set] = {}  # what was done -> where (cells, entries)

    def repair(e) -> bool:  # one error of the schema's; False: not repaired
        path = list(e.absolute_path)
        at = path[1] if path[:1] == ["cells"] and len(path) > 1 else None
        owner = nb if at is None else nb.cells[at]
        kind = "the notebook" if at is None else f"{owner.get('cell_type')} cells"
        if path[2:3] == ["outputs"]:
            owner["outputs"], what, where = [], "dropped the outputs of code cells", at
        elif "metadata" in path[:-1]:  # an entry (metadata not a dict: not read)
            key = path[path.index("metadata") + 1]
            owner["metadata"].pop(key, None)
            what, where = f"dropped metadata {key} of {kind}", (at, key)
        elif e.validator == "additionalProperties" and len(path) in (0, 2):
            extra = sorted(set(owner) - set(e.schema.get("properties", ())))
            for key in extra:
                owner.pop(key)
                done.setdefault(f"dropped {key} of {kind}", set()).add(at)
            return bool(extra)
        elif at is not None and len(path) <= 3:  # a key missing or of the wrong form
            keys = path[2:] or [k for k in e.validator_value if k not in owner]
            if not keys or not set(keys) <= {*CELL_DEFAULTS, "id"}:
                return False
            for key in keys:
                verb = "replaced" if key in owner else "added"
                new = new_code_cell().id if key == "id" else CELL_DEFAULTS[key]
                owner[key] = from_dict(new)
                done.setdefault(f"{verb} {key} of {kind}", set()).add(at)
            return True
        else:
            return False
        done.setdefault(what, set()).add(where)
        return True

    for _ in range(10):  # a repair may uncover another error
        errors = []
        for e in check.iter_errors(nb) if check else ():
            path = list(e.absolute_path)
            if e.validator == "oneOf" and len(path) == 2 and path[0] == "cells":
                # a cell that fits no cell schema: the errors of its own type's
                refs = [s.get("$ref") for s in e.schema["oneOf"]]
                own = f"#/definitions/{nb.cells[path[1]].get('cell_type')}_cell"
                k = refs.index(own) if own in refs else None
                errors += [c for c in e.context if c.schema_path[0] == k]
            else:
                errors.append(e)
        if not any([repair(e) for e in errors]):
            break
    return "; ".join(f"{what} ({len(done[what])})" for what in sorted(done))


def judge(
    autograder_zip: Path, submission: Path, hide: list[str], scratch: Path, seed=0
) -> dict:
    """Grade one notebook: {"status", "reason", "questions": {name: {...}}, "log"};
    a check taking `variant` gets the draw of `seed` (`with_seed`)."""
    import nbformat

    sources = read_checks(autograder_zip)
    checks = {n: load_check(source, f"{n}.py") for n, source in sources.items()}
    scores = {name: {"score": 0.0, "hints": []} for name in checks}
    result = {"status": "ok", "reason": "", "questions": scores, "log": []}
    log, scratch = result["log"], Path(scratch)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # said in the row, not on the console
            nb = nbformat.reads(Path(submission).read_text(), as_version=4)
        fixed = ["added missing cell ids"] * any(
            type(w.message).__name__ == "MissingIDFieldWarning" for w in caught
        )
        if said := "; ".join(filter(None, [repaired(nb), *fixed])):
            result["reason"] = "repaired: " + said  # graded as Jupyter opens it
            log.append(result["reason"])
        nbformat.validate(nb)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [""])[0].split(":")[0][:100]
        reason = f"not a readable notebook ({type(exc).__name__}: {first})"
        # a file that cannot be opened now (moved, no permission) may open next time
        result.update(status="invalid", reason=reason, again=isinstance(exc, OSError))
        return result
    answering = answer_cells(nb.cells, checks, statements(autograder_zip))
    write_builds(scratch, answering, checks)
    for c in nb.cells:  # kept, a check cell as an empty code cell: cells keep numbers
        if c.cell_type != "code" or all(map(_GRADER_CALL.match, c.source.splitlines())):
            c.source, c.metadata = "", {}
            if c.cell_type != "code":
                c.cell_type = "raw"
                c.pop("outputs", None), c.pop("execution_count", None)
    nb = nbformat.v4.new_notebook(cells=nb.cells, metadata=nb.metadata)
    nbformat.write(nb, scratch / "submission.ipynb")
    (scratch / "tests").mkdir()  # the set-up cell then fetches nothing
    proc = start_runner(scratch, hide)
    try:
        first = json.loads(proc.stdout.readline() or '{"event": "dead"}')
        log += first.get("errors", [])
        if first.get("full"):  # the answers cannot be read back: not cached
            return {**result, "status": "error", "reason": FULL}
        if first["event"] == "dead":
            where = " before the first cell"
            if "cell" in first:
                where = f" in code cell {first['cell']} ({first['error']})"
            return {**result, "status": "error", "reason": "the kernel died" + where}
        session = Session(proc)
        errors = first.get("errors", [])
        session.raised, session.raised_in = raised_answers(nb.cells, errors, answering)
        session.builds = builds_by_name(checks)
        for name, check in checks.items():
            # where a timeout struck: the checks call the student's functions too
            print(f"[grading] checking {name}", file=sys.stderr, flush=True)
            judge_question(check, session, scores[name], log, seed)
        note_builds(result)
        if session.dead:  # the machine (out of memory?) may have killed it: not cached
            said = f"the kernel stopped while the checks ran (asked for {session.dead})"
            result.update(status="error", reason=said)
    finally:
        proc.kill()
        proc.wait()
    return result


def raised_answers(cells, errors: list[str], answering=None) -> tuple[dict, dict]:
    """What a student reads of the code cells that raised (`errors`: the runner's
    "code cell K: Type: message"), "raised Type: message (code cell K)", with the
    first line of the student's own code's message, so no expected value: per name
    the cell binds, and per question whose answer cell it is (`answering`, from
    `answer_cells`)."""
    from tools.nbtools import _assigned_names, _parse

    codes = [i for i, c in enumerate(cells) if c.cell_type == "code"]
    names, questions = {}, {}
    for error in errors:
        m = re.match(r"code cell (\d+): (\w+): ?(.*)", error)
        if not m or int(m.group(1)) > len(codes):
            continue
        i = codes[int(m.group(1)) - 1]
        said = f"raised {m[2]}: {m[3]}".rstrip(": ") + f" (code cell {m[1]})"
        tree = _parse(cells[i].source)
        for name in _assigned_names(tree) if tree else ():
            names.setdefault(name, said)
        if i in (answering or {}):
            questions.setdefault(answering[i], said)
    return names, questions


def with_seed(check: dict, seed: int) -> dict:
    """The check with the student's variant seed set: a check taking `variant` draws
    it from ATTNSIG_SEED in its test file's globals (`tools.questions.variant_check`),
    which the judge sets here; nothing in the submission reaches it."""
    for tc in check["cases"]:
        tc.func.__globals__["ATTNSIG_SEED"] = int(seed)
    return check


def judge_question(
    check: dict, session: Session, out: dict, log: list, seed: int = 0
) -> None:
    with_seed(check, seed)
    names, env = sorted({p for tc in check["cases"] for p in tc.params}), {}
    for n in names:
        try:
            env[n] = session.value(n)
        except StudentError as exc:
            env[n] = exc
    missing = [n for n in names if _unanswered(env[n])]
    out["answered"] = not missing  # (`note_builds`: a block then explains nothing)
    if missing:
        raised, by_cell = getattr(session, "raised", {}), {}
        for n in missing:  # one hint per cell that raised, naming what it defines
            by_cell.setdefault(raised.get(n), []).append(n)
        stubs = by_cell.pop(None, [])
        for said, ns in by_cell.items():
            out["hints"].append(f"the cell that defines {', '.join(ns)} {said}")
        said = getattr(session, "raised_in", {}).get(check["name"])
        if stubs and said and said not in by_cell:
            out["hints"].append(f"the answer cell {said}")
        elif stubs:
            out["hints"].append(f"{NOT_ANSWERED} ({', '.join(stubs)})")
        out["hints"] = only_blocked(out["hints"])
        log.append(f"{check['name']}: {joined(out['hints'])}")
        return
    unread = [str(v) for v in env.values() if isinstance(v, StudentError)]
    # the answer raised: that alone is the hint. A hidden check that failed on what a
    # form check has said, or crashed on an answer a form check refused, says nothing
    # more (its hint could call a right stance wrong, or repeat the form's).
    score, raised, form, refused, failed = 0.0, [], [], set(), 0
    for tc in check["cases"]:
        try:
            if unread:
                raise StudentError(unread[0])
            tc.func(**{p: env[p] for p in tc.params})
            score += tc.points
        except Exception as exc:
            failed += 1
            detail = "".join(traceback.format_exception(exc)[-6:])
            log.append(f"{check['name']}: {tc.name} failed:\n{detail}")
            said = hint(tc, exc, check)
            raised += [said] * isinstance(exc, StudentError)
            crashed = not isinstance(exc, AssertionError)
            if tc.hidden and (
                (str(exc) and any(str(exc) in f for f in form))
                or (crashed and refused & set(tc.params))
            ):  # failed on what a form check said, or crashed on an answer it refused
                continue
            if not tc.hidden:
                form.append(str(exc))  # its own words, not `hint`'s answer names
                # which answer it refused is known when it takes one only
                refused |= set(tc.params) if len(tc.params) == 1 else set()
            out["hints"].append(said)
    if check["all"]:
        score = check["possible"] if failed == 0 else 0.0
    out["score"], out["hints"] = score, only_blocked(raised or out["hints"])


def only_blocked(hints: list[str]) -> list[str]:
    """The hints, each once; only the blocked calls' messages when there are any:
    the question's other hints follow from the block."""
    return list(dict.fromkeys([h for h in hints if BLOCKED in h] or hints))


def joined(hints: list[str]) -> str:
    """Hints in one line, "a; b", without a hint's closing full stop (no ".;")."""
    return "; ".join(re.sub(r"(?<!\.)\.$", "", h) for h in hints)


class Exported(Session):
    """Answers handed to the judge as a dict, as if exported from a notebook: each
    value read back through the same data-only unpickler, a function's results too."""

    def __init__(self, answers: dict, builds=(), question: str = ""):
        self.answers, self.values, self.blocked = answers, {}, (list(builds), question)

    def ask(self, op: str, name: str, payload=()):
        found = self.answers.get(name)
        try:
            reply = ("value", plain(found))
        except Exception as exc:
            reply = ("error", f"{type(exc).__name__}: {exc}"[:300])
        if name not in self.answers:
            reply = ("missing",)
        elif op == "get" and callable(found) and not isinstance(found, type):
            reply = ("callable",)
        elif op == "call":
            restore = blocking(*self.blocked)
            try:
                value = found(*payload[0], **payload[1])
            except Exception as exc:
                reply = ("error", f"{type(exc).__name__}: {exc}"[:300])
            else:
                try:
                    reply = ("value", plain(value))
                    pickle.dumps(reply)
                except Exception as exc:
                    reply = ("unreadable", f"{type(exc).__name__}: {exc}"[:300])
            finally:
                restore()
        try:
            return read_reply(pickle.dumps(reply))
        except Exception as exc:
            raise StudentError(f"{name}: the value cannot be read ({exc})") from None


def judge_answers(check: dict, answers: dict, seed: int = 0) -> dict:
    """Judge one question on answers given as a dict (name -> value or function):
    {"score", "hints", "log"}, by the judge's own `judge_question`, for the student of
    variant `seed`. The tests grade alternative and mistaken answers this way, without
    running a notebook."""
    out, log = {"score": 0.0, "hints": []}, []
    exported = Exported(answers, check.get("builds", ()), check["name"])
    judge_question(check, exported, out, log, seed)
    return {**out, "log": log}


# --- The batch


def judge_digest() -> str:
    """A digest of the grading procedure: `VERSION`, the judge's source files and the
    package the student's kernel imports (a fix to a function students call regrades
    too)."""
    import attnsig

    h = hashlib.sha256(VERSION.encode())
    package = sorted(Path(attnsig.__file__).resolve().parent.rglob("*.py"))
    for p in [*JUDGE_SOURCES, *package]:
        h.update(Path(p).read_bytes())
    return h.hexdigest()


def digest(*paths: Path) -> str:
    """The cache key of a submission: the files' bytes and the grading procedure."""
    h = hashlib.sha256(judge_digest().encode())
    for p in paths:
        h.update(Path(p).read_bytes())
    return h.hexdigest()[:24]


def grade_one(
    autograder_zip: Path, submission: Path, timeout=TIMEOUT, hide=None, seed: int = 0
) -> dict:
    """Grade one notebook in a fresh interpreter: the judge's result dict, plus the
    status `timeout` or `error` when the judge itself did not finish."""
    # absolute: the judge runs in the book's folder, the caller maybe elsewhere
    submission, autograder_zip = (
        Path(submission).resolve(),
        Path(autograder_zip).resolve(),
    )
    if hide is None:
        hide = hidden_dirs(submission.parent, autograder_zip.parent)
    if submission.suffix == ".zip":  # otter's export: its notebook is graded
        return grade_zip(autograder_zip, submission, timeout, hide, seed)
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    with (
        tempfile.TemporaryDirectory(prefix="attnsig-grade-") as scratch,
        tempfile.TemporaryFile("w+b") as err,
    ):
        command = [sys.executable, "-m", "tools.grading", "judge", autograder_zip]
        command += [submission, scratch, f"--seed={seed}", "--hide", *hide]
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=path),
            start_new_session=True,
        )
        try:
            out = proc.communicate(timeout=timeout)[0]
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the judge, the sandbox and kernel
            proc.communicate()
            out = None
        stderr, raw = spool(err)
    marks = re.findall(
        r"^\[grading\] (?:code cell (\d+) of (\d+)|checking (\w+))", stderr, re.M
    )
    raw = [f"the notebook's raw output (its end):\n{raw[-20000:]}"] * bool(raw)
    failed = {"status": "error", "questions": {}, "log": [stderr[-4000:], *raw]}
    if out is None:
        k, n, question = marks[-1] if marks else ("", "", "")
        where = f" (running code cell {k} of {n})" if k else ""
        where = (
            f" (checking {question}: its checks call your answers)"
            if question
            else where
        )
        reason = f"did not finish in {timeout:g} s{where}"
        return {**failed, "status": "timeout", "reason": reason}
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        return {**failed, "reason": f"the grader failed: {tail[0][:200]}"}
    result["log"] += [stderr[-20000:], *raw]
    return result


def spool(err) -> tuple[str, str]:
    """The judge's stderr, `err` (a binary file), read a line at a time: its lines
    (the `[grading]` marks, anything the judge says), the last 200, apart from the
    notebook's raw output (the runner's `[grading] raw` lines), its last TAIL
    characters; a notebook that floods its output leaves the marks in the log."""
    lines, raw, prefix = collections.deque(maxlen=200), "", b"[grading] raw "
    err.seek(0)
    while line := err.readline(8 * TAIL):  # the spool is not bounded by itself
        if line.startswith(prefix) and line.endswith(b"\n"):
            try:
                raw = (raw + json.loads(line[len(prefix) :]))[-TAIL:]
                continue
            except ValueError:  # cut short: the judge was stopped
                pass
        lines.append(line[:2000].decode(errors="replace").rstrip("\n"))
    return "\n".join(lines), raw


# --- Submissions handed in as the zip a notebook's export cell makes

MAX_UNZIPPED = 100 * 2**20  # bytes: a notebook in a zip that unpacks larger is refused
_IGNORED_IN_ZIPS = {".ipynb_checkpoints", "__MACOSX"}  # copies an editor or Finder made


class NotASubmission(Exception):
    """A submitted file that holds no notebook to grade; the message says why."""


def submissions(folder: Path) -> list[Path]:
    """The submissions in `folder`: its notebooks, and the zips of otter's export cell
    (`<id>.zip`, `<id>_<anything>.zip`), sorted by name."""
    return sorted([*Path(folder).glob("*.ipynb"), *Path(folder).glob("*.zip")])


def notebook_of(submission: Path) -> tuple[str, bytes]:
    """The name and bytes of the notebook a submission is: the file itself, or the
    one `.ipynb` of a zip (otter's export also holds `.OTTER_LOG` and the like), read
    in memory and never extracted. NotASubmission for a zip that cannot be read, holds
    a path outside its own folder, no notebook or several, or one that unpacks to more
    than `MAX_UNZIPPED` bytes."""
    submission = Path(submission)
    if submission.suffix != ".zip":
        return submission.name, submission.read_bytes()
    try:
        with zipfile.ZipFile(submission) as zf:
            infos = zf.infolist()
            for info in infos:  # an absolute path, a drive letter or `..`: out
                path = PurePosixPath(info.filename.replace("\\", "/"))
                drive = re.match(r"[A-Za-z]:", info.filename)
                if path.is_absolute() or drive or ".." in path.parts:
                    raise NotASubmission(
                        f"a zip with a path outside its folder ({info.filename!r}):"
                        " not read"
                    )
            found = [
                i
                for i in infos
                if i.filename.endswith(".ipynb")
                and not i.is_dir()
                and not _IGNORED_IN_ZIPS & set(PurePosixPath(i.filename).parts)
            ]
            if len(found) != 1:
                names = ", ".join(i.filename for i in found[:5])
                said = f"{len(found)} notebooks ({names})" if found else "no notebook"
                raise NotASubmission(f"a zip with {said}: hand in one notebook")
            info, cap = found[0], f"{MAX_UNZIPPED / 2**20:g} MB"
            too_big = f"a zip whose notebook unpacks to more than {cap}: not read"
            if info.file_size > MAX_UNZIPPED:
                raise NotASubmission(too_big)
            with zf.open(info) as fh:  # read no further than the cap, whatever it says
                data = fh.read(MAX_UNZIPPED + 1)
            if len(data) > MAX_UNZIPPED:
                raise NotASubmission(too_big)
            return info.filename, data
    except NotASubmission:
        raise
    except Exception as exc:  # a row for it, whatever it is: the batch goes on
        # a truncated upload, a bad checksum, an encrypted or unknown compression
        first = (str(exc).strip().splitlines() or [""])[0][:100]
        said = f"not a readable zip ({type(exc).__name__}: {first})"
        raise NotASubmission(said) from None


def grade_zip(
    autograder_zip: Path, submission: Path, timeout: float, hide: list[str], seed: int
) -> dict:
    """`grade_one` of the notebook in a zip (`notebook_of`), copied into a scratch
    folder of its own; an `invalid` result, with the reason, for a zip without one."""
    try:
        name, data = notebook_of(submission)
    except NotASubmission as exc:
        return {
            "status": "invalid",
            "reason": str(exc),
            "questions": {},
            "log": [str(exc)],
        }
    with tempfile.TemporaryDirectory(prefix="attnsig-unzipped-") as scratch:
        notebook = Path(scratch) / "submission.ipynb"
        notebook.write_bytes(data)
        result = grade_one(autograder_zip, notebook, timeout, hide, seed)
    result["log"].insert(0, f"graded {name} from {Path(submission).name}")
    return result


def row_of(name: str, result: dict, checks: dict[str, float]) -> dict:
    row = {"submission": name, "status": result["status"], "reason": result["reason"]}
    row["seed"] = result.get("seed", "")
    qs = result.get("questions", {})
    for q in checks:  # rounded: 30 claims of 0.1 point should add up to 3
        row[q] = round(float(qs.get(q, {}).get("score", 0.0)), 6)
    row["total"] = round(sum(row[q] for q in checks), 6)
    row["possible"] = round(float(sum(checks.values())), 6)
    return row


def grade(
    autograder_zip: Path,
    submissions: list[Path],
    jobs: int = 0,
    timeout: float = TIMEOUT,
    out: Path | None = None,
    fresh: bool = False,
    seeds: dict[Path, int | None] | None = None,
    private: tuple[Path, ...] = (),
    handed=None,
    ids: list[str] | None = None,
) -> list[dict]:
    """Grade notebooks, `jobs` at a time (0: one per core): one row per submission,
    in the order given. With `out`, also the feedback, the logs and the cache there.
    `seeds`: each submission's variant seed (`roster_seeds`; None: no student of the
    roster, not graded); without, every submission gets the book's numbers (seed 0).
    `handed`: the data cells handed out for a seed (`handed_cells`), to say where a
    notebook's differ (`changed_data`). `ids`: the roster's, to say which
    submissions are one student's (`several`).
    """
    z = Path(autograder_zip)
    work = {z: (list(submissions), out)}
    handed = {z: handed}
    return grade_many(work, jobs, timeout, fresh, seeds, private, handed, ids)[z]


def grade_many(
    work: dict[Path, tuple[list[Path], Path | None]],
    jobs: int = 0,
    timeout: float = TIMEOUT,
    fresh: bool = False,
    seeds: dict[Path, int | None] | None = None,
    private: tuple[Path, ...] = (),
    handed: dict | None = None,
    ids: list[str] | None = None,
) -> dict[Path, list[dict]]:
    """Several assignments in one pool: autograder zip -> (submissions, out); the
    files `private` (the roster) hidden from the notebooks too; `handed`: autograder
    zip -> its `handed_cells`, with `seeds`; `ids`: as for `grade`."""
    jobs = jobs or int(os.environ.get("ATTNSIG_GRADE_JOBS", 0)) or os.cpu_count() or 1
    folders = {Path(s).parent for subs, _ in work.values() for s in subs}
    folders |= {Path(z).parent for z in work} | {o for _, o in work.values() if o}
    hide = hidden_dirs(*folders, *private)
    varied = {z: has_variants(z) for z in work}

    def one(task: tuple[Path, Path, Path | None]) -> dict:
        result, (autograder_zip, sub, _) = graded(task), task
        cells = (handed or {}).get(autograder_zip)
        if cells and seeds is not None and result["status"] == "ok":
            if note := changed_data(sub, cells(result["seed"], sub), result["seed"]):
                result = noted(result, note)
        return result

    def graded(task: tuple[Path, Path, Path | None]) -> dict:
        autograder_zip, sub, out = task
        seed = 0 if seeds is None else seeds.get(sub)
        if seed is None:
            reason = "no roster id starts the file name (rename it <id>_...)"
            return {"status": "unknown-student", "reason": reason, "log": [reason]}
        key = f"{digest(sub, autograder_zip)}-{seed}"
        hit = out / "cache" / f"{key}.json" if out else None
        if hit and hit.exists() and not fresh:
            return json.loads(hit.read_text())
        result = grade_one(autograder_zip, sub, timeout, hide, seed)
        result["seed"] = seed
        if varied[autograder_zip]:  # else a seed is nobody's numbers
            said = f"variant seed {seed}" + (seeds is None) * f" ({NO_ROSTER})"
            result["log"].insert(0, said)
        if hit and result["status"] in KEPT and not result.get("again"):
            hit.parent.mkdir(parents=True, exist_ok=True)
            hit.write_text(json.dumps(result))
        return result

    tasks = [(z, s, out) for z, (subs, out) in work.items() for s in subs]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = pool.map(one, tasks)
        results = {(z, s): r for (z, s, _), r in zip(tasks, done, strict=True)}
    tables = {}
    for z, (subs, out) in work.items():
        sources = read_checks(z)
        checks = {n: load_check(s, n)["possible"] for n, s in sources.items()}
        rows = tables[z] = []
        notes, names = several(subs, ids), feedback_names(subs)
        for sub in subs:
            result = results[z, sub]
            result = noted(result, notes[sub]) if sub in notes else result
            rows.append(row_of(Path(sub).name, result, checks))
            rows[-1]["seed"] = rows[-1]["seed"] if varied[z] else ""  # nothing varies
            if out:
                write_feedback(names[sub], result, rows[-1], checks, out, varied[z])
    return tables


def noted(result: dict, note: str) -> dict:
    """The result with `note` said in its row's reason, its feedback and its log."""
    result = {**result, "log": [note, *result["log"]]}
    for key in "note", "reason":
        result[key] = "; ".join(filter(None, [result.get(key), note]))
    return result


def several(subs: list[Path], ids: list[str] | None = None) -> dict[Path, str]:
    """For each submission of a student who handed in several, a line naming them:
    each is graded, and `merge` counts none until one is kept. A student is the
    roster id the file name starts with (`student_of`), without a roster the file
    name's stem (`s1.ipynb` and `s1.zip`)."""
    by: dict[str | None, list[Path]] = {}
    for sub in subs:
        stem = Path(sub).stem
        by.setdefault(stem if ids is None else student_of(stem, ids), []).append(sub)
    notes = {}
    for sid, found in by.items():
        said = ", ".join(Path(s).name for s in found)
        for sub in found if sid is not None and len(found) > 1 else ():
            notes[sub] = f"several submissions of {sid} ({said}): keep one"
    return notes


def feedback_names(subs: list[Path]) -> dict[Path, str]:
    """The name of each submission's feedback and log: its file name's stem, or the
    whole file name where another submission has the same stem (`s1.ipynb`,
    `s1.zip`), so that neither overwrites the other."""
    stems = [Path(s).stem for s in subs]
    return {s: Path(s).name if stems.count(Path(s).stem) > 1 else Path(s).stem
            for s in subs}  # fmt: skip


def handed_cells(chapter: Path, unknown=()):
    """The function (seed, submission) -> the data cells `distribute` hands out for
    that seed, each as (the names it defines, its source), of the chapter notebook
    `chapter`; none for the submissions `unknown` (of a student whose seed the roster
    lacks: what they were handed is not known, so nothing is compared)."""
    from tools.questions import load_variants

    variants = load_variants(chapter)

    def cells(seed: int, sub=None) -> list[tuple[list[str], str]]:
        if sub in unknown:
            return []
        return [(v["names"], v["cell"](v["draw"](seed))) for v in variants.values()]

    return cells


def changed_data(submission: Path, handed: list, seed: int) -> str:
    """One line when a data cell handed out for `seed` is not in the submission (the
    notebook of another student, or one edited), else "": the checks judge the
    roster's numbers whatever the notebook's cells hold, so this explains lost
    points and may flag a borrowed notebook. Whitespace is not compared."""
    import nbformat

    try:  # a zip of otter's export: its notebook
        with warnings.catch_warnings():  # a cell without an id: the row says so
            warnings.simplefilter("ignore")
            nb = nbformat.reads(notebook_of(submission)[1].decode(), as_version=4)
    except Exception:
        return ""
    have = {re.sub(r"\s+", "", c.source) for c in nb.cells if c.cell_type == "code"}
    gone = [ns for ns, cell in handed if re.sub(r"\s+", "", cell) not in have]
    if not gone:
        return ""
    names = ", ".join(n for ns in gone for n in ns)
    cells = "data cell that defines" if len(gone) == 1 else "data cells that define"
    return (
        f"the {cells} {names} {'is' if len(gone) == 1 else 'are'} not as handed out"
        f" for variant {seed} (another student's numbers, or edited): the answers"
        " were judged on the numbers handed out"
    )


def write_table(rows: list[dict], path: Path) -> None:
    first = ["submission", "status", "seed", "total", "possible"]
    rest = sorted({k for r in rows for k in r} - {*first, "reason"})
    write_csv(rows, path, [*first, *rest, "reason"])


def write_csv(
    rows: list[dict], path: Path, fields: list[str], sep=",", encoding="utf-8"
) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with Path(path).open("w", newline="", encoding=encoding) as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, delimiter=sep)
        writer.writeheader()
        writer.writerows(rows)


def write_feedback(stem, result: dict, row: dict, checks, out: Path, varied=True):
    """`feedback/<stem>.md` for the student, `log/<stem>.log` for the TA; `varied`:
    the assignment has variants (else the seed is not the student's own numbers)."""
    points = f"{row['total']:g} of {row['possible']:g} points"
    lines = [f"# Feedback: {stem}", "", f"Checked automatically: {points}."]
    seed = str(row.get("seed", ""))  # "" where no seed applies; "0" the book's
    if seed and varied and result["status"] == "ok":
        numbers = "the book's numbers" if seed == "0" else "your own numbers"
        lines[-1] += f" Judged on {numbers} (variant {seed})."
    if result["status"] != "ok":
        lines += ["", f"**Not graded normally** ({result['status']}): {row['reason']}"]
    elif result.get("note"):  # else in the reason
        lines += ["", f"Note: {result['note']}."]
    lines += ["", "| question | points | what to look at |", "| --- | --- | --- |"]
    for q, possible in checks.items():
        hints = result.get("questions", {}).get(q, {}).get("hints", [])
        # One line per hint, and nothing that would break the Markdown table.
        said = [(h.strip().splitlines() or [""])[0].replace("|", "/") for h in hints]
        said = [h for h in dict.fromkeys(said) if h]  # and once: not inside another
        said = joined(h for h in said if not any(o != h and o in h for o in said))
        lines.append(f"| {q} | {row[q]:g} / {possible:g} | {said} |")
    lines += ["", "Written answers are graded by hand and come with the final grade."]
    log = "\n\n".join(result.get("log", []))
    for path, text in (
        (f"feedback/{stem}.md", "\n".join(lines)),
        (f"log/{stem}.log", log),
    ):
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text + "\n")


# --- What the autograder zip declares

# Lines of requirements.txt that build or test the book, not needed to grade.
BOOK_TOOLS = re.compile(r"^(-e |jupyter-book|sphinx|myst|nbval|pytest|hypothesis|ruff)")


@functools.cache
def wheel() -> Path:
    """The `attnsig` wheel, built once per process from this checkout's `src` into a
    temporary folder that is removed when the process exits."""
    from tools.student_edition import package_wheel

    where = Path(tempfile.mkdtemp(prefix="attnsig-wheel-"))
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    return package_wheel(where)


def zip_environment(folder: Path) -> dict:
    """The otter assign settings that make the autograder zip declare the book's
    pinned environment: `requirements.txt` (requirements.txt minus the book's tools,
    every line pinned by constraints.txt) and the `attnsig` wheel, written to `folder`.
    """
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            pins[re.split(r"[=\[ ]", line)[0].lower()] = line.strip()
    keep = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not BOOK_TOOLS.match(line):
            keep.append(pins.get(re.split(r"[=\[ <>]", line)[0].lower(), line))
    whl = Path(shutil.copy(wheel(), folder)).name
    keep.append(f"./files/{whl}")  # relative to the unpacked zip
    (folder / "requirements.txt").write_text("\n".join(keep) + "\n")
    python = "{}.{}".format(*sys.version_info)
    return {
        "requirements": "requirements.txt",
        "files": [whl],
        "python_version": python,
    }


# --- Rubric questions: one page per question, a sheet, and the final grades


def rubric_questions(rubric_md: str) -> list[dict]:
    """The questions of `autograder/rubric.md` graded by hand, with their items."""
    found, current = [], None
    for line in rubric_md.splitlines():
        if m := re.match(r"## (\w+)(?: \((\S+) points, \w+\)|: written part)", line):
            found.append({"name": m.group(1), "manual": m.group(2) is not None})
            current = found[-1]["items"] = []
        elif line.startswith("## "):
            current = None
        elif current is not None and line.startswith("- "):
            item = line[2:].strip()
            pts = re.search(r"\((\d+(?:\.\d+)?)\)$", item)
            current.append((item, float(pts.group(1)) if pts else 0.0))
    return found


def answers(nb, handed_out) -> dict[str, list]:
    """Per rubric anchor, the cells a student wrote: a manual question's cells after
    its prompt (the k-th `BEGIN QUESTION`), up to the next cell of the handed-out
    notebook that is not an answer stub; an auto-checked question's written part, its
    answer code cells (`answer_cells`: the TA reads how it was computed) and the cells
    after its check cell, up to the same."""
    book = {
        c.source
        for c in handed_out.cells
        if "otter_answer_cell" not in c.metadata.get("tags", [])
        and not c.source.startswith("**Written part**")
    }
    checked = re.findall(
        r'^\s*grader\.check\("(\w+)"\)',
        "\n".join(c.source for c in nb.cells if c.cell_type == "code"),
        re.M,
    )
    code = answer_cells(nb.cells, set(checked))
    for j, c in enumerate(nb.cells[:-1]):  # a variant's data cell (`distribute`'s)
        if c.cell_type == "markdown" and c.source.startswith("**Your numbers.**"):
            code.pop(j + 1, None)
    spans, manual = {}, 0
    for i, cell in enumerate(nb.cells):
        anchor = None
        if cell.cell_type == "markdown" and "<!-- BEGIN QUESTION -->" in cell.source:
            anchor, manual = f"manual-{manual}", manual + 1
        elif m := re.match(r'grader\.check\("(\w+)"\)', cell.source.strip()):
            anchor = m.group(1)
        if anchor is None:
            continue
        span = [nb.cells[j] for j in sorted(code) if code[j] == anchor]
        for c in nb.cells[i + 1 :]:
            if c.source in book or c.metadata.get("editable") is False:
                break
            span.append(c)
        spans[anchor] = span
    return spans


def rubric_pages(built: Path, folder: Path, out: Path, pdf: bool = True) -> list[Path]:
    """One HTML page (and PDF) per rubric question with every student's answer, and
    `rubric-sheet.csv` with a column per rubric item; `built` is the assignment's
    build (`_build/assignments/<chapter>`)."""
    import nbformat

    chapter = built.name
    rubric_md = (built / "autograder" / "rubric.md").read_text()
    qs = rubric_questions(rubric_md)
    handed = nbformat.read(built / "student" / f"{chapter}.ipynb", as_version=4)
    stubs = {c.source for c in handed.cells}
    subs, spans = submissions(folder), {}
    for sub in subs:
        try:
            text = notebook_of(sub)[1].decode()
            with warnings.catch_warnings():  # a cell without an id: `grade` says so
                warnings.simplefilter("ignore")
                nb = nbformat.reads(text, as_version=4)
            spans[sub.stem] = answers(nb, handed)
        except NotASubmission as exc:
            spans[sub.stem] = str(exc)
        except Exception:
            spans[sub.stem] = None
    out.mkdir(parents=True, exist_ok=True)
    pages, manual = [], 0
    style = (
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}"
        "pre.code{border-left:3px solid #69c}"
        "section{break-inside:avoid;border-top:1px solid #999}</style>"
    )
    for q in qs:
        anchor = f"manual-{manual}" if q["manual"] else q["name"]
        manual += q["manual"]
        body = [f"<h1>{chapter}: {q['name']}</h1><ul>"]
        body += [f"<li>{html.escape(item)}</li>" for item, _ in q["items"]] + ["</ul>"]
        for stem, found in spans.items():
            cells = found.get(anchor, ()) if isinstance(found, dict) else ()
            shown = "".join(
                f"<pre class='{c.cell_type}'>{html.escape(c.source)}</pre>"
                for c in cells
                if c.source not in stubs  # a placeholder left as handed out
            )
            shown = shown or "<p>(no answer)</p>"
            if found is None:
                shown = "<p>(the notebook cannot be read)</p>"
            elif isinstance(found, str):  # a zip without one notebook
                shown = f"<p>({html.escape(found)})</p>"
            body.append(f"<section><h2>{html.escape(stem)}</h2>{shown}</section>")
        page = out / f"{q['name']}.html"
        page.write_text(f"<!doctype html><meta charset=utf-8>{style}{''.join(body)}")
        pages.append(page)
    if pdf:
        to_pdf(pages)
    items = [(f"{q['name']}: {item}", p) for q in qs for item, p in q["items"]]
    rows = [{"submission": "(points)"} | {k: f"{p:g}" for k, p in items}]
    # A sheet filled in earlier keeps its points: a new notebook gets a new row, and a
    # removed one keeps its row (merge reads the row of the submission it counts).
    sheet = out / "rubric-sheet.csv"
    fields = ["submission", *dict(items)]
    hand = read_sheet(sheet, False)[1:] if sheet.exists() else []
    kept = {r["submission"]: r for r in sheet_items(hand, fields[1:], sheet)}
    rows += [kept.pop(stem, {"submission": stem}) for stem in spans]
    rows += list(kept.values())
    # with a byte-order mark, which Excel needs to read UTF-8 (one-head's items have
    # `≈`); a sheet a TA saved again keeps its separator and encoding
    fmt = read_csv(sheet, "submission")[1:] if sheet.exists() else (",", "utf-8-sig")
    write_csv(rows, sheet, fields, *fmt)
    (out / "rubric.md").write_text(rubric_md)  # the items, for `merge` alone
    return pages


def sheet_items(rows: list[dict], items: list[str], sheet: Path) -> list[dict]:
    """The rows of a filled-in rubric sheet, each column named as the rubric item it
    is (`sheet_column`); two columns of one item raise a ValueError (a copy renamed
    would count the item twice)."""
    fields = ["submission", *items]
    cols = {c: sheet_column(c, fields, sheet) for c in (rows[0] if rows else ())}
    named = list(cols.values())
    if twice := [c for c in cols if named.count(cols[c]) > 1]:
        a, b = [c for c in twice if cols[c] == cols[twice[0]]][:2]
        raise ValueError(f"{sheet}: columns {a!r} and {b!r} are one item: remove one")
    return [{cols[c]: v for c, v in r.items()} for r in rows]


def rubric_items(sheet: Path, graded: Path, chapter: str) -> list[str] | None:
    """The rubric's items (the sheet's columns) that `rubric` wrote its sheet for,
    beside the sheet or in `graded`, else those of the build; None where none is."""
    for rubric in (sheet.parent, graded / "rubric", OUT / chapter / "autograder"):
        if (rubric / "rubric.md").exists():
            qs = rubric_questions((rubric / "rubric.md").read_text())
            return [f"{q['name']}: {i}" for q in qs for i, _ in q["items"]]
    return None


def sheet_column(column: str, fields: list[str], sheet: Path) -> str:
    """The field of the rubric sheet a column of the filled-in one is: the same, or
    the same as Excel saves it in its plain CSV, another character (`?`, a look-alike)
    for each one Windows-1252 lacks (one-head's `≈`); a column that is neither raises
    a ValueError (the sheet is left as it is)."""

    def saved_as(field):
        return len(field) == len(column) and all(
            a == b or b.encode("cp1252", "replace") == b"?"
            for a, b in zip(column, field, strict=True)
        )

    found = [column] if column in fields else [f for f in fields if saved_as(f)]
    if len(found) != 1:
        said = "name it as a rubric item, or remove it"
        raise ValueError(f"{sheet}: column {column!r} is no rubric item ({said})")
    return found[0]


def to_pdf(pages: list[Path]) -> bool:
    """Print the pages to PDF with Chromium (Playwright), where it is installed."""
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            exe = os.environ.get("ATTNSIG_CHROMIUM") or shutil.which("chromium")
            browser = p.chromium.launch(executable_path=exe)
            page = browser.new_page()
            for path in pages:
                page.goto(path.resolve().as_uri())
                page.pdf(path=str(path.with_suffix(".pdf")), format="A4")
            browser.close()
        return True
    except Exception as exc:  # no browser: the HTML pages are the deliverable
        print(f"no PDF ({type(exc).__name__}: {exc})", file=sys.stderr)
        return False


def _stem(submission: str) -> str:
    return re.sub(r"\.(ipynb|zip)$", "", submission)


_NOTED: set[str] = set()  # the files said to be Windows-1252


def read_csv_text(path: Path) -> tuple[str, str]:
    """The text of a CSV file saved by a spreadsheet, and the encoding to write it back
    in. Read: UTF-8 (with a byte-order mark, as "CSV UTF-8" writes it, or without);
    UTF-16 with its byte-order mark (Excel's "Unicode text"), written back so; else
    Windows-1252, the encoding of Excel's plain "CSV" on Windows (said in one line,
    once a file). All but UTF-16 are written back as UTF-8 with a byte-order mark,
    which Excel opens right. Bytes of none raise a ValueError, and so does a path
    that is not a file."""
    if not Path(path).is_file():
        raise ValueError(f"{path}: no such file")
    data = Path(path).read_bytes()
    try:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return data.decode("utf-16"), "utf-16"
        return data.decode("utf-8-sig"), "utf-8-sig"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:  # bytes 0x81, 0x8d, 0x8f, 0x90, 0x9d: no cp1252 text
        raise ValueError(
            f"{path}: neither UTF-8 nor Windows-1252 text (save it as CSV UTF-8)"
        ) from None
    if str(path) not in _NOTED:  # `grade` reads the roster more than once
        _NOTED.add(str(path))
        print(f"note: {path} is not UTF-8; read as Windows-1252 (Excel's plain CSV)")
    return text, "utf-8-sig"


def read_csv(path: Path, key: str, known=()) -> tuple[list[dict], str, str]:
    """The rows of a CSV file a spreadsheet saved (`read_csv_text`), its separator and
    the encoding to write it back in. The separator is `;` or a tab where the header
    line splits at it into cells with `key` among them, else `,`. The header's `key`
    and `known` columns are named ignoring case and spaces around (`ID ` is `id`).
    Empty cells at the end of a line (Excel's trailing `;`) are dropped; other cells
    beyond the header's raise a ValueError naming the row, and so do two columns of
    one name, or two with none (a write-back would keep one)."""
    text, encoding = read_csv_text(path)
    names = {key, *known}

    def header(cells):
        said = [c.strip().lower() if c.strip().lower() in names else c for c in cells]
        while said and not said[-1].strip():
            said.pop()
        return said

    first = text.partition("\n")[0].replace('"', "")
    sep = next((s for s in ";\t" if key in header(first.split(s))), ",")
    lines = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    fields, rows = header(next(lines, [])), []
    twice = [f for f in dict.fromkeys(fields) if fields.count(f) > 1]
    if twice:  # else the last would win (a rubric item's points), a write-back drop one
        said = " (case and spaces ignored)" if twice[0] in names else ""
        said = f"named {twice[0]!r}{said}" if twice[0] else "with no name"
        fix = "remove one" if key == "submission" else "rename or remove one"  # a sheet
        raise ValueError(f"{path}: two columns {said}: {fix}")
    for cells in filter(None, lines):  # (a blank line: none)
        rows.append(dict(zip(fields, [*cells, *[""] * len(fields)], strict=False)))
        if extra := [c for c in cells[len(fields) :] if c.strip()]:
            where = f"{path}: row {rows[-1].get(key, '')!r}"
            raise ValueError(f"{where} has cells beyond the header's: {extra}")
    return rows, sep, encoding


def read_sheet(path: Path, numbers: bool = True) -> list[dict]:
    """A rubric sheet as saved by a spreadsheet (`read_csv`: UTF-8, UTF-16 or
    Windows-1252, `;`, `,` or a tab between cells), a decimal comma, points as floats;
    a cell that is not a number raises a ValueError naming its row and column. The
    `(points)` row (the items' worth) comes first wherever a sort put it; a sheet
    without it, or with two, raises a ValueError."""
    rows = read_csv(path, "submission")[0]
    if rows and "submission" not in rows[0]:
        raise ValueError(f"{path}: no 'submission' column (the sheet `rubric` writes)")
    top = [r for r in rows if (r["submission"] or "").strip() == "(points)"]
    if rows and len(top) != 1:  # else a student's row would be read as the worth
        said = "two '(points)' rows" if top else "no '(points)' row"
        raise ValueError(f"{path}: {said}, the items' worth: keep the one rubric wrote")
    rows = top + [r for r in rows if r not in top]
    for r in rows if numbers else ():  # the items' points (first row) too
        for col, cell in r.items():
            if col == "submission" or not (cell or "").strip():
                r[col] = r[col] if col == "submission" else 0.0
                continue
            try:
                r[col] = float(cell.strip().replace(",", "."))
            except ValueError:
                where = f"{path}: row {r['submission']!r}, column {col!r}"
                raise ValueError(f"{where}: {cell!r} is not a number") from None
    return rows


def rubric_rows(hand: list[dict], graded: list[str]) -> dict[str, dict]:
    """The rubric sheet's rows by the graded submission (file stem) each is for,
    matched as `grade` matches roster ids (`student_of`): in composed form (`_nfc`),
    case ignored (a name typed in by hand may change it) unless two submissions
    differ only in case. A row for no graded submission, or a second row for one
    (the exact name wins), is not counted, and said in a line each."""
    fold = len({_nfc(s).lower() for s in graded}) == len(set(map(_nfc, graded)))

    def key(name):
        return _nfc(name).lower() if fold else _nfc(name)

    named = {key(s): s for s in graded}
    found: dict[str, dict] = {}
    for exact in (True, False):
        for r in hand:
            name = _stem((r["submission"] or "").strip())
            sub = named.get(key(name))
            if sub is not None and (_nfc(name) == _nfc(sub)) == exact:
                found.setdefault(sub, r)
    for r in hand:
        name = _stem((r["submission"] or "").strip())
        sub = named.get(key(name))
        if sub is None and (name or any(v for k, v in r.items() if k != "submission")):
            print(f"rubric row {name!r} is for no graded submission: not counted")
        elif sub is not None and found[sub] is not r:
            print(f"rubric row {name!r}: a second row for {sub}, not counted")
    return found


def merge(
    scores: Path, roster: Path, sheet: Path | None, out: Path, items=None
) -> list[dict]:
    """Final grades: auto + rubric points per question, and the total, one row per
    roster student (`id`, `name`), matched to a submission named after the id.
    `items`: the rubric's items, which the sheet's columns must be (`sheet_items`)."""
    auto = read_csv(scores, "submission")[0]
    hand = read_sheet(sheet) if sheet else []
    hand = hand if items is None else sheet_items(hand, items, sheet)
    top, *hand = hand or [{}]  # top: the items' points
    meta = {"submission", "status", "seed", "total", "possible", "reason"}

    students = read_roster(roster)
    ids = [r["id"].strip() for r in students]

    def of(rows, sid):  # (the row, or None; why none when several fit)
        # The rule `grade` names submissions by (`student_of`), so that an id with a
        # dot or a dash, or `<id>.ipynb` beside `<id>_v2.ipynb`, is matched alike.
        found = [r for r in rows if student_of(_stem(r["submission"]), ids) == sid]
        if len(found) == 1:
            return found[0], ""
        names = ", ".join(r["submission"] for r in found)  # v06.ipynb, v06.zip
        return None, f"several submissions ({names}): keep one and run again" * bool(
            found
        )

    rubric = rubric_rows(hand, [_stem(r["submission"]) for r in auto])
    qcols = [k for k in (auto[0] if auto else {}) if k not in meta]
    hcols = list(hand[0]) if hand else []
    hq = list(dict.fromkeys(c.split(": ", 1)[0] for c in hcols if ": " in c))
    rows = []
    for student, sid in zip(students, ids, strict=True):
        row = {"id": sid, "name": student.get("name", "")}
        a, several = of(auto, sid)
        a = a or {}
        # the rubric row of the submission that counts, not of one removed since
        counted = _stem(a.get("submission", ""))
        h = rubric.get(counted, {})
        status = a.get("status", "no submission")
        row["note"] = several or ("" if status == "ok" else status)
        if a and hand and not h:
            row["note"] = "; ".join(
                filter(None, [row["note"], f"no rubric row for {counted}"])
            )
        for q in dict.fromkeys(qcols + hq):
            pts = float(a.get(q) or 0)
            pts += sum(h.get(c) or 0 for c in hcols if c.startswith(f"{q}: "))
            row[q] = round(pts, 6)
            if pts < 0:  # possible (a rubric item can take auto points back)
                print(f"check {sid}: {q} totals {pts:g}")
        for c in (c for c in hcols if ": " in c and h.get(c, 0) > float(top[c])):
            print(f"check {sid}: {h[c]:g} points for {c!r}, worth {top[c]:g}")
        row["points"] = round(sum(row[q] for q in dict.fromkeys(qcols + hq)), 6)
        rows.append(row)
    for name, h in rubric.items():  # points for a notebook of no roster student
        if student_of(name, ids) is None and any(h.get(c) for c in hcols if ": " in c):
            print(f"not counted: the rubric row for {name} (no student of the roster)")
    write_csv(rows, out, list(rows[0]) if rows else ["id"], encoding="utf-8-sig")
    return rows


# --- The roster: a CSV `id,name[,email][,variant]`, one row per student


ROSTER = ("name", "email", "variant")  # its columns but `id`, which it must have


def read_roster(path: Path) -> list[dict]:
    """The roster's students (each a dict of its columns: `read_csv`), ids required,
    each one usable as a file name (`distribute` makes a folder per id): not `.` or
    `..`, without `/` or `\\`, and no two alike as `grade` compares them (`_nfc`, case
    ignored), nor an email alike another row's id or email (Gradescope finds a student
    by either); a seed in `variant` is a whole number (`12.0` read as 12). A
    ValueError names the rows that break this, and an email column named otherwise
    (`E-Mail`)."""
    rows = read_csv(path, "id", ROSTER)[0]
    said = r".*\be[-_ ]?mail\b.*|\s*mail\s*"  # E-Mail, Student Email; not Gmail
    like = [f for f in (rows[0] if rows else ()) if re.fullmatch(said, f, re.I)]
    if like and "email" not in rows[0]:  # Gradescope would find no student by it
        raise ValueError(f"{path}: name the column {like[0]!r} as 'email'")
    for i, r in enumerate(rows, 2):  # a seed: a whole number; pandas writes 12.0
        seed = (r.get("variant") or "").strip()
        if seed and not (m := re.fullmatch(r"(\d+)(\.0*)?", seed)):
            raise ValueError(
                f"{path}: row {i}'s variant {seed!r} is not a seed: 0 (the book's"
                " numbers), a positive whole number, or empty to draw one"
            )
        if seed:
            r["variant"] = m[1]
    missing = [i + 2 for i, r in enumerate(rows) if not (r.get("id") or "").strip()]
    if missing:
        raise ValueError(f"{path}: rows {missing} have no id")
    bad = [
        (i + 2, r["id"].strip())
        for i, r in enumerate(rows)
        if r["id"].strip() in (".", "..") or set(r["id"]) & set("/\\\0")
    ]
    if bad:
        said = ", ".join(f"row {i}: {sid!r}" for i, sid in bad)
        raise ValueError(f"{path}: ids that cannot name a file ({said})")
    seen: dict[str, tuple[int, str]] = {}
    for i, r in enumerate(rows, 2):
        sid = r["id"].strip()
        j, other = seen.setdefault(_nfc(sid).lower(), (i, sid))
        if j != i:
            raise ValueError(
                f"{path}: rows {j} and {i} have the same id ({other!r}, {sid!r};"
                " case is ignored): give each student an id of their own"
            )
    # Gradescope finds a student by id or by email (`variants.json`): an email that
    # is another row's id or email would grade one student on a classmate's seed
    for i, r in enumerate(rows, 2):
        email = (r.get("email") or "").strip()
        j, other = seen.setdefault(_nfc(email).lower(), (i, email))
        if email and j != i:
            raise ValueError(
                f"{path}: row {i}'s email {email!r} is also row {j}'s id or email"
                f" ({other!r}; case is ignored): Gradescope finds a student by"
                " either, so give each student an email of their own"
            )
    return rows


def assign_seeds(path: Path) -> list[dict]:
    """The roster with a `variant` seed for every student, written back to `path`:
    the seeds it has are kept (0: the book's numbers), the missing ones drawn with
    `secrets`, distinct and positive. The instructor keeps the file: grading reads
    the seeds from it. It is written with the separator it had, in UTF-8 with a
    byte-order mark (or UTF-16, as read), so that Excel opens it right."""
    import secrets

    rows = read_roster(path)
    taken = {int(r["variant"]) for r in rows if (r.get("variant") or "").strip()}
    for r in rows:
        if not (r.get("variant") or "").strip():
            seed = 0
            while seed == 0 or seed in taken:
                seed = 1 + secrets.randbelow(2**31 - 2)
            taken.add(seed)
            r["variant"] = str(seed)
    fields = list(dict.fromkeys([*rows[0], "variant"])) if rows else ["id", "name"]
    write_csv(rows, path, fields, *read_csv(path, "id", ROSTER)[1:])
    return rows


def _nfc(text: str) -> str:  # macOS writes file names decomposed (NFD)
    return unicodedata.normalize("NFC", text)


def student_of(stem: str, ids: list[str]) -> str | None:
    """The roster id a submission belongs to: its file name is the id, or starts with
    it and a separator (`_`, `-`, `.`, space), so `s1234567_hw4` is s1234567's (an
    LMS download names files otherwise: they are renamed first); the longest such id
    wins. None: no student of the roster. Names and ids are compared in Unicode's
    composed form (NFC) and ignoring case (`read_roster` refuses two ids alike so)."""
    stem = _nfc(stem).lower()
    fits = [
        i
        for i in ids
        if re.fullmatch(re.escape(_nfc(i).lower()) + r"([_\-. ].*)?", stem)
    ]
    return max(fits, key=len) if fits else None


def flag_unseeded(rows: list[dict], students: list[dict]) -> int:
    """In a chapter with variants (its rows carry seeds), say in the reason of each
    row of a roster student without a seed that it was judged on the book's numbers;
    how many roster students have none (0 for a chapter without variants)."""
    ids = [r["id"].strip() for r in students]
    none = {r["id"].strip() for r in students if not (r.get("variant") or "").strip()}
    if not any(r["seed"] != "" for r in rows):
        return 0
    for r in rows:
        if student_of(Path(r["submission"]).stem, ids) in none:
            r["reason"] = "; ".join(filter(None, [r["reason"], NO_SEED]))
    return len(none)


def roster_seeds(subs: list[Path], roster: Path) -> dict[Path, int | None]:
    """Each submission's variant seed from the roster (`student_of`; a student without
    a seed gets 0, the book's numbers); None for a submission of no student."""
    seeds = {r["id"].strip(): int(r.get("variant") or 0) for r in read_roster(roster)}
    students = {sub: student_of(Path(sub).stem, list(seeds)) for sub in subs}
    return {sub: seeds.get(sid) for sub, sid in students.items()}


# --- Command line


def check_arguments(args) -> None:
    """One line (SystemExit) for a folder or an assignment that is not there, before
    `grade`, `rubric` or `merge` reads or writes anything: a mistyped folder is not
    created, an unknown chapter is named with the ones that have checks."""
    from tools.book import chapter_notebooks
    from tools.questions import checks_path

    if not args.folder.is_dir():
        raise SystemExit(f"no folder {args.folder} (the submitted notebooks)")
    zip_path = OUT / args.chapter / "autograder" / "autograder.zip"
    if args.command == "merge" or zip_path.exists():  # merge reads graded/ alone
        return
    known = sorted(p.stem for p in chapter_notebooks() if checks_path(p).exists())
    if args.chapter not in known:
        said = f"no assignment {args.chapter!r}: one of {', '.join(known)}"
        raise SystemExit(said)
    build = f"python -m tools.assignments build {args.chapter}"
    raise SystemExit(f"no {zip_path}: run `{build}` first")


def add_commands(sub) -> None:
    """The `grade`, `rubric` and `merge` commands (of `python -m tools.assignments`)."""
    g, r, m = (
        sub.add_parser(name, help=text)
        for name, text in (
            ("grade", "grade a folder of submitted notebooks"),
            ("rubric", "one page per rubric question, a rubric sheet"),
            ("merge", "final grades: auto + rubric, for the LMS"),
        )
    )
    for p in (g, r, m):
        p.add_argument("chapter", help="the assignment, e.g. scaled-dot-product")
        p.add_argument("folder", type=Path, help="the submitted *.ipynb (or *.zip)")
    per = "seconds per notebook (default %(default)g)"
    g.add_argument("--timeout", type=float, default=TIMEOUT, help=per)
    g.add_argument("--jobs", type=int, default=0, help="at a time (0: every core)")
    g.add_argument("--fresh", action="store_true", help="ignore the cache")
    roster = (
        "CSV id,name[,email],variant (from `distribute`): each submission, named "
        "<id>[_...].ipynb, is graded on its student's numbers; without, on the book's"
    )
    g.add_argument("--roster", type=Path, help=roster)
    r.add_argument("--no-pdf", action="store_true", help="HTML pages only")
    m.add_argument(
        "--roster", type=Path, required=True, help="CSV with columns id, name"
    )
    m.add_argument("--rubric", type=Path, help="the filled-in rubric sheet")


def not_read(folder: Path) -> list[Path]:
    """The notebooks and zips in `folder` that `grade` and `rubric` do not read: in a
    subfolder (as Moodle's and Gradescope's downloads keep them) or ending in `.IPYNB`,
    `.ZIP` or another case; not those in `graded/` or a hidden folder
    (.ipynb_checkpoints)."""
    found = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.suffix.lower() not in (".ipynb", ".zip") or rel.parts[0] == "graded":
            continue
        if any(part.startswith(".") for part in rel.parts[:-1]) or not p.is_file():
            continue
        if len(rel.parts) > 1 or p.suffix not in (".ipynb", ".zip"):
            found.append(rel)
    return found


def say_not_read(folder: Path) -> None:
    """One line naming the files of `folder` not read (`not_read`), if any."""
    if found := not_read(folder):
        names = ", ".join(map(str, found[:5])) + ", ..." * (len(found) > 5)
        print(
            f"not read: {len(found)} notebooks or zips in a subfolder or not ending in"
            f" .ipynb or .zip ({names}); move them into {folder} as <id>.ipynb or"
            " <id>.zip"
        )


def run_command(args) -> int:
    check_arguments(args)
    graded = args.folder / "graded"
    if args.command in ("grade", "rubric"):
        say_not_read(args.folder)
    if args.command == "grade":
        subs = [p.resolve() for p in submissions(args.folder)]
        seeds = roster_seeds(subs, args.roster) if args.roster else None
        ids = [r["id"].strip() for r in read_roster(args.roster)] if seeds else None
        zip_path = OUT / args.chapter / "autograder" / "autograder.zip"
        if not zip_path.exists():
            build = f"python -m tools.assignments build {args.chapter}"
            raise SystemExit(f"no {zip_path}: run `{build}` first")
        if seeds is None and has_variants(zip_path):  # else no numbers to choose
            print(NO_ROSTER)
        private = (args.roster,) if args.roster else ()
        if (handed := OUT / DISTRIBUTED).exists():  # the zips `distribute` wrote
            private += tuple(map(Path, handed.read_text().split("\n")[:-1]))
        handed = None
        if seeds is not None and has_variants(zip_path):
            from tools.book import chapter_notebooks

            path = next(
                (p for p in chapter_notebooks(ROOT) if p.stem == args.chapter), None
            )
            students = read_roster(args.roster)
            none = {
                r["id"].strip() for r in students if not r.get("variant", "").strip()
            }
            unknown = {s for s in subs if student_of(s.stem, ids) in none}
            handed = handed_cells(path, unknown) if path else None
        rows = grade(
            zip_path,
            subs,
            args.jobs,
            args.timeout,
            graded,
            args.fresh,
            seeds,
            private,
            handed,
            ids,
        )
        if args.roster and (n := flag_unseeded(rows, read_roster(args.roster))):
            print(f"roster students without a variant seed: {n}, judged on the"
                  " book's numbers (the roster `distribute` wrote?)")  # fmt: skip
        write_table(rows, graded / "scores.csv")
        for old in [*graded.glob("feedback/*.md"), *graded.glob("log/*.log")]:
            if old.stem not in feedback_names(subs).values():  # of one removed since
                old.unlink()
        bad = sum(r["status"] != "ok" for r in rows)
        print(f"graded {len(rows)} submissions ({bad} not ok) -> {graded}")
    elif args.command == "rubric":
        out = graded / "rubric"
        pages = rubric_pages(OUT / args.chapter, args.folder, out, not args.no_pdf)
        print(f"{len(pages)} rubric pages and rubric-sheet.csv -> {out}")
    else:
        if not (graded / "scores.csv").exists():
            raise SystemExit(f"no {graded / 'scores.csv'}: run grade first")
        sheet = args.rubric or graded / "rubric" / "rubric-sheet.csv"
        if args.rubric and not args.rubric.exists():
            raise SystemExit(f"no rubric sheet at {args.rubric}")
        if not sheet.exists():
            print(f"no rubric sheet at {sheet}: the grades hold the auto points only")
            sheet = None
        items = rubric_items(sheet, graded, args.chapter) if sheet else None
        if sheet and items is None:  # a column of no item would count twice
            said = "the sheet's columns are not checked against the rubric"
            where = f"beside the sheet, in {graded / 'rubric'} or in the build"
            print(f"note: no rubric.md {where}: {said}")
        rows = merge(
            graded / "scores.csv", args.roster, sheet, graded / "grades.csv", items
        )
        print(f"final grades of {len(rows)} students -> {graded / 'grades.csv'}")
    return 0


def main(argv: list[str]) -> int:
    """`judge` (internal: one submission, JSON on stdout) and the commands above."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.grading",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    j = sub.add_parser("judge", help="grade one notebook (JSON on stdout)")
    for name in ("autograder_zip", "submission", "scratch"):  # scratch: empty folder
        j.add_argument(name, type=Path)
    j.add_argument("--seed", type=int, default=0, help="the student's variant seed")
    j.add_argument("--hide", nargs="*", default=[])
    add_commands(sub)
    a = parser.parse_args(argv)
    if a.command != "judge":
        try:  # a bad sheet or roster: one line, not a traceback
            return run_command(a)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    print(json.dumps(judge(a.autograder_zip, a.submission, a.hide, a.scratch, a.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
