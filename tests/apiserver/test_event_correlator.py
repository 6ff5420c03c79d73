"""core/v1's EventCorrelator as ``events.record`` applies it: aggregation of similar events, then
counting of identical ones. Table-driven after client-go's tools/record/events_cache_test.go
(TestEventAggregatorByReasonFunc, TestEventAggregatorByReasonMessageFunc, TestEventCorrelator);
its spam-filter row ("the-same-event-is-spam-if-happens-too-frequently") and TestEventSpamFilter
are left out: kubesim does not model EventSourceObjectSpamFilter."""

from __future__ import annotations

import pytest

from kubesim.apiserver import events
from kubesim.apiserver.context import Cluster
from kubesim.apiserver.events import (
    AGGREGATE_INTERVAL,
    AGGREGATE_MAX_EVENTS,
    AGGREGATED_MESSAGE_PREFIX,
    aggregate_key,
    record,
)
from kubesim.clock import format_time, parse_time
from kubesim.store import Store

T0 = parse_time("2026-11-22T10:00:00Z")
HOST = "kublet.node1"


@pytest.fixture
def cluster(tmp_path):
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
    yield c
    store.rollback()


def obj(kind="Pod", name="my-pod", namespace="my-ns"):
    """makeObjectReference's object (the field path is the event's)."""
    return {"apiVersion": "version", "kind": kind, "metadata": {"name": name, "namespace": namespace,
                                                               "uid": "C934D34AFB20242"}}


def event(reason, message, involved=None, field_path="spec.containers{mycontainer}"):
    """makeEvent: a Normal event from the kubelet on kublet.node1."""
    return {"reason": reason, "message": message, "obj": involved or obj(), "field_path": field_path}


def events_like(n, template):
    return [dict(template) for _ in range(n)]


def unique_events(n):
    return [event(f"reason-{i}", f"message-{i}", obj("Pod", f"pod-{i}", f"ns-{i}")) for i in range(n)]


def similar_events(n, template, prefix):
    return [dict(template, message=f"{prefix}-{i}-{template['message']}") for i in range(n)]


def correlate(cluster, e, at):
    return record(cluster, e["obj"], "Normal", e["reason"], e["message"], "kubelet", HOST, e["field_path"], at=at)


FIRST = event("first", "i am first")
DUPLICATE = event("duplicate", "me again")
UNIQUE = event("unique", "snowflake")
SIMILAR = event("similar", "similar message", field_path="spec.containers{container1}")
AGGREGATE = dict(SIMILAR, message=AGGREGATED_MESSAGE_PREFIX + SIMILAR["message"])
SIMILAR_OTHER_CONTAINER = dict(SIMILAR, field_path="spec.containers{container2}")

SCENARIOS = {
    "create-a-single-event": ([], FIRST, FIRST, 1, 5),
    "the-same-event-should-just-count": (events_like(1, DUPLICATE), DUPLICATE, DUPLICATE, 2, 5),
    "the-same-event-should-just-count-even-if-more-than-aggregate":
        (events_like(AGGREGATE_MAX_EVENTS, DUPLICATE), DUPLICATE, DUPLICATE, AGGREGATE_MAX_EVENTS + 1, 30),
    "create-many-unique-events": (unique_events(30), UNIQUE, UNIQUE, 1, 5),
    "similar-events-should-aggregate-event":
        (similar_events(AGGREGATE_MAX_EVENTS - 1, SIMILAR, SIMILAR["message"]), SIMILAR, AGGREGATE, 1, 5),
    "similar-events-many-times-should-count-the-aggregate":
        (similar_events(AGGREGATE_MAX_EVENTS, SIMILAR, SIMILAR["message"]), SIMILAR, AGGREGATE, 2, 5),
    "events-from-different-containers-do-not-aggregate":
        (events_like(1, SIMILAR_OTHER_CONTAINER), SIMILAR, SIMILAR, 1, 5),
    # the Go test's clock moves by the interval at every reading, several per event: the gaps
    # between events exceed it; here they do by a second
    "similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate":
        (similar_events(AGGREGATE_MAX_EVENTS - 1, SIMILAR, SIMILAR["message"]), SIMILAR, SIMILAR, 1,
         AGGREGATE_INTERVAL + 1),
}


@pytest.mark.parametrize("previous,new,expected,count,interval", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_event_correlator(cluster, previous, new, expected, count, interval):
    for i, e in enumerate(previous):
        correlate(cluster, e, T0 + i * interval)
    ev = correlate(cluster, new, T0 + len(previous) * interval)
    # validateEvent: the event as expected but for its timestamps, which differ exactly when
    # occurrences were counted
    assert (ev["reason"], ev["message"], ev["type"], ev["count"]) == (
        expected["reason"], expected["message"], "Normal", count)
    assert ev["involvedObject"] == {"apiVersion": "version", "kind": "Pod", "name": "my-pod",
                                    "namespace": "my-ns", "uid": "C934D34AFB20242",
                                    "fieldPath": expected["field_path"]}
    assert ev["source"] == {"component": "kubelet", "host": HOST}
    assert ev["metadata"]["name"].startswith("my-pod.")
    assert (ev["firstTimestamp"] == ev["lastTimestamp"]) is (count == 1)


def test_aggregator_by_reason_groups_events_that_differ_only_by_message():
    # TestEventAggregatorByReasonFunc: the message is the local key, not part of the group's;
    # nor is the field path
    pod = events.involved_ref(obj("Pod", "pod1", "other"))
    fun = aggregate_key("kubelet", HOST, pod, "Normal", "end-of-world")
    assert aggregate_key("kubelet", HOST, dict(pod, fieldPath="spec.containers{a}"), "Normal",
                         "end-of-world") == fun
    assert aggregate_key("kubelet", HOST, pod, "Normal", "nevermind") != fun
    assert aggregate_key("kubelet", HOST, pod, "Warning", "end-of-world") != fun
    assert aggregate_key("kubelet", "other-host", pod, "Normal", "end-of-world") != fun


def test_aggregate_message():
    # TestEventAggregatorByReasonMessageFunc
    assert AGGREGATED_MESSAGE_PREFIX == "(combined from similar events): "


def ten_similar(cluster, step=1.0):
    out = []
    for i in range(AGGREGATE_MAX_EVENTS):
        out.append(correlate(cluster, event("similar", f"message {i}"), T0 + i * step))
    return out


def test_the_aggregate_is_an_event_of_its_own_without_a_reporting_controller(cluster):
    *plain, aggregate = ten_similar(cluster)
    assert [e["message"] for e in plain] == [f"message {i}" for i in range(AGGREGATE_MAX_EVENTS - 1)]
    assert all((e["reportingComponent"], e["reportingInstance"]) == ("kubelet", HOST) for e in plain)
    assert aggregate["metadata"]["name"] not in {e["metadata"]["name"] for e in plain}
    assert aggregate["message"] == "(combined from similar events): message 9"
    assert (aggregate["reportingComponent"], aggregate["reportingInstance"]) == ("", "")
    assert aggregate["source"] == {"component": "kubelet", "host": HOST}
    assert (aggregate["count"], aggregate["firstTimestamp"], aggregate["lastTimestamp"]) == (
        1, format_time(T0 + 9), format_time(T0 + 9))
    # a further new message patches the aggregate: count, lastTimestamp and message
    again = correlate(cluster, event("similar", "message 10"), T0 + 20)
    assert again["metadata"]["name"] == aggregate["metadata"]["name"]
    assert (again["count"], again["firstTimestamp"], again["lastTimestamp"], again["message"]) == (
        2, format_time(T0 + 9), format_time(T0 + 20), "(combined from similar events): message 10")
    assert len(cluster.store.list("Event", "my-ns")) == AGGREGATE_MAX_EVENTS


def test_after_aggregating_a_group_forgets_one_message_and_counts_repeats_of_the_others(cluster):
    ten_similar(cluster)
    outcomes = [correlate(cluster, event("similar", f"message {i}"), T0 + 30 + i)
                for i in range(AGGREGATE_MAX_EVENTS)]
    aggregated = [i for i, e in enumerate(outcomes) if e["message"].startswith(AGGREGATED_MESSAGE_PREFIX)]
    # the first repeat of a forgotten message aggregates and makes the group forget another:
    # at least one repeat aggregates; every other is counted on the event of its own message
    assert aggregated
    for i, e in enumerate(outcomes):
        if i not in aggregated:
            assert (e["message"], e["count"]) == (f"message {i}", 2 if i < AGGREGATE_MAX_EVENTS - 1 else 1)


@pytest.mark.parametrize("gap,aggregates", [(AGGREGATE_INTERVAL, True), (AGGREGATE_INTERVAL + 0.5, False)],
                         ids=["ten minutes apart the group still holds", "longer apart it starts again"])
def test_the_interval_is_since_the_last_similar_event(cluster, gap, aggregates):
    for i in range(AGGREGATE_MAX_EVENTS - 1):
        correlate(cluster, event("similar", f"message {i}"), T0 + i * gap)
    last = correlate(cluster, event("similar", "last"), T0 + (AGGREGATE_MAX_EVENTS - 1) * gap)
    assert last["message"].startswith(AGGREGATED_MESSAGE_PREFIX) is aggregates


def test_an_aggregated_message_still_counts_as_recorded(cluster):
    # components that record a warning once (``events.recorded``) see it among the recorded
    # ones even when it went into the aggregate
    ten_similar(cluster)
    messages = {m for (_, _, _, m) in events.recorded(cluster, "kubelet", "Pod")}
    assert messages == {f"message {i}" for i in range(AGGREGATE_MAX_EVENTS)}


def _history(seed: int) -> list[tuple[float, list[tuple[float, str, str, str]]]]:
    """Commands at increasing times, each recording similar events about one of a few pods,
    dated between the previous command and itself (as a kubelet catching up does):
    (now, [(at, object, reason, message)])."""
    import random

    rng = random.Random(seed)
    now, out = T0, []
    for _ in range(60):
        before, now = now, now + rng.choice([30, 200, AGGREGATE_INTERVAL - 1, AGGREGATE_INTERVAL + 1, 2000])
        pod = f"pod-{rng.randrange(4)}"
        out.append((now, sorted((rng.uniform(before, now), pod, "reason", f"message {rng.randrange(12)}")
                                for _ in range(rng.randrange(1, 12)))))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_quiet_groups_are_forgotten_without_changing_what_is_recorded(tmp_path, seed, monkeypatch):
    from kubesim.api.kinds import REGISTRY

    # the groups ``expire`` drops are those the aggregator would start again anyway: the same
    # histories, recorded with and without dropping them, give the same events
    def run(state, forget):
        recorded, groups = [], 0
        for now, happened in _history(seed):
            # each command's Cluster serves its own CRDs, falling back to the previous one's:
            # a process runs one command (the registry is left as the test found it)
            monkeypatch.setattr(REGISTRY, "custom_source", None)
            store = Store(str(tmp_path / state)).open()
            c = Cluster(store, {"KUBESIM_NOW": format_time(now), "KUBESIM_SEED": "1"})
            if forget:
                events._forget_quiet_groups(store, now)
            for at, name, reason, message in happened:
                ev = record(c, obj(name=name), "Normal", reason, message, "kubelet", HOST, at=at)
                recorded.append((ev["metadata"]["name"], ev["message"], ev["count"], ev["lastTimestamp"]))
            groups += len(store.meta_prefixed(events._AGGREGATOR_META))
            store.commit()
        return recorded, groups

    kept, all_groups = run("kept", False)
    forgot, groups_left = run("forgot", True)
    assert forgot == kept
    assert any(m.startswith(AGGREGATED_MESSAGE_PREFIX) for _, m, _, _ in kept)  # groups that aggregated
    assert groups_left < all_groups  # and some were dropped (groups held, summed over commands)


@pytest.mark.parametrize("checkpoint", [False, True], ids=["in one transaction", "across a checkpoint"])
def test_an_object_made_here_has_its_events_counted_as_any_other(tmp_path, checkpoint):
    """The keys of an object whose uid the transaction drew are known absent, not looked up:
    still its repeated event counts, the aggregator still groups, and after a checkpoint (its
    rows written) they are read again."""
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
    pod = store.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "my-ns"}},
                       "2026-11-22T10:00:00Z")
    assert store.drew_uid(pod["metadata"]["uid"]) and not store.drew_uid("C934D34AFB20242")
    first = record(c, pod, "Normal", "Pulling", "Pulling image", "kubelet", HOST, at=T0)
    row = events._aggregator_row("kubelet", HOST, events.involved_ref(pod))
    if checkpoint:
        store.checkpoint()
        assert not store.drew_uid(pod["metadata"]["uid"])
    again = record(c, pod, "Normal", "Pulling", "Pulling image", "kubelet", HOST, at=T0 + 1)
    assert (again["metadata"]["name"], again["count"]) == (first["metadata"]["name"], 2)
    assert store.meta(row)["groups"]["Normal|Pulling"]["keys"] == ["Pulling image"]
    store.rollback()


def _to_older_form(state) -> int:
    """Rewrite the aggregator's rows as kubesim kept them before they held an object's groups
    together: one row per group, under ``events.aggregator|`` + its aggregate key. How many."""
    import json
    import sqlite3

    conn = sqlite3.connect(str(state / "kubesim.db"))
    prefix = events._AGGREGATOR_META
    rows = conn.execute("SELECT key, value FROM meta WHERE key > ? AND key < ?",
                        (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1))).fetchall()
    groups = 0
    for key, value in rows:
        kind, ns, name, uid, api_version, component, host = key[len(prefix):].split("|")
        ref = {"kind": kind, "namespace": ns, "name": name, "uid": uid, "apiVersion": api_version}
        for group, held in json.loads(value)["groups"].items():
            type_, reason = group.split("|", 1)
            conn.execute("INSERT INTO meta VALUES (?, ?)", (events._AGGREGATOR_GROUP_META + aggregate_key(
                component, host, ref, type_, reason), json.dumps(held)))
            groups += 1
        conn.execute("DELETE FROM meta WHERE key=?", (key,))
    conn.commit()
    conn.close()
    return groups


@pytest.mark.parametrize("seed", range(6))
def test_groups_an_older_state_kept_one_a_row_go_on_aggregating(tmp_path, seed, monkeypatch):
    """A state written before an object's groups shared a row keeps one row per group: they are
    found, moved into their object's row when it is written, and dropped when quiet, so the
    events recorded are the same as if the state had always kept the rows."""
    import random

    from kubesim.api.kinds import REGISTRY

    rng = random.Random(seed)
    now, history = T0, []
    for _ in range(60):
        before, now = now, now + rng.choice([30, 200, AGGREGATE_INTERVAL - 1, AGGREGATE_INTERVAL + 1, 2000])
        history.append((now, sorted((rng.uniform(before, now), f"pod-{rng.randrange(2)}",
                                     rng.choice(["Pulling", "BackOff"]), f"message {rng.randrange(12)}")
                                    for _ in range(rng.randrange(4, 16)))))

    def run(state, older):
        recorded, converted = [], 0
        for now, happened in history:
            monkeypatch.setattr(REGISTRY, "custom_source", None)
            store = Store(str(tmp_path / state)).open()
            c = Cluster(store, {"KUBESIM_NOW": format_time(now), "KUBESIM_SEED": "1"})
            events._forget_quiet_groups(store, now)
            for at, name, reason, message in happened:
                ev = record(c, obj(name=name), "Normal", reason, message, "kubelet", HOST, at=at)
                recorded.append((ev["metadata"]["name"], ev["message"], ev["count"], ev["lastTimestamp"]))
            store.commit()
            if older:
                converted += _to_older_form(tmp_path / state)
        return recorded, converted

    always, _ = run("always", False)
    converted, groups = run("converted", True)
    assert converted == always
    assert any(m.startswith(AGGREGATED_MESSAGE_PREFIX) for _, m, _, _ in always)
    assert groups > len(history)  # (rows of several groups were taken apart)


def test_an_objects_older_rows_move_into_its_row_when_it_is_written(tmp_path):
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
    for i in range(AGGREGATE_MAX_EVENTS - 1):
        correlate(c, event("similar", f"message {i}"), T0 + i)
    correlate(c, event("other", "once"), T0)
    correlate(c, event("similar", "elsewhere", obj(name="another-pod")), T0)
    store.commit()
    assert _to_older_form(tmp_path / "state") == 3
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:01:00Z", "KUBESIM_SEED": "1"})
    older = events._AGGREGATOR_GROUP_META
    assert len(store.meta_items_under(older)) == 3
    # the tenth distinct message of the group counts the nine the older row holds
    assert correlate(c, event("similar", "the tenth"), T0 + 60)["message"].startswith(AGGREGATED_MESSAGE_PREFIX)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    assert [k.split("|")[5] for k, _ in store.meta_items_under(older)] == ["another-pod"]
    row = store.meta(events._aggregator_row("kubelet", HOST, events.involved_ref(obj())))
    assert row["groups"]["Normal|other"] == {"keys": ["once"], "last": T0}
    assert len(row["groups"]["Normal|similar"]["keys"]) == AGGREGATE_MAX_EVENTS - 1
    assert row["last"] == T0 + 60
    # quiet, rows of both forms go: marked at one look, dropped at the next
    events._forget_quiet_groups(store, T0 + 2 * AGGREGATE_INTERVAL)
    events._forget_quiet_groups(store, T0 + 4 * AGGREGATE_INTERVAL)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    assert store.meta_items_under(older) == [] and store.meta_items_under(events._AGGREGATOR_META) == []
    store.rollback()

