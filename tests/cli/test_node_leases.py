"""Node Leases through the CLI, on a pinned clock: each kubelet's Lease in kube-node-lease,
renewed every 10 s of simulated time without a write, frozen when the kubelet stops, created
again when deleted, gone with its Node; describe node's Lease block (describe.go
describeNodeLease); the node lifecycle controller reading it."""

import json

NODE03 = "apiVersion: v1\nkind: Node\nmetadata:\n  name: node03\n"


def lease(h, node: str) -> dict:
    return json.loads(h.ok(f"get lease {node} -n kube-node-lease -o json"))


def ready(h, node: str) -> dict:
    conds = json.loads(h.ok(f"get node {node} -o json"))["status"]["conditions"]
    return next(c for c in conds if c["type"] == "Ready")


def test_every_kubelet_holds_a_lease_owned_by_its_node(kubesim):
    assert kubesim.ok("get leases -n kube-node-lease") == (
        "NAME           HOLDER         AGE\n"
        "controlplane   controlplane   0s\n"
        "node01         node01         0s\n"
        "node02         node02         0s\n")
    node = json.loads(kubesim.ok("get node node01 -o json"))
    got = lease(kubesim, "node01")
    assert got["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Node", "name": "node01", "uid": node["metadata"]["uid"]}]
    assert got["spec"] == {"holderIdentity": "node01", "leaseDurationSeconds": 40,
                           "renewTime": "2026-11-22T10:00:00.000000Z"}


def test_describe_node_prints_the_lease_as_kubectl_does(kubesim):
    kubesim.ok("advance 25s")
    out = kubesim.ok("describe node node01")
    assert ("Unschedulable:      false\n"
            "Lease:\n"
            "  HolderIdentity:  node01\n"
            "  AcquireTime:     <unset>\n"
            "  RenewTime:       Sun, 22 Nov 2026 10:00:20 +0000\n"
            "Conditions:\n") in out


def test_renewals_every_10s_are_seen_but_not_written(kubesim):
    before = lease(kubesim, "node02")
    kubesim.ok("advance 1h")
    after = lease(kubesim, "node02")
    assert after["spec"]["renewTime"] == "2026-11-22T11:00:00.000000Z"
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    kubesim.ok("advance 5s")
    assert lease(kubesim, "node02")["spec"]["renewTime"] == "2026-11-22T11:00:00.000000Z"


def test_a_stopped_kubelet_stops_renewing_and_its_node_goes_not_ready_50s_after_the_last_renewal(kubesim):
    kubesim.ok("advance 15s")                 # renewed at 10:00:10
    kubesim.ok("node stop node01")            # at 10:00:15
    kubesim.ok("advance 44s")                 # 10:00:59
    assert lease(kubesim, "node01")["spec"]["renewTime"] == "2026-11-22T10:00:10.000000Z"
    assert ready(kubesim, "node01")["status"] == "True"
    kubesim.ok("advance 1s")                  # 10:01:00 = 10:00:10 + node-monitor-grace-period
    r = ready(kubesim, "node01")
    assert (r["status"], r["reason"], r["lastTransitionTime"]) == ("Unknown", "NodeStatusUnknown", "2026-11-22T10:01:00Z")
    assert "RenewTime:       Sun, 22 Nov 2026 10:00:10 +0000" in kubesim.ok("describe node node01")
    listed = json.loads(kubesim.ok("get leases -n kube-node-lease -o json"))["items"]
    assert {item["metadata"]["name"]: item["spec"]["renewTime"] for item in listed} == {
        "controlplane": "2026-11-22T10:01:00.000000Z", "node01": "2026-11-22T10:00:10.000000Z",
        "node02": "2026-11-22T10:01:00.000000Z"}
    kubesim.ok("advance 1m")
    kubesim.ok("node start node01")           # 10:02:00: the new kubelet renews at once
    got = lease(kubesim, "node01")["spec"]["renewTime"]
    assert got == "2026-11-22T10:02:00.000000Z"
    kubesim.ok("advance 15s")
    assert lease(kubesim, "node01")["spec"]["renewTime"] == "2026-11-22T10:02:10.000000Z"
    assert ready(kubesim, "node01")["status"] == "True"


def test_a_deleted_lease_is_created_again_at_the_next_renewal(kubesim):
    kubesim.ok("advance 3s")
    old = lease(kubesim, "node01")
    assert kubesim.ok("delete lease node01 -n kube-node-lease") == \
        'lease.coordination.k8s.io "node01" deleted from kube-node-lease namespace\n'
    kubesim.ok("advance 6s")                  # 10:00:09
    assert kubesim("get lease node01 -n kube-node-lease").err == \
        'Error from server (NotFound): leases.coordination.k8s.io "node01" not found\n'
    kubesim.ok("advance 1s")                  # 10:00:10: the kubelet's next sync creates it
    new = lease(kubesim, "node01")
    assert new["metadata"]["creationTimestamp"] == "2026-11-22T10:00:10Z"
    assert new["spec"]["renewTime"] == "2026-11-22T10:00:10.000000Z"
    assert new["metadata"]["uid"] != old["metadata"]["uid"]


def test_a_user_edit_of_a_node_lease_is_kept_and_renewals_go_on(kubesim):
    kubesim.ok("advance 12s")
    kubesim.ok("annotate lease node01 -n kube-node-lease team=infra")
    kubesim.ok("advance 10s")
    got = lease(kubesim, "node01")
    assert (got["metadata"]["annotations"], got["spec"]["renewTime"]) == ({"team": "infra"},
                                                                          "2026-11-22T10:00:20.000000Z")


def test_an_applied_node_registers_with_a_lease_that_goes_with_it(kubesim):
    kubesim.ok("advance 7s")
    kubesim.ok("apply -f -", NODE03)
    node = json.loads(kubesim.ok("get node node03 -o json"))
    got = lease(kubesim, "node03")
    assert got["metadata"]["ownerReferences"][0]["uid"] == node["metadata"]["uid"]
    assert got["spec"]["renewTime"] == "2026-11-22T10:00:07.000000Z"
    kubesim.ok("delete node node03")
    assert "node03" not in kubesim.ok("get leases -A")


def test_a_state_from_before_node_leases_gets_them_on_its_next_command(kubesim):
    import sqlite3
    from pathlib import Path

    kubesim.ok("advance 5s")
    conn = sqlite3.connect(str(Path(kubesim.state_dir) / "kubesim.db"))
    with conn:
        conn.execute("DELETE FROM objects WHERE kind='Lease'")
        conn.execute("DELETE FROM meta WHERE key='kubelet.nodeLeases'")
    conn.close()
    assert "Lease:\n  HolderIdentity:  node02\n" in kubesim.ok("describe node node02")
    assert lease(kubesim, "node02")["spec"]["renewTime"] == "2026-11-22T10:00:05.000000Z"
