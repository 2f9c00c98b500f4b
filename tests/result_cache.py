"""Pytest plugin: a test unit whose inputs are unchanged since it passed is not rerun.

    python -m pytest -p tests.result_cache ...      (what `make test` does)
    ATTNSIG_NO_CACHE=1 python -m pytest -p tests.result_cache ...   (runs everything)
    python -m tests.result_cache step NAME [--outputs P...] [--inputs P...] -- CMD...

A unit is a notebook (its nbval cells) or a test module (its tests). Its key is the
SHA-256 of everything its outcome can depend on:

- a notebook: its bytes, the other files of its folder (the grading checks, data), every
  file of the `attnsig` package that the run imports, the nbval options and the
  sanitizer file they name;
- any other unit: the whole working tree as git sees it (tracked files with their
  current bytes, untracked files that are not ignored), so that any edit reruns every
  test module; the browser suite and the test of the handed-out notebooks also read
  the built editions and Chromium (`EXTRA_INPUTS`);
- every unit: constraints.txt, pyproject.toml, tests/sanitize.cfg, this file, the
  Python version, the BLAS and thread variables, `CI` and every `ATTNSIG_*` variable.

When every test of a unit passed (or skipped for a reason fixed by those inputs,
`STABLE_SKIPS`), the outcomes are stored under the key in `_build/test-cache/`. A later
run that collects the same tests under the same key reports them without running them:
as passed (or skipped, with the stored reason) with the JUnit property `cached`, so
that totals stay comparable; pytest's closing line counts them as "cached". A failure
is never stored. Under pytest-xdist the workers decide and replay, the controller
stores (it sees every report), so `-n 2 --dist loadfile` works.

`step` does the same for one command of `make test` (the book built from its stored
outputs, the student edition, its check): the command is not run again when the working
tree, the environment and the `--inputs` (built files git ignores) are those of its last
successful run and its `--outputs` are still what that run left.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import io
import json
import os
import platform
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

OFF = "ATTNSIG_NO_CACHE"
NOTE = "inputs unchanged since a passing run"
COMMON = ("constraints.txt", "pyproject.toml", "tests/sanitize.cfg")
ENVIRONMENT = (
    "OPENBLAS_CORETYPE",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "PYTHONPATH",
    "CI",
)
# Skips that the key's inputs decide (the tests' code and data, ATTNSIG_* variables):
# replayed from the cache. Any other skip (something not built or not installed) means
# the unit runs again next time.
STABLE_SKIPS = re.compile(
    r"more pieces than lanes"
    r"|a value answer: blocked in its cells"
    r"|no hanging or truncated notebook in this chapter's batch"
    r"|is not in ATTNSIG_TEST_CHAPTERS"
    r"|chapter not selected"
    r"|no variants in this chapter"
    r"|ATTNSIG_SKIP_ZIP_VENV=1"
)
# Units (by path prefix) that also read files git ignores: the browser suite checks the
# built editions, the handed-out notebooks test their built copies, both in a Chromium
# (Debian's: a script that starts /usr/lib/chromium).
_CHROMIUM = (
    os.environ.get("ATTNSIG_CHROMIUM", "/usr/bin/chromium"),
    "/usr/lib/chromium",
)
EXTRA_INPUTS = {
    "tests/browser/": ("_build/html", "_build/student/html", *_CHROMIUM),
    "tests/test_handed_out_notebooks.py": (
        "_build/html/_sources",
        "_build/student/html/_sources",
        "_build/student/notebooks",
        "_build/student/student-notebooks.zip",
        *_CHROMIUM,
    ),
}


def _add_file(h, path: Path) -> None:
    """Feed a file's content to `h`; an archive by its members' names and contents."""
    h.update(f"\0{path.as_posix()}\0".encode())
    if not path.is_file():
        h.update(b"missing")
    elif path.suffix in {".zip", ".whl"}:
        _add_archive(h, path)
    else:
        h.update(path.read_bytes())


def _add_archive(h, source) -> None:
    # The build's archives carry the time they were written (the student zip and the
    # wheel inside it), which is no input of any test.
    with zipfile.ZipFile(source) as zf:
        for info in zf.infolist():
            h.update(f"{info.filename};".encode())
            if info.filename.endswith((".zip", ".whl")):
                _add_archive(h, io.BytesIO(zf.read(info)))
            else:
                h.update(f"{info.CRC}:{info.file_size};".encode())


def _files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )


@functools.cache
def _tree_digest(root: Path) -> str | None:
    """The working tree as git sees it, or None outside a git checkout."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    h = hashlib.sha256()
    for name in sorted(set(listed.decode().split("\0")) - {""}):
        _add_file(h, root / name)
    return h.hexdigest()


@functools.cache
def _package_digest() -> str:
    """Every file of the `attnsig` package that this interpreter imports."""
    spec = importlib.util.find_spec("attnsig")
    h = hashlib.sha256()
    if spec is None or spec.origin is None:
        return "no attnsig"
    for path in _files(Path(spec.origin).parent):
        _add_file(h, path)
    return f"{spec.origin}:{h.hexdigest()}"


@functools.cache
def _extra_digest(paths: tuple[str, ...], root: Path) -> str:
    h = hashlib.sha256()
    for name in paths:
        path = root / name
        for file in _files(path) if path.is_dir() else [path]:
            if root in file.parents or not file.is_file():
                _add_file(h, file)
            else:  # a program of the system (hundreds of MB): its size and time
                h.update(
                    f"{file}:{file.stat().st_size}:{file.stat().st_mtime_ns};".encode()
                )
    return h.hexdigest()


class ResultCache:
    def __init__(self, config: pytest.Config):
        self.config = config
        self.root = config.rootpath
        self.folder = self.root / "_build" / "test-cache"
        self.worker = hasattr(config, "workerinput")
        self.keys: dict[str, str] = {}  # unit -> key (where collected)
        self.replay: dict[str, tuple[str, str | None]] = {}  # nodeid -> outcome
        self.runs: dict[str, dict] = {}  # unit -> key, outcomes, ok (where reported)
        self.cached = 0

    def key(self, unit: str) -> str | None:
        path = self.root / unit
        if not path.is_file():
            return None
        h = hashlib.sha256()
        h.update(f"{unit}\0{sys.version}\0{platform.machine()}\0".encode())
        env = {
            k: v
            for k, v in os.environ.items()
            if k in ENVIRONMENT or (k.startswith("ATTNSIG_") and k != OFF)
        }
        h.update(json.dumps(sorted(env.items())).encode())
        for name in COMMON:
            _add_file(h, self.root / name)
        _add_file(h, Path(__file__))
        if path.suffix == ".ipynb":
            options = {
                k: str(v)
                for k, v in vars(self.config.option).items()
                if k.startswith("nbval") or k in {"sanitize_with", "current_env"}
            }
            h.update(json.dumps(sorted(options.items())).encode())
            for value in (
                options.get("nbval_sanitize_with"),
                options.get("sanitize_with"),
            ):
                if value and value != "None":
                    _add_file(h, self.root / value)
            h.update(_package_digest().encode())
            for sibling in sorted(path.parent.iterdir()):
                if sibling == path or (
                    sibling.is_file() and sibling.suffix != ".ipynb"
                ):
                    _add_file(h, sibling)
        else:
            tree = _tree_digest(self.root)
            if tree is None:
                return None
            h.update(tree.encode())
            for folder, extra in EXTRA_INPUTS.items():
                if unit.startswith(folder):
                    h.update(_extra_digest(extra, self.root).encode())
        return h.hexdigest()

    def record_path(self, key: str, nodeids) -> Path:
        """Where the outcomes of these tests under this key are stored (a run of some
        of a unit's tests does not replace the record of a run of all of them)."""
        selection = hashlib.sha256("\0".join(sorted(nodeids)).encode()).hexdigest()
        return self.folder / f"{key[:32]}-{selection[:32]}.json"

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        units: dict[str, list[str]] = {}
        for item in items:
            units.setdefault(item.nodeid.split("::")[0], []).append(item.nodeid)
        for unit, nodeids in units.items():
            key = self.key(unit)
            if key is None:
                continue
            self.keys[unit] = key
            try:
                record = self.record_path(key, nodeids)
                stored = json.loads(record.read_text())["outcomes"]
            except (OSError, ValueError, KeyError):
                continue
            if sorted(stored) == sorted(nodeids):  # the same tests as the passing run
                self.replay.update((n, tuple(stored[n])) for n in nodeids)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if item.nodeid not in self.replay:
            return None
        outcome, reason = self.replay[item.nodeid]
        item.user_properties.append(("cached", NOTE))
        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)

        def call():
            if outcome == "skipped":
                raise pytest.skip.Exception(reason, _use_item_location=True)

        def teardown():
            # What a real teardown does beyond the plugins' own bookkeeping: the
            # fixtures of the tests before this one end where they are no longer used.
            item.session._setupstate.teardown_exact(nextitem)

        for when, action in (
            ("setup", lambda: None),
            ("call", call),
            ("teardown", teardown),
        ):
            info = pytest.CallInfo.from_call(action, when=when)
            report = ihook.pytest_runtest_makereport(item=item, call=info)
            ihook.pytest_runtest_logreport(report=report)
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item):
        report = yield
        # Travels with the report to the xdist controller, which stores the outcomes.
        report.attnsig_cache_key = self.keys.get(item.nodeid.split("::")[0])
        return report

    def pytest_runtest_logreport(self, report):
        if self.worker:
            return
        unit = report.nodeid.split("::")[0]
        key = getattr(report, "attnsig_cache_key", None)
        run = self.runs.setdefault(unit, {"key": key, "outcomes": {}, "ok": True})
        if key is None or key != run["key"] or report.failed:
            run["ok"] = False
        elif hasattr(report, "wasxfail"):  # xfailed or xpassed: not replayed
            run["ok"] = False
        elif report.skipped:
            self.cached += ("cached", NOTE) in report.user_properties
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            reason = reason.removeprefix("Skipped: ")
            if not STABLE_SKIPS.search(reason):
                run["ok"] = False
            run["outcomes"][report.nodeid] = ("skipped", reason)
        elif report.when == "call":
            run["outcomes"][report.nodeid] = ("passed", None)
            self.cached += ("cached", NOTE) in report.user_properties

    def pytest_report_teststatus(self, report):
        if report.when == "call" and report.passed:
            if ("cached", NOTE) in report.user_properties:
                return "cached", "c", ("CACHED", {"green": True})
        return None

    def pytest_sessionfinish(self, session):
        if self.worker:
            return
        for unit, run in self.runs.items():
            if not (run["ok"] and run["outcomes"]):
                continue
            self.folder.mkdir(parents=True, exist_ok=True)
            target = self.record_path(run["key"], run["outcomes"])
            temporary = target.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(
                json.dumps({"unit": unit, "outcomes": run["outcomes"]})
            )
            os.replace(temporary, target)

    def pytest_terminal_summary(self, terminalreporter):
        if self.cached:
            terminalreporter.write_line(
                f"{self.cached} cached: {NOTE} (not run again; {OFF}=1 runs them)"
            )


def pytest_configure(config):
    if os.environ.get(OFF, "") not in {"", "0"}:
        return
    config.pluginmanager.register(ResultCache(config), "attnsig-result-cache")


def step(name: str, command: list[str], outputs: list[str], inputs: list[str]) -> int:
    """Run `command` unless its inputs and outputs are those of its last success."""
    root = Path.cwd()
    h = hashlib.sha256(json.dumps([name, command, sys.version]).encode())
    env = {
        k: v for k, v in os.environ.items() if k in ENVIRONMENT or k[:8] == "ATTNSIG_"
    }
    env.pop(OFF, None)
    h.update(json.dumps(sorted(env.items())).encode())
    _add_file(h, Path(__file__))
    h.update(str(_tree_digest(root)).encode())
    h.update(_extra_digest(tuple(inputs), root).encode())
    key = h.hexdigest()
    record = root / "_build" / "test-cache" / f"step-{name}.json"
    use = os.environ.get(OFF, "") in {"", "0"}
    try:
        stored = json.loads(record.read_text()) if use else {}
    except (OSError, ValueError):
        stored = {}
    if (
        stored.get("key") == key
        and _tree_digest(root) is not None
        and stored.get("outputs") == _extra_digest(tuple(outputs), root)
    ):
        print(f"{name}: cached, {NOTE} (not run again; {OFF}=1 runs it)", flush=True)
        return 0
    record.unlink(missing_ok=True)
    status = subprocess.run(command).returncode
    if status == 0 and use:
        _extra_digest.cache_clear()
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(
            json.dumps({"key": key, "outputs": _extra_digest(tuple(outputs), root)})
        )
    return status


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="One command of make test, not run again when nothing changed.",
        usage="%(prog)s step NAME [--outputs P...] [--inputs P...] -- COMMAND...",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser(
        "step", help="run COMMAND unless nothing changed since it passed"
    )
    run.add_argument("name")
    run.add_argument("--outputs", nargs="*", default=[], help="what it writes")
    run.add_argument("--inputs", nargs="*", default=[], help="ignored files it reads")
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    if not argv[split + 1 :]:
        parser.error("no command after --")
    return step(args.name, argv[split + 1 :], args.outputs, args.inputs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
