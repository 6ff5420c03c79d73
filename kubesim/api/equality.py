"""Comparing objects as the API server does: semantic equality.

Upstream: staging/src/k8s.io/apimachinery/pkg/api/equality/semantic.go (``Semantic.DeepEqual``)
compares typed Go structs, where an absent field, a nil and the zero value are one thing; on
kubesim's JSON-shaped objects that is: absent, null, ``""``, ``0``, ``false``, ``[]`` and ``{}``
are equal. The diff that validation messages print of what changed is
``kubesim.api.gojson.diff``'s.
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


def drop_empty(v):
    """``v`` with the fields that decode to nothing dropped from every map: null, ``""``, ``[]``,
    ``{}`` and ``false`` (zeros are kept). The apps strategies and validation compare specs and
    selectors in this form; :func:`semantic_equal` would also equate a ``0`` with an absent field."""
    if isinstance(v, dict):
        return {k: drop_empty(x) for k, x in v.items() if x not in (None, "", [], {}) and x is not False}
    if isinstance(v, list):
        return [drop_empty(x) for x in v]
    return v
