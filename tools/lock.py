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

import argparse
import json
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# The student set-up: pinned here too, though this environment need not install it.
STUDENT_REQUIREMENTS = "student/requirements.txt"
EDITABLE = "attnsig"  # the package of this repository, installed from the checkout


def _requirements(root: Path) -> list[Requirement]:
    """The requirement files' lines (options and `-e .` left out), attnsig and pip."""
    found = [Requirement(EDITABLE), Requirement("pip")]
    for name in ("requirements.txt", "requirements-test.txt"):
        for line in (root / name).read_text().splitlines():
            try:
                found.append(Requirement(line.split("#")[0].strip()))
            except InvalidRequirement:  # blank, an option or a path
                continue
    return found


def needed_distributions(root: Path = ROOT) -> dict[str, metadata.Distribution]:
    """Installed distributions reachable from the requirement files and the package."""
    installed = {
        canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions()
    }
    todo = [(r, set(r.extras)) for r in _requirements(root)]
    seen: dict[str, metadata.Distribution] = {}
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        dist = installed.get(name)
        if dist is None or name in seen:
            continue
        seen[name] = dist
        environments = [dict(default_environment(), extra=e) for e in extras | {""}]
        for dep in map(Requirement, dist.requires or []):
            if dep.marker is None or any(map(dep.marker.evaluate, environments)):
                todo.append((dep, set(dep.extras)))
    seen.pop(canonicalize_name(EDITABLE), None)
    return seen


def pin(version: str) -> str:
    """The version without its local label: ``pin("2.13.0+cpu") == "2.13.0"``."""
    return version.partition("+")[0]


def student_pins(pins: list[str], root: Path = ROOT) -> dict[str, str]:
    """Name -> ``Name==version`` of what the student set-up installs under `pins`.

    Its Jupyter front end need not be installed here, so its versions come from pip's
    resolution (a dry run against the package index).
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
        installs = [i["metadata"] for i in json.loads(report.read_text())["install"]]
    return {
        canonicalize_name(m["name"]): f"{m['name']}=={pin(m['version'])}"
        for m in installs
    }


def render(root: Path = ROOT) -> str:
    pins = {
        name: f"{d.metadata['Name']}=={pin(d.version)}"
        for name, d in needed_distributions(root).items()
    }
    if (root / STUDENT_REQUIREMENTS).exists():
        for name, line in student_pins(list(pins.values()), root).items():
            pins.setdefault(name, line)
    header = [
        "# Every package `make` installs, at one version (`make lock` writes it).",
        f"# Python {sys.version_info.major}.{sys.version_info.minor}; "
        "installed with `pip install -c constraints.txt -r requirements.txt`.",
    ]
    return "\n".join(header + [line for _, line in sorted(pins.items())]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("constraints", type=Path, help="the file to write")
    target = parser.parse_args(argv).constraints
    text = render()
    target.write_text(text)
    print(f"wrote {target}: {text.count('==')} packages pinned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
