"""Kubelet admission: may this pod, bound to this node, run here?

Upstream: pkg/kubelet/lifecycle/predicate.go (predicateAdmitHandler.Admit): the OS checks first
(``PodOSSelectorNodeLabelDoesNotMatch``, ``PodOSNotSupported``), then ``generalFilter`` -
pkg/scheduler's AdmissionCheck with all failures (NodeResourcesFit's ``Fits``: pods first, then
cpu, memory, ephemeral-storage, extended resources; NodeAffinity (nodeSelector and required
node affinity); NodeName; NodePorts) and, except for static pods, the NoExecute taints the pod
does not tolerate. The first failure names the rejection: ``OutOfcpu`` / ``OutOfmemory`` /
``OutOfephemeral-storage`` / ``OutOfpods`` / ``OutOf<resource>`` with ``Node didn't have enough
resource: cpu, requested: 5000, used: 0, capacity: 4000`` (millicores for cpu, bytes otherwise,
capacity = allocatable), or the plugin name with ``Predicate <Name> failed: <reason>``.
pkg/kubelet/kubelet.go rejectPod then records a Warning event ``<reason>: <message>`` and sets
the status phase Failed, the reason, and ``Pod was rejected: <message>`` (pod_workers.sync_pod).

Pod requests follow k8s.io/component-helpers/resource PodRequests (containers summed, sidecars
added, init containers as a running maximum, pod-level requests and overhead): kubesim.api.resource,
the one implementation the scheduler, the kubelet and describe share.

Not modelled: the critical-pod admission handler that evicts lower-priority pods to admit a
static pod, device plugins, topology/CPU/memory managers, sysctls, AppArmor.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from kubesim.api.pods import MIRROR_POD_ANNOTATION

OUT_OF = {"cpu": "OutOfcpu", "memory": "OutOfmemory", "ephemeral-storage": "OutOfephemeral-storage",
          "pods": "OutOfpods"}
NODE_AFFINITY = "NodeAffinity"
NODE_AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
NODE_NAME = "NodeName"
NODE_NAME_REASON = "node(s) didn't match the requested node name"
NODE_PORTS = "NodePorts"
NODE_PORTS_REASON = "node(s) didn't have free ports for the requested pod ports"
TAINT_TOLERATION = "TaintToleration"
TAINT_REASON = "node(s) had taints that the pod didn't tolerate"
OS_SELECTOR = ("PodOSSelectorNodeLabelDoesNotMatch",
               "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label")
OS_FIELD = ("PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS")
NODE_OS = "linux"


def _q(v) -> Fraction:
    from kubesim.api.quantity import parse_quantity  # (which keeps each text's parse)

    try:
        return parse_quantity(v)
    except (ValueError, TypeError):
        return Fraction(0)


_REQUESTS: dict[bytes, dict[str, Fraction]] = {}  # what PodRequests reads of a spec -> its requests


def _requests(pod: dict) -> dict[str, Fraction]:
    """kubesim.api.pods.pod_requests as exact values (shared: not to be changed). PodRequests
    reads of the spec only its containers' resources, its init containers' resources and
    restartPolicy, the pod-level resources and the overhead, so pods of one template share the
    answer (kept per those parts' marshalled form, which tells 1 from 1.0)."""
    import marshal

    try:
        spec = pod.get("spec") or {}
        key = marshal.dumps(([c.get("resources") for c in spec.get("containers") or ()],
                             [(c.get("resources"), c.get("restartPolicy")) for c in spec.get("initContainers") or ()],
                             spec.get("resources"), spec.get("overhead")), 2)  # (version 2: no references)
    except (AttributeError, TypeError, ValueError):  # (not decoded JSON of a pod)
        return _pod_requests(pod)
    got = _REQUESTS.get(key)
    if got is None:
        if len(_REQUESTS) >= 1024:
            _REQUESTS.clear()
        got = _REQUESTS[key] = _pod_requests(pod)
    return got


def _pod_requests(pod: dict) -> dict[str, Fraction]:
    from kubesim.api.resource import pod_requests

    return {name: q.value for name, q in pod_requests(pod).items()}


def _summed(requests) -> dict[str, Fraction]:
    """The sum of ``requests`` (dicts, those of pods of one template the same dict): each
    distinct one added once, times its count (fewer Fraction additions)."""
    counts: dict[int, list] = {}  # id -> [requests, count] (the dicts held: ids stay theirs)
    for r in requests:
        if (entry := counts.get(id(r))) is None:
            counts[id(r)] = [r, 1]
        else:
            entry[1] += 1
    out: dict[str, Fraction] = {}
    for r, n in counts.values():
        for k, v in r.items():
            v = v * n if n > 1 else v
            out[k] = out[k] + v if k in out else v
    return out


# the requests of the pods on a node, by which shared answers of ``_requests`` they are (their
# ids, sorted) -> (those answers, held so that no other dict takes their ids; their sum; the
# sum's cpu, memory and ephemeral-storage amounts): a bulk apply's nodes mostly hold pods of the
# same few templates, whose sum is worked out once
_USED: dict[tuple, tuple[list, dict[str, Fraction], dict[str, int]]] = {}


def _used(pods_on_node: list[dict]) -> tuple[dict[str, Fraction], dict[str, int]]:
    """The summed requests of ``pods_on_node`` (``_summed``) and their cpu, memory and
    ephemeral-storage amounts (``_amount``), kept per the shared answers they sum."""
    requests = [_requests(p) for p in pods_on_node]
    key = tuple(sorted(map(id, requests)))
    got = _USED.get(key)
    if got is None:
        if len(_USED) >= 1024:
            _USED.clear()
        used = _summed(requests)
        got = _USED[key] = (requests, used, {name: _amount_cached(name, used.get(name, _ZERO))
                                             for name in ("cpu", "memory", "ephemeral-storage")})
    return got[1], got[2]


def _amount(name: str, v: Fraction) -> int:
    """Milli-units for cpu, whole units (rounded up) otherwise, as the scheduler's Resource."""
    import math

    if name == "cpu":
        return math.ceil(v * 1000)
    return math.ceil(v)


_ZERO = Fraction(0)


def _pure(fn):
    """``fn`` (pure) kept per arguments, as ``functools.lru_cache``; arguments it cannot hash
    (no valid quantity) computed each time. What the admission of every pod of a node reads
    again: the node's allocatable values, the requests of a template's pods."""
    cached = functools.lru_cache(maxsize=4096, typed=True)(fn)

    @functools.wraps(fn)
    def call(*args):
        try:
            return cached(*args)
        except TypeError:  # (an unhashable argument)
            return fn(*args)
    return call


@_pure
def _capacity(name: str, v) -> int:
    """``_amount`` of an allocatable value."""
    return _amount(name, _q(v))


_amount_cached = _pure(_amount)


def _is_extended(name: str) -> bool:
    return "/" in name and not name.startswith("kubernetes.io/") and not name.startswith("requests.")


@_pure
def _max_pods(v) -> int:
    """The number of allocatable pods."""
    return int(_q(v))


def insufficient_resources(pod: dict, node: dict, pods_on_node: list[dict]) -> list[tuple[str, int, int, int]]:
    """NodeResourcesFit ``Fits``: [(resource, requested, used, capacity)] in upstream's order."""
    alloc = (node.get("status") or {}).get("allocatable") or {}
    out = []
    max_pods = _max_pods(alloc.get("pods", 0))
    if len(pods_on_node) + 1 > max_pods:
        out.append(("pods", 1, len(pods_on_node), max_pods))
    req = _requests(pod)
    if not any(v for v in req.values()):
        return out
    used, used_amounts = _used(pods_on_node)
    for name in ("cpu", "memory", "ephemeral-storage"):
        r = _amount_cached(name, req.get(name, _ZERO))
        if r == 0:
            continue
        cap = _capacity(name, alloc.get(name, 0))
        u = used_amounts[name]
        if cap < r + u:
            out.append((name, r, u, cap))
    for name in sorted(req):
        if name in ("cpu", "memory", "ephemeral-storage", "pods") or not _is_extended(name) and not name.startswith("hugepages-"):
            continue
        r = _amount(name, req[name])
        if r == 0:
            continue
        if name not in alloc and _is_extended(name):
            continue  # removeMissingExtendedResources: cluster-level resources the node does not know
        cap = _amount(name, _q(alloc.get(name, 0)))
        u = _amount(name, used.get(name, Fraction(0)))
        if cap < r + u:
            out.append((name, r, u, cap))
    return out


def _required_affinity_matches(pod: dict, node: dict) -> bool:
    from kubesim.api.selectors import node_selector_matches

    spec = pod.get("spec") or {}
    labels = (node.get("metadata") or {}).get("labels") or {}
    for k, v in (spec.get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is None:
        return True
    return node_selector_matches(required, labels, {"metadata.name": (node.get("metadata") or {}).get("name", "")})


def _host_ports(pod: dict) -> list[tuple[str, str, int]]:
    out = []
    for c in ((pod.get("spec") or {}).get("initContainers") or []) + ((pod.get("spec") or {}).get("containers") or []):
        for p in c.get("ports") or ():
            hp = p.get("hostPort")
            if hp:
                out.append((p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(hp)))
    return out


def _ports_conflict(pod: dict, pods_on_node: list[dict]) -> bool:
    wanted = _host_ports(pod)
    if not wanted:
        return False
    used = [hp for p in pods_on_node for hp in _host_ports(p)]
    for ip, proto, port in wanted:
        for uip, uproto, uport in used:
            if port == uport and proto == uproto and (ip == uip or "0.0.0.0" in (ip, uip)):
                return True
    return False


def untolerated_no_execute(pod: dict, node: dict) -> dict | None:
    from kubesim.api.pods import tolerates

    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") != "NoExecute":
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def _is_static(pod: dict) -> bool:
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    return ann.get("kubernetes.io/config.source") in ("file", "http") or bool(ann.get(MIRROR_POD_ANNOTATION))


def admit(pod: dict, node: dict, pods_on_node: list[dict]) -> tuple[str, str] | None:
    """None when the kubelet admits ``pod``; else (reason, message) of the first failure.
    ``pods_on_node`` are the pods already admitted there (not this one, not finished)."""
    spec = pod.get("spec") or {}
    labels = (pod.get("metadata") or {}).get("labels") or {}
    node_os = ((node.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/os") or NODE_OS
    if "kubernetes.io/os" in labels and labels["kubernetes.io/os"] != node_os:
        return OS_SELECTOR
    if (spec.get("os") or {}).get("name") and spec["os"]["name"] != NODE_OS:
        return OS_FIELD
    reasons: list[tuple[str, str]] = []
    for name, requested, used, capacity in insufficient_resources(pod, node, pods_on_node):
        reasons.append((OUT_OF.get(name, "OutOf" + name),
                        f"Node didn't have enough resource: {name}, requested: {requested}, used: {used}, capacity: {capacity}"))
    if not _required_affinity_matches(pod, node):
        reasons.append((NODE_AFFINITY, f"Predicate {NODE_AFFINITY} failed: {NODE_AFFINITY_REASON}"))
    if spec.get("nodeName") and spec["nodeName"] != (node.get("metadata") or {}).get("name"):
        reasons.append((NODE_NAME, f"Predicate {NODE_NAME} failed: {NODE_NAME_REASON}"))
    if _ports_conflict(pod, pods_on_node):
        reasons.append((NODE_PORTS, f"Predicate {NODE_PORTS} failed: {NODE_PORTS_REASON}"))
    if not _is_static(pod) and untolerated_no_execute(pod, node) is not None:
        reasons.append((TAINT_TOLERATION, f"Predicate {TAINT_TOLERATION} failed: {TAINT_REASON}"))
    return reasons[0] if reasons else None
