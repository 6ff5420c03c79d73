"""What the kubelets' pass over many nodes reads of each node's pods (kubelet/steps.py
``_read_piece``): the pods it syncs whole; the other pods of a node where a pod may be admitted
as admission reads them (``ADMITTED``); the pods of the other nodes it passes over only by
their resourceVersion (``_passed_over_unread``). Each case is checked against the rule it
stands for: every pod read whole, then ``_passed_over`` on each (what the pass did before)."""

from __future__ import annotations

import pytest

from kubesim.kubelet import pod_workers as L
from kubesim.kubelet import steps
from kubesim.store import Store

NOW = "2026-11-26T23:10:07Z"
T = 1000.0  # the pass's simulated time


def _pod(name: str, node: str, uid: str, mirror: str | None = None) -> dict:
    md = {"name": name, "namespace": "default", "uid": uid, "creationTimestamp": NOW,
          "managedFields": [{"manager": "m", "operation": "Update"}]}
    if mirror:
        md["annotations"] = {"kubernetes.io/config.mirror": mirror, "kubernetes.io/config.hash": mirror}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md,
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx",
                                                       "resources": {"requests": {"cpu": "10m"}}}],
                     "volumes": [{"name": "v", "emptyDir": {}}], "tolerations": [{"operator": "Exists"}]},
            "status": {"phase": "Running", "startTime": NOW, "podIP": "10.0.0.9",
                       "conditions": [{"type": "Ready", "status": "True"}]}}


# each node's pods: (name, the kubelet's memory of it: "synced" at its resourceVersion, "woken"
# (synced, a wake due now), "later" (synced, a wake to come), "old" (synced at an older
# version), "fresh" (no memory: a first sync), "c-less" (a memory without containers),
# "mirror" (a mirror pod synced at its version, kept under its static pod's key))
NODES = {
    "n-rest": [("a1", "synced"), ("a2", "later"), ("a3", "mirror")],
    "n-sync": [("b1", "synced"), ("b2", "woken"), ("b3", "old")],
    "n-first": [("c1", "synced"), ("c2", "fresh"), ("c3", "later")],
    "n-cless": [("d1", "c-less"), ("d2", "synced")],
}


def _state(tmp_path) -> None:
    store = Store(tmp_path).open()
    uid = 0
    for node, pods in NODES.items():
        memories = {}
        for name, how in pods:
            uid += 1
            pod = store.create(_pod(name, node, f"uid-{uid}", "h" + name if how == "mirror" else None), NOW)
            rv = pod["metadata"]["resourceVersion"]
            if how == "old":
                store.put(pod)  # (written again since the kubelet synced it)
            mem = {"c": {"c": {"st": "running", "n": 1}}, "rv": rv, "wake": None, "t": T - 10}
            if how == "woken":
                mem["wake"] = T - 1
            elif how == "later":
                mem["wake"] = T + 5
            elif how == "c-less":
                mem = {"volumes": "waiting"}
            if how != "fresh":
                memories[L.memory_key(pod)] = mem
        store.set_meta(steps.MEMORY_META.format(node=node), memories)
    store.commit()


def _rule(tmp_path) -> dict[str, tuple[set[str], set[str]]]:
    """node -> (the pods synced, the pods passed over), every pod read whole."""
    store = Store(tmp_path).open()
    out = {}
    for node in NODES:
        memories = store.meta(steps.MEMORY_META.format(node=node)) or {}
        pods = [store.get(*k) for k in store.pod_keys_on_node(node)]
        over = {p["metadata"]["name"] for p in pods if steps._passed_over(memories.get(L.memory_key(p)), p, T)}
        out[node] = ({p["metadata"]["name"] for p in pods} - over, over)
    store.rollback()
    return out


def _stripped(pod: dict, paths: tuple[str, ...]) -> dict:
    import copy

    pod = copy.deepcopy(pod)
    for path in paths:
        *parents, last = path.split(".")
        at = pod
        for p in parents:
            name, _, index = p.partition("[")
            at = at.get(name) or {}
            if index:  # (``containers[1]``: that item, if there is one)
                i = int(index.rstrip("]"))
                at = at[i] if isinstance(at, list) and i < len(at) else {}
        at.pop(last, None)
    return pod


@pytest.mark.parametrize("chunk", [1, 2, 500], ids=["a node to a piece", "two nodes to a piece", "one piece"])
def test_the_pass_reads_whole_what_it_syncs_and_passes_over_the_rest_as_the_rule_says(tmp_path, chunk):
    _state(tmp_path)
    rule = _rule(tmp_path)
    store = Store(tmp_path).open()
    whole = {k[2]: store.get(*k) for node in NODES for k in store.pod_keys_on_node(node)}
    store.rollback()
    store = Store(tmp_path).open()
    by_node = store.pod_keys_on_nodes(set(NODES))
    order = sorted(by_node)
    unread: dict[str, list] = {}
    for at in range(0, len(order), chunk):
        unread.update(steps._read_piece(store, by_node, order[at:at + chunk], T))
    for node in NODES:
        synced, over = rule[node]
        read = {p["metadata"]["name"]: p for p in by_node[node]}
        passed_unread = {u.key[2]: u for u in unread.get(node, ())}
        assert set(read) | set(passed_unread) == synced | over, node
        assert synced <= set(read), node  # what it syncs it reads
        for name in synced:  # ... whole, but for managedFields
            assert read[name] == _stripped(whole[name], steps.UNREAD), (node, name)
        # the others of a node where a pod may be a first sync: read as admission reads them
        first = any(not (m := (store.meta(steps.MEMORY_META.format(node=node)) or {}).get(
            L.memory_key(whole[n]))) or not m.get("c") for n in synced)
        for name in over:
            if first:
                assert read[name] == _stripped(whole[name], steps.ADMITTED), (node, name)
            else:
                assert name in passed_unread, (node, name)
                u = passed_unread[name]
                assert u.rv == whole[name]["metadata"]["resourceVersion"]
                assert u.mem is (store.meta(steps.MEMORY_META.format(node=node)) or {})[L.memory_key(whole[name])]
    store.rollback()
    # what each case stands for
    assert rule["n-rest"] == (set(), {"a1", "a2", "a3"})
    assert rule["n-sync"] == ({"b2", "b3"}, {"b1"})
    assert rule["n-first"] == ({"c2"}, {"c1", "c3"})
    assert rule["n-cless"] == ({"d1"}, {"d2"})


def test_a_pod_bound_by_this_command_makes_its_node_read_as_admission_reads_it(tmp_path):
    """A pod this transaction already read (the scheduler bound it) and the kubelet admits now:
    its node's other pods are read as admission reads them, the pod itself is this
    transaction's own object."""
    _state(tmp_path)
    store = Store(tmp_path).open()
    new = store.create(_pod("new", "n-rest", "uid-new"), NOW)
    by_node = store.pod_keys_on_nodes({"n-rest"})
    unread = steps._read_piece(store, by_node, ["n-rest"], T)
    assert unread == {}
    pods = {p["metadata"]["name"]: p for p in by_node["n-rest"]}
    assert pods["new"] is new
    assert set(pods) == {"a1", "a2", "a3", "new"}
    assert all("volumes" not in p["spec"] and "conditions" not in p["status"] for n, p in pods.items() if n != "new")
    store.rollback()


@pytest.mark.parametrize("memories, rvs, want", [
    ({"u1": {"rv": "5", "wake": None}}, {"k1": "5"}, {"k1"}),
    ({"u1": {"rv": "5", "wake": T + 1}}, {"k1": "5"}, {"k1"}),
    ({"u1": {"rv": "5", "wake": T}}, {"k1": "5"}, set()),  # its wake is due: synced
    ({"u1": {"rv": "4", "wake": None}}, {"k1": "5"}, set()),  # written since: synced
    ({"u1": {"volumes": "waiting"}}, {"k1": "5"}, set()),  # no version kept: synced
    ({}, {"k1": "5"}, set()),  # no memory: a first sync
    ({"u1": {"rv": "5", "wake": None}}, {"k1": None}, set()),  # gone
    ({"u1": {"rv": None, "wake": None}}, {"k1": "5"}, set()),  # a memory cleared for a resync
], ids=["synced at its version", "a wake to come", "a wake due", "written since", "waiting for volumes",
        "never synced", "gone", "cleared"])
def test_a_pod_is_passed_over_unread_when_a_memory_was_kept_at_its_version(memories, rvs, want):
    got = steps._passed_over_unread(memories, ["k1"], rvs, T)
    assert set(got) == want


def test_the_versions_a_pass_kept_answer_as_the_store_does_after_writes_and_deletes(tmp_path):
    """A later pass takes the resourceVersions of the pods an earlier pass read from what it
    kept (``_resource_versions``): a pod written, deleted or read whole since is the store's
    answer, as ``resource_versions`` gives it."""
    _state(tmp_path)
    store = Store(tmp_path).open()
    keys = sorted(k for node in NODES for k in store.pod_keys_on_node(node))
    read_rvs: dict = {}
    steps._remember_versions(read_rvs, keys, store.objects(keys, steps.ADMITTED, aligned=True))
    assert set(read_rvs) == set(keys)
    assert steps._resource_versions(store, keys, read_rvs) == store.resource_versions(keys)
    written, deleted = keys[0], keys[1]
    store.put(store.get(*written))
    store.delete(*deleted)
    store.get(*keys[2])  # (read whole: the cache answers)
    got = steps._resource_versions(store, keys, read_rvs)
    assert got == store.resource_versions(keys)
    assert got[written] != read_rvs[written] and got[deleted] is None
    store.rollback()


def test_a_second_pass_syncs_a_pod_written_after_the_first_read_it(tmp_path):
    """The first pass reads a node's pods as admission reads them (a pod there is a first
    sync); a pod written after that is synced by the next pass, the others passed over by
    the versions the first pass kept, as a pass without them would."""
    _state(tmp_path)
    store = Store(tmp_path).open()
    new = store.get("Pod", "default", "c2")  # (read whole: the fresh pod, as one bound now)
    read_rvs: dict = {}
    by_node = store.pod_keys_on_nodes({"n-first"})
    assert steps._read_piece(store, by_node, ["n-first"], T, read_rvs) == {}
    assert {k[2] for k in read_rvs} == {"c1", "c2", "c3"}
    memories = dict(store.meta(steps.MEMORY_META.format(node="n-first")))
    memories[L.memory_key(new)] = {"c": {"c": {"st": "running", "n": 1}}, "rv": new["metadata"]["resourceVersion"],
                                   "wake": None, "t": T}
    store.set_meta(steps.MEMORY_META.format(node="n-first"), memories)
    c1 = store.get("Pod", "default", "c1")
    store.put(c1)  # written since the kubelet synced it
    got = {}
    for kept in (read_rvs, None):
        by_node = store.pod_keys_on_nodes({"n-first"})
        unread = steps._read_piece(store, by_node, ["n-first"], T, kept)
        got[kept is None] = ({p["metadata"]["name"] for p in by_node["n-first"]},
                             {(u.key[2], u.rv) for u in unread.get("n-first", ())})
    assert got[False] == got[True]
    assert got[False][0] == {"c1"}
    assert {name for name, _ in got[False][1]} == {"c2", "c3"}
    store.rollback()
