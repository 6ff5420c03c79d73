"""explain-schedule reads the Nodes its views need (kubesim/kubectl/cmd/explain_schedule.py
``_nodes``): the ones a filter rejected (the fit hints read them) and --compare's two, not
every Node of the cluster; past ``NODES_BY_NAME_MAX`` names, one list."""

from __future__ import annotations

import pytest

from kubesim.kubectl.cmd import explain_schedule

PINNED = """apiVersion: v1
kind: Pod
metadata: {name: pinned}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c, image: nginx}]
"""

PLAIN = """apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  containers: [{name: c, image: nginx}]
"""


class _Client:
    """Counts what ``_nodes`` asks of a client."""

    def __init__(self, names):
        self.names, self.got, self.listed = names, [], 0

    def get(self, info, namespace, name):
        from kubesim.errors import NotFound

        self.got.append(name)
        if name not in self.names:
            raise NotFound("nodes", name)
        return {"metadata": {"name": name}}

    def list(self, info):
        self.listed += 1
        return [{"metadata": {"name": n}} for n in self.names]


def _exp(verdicts: dict[str, str]) -> dict:
    return {"nodes": {n: {"filter": {"NodeAffinity": v, "TaintToleration": "passed"}} for n, v in verdicts.items()}}


@pytest.mark.parametrize(("explanations", "extra", "got", "listed"), [
    pytest.param([_exp({"a": "passed", "b": "passed"})], (), [], 0,
                 id="a pod every node passed reads no Node"),
    pytest.param([_exp({"a": "passed", "b": "node(s) didn't match Pod's node affinity/selector"})], (), ["b"], 0,
                 id="a rejecting node is read for its hint"),
    pytest.param([_exp({"a": "skipped"})], ("a", "gone"), ["a", "gone"], 0,
                 id="compare's nodes are read and a missing one is left out"),
    pytest.param([_exp({f"n{i}": "x" for i in range(explain_schedule.NODES_BY_NAME_MAX + 1)})], (), [], 1,
                 id="past the limit one list"),
])
def test_only_the_nodes_the_views_read_are_fetched(explanations, extra, got, listed):
    names = {n for e in explanations for n in e["nodes"]}
    client = _Client(names)
    nodes = explain_schedule._nodes(client, explanations, extra)
    assert client.got == got and client.listed == listed
    assert set(nodes) == (set(got) | (names if listed else set())) & names


def test_hints_still_read_the_rejecting_nodes(kubesim):
    kubesim.ok("apply -f -", PINNED)
    out = kubesim.ok("explain-schedule pinned")
    # the control plane's taint, read from its Node
    assert "kubesim taint nodes controlplane node-role.kubernetes.io/control-plane:NoSchedule-" in out
    kubesim.ok("apply -f -", PLAIN)
    assert "plain" in kubesim.ok("explain-schedule plain")
