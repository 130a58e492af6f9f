#!/usr/bin/env python3
"""ctest lint.script_commands: every program the project's own host scripts call is installed by a
group of installers/deps.sh, so a fresh machine that ran deps.sh runs every script.

installers/deps-commands.txt lists, per command, the deps.sh group and the Debian package that
provides it ("base": in every Debian root, even debootstrap --variant=minbase). This test
  1. reads each script and finds the commands it runs (the first word of each simple command; bash
     keywords, builtins, the script's own functions, variables and paths are not programs);
  2. fails for a command the list does not name, naming the script and line;
  3. fails for a listed package that `deps.sh --print` of its group does not install.
usage: script_commands.py <repo root> <script>...
"""
import re
import subprocess
import sys
from pathlib import Path

BASH_WORDS = set("""
if then else elif fi for in do done while until case esac function select time coproc
alias bg bind break builtin caller cd command compgen complete continue declare dirs disown echo
enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout
mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test
times trap true type typeset ulimit umask unalias unset wait
""".split())
# Words after which the next word is the command that really runs.
PREFIXES = {"exec", "command", "builtin", "time", "nohup", "sudo", "!", "then", "else", "do", "if", "elif",
            "while", "until", "{", "xargs", "env", "setsid", "nice"}
SEPARATORS = re.compile(r"\$\(|`|&&|\|\||[;|&()]")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
COMMAND_WORD = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
FUNCTION_DEF = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)")
HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?")


def masked(text):
    """The script with what is not code blanked, line numbers kept: comments, heredoc bodies, quoted
    text (a double-quoted $(...) stays code)."""
    out = []
    i, n = 0, len(text)
    quote = None          # None, "'", '"'
    depth = []            # open $( inside double quotes
    heredoc = None
    line_start = True
    while i < n:
        ch = text[i]
        if heredoc is not None:
            end = text.find("\n", i)
            end = n if end < 0 else end
            if text[i:end].strip() == heredoc:
                heredoc = None
            out.append(" " * (end - i))
            i = end
            if i < n:
                out.append("\n")
                i += 1
            continue
        if quote == "'":
            out.append("'" if ch == "'" else ("\n" if ch == "\n" else " "))
            quote = None if ch == "'" else quote
            i += 1
            continue
        if quote == '"' and not depth:
            if ch == "\\" and i + 1 < n:
                out.append("  " if text[i + 1] != "\n" else " \n")
                i += 2
                continue
            if ch == '"':
                quote = None
                out.append('"')
            elif text.startswith("${", i):
                end = text.find("}", i)
                end = n - 1 if end < 0 else end
                out.append(text[i:end + 1])
                i = end + 1
                continue
            elif text.startswith("$(", i):
                depth.append(quote)
                quote = None
                out.append("$(")
                i += 2
                continue
            else:
                out.append("\n" if ch == "\n" else " ")
            i += 1
            continue
        # code
        if ch == "#" and (i == 0 or text[i - 1] in " \t;(\n"):
            end = text.find("\n", i)
            end = n if end < 0 else end
            i = end
            continue
        if ch == "\n":
            m = HEREDOC.search(text[text.rfind("\n", 0, i) + 1:i])
            if m and m.group(1) and "<<" in "".join(out[-200:]):
                heredoc = m.group(1)
        if ch in "'\"":
            quote = ch
        elif ch == "(" and depth:
            depth.append(None)
        elif ch == ")" and depth:
            back = depth.pop()
            if back is not None:
                quote = back
        out.append(ch)
        i += 1
    return "".join(out)


ARRAY_LITERAL = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\+?=\((.*?)\)", re.S)
TEST_OR_ARITHMETIC = re.compile(r"\[\[.*?\]\]|\$?\(\(.*?\)\)")
REDIRECTION = re.compile(r"\d*>&\d*-?|&>>?|\d*>>?|\d*<<?<?")


def logical_lines(text):
    """(line number, code) with continuations joined; array literals, [[ tests ]], (( arithmetic ))
    and redirections blanked."""
    code = ARRAY_LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), masked(text))
    lines = code.split("\n")
    i = 0
    while i < len(lines):
        number = i + 1
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        line = re.sub(r'"?\$\{SUDO\[@\]\}"?', " ", line)   # "${SUDO[@]}" apt-get: sudo or nothing
        line = re.sub(r"\$\{[^}]*\}", "$v", line)
        yield number, REDIRECTION.sub(" ", TEST_OR_ARITHMETIC.sub(" ", line))


def commands_of(path):
    return commands_of_text(path.read_text(encoding="utf-8", errors="replace"))


def commands_of_text(text):
    functions = {m.group(1) for m in (FUNCTION_DEF.match(l) for l in text.split("\n")) if m}
    found = []
    in_case = False
    for number, line in logical_lines(text):
        words_line = line.strip()
        if re.match(r"^case\b", words_line):
            in_case = True
            continue
        if words_line == "esac" or words_line.startswith("esac"):
            in_case = False
        pieces = [line]
        if in_case:
            # patterns: everything up to each ')' is not a command; ';;' ends each branch
            pieces = [re.sub(r"^\s*\(?[^()]*\)", " ", piece, count=1) for piece in line.split(";;")]
        for segment in (seg for piece in pieces for seg in SEPARATORS.split(piece)):
            words = segment.split()
            while words:
                w = words[0].strip('"')
                if ASSIGNMENT.match(w) or w in PREFIXES:
                    words = words[1:]
                    continue
                if w in ("timeout",) and len(words) > 1:
                    found.append((number, "timeout"))
                    words = [x for x in words[1:] if not x.startswith("-")][1:]
                    continue
                break
            if not words:
                continue
            w = words[0]
            if w in ("for", "case", "select", "[[", "[", "((", "]]", "]", "))", ";;", "in", "esac", "done", "fi"):
                continue
            if w in BASH_WORDS or w in functions or not COMMAND_WORD.match(w):
                continue
            found.append((number, w))
    return found


# The finder's own check: what it must find (and not find) in a script of the shapes the project uses.
SELF_TEST = r"""#!/usr/bin/env bash
set -euo pipefail
helper() { echo "not a program: nothing here | xdg-open"; }
here=$(dirname "$0")
v=$(clang --version 2>/dev/null | sed -n 's/x/y/p' | head -n1)
packages=(
  not-a-command also-not
)
if ((count)) && [[ $x == "a" || -n $y ]]; then "${SUDO[@]}" apt-get install -y jq; fi
case $1 in
  --fast) mode=fast ;; --slow) sleep 1 ;;
  *) exit 2 ;;
esac
for p in one two; do FOO=1 timeout 5 curl -s "$p" >&2; done
cat <<END
heredoc-text is not run
END
echo "took $((SECONDS - start))s, ${1:?usage: x.sh <a>}" | tr a b
(cd "$here" && npm ci)
helper
"""
SELF_TEST_FINDS = {"dirname", "clang", "sed", "head", "apt-get", "sleep", "timeout", "curl", "cat", "tr", "npm"}


def self_test():
    found = {c for _, c in commands_of_text(SELF_TEST)}
    if found != SELF_TEST_FINDS:
        return [f"the command finder is broken: found {sorted(found)}, expected {sorted(SELF_TEST_FINDS)}"]
    return []


def main():
    root = Path(sys.argv[1])
    scripts = [Path(p) for p in sys.argv[2:]]
    listed = {}
    for raw in (root / "installers/deps-commands.txt").read_text().splitlines():
        raw = raw.split("#", 1)[0].strip()
        if raw:
            command, group, package = raw.split()
            listed[command] = (group, package)
    problems = self_test()
    for script in scripts:
        for number, command in commands_of(script):
            if command not in listed:
                problems.append(f"{script.relative_to(root)}:{number}: calls `{command}`, which no installers/deps.sh group "
                                f"installs (add it to installers/deps-commands.txt and its package to deps.sh)")
    groups = {"build": [], "package": ["--package"], "test": ["--test"], "bench": ["--bench"]}
    printed = {}
    for group, flags in groups.items():
        out = subprocess.run(["bash", str(root / "installers/deps.sh"), *flags, "--print"], capture_output=True, text=True,
                             timeout=120)
        if out.returncode != 0:
            problems.append(f"installers/deps.sh {' '.join(flags)} --print failed: {out.stderr.strip()}")
        printed[group] = set(out.stdout.split())
    for command, (group, package) in sorted(listed.items()):
        if group == "base":
            continue
        if group == "optional":
            for script in scripts:
                text = script.read_text(encoding="utf-8", errors="replace")
                if any(c == command for _, c in commands_of(script)) and f"command -v {command}" not in text:
                    problems.append(f"{script.relative_to(root)}: calls the optional `{command}` without checking "
                                    f"`command -v {command}` first")
            continue
        if group not in groups:
            problems.append(f"installers/deps-commands.txt: {command}: unknown group {group} "
                            "(base, build, package, test, bench, optional)")
        elif package not in printed[group]:
            problems.append(f"installers/deps-commands.txt: {command} comes from {package}, which "
                            f"`deps.sh {' '.join(groups[group])} --print` does not install")
    used = sorted({c for s in scripts for _, c in commands_of(s)})
    print(f"{len(scripts)} scripts call {len(used)} programs: {' '.join(used)}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
