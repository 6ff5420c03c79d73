"""kubectl drain against PodDisruptionBudgets, end to end through the CLI (pinned clock and seed).

The lines are kubectl's (staging/src/k8s.io/kubectl/pkg/drain/drain.go evictPods,
cmd/drain/drain.go); the API server's answer is pkg/registry/core/pod/storage/eviction.go's.
Retries and polls run on the simulated clock: a drain that waits moves it forward.
"""

from __future__ import annotations

import json

import pytest

from kubesim.testing.cli import snapshot

VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


def deployment(probe_delay: int | None = None) -> str:
    probe = ""
    if probe_delay is not None:
        probe = ("        readinessProbe:\n          httpGet:\n            path: /\n            port: 80\n"
                 f"          initialDelaySeconds: {probe_delay}\n          periodSeconds: 5\n")
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"
            "  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n"
            "        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: nginx\n" + probe)


def budget(name="web-pdb", min_available=2) -> str:
    return (f"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {name}\nspec:\n"
            f"  minAvailable: {min_available}\n  selector:\n    matchLabels:\n      app: web\n")


def apply(kubesim, tmp_path, *docs):
    f = tmp_path / "objects.yaml"
    f.write_text("---\n".join(docs))
    return kubesim.ok(f"apply -f {f}")


def obj(kubesim, what):
    return json.loads(kubesim.ok(f"get {what} -o json"))


def web_pods(kubesim) -> dict[str, list[str]]:
    by_node: dict[str, list[str]] = {}
    for p in obj(kubesim, "pods -l app=web")["items"]:
        by_node.setdefault(p["spec"].get("nodeName", ""), []).append(p["metadata"]["name"])
    return {n: sorted(v) for n, v in by_node.items()}


def clock(kubesim) -> str:
    return next(line.split()[2] for line in kubesim.ok("cluster info").splitlines() if line.startswith("simulated"))


@pytest.fixture
def spread(kubesim, tmp_path):
    """Three web pods on the two workers (two on one of them), then the PDB."""
    def make(min_available=2, probe_delay=None):
        apply(kubesim, tmp_path, deployment(probe_delay))
        kubesim.ok("advance 30s" if probe_delay is not None else "advance 5s")  # nginx pulled, the pods ready
        apply(kubesim, tmp_path, budget(min_available=min_available))
        placed = web_pods(kubesim)
        busy = max(placed, key=lambda n: len(placed[n]))
        assert len(placed[busy]) == 2 and sum(len(v) for v in placed.values()) == 3
        return busy, placed[busy]
    return make


def ignored(kubesim, node) -> str:
    """kubectl's warning for the node's kube-proxy pod (a kubeadm cluster's DaemonSet, on every
    node): drain.go's daemonSetFilter with --ignore-daemonsets, printed before any eviction."""
    proxies = sorted(p["metadata"]["name"] for p in obj(kubesim, "pods -n kube-system -l k8s-app=kube-proxy")["items"]
                     if p["spec"]["nodeName"] == node)
    return "Warning: ignoring DaemonSet-managed Pods: " + ", ".join(f"kube-system/{p}" for p in proxies) + "\n"


def coredns_on(kubesim, node) -> list[str]:
    """kubeadm's CoreDNS pods on the node: drain evicts them like any other managed pod."""
    return sorted(p["metadata"]["name"] for p in obj(kubesim, "pods -n kube-system -l k8s-app=kube-dns")["items"]
                  if p["spec"].get("nodeName") == node)


def retry_line(pod):
    return f'error when evicting pods/"{pod}" -n "default" (will retry after 5s): {VIOLATION}\n'


def test_drain_evicts_as_the_budget_allows_and_finishes_when_replacements_are_up(kubesim, spread):
    node, (first, second) = spread(min_available=2)
    r = kubesim(f"drain {node} --ignore-daemonsets")
    assert r.code == 0, r.err
    # t=0: the budget allows one eviction; the other is refused and retried 5s later, when the
    # first pod's replacement runs elsewhere; each eviction is confirmed by the next 1s poll
    assert r.out == (f"node/{node} cordoned\n"
                     f"evicting pod default/{first}\nevicting pod default/{second}\n"
                     f"pod/{first} evicted\n"
                     f"evicting pod default/{second}\n"
                     f"pod/{second} evicted\n"
                     f"node/{node} drained\n")
    assert r.err == ignored(kubesim, node) + retry_line(second)
    placed = web_pods(kubesim)
    assert node not in placed and sum(len(v) for v in placed.values()) == 3
    assert clock(kubesim) == "2026-11-22T10:00:11Z"  # 5s of warm-up (the pulls), then 6s of draining
    status = obj(kubesim, "pdb web-pdb")["status"]
    assert (status["currentHealthy"], status["desiredHealthy"], status["disruptionsAllowed"]) == (3, 2, 1)


def test_drain_waits_for_replacements_to_become_ready(kubesim, spread):
    node, (first, second) = spread(min_available=2, probe_delay=12)
    r = kubesim(f"drain {node} --ignore-daemonsets")
    assert r.code == 0, r.err
    # the replacement of the first pod turns Ready 15s after it started (initialDelaySeconds 12,
    # then the probe's period); the second pod is refused at 0, 5 and 10s and evicted at 15s
    assert r.out.count(f"evicting pod default/{second}\n") == 4
    assert r.err == ignored(kubesim, node) + retry_line(second) * 3
    assert r.out.endswith(f"pod/{second} evicted\nnode/{node} drained\n")
    assert clock(kubesim) == "2026-11-22T10:00:46Z"  # 30s of warm-up, then 16s of draining


def test_drain_times_out_as_kubectl_does_when_the_budget_never_allows(kubesim, spread):
    node, (first, second) = spread(min_available=3)
    r = kubesim(f"drain {node} --ignore-daemonsets --timeout=12s")
    assert r.code == 1
    # attempts at 0, 5 and 10s; at 15s the 12s timeout has passed
    assert r.out == f"node/{node} cordoned\n" + f"evicting pod default/{first}\nevicting pod default/{second}\n" * 4
    timeout = [f'error when evicting pods/"{p}" -n "default": global timeout reached: 12s' for p in (first, second)]
    assert r.err == (ignored(kubesim, node) + (retry_line(first) + retry_line(second)) * 3
                     + f'There are pending pods in node "{node}" when an error occurred: [{", ".join(timeout)}]\n'
                     + f"pod/{first}\npod/{second}\n"
                     + f'error: unable to drain node "{node}" due to error: [{", ".join(timeout)}], '
                       "continuing command...\n"
                     + f"There are pending nodes to be drained:\n {node}\n"
                     + "".join(t + "\n" for t in timeout))
    # the cordon stays, the pods stay, the clock moved on
    assert obj(kubesim, f"node/{node}")["spec"]["unschedulable"] is True
    assert web_pods(kubesim)[node] == [first, second]
    assert clock(kubesim) == "2026-11-22T10:00:20Z"


def test_drain_without_timeout_stops_when_nothing_can_change_the_budget(kubesim, spread):
    node, (first, second) = spread(min_available=3)
    r = kubesim(f"drain {node} --ignore-daemonsets")
    assert r.code == 1
    stop = [f'error when evicting pods/"{p}" -n "default": {VIOLATION} The disruption budget web-pdb needs 3 '
            "healthy pods and has 3 currently, and nothing in the cluster will change that (kubectl would retry "
            "every 5s forever; kubesim stops)" for p in (first, second)]
    lines = r.err.splitlines()
    assert lines[-2:] == stop
    assert lines[-4:-2] == ["There are pending nodes to be drained:", f" {node}"]
    assert all(line == retry_line(p).rstrip("\n") for line, p in zip(lines[1:], [first, second] * 10)
               if line.startswith("error when evicting") and "will retry" in line)
    assert web_pods(kubesim)[node] == [first, second]


def test_drain_with_disable_eviction_ignores_the_budget(kubesim, spread):
    node, (first, second) = spread(min_available=3)
    r = kubesim(f"drain {node} --ignore-daemonsets --disable-eviction")
    assert (r.code, r.err) == (0, ignored(kubesim, node))
    assert r.out == f"node/{node} cordoned\npod/{first} deleted\npod/{second} deleted\nnode/{node} drained\n"
    assert node not in web_pods(kubesim)


def test_drain_with_two_budgets_over_a_pod_fails_at_once(kubesim, spread, tmp_path):
    node, (first, second) = spread(min_available=1)
    apply(kubesim, tmp_path, budget("second-pdb", 1))
    r = kubesim(f"drain {node} --ignore-daemonsets")
    assert r.code == 1
    msg = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    errors = [f'error when evicting pods/"{p}" -n "default": {msg}' for p in (first, second)]
    assert r.err.splitlines()[-2:] == errors
    assert web_pods(kubesim)[node] == [first, second]


def test_server_dry_run_checks_the_budget_without_evicting(kubesim, spread):
    node, (first, second) = spread(min_available=2)
    before = obj(kubesim, "pdb web-pdb")["status"]
    r = kubesim(f"drain {node} --ignore-daemonsets --dry-run=server")
    assert r.code == 0, r.err
    assert r.out == (f"node/{node} cordoned (server dry run)\n"
                     f"evicting pod default/{first} (server dry run)\n"
                     f"evicting pod default/{second} (server dry run)\n"
                     f"node/{node} drained (server dry run)\n")
    assert web_pods(kubesim)[node] == [first, second]
    assert obj(kubesim, "pdb web-pdb")["status"] == before
    assert obj(kubesim, f"node/{node}")["spec"].get("unschedulable") is None


def test_evicted_pods_carry_the_disruption_target_condition_while_they_terminate(kubesim, tmp_path):
    slow = deployment().replace("      containers:\n", "      terminationGracePeriodSeconds: 60\n      containers:\n")
    slow = slow.replace("        image: nginx\n", "        image: nginx\n        command: [\"sleep\", \"infinity\"]\n")
    apply(kubesim, tmp_path, slow)
    kubesim.ok("advance 5s")  # nginx pulled: the containers run
    placed = web_pods(kubesim)
    node = max(placed, key=lambda n: len(placed[n]))
    r = kubesim(f"drain {node} --ignore-daemonsets --timeout=3s")
    assert r.code == 1
    assert f'error when waiting for pod "{placed[node][0]}" in namespace "default" to terminate: ' \
           "global timeout reached: 3s" in r.err
    p = obj(kubesim, f"pod/{placed[node][0]}")
    assert p["metadata"]["deletionTimestamp"]
    target = [c for c in p["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert [(c["status"], c["reason"], c["message"]) for c in target] == \
        [("True", "EvictionByEvictionAPI", "Eviction API: evicting")]


@pytest.mark.parametrize("command, stderr", [
    ("drain nope", 'Error from server (NotFound): nodes "nope" not found\n'),
    ("drain node01 --timeout=soon",
     'error: invalid argument "soon" for "--timeout" flag: time: invalid duration "soon"\n'
     "See 'kubesim drain --help' for usage.\n"),
    ("drain node01 --timeout=1d",
     'error: invalid argument "1d" for "--timeout" flag: time: unknown unit "d" in duration "1d"\n'
     "See 'kubesim drain --help' for usage.\n"),
], ids=["an unknown node", "a timeout that is no duration", "a timeout in days, which Go does not parse"])
def test_drain_refuses_bad_input_and_changes_nothing(kubesim, spread, command, stderr):
    spread(min_available=2)
    before = snapshot(kubesim.state_dir)
    r = kubesim(command)
    assert (r.code, r.out, r.err) == (1, "", stderr)
    assert snapshot(kubesim.state_dir) == before


def slow_or_crashing(name: str, command: str, replicas: int, grace: int = 30) -> str:
    """A Deployment pinned to node01 whose container runs ``command`` (busybox)."""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n"
            f"  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n"
            f"        app: {name}\n    spec:\n      terminationGracePeriodSeconds: {grace}\n"
            "      nodeSelector:\n        kubernetes.io/hostname: node01\n"
            f"      containers:\n      - name: c\n        image: busybox\n        command: {command}\n")


def names(kubesim, selector):
    return sorted(p["metadata"]["name"] for p in obj(kubesim, f"pods -l {selector}")["items"])


def test_drain_waits_for_graceful_termination_on_the_simulated_clock(kubesim, tmp_path):
    apply(kubesim, tmp_path, slow_or_crashing("slow", '["sleep", "infinity"]', 2, grace=20))
    kubesim.ok("advance 5s")  # busybox pulled: the containers run
    pods = names(kubesim, "app=slow")
    dns = coredns_on(kubesim, "node01")  # kubeadm's CoreDNS goes too, at once (its grace period runs out
    r = kubesim("drain node01 --ignore-daemonsets")  # later than sleep's, but it exits on SIGTERM)
    assert (r.code, r.err) == (0, ignored(kubesim, "node01"))
    assert r.out == ("node/node01 cordoned\n" + "".join(f"evicting pod default/{p}\n" for p in pods)
                     + "".join(f"evicting pod kube-system/{p}\n" for p in dns)
                     + "".join(f"pod/{p} evicted\n" for p in dns + pods) + "node/node01 drained\n")
    assert clock(kubesim) == "2026-11-22T10:00:25Z"  # sleep ignores SIGTERM: killed after the grace period


def test_drain_with_disable_eviction_times_out_as_wait_poll_does(kubesim, tmp_path):
    apply(kubesim, tmp_path, slow_or_crashing("slow", '["sleep", "infinity"]', 2, grace=20))
    kubesim.ok("advance 5s")  # busybox pulled: the containers run
    pods = names(kubesim, "app=slow")
    dns = coredns_on(kubesim, "node01")
    r = kubesim("drain node01 --ignore-daemonsets --disable-eviction --timeout=5s")
    assert (r.code, r.out) == (1, "node/node01 cordoned\n" + "".join(f"pod/{p} deleted\n" for p in dns))
    assert r.err == (ignored(kubesim, "node01") + 'There are pending pods in node "node01" when an error occurred: timed out waiting for the '
                     "condition\n" + "".join(f"pod/{p}\n" for p in pods)
                     + 'error: unable to drain node "node01" due to error: timed out waiting for the condition, '
                       "continuing command...\n"
                     + "There are pending nodes to be drained:\n node01\n"
                     + "error: timed out waiting for the condition\n")
    assert all(obj(kubesim, f"pod/{p}")["metadata"].get("deletionTimestamp") for p in pods)


@pytest.mark.parametrize("policy, drained", [
    ("", False),
    ("  unhealthyPodEvictionPolicy: IfHealthyBudget\n", False),
    ("  unhealthyPodEvictionPolicy: AlwaysAllow\n", True),
], ids=["crash-looping pods under an unmet budget are protected by default",
        "IfHealthyBudget protects them the same way",
        "AlwaysAllow lets them go without spending the budget"])
def test_unhealthy_pod_eviction_policy_decides_over_crash_looping_pods(kubesim, tmp_path, policy, drained):
    apply(kubesim, tmp_path, slow_or_crashing("crash", '["false"]', 3),
          budget("crash-pdb", 2).replace("app: web", "app: crash") + policy)
    kubesim.ok("advance 1m")  # CrashLoopBackOff: Running, never Ready
    pods = names(kubesim, "app=crash")
    assert obj(kubesim, "pdb crash-pdb")["status"]["currentHealthy"] == 0
    dns = coredns_on(kubesim, "node01")
    r = kubesim("drain node01 --ignore-daemonsets --timeout=8s")
    warning = ignored(kubesim, "node01")
    assert r.err.startswith(warning)
    r.err = r.err[len(warning):]
    if drained:
        assert r.code == 0 and r.err == ""
        assert r.out.endswith("".join(f"pod/{p} evicted\n" for p in pods + dns)
                              + "node/node01 drained\n")
        assert obj(kubesim, "pdb crash-pdb")["status"].get("disruptedPods") is None  # the budget was not spent
    else:
        assert r.code == 1
        assert r.err.startswith("".join(retry_line(p) for p in pods) * 2)
        assert r.err.endswith("".join(f'error when evicting pods/"{p}" -n "default": global timeout reached: 8s\n'
                                      for p in pods))


def test_drain_pod_selector_evicts_only_the_matching_pods(kubesim, tmp_path):
    apply(kubesim, tmp_path, slow_or_crashing("a", '["sleep", "infinity"]', 1, grace=0),
          slow_or_crashing("b", '["sleep", "infinity"]', 1, grace=0))
    a, b = names(kubesim, "app=a"), names(kubesim, "app=b")
    r = kubesim("drain node01 --ignore-daemonsets --pod-selector=app=a")
    assert (r.code, r.err) == (0, "")  # the selector leaves kube-proxy out, so no warning
    assert r.out == f"node/node01 cordoned\nevicting pod default/{a[0]}\npod/{a[0]} evicted\nnode/node01 drained\n"
    assert names(kubesim, "app=b") == b and obj(kubesim, f"pod/{b[0]}")["spec"]["nodeName"] == "node01"



def stuck_pod(grace: int = 5) -> str:
    """An unmanaged pod on node02 (where seed 42 puts no CoreDNS pod: the stuck pod is the only
    one drain has to deal with)."""
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: stuck\nspec:\n  nodeName: node02\n"
            f"  terminationGracePeriodSeconds: {grace}\n"
            "  containers:\n  - name: c\n    image: busybox\n    command: [\"sleep\", \"infinity\"]\n")


@pytest.mark.parametrize("flags, age, err, out, ends", [
    ("--skip-wait-for-delete-timeout=10", "60s", "", "node/node02 cordoned\nnode/node02 drained\n",
     "2026-11-22T10:01:00Z"),
    ("--skip-wait-for-delete-timeout=10 --force", "60s", "", "node/node02 cordoned\nnode/node02 drained\n",
     "2026-11-22T10:01:00Z"),
    ("--skip-wait-for-delete-timeout=10 --force", "15s",
     "Warning: deleting Pods that declare no controller: default/stuck\n",
     "node/node02 cordoned\nevicting pod default/stuck\n"
     'pod "stuck" has DeletionTimestamp older than 10 seconds, skipping\nnode/node02 drained\n',
     "2026-11-22T10:00:16Z"),
], ids=["a pod deleted longer ago than the skip timeout is filtered out before the unmanaged-pod check",
        "with --force it is filtered out too, with no warning and no eviction",
        "a pod exactly that much past its deletionTimestamp is not filtered (whole seconds, strictly older) "
        "but skipped at the next poll, a second later"])
def test_skip_wait_for_delete_timeout_passes_over_pods_a_dead_kubelet_never_removes(kubesim, tmp_path, flags, age,
                                                                                   err, out, ends):
    """drain/filters.go skipDeletedFilter (the first filter) and shouldSkipPod; the apiserver's
    rest.BeforeDelete leaves a pending graceful deletion alone, so the pod stays Terminating."""
    apply(kubesim, tmp_path, stuck_pod())
    kubesim.ok("node stop node02")
    kubesim.ok("delete pod stuck --wait=false")  # deletionTimestamp 10:00:05, never confirmed
    kubesim.ok(f"advance {age}")
    r = kubesim(f"drain node02 --ignore-daemonsets {flags}")
    # kubectl joins its filters' warnings with "; " (PodDeleteList.Warnings, in Go map order)
    warning = ignored(kubesim, "node02")
    want = warning if not err else err.rstrip("\n") + "; " + warning[len("Warning: "):]
    assert (r.code, r.err, r.out) == (0, want, out)
    assert obj(kubesim, "pod/stuck")["metadata"]["deletionTimestamp"] == "2026-11-22T10:00:05Z"
    assert clock(kubesim) == ends
