#!/usr/bin/env python3
"""Every test is in tests/README.md's map ("Where each room's code is tested"): each
tests/{unit,integration}/tst_<name>.cpp and tests/e2e/<name>.test.mjs is named there as `<name>`,
so a newcomer finds where a room is tested and a test nobody placed is seen at once.

Usage: tests_map.py SOURCE_DIR        (exit 1 naming each test the map lacks)
       tests_map.py --self-test       (a throwaway tree: a mapped test passes, an unmapped one is refused)
"""
import glob
import os
import re
import sys
import tempfile


def missing(root):
    with open(os.path.join(root, "tests", "README.md"), encoding="utf-8") as f:
        named = set(re.findall(r"`([a-z0-9_]+)`", f.read()))
    tests = [os.path.basename(p)[len("tst_"):-len(".cpp")]
             for group in ("unit", "integration") for p in glob.glob(os.path.join(root, "tests", group, "tst_*.cpp"))]
    tests += [os.path.basename(p)[:-len(".test.mjs")] for p in glob.glob(os.path.join(root, "tests", "e2e", "*.test.mjs"))]
    return sorted(t for t in tests if t not in named), len(tests)


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "tests", "unit"))
        for name in ("mapped", "stray"):
            open(os.path.join(root, "tests", "unit", f"tst_{name}.cpp"), "w").close()
        with open(os.path.join(root, "tests", "README.md"), "w") as f:
            f.write("| `core` | `mapped` | |\n")
        lacking, _ = missing(root)
        ok = lacking == ["stray"]
        print(f"self-test: {'refused the unmapped test only' if ok else 'WRONG: ' + str(lacking)}")
        return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    lacking, count = missing(sys.argv[1] if len(sys.argv) > 1 else ".")
    for t in lacking:
        print(f"tests/README.md does not name the test `{t}`: add it to the map of its room")
    print(f"tests map: {count} tests, {len(lacking)} not in the map")
    sys.exit(1 if lacking else 0)
