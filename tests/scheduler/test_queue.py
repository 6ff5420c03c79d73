"""The scheduling queue with queueing hints and SchedulerPopFromBackoffQ (after upstream
backend/queue/scheduling_queue_test.go: TestPriorityQueue_Add, TestPriorityQueue_Pop (PopFromBackoffQ
enabled), TestPop, TestPriorityQueue_AddUnschedulableIfNotPresent,
TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint, Test_isPodWorthRequeuing,
Test_InFlightPods, TestPriorityQueue_Update, TestBackOffFlow,
TestPriorityQueue_initPodMaxInUnschedulablePodsDuration, TestPodTimestamp,
TestPriorityQueue_Delete; backoff_queue_test.go's backoff times)."""

import json
import random

import pytest

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.events import ClusterEvent
from kubesim.scheduler.queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    QUEUE_AFTER_BACKOFF,
    QUEUE_IMMEDIATELY,
    QUEUE_SKIP,
    UNSCHEDULABLE_Q,
    PriorityQueue,
    backoff_duration,
)
from kubesim.scheduler.scheduler import Scheduler
from kubesim.testing.wrappers import make_node, make_pod

NODE_ADD = ClusterEvent(ev.NODE, ev.ADD)
PV_ADD = ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD)
PROFILE = "default-scheduler"


def queue_hint_return_queue(pod, old, new):
    return ev.QUEUE


def queue_hint_return_skip(pod, old, new):
    return ev.QUEUE_SKIP


def queue(hints=None, **kw):
    """A queue whose one profile registers ``hints``: {event: [(plugin, fn)]}."""
    return PriorityQueue(queueing_hint_map={PROFILE: list((hints or {}).items())}, **kw)


def names(pods):
    return [p.pod["metadata"]["name"] for p in pods]


def pop_all(q):
    out = []
    while (p := q.pop()) is not None:
        out.append(p)
    return out


def fail(q, p, now, *plugins, pending=()):
    """A failed attempt of the popped ``p``, rejected by ``plugins``."""
    p.unschedulable_plugins = set(plugins)
    p.pending_plugins = set(pending)
    return q.add_unschedulable_if_not_present(p, now)


def test_add_pops_by_priority_then_arrival():
    # TestPriorityQueue_Add
    q = queue()
    q.add(make_pod("med").priority(100).obj(), 0.0)
    q.add(make_pod("unsched").priority(0).obj(), 0.0)
    q.add(make_pod("high").priority(1000).obj(), 0.0)
    q.add(make_pod("med2").priority(100).obj(), 0.0)
    assert names(pop_all(q)) == ["high", "med", "med2", "unsched"]


def test_pop_takes_the_backoff_queue_head_when_the_active_queue_is_empty():
    # TestPriorityQueue_Pop, "Pop pods from both activeQ and backoffQ when PopFromBackoffQ is
    # enabled": the error backoff queue and the unschedulable pool are not popped.
    q = queue()
    q.add(make_pod("med").priority(100).obj(), 0.0)
    backing_off = q._new_queued_pod_info(make_pod("hpp").priority(1000).obj(), 0.0)
    backing_off.unschedulable_plugins = {"plugin"}
    backing_off.unschedulable_count = 1
    q.move_to_backoff_q(backing_off, ev.EVENT_UNSCHEDULED_POD_ADD.label())
    erred = q._new_queued_pod_info(make_pod("hpp2").priority(1000).obj(), 0.0)
    erred.consecutive_errors_count = 1
    q.move_to_backoff_q(erred, ev.EVENT_UNSCHEDULED_POD_ADD.label())
    unsched = q._new_queued_pod_info(make_pod("unsched").obj(), 0.0)
    unsched.unschedulable_plugins = {"plugin"}
    q._add_unschedulable(unsched)
    got = pop_all(q)
    assert names(got) == ["med", "hpp"]
    assert [p.popped_from for p in got] == [ACTIVE_Q, BACKOFF_Q]


def test_pop_clears_the_rejecting_plugins_and_a_pending_plugin_skips_the_backoff():
    # TestPop
    q = queue({PV_ADD: [("fooPlugin1", queue_hint_return_queue)]})
    pod = make_pod("targetpod").uid("pod1").obj()
    q.add(pod, 0.0)
    p = q.pop()
    assert fail(q, p, 0.0, pending=("fooPlugin1",)) == UNSCHEDULABLE_Q
    q.move_all_to_active_or_backoff_queue(PV_ADD, None, None, 0.0)
    assert p.queue == ACTIVE_Q  # queueImmediately, although it is backing off
    p = q.pop()
    assert not p.pending_plugins and not p.unschedulable_plugins


def test_add_unschedulable_if_not_present_without_events_waits_in_the_pool():
    # TestPriorityQueue_AddUnschedulableIfNotPresent
    q = queue()
    q.add(make_pod("up").obj(), 0.0)
    p = q.pop()
    q.add(make_pod("hpp").priority(1000).obj(), 0.0)
    assert fail(q, p, 0.0, "plugin") == UNSCHEDULABLE_Q
    assert names([q.pop()]) == ["hpp"]
    assert q.pop() is None
    assert p.unschedulable_count == 1 and p.last_move == {
        "event": "ScheduleAttemptFailure", "queue": UNSCHEDULABLE_Q}


def _gated_by(plugin):
    """A PreEnqueue that gates every pod without the label foo (upstream's preEnqueuePlugin
    with an allow-list), reporting ``plugin``."""
    def pre_enqueue(pod):
        labels = (pod.get("metadata") or {}).get("labels") or {}
        return None if "foo" in labels else (plugin, "not allowed")
    return pre_enqueue


@pytest.mark.parametrize("pending, hint, waited, want", [
    pytest.param(("foo",), queue_hint_return_queue, 0.0, ACTIVE_Q,
                 id="Queue queues pod to activeQ"),
    pytest.param((), queue_hint_return_queue, 0.0, BACKOFF_Q,
                 id="Queue queues pod to backoffQ if Pod is backing off"),
    pytest.param((), queue_hint_return_queue, 2.0, ACTIVE_Q,
                 id="Queue queues pod to activeQ if Pod is not backing off"),
    pytest.param((), queue_hint_return_skip, 0.0, UNSCHEDULABLE_Q,
                 id="Skip queues pod to unschedulablePods"),
])
def test_move_all_with_queueing_hint(pending, hint, waited, want):
    # TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint (the clock at a whole
    # second: backing off while the aligned expiry is not before the current window)
    q = queue({NODE_ADD: [("foo", hint)]})
    q.add(make_pod("pod1", "ns1").uid("1").label("foo", "bar").obj(), 100.0)
    p = q.pop()
    fail(q, p, 100.0, *(() if pending else ("foo",)), pending=pending)
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node().obj(), 100.0 + waited)
    assert p.queue == want


def test_a_gated_pod_is_moved_only_by_events_its_gating_plugin_registered():
    # TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint, the two gated cases
    called = []

    def never(pod, old, new):
        called.append(pod)
        return ev.QUEUE

    q = queue({NODE_ADD: [("foo", queue_hint_return_queue)],
               ClusterEvent(ev.POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED): [
                   ("SchedulingGates", never)]},
              pre_enqueue=_gated_by("SchedulingGates"))
    q.add(make_pod("gated").obj(), 0.0)
    p = q.get(next(iter(q.unschedulable_pods)))
    assert p.gated() and p.gating_plugin == "SchedulingGates"
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node().obj(), 0.0)
    assert p.queue == UNSCHEDULABLE_Q and not called

    q = queue({NODE_ADD: [("foo", queue_hint_return_queue)]}, pre_enqueue=_gated_by("foo"))
    q.add(make_pod("gated").obj(), 0.0)
    p = q.get(next(iter(q.unschedulable_pods)))
    p.update(make_pod("gated").uid(p.key).label("foo", "bar").obj())
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node().obj(), 0.0)
    assert p.queue == ACTIVE_Q and not p.gated()


def _info(q, unschedulable=(), pending=()):
    p = q._new_queued_pod_info(make_pod("pod1", "ns1").uid("1").obj(), 0.0)
    p.unschedulable_plugins = set(unschedulable)
    p.pending_plugins = set(pending)
    return p


def _counting(hint):
    calls = []

    def fn(pod, old, new):
        calls.append(1)
        if hint == "error":
            raise RuntimeError("unexpected error")
        return hint
    return fn, calls


@pytest.mark.parametrize("case", [
    "no hint for the event", "error means Queue", "wildcard", "wildcard for this pod",
    "wildcard for another pod", "pending plugin", "unschedulable plugin",
    "other plugins' hints ignored", "specific node update", "wildcard resource registered",
    "wildcard registered",
])
def test_is_pod_worth_requeuing(case):
    # Test_isPodWorthRequeuing: the strategy and how many hint functions ran
    q_, s_, e_ = _counting(ev.QUEUE), _counting(ev.QUEUE_SKIP), _counting("error")
    new_node = make_node().obj()
    label = ClusterEvent(ev.NODE, ev.UPDATE_NODE_LABEL)
    this_pod = make_pod("pod1", "ns1").uid("1").obj()
    other_pod = make_pod("pod-different", "ns2").uid("2").obj()
    table = {
        "no hint for the event": ({ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", q_[0])]},
                                  ["fooPlugin1"], [], NODE_ADD, new_node, QUEUE_SKIP, 0),
        "error means Queue": ({NODE_ADD: [("fooPlugin1", e_[0])]}, ["fooPlugin1"], [], NODE_ADD,
                              new_node, QUEUE_AFTER_BACKOFF, 1),
        "wildcard": ({}, ["fooPlugin1"], [], ev.EVENT_UNSCHEDULABLE_TIMEOUT, None,
                     QUEUE_AFTER_BACKOFF, 0),
        "wildcard for this pod": ({}, ["fooPlugin1"], [], ev.EVENT_FORCE_ACTIVATE, this_pod,
                                  QUEUE_AFTER_BACKOFF, 0),
        "wildcard for another pod": ({}, ["fooPlugin1"], [], ev.EVENT_FORCE_ACTIVATE, other_pod,
                                     QUEUE_SKIP, 0),
        "pending plugin": ({NODE_ADD: [("fooPlugin1", q_[0]), ("fooPlugin2", q_[0]),
                                       ("fooPlugin3", q_[0]), ("fooPlugin4", e_[0])]},
                           ["fooPlugin1", "fooPlugin3"], ["fooPlugin2"], NODE_ADD, new_node,
                           QUEUE_IMMEDIATELY, 2),
        "unschedulable plugin": ({NODE_ADD: [("fooPlugin1", s_[0]), ("fooPlugin2", q_[0])]},
                                 ["fooPlugin1", "fooPlugin2"], [], NODE_ADD, new_node,
                                 QUEUE_AFTER_BACKOFF, 2),
        "other plugins' hints ignored": ({NODE_ADD: [("fooPlugin1", s_[0]), ("fooPlugin2", s_[0]),
                                                     ("fooPlugin3", q_[0])]},
                                         ["fooPlugin1", "fooPlugin2"], [], NODE_ADD, new_node,
                                         QUEUE_SKIP, 2),
        "specific node update": ({label: [("fooPlugin1", q_[0]), ("fooPlugin2", q_[0])],
                                  ClusterEvent(ev.NODE, ev.UPDATE): [("fooPlugin1", q_[0])],
                                  NODE_ADD: [("fooPlugin1", q_[0])]},
                                 ["fooPlugin1", "fooPlugin2"], [], label, new_node,
                                 QUEUE_AFTER_BACKOFF, 1),
        "wildcard resource registered": ({ClusterEvent(ev.WILDCARD, ev.ADD): [
            ("fooPlugin1", q_[0])]}, ["fooPlugin1"], [], NODE_ADD, new_node,
            QUEUE_AFTER_BACKOFF, 1),
        "wildcard registered": ({ClusterEvent(ev.WILDCARD, ev.ALL): [("fooPlugin1", q_[0])]},
                                ["fooPlugin1"], [],
                                ClusterEvent(ev.NODE, ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT),
                                new_node, QUEUE_AFTER_BACKOFF, 1),
    }
    hints, unsched, pending, event, new, want, runs = table[case]
    q = queue(hints)
    strategy, _ = q.is_pod_worth_requeuing(_info(q, unsched, pending), event, None, new)
    assert strategy == want
    assert len(q_[1]) + len(s_[1]) + len(e_[1]) == runs


def test_events_received_while_a_pod_is_in_flight_decide_where_it_goes_back():
    # Test_InFlightPods: an event of interest to the rejecting plugin that arrives during the
    # cycle sends the pod to backoffQ at once; an unrelated one leaves it in the pool; the
    # events are dropped when no pod is in flight any more.
    q = queue({NODE_ADD: [("fooPlugin1", queue_hint_return_queue)],
               PV_ADD: [("fooPlugin1", queue_hint_return_skip)]})
    q.add(make_pod("targetpod").obj(), 0.0)
    q.add(make_pod("other").obj(), 0.0)
    target = q.pop()
    other = q.pop()
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node().obj(), 0.0)
    assert len(q.in_flight_events) == 1
    assert fail(q, target, 0.0, "fooPlugin1") == BACKOFF_Q
    assert target.last_move == {"event": "ScheduleAttemptFailure", "queue": BACKOFF_Q,
                                "plugin": "fooPlugin1"}
    q.move_all_to_active_or_backoff_queue(PV_ADD, None, {}, 0.0)
    assert fail(q, other, 0.0, "fooPlugin1") == BACKOFF_Q  # the NodeAdd arrived after its pop
    assert not q.in_flight_pods and not q.in_flight_events

    q.add(make_pod("third").obj(), 0.0)
    third = q.pop()
    q.move_all_to_active_or_backoff_queue(PV_ADD, None, {}, 0.0)
    assert fail(q, third, 0.0, "fooPlugin1") == UNSCHEDULABLE_Q


def test_an_update_of_a_pod_in_flight_is_kept_for_its_return():
    # TestPriorityQueue_UpdateWhenInflight
    gates = ClusterEvent(ev.POD, ev.UPDATE_POD_TOLERATION)
    q = queue({gates: [("fooPlugin1", queue_hint_return_queue)]})
    pod = make_pod("p").uid("p").obj()
    q.add(pod, 0.0)
    p = q.pop()
    updated = make_pod("p").uid("p").toleration("key").obj()
    q.update(pod, updated, 0.0)
    assert fail(q, p, 0.0, "fooPlugin1") == BACKOFF_Q


def _tolerating_hint(pod, old, new):
    return ev.QUEUE if (new.get("spec") or {}).get("tolerations") else ev.QUEUE_SKIP


@pytest.mark.parametrize("update, want", [
    pytest.param(lambda p: make_pod("p").uid("p").label("tier", "web").obj(), UNSCHEDULABLE_Q,
                 id="an update no plugin registered leaves it in the pool"),
    pytest.param(lambda p: make_pod("p").uid("p").toleration("key").obj(), BACKOFF_Q,
                 id="an update whose hint answers Queue moves it (backoffQ while backing off)"),
])
def test_update_of_an_unschedulable_pod(update, want):
    # TestPriorityQueue_Update, with the queueing hint for the pod's own update
    q = queue({ClusterEvent(ev.POD, ev.UPDATE_POD_TOLERATION): [("TaintToleration",
                                                                 _tolerating_hint)]})
    pod = make_pod("p").uid("p").obj()
    q.add(pod, 0.0)
    p = q.pop()
    fail(q, p, 0.0, "TaintToleration")
    q.update(pod, update(pod), 0.5)
    assert p.queue == want


def test_update_of_a_pod_the_queue_does_not_hold_adds_it():
    q = queue()
    pod = make_pod("p").uid("p").obj()
    q.update(pod, pod, 0.0)
    assert q.get("p").queue == ACTIVE_Q and q.get("p").last_move["event"] == "UnschedulablePodUpdate"


def test_removing_the_last_scheduling_gate_activates_the_pod():
    # Test_queuedPodInfo_gatedSetUponCreationAndUnsetUponUpdate with the real plugin's hint
    sched = Scheduler(None, random.Random(0))
    q = sched.new_queue()
    gated = make_pod("g").gates("example.com/wait").uid("u1").obj()
    q.add(gated, 5.0)
    p = q.get("u1")
    assert p.queue == UNSCHEDULABLE_Q and p.gating_plugin == "SchedulingGates"
    still = make_pod("g").gates("example.com/other").uid("u1").obj()
    q.update(gated, still, 6.0)
    assert p.queue == UNSCHEDULABLE_Q and p.gated()
    ungated = make_pod("g").uid("u1").obj()
    q.update(still, ungated, 7.0)
    assert p.queue == ACTIVE_Q and not p.gated()
    assert p.timestamp == 5.0  # TestPodTimestamp: the queue time is the first add
    assert p.last_move["event"] == "UnschedulablePodUpdatePodSchedulingGatesEliminated"


@pytest.mark.parametrize("count, want", [
    (0, 0.0), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (30, 10.0),
])
def test_backoff_doubles_up_to_the_maximum(count, want):
    assert backoff_duration(1, 10, count) == want


def test_backoff_flow():
    # TestBackOffFlow with PopFromBackoffQ: the expiry is aligned down to the 1 s window and a
    # pod backs off while that expiry is not before the current window.
    q = queue()
    pod = make_pod("test-pod", "test-ns").uid("test-uid").obj()
    q.add(pod, 0.0)
    now = 1000.3
    for i, want in enumerate([1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]):
        p = q.pop()
        assert p.attempts == i + 1
        fail(q, p, now, "unsched-plugin")
        q.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULABLE_TIMEOUT, None, None, now)
        assert p.queue == BACKOFF_Q
        expiry = p.backoff_expiration
        assert expiry == int(now + want)
        assert int(expiry - now) + 1 == want  # upstream's reading of the aligned backoff
        q.flush_backoff_q_completed(now + 1.0)
        assert p.queue == BACKOFF_Q  # still backing off after an early flush
        assert q.next_event_time() == expiry + 1.0
        q.flush_backoff_q_completed(expiry + 1.0)
        assert p.queue == ACTIVE_Q
        now = expiry + 1.0 + 0.3


def test_error_backoff_is_not_popped_early():
    q = queue()
    q.add(make_pod("p").uid("p").obj(), 0.0)
    p = q.pop()
    assert fail(q, p, 0.0) == BACKOFF_Q and p.consecutive_errors_count == 1
    assert q.pop() is None and q.next_event_time() == 2.0
    q.flush(2.0)
    assert q.pop() is p


def test_unschedulable_pods_are_flushed_after_five_minutes():
    # TestPriorityQueue_initPodMaxInUnschedulablePodsDuration (default 5 minutes); gated pods
    # stay (the UnschedulableTimeout wildcard is no event their gating plugin registered)
    q = queue(pre_enqueue=lambda pod: ("SchedulingGates", "gated")
              if (pod.get("spec") or {}).get("schedulingGates") else None)
    q.add(make_pod("p").uid("p").obj(), 0.0)
    q.add(make_pod("g").uid("g").gates("x").obj(), 0.0)
    p = q.pop()
    fail(q, p, 10.0, "plugin")
    q.flush(309.0)
    assert p.queue == UNSCHEDULABLE_Q and q.next_event_time() == 310.0
    q.flush(310.0)
    assert p.queue == ACTIVE_Q and p.last_move["event"] == "UnschedulableTimeout"
    assert q.get("g").queue == UNSCHEDULABLE_Q


def test_delete_removes_the_pod_from_any_queue():
    # TestPriorityQueue_Delete
    q = queue()
    a, b = make_pod("a").uid("a").obj(), make_pod("b").uid("b").obj()
    q.add(a, 0.0)
    q.add(b, 0.0)
    p = q.pop()
    fail(q, p, 0.0, "plugin")
    q.delete(a)
    q.delete(b)
    assert len(q) == 0


def test_round_trips_through_json():
    q = queue(pod_initial_backoff_seconds=2, pod_max_backoff_seconds=20)
    a, b, c = (make_pod(n).uid("u" + n).obj() for n in "abc")
    q.add(a, 0.0)
    q.add(b, 0.0)
    q.add(c, 0.0)
    pa = q.pop()
    pb = q.pop()
    fail(q, pa, 5.0, "TaintToleration")
    fail(q, pb, 5.0)
    d = json.loads(json.dumps(q.to_dict()))
    restored = PriorityQueue.from_dict(d, queueing_hint_map=q.queueing_hint_map)
    assert restored.to_dict() == q.to_dict()
    assert restored.get("ua").unschedulable_plugins == {"TaintToleration"}
    assert "ub" in restored.pod_error_backoff_q and restored.get("uc").queue == ACTIVE_Q
    fresh = make_pod("b").uid("ub").label("new", "yes").obj()
    restored = PriorityQueue.from_dict(d, pods={"ub": fresh})
    assert restored.keys() == ["ub"] and restored.get("ub").pod is fresh


def test_states_written_before_queueing_hints_load():
    old = {"entries": [{"pod": {"metadata": {"uid": "u1"}}, "queue": "gated",
                        "gatingPlugin": "SchedulingGates"},
                       {"pod": {"metadata": {"uid": "u2"}}, "queue": "inFlight"}]}
    q = PriorityQueue.from_dict(old)
    assert q.get("u1").queue == UNSCHEDULABLE_Q and q.get("u1").gated()
    assert q.get("u2").queue == ACTIVE_Q


def test_custom_less_from_the_framework():
    sched = Scheduler(None, random.Random(0))
    q = sched.new_queue()
    q.add(make_pod("a").priority(1).obj(), 5.0)
    q.add(make_pod("b").priority(2).obj(), 6.0)
    assert names(pop_all(q)) == ["b", "a"]


def test_moves_are_logged_as_upstream_logs_them():
    lines = []
    q = queue({NODE_ADD: [("foo", queue_hint_return_queue)]},
              log=lambda level, site, msg, kv: lines.append((level, site, msg, kv)))
    q.add(make_pod("p", "ns").uid("p").obj(), 0.0)
    p = q.pop()
    fail(q, p, 0.0, "foo", "bar")
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node().obj(), 0.5)
    moved = [(lv, site, kv) for lv, site, msg, kv in lines
             if msg == "Pod moved to an internal scheduling queue"]
    assert moved[0] == (5, "active_queue.go:110",
                        {"pod": "ns/p", "event": "UnschedulablePodAdd", "queue": "Active"})
    assert moved[1][:2] == (3, "scheduling_queue.go:915")
    kv = moved[1][2]
    assert (kv["event"], kv["queue"], kv["schedulingCycle"], kv["hint"]) == (
        "ScheduleAttemptFailure", "Unschedulable", 1, 0)
    assert str(kv["unschedulable plugins"]) == "map[bar:{} foo:{}]"
    assert moved[2] == (5, "backoff_queue.go:321",
                        {"pod": "ns/p", "event": "NodeAdd", "queue": "Backoff"})


def test_the_heap_s_inlined_priority_sort_orders_as_the_plugin_s_less():
    # the default scheduler's activeQ compares by PrioritySort's Less inlined (_PriorityItem):
    # pops come in the order the plugin's Less (then the sequence number) gives, ties included
    from kubesim.scheduler import queue as queue_mod

    s = Scheduler(None, random.Random(1))
    q = s.new_queue()
    assert q.active_q._item is queue_mod._PriorityItem
    assert queue_mod._Heap(queue_mod._default_less)._item is queue_mod._PriorityItem
    rng = random.Random(7)
    entries = []
    for i in range(300):
        e = queue_mod.QueuedPodInfo(make_pod(f"p{i}").priority(rng.choice([0, 5, 10])).obj(),
                                    rng.choice([1.0, 2.0, 2.5]), seq=rng.randrange(10_000))
        entries.append(e)
    less = q.less

    def generic(a, b) -> bool:
        return less(a, b) or (not less(b, a) and a.seq < b.seq)

    inlined, plain = queue_mod._Heap(less), queue_mod._Heap(lambda a, b: less(a, b))
    assert plain._item is queue_mod._Item
    for e in entries:
        inlined.add_or_update(e)
        plain.add_or_update(e)
    got = [inlined.pop() for _ in entries]
    assert got == [plain.pop() for _ in entries]
    assert all(not generic(b, a) for a, b in zip(got, got[1:]))
