"""explain-schedule --compare NODE_A NODE_B: two nodes side by side, what decided between them,
and the smallest change that would make a filtered node feasible."""

import json

import pytest

from kubesim.testing.cli import snapshot


def pod(name, cpu="100m", extra=""):
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{extra}"
            f"  containers:\n  - name: c\n    image: nginx\n"
            f"    resources: {{requests: {{cpu: {cpu}, memory: 128Mi}}}}\n")


def squeezed(out):
    return [" ".join(ln.split()) for ln in out.splitlines()]


def test_two_feasible_nodes_are_decided_by_the_plugins_whose_scores_differ(kubesim):
    kubesim.apply(pod("busy", cpu="2", extra="  nodeName: node01\n"))
    kubesim.apply(pod("web"))
    out = kubesim.ok("explain-schedule web --compare node01 node02")
    lines = squeezed(out)
    assert lines[0] == "Pod default/web: node01 vs node02 outcome: Scheduled on node02"
    # Both nodes run kubeadm's kube-proxy (no requests: the scheduler counts 100m and 200Mi for
    # it), node01 also a CoreDNS pod (100m, 70Mi). LeastAllocated, node01: cpu
    # (4000-2300)*100//4000 = 42, memory (8485076992-551550976)*100//8485076992 = 93 ->
    # (42+93)//2 = 67; node02: cpu 200m -> 95, memory 328Mi -> 95 -> 95.
    # BalancedAllocation: node01 |0.575-0.065|/2 -> 74; node02 |0.05-0.0405|/2 -> 99
    assert "NodeResourcesFit 67×1 = 67 95×1 = 95" in lines
    assert "TOTAL 441 494" in lines
    assert lines[-1] == ("Decided by: node02 scores 53 more than node01: "
                         "NodeResourcesFit +28, NodeResourcesBalancedAllocation +25")


@pytest.mark.parametrize("setup, manifest, node, change", [
    pytest.param([], pod("web"), "controlplane",
                 "- remove taint node-role.kubernetes.io/control-plane:NoSchedule: kubesim taint "
                 "nodes controlplane node-role.kubernetes.io/control-plane:NoSchedule- "
                 "(or tolerate it in the pod)",
                 id="a taint is removed by name"),
    pytest.param([pod("hog", cpu="3800m", extra="  nodeName: node01\n")], pod("web", cpu="1"),
                 "node01",
                 # 1000m wanted + 3800m + CoreDNS's 100m requested - 4000m allocatable = 900m short
                 "- free 900m cpu on node01 (its pods request 3900m of 4 allocatable; the pod "
                 "requests 1), or lower the pod's request by as much",
                 id="missing cpu is counted to the millicore"),
    pytest.param([], pod("web", extra="  nodeSelector: {disk: ssd}\n"), "node01",
                 "- set label disk=ssd: kubesim label nodes node01 disk=ssd",
                 id="a nodeSelector asks for the label it lacks"),
    pytest.param([], pod("web", extra=(
        "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "        nodeSelectorTerms:\n        - matchExpressions:\n"
        "          - {key: gpu, operator: Exists}\n          - {key: zone, operator: In, values: [a, b]}\n")),
        "node01", "- add label gpu: kubesim label nodes node01 gpu=",
        id="required node affinity asks for each label its term lacks"),
])
def test_a_filtered_node_gets_the_smallest_change_that_would_make_it_feasible(
        kubesim, setup, manifest, node, change):
    for m in setup:
        kubesim.apply(m)
    kubesim.apply(manifest)
    other = "node02" if node != "node02" else "node01"
    lines = squeezed(kubesim.ok(f"explain-schedule web --compare {node} {other}"))
    at = lines.index(f"To make {node} feasible:")
    assert change in lines[at + 1:]


def test_json_adds_the_comparison_to_the_explanation(kubesim):
    kubesim.apply(pod("web"))
    exp = json.loads(kubesim.ok("explain-schedule web --compare controlplane node01 -o json"))
    assert exp["kind"] == "ScheduleExplanation" and "trace" not in exp
    cmp = exp["compare"]
    assert cmp["nodes"] == ["controlplane", "node01"]
    taint = next(r for r in cmp["filter"] if r["plugin"] == "TaintToleration")
    assert taint["verdicts"] == {"controlplane": "node(s) had untolerated taint(s)",
                                 "node01": "passed"}
    assert cmp["decidedBy"]["by"] == "filter" and cmp["decidedBy"]["winner"] == "node01"
    assert list(cmp["toMakeFeasible"]) == ["controlplane"]
    fit = next(r for r in cmp["score"] if r["plugin"] == "NodeResourcesFit")
    assert fit["scores"]["controlplane"] is None and "difference" not in fit


@pytest.mark.parametrize("args, err", [
    pytest.param("web --compare node01 nodeX", 'Error from server (NotFound): nodes "nodeX" not found\n',
                 id="an unknown node is not found"),
    pytest.param("web --compare node01 node01", "error: --compare needs two different nodes, got node01 twice\n",
                 id="the same node twice"),
    pytest.param("web --compare node01 node02 --trace", "error: --trace and --compare cannot be used together\n",
                 id="with --trace"),
    pytest.param("nope --compare node01 node02", 'Error from server (NotFound): pods "nope" not found\n',
                 id="an unknown pod"),
    pytest.param("-n kube-system kube-apiserver-controlplane --compare node01 node02",
                 "error: pod kube-system/kube-apiserver-controlplane has no per-node verdicts to compare "
                 "(outcome: Bypassed)\n", id="a pod the scheduler never placed"),
])
def test_bad_comparisons_are_refused_and_change_nothing(kubesim, args, err):
    kubesim.apply(pod("web"))
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"explain-schedule {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before


def test_a_what_if_pod_can_be_compared_and_nothing_is_stored(kubesim):
    kubesim.apply(pod("hog", cpu="3800m", extra="  nodeName: node01\n"))
    before = snapshot(kubesim.state_dir)
    out = kubesim.ok("explain-schedule -f - --compare node01 node02", stdin=pod("web", cpu="1"))
    assert squeezed(out)[-3:] == [
        "Decided by: node01 fails NodeResourcesFit (Insufficient cpu); node02 passes every filter",
        "To make node01 feasible:",
        "- free 900m cpu on node01 (its pods request 3900m of 4 allocatable; the pod requests 1), "
        "or lower the pod's request by as much"]
    assert snapshot(kubesim.state_dir) == before
