"""Builders for PodTopologySpread tests, after upstream's st.MakePod().SpreadConstraint(...) and
st.MakeNode().Label(...): pods with spread constraints and owners, nodes with exactly the labels
given (no default hostname label, since several cases hinge on a node lacking a key)."""

from __future__ import annotations

from kubesim.testing.wrappers import PodWrapper, make_node

ZONE = "zone"
NODE = "node"
HOSTNAME = "kubernetes.io/hostname"
TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
HARD = "DoNotSchedule"
SOFT = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"

FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
UNSCHEDULABLE_TAINT = ("node.kubernetes.io/unschedulable", "", "NoSchedule")


def labels(**kw) -> dict:
    """``foo=""`` style labels from keywords."""
    return dict(kw)


class SpreadPod(PodWrapper):
    def labels(self, **kw: str) -> "SpreadPod":
        for k, v in kw.items():
            self.label(k, v)
        return self

    def spread(self, max_skew: int, key: str, when: str, selector: dict | None,
               min_domains: int | None = None, affinity_policy: str | None = None,
               taints_policy: str | None = None,
               match_label_keys: list[str] | None = None) -> "SpreadPod":
        """``SpreadConstraint(maxSkew, key, when, selector, minDomains, nodeAffinityPolicy,
        nodeTaintsPolicy, matchLabelKeys)``; None leaves the field unset."""
        c: dict = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
        if selector is not None:
            c["labelSelector"] = selector
        if min_domains is not None:
            c["minDomains"] = min_domains
        if affinity_policy is not None:
            c["nodeAffinityPolicy"] = affinity_policy
        if taints_policy is not None:
            c["nodeTaintsPolicy"] = taints_policy
        if match_label_keys is not None:
            c["matchLabelKeys"] = list(match_label_keys)
        self.spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def owner(self, kind: str, name: str, api_version: str = "apps/v1",
              controller: bool = True) -> "SpreadPod":
        self._pod["metadata"].setdefault("ownerReferences", []).append(
            {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"uid-{name}",
             "controller": controller})
        return self

    def node_affinity_not_in(self, key: str, values: list[str]) -> "SpreadPod":
        return self.required_terms(
            {"matchExpressions": [{"key": key, "operator": "NotIn", "values": values}]})


def pod(name: str = "p", namespace: str = "default", **kw: str) -> SpreadPod:
    """A pod with labels ``kw``."""
    return SpreadPod(name, namespace).labels(**kw)


def placed(name: str, node: str, namespace: str = "default", terminating: bool = False,
           **kw: str) -> dict:
    """An existing pod bound to ``node``."""
    w = pod(name, namespace, **kw).node(node)
    if terminating:
        w.terminating()
    return w.obj()


def node(name: str, node_labels: dict | None = None, *taints: tuple[str, str, str],
         **kw: str) -> dict:
    """A node with exactly ``node_labels`` plus ``kw`` (no implicit hostname label)."""
    w = make_node(name)
    for t in taints:
        w.taint(*t)
    n = w.obj()
    n["metadata"]["labels"] = {**(node_labels or {}), **kw}
    return n


def zn(name: str, zone: str, *taints: tuple[str, str, str], **kw: str) -> dict:
    """Upstream's usual node: labels zone=<zone>, node=<name> (plus ``kw``)."""
    return node(name, {ZONE: zone, NODE: name}, *taints, **kw)


def hn(name: str, zone: str | None = None, **kw: str) -> dict:
    """A node labelled with kubernetes.io/hostname (and ``zone`` under the label "zone")."""
    lab = {HOSTNAME: name}
    if zone is not None:
        lab[ZONE] = zone
    return node(name, lab, **kw)


def service(selector: dict | None, namespace: str = "default", name: str = "svc") -> dict:
    spec = {} if selector is None else {"selector": dict(selector)}
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def replica_set(name: str, selector: dict | None, namespace: str = "default",
                kind: str = "ReplicaSet") -> dict:
    spec = {} if selector is None else {"selector": selector}
    return {"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def replication_controller(name: str, selector: dict, namespace: str = "default") -> dict:
    return {"apiVersion": "v1", "kind": "ReplicationController",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"selector": selector}}


def lister(objs) -> "callable":
    """An informer-like ``list_objects(kind, namespace)`` over ``objs``."""
    objs = list(objs)

    def list_objects(kind: str, namespace: str) -> list[dict]:
        return [o for o in objs if o.get("kind") == kind
                and ((o.get("metadata") or {}).get("namespace") or "default") == namespace]

    return list_objects
