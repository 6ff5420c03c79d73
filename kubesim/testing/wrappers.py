"""Fluent builders for pods and nodes, for scheduler tests and examples (after upstream's
pkg/scheduler/testing/wrappers.go: ``MakePod().Name("p").Req(...).Obj()``)."""

from __future__ import annotations

import copy
import itertools

_uid = itertools.count(1)


class PodWrapper:
    def __init__(self, name: str = "pod", namespace: str = "default") -> None:
        self._pod: dict = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}-{next(_uid)}"},
            "spec": {"containers": []},
            "status": {"phase": "Pending"},
        }

    @property
    def spec(self) -> dict:
        return self._pod["spec"]

    def name(self, name: str) -> PodWrapper:
        self._pod["metadata"]["name"] = name
        return self

    def namespace(self, ns: str) -> PodWrapper:
        self._pod["metadata"]["namespace"] = ns
        return self

    def uid(self, uid: str) -> PodWrapper:
        self._pod["metadata"]["uid"] = uid
        return self

    def label(self, k: str, v: str) -> PodWrapper:
        self._pod["metadata"].setdefault("labels", {})[k] = v
        return self

    def annotation(self, k: str, v: str) -> PodWrapper:
        self._pod["metadata"].setdefault("annotations", {})[k] = v
        return self

    def node(self, node: str) -> PodWrapper:
        self.spec["nodeName"] = node
        self._pod["status"]["phase"] = "Running"
        return self

    def phase(self, phase: str) -> PodWrapper:
        self._pod["status"]["phase"] = phase
        return self

    def priority(self, p: int) -> PodWrapper:
        self.spec["priority"] = p
        return self

    def preemption_policy(self, policy: str) -> PodWrapper:
        self.spec["preemptionPolicy"] = policy
        return self

    def scheduler_name(self, name: str) -> PodWrapper:
        self.spec["schedulerName"] = name
        return self

    def container(self, image: str = "nginx", requests: dict | None = None,
                  ports: list[dict] | None = None, name: str | None = None) -> PodWrapper:
        c: dict = {"name": name or f"c{len(self.spec['containers'])}", "image": image}
        if requests is not None:
            c["resources"] = {"requests": dict(requests)}
        if ports:
            c["ports"] = ports
        self.spec["containers"].append(c)
        return self

    def req(self, requests: dict | None = None, **kw) -> PodWrapper:
        """A container requesting ``requests`` (dict, for names with slashes) and/or kw."""
        r = dict(requests or {})
        r.update({k.replace("_", "-"): v for k, v in kw.items()})
        return self.container(requests=r)

    def init_req(self, requests: dict | None = None, restart_policy: str | None = None,
                 **kw) -> PodWrapper:
        r = dict(requests or {})
        r.update({k.replace("_", "-"): v for k, v in kw.items()})
        inits = self.spec.setdefault("initContainers", [])
        c: dict = {"name": f"init{len(inits)}", "image": "busybox",
                   "resources": {"requests": r}}
        if restart_policy:
            c["restartPolicy"] = restart_policy
        inits.append(c)
        return self

    def overhead(self, **kw) -> PodWrapper:
        self.spec["overhead"] = {k.replace("_", "-"): v for k, v in kw.items()}
        return self

    def pod_requests(self, **kw) -> PodWrapper:
        self.spec["resources"] = {"requests": {k.replace("_", "-"): v for k, v in kw.items()}}
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> PodWrapper:
        p: dict = {"containerPort": port, "hostPort": port}
        if protocol:
            p["protocol"] = protocol
        if host_ip:
            p["hostIP"] = host_ip
        if not self.spec["containers"]:
            self.container()
        self.spec["containers"][-1].setdefault("ports", []).append(p)
        return self

    def toleration(self, key: str = "", operator: str = "", value: str = "",
                   effect: str = "") -> PodWrapper:
        t = {k: v for k, v in (("key", key), ("operator", operator), ("value", value),
                                ("effect", effect)) if v}
        self.spec.setdefault("tolerations", []).append(t)
        return self

    def node_selector(self, selector: dict) -> PodWrapper:
        self.spec["nodeSelector"] = dict(selector)
        return self

    def _node_affinity(self) -> dict:
        return self.spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})

    def required_terms(self, *terms: dict) -> PodWrapper:
        self._node_affinity()["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": list(terms)}
        return self

    def node_affinity_in(self, key: str, values: list[str]) -> PodWrapper:
        return self.required_terms(
            {"matchExpressions": [{"key": key, "operator": "In", "values": values}]})

    def preferred(self, weight: int, term: dict) -> PodWrapper:
        self._node_affinity().setdefault(
            "preferredDuringSchedulingIgnoredDuringExecution", []).append(
            {"weight": weight, "preference": term})
        return self

    def gates(self, *names: str) -> PodWrapper:
        self.spec["schedulingGates"] = [{"name": n} for n in names]
        return self

    def nominated(self, node: str) -> PodWrapper:
        self._pod["status"]["nominatedNodeName"] = node
        return self

    def resource_claim(self, name: str, claim: str | None = None,
                       template: str | None = None) -> PodWrapper:
        """A ``spec.resourceClaims`` entry naming a ResourceClaim or a ResourceClaimTemplate
        (upstream's ``PodResourceClaims``)."""
        entry: dict = {"name": name}
        if claim is not None:
            entry["resourceClaimName"] = claim
        if template is not None:
            entry["resourceClaimTemplateName"] = template
        self.spec.setdefault("resourceClaims", []).append(entry)
        return self

    def resource_claim_status(self, name: str, claim: str | None) -> PodWrapper:
        """A ``status.resourceClaimStatuses`` entry: the claim generated for a template (None:
        none was needed), as the resourceclaim controller records it."""
        entry: dict = {"name": name}
        if claim is not None:
            entry["resourceClaimName"] = claim
        self._pod["status"].setdefault("resourceClaimStatuses", []).append(entry)
        return self

    def terminating(self, ts: str = "2026-01-01T00:00:00Z") -> PodWrapper:
        self._pod["metadata"]["deletionTimestamp"] = ts
        return self

    def obj(self) -> dict:
        """The pod (like upstream's MakePod, a pod without Req/Container has no containers)."""
        return copy.deepcopy(self._pod)


class NodeWrapper:
    def __init__(self, name: str = "node") -> None:
        self._node: dict = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {"capacity": {}, "allocatable": {}},
        }

    def capacity(self, resources: dict | None = None, **kw) -> NodeWrapper:
        r = dict(resources or {})
        r.update({k.replace("_", "-"): v for k, v in kw.items()})
        r.setdefault("pods", "110")
        self._node["status"]["capacity"] = dict(r)
        self._node["status"]["allocatable"] = dict(r)
        return self

    def label(self, k: str, v: str) -> NodeWrapper:
        self._node["metadata"]["labels"][k] = v
        return self

    def zone(self, zone: str, region: str = "") -> NodeWrapper:
        self.label("topology.kubernetes.io/zone", zone)
        if region:
            self.label("topology.kubernetes.io/region", region)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeWrapper:
        t = {"key": key, "effect": effect}
        if value:
            t["value"] = value
        self._node["spec"].setdefault("taints", []).append(t)
        return self

    def annotation(self, k: str, v: str) -> NodeWrapper:
        self._node["metadata"].setdefault("annotations", {})[k] = v
        return self

    def condition(self, type_: str, status: str) -> NodeWrapper:
        self._node["status"].setdefault("conditions", []).append(
            {"type": type_, "status": status})
        return self

    def unschedulable(self, flag: bool = True) -> NodeWrapper:
        self._node["spec"]["unschedulable"] = flag
        return self

    def image(self, size: int, *names: str) -> NodeWrapper:
        self._node["status"].setdefault("images", []).append(
            {"names": list(names), "sizeBytes": size})
        return self

    def obj(self) -> dict:
        return copy.deepcopy(self._node)


def make_pod(name: str = "pod", namespace: str = "default") -> PodWrapper:
    return PodWrapper(name, namespace)


def make_node(name: str = "node") -> NodeWrapper:
    return NodeWrapper(name)
