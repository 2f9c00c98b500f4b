"""Pin every package the project installs: the constraints file from this environment.

    python tools/lock.py constraints.txt     # `make lock` runs it

The requirements files name what the book and the tests need; pip then picks the
versions of everything those pull in, and a release of any of them (a theme, a parser)
can change the book overnight. The constraints file pins all of them: `make` installs
with `pip install -c constraints.txt`, and so does Binder (`binder/requirements.txt`).

What is pinned: the distributions that requirements.txt and requirements-test.txt need,
directly or through their dependencies, plus pip itself, at the versions installed in
this environment; and what the student set-up (`student/requirements.txt`, JupyterLab
and its dependencies) adds, as pip resolves it under those pins (a dry run: it needs
the package index). A local version label (`2.13.0+cpu`) is dropped so that the pin
matches the same release from any index. `tests/test_publish.py` checks that the file
still covers the environment.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENT_FILES = ("requirements.txt", "requirements-test.txt")
# The student set-up: pinned here too, though this environment need not install it.
STUDENT_REQUIREMENTS = "student/requirements.txt"
ALWAYS = ("pip",)
EDITABLE = "attnsig"  # the package of this repository, installed from the checkout


def direct_requirements(root: Path = ROOT) -> list[Requirement]:
    """The requirements named in the requirements files (options, `-e .` left out)."""
    found = []
    for name in REQUIREMENT_FILES:
        for line in (root / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if not line or line.startswith("-"):
                continue
            try:
                found.append(Requirement(line))
            except InvalidRequirement:
                continue
    return found


def _dependencies(dist: metadata.Distribution, extras: set[str]) -> list[Requirement]:
    deps = []
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is None:
            deps.append(req)
            continue
        environments = [dict(default_environment(), extra=e) for e in extras | {""}]
        if any(req.marker.evaluate(env) for env in environments):
            deps.append(req)
    return deps


def needed_distributions(root: Path = ROOT) -> dict[str, metadata.Distribution]:
    """Installed distributions reachable from the requirement files and the package."""
    installed = {
        canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions()
    }
    todo = [(r, set(r.extras)) for r in direct_requirements(root)]
    todo += [(Requirement(EDITABLE), set()), *[(Requirement(n), set()) for n in ALWAYS]]
    seen: dict[str, metadata.Distribution] = {}
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        dist = installed.get(name)
        if dist is None or name in seen:
            continue
        seen[name] = dist
        todo += [(r, set(r.extras)) for r in _dependencies(dist, extras)]
    seen.pop(canonicalize_name(EDITABLE), None)
    return seen


def pin(version: str) -> str:
    return re.sub(r"\+.*$", "", version)


def student_pins(pins: list[str], root: Path = ROOT) -> dict[str, str]:
    """Name -> ``Name==version`` of what the student set-up installs.

    The student set-up (`STUDENT_REQUIREMENTS`, shipped in the zip of student
    notebooks) adds a Jupyter front end that this environment need not have, so its
    versions come from pip's resolution (a dry run against the package index) under
    `pins`, the versions of this environment.
    """
    with tempfile.TemporaryDirectory() as tmp:
        constraints, report = Path(tmp) / "constraints.txt", Path(tmp) / "report.json"
        constraints.write_text("\n".join(pins) + "\n")
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "install", "--dry-run", "--quiet"),
                *("--ignore-installed", "--report", str(report)),
                *("-r", str(root / STUDENT_REQUIREMENTS), "-c", str(constraints)),
            ],
            check=True,
        )
        installs = json.loads(report.read_text())["install"]
    return {
        canonicalize_name(i["metadata"]["name"]): (
            f"{i['metadata']['name']}=={pin(i['metadata']['version'])}"
        )
        for i in installs
    }


def render(root: Path = ROOT) -> str:
    dists = needed_distributions(root)
    lines = [
        "# Every package `make` installs, at one version (`make lock` writes it).",
        f"# Python {sys.version_info.major}.{sys.version_info.minor}; "
        "installed with `pip install -c constraints.txt -r requirements.txt`.",
    ]
    pins = {
        name: f"{d.metadata['Name']}=={pin(d.version)}" for name, d in dists.items()
    }
    if (root / STUDENT_REQUIREMENTS).exists():
        for name, line in student_pins(list(pins.values()), root).items():
            pins.setdefault(name, line)
    lines += [line for _, line in sorted(pins.items())]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    Path(argv[0]).write_text(render())
    print(f"wrote {argv[0]}: {len(needed_distributions())} packages pinned")
    return 0


if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
