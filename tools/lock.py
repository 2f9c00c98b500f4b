"""Pin every package the project installs: the constraints file from this environment.

    python tools/lock.py constraints.txt     # `make lock` runs it

The requirements files name what the book and the tests need; pip then picks the
versions of everything those pull in, and a release of any of them (a theme, a parser)
can change the book overnight. The constraints file pins all of them: `make` installs
with `pip install -c constraints.txt`, and so does Binder (`binder/requirements.txt`).

What is pinned: the distributions that requirements.txt and requirements-test.txt need,
directly or through their dependencies, plus pip itself, at the versions installed in
this environment. A local version label (`2.13.0+cpu`) is dropped so that the pin
matches the same release from any index. `tests/test_publish.py` checks that the file
still covers the environment.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENT_FILES = ("requirements.txt", "requirements-test.txt")
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


def render(root: Path = ROOT) -> str:
    dists = needed_distributions(root)
    lines = [
        "# Every package `make` installs, at one version (`make lock` writes it).",
        f"# Python {sys.version_info.major}.{sys.version_info.minor}; "
        "installed with `pip install -c constraints.txt -r requirements.txt`.",
    ]
    lines += [
        f"{d.metadata['Name']}=={pin(d.version)}" for _, d in sorted(dists.items())
    ]
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
