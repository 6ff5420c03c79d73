"""explain-schedule --trace through the CLI: the text view, the JSON key it adds, and bad input."""

import json

import pytest

from kubesim.testing.cli import snapshot

SMALL = """apiVersion: v1
kind: Pod
metadata: {name: small}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: 100m, memory: 128Mi}}
"""


def test_the_trace_lists_each_extension_point_with_each_plugins_status(kubesim):
    kubesim.apply(SMALL)
    node = json.loads(kubesim.ok("get pod small -o json"))["spec"]["nodeName"]
    out = kubesim.ok("explain-schedule small --trace").splitlines()
    assert out[0] == f"Pod default/small   profile: default-scheduler   outcome: Scheduled   node: {node}"
    assert out[2].split() == ["EXTENSION", "POINT", "PLUGIN", "STATUS", "DETAIL"]
    points = [ln.split()[0] for ln in out[3:] if ln and not ln.startswith(" ")]
    assert points == ["PreEnqueue", "QueueSort", "PreFilter", "Filter", "PreScore", "Score",
                      "NormalizeScore", "Reserve", "Permit", "PreBind", "Bind", "PostBind"]
    squeezed = [" ".join(ln.split()) for ln in out]  # columns are as wide as their cells
    for row in ["=> priority 0; attempt 1, popped from the Active queue; moved there by "
                "UnschedulablePodAdd; popped 1st in its scheduling round",
                "TaintToleration UnschedulableAndUnresolvable 2/3 nodes passed; "
                "1× node(s) had untolerated taint(s); kube-scheduler stopped here on 1",
                "=> 2 feasible of 3 evaluated (3 nodes): node01, node02",
                f"=> winner {node} (total 494)",  # 300 + 95 + 99: next to kube-proxy, away from CoreDNS
                "Bind DefaultBinder Success",
                "Permit - - no plugin enabled"]:
        assert row in squeezed


@pytest.mark.parametrize("args, has_trace", [
    pytest.param("-o json", False, id="without --trace the JSON keeps DESIGN 3.5's keys"),
    pytest.param("-o json --trace", True, id="with --trace the JSON adds the trace"),
])
def test_json_carries_the_trace_only_when_asked(kubesim, args, has_trace):
    kubesim.apply(SMALL)
    exp = json.loads(kubesim.ok(f"explain-schedule small {args}"))
    assert ("trace" in exp) is has_trace
    if has_trace:
        assert [s["extensionPoint"] for s in exp["trace"]][:4] == [
            "PreEnqueue", "QueueSort", "PreFilter", "Filter"]
        assert exp["trace"][-2]["plugins"] == [{"name": "DefaultBinder", "code": "Success"}]


def test_a_what_if_trace_stops_before_binding(kubesim):
    out = kubesim.ok("explain-schedule -f - --trace", stdin=SMALL)
    assert "Reserve - - not run: explain-schedule evaluates, it binds nothing" in [
        " ".join(ln.split()) for ln in out.splitlines()]


def test_a_pod_the_scheduler_never_saw_has_no_trace(kubesim):
    out = kubesim.ok("explain-schedule -n kube-system kube-apiserver-controlplane --trace")
    assert out.splitlines() == ["Pod kube-system/kube-apiserver-controlplane   outcome: Bypassed   "
                                "node: controlplane",
                                "No trace: the scheduler ran no extension point for this pod."]


def test_the_trace_of_a_missing_pod_is_kubectls_not_found(kubesim):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim("explain-schedule nope --trace")
    assert (r.code, r.out, r.err) == (1, "", 'Error from server (NotFound): pods "nope" not found\n')
    assert snapshot(kubesim.state_dir) == before


def test_queue_sort_puts_the_higher_priority_pod_first_and_the_trace_says_where(kubesim):
    kubesim.apply("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
                  "value: 1000\n")
    kubesim.apply(SMALL.replace("name: small", "name: a-low") + "---\n"
                  + SMALL.replace("name: small", "name: b-high").replace(
                      "spec:\n", "spec:\n  priorityClassName: high\n"))
    for pod, priority, position in (("b-high", 1000, 1), ("a-low", 0, 2)):
        step = json.loads(kubesim.ok(f"explain-schedule {pod} --trace -o json"))["trace"][1]
        assert step == {"extensionPoint": "QueueSort", "priority": priority, "position": position,
                        "plugins": [{"name": "PrioritySort", "code": "Success"}]}
    out = " ".join(kubesim.ok("explain-schedule a-low --trace").split())
    assert "popped 2nd in its scheduling round" in out
