"""Command lines as a user types them, for a task's setup steps and model solution.

What a solution may hold, the way a shell reads it (a small, honest subset: kubesim runs no
shell):

- ``kubectl ARGS`` (or ``k ARGS``, ``kubesim ARGS``): one kubesim command; ``\\`` continues a line;
- a heredoc feeding it: ``kubectl apply -f - <<EOF`` or ``cat <<EOF | kubectl apply -f -``
  (``<<'EOF'`` too), the lines up to the terminator being its standard input;
- a heredoc written to a file: ``cat <<EOF > PATH`` or ``cat > PATH <<EOF`` (a static pod's
  manifest on a node);
- ``rm [-f] PATH``; ``# comments`` and blank lines.

Anything else is refused, so a task cannot silently carry a step that is not run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from kubesim.errors import UsageError

_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_CLIENTS = ("kubectl", "k", "kubesim")


@dataclass(frozen=True)
class Command:
    """One kubesim command: its arguments (without ``kubectl``) and its standard input."""
    argv: tuple[str, ...]
    stdin: str = ""
    line: str = ""


@dataclass(frozen=True)
class WriteFile:
    path: str
    content: str
    line: str = ""


@dataclass(frozen=True)
class RemoveFile:
    path: str
    line: str = ""


Step = Command | WriteFile | RemoveFile


def parse(text: str) -> list[Step]:
    """The steps of a script; UsageError naming the first line it cannot run."""
    lines = text.splitlines()
    steps: list[Step] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        while line.rstrip().endswith("\\") and i < len(lines):
            line = line.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        body = None
        m = _HEREDOC.search(stripped)
        if m:
            end = m.group(2)
            collected = []
            while i < len(lines) and lines[i].strip() != end:
                collected.append(lines[i])
                i += 1
            if i >= len(lines):
                raise UsageError(f"heredoc {end} is not terminated: {stripped}")
            i += 1
            body = "\n".join(collected) + "\n"
            stripped = (stripped[:m.start()] + stripped[m.end():]).strip()
        steps.append(_step(stripped, body, line.strip()))
    return steps


def _step(command: str, body: str | None, line: str) -> Step:
    try:
        words = shlex.split(command)
    except ValueError as e:
        raise UsageError(f"cannot read the command line {line!r}: {e}") from None
    if words and words[0] == "cat":
        if "|" in words:
            pipe = words.index("|")
            rest = words[pipe + 1:]
            if body is None or words[1:pipe] or not rest or rest[0] not in _CLIENTS:
                raise UsageError(f"unsupported command line: {line}")
            return Command(tuple(rest[1:]), body, line)
        if ">" in words and body is not None:
            target = words[words.index(">") + 1:]
            if len(target) == 1:
                return WriteFile(target[0], body, line)
        raise UsageError(f"unsupported command line: {line}")
    if words and words[0] == "rm":
        paths = [w for w in words[1:] if not w.startswith("-")]
        if len(paths) == 1:
            return RemoveFile(paths[0], line)
        raise UsageError(f"unsupported command line: {line}")
    if words and words[0] in _CLIENTS and len(words) > 1:
        return Command(tuple(words[1:]), body or "", line)
    raise UsageError(f"unsupported command line: {line}")


def run(steps: list[Step], runner, context: str | None = None, stop_on_error: bool = True) -> list[tuple]:
    """Run the steps: ``runner(argv, stdin) -> (code, out, err)`` for a command (``--context``
    added when given); files written and removed as the shell would. Returns (step, code, out,
    err) for each step run; stops at the first failure unless told not to."""
    import os

    results = []
    for step in steps:
        if isinstance(step, Command):
            argv = (["--context", context] if context else []) + list(step.argv)
            code, out, err = runner(argv, step.stdin)
        elif isinstance(step, WriteFile):
            os.makedirs(os.path.dirname(step.path) or ".", exist_ok=True)
            with open(step.path, "w", encoding="utf-8") as fh:
                fh.write(step.content)
            code, out, err = 0, "", ""
        else:
            try:
                os.remove(step.path)
                code, out, err = 0, "", ""
            except FileNotFoundError:
                code, out, err = 1, "", f"rm: cannot remove '{step.path}': No such file or directory\n"
        results.append((step, code, out, err))
        if code != 0 and stop_on_error:
            break
    return results
