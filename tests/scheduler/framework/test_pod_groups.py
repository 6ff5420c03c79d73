"""Pods counted by group between cycles (kubesim/scheduler/framework/pod_groups.py).

Two checks on random clusters and random histories (pods assumed, removed, copies of nodes
changed as preemption does, nodes relabelled), after each step:

* the kept ``PodGroups`` equals one counted from scratch (per node, in total, and per
  topology domain, the domains in node order) — with NodeInfo's change journal, and with the
  journal cleared between refreshes (the generation scan);
* what the plugins compute from the groups equals upstream's per-pod computation (with node
  inclusion policies, node selectors, tolerations and taints in play):
  InterPodAffinity's ``getIncomingAffinityAntiAffinityCounts`` (the per-node function kept in
  the plugin) and PreScore's score map (``processExistingPod`` of scoring.go, written out below
  pod by pod), PodTopologySpread's ``calPreFilterState`` and PreScore counts without groups.
"""

from __future__ import annotations

import random

import pytest

from kubesim.scheduler.framework import types as fwtypes
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import Handle
from kubesim.scheduler.framework.pod_groups import PodGroups, match_group
from kubesim.scheduler.framework.snapshot import Snapshot
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins import interpodaffinity as ipa
from kubesim.scheduler.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
)
from kubesim.scheduler.plugins.podtopologyspread.filtering import cal_pre_filter_state
from kubesim.scheduler.plugins.podtopologyspread.plugin import PodTopologySpread
from kubesim.scheduler.plugins.podtopologyspread.scoring import (
    count_existing_pods,
    init_pre_score_state,
    node_score,
    node_scores,
)

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
NAMESPACES = ["a", "b"]
LABELS = [{}, {"color": "blue"}, {"color": "red"}, {"color": "blue", "tier": "web"}]


def _node(name: str, rng: random.Random) -> dict:
    labels = {HOST: name}
    if rng.random() < 0.8:
        labels[ZONE] = rng.choice(["z1", "z2", "z3"])
    spec = {"taints": [{"key": "foo", "effect": "NoSchedule"}]} if rng.random() < 0.3 else {}
    return {"metadata": {"name": name, "labels": labels}, "spec": spec,
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _term(rng: random.Random) -> dict:
    term = {"labelSelector": {"matchLabels": {"color": rng.choice(["blue", "red"])}},
            "topologyKey": rng.choice([ZONE, HOST])}
    if rng.random() < 0.5:
        term["namespaces"] = rng.sample(NAMESPACES, rng.randint(1, 2))
    return term


def _pod(i: int, rng: random.Random, node: str = "") -> dict:
    spec: dict = {"containers": [{"name": "c"}]}
    if node:
        spec["nodeName"] = node
    r = rng.random()
    if r < 0.5:
        kind = rng.choice(["podAffinity", "podAntiAffinity"])
        if rng.random() < 0.5:
            spec["affinity"] = {kind: {"requiredDuringSchedulingIgnoredDuringExecution":
                                       [_term(rng)]}}
        else:
            spec["affinity"] = {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 5), "podAffinityTerm": _term(rng)}]}}
    if rng.random() < 0.5:
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": rng.choice([ZONE, HOST]),
            "whenUnsatisfiable": rng.choice([DO_NOT_SCHEDULE, SCHEDULE_ANYWAY]),
            "labelSelector": {"matchLabels": {"color": "blue"}},
            "nodeAffinityPolicy": rng.choice(["Honor", "Ignore"]),
            "nodeTaintsPolicy": rng.choice(["Honor", "Ignore"])}]
    if rng.random() < 0.3:
        spec["nodeSelector"] = {ZONE: rng.choice(["z1", "z2"])}
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": "foo", "operator": "Exists"}]
    meta = {"name": f"p{i}", "namespace": rng.choice(NAMESPACES), "uid": f"u{i}",
            "labels": dict(rng.choice(LABELS))}
    if rng.random() < 0.1:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta, "spec": spec, "status": {"phase": "Running"}}


def _cluster(seed: int) -> tuple[random.Random, Snapshot]:
    rng = random.Random(seed)
    nodes = [_node(f"n{i}", rng) for i in range(rng.randint(1, 12))]
    pods = [_pod(i, rng, rng.choice(nodes)["metadata"]["name"]) for i in range(rng.randint(0, 40))]
    return rng, Snapshot.build(nodes, pods)


def _step(rng: random.Random, snap: Snapshot, i: int) -> None:
    """One random change: a pod assumed or removed, a copy of a node changed (preemption's
    dry run: must not count), or a node relabelled."""
    nodes = snap.list()
    ni = rng.choice(nodes)
    r = rng.random()
    if r < 0.45:
        ni.add_pod(PodInfo(_pod(1000 + i, rng, ni.name)))
    elif r < 0.75 and ni.pods:
        ni.remove_pod(rng.choice(ni.pods).key)
    elif r < 0.9:
        c = ni.clone()
        c.add_pod(PodInfo(_pod(2000 + i, rng, ni.name)))
        if c.pods:
            c.remove_pod(c.pods[0].key)
    else:
        node = {**ni.node, "metadata": {**ni.node["metadata"],
                                        "labels": {**ni.labels, ZONE: rng.choice(["z1", "z4"])}},
                "spec": rng.choice([{}, {"taints": [{"key": "foo", "effect": "NoSchedule"}]}])}
        ni.set_node(node)


def _state(pg: PodGroups, asks) -> tuple:
    return ([dict(pg.node_groups(i)) for i in range(len(pg._nis))], dict(pg.totals()),
            [(list(d.nodes.items()), {g: dict(v) for g, v in d.counts.items()})
             for d in (pg.domains(r, k) for r, k in asks)])


ASKS = [((ZONE,), ZONE), ((HOST,), HOST), ((), ZONE), ((ZONE, HOST), HOST)]


@pytest.mark.parametrize("clear_journal", [False, True],
                         ids=["recounts the nodes the journal names",
                              "rescans generations when the journal was cleared"])
@pytest.mark.parametrize("seed", range(25))
def test_kept_groups_equal_groups_counted_from_scratch(seed, clear_journal):
    rng, snap = _cluster(seed)
    for key_fn, affinity_only in ((match_group, False), (ipa.affinity_terms_group, True)):
        snap.pod_groups(key_fn, affinity_only)
        _state(snap.pod_groups(key_fn, affinity_only), ASKS)  # materialize the domains
    for i in range(30):
        _step(rng, snap, i)
        if clear_journal:
            fwtypes._CHANGED.clear()
            fwtypes._CHANGED_EPOCH[0] += 1
        for key_fn, affinity_only in ((match_group, False), (ipa.affinity_terms_group, True)):
            kept = snap.pod_groups(key_fn, affinity_only)
            fresh = PodGroups(key_fn, affinity_only).refresh(list(snap.list()))
            assert _state(kept, ASKS) == _state(fresh, ASKS), f"step {i}"


# -- the plugins: groups give upstream's per-pod results -----------------------------------------
def _reference_score_map(pl: ipa.InterPodAffinity, pod: PodInfo, snap: Snapshot) -> dict:
    """scoring.go PreScore's topology score, pod by pod (``processExistingPod``)."""
    info = ipa.pod_affinity_info(pod)
    all_ns = pl.namespace_labels()
    pref = ipa._merged_weighted(info.preferred_affinity, all_ns)
    pref_anti = ipa._merged_weighted(info.preferred_anti_affinity, all_ns)
    ns_labels = all_ns.get(pod.namespace)
    score: dict = {}
    has_constraints = bool(pref or pref_anti)
    for ni in snap.list():
        if not ni.labels:
            continue
        for ep in (ni.pods if has_constraints else ni.pods_with_affinity):
            ep_info = ipa.pod_affinity_info(ep)
            for w in pref:
                ipa._process_term(score, w.term, w.weight, ep.namespace, ep.labels, None,
                                  ni.labels)
            for w in pref_anti:
                ipa._process_term(score, w.term, -w.weight, ep.namespace, ep.labels, None,
                                  ni.labels)
            for t in ep_info.required_affinity:
                ipa._process_term(score, t, pl.hard_pod_affinity_weight, pod.namespace,
                                  pod.labels, ns_labels, ni.labels)
            for w in ep_info.preferred_affinity:
                ipa._process_term(score, w.term, w.weight, pod.namespace, pod.labels, ns_labels,
                                  ni.labels)
            for w in ep_info.preferred_anti_affinity:
                ipa._process_term(score, w.term, -w.weight, pod.namespace, pod.labels,
                                  ns_labels, ni.labels)
    return score


@pytest.mark.parametrize("seed", range(25))
def test_plugins_count_by_group_as_upstream_counts_pod_by_pod(seed):
    rng, snap = _cluster(seed)
    handle = Handle(snap)
    handle.namespace_labels = {ns: {"kubernetes.io/metadata.name": ns} for ns in NAMESPACES}
    affinity = ipa.InterPodAffinity({}, handle)
    spread = PodTopologySpread({"defaultingType": "List"}, handle)
    for i in range(20):
        pod = PodInfo(_pod(5000 + i, rng))
        nodes = snap.list()
        # InterPodAffinity PreFilter: the incoming pod's counts.
        info = ipa.pod_affinity_info(pod)
        req = ipa._merged(info.required_affinity, affinity.namespace_labels())
        req_anti = ipa._merged(info.required_anti_affinity, affinity.namespace_labels())
        assert ipa.incoming_affinity_anti_affinity_counts_by_group(
            req, req_anti, snap.pod_groups(match_group)) == \
            ipa.incoming_affinity_anti_affinity_counts(req, req_anti, nodes)
        # InterPodAffinity PreFilter: the existing pods' anti-affinity counts.
        ns_labels = affinity.namespace_labels().get(pod.namespace)
        assert ipa.existing_anti_affinity_counts_by_group(
            pod.namespace, pod.labels, ns_labels,
            snap.pod_groups(ipa.anti_affinity_terms_group, affinity_only=True)) == \
            ipa.existing_anti_affinity_counts(pod.namespace, pod.labels, ns_labels, nodes)
        # InterPodAffinity PreScore: the topology score map.
        state = CycleState()
        s = affinity.pre_score(state, pod, nodes)
        want = _reference_score_map(affinity, pod, snap)
        got = {} if s is not None else state.read(ipa.PRE_SCORE_STATE_KEY).topology_score
        assert got == want
        # PodTopologySpread PreFilter: counts per constraint, in the same domain order.
        hard = spread.constraints(None, pod, DO_NOT_SCHEDULE)
        a = cal_pre_filter_state(hard, pod, nodes, snap.pod_groups(match_group))
        b = cal_pre_filter_state(hard, pod, nodes)
        assert [list(m.items()) for m in a.tp_value_to_match_num] == \
            [list(m.items()) for m in b.tp_value_to_match_num]
        assert [p.paths for p in a.critical_paths] == [p.paths for p in b.critical_paths]
        # PodTopologySpread PreScore: counts over every node, for the filtered nodes' domains.
        soft = spread.constraints(None, pod, SCHEDULE_ANYWAY)
        filtered = [ni for ni in nodes if rng.random() < 0.7]
        for require_all in (True, False):
            x = init_pre_score_state(soft, filtered, require_all)
            y = init_pre_score_state(soft, filtered, require_all)
            if x.constraints:
                count_existing_pods(x, pod, nodes, require_all, snap.pod_groups(match_group))
                count_existing_pods(y, pod, nodes, require_all)
            assert x.topology_value_to_pod_counts == y.topology_value_to_pod_counts
            if x.constraints:  # Score once per tuple of topology values = node by node
                assert node_scores(x, nodes, pod.namespace) == \
                    [node_score(x, ni, pod.namespace) for ni in nodes]
        _step(rng, snap, i)
