"""Publishing: versions agree, workflows are valid and pinned, forks get their buttons.

The workflows cannot run here; what can be checked offline is checked: the GitHub
workflow schema (check-jsonschema ships it), pinned actions, the agreement of `.ci/run`
and the workflows, one Python version and one package version everywhere, the lock file,
the citation file (against the Citation File Format 1.2.0 schema in tests/schemas/, from
the cffconvert package, CC BY 4.0), the student branch's tree and its push (to a local
bare repository).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
from tools import blas_kernels, handout, lock, nbtools, publish  # noqa: E402
from tools.student_edition import chapter_notebooks  # noqa: E402

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
PINNED_ACTION = re.compile(r"[\w.-]+/[\w./-]+@(v\d+\.\d+\.\d+|[0-9a-f]{40})")


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def _version() -> str:
    return nbtools.book_version(ROOT)


def _workflow(name: str) -> dict:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    # YAML 1.1 reads the key `on` as the boolean True.
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def _steps(workflow: dict):
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, step


def _binder_python() -> str:
    text = (ROOT / "binder" / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", text)
    assert match, f"binder/runtime.txt must read python-X.Y, not {text!r}"
    return match.group(1)


def _check_jsonschema() -> str:
    pytest.importorskip(
        "check_jsonschema", reason="check-jsonschema is in requirements-test.txt"
    )
    return str(Path(sys.executable).parent / "check-jsonschema")


# --- one Python version, one package version
# ---------------------------------------------------


def test_python_version_is_the_same_for_binder_pyproject_workflows_and_readme():
    python = _binder_python()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["requires-python"] == f">={python}"
    assert project["tool"]["ruff"]["target-version"] == "py" + python.replace(".", "")
    setups = [
        s
        for w in WORKFLOWS
        for _, s in _steps(yaml.safe_load(w.read_text()))
        if str(s.get("uses", "")).startswith("actions/setup-python@")
    ]
    assert setups, "the workflows set up Python"
    for step in setups:
        assert str(step["with"]["python-version"]) == python
    for workflow in WORKFLOWS:
        for key in re.findall(
            r"numba-\$\{\{ runner.os \}\}-py(\d+\.\d+)", workflow.read_text()
        ):
            assert key == python, f"{workflow.name}: numba cache key names Python {key}"
    assert f"Python {python}" in (ROOT / "README.md").read_text()
    assert f"# Python {python};" in (ROOT / "constraints.txt").read_text()


def test_one_version_number_for_package_book_citation_and_changelog():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert (
        "version" not in project["project"]
        and "version" in project["project"]["dynamic"]
    )
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "attnsig.__version__"
    version = _version()
    import attnsig

    assert attnsig.__version__ == version
    assert metadata.version("attnsig") == version, "reinstall: pip install -e ."
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert str(citation["version"]) == version
    assert re.search(
        rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$",
        (ROOT / "CHANGELOG.md").read_text(),
        flags=re.M,
    )


def test_colab_cell_installs_the_book_version_from_the_configured_repository():
    url = str(_config()["repository"]["url"]).rstrip("/")
    assert nbtools.REPO_URL == url
    assert f'"attnsig @ git+{url}@v{_version()}"' in nbtools.SETUP_SOURCE
    assert nbtools.setup_source("https://example.org/x/y", "9.8.7").endswith(
        '"attnsig @ git+https://example.org/x/y@v9.8.7"'
    )


def test_the_repository_address_is_written_in_one_place():
    url = str(_config()["repository"]["url"]).rstrip("/")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True
    )
    if tracked.returncode:
        pytest.skip("not a git checkout")
    allowed = {
        "_config.yml",
        "CITATION.cff",
    }  # the setting; the citation of the original work
    for name in tracked.stdout.split():
        path = ROOT / name
        if (
            name in allowed
            or path.suffix
            not in {".py", ".yml", ".yaml", ".md", ".txt", ".toml", ".cfg", ""}
            or not path.is_file()
        ):
            continue
        assert url not in path.read_text(errors="replace"), (
            f"{name} repeats {url}: derive it"
        )


# --- Binder, the lock file
# ---------------------------------------------------------------------


def test_binder_installs_the_requirements_under_the_lock_file():
    lines = [
        ln.split("#")[0].strip()
        for ln in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    ]
    assert "-r ../requirements.txt" in lines and "-c ../constraints.txt" in lines
    assert (ROOT / "binder" / "runtime.txt").exists()


def _pins(text: str) -> dict[str, str]:
    pins = {}
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name, _, version = line.partition("==")
            pins[lock.canonicalize_name(name)] = version
    return pins


def test_lock_file_pins_every_installed_package_the_project_needs():
    pins = _pins((ROOT / "constraints.txt").read_text())
    for name in ("requirements.txt", "requirements-test.txt"):
        for requirement, version in _pins((ROOT / name).read_text()).items():
            assert pins.get(requirement) == version, (
                f"{name} pins {requirement}=={version}, "
                f"constraints.txt {pins.get(requirement)}: "
                "run `make lock`"
            )
    for name, dist in lock.needed_distributions(ROOT).items():
        assert pins.get(name) == lock.pin(dist.version), (
            f"{name} {dist.version} is installed, "
            f"constraints.txt pins {pins.get(name)}: "
            "run `make lock`"
        )


# --- workflows
# ---------------------------------------------------------------------------------


def test_workflows_pass_the_github_workflow_schema():
    exe = _check_jsonschema()
    assert WORKFLOWS, "no workflows in .github/workflows"
    result = subprocess.run(
        [exe, "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    dependabot = ROOT / ".github" / "dependabot.yml"
    result = subprocess.run(
        [exe, "--builtin-schema", "vendor.dependabot", str(dependabot)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_can_fail():
    exe = _check_jsonschema()
    broken = {
        "on": "push",
        "jobs": {"test": {"steps": [{"run": "true"}]}},
    }  # no runs-on
    path = ROOT / "_build" / "broken-workflow.yml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(broken))
    result = subprocess.run(
        [exe, "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
    )
    path.unlink()
    assert result.returncode != 0


def test_every_action_is_pinned_to_a_full_version():
    for workflow in WORKFLOWS:
        for job, step in _steps(yaml.safe_load(workflow.read_text())):
            if "uses" in step:
                assert PINNED_ACTION.fullmatch(step["uses"]), (
                    f"{workflow.name} job {job}: {step['uses']} "
                    "is not pinned to vX.Y.Z or a SHA"
                )


def test_ci_and_publishing_run_the_steps_of_ci_run():
    ci_run = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci_run, flags=re.M)
    assert "binder/runtime.txt" in ci_run  # the Python it expects is the book's
    ci, pub = _workflow("ci.yml"), _workflow("publish.yml")
    for name, workflow, job in (("ci.yml", ci, "test"), ("publish.yml", pub, "build")):
        runs = [s.get("run", "").strip() for s in workflow["jobs"][job]["steps"]]
        assert "bash .ci/run" in runs, f"{name} must test with `bash .ci/run`"
        for run in runs:
            # The test command is .ci/run's: no workflow runs its own variant of it.
            assert not re.search(r"\bpytest\b|make (test|unit|notebooks)\b", run), (
                name,
                run,
            )
        # Same environment: the cache that is restored is the one numba writes to.
        env = workflow["env"]
        cached = [
            s["with"]["path"]
            for s in workflow["jobs"][job]["steps"]
            if str(s.get("uses", "")).startswith("actions/cache@")
        ]
        assert env["NUMBA_CACHE_DIR"] in cached
        assert any(
            str(s.get("with", {}).get("cache")) == "pip"
            for s in workflow["jobs"][job]["steps"]
        )
    assert ci["env"] == pub["env"], "CI and publishing test in the same environment"
    assert set(ci["on"]) >= {"push", "pull_request"}
    assert pub["on"]["push"]["branches"] == [_config()["repository"]["branch"]]


def test_workflow_commands_name_files_and_targets_that_exist():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.M))
    for workflow in WORKFLOWS:
        text = workflow.read_text()
        for path in re.findall(r"((?:tools|\.ci)/[\w./-]+)", text):
            assert (ROOT / path).exists(), (
                f"{workflow.name} runs {path}, which does not exist"
            )
        for target in re.findall(r"\bmake (\w[\w-]*)", text):
            if target == "pdf" and target not in targets:
                pytest.xfail("`make pdf` comes with the student-edition branch")
            assert target in targets, (
                f"{workflow.name} runs `make {target}`, not in the Makefile"
            )


def test_publishing_deploys_both_editions_and_the_student_branch():
    pub = _workflow("publish.yml")
    assert set(pub["on"]["push"]["tags"]) == {"v*"} and "pull_request" in pub["on"]
    jobs = pub["jobs"]
    assert any(
        s.get("uses", "").startswith("actions/deploy-pages@")
        for s in jobs["deploy"]["steps"]
    )
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    pushes = " ".join(s.get("run", "") for s in jobs["student-branch"]["steps"])
    assert "bash .ci/push-branch student " in pushes
    uploads = [
        s
        for s in jobs["build"]["steps"]
        if s.get("uses", "").startswith("actions/upload")
    ]
    assert any(s.get("if") == "github.event_name == 'pull_request'" for s in uploads)


# --- a fork configured with another address
# ----------------------------------------------------


def test_a_fork_with_another_address_gets_its_own_buttons_and_colab_cells(tmp_path):
    fork_url = "https://github.com/example-org/example-fork"
    for name in ("tools/nbtools.py", "src/attnsig/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("_static", "_ext"):
        if (ROOT / folder).is_dir():
            shutil.copytree(ROOT / folder, tmp_path / folder)
    config = _config()
    config["repository"]["url"] = fork_url  # the one setting a fork changes
    config["execute"]["execute_notebooks"] = "off"
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: chapters/page\n"
    )
    (tmp_path / "intro.md").write_text("# A fork\n")
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("1 + 1", execution_count=1)
    code.outputs = [
        nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# A page"), code]
    (tmp_path / "chapters").mkdir()
    nbformat.write(nb, tmp_path / "chapters" / "page.ipynb")
    # The command a fork runs (make setup-cells) re-writes the set-up cells from the
    # setting.
    subprocess.run(
        [sys.executable, "tools/nbtools.py", "fix", "chapters/page.ipynb"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    setup = (
        nbformat.read(tmp_path / "chapters" / "page.ipynb", as_version=4)
        .cells[1]
        .source
    )
    assert f'"attnsig @ git+{fork_url}@v{_version()}"' in setup
    jb = Path(sys.executable).parent / "jupyter-book"
    build = subprocess.run(
        [str(jb), "build", str(tmp_path), "-q"], capture_output=True, text=True
    )
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    page = (tmp_path / "_build" / "html" / "chapters" / "page.html").read_text()
    links = set(re.findall(r'href="(https://[^"]+)"', page))
    branch = config["repository"]["branch"]
    expected = [
        f"https://mybinder.org/v2/gh/example-org/example-fork/{branch}?urlpath=tree/chapters/page.ipynb",
        f"https://colab.research.google.com/github/example-org/example-fork/blob/{branch}/chapters/page.ipynb",
        f"{fork_url}/edit/{branch}/chapters/page.ipynb",
    ]
    for link in expected:
        assert link in links, f"missing {link}; links: {sorted(links)}"
    assert any(link.startswith(f"{fork_url}/issues/new") for link in links)
    assert not [link for link in links if "attnsig/attnsig-book" in link]


# --- licences
# ----------------------------------------------------------------------------------


def test_licences_and_citation():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (
        "Creative Commons Attribution 4.0 International"
        in (ROOT / "LICENSE-text.md").read_text()
    )
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["license"] == ["MIT", "CC-BY-4.0"]
    readme = (ROOT / "README.md").read_text()
    assert "CC BY 4.0" in readme and "MIT" in readme


def test_citation_file_follows_the_citation_file_format():
    exe = _check_jsonschema()
    schema = ROOT / "tests" / "schemas" / "citation-file-format-1.2.0.json"
    result = subprocess.run(
        [
            exe,
            "--schemafile",
            str(schema),
            "--default-filetype",
            "yaml",
            str(ROOT / "CITATION.cff"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --- the second BLAS kernel, the site and the student branch
# ----------------------------------


@pytest.mark.parametrize(
    ("machine", "kernel", "avx2", "second"),
    [
        ("x86_64", "SkylakeX", True, "Haswell"),
        ("x86_64", "Zen", True, "Haswell"),
        ("x86_64", "Haswell", True, "Prescott"),
        ("x86_64", "Sandybridge", False, "Prescott"),
        ("x86_64", "Katmai", True, "Haswell"),
        ("x86_64", None, True, None),
        ("aarch64", "NEOVERSEN1", False, None),
    ],
)
def test_second_blas_kernel_runs_on_this_cpu_and_differs(
    monkeypatch, machine, kernel, avx2, second
):
    monkeypatch.setattr(blas_kernels.platform, "machine", lambda: machine)
    monkeypatch.setattr(
        blas_kernels, "probe", lambda env=None: {"kernel": kernel, "avx2": avx2}
    )
    pytest.importorskip("threadpoolctl")
    assert blas_kernels.second_kernel()[0] == second


def test_second_kernel_results_join_the_summary(tmp_path):
    first, extra = tmp_path / "first.xml", tmp_path / "extra.xml"
    first.write_text(
        '<testsuites><testsuite name="pytest" tests="3" failures="0" errors="0" '
        'skipped="1"/></testsuites>'
    )
    extra.write_text(
        '<testsuite name="pytest" tests="2" failures="1" errors="0" skipped="0"/>'
    )
    blas_kernels.merge_junit(first, extra, " (OPENBLAS_CORETYPE=Haswell)")
    suites = list(ET.parse(first).getroot().iter("testsuite"))
    assert [s.get("tests") for s in suites] == ["3", "2"]
    assert suites[1].get("name") == "pytest (OPENBLAS_CORETYPE=Haswell)"


def test_test_build_renders_stored_outputs_and_make_book_executes(tmp_path):
    assert _config()["execute"]["execute_notebooks"] == "force"
    target = tmp_path / "config.yml"
    blas_kernels.stored_config(ROOT / "_config.yml", target)
    generated = yaml.safe_load(target.read_text())
    assert generated["execute"]["execute_notebooks"] == "off"
    assert {k: v for k, v in generated.items() if k != "execute"} == {
        k: v for k, v in _config().items() if k != "execute"
    }
    makefile = (ROOT / "Makefile").read_text()
    test_recipe = makefile.split("\ntest:")[1].split("\n\n")[0]
    assert "--config _build/_config.stored.yml" in test_recipe
    assert "blas_kernels.py nbval" in test_recipe


def test_student_branch_tree_and_push(tmp_path, monkeypatch):
    notebooks = tmp_path / "notebooks"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(nbtools.SETUP_SOURCE)]
    (notebooks / "chapters" / "part").mkdir(parents=True)
    nbformat.write(nb, notebooks / "chapters" / "part" / "chapter.ipynb")
    monkeypatch.setattr(publish, "STUDENT_NOTEBOOKS", notebooks)
    monkeypatch.setattr(publish, "ASSIGNMENTS", tmp_path / "assignments")
    tree = tmp_path / "tree"
    assert publish.student_tree(tree, "0123abc") == 1  # `make assignments` first
    student = tmp_path / "assignments" / "chapter" / "student"
    (student / "tests").mkdir(parents=True)
    nbformat.write(nb, student / "chapter.ipynb")
    (student / "tests" / "q1.py").write_text("OK_FORMAT = False\n")
    assert publish.student_tree(tree, "0123abc") == 0
    assert (tree / "chapters" / "part" / "chapter.ipynb").exists()
    assert (tree / "assignments" / "chapter" / "chapter.ipynb").exists()
    assert (tree / "assignments" / "chapter" / "tests" / "q1.py").exists()
    # The full edition's launch targets: every chapter, rendered, solutions included.
    full = sorted((tree / "full").rglob("*.ipynb"))
    assert [p.relative_to(tree / "full") for p in full] == sorted(
        p.relative_to(ROOT) for p in chapter_notebooks()
    )
    for path in full:
        assert handout.myst_left(nbformat.read(path, as_version=4)) == [], path
    requirements = (tree / "binder" / "requirements.txt").read_text()
    assert re.search(r"^otter-grader==[\d.]+$", requirements, flags=re.M)
    assert f"attnsig @ git+{nbtools.REPO_URL}@0123abc" in requirements
    assert "-e ." not in requirements and "-c constraints.txt" in requirements
    assert (tree / "binder" / "runtime.txt").read_text() == (
        ROOT / "binder" / "runtime.txt"
    ).read_text()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.org",
    )
    git = ["git", "-c", "init.defaultBranch=main"]
    remote, clone = tmp_path / "remote.git", tmp_path / "clone"
    subprocess.run([*git, "init", "-q", "--bare", str(remote)], check=True, env=env)
    subprocess.run(
        [*git, "clone", "-q", str(remote), str(clone)],
        check=True,
        env=env,
        capture_output=True,
    )
    subprocess.run(
        [*git, "-C", str(clone), "commit", "-q", "--allow-empty", "-m", "main"],
        check=True,
        env=env,
    )
    subprocess.run(
        ["git", "-C", str(clone), "push", "-q", "origin", "HEAD:main"],
        check=True,
        env=env,
    )
    push = [
        "bash",
        str(ROOT / ".ci" / "push-branch"),
        "student",
        str(tree),
        "student notebooks",
    ]
    first = subprocess.run(push, cwd=clone, env=env, capture_output=True, text=True)
    assert first.returncode == 0 and "student: pushed" in first.stdout, first.stderr
    again = subprocess.run(push, cwd=clone, env=env, capture_output=True, text=True)
    assert again.returncode == 0 and "student: unchanged" in again.stdout, again.stderr
    files = subprocess.run(
        ["git", "-C", str(remote), "ls-tree", "-r", "--name-only", "student"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "chapters/part/chapter.ipynb" in files and "binder/requirements.txt" in files


def test_sanitizers_do_not_hide_numbers():
    """nbval sanitizers are for unavoidable variation (addresses), never for digits."""
    import configparser

    parser = configparser.ConfigParser()
    parser.read(ROOT / "tests" / "sanitize.cfg")
    numbers = ["1.4e-06", "0.966", "12345", "-0.5", "3.16", "1e28", "nan", "inf"]
    for section in parser.sections():
        pattern = re.compile(parser[section]["regex"])
        for number in numbers:
            line = f"monomial error {number} (cond {number})"
            assert pattern.sub(parser[section]["replace"], line) == line, (
                f"sanitizer [{section}] rewrites the number {number}"
            )
