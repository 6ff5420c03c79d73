"""Generate kubesim/data/image-tags.json.xz: the image repositories and tags the simulated
kubelet knows exist (kubesim.kubelet.imagetags), from the hand-maintained list
tools/image-tags.txt (its header describes the format; nothing is fetched).

The output is ``{"repositories": {familiar repository name: [tag, ...]}}``, tags sorted.

    python tools/gen_image_tags.py
"""

from __future__ import annotations

import json
import lzma
import os
import re

HERE = os.path.dirname(__file__)
SOURCE = os.path.join(HERE, "image-tags.txt")
OUT = os.path.join(HERE, "..", "kubesim", "data", "image-tags.json.xz")

_PATCH_RANGE = re.compile(r"^(v?\d+\.\d+)\.(\d+)-(\d+)$")
_MINOR_RANGE = re.compile(r"^(v?\d+)\.(\d+)-(\d+)$")


def expand(tokens: list[str], suffixes: list[str]) -> set[str]:
    """The tags one line of the source list names."""
    literal: set[str] = set()
    suffixed: set[str] = set()
    for token in tokens:
        if token.startswith("="):
            literal.add(token[1:])
            continue
        m = _PATCH_RANGE.match(token)
        if m:
            suffixed.add(m.group(1))
            suffixed.update(f"{m.group(1)}.{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1))
            continue
        m = _MINOR_RANGE.match(token)
        if m:
            suffixed.update(f"{m.group(1)}.{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1))
            continue
        suffixed.add(token)
    tags = literal | suffixed
    for suffix in suffixes:
        tags.add(suffix)
        tags.update(f"{tag}-{suffix}" for tag in suffixed if tag != "latest")
    return tags


def parse(text: str) -> dict[str, list[str]]:
    repos: dict[str, set[str]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, _, tail = line.partition("|")
        repo, *tokens = head.split()
        repos.setdefault(repo, set()).update(expand(tokens, tail.split()))
    return {repo: sorted(tags) for repo, tags in sorted(repos.items())}


def main():
    with open(SOURCE, encoding="utf-8") as f:
        data = {"repositories": parse(f.read())}
    with lzma.open(OUT, "wt", encoding="utf-8", preset=9) as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=True)
    print(f"{OUT}: {len(data['repositories'])} repositories, "
          f"{sum(len(t) for t in data['repositories'].values())} tags")


if __name__ == "__main__":
    main()
