"""The two event recorders, mirroring client-go's tools/record (the kubelet's and the
controllers') and tools/events (the scheduler's): the core/v1 shape each leaves — checked against
a real v1.35 cluster with the conformance oracle — and how repeats aggregate (count, or series
written on the broadcaster's 6- and 30-minute ticks, as event_broadcaster_test.go's
TestEventSeriesf and TestFinishSeries expect)."""

from __future__ import annotations

import pytest

from kubesim.apiserver.context import Cluster
from kubesim.apiserver.events import FINISH_TIME, REFRESH_TIME, STARTED_META, eventf
from kubesim.clock import format_time, parse_time
from kubesim.store import Store

T0 = parse_time("2026-11-22T10:00:00Z")


@pytest.fixture
def cluster(tmp_path):
    store = Store(str(tmp_path / "state")).open()
    c = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
    store.set_meta(STARTED_META, T0)
    yield c
    store.rollback()


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default", "uid": "u1",
                                                        "resourceVersion": "7"}}
NOTE = "0/3 nodes are available: 3 Insufficient cpu."


def failed(cluster, at):
    return eventf(cluster, POD, None, "Warning", "FailedScheduling", "Scheduling", NOTE, "default-scheduler",
                  at=T0 + at)


def stored(cluster) -> list[dict]:
    return cluster.store.list("Event", "default")


def test_an_events_k8s_io_event_as_the_core_api_serves_it(cluster):
    eventf(cluster, POD, None, "Normal", "Scheduled", "Binding", "Successfully assigned default/web to node01",
           "default-scheduler", at=T0 + 0.5)
    [ev] = stored(cluster)
    ev = {k: v for k, v in ev.items() if k != "metadata"}
    assert ev == {
        "apiVersion": "v1", "kind": "Event", "action": "Binding", "eventTime": "2026-11-22T10:00:00.500000Z",
        "firstTimestamp": None, "lastTimestamp": None, "source": {},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default",
                           "resourceVersion": "7", "uid": "u1"},
        "message": "Successfully assigned default/web to node01", "reason": "Scheduled", "type": "Normal",
        "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-controlplane",
    }


def test_a_related_object_is_named(cluster):
    victim = dict(POD, metadata=dict(POD["metadata"], name="low", uid="u2"))
    eventf(cluster, victim, POD, "Normal", "Preempted", "Preempting", "Preempted by pod u1 on node node01",
           "default-scheduler", at=T0)
    [ev] = stored(cluster)
    assert (ev["involvedObject"]["name"], ev["related"]["name"]) == ("low", "web")


@pytest.mark.parametrize("occurrences, series", [
    # a single occurrence has no series
    ([0], None),
    # the second makes it a series of 2, written at once
    ([0, 60], {"count": 2, "lastObservedTime": "2026-11-22T10:01:00.000000Z"}),
    # later ones count in the broadcaster's cache only ...
    ([0, 60, 120, 180], {"count": 2, "lastObservedTime": "2026-11-22T10:01:00.000000Z"}),
    # ... until the refresh tick at 30 minutes writes what the cache held then
    ([0, 60, 300, 600, 900, 1200, 1500, REFRESH_TIME + 10],
     {"count": 7, "lastObservedTime": "2026-11-22T10:25:00.000000Z"}),
])
def test_repeats_become_a_series(cluster, occurrences, series):
    for t in occurrences:
        failed(cluster, t)
    [ev] = stored(cluster)
    assert ev.get("series") == series
    assert ev["eventTime"] == "2026-11-22T10:00:00.000000Z"


def test_a_series_ends_after_six_quiet_minutes_with_its_count_written(cluster):
    for t in (0, 60, 120):
        failed(cluster, t)
    # ticks every 6 minutes from T0: the one at 12m is the first more than 6m after 2m
    failed(cluster, 2 * FINISH_TIME + 1)
    first, second = sorted(stored(cluster), key=lambda e: e["eventTime"])
    assert first["series"] == {"count": 3, "lastObservedTime": "2026-11-22T10:02:00.000000Z"}
    assert second.get("series") is None and second["eventTime"] == "2026-11-22T10:12:01.000000Z"


def test_a_different_note_is_a_different_event(cluster):
    failed(cluster, 0)
    eventf(cluster, POD, None, "Warning", "FailedScheduling", "Scheduling", "other", "default-scheduler", at=T0 + 1)
    assert len(stored(cluster)) == 2


def test_an_expired_series_leaves_the_broadcasters_cache(tmp_path):
    # its Event gone (--event-ttl), the next occurrence is a new Event with a new name: the
    # cache entry of the old one would never be read again
    from kubesim.apiserver import events

    def command(at):
        store = Store(str(tmp_path / "state")).open()
        return Cluster(store, {"KUBESIM_NOW": format_time(at), "KUBESIM_SEED": "1"})

    c = command(T0)
    c.store.set_meta(STARTED_META, T0)
    for t in (0, 60):
        failed(c, t)
    [ev] = stored(c)
    assert list(c.store.meta(events._SERIES_META)) == [ev["metadata"]["name"]]
    c.store.commit()
    c = command(T0 + 2 * 3600)
    assert events.expire(c)
    assert stored(c) == [] and c.store.meta(events._SERIES_META) == {}
    c.store.commit()
    c = command(T0 + 2 * 3600 + 1)
    failed(c, 2 * 3600 + 1)
    [again] = stored(c)
    assert again.get("series") is None and again["metadata"]["name"] != ev["metadata"]["name"]
    c.store.rollback()


def test_the_index_keys_a_core_event_by_its_object_first(cluster):
    """A command's objects' keys sit together in the index: the logger key leads with the
    involved object's namespace, name and uid, and reads back as the eventLogger's fields."""
    from kubesim.apiserver.events import logger_key, parse_logger_key, record

    record(cluster, POD, "Normal", "Pulling", 'Pulling image "nginx"', "kubelet", host="node07")
    key = logger_key("kubelet", "node07", "Pod", "default", "web", "u1", "", "Normal", "Pulling",
                     'Pulling image "nginx"')
    assert key.startswith("@default|web|u1|Pod|kubelet|node07|")
    assert cluster.store.event_keys() == [key]
    assert parse_logger_key(key) == ("kubelet", "node07", "Pod", "default", "web", "u1", "", "Normal", "Pulling",
                                     'Pulling image "nginx"')
    assert parse_logger_key("aggregate|kubelet|node07|Pod|default|web|u1|v1|Normal|Pulling|kubelet|node07") is None


@pytest.mark.parametrize("old_key, moved", [
    # a core/v1 event's key, source first, as older states keep it: moved, the message's own
    # separators kept
    ("kubelet|node07|Pod|default|web|u1||Normal|Pulling|a|b", "@default|web|u1|Pod|kubelet|node07||Normal|Pulling|a|b"),
    # an aggregate's key and an events.k8s.io series' stay as they are
    ("aggregate|kubelet|node07|Pod|default|web|u1|v1|Normal|Pulling|kubelet|node07",
     "aggregate|kubelet|node07|Pod|default|web|u1|v1|Normal|Pulling|kubelet|node07"),
    ("events.k8s.io|default-scheduler|Binding|Scheduled|Pod|default|web|u1||note",
     "events.k8s.io|default-scheduler|Binding|Scheduled|Pod|default|web|u1||note"),
])
def test_an_older_state_s_keys_move_to_the_object_first_layout_once(tmp_path, old_key, moved):
    from kubesim.apiserver.events import KEY_LAYOUT, KEY_LAYOUT_META, migrate_keys

    store = Store(str(tmp_path / "state")).open()
    store.set_event_name(old_key, "web.1")
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    migrate_keys(store)
    assert (store.event_keys(), store.event_name(moved), store.meta(KEY_LAYOUT_META)) == ([moved], "web.1",
                                                                                         KEY_LAYOUT)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    assert store.event_keys() == [moved]
    store.rollback()


def test_a_repeat_after_the_keys_moved_counts_on_the_event_recorded_before(tmp_path):
    """The correlator of an older state goes on: the event it recorded under a source-first
    key is the one a repeat updates."""
    from kubesim.apiserver.events import KEY_LAYOUT_META, record

    def cluster_of(store):
        c = Cluster(store, {"KUBESIM_NOW": "2026-11-22T10:00:00Z", "KUBESIM_SEED": "1"})
        store.set_meta(STARTED_META, T0)
        return c

    store = Store(str(tmp_path / "state")).open()
    record(cluster_of(store), POD, "Normal", "Pulling", "Pulling image", "kubelet", host="node07")
    [ev] = store.list("Event", "default")
    # rewritten as an older kubesim kept it
    [key] = store.event_keys()
    store.rekey_events(lambda k: "kubelet|node07|Pod|default|web|u1||Normal|Pulling|Pulling image")
    store.set_meta(KEY_LAYOUT_META, None)
    store.commit()
    store = Store(str(tmp_path / "state")).open()
    record(cluster_of(store), POD, "Normal", "Pulling", "Pulling image", "kubelet", host="node07", at=T0 + 5)
    [again] = store.list("Event", "default")
    assert (again["metadata"]["name"], again["count"]) == (ev["metadata"]["name"], 2)
    assert store.event_keys() == [key]
    store.rollback()
