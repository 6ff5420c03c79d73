"""The pod garbage collector through the CLI, on a pinned clock (10:00:00 is one of its 20 s
ticks): pods bound to a node that does not exist go after the 40 s quarantine, deleted or not;
so do a deleted node's pods; a terminating pod on a node shut down and tainted out-of-service is
force-deleted."""

import json


def pod(name, node, command=("sleep", "3600")):
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                       "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox",
                                                                  "command": list(command)}]}})


def status(h, name):
    rows = [ln.split() for ln in h.ok("get pods --no-headers").splitlines()]
    row = next((r for r in rows if r[0] == name), None)
    return row[2] if row else None


def test_a_pod_pinned_to_a_missing_node_is_collected_after_the_quarantine(kubesim):
    kubesim.ok("apply -f -", pod("ghost", "nowhere"))
    out = kubesim.ok("get pod ghost -o wide").splitlines()[1].split()
    assert out[:3] == ["ghost", "0/1", "Pending"] and out[6] == "nowhere"
    kubesim.ok("advance 39s")
    assert status(kubesim, "ghost") == "Pending"
    kubesim.ok("advance 1s")
    r = kubesim("get pod ghost")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): pods "ghost" not found\n')
    assert kubesim("get events --field-selector involvedObject.name=ghost").err == \
        "No resources found in default namespace.\n"  # PodGC records no events


def test_the_quarantine_starts_at_the_first_tick_that_sees_the_pod(kubesim):
    kubesim.ok("advance 5s")
    kubesim.ok("apply -f -", pod("ghost", "nowhere"))  # 10:00:05: seen at 10:00:20
    kubesim.ok("advance 54s")
    assert status(kubesim, "ghost") == "Pending"
    kubesim.ok("advance 1s")  # 10:01:00
    assert status(kubesim, "ghost") is None


def test_deleting_such_a_pod_leaves_it_terminating_until_podgc_removes_it(kubesim):
    kubesim.ok("advance 5s")
    kubesim.ok("apply -f -", pod("ghost", "nowhere"))
    kubesim.ok("delete pod ghost --wait=false")
    assert status(kubesim, "ghost") == "Terminating"  # no kubelet will ever confirm it
    kubesim.ok("advance 54s")  # past its grace period, still there
    assert status(kubesim, "ghost") == "Terminating"
    kubesim.ok("advance 1s")
    assert status(kubesim, "ghost") is None


def test_a_waiting_delete_of_such_a_pod_returns_when_podgc_removes_it(kubesim):
    kubesim.ok("advance 5s")
    kubesim.ok("apply -f -", pod("ghost", "nowhere"))
    # kubectl's delete waits (--wait=true) until the pod is gone: PodGC's tick at 10:01:00
    assert kubesim.ok("delete pod ghost") == 'pod "ghost" deleted from default namespace\n'
    assert status(kubesim, "ghost") is None
    r = kubesim("delete pod ghost --timeout=10s")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): pods "ghost" not found\n')


def test_a_deleted_nodes_pods_are_marked_failed_and_go_after_the_quarantine(kubesim):
    kubesim.ok("create deployment web --image=nginx --replicas=2")
    kubesim.ok("apply -f -", pod("solo", "node02"))
    kubesim.ok("advance 5s")
    on02 = [ln.split()[0] for ln in kubesim.ok("get pods -o wide --no-headers").splitlines() if "node02" in ln]
    assert "solo" in on02 and len(on02) == 2
    assert kubesim.ok("delete node node02") == 'node "node02" deleted\n'
    assert all(status(kubesim, n) == "Running" for n in on02)  # still bound to the node that is gone
    kubesim.ok("advance 54s")  # 10:00:59: the quarantine runs from the tick at 10:00:20
    assert all(status(kubesim, n) == "Running" for n in on02)
    kubesim.ok("advance 1s")
    assert all(status(kubesim, n) is None for n in on02)
    kubesim.ok("advance 1s")  # the replacement's nginx pull (present on node01: Always re-pulls it)
    rows = [ln.split() for ln in kubesim.ok("get pods -o wide --no-headers").splitlines()]
    assert len(rows) == 2 and all(r[2] == "Running" and r[6] == "node01" for r in rows)  # the replacement


def test_a_terminating_pod_on_a_shut_down_node_goes_once_the_node_is_tainted_out_of_service(kubesim):
    kubesim.ok("apply -f -", pod("stuck", "node01"))
    kubesim.ok("node stop node01")
    kubesim.ok("advance 6m")  # NotReady at 50 s, evicted at 350 s: no kubelet to confirm it
    assert status(kubesim, "stuck") == "Terminating"
    kubesim.ok("advance 1h")
    assert status(kubesim, "stuck") == "Terminating"
    kubesim.ok("taint nodes node01 node.kubernetes.io/out-of-service=nodeshutdown:NoExecute")  # 11:06:00, a tick
    assert status(kubesim, "stuck") is None
