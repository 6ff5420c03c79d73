"""Fluent-enough builders for the network tests: stored-object dicts as the control plane
would hand them to kubesim.network."""

from __future__ import annotations

from kubesim.network.cluster import Snapshot


def namespace(name: str, **labels) -> dict:
    return {"kind": "Namespace", "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, **labels}}}


def pod(ns: str, name: str, ip: str, labels: dict | None = None, ports: list | None = None, node: str = "node01",
        image: str = "nginx", phase: str = "Running", **spec) -> dict:
    container = {"name": name, "image": image}
    if ports:
        container["ports"] = ports
    return {"kind": "Pod", "metadata": {"namespace": ns, "name": name, "labels": labels or {}, "uid": f"uid-{name}"},
            "spec": {"containers": [container], "nodeName": node, **spec},
            "status": {"phase": phase, "podIP": ip,
                       "containerStatuses": [{"name": name, "ready": True, "state": {"running": {}}}]}}


def service(ns: str, name: str, ip: str | None, ports: list, type_: str = "ClusterIP", **spec) -> dict:
    s = {"type": type_, "ports": ports, **spec}
    if ip is not None:
        s["clusterIP"] = ip
        s["clusterIPs"] = [ip]
    return {"kind": "Service", "metadata": {"namespace": ns, "name": name}, "spec": s}


def endpoint_slice(ns: str, service_name: str, ports: list, endpoints: list) -> dict:
    return {"kind": "EndpointSlice",
            "metadata": {"namespace": ns, "name": f"{service_name}-abcde",
                         "labels": {"kubernetes.io/service-name": service_name}},
            "addressType": "IPv4", "ports": ports, "endpoints": endpoints}


def endpoint(p: dict, ready: bool = True, serving: bool | None = None, terminating: bool = False,
             hostname: str | None = None) -> dict:
    ep = {"addresses": [p["status"]["podIP"]],
          "conditions": {"ready": ready, "serving": ready if serving is None else serving, "terminating": terminating},
          "nodeName": p["spec"]["nodeName"],
          "targetRef": {"kind": "Pod", "namespace": p["metadata"]["namespace"], "name": p["metadata"]["name"]}}
    if hostname:
        ep["hostname"] = hostname
    return ep


def policy(ns: str, name: str, spec: dict) -> dict:
    return {"kind": "NetworkPolicy", "metadata": {"namespace": ns, "name": name}, "spec": spec}


def node(name: str, ip: str) -> dict:
    return {"kind": "Node", "metadata": {"name": name}, "status": {"addresses": [{"type": "InternalIP", "address": ip}]}}


def e2e_model(policies=()) -> Snapshot:
    """test/e2e/network/netpol's model: namespaces x, y, z, each with pods a, b, c serving 80
    and 81 (TCP and UDP), pods labelled ``pod: <name>``, namespaces ``ns: <name>``."""
    pods = []
    for i, ns in enumerate("xyz"):
        for j, name in enumerate("abc"):
            ports = [{"name": f"serve-{p}-{proto.lower()}", "containerPort": p, "protocol": proto}
                     for p in (80, 81) for proto in ("TCP", "UDP")]
            pods.append(pod(ns, name, f"10.244.{i + 1}.{j + 10}", {"pod": name}, ports))
    return Snapshot(pods=pods, namespaces=[namespace(ns, ns=ns) for ns in "xyz"], policies=list(policies),
                    nodes=[node("node01", "172.30.2.2")])


def listens_everywhere(pod, port, protocol):
    """A listener for the e2e model: every pod serves 80 and 81, TCP and UDP."""
    if port in (80, 81):
        return {"status": 200, "reason": "OK", "body": pod["metadata"]["name"], "any_path": True}
    return None
