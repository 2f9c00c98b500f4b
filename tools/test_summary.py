"""Print the closing line of `make test`: pytest's counts plus the book-level checks.

    python tools/test_summary.py _build/pytest.xml --extra-checks 2

`make test` runs pytest (unit tests and every notebook under nbval), then the
warning-free book build and the student-edition check; Make stops at the first failure,
so reaching this script means the extra checks passed. Prints one line:
`summary: N passed, M failed, K skipped`, and how many of those tests the result cache
(tests/result_cache.py) reported from an earlier passing run instead of running them.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("junit_xml")
    parser.add_argument(
        "--extra-checks", type=int, default=0, help="checks after pytest that passed"
    )
    args = parser.parse_args()
    root = ET.parse(args.junit_xml).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    total = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    passed = total - failed - skipped + args.extra_checks
    cached = sum(p.get("name") == "cached" for p in root.iter("property"))
    note = f"; {cached} of them cached: inputs unchanged since a passing run"
    print(
        f"summary: {passed} passed, {failed} failed, {skipped} skipped"
        + note * bool(cached)
    )
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
