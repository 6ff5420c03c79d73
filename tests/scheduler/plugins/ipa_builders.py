"""Builders for InterPodAffinity tests: pod (anti-)affinity terms, as upstream's wrappers.go
(``PodAffinityIn``/``NotIn``/``Exists`` with ``PodAffinityWithRequiredReq`` /
``PodAffinityWithPreferredReq``, and the anti-affinity twins), plus nodes carrying exactly the
labels given (``make_node`` adds ``kubernetes.io/hostname``, which upstream's tables do not have).
"""

from __future__ import annotations

from kubesim.testing.wrappers import PodWrapper

REQUIRED = "required"
PREFERRED = "preferred"

_UNSET = object()


def expr(key: str, operator: str, *values: str) -> dict:
    e: dict = {"key": key, "operator": operator}
    if values:
        e["values"] = list(values)
    return e


def selector(*expressions: dict) -> dict:
    return {"matchExpressions": list(expressions)}


def term(topology_key: str, label_selector: dict | None, *, namespaces: list[str] | None = None,
         namespace_selector=_UNSET) -> dict:
    """A PodAffinityTerm; ``label_selector=None`` leaves the selector out (selects nothing)."""
    t: dict = {}
    if label_selector is not None:
        t["labelSelector"] = label_selector
    if topology_key:
        t["topologyKey"] = topology_key
    if namespaces is not None:
        t["namespaces"] = list(namespaces)
    if namespace_selector is not _UNSET:
        t["namespaceSelector"] = namespace_selector
    return t


def weighted(weight: int, pod_affinity_term: dict) -> dict:
    return {"weight": weight, "podAffinityTerm": pod_affinity_term}


def affinity(*, required: list[dict] = (), preferred: list[dict] = (),
             anti_required: list[dict] = (), anti_preferred: list[dict] = ()) -> dict:
    """A pod's spec.affinity with the given podAffinity / podAntiAffinity term lists."""
    out: dict = {}
    if required or preferred:
        pa = out["podAffinity"] = {}
        if required:
            pa["requiredDuringSchedulingIgnoredDuringExecution"] = list(required)
        if preferred:
            pa["preferredDuringSchedulingIgnoredDuringExecution"] = list(preferred)
    if anti_required or anti_preferred:
        pa = out["podAntiAffinity"] = {}
        if anti_required:
            pa["requiredDuringSchedulingIgnoredDuringExecution"] = list(anti_required)
        if anti_preferred:
            pa["preferredDuringSchedulingIgnoredDuringExecution"] = list(anti_preferred)
    return out


class AffinityPodWrapper(PodWrapper):
    """``make_pod`` plus pod (anti-)affinity helpers."""

    def labels(self, labels: dict) -> "AffinityPodWrapper":
        for k, v in labels.items():
            self.label(k, v)
        return self

    def affinity(self, aff: dict) -> "AffinityPodWrapper":
        self.spec["affinity"] = aff
        return self

    def _add(self, kind_key: str, t: dict, kind: str) -> "AffinityPodWrapper":
        pa = self.spec.setdefault("affinity", {}).setdefault(kind_key, {})
        if kind == REQUIRED:
            pa.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(t)
        else:
            pa.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                weighted(1, t))
        return self

    def pod_affinity(self, t: dict, kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self._add("podAffinity", t, kind)

    def pod_anti_affinity(self, t: dict, kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self._add("podAntiAffinity", t, kind)

    def pod_affinity_in(self, key: str, topology_key: str, values: list[str],
                        kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self.pod_affinity(term(topology_key, selector(expr(key, "In", *values))), kind)

    def pod_affinity_not_in(self, key: str, topology_key: str, values: list[str],
                            kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self.pod_affinity(term(topology_key, selector(expr(key, "NotIn", *values))), kind)

    def pod_affinity_exists(self, key: str, topology_key: str,
                            kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self.pod_affinity(term(topology_key, selector(expr(key, "Exists"))), kind)

    def pod_anti_affinity_in(self, key: str, topology_key: str, values: list[str],
                             kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self.pod_anti_affinity(term(topology_key, selector(expr(key, "In", *values))),
                                      kind)

    def pod_anti_affinity_not_in(self, key: str, topology_key: str, values: list[str],
                                 kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self.pod_anti_affinity(
            term(topology_key, selector(expr(key, "NotIn", *values))), kind)

    def pod_anti_affinity_exists(self, key: str, topology_key: str,
                                 kind: str = REQUIRED) -> "AffinityPodWrapper":
        return self.pod_anti_affinity(term(topology_key, selector(expr(key, "Exists"))), kind)


def make_pod(name: str = "pod", namespace: str = "default") -> AffinityPodWrapper:
    return AffinityPodWrapper(name, namespace)


def node(name: str, labels: dict | None = None) -> dict:
    """A node with exactly these labels (upstream's ``v1.Node{ObjectMeta{Name, Labels}}``)."""
    meta: dict = {"name": name}
    if labels is not None:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": {},
            "status": {"capacity": {}, "allocatable": {}}}
