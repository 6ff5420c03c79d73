"""Cluster events: matching, labels, and what a node or pod update amounts to (after upstream
pkg/scheduler/framework/types_test.go ``TestCloudEvent_Match`` and framework/events_test.go
``TestNodeSchedulingPropertiesChange``, ``TestNodeAllocatableChange``, ``TestNodeLabelsChange``,
``TestNodeTaintsChange``, ``TestNodeConditionsChange`` and ``Test_podSchedulingPropertiesChange``)."""

import pytest

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.events import ClusterEvent
from kubesim.testing.wrappers import make_node, make_pod


@pytest.mark.parametrize("registered, incoming, want", [
    pytest.param(ClusterEvent(ev.WILDCARD, ev.ALL), ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL),
                 True, id="wildcard event matches with all kinds of coming events"),
    pytest.param(ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT),
                 ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL), True,
                 id="resource Pod matching coming events carrying the same actionType"),
    pytest.param(ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT),
                 ClusterEvent(ev.UNSCHEDULABLE_POD, ev.UPDATE_NODE_LABEL), True,
                 id="resource Pod matching coming events carrying unschedulablePod"),
    pytest.param(ClusterEvent(ev.WILDCARD, ev.UPDATE_NODE_LABEL),
                 ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL), True,
                 id="resource * matching coming events carrying the same actionType"),
    pytest.param(ClusterEvent(ev.WILDCARD, ev.UPDATE_NODE_LABEL),
                 ClusterEvent(ev.POD, ev.UPDATE_NODE_ALLOCATABLE), False,
                 id="resource * matching coming events carrying a different actionType"),
    pytest.param(ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL),
                 ClusterEvent(ev.WILDCARD, ev.UPDATE_NODE_LABEL), False,
                 id="event matching coming events carrying * resources"),
    pytest.param(ClusterEvent(ev.WILDCARD, ev.UPDATE_NODE_LABEL), ClusterEvent(ev.POD, ev.UPDATE),
                 False, id="resource * matching coming events carrying a too broad actionType"),
    pytest.param(ClusterEvent(ev.WILDCARD, ev.UPDATE), ClusterEvent(ev.POD, ev.UPDATE_NODE_LABEL),
                 True, id="resource * matching coming events carrying a more specific actionType"),
    # kubesim: the pod resources the informer delivers
    pytest.param(ClusterEvent(ev.POD, ev.DELETE), ev.EVENT_ASSIGNED_POD_DELETE, True,
                 id="Pod/Delete matches AssignedPodDelete"),
    pytest.param(ClusterEvent(ev.POD, ev.UPDATE_POD_SCALE_DOWN), ev.EVENT_ASSIGNED_POD_UPDATE,
                 False, id="a generic pod update does not match a registered sub-update"),
    pytest.param(ClusterEvent(ev.NODE, ev.ADD), ClusterEvent(ev.POD, ev.ADD), False,
                 id="resources differ"),
])
def test_match_cluster_events(registered, incoming, want):
    assert ev.match_cluster_events(registered, incoming) is want


@pytest.mark.parametrize("event, label", [
    (ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT), "NodeUpdateNodeTaint"),
    (ev.EVENT_ASSIGNED_POD_DELETE, "AssignedPodDelete"),
    (ev.EVENT_UNSCHEDULED_POD_ADD, "UnschedulablePodAdd"),
    (ev.EVENT_UNSCHEDULABLE_TIMEOUT, "UnschedulableTimeout"),
    (ClusterEvent(ev.STORAGE_CLASS, ev.ADD), "storage.k8s.io/StorageClassAdd"),
    (ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT), "Node"),  # ActionType.String: ""
])
def test_labels_are_upstreams(event, label):
    assert event.label() == label


def _alloc(foo):
    return make_node().capacity({"cpu": "1000m", "memory": "100m", "example.com/foo": foo}).obj()


@pytest.mark.parametrize("new, old, want", [
    pytest.param(make_node().unschedulable(False).obj(), make_node().unschedulable(False).obj(),
                 [], id="no specific changed applied"),
    pytest.param(make_node().unschedulable(False).obj(), make_node().unschedulable(True).obj(),
                 [ev.UPDATE_NODE_TAINT], id="only node spec unavailable changed"),
    pytest.param(make_node().unschedulable(True).obj(), make_node().unschedulable(False).obj(),
                 [], id="a node becoming unschedulable is no event (kubesim)"),
    pytest.param(_alloc("1"), _alloc("2"), [ev.UPDATE_NODE_ALLOCATABLE],
                 id="only node allocatable changed"),
    pytest.param(make_node().capacity(cpu="1").obj(), make_node().capacity(cpu="1000m").obj(), [],
                 id="the same allocatable written differently (kubesim)"),
    pytest.param(make_node().label("foo", "bar").obj(), make_node().label("foo", "fuz").obj(),
                 [ev.UPDATE_NODE_LABEL], id="only node label changed"),
    pytest.param(make_node().label("foo", "").obj(), make_node().obj(), [ev.UPDATE_NODE_LABEL],
                 id="a label with an empty value added (kubesim)"),
    pytest.param(make_node().taint("node.kubernetes.io/unschedulable").obj(),
                 make_node().taint("node.kubernetes.io/unschedulable", "foo").obj(),
                 [ev.UPDATE_NODE_TAINT], id="only node taint changed"),
    pytest.param(make_node().annotation("foo", "bar").obj(),
                 make_node().annotation("foo", "fuz").obj(),
                 [ev.UPDATE_NODE_ANNOTATION], id="only node annotation changed"),
    pytest.param(make_node().obj(), make_node().condition("Ready", "True").obj(),
                 [ev.UPDATE_NODE_CONDITION], id="only node condition changed"),
    pytest.param(make_node().label("foo", "bar").taint("node.kubernetes.io/unschedulable").obj(),
                 make_node().taint("node.kubernetes.io/unschedulable", "foo").obj(),
                 [ev.UPDATE_NODE_LABEL, ev.UPDATE_NODE_TAINT],
                 id="both node label and node taint changed"),
])
def test_node_scheduling_properties_change(new, old, want):
    assert ev.node_scheduling_properties_change(new, old) == [
        ClusterEvent(ev.NODE, a) for a in want]


def _request_pod(cpu, label=False):
    w = make_pod("p").uid("same").container(requests={"cpu": cpu}, name="app")
    if label:
        w.label("foo", "bar")
    p = w.obj()
    p["status"]["containerStatuses"] = [{"name": "app", "allocatedResources": {"cpu": cpu}}]
    return p


_CLAIM_A = {"name": "my-claim", "resourceClaimName": "claim"}
_CLAIM_B = {"name": "my-claim-2", "resourceClaimName": "claim-2"}


def _claims(*statuses):
    p = make_pod("p").uid("same").obj()
    p["status"]["resourceClaimStatuses"] = list(statuses)
    return p


def _extended(claim):
    p = make_pod("p").uid("same").obj()
    p["status"]["extendedResourceClaimStatus"] = {
        "requestMappings": [{"requestName": "request", "containerName": "c",
                             "resourceName": "example.com/gpu"}],
        "resourceClaimName": claim}
    return p


@pytest.mark.parametrize("new, old, want", [
    pytest.param(make_pod("p").uid("same").label("foo", "bar").node("node").obj(),
                 make_pod("p").uid("same").label("foo", "bar2").node("node").obj(),
                 [(ev.ASSIGNED_POD, ev.UPDATE_POD_LABEL)], id="assigned pod is updated"),
    pytest.param(make_pod("p").uid("same").label("foo", "bar").obj(),
                 make_pod("p").uid("same").label("foo", "bar2").obj(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_LABEL)], id="only label is updated"),
    pytest.param(_request_pod("100m"), _request_pod("101m"),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_SCALE_DOWN)],
                 id="pod's resource request is scaled down"),
    pytest.param(_request_pod("101m"), _request_pod("100m"),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE)], id="pod's resource request is scaled up"),
    pytest.param(_request_pod("100m", label=True), _request_pod("101m"),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_LABEL),
                  (ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_SCALE_DOWN)],
                 id="both pod's resource request and label are updated"),
    pytest.param(make_pod("p").uid("same").annotation("foo", "bar").obj(),
                 make_pod("p").uid("same").annotation("foo", "bar2").obj(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE)],
                 id="untracked properties of pod is updated"),
    pytest.param(make_pod("p").uid("same").gates().obj(),
                 make_pod("p").uid("same").gates("foo").obj(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)],
                 id="scheduling gate is eliminated"),
    pytest.param(make_pod("p").uid("same").gates("foo").obj(),
                 make_pod("p").uid("same").gates("foo", "bar").obj(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE)],
                 id="scheduling gate is removed, but not completely eliminated"),
    pytest.param(make_pod("p").uid("same").toleration("key").toleration("key2").obj(),
                 make_pod("p").uid("same").toleration("key").obj(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_TOLERATION)],
                 id="pod's tolerations are updated"),
    pytest.param(_claims(_CLAIM_A), _claims(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                 id="pod claim statuses change, feature enabled"),
    pytest.param(_claims(_CLAIM_A, _CLAIM_B), _claims(_CLAIM_B, _CLAIM_A),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                 id="pod claim statuses swapped"),
    pytest.param(_extended("claim"), make_pod("p").uid("same").obj(),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                 id="pod extended resource claim status change, feature enabled"),
    pytest.param(_extended("claim-2"), _extended("claim"),
                 [(ev.UNSCHEDULABLE_POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                 id="pod extended resource claim status swapped"),
])
def test_pod_scheduling_properties_change(new, old, want):
    assert ev.pod_scheduling_properties_change(new, old) == [ClusterEvent(r, a) for r, a in want]


def test_unroll_wildcard_resource_registers_every_resource_but_workload():
    got = [e.event for e in ev.unroll_wildcard_resource()]
    assert all(e.action_type == ev.ALL for e in got)
    assert [e.resource for e in got] == [
        ev.POD, ev.NODE, ev.PERSISTENT_VOLUME, ev.PERSISTENT_VOLUME_CLAIM, ev.CSI_NODE,
        ev.CSI_DRIVER, ev.CSI_STORAGE_CAPACITY, ev.STORAGE_CLASS, ev.RESOURCE_CLAIM,
        ev.DEVICE_CLASS]
