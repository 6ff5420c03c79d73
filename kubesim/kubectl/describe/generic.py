"""kubectl's generic describer, for kinds without their own.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``genericDescriber``,
``printUnstructuredContent``, ``smartLabelFor``).
"""

from __future__ import annotations

from kubesim.api.gofmt import go_sprint
from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    DescribeContext,
    PrefixWriter,
    describe_events,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)


def _camelcase_split(s: str) -> list[str]:
    """github.com/fatih/camelcase.Split."""
    def kind(ch: str) -> int:
        if ch.islower():
            return 1
        if ch.isupper():
            return 2
        if ch.isdigit():
            return 3
        return 4

    runs: list[list[str]] = []
    last = 0
    for ch in s:
        k = kind(ch)
        if k == last and runs:
            runs[-1].append(ch)
        else:
            runs.append([ch])
        last = k
    # an upper run followed by a lower run hands its last letter to the lower run
    for i in range(len(runs) - 1):
        if runs[i][0].isupper() and runs[i + 1][0].islower():
            runs[i + 1].insert(0, runs[i].pop())
    return ["".join(r) for r in runs if r]


def smart_label_for(field_name: str) -> str:
    """describe.go smartLabelFor: ``apiVersion`` → ``API Version``."""
    if any(not (ch.isalpha() or ch == "-") for ch in field_name):
        return field_name
    parts = _camelcase_split(field_name)
    merged: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if i < len(parts) - 1:
            nxt = parts[i + 1]
            all_upper = all(not ch.isalpha() or ch.isupper() for ch in part)
            if len(part) >= 2 and all_upper and nxt and nxt[0].isupper():
                merged.append(part + nxt)
                i += 2
                continue
        merged.append(part)
        i += 1
    out = []
    for part in merged:
        if part == "_":
            continue
        if part.upper() in ("API", "URL", "UID", "GUID"):
            part = part.upper()
        elif part.lower() == part:
            part = part[:1].upper() + part[1:]
        out.append(part)
    return " ".join(out)


_GENERIC_SKIP = (".metadata.managedFields", ".metadata.name", ".metadata.namespace",
                 ".metadata.labels", ".metadata.annotations")


def _print_unstructured(w: PrefixWriter, level: int, content: dict, skip_prefix: str) -> None:
    for key in sorted(content):
        value = content[key]
        skip_expr = f"{skip_prefix}.{key}"
        if skip_expr in _GENERIC_SKIP:
            continue
        if isinstance(value, dict):
            w.write(level, f"{smart_label_for(key)}:\n")
            _print_unstructured(w, level + 1, value, skip_expr)
        elif isinstance(value, list):
            w.write(level, f"{smart_label_for(key)}:\n")
            for child in value:
                if isinstance(child, dict):
                    _print_unstructured(w, level + 1, child, skip_expr)
                else:
                    w.write(level + 1, f"{go_sprint(child)}\n")
        else:
            w.write(level, f"{smart_label_for(key)}:\t{go_sprint(value)}\n")


def describe_generic(obj: dict, ctx: DescribeContext) -> str:
    meta = object_meta(obj)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    _print_unstructured(w, LEVEL_0, obj, "")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
