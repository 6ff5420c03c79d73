"""The scheduler's --v lines as v1.35.4 writes them: text, level, file:line and keys, with the
contextual logger's name (framework.go names a plugin's logger "<ExtensionPoint>.<Plugin>" only
when V(4) is on) and the pod ScheduleOne's logger carries."""

import json
import re

import pytest

HEAD = re.compile(r"^I1122 10:00:00\.000000 +\d+ ")

SMALL = """apiVersion: v1
kind: Pod
metadata: {name: small}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: 100m, memory: 128Mi}}
"""


def lines(err: str) -> list[str]:
    return [HEAD.sub("", ln) for ln in err.splitlines() if HEAD.match(ln)]


def scheduled_small(kubesim, v: int) -> tuple[list[str], str, str]:
    kubesim.ok("get nodes")
    r = kubesim(f"apply -f - --v={v}", stdin=SMALL)
    assert r.code == 0, r.err
    obj = json.loads(kubesim.ok("get pod small -o json"))
    return lines(r.err), obj["metadata"]["uid"], obj["spec"]["nodeName"]


def test_v10_writes_the_whole_cycle_of_a_pod_in_upstreams_order(kubesim):
    got, uid, node = scheduled_small(kubesim, 10)  # a tie: the seed picks
    # node01, node02 each: 4000m cpu, 8485076992 bytes allocatable, nothing requested yet.
    # LeastAllocated: ((4000-100)*100//4000 + (8485076992-134217728)*100//8485076992) // 2
    #   = (97 + 98) // 2 = 97; BalancedAllocation: 1 - |0.025 - 0.0158|/2 -> 99
    listed = ('resource_allocation.go:168] "Listed internal info for allocatable resources, '
              'requested resources and score" logger="Score.{p}" pod="default/small" node="{n}" '
              'resourceAllocationScorer="{s}" allocatableResource=[4000,8485076992] '
              'requestedResource={r} resourceScore={v}')
    scored = 'schedule_one.go:830] "Plugin scored node for pod" pod="default/small" plugin="{p}" node="{n}" score={v}'
    want = ['eventhandlers.go:233] "Add event for unscheduled pod" pod="default/small"',
            'active_queue.go:110] "Pod moved to an internal scheduling queue" pod="default/small" '
            'event="UnschedulablePodAdd" queue="Active"',
            'schedule_one.go:83] "About to try and schedule pod" pod="default/small"',
            'schedule_one.go:99] "Attempting to schedule pod" pod="default/small"']
    # requested with the pod: 100m/128Mi, + kube-proxy on each node at the scheduler's non-zero
    # defaults (100m/200Mi), + node01's CoreDNS pod (100m/70Mi). node01: LeastAllocated cpu
    # (4000-300)*100//4000 = 92, memory 95 -> 93; balanced |0.05-0.0245|/2 -> 98.
    # node02: cpu 95, memory 95 -> 95; balanced |0.025-0.0158|/2 -> 99. BalancedAllocation counts
    # the requests as written (no non-zero defaults): kube-proxy adds nothing there.
    req = {"node01": "[300,417333248]", "node02": "[200,343932928]"}
    balanced_req = {"node01": "[200,207618048]", "node02": "[100,134217728]"}
    fit, balanced = {"node01": 93, "node02": 95}, {"node01": 98, "node02": 99}
    for n in ("node01", "node02"):
        want += [listed.format(p="NodeResourcesFit", n=n, s="LeastAllocated", r=req[n], v=fit[n]),
                 listed.format(p="NodeResourcesBalancedAllocation", n=n,
                               s="NodeResourcesBalancedAllocation", r=balanced_req[n], v=balanced[n])]
    for n in ("node01", "node02"):
        want += [scored.format(p=p, n=n, v=v) for p, v in (
            ("TaintToleration", 300), ("NodeResourcesFit", fit[n]), ("DynamicResources", 0),
            ("NodeResourcesBalancedAllocation", balanced[n]), ("ImageLocality", 0))]
    want += ['schedule_one.go:898] "Calculated node\'s final score for pod" pod="default/small" node="node01" score=491',
             'schedule_one.go:898] "Calculated node\'s final score for pod" pod="default/small" node="node02" score=494',
             'default_binder.go:69] "Attempting to bind pod to node" logger="Bind.DefaultBinder" '
             f'pod="default/small" node="{node}"',
             f'cache.go:398] "Finished binding for pod, can be expired" podKey="{uid}" pod="default/small"',
             f'schedule_one.go:337] "Successfully bound pod to node" pod="default/small" node="{node}" '
             'evaluatedNodes=3 feasibleNodes=2']
    assert got[:len(want)] == want


@pytest.mark.parametrize("v, want, absent", [
    pytest.param(3, ['default_binder.go:69] "Attempting to bind pod to node" pod="default/small" node="{node}"'],
                 ["logger=", "cache.go:398", "resource_allocation.go"],
                 id="below V(4) the framework leaves plugin loggers unnamed"),
    pytest.param(4, ['default_binder.go:69] "Attempting to bind pod to node" logger="Bind.DefaultBinder" '
                     'pod="default/small" node="{node}"'],
                 ["cache.go:398", "resource_allocation.go"],
                 id="at V(4) a plugin's line names its extension point and plugin"),
    pytest.param(5, ['"Finished binding for pod, can be expired" podKey="{uid}" pod="default/small"'],
                 ["resource_allocation.go", "schedule_one.go:830"],
                 id="at V(5) the cache says the binding finished, keyed by the pod's UID"),
])
def test_each_line_appears_from_its_own_level(kubesim, v, want, absent):
    got, uid, node = scheduled_small(kubesim, v)
    text = "\n".join(got)
    for w in want:
        assert w.format(uid=uid, node=node) in text
    for a in absent:
        assert a not in text


def test_a_line_without_its_own_pod_key_gets_the_cycles_pod(kubesim):
    kubesim.apply("""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    postFilter:
      disabled: [{name: "*"}]
""")
    kubesim.ok("taint nodes node01 node02 dedicated=gpu:NoSchedule")
    r = kubesim("apply -f - --v=3", stdin=SMALL)
    assert ('schedule_one.go:173] "No PostFilter plugins are registered, so no preemption will be '
            'performed" pod="default/small"') in lines(r.err)


def test_preemption_lines_name_the_post_filter_plugin_and_the_async_part_does_not(kubesim):
    kubesim.ok("get nodes")
    kubesim.apply("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
                  "value: 1000\n")
    for n in ("node01", "node02"):
        kubesim.apply(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: low-{n}}}\nspec:\n"
                      f"  nodeName: {n}\n  containers:\n"
                      "  - {name: c, image: nginx, resources: {requests: {cpu: 3}}}\n")
    r = kubesim("apply -f - --v=5", stdin=(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: vip}\nspec:\n  priorityClassName: high\n"
        "  containers:\n  - {name: c, image: nginx, resources: {requests: {cpu: 3}}}\n"))
    got = [ln for ln in lines(r.err) if ln.startswith(("preemption.go", "default_preemption.go"))]
    target = next(ln for ln in got if "the target node" in ln)
    node = target.split('node="')[1].split('"')[0]
    ctx = 'logger="PostFilter.DefaultPreemption"'
    assert got[0] == (f'preemption.go:779] "Dry run the preemption" {ctx} pod="default/vip" '
                      "potentialNodesNumber=2 pdbsNumber=0 offset=1 candidatesNumber=2")
    assert (f'default_preemption.go:280] "Pod is a potential preemption victim on node" {ctx} '
            f'pod="default/low-{node}" node="{node}"') in got  # the call's pod wins over the cycle's
    assert target == (f'preemption.go:327] "the target node for the preemption is determined" '
                      f'{ctx} node="{node}" pod="default/vip"')
    # prepareCandidateAsync starts from context.Background(): no logger name, no pod value
    assert got[-3:] == [
        f'preemption.go:582] "Start the preemption asynchronously" preemptor="default/vip" '
        f'node="{node}" numVictims=1 numVictimsToDelete=1',
        f'preemption.go:213] "Preemptor Pod preempted victim Pod" preemptor="default/vip" '
        f'victim="default/low-{node}" node="{node}"',
        f'preemption.go:627] "Async Preemption finished completely" preemptor="default/vip" '
        f'node="{node}" result="success"']
