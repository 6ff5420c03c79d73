"""Kubelet admission (kubesim.kubelet.admission): pkg/kubelet/lifecycle/predicate.go."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubesim.kubelet.admission import admit
from kubesim.testing.kubelet import container, node, pod


def admitted(name, cpu="0", memory="0"):
    p = pod(name, container("c", "nginx", resources={"requests": {"cpu": cpu, "memory": memory}}))
    p["status"]["startTime"] = "2026-11-22T10:00:00Z"
    return p


CASES = [
    ("a pod that fits is admitted", container("c", "nginx", resources={"requests": {"cpu": "1"}}), {}, [], None),
    ("more cpu than the node has: OutOfcpu in millicores",
     container("c", "nginx", resources={"requests": {"cpu": "5"}}), {}, [],
     ("OutOfcpu", "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000")),
    ("cpu already used by admitted pods counts",
     container("c", "nginx", resources={"requests": {"cpu": "1500m"}}), {}, [admitted("a", "3")],
     ("OutOfcpu", "Node didn't have enough resource: cpu, requested: 1500, used: 3000, capacity: 4000")),
    ("more memory than the node has: OutOfmemory in bytes",
     container("c", "nginx", resources={"requests": {"memory": "9Gi"}}), {}, [],
     ("OutOfmemory", "Node didn't have enough resource: memory, requested: 9663676416, used: 0, capacity: 8589934592")),
    ("cpu is reported before memory",
     container("c", "nginx", resources={"requests": {"cpu": "5", "memory": "9Gi"}}), {}, [],
     ("OutOfcpu", "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000")),
    ("a full node: OutOfpods, checked first", container("c", "nginx"), {"pods": "2"}, [admitted("a"), admitted("b")],
     ("OutOfpods", "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2")),
    ("a nodeSelector the node does not match: NodeAffinity", container("c", "nginx"), {"selector": {"disk": "ssd"}}, [],
     ("NodeAffinity", "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector")),
    ("an untolerated NoExecute taint: TaintToleration", container("c", "nginx"),
     {"taints": [{"key": "maintenance", "value": "true", "effect": "NoExecute"}]}, [],
     ("TaintToleration", "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate")),
    ("a NoSchedule taint does not stop the kubelet (only the scheduler)", container("c", "nginx"),
     {"taints": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]}, [], None),
    ("a host port already taken: NodePorts", container("c", "nginx", ports=[{"containerPort": 80, "hostPort": 8080}]),
     {"others_ports": True}, [],
     ("NodePorts", "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports")),
]


@pytest.mark.parametrize("c,opts,others,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_admit(c, opts, others, expected):
    n = node(pods=opts.get("pods", "110"), taints=opts.get("taints"))
    p = pod("p", c)
    if opts.get("selector"):
        p["spec"]["nodeSelector"] = opts["selector"]
    if opts.get("others_ports"):
        o = pod("o", container("c", "nginx", ports=[{"containerPort": 80, "hostPort": 8080}]))
        others = [o]
    assert admit(p, n, others) == expected


def test_static_pods_are_not_rejected_for_taints():
    n = node(taints=[{"key": "maintenance", "effect": "NoExecute"}])
    p = pod("etcd-node01", container("etcd", "registry.k8s.io/etcd:3.6.6-0"),
            annotations={"kubernetes.io/config.source": "file", "kubernetes.io/config.mirror": "h"})
    assert admit(p, n, []) is None


def test_an_os_label_that_does_not_match_the_node():
    p = pod("p", container("c", "nginx"))
    p["metadata"]["labels"] = {"kubernetes.io/os": "windows"}
    assert admit(p, node(), []) == ("PodOSSelectorNodeLabelDoesNotMatch",
                                    "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label")


def _spec(**spec) -> dict:
    return {"metadata": {"name": "p", "namespace": "default"}, "spec": spec}


def _c(name: str, requests=None, **extra) -> dict:
    c = {"name": name, "image": "nginx", **extra}
    if requests is not None:
        c["resources"] = {"requests": requests}
    return c


# what PodRequests reads (k8s.io/component-helpers/resource/helpers.go), one shape a case; each
# is asked after the others, so a shape answered from another's kept answer would show
REQUEST_SHAPES = [
    ("no requests", _spec(containers=[_c("a")])),
    ("one container", _spec(containers=[_c("a", {"cpu": "100m", "memory": "64Mi"})])),
    ("the same, another volume mount", _spec(containers=[_c("a", {"cpu": "100m", "memory": "64Mi"},
                                                             volumeMounts=[{"name": "x", "mountPath": "/x"}])])),
    ("containers summed", _spec(containers=[_c("a", {"cpu": "100m"}), _c("b", {"cpu": "200m"})])),
    ("an init container as a running maximum",
     _spec(containers=[_c("a", {"cpu": "100m"})], initContainers=[_c("i", {"cpu": "1"})])),
    ("a sidecar added to the containers",
     _spec(containers=[_c("a", {"cpu": "100m"})], initContainers=[_c("i", {"cpu": "1"}, restartPolicy="Always")])),
    ("pod-level requests", _spec(containers=[_c("a", {"cpu": "100m"})], resources={"requests": {"cpu": "2"}})),
    ("overhead added", _spec(containers=[_c("a", {"cpu": "100m"})], overhead={"cpu": "250m"})),
    ("an integer quantity", _spec(containers=[_c("a", {"cpu": 1})])),
    ("a float quantity", _spec(containers=[_c("a", {"cpu": 1.5})])),
    ("a string quantity", _spec(containers=[_c("a", {"cpu": "1"})])),
    ("an extended resource", _spec(containers=[_c("a", {"example.com/gpu": "2"})])),
    ("no spec", {"metadata": {"name": "p"}}),
]


@pytest.mark.parametrize("shape", [s for _, s in REQUEST_SHAPES], ids=[i for i, _ in REQUEST_SHAPES])
def test_a_pods_requests_are_what_pod_requests_says_whatever_was_asked_before(shape):
    """``_requests`` keeps PodRequests' answer per what it reads of the spec: every shape gets
    its own answer, pods of one template (differing elsewhere) share it."""
    from kubesim.kubelet import admission

    for _, other in REQUEST_SHAPES:
        admission._requests(other)
    assert admission._requests(shape) == admission._pod_requests(shape)


def test_pods_of_one_template_share_their_requests():
    from kubesim.kubelet import admission

    admission._REQUESTS.clear()
    one, two = (_spec(containers=[_c("a", {"cpu": "100m"}, volumeMounts=[{"name": f"kube-api-access-{s}",
                                                                          "mountPath": "/var/run"}])])
                for s in ("abcde", "fghij"))
    admission._requests(one)
    admission._requests(two)
    assert len(admission._REQUESTS) == 1


def _plain_sum(requests: list[dict]) -> dict:
    out: dict = {}
    for r in requests:
        for k, v in r.items():
            out[k] = out.get(k, Fraction(0)) + v
    return out


_ONE = {"cpu": Fraction(1, 10), "memory": Fraction(100 * 2**20)}
_TWO = {"cpu": Fraction(1, 4), "example.com/gpu": Fraction(1)}


@pytest.mark.parametrize("requests", [
    [], [_ONE], [_ONE, _ONE, _ONE], [_ONE, _TWO, _ONE], [_ONE, dict(_ONE), _TWO, {}],
], ids=["no pods", "one pod", "three pods of one template (one dict)", "two templates interleaved",
        "equal requests in distinct dicts, and a pod requesting nothing"])
def test_the_summed_requests_are_the_plain_sum_of_each_pods(requests):
    from kubesim.kubelet.admission import _summed

    assert _summed(iter(requests)) == _plain_sum(requests)


def _plain_insufficient(pod_, node_, others) -> list:
    """insufficient_resources for cpu, memory and ephemeral storage worked out afresh: the
    plain sum of each other pod's PodRequests, with no answer kept between calls."""
    from kubesim.kubelet.admission import _amount, _pod_requests, _q

    alloc = node_["status"]["allocatable"]
    req = _pod_requests(pod_)
    used = _plain_sum([_pod_requests(o) for o in others])
    out = []
    for name in ("cpu", "memory", "ephemeral-storage"):
        r = _amount(name, req.get(name, Fraction(0)))
        cap, u = _amount(name, _q(alloc.get(name, 0))), _amount(name, used.get(name, Fraction(0)))
        if r and cap < r + u:
            out.append((name, r, u, cap))
    return out


def test_the_used_amounts_kept_per_template_follow_each_nodes_pods():
    """``_used`` keeps a node's summed requests per the shared answers its pods give: nodes of
    other mixes, the kept answers cleared, pods whose requests change between calls and
    requests no answer is kept for all get what a fresh sum says."""
    import random

    from kubesim.kubelet import admission

    rng = random.Random(7)
    templates = [{"cpu": "100m", "memory": "100Mi"}, {"cpu": "250m"}, {"cpu": "1", "memory": "1Gi"},
                 {"memory": "300Mi"}, {"cpu": "bogus"}, {"cpu": "3500m"}]
    n = node()
    for round_ in range(300):
        others = []
        for i in range(rng.randrange(0, 5)):
            o = admitted(f"o{i}")
            o["spec"]["containers"][0]["resources"]["requests"] = dict(rng.choice(templates))
            others.append(o)
        p = pod("p", container("c", "nginx", resources={"requests": dict(rng.choice(templates[:4]))}))
        if round_ % 50 == 49:
            admission._REQUESTS.clear()
        got = [r for r in admission.insufficient_resources(p, n, others) if r[0] != "pods"]
        assert got == _plain_insufficient(p, n, others)
