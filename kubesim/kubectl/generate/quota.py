"""``create quota NAME [--hard=key1=value1,...] [--scopes=Scope1,...]``.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_quota.go (``createQuota``,
``populateResourceListV1``: each ``resource=quantity`` parsed as a quantity and printed in its
canonical form; ``parseScopes``: the scopes as given, only an empty one refused, the API server
judging the rest). An empty ``--hard`` or ``--scopes`` leaves the field out.
"""

from __future__ import annotations

from kubesim.errors import UsageError
from kubesim.kubectl.generate.objects import metadata


def populate_resource_list(spec: str) -> dict | None:
    """populateResourceListV1."""
    if spec == "":
        return None
    from kubesim.api.quantity import canonical

    result: dict = {}
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise UsageError(f"Invalid argument syntax {statement}, expected <resource>=<value>")
        try:
            result[parts[0]] = canonical(parts[1])
        except ValueError as e:
            raise UsageError(str(e)) from None
    return {k: result[k] for k in sorted(result)}


def parse_scopes(spec: str) -> list[str] | None:
    """parseScopes."""
    if spec == "":
        return None
    scopes = spec.split(",")
    for scope in scopes:
        if scope == "":
            raise UsageError('invalid resource quota scope ""')
    return scopes


def resource_quota(name: str, namespace: str | None, hard: str, scopes: str) -> dict:
    """createQuota: the ResourceQuota in Go struct order (spec: hard, scopes; an empty status)."""
    spec: dict = {}
    resources = populate_resource_list(hard)
    parsed_scopes = parse_scopes(scopes)
    if resources is not None:
        spec["hard"] = resources
    if parsed_scopes:
        spec["scopes"] = parsed_scopes
    return {"kind": "ResourceQuota", "apiVersion": "v1", "metadata": metadata(name, namespace),
            "spec": spec, "status": {}}
