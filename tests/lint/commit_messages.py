#!/usr/bin/env python3
"""Commit messages the anchors' way (docs/ARCHITECTURE.md, "Commit messages"), over the commits of a
change: since BASE (the last commit before the convention) up to HEAD, merges aside, each has

  - a subject of at most 72 characters, "room: what" (a lower-case room prefix, then a colon);
  - a blank line, then a body wrapped at 72 (a line with no space, such as a URL, may be longer);
  - a `Refs: #N` trailer.

Usage: commit_messages.py REPO [--base COMMIT]      (exit 1 with one line per problem)
       commit_messages.py --self-test               (a throwaway repository: a good commit passes,
                                                     each kind of bad one is refused)
"""
import os
import re
import subprocess
import sys
import tempfile

# The last commit before the convention: everything after it is checked.
DEFAULT_BASE = "db4ceb6"
SUBJECT = re.compile(r"^[a-z0-9][a-z0-9 ,/_.+-]*: \S")
REFS = re.compile(r"^Refs: #\d+(, #\d+)*$", re.M)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def problems_of(sha, message):
    out = []
    lines = message.rstrip("\n").split("\n")
    subject = lines[0]
    if len(subject) > 72:
        out.append(f"{sha}: subject has {len(subject)} characters, more than 72: {subject[:80]}...")
    if not SUBJECT.match(subject):
        out.append(f"{sha}: subject is not 'room: what': {subject[:80]}")
    if len(lines) > 1 and lines[1].strip():
        out.append(f"{sha}: no blank line after the subject")
    for n, line in enumerate(lines[2:], start=3):
        if len(line) > 72 and " " in line.strip():
            out.append(f"{sha}: body line {n} has {len(line)} characters, more than 72")
    if not REFS.search(message):
        out.append(f"{sha}: no 'Refs: #N' trailer")
    return out


def check(repo, base):
    try:
        git(repo, "rev-parse", "--verify", "--quiet", base + "^{commit}")
    except subprocess.CalledProcessError:
        print(f"commit messages: {base} is not in this history (a shallow clone?): checking HEAD only")
        base = "HEAD~1" if subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet", "HEAD~1"],
                                         capture_output=True).returncode == 0 else None
    rng = f"{base}..HEAD" if base else "HEAD"
    shas = git(repo, "rev-list", "--no-merges", rng).split()
    problems = []
    for sha in shas:
        problems += problems_of(sha[:10], git(repo, "log", "-1", "--format=%B", sha))
    for p in problems:
        print(p)
    print(f"commit messages: {len(shas)} commits since {base or 'the start'} checked, {len(problems)} problems")
    return 1 if problems else 0


def self_test():
    with tempfile.TemporaryDirectory() as repo:
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@e")

        def commit(message):
            subprocess.run(["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", message], check=True, env=env)
            return git(repo, "rev-parse", "HEAD").strip()

        subprocess.run(["git", "init", "-q", repo], check=True)
        base = commit("start")
        commit("sbx: a good subject\n\nA body that says why.\n\nRefs: #55")
        ok = check(repo, base) == 0
        bad = {
            "long subject": "sbx: " + "x" * 80 + "\n\nwhy\n\nRefs: #1",
            "no room": "A subject without a room\n\nwhy\n\nRefs: #1",
            "no blank line": "sbx: subject\nbody right under it\n\nRefs: #1",
            "wide body": "sbx: subject\n\n" + "word " * 20 + "\n\nRefs: #1",
            "no trailer": "sbx: subject\n\nwhy",
        }
        refused = []
        for name, message in bad.items():
            subprocess.run(["git", "-C", repo, "reset", "-q", "--hard", base], check=True)
            commit(message)
            if check(repo, base) != 0:
                refused.append(name)
        missing = [n for n in bad if n not in refused]
        print(f"self-test: the good commit {'passed' if ok else 'was REFUSED'}; refused {len(refused)} of {len(bad)} bad ones"
              + (f" (not refused: {', '.join(missing)})" if missing else ""))
        return 0 if ok and not missing else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    repo = sys.argv[1] if len(sys.argv) > 1 else "."
    base = sys.argv[sys.argv.index("--base") + 1] if "--base" in sys.argv else DEFAULT_BASE
    if subprocess.run(["git", "-C", repo, "rev-parse", "--git-dir"], capture_output=True).returncode != 0:
        print("commit messages: not a git checkout, nothing to check")
        sys.exit(0)
    sys.exit(check(repo, base))
