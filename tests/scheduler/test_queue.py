"""The scheduling queue: QueueSort order, gating, backoff, unschedulable pool, persistence
(after upstream backend/queue/scheduling_queue_test.go and backoff_queue_test.go)."""

import json
import random

import pytest

from kubesim.scheduler.queue import (ACTIVE, BACKOFF, GATED, UNSCHEDULABLE, SchedulingQueue,
                                     backoff_duration)
from kubesim.scheduler.scheduler import Scheduler

from kubesim.testing.wrappers import make_pod


def names(pods):
    return [p["metadata"]["name"] for p in pods]


def test_pop_orders_by_priority_then_queue_time():
    q = SchedulingQueue()
    q.add(make_pod("low").priority(0).obj(), 1.0)
    q.add(make_pod("high").priority(100).obj(), 2.0)
    q.add(make_pod("low-early").priority(0).obj(), 0.5)
    q.add(make_pod("tie").priority(0).obj(), 0.5)
    assert names(q.pop_all_ready(3.0)) == ["high", "low-early", "tie", "low"]
    assert q.pop_all_ready(3.0) == []


@pytest.mark.parametrize("count, expected", [
    (0, 0.0), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (30, 10.0),
])
def test_backoff_doubles_up_to_the_maximum(count, expected):
    assert backoff_duration(1, 10, count) == expected


def test_unschedulable_pods_wait_for_an_event_then_back_off():
    q = SchedulingQueue()
    pod = make_pod("p").obj()
    q.add(pod, 0.0)
    assert names(q.pop_all_ready(0.0)) == ["p"]
    q.add_unschedulable(pod, 10.0, ["NodeResourcesFit"])
    e = q.get(q.keys()[0])
    assert e.queue == UNSCHEDULABLE and e.backoff_expiry == 11.0
    assert q.pop_all_ready(20.0) == []  # no event yet
    q.move_all_to_active_or_backoff(10.5)
    assert e.queue == BACKOFF and q.pop_all_ready(10.9) == []
    assert names(q.pop_all_ready(11.0)) == ["p"]
    # second failure: 2s backoff
    q.add_unschedulable(pod, 20.0)
    q.move_all_to_active_or_backoff(30.0)
    assert e.queue == ACTIVE and e.backoff_expiry == 22.0


def test_unschedulable_pods_are_flushed_after_five_minutes():
    q = SchedulingQueue()
    pod = make_pod("p").obj()
    q.add_unschedulable(pod, 0.0)
    assert q.pop_all_ready(299.0) == []
    assert q.next_event_time() == 300.0
    assert names(q.pop_all_ready(300.0)) == ["p"]


def test_errors_back_off_without_waiting_for_events():
    q = SchedulingQueue(pod_initial_backoff_seconds=2, pod_max_backoff_seconds=5)
    pod = make_pod("p").obj()
    q.add_error(pod, 0.0)
    q.add_error(pod, 0.0)
    assert q.get(q.keys()[0]).backoff_expiry == 4.0
    assert q.pop_all_ready(3.9) == [] and names(q.pop_all_ready(4.0)) == ["p"]


def test_gated_pods_wait_until_their_gates_are_removed():
    sched = Scheduler(None, random.Random(0))
    q = SchedulingQueue(pre_enqueue=sched.pre_enqueue)
    gated = make_pod("g").gates("example.com/wait").uid("u1").obj()
    q.add(gated, 0.0)
    e = q.get("u1")
    assert e.queue == GATED and e.gating_plugin == "SchedulingGates"
    assert q.pop_all_ready(1.0) == []
    ungated = make_pod("g").uid("u1").obj()
    q.add(ungated, 2.0)
    assert names(q.pop_all_ready(2.0)) == ["g"]


def test_done_forgets_the_pod():
    q = SchedulingQueue()
    q.add(make_pod("p").uid("u").obj(), 0.0)
    q.pop_all_ready(0.0)
    q.done("u")
    assert len(q) == 0


def test_round_trips_through_json():
    q = SchedulingQueue(pod_initial_backoff_seconds=2, pod_max_backoff_seconds=20)
    a, b = make_pod("a").uid("ua").obj(), make_pod("b").uid("ub").obj()
    q.add(a, 0.0)
    q.add_unschedulable(b, 5.0, ["TaintToleration"])
    restored = SchedulingQueue.from_dict(json.loads(json.dumps(q.to_dict())))
    assert restored.to_dict() == q.to_dict()
    assert restored.get("ub").unschedulable_plugins == ["TaintToleration"]
    # with the current pods: a deleted pod disappears, the rest get fresh objects
    fresh = make_pod("b").uid("ub").label("new", "yes").obj()
    restored = SchedulingQueue.from_dict(q.to_dict(), pods={"ub": fresh})
    assert restored.keys() == ["ub"] and restored.get("ub").pod is fresh


def test_in_flight_pods_become_active_again_when_reloaded():
    q = SchedulingQueue()
    q.add(make_pod("a").uid("ua").obj(), 0.0)
    q.pop_all_ready(0.0)
    restored = SchedulingQueue.from_dict(q.to_dict())
    assert restored.get("ua").queue == ACTIVE


def test_custom_less_from_the_framework():
    sched = Scheduler(None, random.Random(0))
    q = SchedulingQueue(less=sched.queue_sort_less())
    q.add(make_pod("a").priority(1).obj(), 5.0)
    q.add(make_pod("b").priority(2).obj(), 6.0)
    assert names(q.pop_all_ready(7.0)) == ["b", "a"]


def _status_written(pod):
    p = json.loads(json.dumps(pod))
    p["metadata"]["resourceVersion"] = "99"
    p.setdefault("status", {})["conditions"] = [{"type": "PodScheduled", "status": "False"}]
    p["status"]["nominatedNodeName"] = "node02"
    return p


def _labelled(pod):
    p = json.loads(json.dumps(pod))
    p["metadata"].setdefault("labels", {})["tier"] = "web"
    return p


def _tolerating(pod):
    p = json.loads(json.dumps(pod))
    p["spec"]["tolerations"] = [{"operator": "Exists"}]
    return p


@pytest.mark.parametrize("update, requeued", [
    pytest.param(lambda p: p, False, id="the same pod seen again stays in the unschedulable pool"),
    pytest.param(_status_written, False,
                 id="a status-only write (the scheduler's own condition) does not requeue it"),
    pytest.param(_labelled, True, id="a label change requeues it"),
    pytest.param(_tolerating, True, id="a spec change requeues it"),
])
def test_an_unschedulable_pod_is_requeued_only_when_it_changed(update, requeued):
    # upstream isPodUpdated: the pod minus resourceVersion, generation, managedFields,
    # finalizers and status
    q = SchedulingQueue()
    pod = make_pod("p").uid("up").obj()
    q.add(pod, 0.0)
    q.pop_all_ready(0.0)
    q.add_unschedulable(pod, 0.0, ["NodeResourcesFit"])
    # through a save and reload, as between two commands
    q = SchedulingQueue.from_dict(json.loads(json.dumps(q.to_dict())), pods={"up": pod})
    q.add(update(pod), 5.0)
    assert (q.get("up").queue != UNSCHEDULABLE) is requeued
