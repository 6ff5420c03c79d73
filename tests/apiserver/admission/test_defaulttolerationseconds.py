"""DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds)."""

from __future__ import annotations

import copy

import pytest

from kubesim.apiserver.admission import defaulttolerationseconds


def make_pod(*containers, **spec) -> dict:
    containers = containers or ({"name": "nginx", "image": "nginx"},)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
         "spec": {"containers": [copy.deepcopy(c) for c in containers]}}
    p["spec"].update(copy.deepcopy(spec))
    return p


NR = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UR = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
TOLERATION_CASES = [
    ("both default tolerations are added", [], [NR, UR]),
    ("user tolerations come first", [{"key": "gpu", "operator": "Exists"}], [{"key": "gpu", "operator": "Exists"}, NR, UR]),
    ("an existing not-ready toleration is kept as is",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}, UR]),
    ("a toleration of everything needs no defaults", [{"operator": "Exists"}], [{"operator": "Exists"}]),
    ("an empty key with NoExecute covers both", [{"operator": "Exists", "effect": "NoExecute"}],
     [{"operator": "Exists", "effect": "NoExecute"}]),
    ("a NoSchedule toleration of not-ready does not count",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}, NR, UR]),
    ("a not-ready toleration without effect counts",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}, UR]),
]


@pytest.mark.parametrize("given,stored", [c[1:] for c in TOLERATION_CASES], ids=[c[0] for c in TOLERATION_CASES])
def test_default_toleration_seconds(given, stored):
    pod = make_pod(tolerations=given)
    defaulttolerationseconds.admit_pod(pod)
    assert pod["spec"]["tolerations"] == stored
