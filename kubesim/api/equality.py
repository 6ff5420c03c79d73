"""Comparing objects as the API server does: semantic equality, and the diff its messages print.

Upstream: staging/src/k8s.io/apimachinery/pkg/api/equality/semantic.go (``Semantic.DeepEqual``)
compares typed Go structs, where an absent field, a nil and the zero value are one thing; on
kubesim's JSON-shaped objects that is: absent, null, ``""``, ``0``, ``false``, ``[]`` and ``{}``
are equal. Validation messages that show what changed (``ValidatePodUpdate``,
``ValidatePersistentVolumeUpdate``, ``ValidatePersistentVolumeClaimUpdate``) embed
``cmp.Diff`` of the internal types (github.com/google/go-cmp); go-cmp's output is deliberately
unstable and prints Go structs, so :func:`cmp_diff` renders kubesim's own diff in the same
shape: a ``  core.PodSpec{`` line, then ``- \\t<field>: <old JSON>`` / ``+ \\t<field>: <new JSON>``
lines for each changed field (JSON paths relative to the compared value), then ``  }``.
"""

from __future__ import annotations


def is_zero(v) -> bool:
    """Go's zero value of a decoded JSON field: absent/null, "", 0, false, [] or {}."""
    return v is None or v == "" or v == [] or v == {} or v is False or (
        isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0)


def semantic_equal(a, b) -> bool:
    """apiequality.Semantic.DeepEqual on JSON: absent, null and empty/zero values are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(semantic_equal(a.get(k), b.get(k)) for k in set(a) | set(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(semantic_equal(x, y) for x, y in zip(a, b))
    if is_zero(a) and is_zero(b):
        return True
    return a == b


def cmp_diff(old, new, type_name: str = "core.PodSpec") -> str:
    """``cmp.Diff(old, new)`` of a value of Go type ``type_name``, in kubesim's rendering."""
    import json

    lines = [f"  {type_name}{{"]

    def dump(v) -> str:
        return "null" if v is None else json.dumps(v, separators=(",", ":"), sort_keys=True)

    def walk(a, b, path: str):
        if semantic_equal(a, b):
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{path}.{k}" if path else k)
            return
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{path}[{i}]")
            return
        lines.append(f"- \t{path}: {dump(a)}")
        lines.append(f"+ \t{path}: {dump(b)}")

    walk(old, new, "")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def drop_empty(v):
    """``v`` with the fields that decode to nothing dropped from every map: null, ``""``, ``[]``,
    ``{}`` and ``false`` (zeros are kept). The apps strategies and validation compare specs and
    selectors in this form; :func:`semantic_equal` would also equate a ``0`` with an absent field."""
    if isinstance(v, dict):
        return {k: drop_empty(x) for k, x in v.items() if x not in (None, "", [], {}) and x is not False}
    if isinstance(v, list):
        return [drop_empty(x) for x in v]
    return v
