"""TaintNodesByCondition (plugin/pkg/admission/nodetaint): a new node starts not ready."""

from __future__ import annotations

import copy
import random

from kubesim.apiserver.objects import prepare_for_create


def make_node(**kw) -> dict:
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node01"}}
    n.update(copy.deepcopy(kw))
    return n


def defaulted(obj: dict, seed: int = 0) -> dict:
    out = copy.deepcopy(obj)
    prepare_for_create(out, rng=random.Random(seed))
    return out


def test_a_new_node_is_tainted_not_ready():
    assert defaulted(make_node())["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]


def test_a_node_keeps_its_taints_and_gets_not_ready_once():
    taints = [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
              {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]
    assert defaulted(make_node(spec={"taints": taints}))["spec"]["taints"] == taints
