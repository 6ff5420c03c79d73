"""Cluster events: what changed in the cluster, in the terms the scheduling queue reasons in.

Upstream (v1.35):

* staging/src/k8s.io/kube-scheduler/framework/types.go: ``ActionType`` (one bit per kind of
  change; ``All`` and ``Update`` as unions, ``String``), ``EventResource`` (the API resources a
  plugin may register for, ``*`` for all), ``ClusterEvent`` with ``Label`` (resource then action,
  or a custom label), ``ClusterEventWithHint``, ``QueueingHintFn`` and ``QueueingHint``
  (``QueueSkip`` / ``Queue``);
* pkg/scheduler/framework/types.go: the internal ``AssignedPod`` / ``UnschedulablePod``
  resources, ``ClusterEventIsWildCard``, ``MatchClusterEvents`` (the registered event matches an
  incoming one when the resources match — ``Pod`` covers both pod resources — the action bits
  intersect and the incoming action is numerically no larger: a specific sub-update matches a
  registered ``Update``, the generic ``Update`` does not match a registered sub-update),
  ``MatchAnyClusterEvent`` and ``UnrollWildCardResource`` (what a plugin without
  EnqueueExtensions registers);
* pkg/scheduler/framework/events.go: the queue's own event labels (``ScheduleAttemptFailure``,
  ``BackoffComplete``, ``PopFromBackoffQ``, ``ForceActivate``, ``UnschedulableTimeout``), the
  pod events, and ``PodSchedulingPropertiesChange`` / ``NodeSchedulingPropertiesChange``, which
  turn an update into the specific events it amounts to.

Objects are kubesim's JSON-shaped dicts; Go's ``equality.Semantic.DeepEqual`` is
:func:`kubesim.api.equality.semantic_equal` (absent, null and empty are one thing) for structs
and lists of them, plain equality for label and annotation maps (a nil map equals an empty one,
but a key with an empty value is still a key), and a ResourceList is compared by quantity, as
the semantic comparison of ``resource.Quantity`` does.
Features as a v1.35 cluster has them: DynamicResourceAllocation (GA) adds the generated-claim
pod event; InPlacePodVerticalScaling (GA) makes the scale-down check read the resources the
kubelet reports; NodeDeclaredFeatures (alpha, off) adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from kubesim.api.equality import semantic_equal
from kubesim.api.quantity import parse_quantity
from kubesim.scheduler.framework.pod_resources import pod_requests_ints

# -- ActionType ---------------------------------------------------------------------------------
ADD = 1 << 0
DELETE = 1 << 1
UPDATE_NODE_ALLOCATABLE = 1 << 2
UPDATE_NODE_LABEL = 1 << 3
UPDATE_NODE_TAINT = 1 << 4
UPDATE_NODE_CONDITION = 1 << 5
UPDATE_NODE_ANNOTATION = 1 << 6
UPDATE_NODE_DECLARED_FEATURE = 1 << 7
UPDATE_POD_LABEL = 1 << 8
UPDATE_POD_SCALE_DOWN = 1 << 9
UPDATE_POD_TOLERATION = 1 << 10
UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 11
UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 12
ALL = (1 << 13) - 1
UPDATE = ALL & ~(ADD | DELETE)
NONE = 0

_ACTION_NAMES = {
    ADD: "Add", DELETE: "Delete",
    UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable", UPDATE_NODE_LABEL: "UpdateNodeLabel",
    UPDATE_NODE_TAINT: "UpdateNodeTaint", UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    UPDATE_POD_LABEL: "UpdatePodLabel", UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    UPDATE_POD_TOLERATION: "UpdatePodToleration",
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ALL: "All", UPDATE: "Update",
}


def action_type_string(a: int) -> str:
    """``ActionType.String``: the name of one action or of All/Update; "" for other unions."""
    return _ACTION_NAMES.get(a, "")


def action_type_names(a: int) -> list[str]:
    """The single actions of a union, by name (kubesim's rendering of a registration)."""
    if a in _ACTION_NAMES:
        return [_ACTION_NAMES[a]]
    names = [_ACTION_NAMES[bit] for bit in (ADD, DELETE) if a & bit]
    if a & UPDATE == UPDATE:
        return names + [_ACTION_NAMES[UPDATE]]
    return names + [_ACTION_NAMES[1 << i] for i in range(2, 13) if a & (1 << i)]


# -- EventResource ------------------------------------------------------------------------------
POD = "Pod"
NODE = "Node"
PERSISTENT_VOLUME = "PersistentVolume"
PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
CSI_NODE = "storage.k8s.io/CSINode"
CSI_DRIVER = "storage.k8s.io/CSIDriver"
VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
STORAGE_CLASS = "storage.k8s.io/StorageClass"
RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
DEVICE_CLASS = "resource.k8s.io/DeviceClass"
WORKLOAD = "scheduling.k8s.io/Workload"
WILDCARD = "*"
# Internal: incoming pod events only, never registered by plugins.
ASSIGNED_POD = "AssignedPod"
UNSCHEDULABLE_POD = "UnschedulablePod"

# The stored kind behind each resource kubesim serves (the informers eventhandlers.go starts).
KIND_OF_RESOURCE = {
    NODE: "Node", POD: "Pod", PERSISTENT_VOLUME: "PersistentVolume",
    PERSISTENT_VOLUME_CLAIM: "PersistentVolumeClaim", CSI_NODE: "CSINode",
    CSI_DRIVER: "CSIDriver", VOLUME_ATTACHMENT: "VolumeAttachment",
    CSI_STORAGE_CAPACITY: "CSIStorageCapacity", STORAGE_CLASS: "StorageClass",
    RESOURCE_CLAIM: "ResourceClaim", RESOURCE_SLICE: "ResourceSlice",
    DEVICE_CLASS: "DeviceClass", WORKLOAD: "Workload",
}
RESOURCE_OF_KIND = {v: k for k, v in KIND_OF_RESOURCE.items()}


class ClusterEvent(NamedTuple):
    resource: str
    action_type: int
    custom_label: str = ""

    def label(self) -> str:
        """``ClusterEvent.Label``: e.g. ``NodeUpdateNodeTaint``, ``AssignedPodDelete``."""
        return self.custom_label or f"{self.resource}{action_type_string(self.action_type)}"

    def labels(self) -> list[str]:
        """One label per single action of a registration (kubesim's rendering)."""
        if self.custom_label:
            return [self.custom_label]
        return [f"{self.resource}{n}" for n in action_type_names(self.action_type)]


# QueueingHint
QUEUE_SKIP = 0
QUEUE = 1
HINT_NAMES = {QUEUE_SKIP: "QueueSkip", QUEUE: "Queue"}

# fn(pod, old, new) -> QUEUE_SKIP | QUEUE; raising means Queue (as an error does upstream).
QueueingHintFn = Callable[[dict, object, object], int]


class ClusterEventWithHint(NamedTuple):
    event: ClusterEvent
    hint_fn: QueueingHintFn | None = None


# -- the queue's own events (framework/events.go) ----------------------------------------------
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"

EVENT_ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, ADD)
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(ASSIGNED_POD, UPDATE)
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, DELETE)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(UNSCHEDULABLE_POD, ADD)
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(UNSCHEDULABLE_POD, UPDATE)
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(UNSCHEDULABLE_POD, DELETE)
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ALL, UNSCHEDULABLE_TIMEOUT)
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, ALL, FORCE_ACTIVATE)
# kubesim's own: writes of watched kinds the scheduler cannot tell apart any more (a state
# whose last command stopped settling before a fixed point). Like the wildcard events above it
# moves every waiting pod.
EVENT_UNOBSERVED_CHANGES = ClusterEvent(WILDCARD, ALL, "kubesim:UnobservedChanges")


def cluster_event_is_wildcard(ce: ClusterEvent) -> bool:
    return ce.resource == WILDCARD and ce.action_type == ALL


def _match_event_resources(r: str, resource: str) -> bool:
    return r == WILDCARD or r == resource or (
        r == POD and (resource == ASSIGNED_POD or resource == UNSCHEDULABLE_POD))


def match_cluster_events(ce: ClusterEvent, incoming: ClusterEvent) -> bool:
    """``MatchClusterEvents``: does the registered ``ce`` cover the ``incoming`` event?"""
    if ce.resource == WILDCARD and ce.action_type == ALL:
        return True
    return (_match_event_resources(ce.resource, incoming.resource)
            and ce.action_type & incoming.action_type != 0
            and incoming.action_type <= ce.action_type)


def match_any_cluster_event(ce: ClusterEvent, incoming_events) -> bool:
    """``MatchAnyClusterEvent``: ``ce`` (incoming) matched by any of the registered events."""
    return any(match_cluster_events(e, ce) for e in incoming_events or ())


def unroll_wildcard_resource() -> list[ClusterEventWithHint]:
    """``UnrollWildCardResource`` (GenericWorkload off: no Workload)."""
    return [ClusterEventWithHint(ClusterEvent(r, ALL)) for r in (
        POD, NODE, PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, CSI_NODE, CSI_DRIVER,
        CSI_STORAGE_CAPACITY, STORAGE_CLASS, RESOURCE_CLAIM, DEVICE_CLASS)]


# -- what an update amounts to (framework/events.go) --------------------------------------------
def _md(obj: dict) -> dict:
    return obj.get("metadata") or {}


def _spec(obj: dict) -> dict:
    return obj.get("spec") or {}


def _status(obj: dict) -> dict:
    return obj.get("status") or {}


def is_label_changed(new_labels: dict | None, old_labels: dict | None) -> bool:
    # Semantic.DeepEqual of two maps: a nil map equals an empty one, keys must all match
    # (an empty value is still a key).
    return (new_labels or {}) != (old_labels or {})


def _pod_requests(pod: dict) -> dict[str, int]:
    # resource.PodRequests with UseStatusResources (InPlacePodVerticalScaling), read as
    # MilliValue: cpu in millicores, everything else in units (the comparison is the same).
    return pod_requests_ints(pod, use_status=True)


def extract_pod_scale_down(new: dict, old: dict) -> int:
    new_reqs = _pod_requests(new)
    for name, old_req in _pod_requests(old).items():
        new_req = new_reqs.get(name)
        if new_req is None or old_req > new_req:
            return UPDATE_POD_SCALE_DOWN
    return NONE


def extract_pod_labels_change(new: dict, old: dict) -> int:
    return UPDATE_POD_LABEL if is_label_changed(_md(new).get("labels"), _md(old).get("labels")) \
        else NONE


def extract_pod_toleration_change(new: dict, old: dict) -> int:
    # Tolerations can only be added, so a different count is a new toleration.
    if len(_spec(new).get("tolerations") or ()) != len(_spec(old).get("tolerations") or ()):
        return UPDATE_POD_TOLERATION
    return NONE


def extract_pod_scheduling_gate_eliminated_change(new: dict, old: dict) -> int:
    if not _spec(new).get("schedulingGates") and _spec(old).get("schedulingGates"):
        return UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return NONE


def extract_pod_generated_resource_claim_change(new: dict, old: dict) -> int:
    ns, os_ = _status(new), _status(old)
    if (ns.get("resourceClaimStatuses") or []) != (os_.get("resourceClaimStatuses") or []) or \
            not semantic_equal(ns.get("extendedResourceClaimStatus"),
                               os_.get("extendedResourceClaimStatus")):
        return UPDATE_POD_GENERATED_RESOURCE_CLAIM
    return NONE


_POD_CHANGE_EXTRACTORS = (extract_pod_labels_change, extract_pod_scale_down,
                          extract_pod_scheduling_gate_eliminated_change,
                          extract_pod_toleration_change,
                          extract_pod_generated_resource_claim_change)


def pod_scheduling_properties_change(new: dict, old: dict) -> list[ClusterEvent]:
    """``PodSchedulingPropertiesChange``: the specific pod events an update amounts to (on the
    AssignedPod or UnschedulablePod resource), else the generic Update."""
    r = ASSIGNED_POD if _spec(new).get("nodeName") else UNSCHEDULABLE_POD
    events = [ClusterEvent(r, a) for a in (fn(new, old) for fn in _POD_CHANGE_EXTRACTORS) if a]
    return events or [ClusterEvent(r, UPDATE)]


def _quantities(rl: dict | None) -> dict:
    return {k: parse_quantity(v) for k, v in (rl or {}).items()}


def extract_node_spec_unschedulable_change(new: dict, old: dict) -> int:
    n, o = bool(_spec(new).get("unschedulable")), bool(_spec(old).get("unschedulable"))
    return UPDATE_NODE_TAINT if n != o and not n else NONE


def extract_node_allocatable_change(new: dict, old: dict) -> int:
    a, b = _status(old).get("allocatable"), _status(new).get("allocatable")
    if a == b:
        return NONE
    return UPDATE_NODE_ALLOCATABLE if _quantities(a) != _quantities(b) else NONE


def extract_node_labels_change(new: dict, old: dict) -> int:
    return UPDATE_NODE_LABEL if is_label_changed(_md(new).get("labels"), _md(old).get("labels")) \
        else NONE


def extract_node_taints_change(new: dict, old: dict) -> int:
    return NONE if semantic_equal(_spec(new).get("taints"), _spec(old).get("taints")) \
        else UPDATE_NODE_TAINT


def extract_node_conditions_change(new: dict, old: dict) -> int:
    def strip(conds) -> dict:
        return {c.get("type"): c.get("status") for c in conds or ()}

    return NONE if strip(_status(old).get("conditions")) == strip(_status(new).get("conditions")) \
        else UPDATE_NODE_CONDITION


def extract_node_annotations_change(new: dict, old: dict) -> int:
    return NONE if (_md(old).get("annotations") or {}) == (_md(new).get("annotations") or {}) \
        else UPDATE_NODE_ANNOTATION


_NODE_CHANGE_EXTRACTORS = (extract_node_spec_unschedulable_change,
                           extract_node_allocatable_change, extract_node_labels_change,
                           extract_node_taints_change, extract_node_conditions_change,
                           extract_node_annotations_change)


def node_scheduling_properties_change(new: dict, old: dict) -> list[ClusterEvent]:
    """``NodeSchedulingPropertiesChange``: one Node event per kind of change (none when nothing
    the scheduler looks at changed)."""
    return [ClusterEvent(NODE, a) for a in (fn(new, old) for fn in _NODE_CHANGE_EXTRACTORS) if a]
