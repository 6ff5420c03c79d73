"""Every default plugin's EventsToRegister, the profile's queueing hint map and the watched
resources, as a v1.35 scheduler builds them (queueing hints GA, InPlacePodVerticalScaling GA,
DynamicResourceAllocation GA, async preemption on).

The table is each plugin's ``EventsToRegister`` with ``enableSchedulingQueueHint`` true (upstream
plugins' source; noderesources/fit_test.go ``TestEventsToRegister`` is its only own table, whose
InPlacePodVerticalScaling-enabled case is the NodeResourcesFit row), then scheduler_test.go
``Test_buildQueueingHintMap`` (Node/Add brings Node/UpdateNodeTaint with the default hint; a
plugin without EnqueueExtensions is interested in everything) and ``TestUnionedGVKs`` (the
default profile with queueing hints, InPlacePodVerticalScaling and DynamicResourceAllocation)."""

import random

import pytest

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.interface import (
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    QueueSortPlugin,
)
from kubesim.scheduler.framework.runtime import Framework
from kubesim.scheduler.plugins.registry import REGISTRY
from kubesim.scheduler.scheduler import Scheduler, build_queueing_hint_map, unioned_gvks

HINT, NO_HINT = True, False

# plugin -> [(resource, action type, has a QueueingHintFn)], in registration order
UPSTREAM_EVENTS = {
    "SchedulingGates": [
        (ev.POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, HINT)],
    "NodeUnschedulable": [
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT, HINT),
        (ev.POD, ev.UPDATE_POD_TOLERATION, HINT)],
    "NodeName": [
        (ev.NODE, ev.ADD, NO_HINT)],
    "TaintToleration": [
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT, HINT),
        (ev.POD, ev.UPDATE_POD_TOLERATION, HINT)],
    "NodeAffinity": [
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL, HINT)],
    "NodePorts": [
        (ev.POD, ev.DELETE, HINT),
        (ev.NODE, ev.ADD, NO_HINT)],
    "NodeResourcesFit": [
        (ev.POD, ev.DELETE | ev.UPDATE_POD_SCALE_DOWN, HINT),
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_ALLOCATABLE, HINT)],
    "VolumeRestrictions": [
        (ev.POD, ev.DELETE, HINT),
        (ev.NODE, ev.ADD, NO_HINT),
        (ev.PERSISTENT_VOLUME_CLAIM, ev.ADD, HINT)],
    "NodeVolumeLimits": [
        (ev.CSI_NODE, ev.ADD, NO_HINT),
        (ev.CSI_NODE, ev.UPDATE, HINT),
        (ev.POD, ev.DELETE, HINT),
        (ev.PERSISTENT_VOLUME_CLAIM, ev.ADD, HINT),
        (ev.VOLUME_ATTACHMENT, ev.DELETE, HINT)],
    "VolumeBinding": [
        (ev.STORAGE_CLASS, ev.ADD | ev.UPDATE, HINT),
        (ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE, HINT),
        (ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE, NO_HINT),
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL, NO_HINT),
        (ev.CSI_NODE, ev.ADD | ev.UPDATE, HINT),
        (ev.CSI_DRIVER, ev.UPDATE, HINT),
        (ev.CSI_STORAGE_CAPACITY, ev.ADD | ev.UPDATE, HINT)],
    "VolumeZone": [
        (ev.STORAGE_CLASS, ev.ADD, HINT),
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL, NO_HINT),
        (ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE, HINT),
        (ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE, HINT)],
    "PodTopologySpread": [
        (ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.UPDATE_POD_TOLERATION | ev.DELETE, HINT),
        (ev.NODE, ev.ADD | ev.DELETE | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT, HINT)],
    "InterPodAffinity": [
        (ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE, HINT),
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL, HINT)],
    "DynamicResources": [
        (ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_ALLOCATABLE, NO_HINT),
        (ev.RESOURCE_CLAIM, ev.ADD | ev.UPDATE, HINT),
        (ev.POD, ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM, HINT),
        (ev.DEVICE_CLASS, ev.ADD | ev.UPDATE, NO_HINT),
        (ev.RESOURCE_SLICE, ev.ADD | ev.UPDATE, NO_HINT)],
    "DefaultPreemption": [
        (ev.POD, ev.DELETE, HINT)],
}

# Plugins with no PreEnqueue/PreFilter/Filter/Reserve/Permit point: no EnqueueExtensions count.
NOT_ENQUEUE_EXTENSIONS = ("PrioritySort", "NodeResourcesBalancedAllocation", "ImageLocality",
                          "DefaultBinder")


def _default_framework():
    return next(iter(Scheduler(None, random.Random(0)).profiles.values()))


@pytest.mark.parametrize("plugin", sorted(UPSTREAM_EVENTS))
def test_events_to_register(plugin):
    got = [(e.event.resource, e.event.action_type, e.hint_fn is not None)
           for e in REGISTRY[plugin]().events_to_register()]
    assert got == UPSTREAM_EVENTS[plugin]


def test_the_default_profile_registers_exactly_these_plugins():
    fwk = _default_framework()
    assert {name for name, _ in fwk.enqueue_extensions} == set(UPSTREAM_EVENTS)
    assert not set(NOT_ENQUEUE_EXTENSIONS) & {name for name, _ in fwk.enqueue_extensions}


class FilterWithoutEnqueueExtensions(FilterPlugin):
    name = "filterWithoutEnqueueExtensions"

    def filter(self, state, pod, node):
        return None


class FakeNode(FilterPlugin, EnqueueExtensions):
    name = "fakeNode"

    def filter(self, state, pod, node):
        return None

    def events_to_register(self):
        return [ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD), lambda p, o, n: 0)]


class FakePod(FilterPlugin, EnqueueExtensions):
    name = "fakePod"

    def filter(self, state, pod, node):
        return None

    def events_to_register(self):
        return [ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.ADD), lambda p, o, n: 0)]


class EmptyEvents(FilterPlugin, EnqueueExtensions):
    name = "emptyEventPlugin"

    def filter(self, state, pod, node):
        return None

    def events_to_register(self):
        return []


class Sort(QueueSortPlugin):
    name = "Sort"

    def less(self, a, b):
        return False


class Binder(BindPlugin):
    name = "Binder"

    def bind(self, state, pod, node_name):
        return None


def _hint_map(*plugins):
    registry = {p.name: p for p in plugins + (Sort, Binder)}
    profile = {"schedulerName": "test", "plugins": {"multiPoint": {"enabled": [
        {"name": p.name} for p in plugins + (Sort, Binder)]}}}
    fwk = Framework(profile, registry)
    exts = sorted(fwk.enqueue_extensions, key=lambda e: e[0])
    return {e: [(plugin, fn) for plugin, fn in fns]
            for e, fns in build_queueing_hint_map(exts)}


@pytest.mark.parametrize("plugins, want", [
    pytest.param((FilterWithoutEnqueueExtensions,),
                 {ev.ClusterEvent(r, ev.ALL): [("filterWithoutEnqueueExtensions", None)]
                  for r in (ev.POD, ev.NODE, ev.PERSISTENT_VOLUME, ev.PERSISTENT_VOLUME_CLAIM,
                            ev.CSI_NODE, ev.CSI_DRIVER, ev.CSI_STORAGE_CAPACITY,
                            ev.STORAGE_CLASS, ev.RESOURCE_CLAIM, ev.DEVICE_CLASS)},
                 id="filter without EnqueueExtensions plugin"),
    pytest.param((FakeNode, FakePod),
                 {ev.ClusterEvent(ev.POD, ev.ADD): [("fakePod", "hint")],
                  ev.ClusterEvent(ev.NODE, ev.ADD): [("fakeNode", "hint")],
                  ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT): [("fakeNode", None)]},
                 id="node and pod plugin"),
    pytest.param((EmptyEvents,), {}, id="register plugin with empty event"),
    pytest.param((EmptyEvents, FakeNode),
                 {ev.ClusterEvent(ev.NODE, ev.ADD): [("fakeNode", "hint")],
                  ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT): [("fakeNode", None)]},
                 id="register plugins including emptyEventPlugin"),
])
def test_build_queueing_hint_map(plugins, want):
    got = _hint_map(*plugins)
    assert {e: [(p, "hint" if fn is not None else None) for p, fn in fns]
            for e, fns in got.items()} == want


def test_unioned_gvks_of_the_default_profile():
    s = Scheduler(None, random.Random(0))
    assert unioned_gvks(s.queueing_hint_map) == s.gvk_map == {
        ev.POD: (ev.ADD | ev.UPDATE_POD_LABEL | ev.UPDATE_POD_SCALE_DOWN
                 | ev.UPDATE_POD_TOLERATION | ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
                 | ev.UPDATE_POD_GENERATED_RESOURCE_CLAIM | ev.DELETE),
        ev.NODE: (ev.ADD | ev.UPDATE_NODE_ALLOCATABLE | ev.UPDATE_NODE_LABEL
                  | ev.UPDATE_NODE_TAINT | ev.DELETE),
        ev.CSI_NODE: ev.ALL - ev.DELETE,
        ev.CSI_DRIVER: ev.UPDATE,
        ev.CSI_STORAGE_CAPACITY: ev.ALL - ev.DELETE,
        ev.PERSISTENT_VOLUME: ev.ALL - ev.DELETE,
        ev.PERSISTENT_VOLUME_CLAIM: ev.ALL - ev.DELETE,
        ev.STORAGE_CLASS: ev.ALL - ev.DELETE,
        ev.VOLUME_ATTACHMENT: ev.DELETE,
        ev.DEVICE_CLASS: ev.ALL - ev.DELETE,
        ev.RESOURCE_CLAIM: ev.ALL - ev.DELETE,
        ev.RESOURCE_SLICE: ev.ALL - ev.DELETE,
    }


def test_node_add_without_taint_update_gets_the_default_hint_in_the_default_profile():
    # NodeName, NodePorts, NodeResourcesFit, VolumeRestrictions, VolumeBinding, VolumeZone,
    # InterPodAffinity, NodeAffinity and DynamicResources register Node/Add but not
    # UpdateNodeTaint: a taint change moves pods they rejected (kubernetes#109437).
    s = Scheduler(None, random.Random(0))
    hint_map = dict(s.queueing_hint_map["default-scheduler"])
    taint = hint_map[ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT)]
    assert [p for p, fn in taint] == [
        "NodeName", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
        "VolumeBinding", "VolumeZone", "InterPodAffinity", "DynamicResources"]
    assert all(fn is None for _, fn in taint)
