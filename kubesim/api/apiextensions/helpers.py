"""What a stored CustomResourceDefinition says about the kind it serves.

Upstream: k8s.io/apiextensions-apiserver pkg/apis/apiextensions/helpers.go
(``IsCRDConditionTrue``, ``GetSchemaForVersion``, ``GetColumnsForVersion``,
``GetSubresourcesForVersion``, ``IsStoredVersion``) and pkg/apiserver/customresource_discovery
_controller.go (a version is discovered when it is served and the CRD Established; versions are
ordered by ``version.CompareKubeAwareVersionStrings``, the first being the preferred one).
"""

from __future__ import annotations

import re

from kubesim.api.kinds import KindInfo

ESTABLISHED = "Established"
NAMES_ACCEPTED = "NamesAccepted"
TERMINATING = "Terminating"
FINALIZER = "customresourcecleanup.apiextensions.k8s.io"

# the verbs a custom resource serves (customresource_discovery_controller.go)
VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")


def condition(crd: dict, type_: str) -> dict | None:
    for c in (crd.get("status") or {}).get("conditions") or ():
        if c.get("type") == type_:
            return c
    return None


def is_condition_true(crd: dict, type_: str) -> bool:
    """IsCRDConditionTrue."""
    c = condition(crd, type_)
    return c is not None and c.get("status") == "True"


_KUBE_VERSION = re.compile(r"^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$")


def _version_key(v: str) -> tuple:
    """version.CompareKubeAwareVersionStrings as a sort key: GA before beta before alpha, the
    higher major and minor first, non-Kubernetes versions last in lexical order."""
    m = _KUBE_VERSION.match(v)
    if not m:
        return (1, 0, 0, 0, v)
    major, stage, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (0, rank, -major, -minor, "")


def served_versions(crd: dict) -> list[str]:
    """The served versions, the preferred first."""
    names = [v.get("name", "") for v in (crd.get("spec") or {}).get("versions") or () if v.get("served")]
    return sorted(names, key=_version_key)


def storage_version(crd: dict) -> str:
    for v in (crd.get("spec") or {}).get("versions") or ():
        if v.get("storage"):
            return v.get("name", "")
    return ""


def version_of(crd: dict, name: str) -> dict:
    for v in (crd.get("spec") or {}).get("versions") or ():
        if v.get("name") == name:
            return v
    return {}


def schema_for_version(crd: dict, version: str) -> dict | None:
    """GetSchemaForVersion: the version's openAPIV3Schema."""
    return ((version_of(crd, version).get("schema") or {}).get("openAPIV3Schema"))


def columns_for_version(crd: dict, version: str) -> list[dict]:
    """GetColumnsForVersion, with the handler's default: an Age column when none are given."""
    cols = version_of(crd, version).get("additionalPrinterColumns")
    if not cols:
        return [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]
    return cols


def subresources_for_version(crd: dict, version: str) -> dict:
    return version_of(crd, version).get("subresources") or {}


def custom_kind_infos(crds: list[dict]) -> list[KindInfo]:
    """The kinds the established CRDs serve, one KindInfo per served version (the preferred
    version first, so a bare name means it), named by the accepted names."""
    out = []
    for crd in crds:
        if not is_condition_true(crd, ESTABLISHED):
            continue
        spec = crd.get("spec") or {}
        names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
        for version in served_versions(crd):
            out.append(KindInfo(names.get("kind", ""), spec.get("group", ""), version, names.get("plural", ""),
                                spec.get("scope") == "Namespaced", tuple(names.get("shortNames") or ()),
                                VERBS, tuple(names.get("categories") or ()), crd=crd))
    return out


def set_condition(crd: dict, new: dict, now: str | None) -> None:
    """SetCRDCondition: replace the condition of the same type, its lastTransitionTime kept
    unless the status changes."""
    status = crd.setdefault("status", {})
    conds = list(status.get("conditions") or [])
    for i, c in enumerate(conds):
        if c.get("type") == new["type"]:
            merged = {"type": new["type"], "status": new["status"],
                      "lastTransitionTime": c.get("lastTransitionTime")
                      if c.get("status") == new["status"] and c.get("lastTransitionTime") else now,
                      "reason": new.get("reason", ""), "message": new.get("message", "")}
            conds[i] = {k: v for k, v in merged.items() if v is not None}
            status["conditions"] = conds
            return
    c = {"type": new["type"], "status": new["status"], "lastTransitionTime": now,
         "reason": new.get("reason", ""), "message": new.get("message", "")}
    conds.append({k: v for k, v in c.items() if v is not None})
    status["conditions"] = conds
