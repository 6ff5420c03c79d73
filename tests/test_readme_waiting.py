"""The README's "Waiting on the simulated clock" walk-through is kubesim's real output: its
commands are run in order on a fresh pinned state and must print what the README shows (a line
ending in ``...`` is compared up to there, and nothing after it)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from kubesim.testing.cli import Harness

ROOT = Path(__file__).resolve().parent.parent


def walkthrough() -> list[tuple[str, list[str]]]:
    """[(command, expected output lines)] from the section's code blocks, in order."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Waiting on the simulated clock", 1)[1].split("\n## ", 1)[0]
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```\n(.*?)```", section, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:].split("  #")[0].strip(), []))
            else:
                steps[-1][1].append(line)
    return steps


def test_the_walkthrough_prints_what_the_readme_shows(tmp_path):
    h = Harness(tmp_path / "state")
    steps = walkthrough()
    assert len(steps) >= 10
    for command, expected in steps:
        if command.startswith("sed "):  # sed 's/A/B/' IN > OUT
            m = re.fullmatch(r"sed 's/(.*?)/(.*?)/' (\S+) > (\S+)", command)
            (tmp_path / m.group(4)).write_text((ROOT / m.group(3)).read_text().replace(m.group(1), m.group(2)))
            continue
        command, _, grep = command.partition(" | grep ")
        argv = shlex.split(command)[1:]
        argv = [str(ROOT / a) if a.startswith("manifests/") else
                str(tmp_path / a) if a.endswith(".yaml") else a for a in argv]
        r = h(argv)
        got = (r.out + r.err).splitlines()
        if grep:
            got = [line for line in got if grep in line]
        if expected and expected[-1].endswith("..."):  # the rest elided
            got = got[:len(expected)]
        assert len(got) == len(expected), (command, got)
        for g, e in zip(got, expected):
            assert g.startswith(e[:-3]) if e.endswith("...") and not g.endswith("...") else g == e, (command, g, e)
