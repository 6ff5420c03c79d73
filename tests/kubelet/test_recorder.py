"""kubesim.kubelet.recorder: the folded events reach the engine's recorder with the times and
counts it accepts, whatever its signature (worked out once per function, not per pod sync)."""

import pytest

from kubesim.kubelet.recorder import EventRecorder


class Engine:
    def __init__(self):
        self.calls = []

    def record_all(self, obj, type_, reason, message, component, host="", field_path="", at=None, first=None,
                   count=1):
        self.calls.append((reason, at, first, count))

    def record_keywords(self, obj, type_, reason, message, component, host="", field_path="", **kw):
        self.calls.append((reason, kw.get("at"), kw.get("first"), kw.get("count", 1)))

    def record_plain(self, obj, type_, reason, message, component, host="", field_path=""):
        self.calls.append((reason, None, None, 1))


@pytest.mark.parametrize(("method", "expected"), [
    ("record_all", [("BackOff", 30.0, 10.0, 3)]),
    ("record_keywords", [("BackOff", 30.0, 10.0, 3)]),
    ("record_plain", [("BackOff", None, None, 1)] * 3),
], ids=["a recorder taking times and counts gets one call with them",
        "a recorder taking any keyword gets them too",
        "a recorder without counts gets each repeat on its own"])
def test_folded_events_reach_each_kind_of_recorder(method, expected):
    for _ in range(2):  # the second flush finds the recorder's function worked out already
        engine = Engine()
        events = EventRecorder()
        events.add(10.0, "Warning", "BackOff", "back-off", count=2)
        events.add(30.0, "Warning", "BackOff", "back-off")
        events.flush({"metadata": {"name": "p"}}, getattr(engine, method), "node01")
        assert engine.calls == expected


@pytest.mark.parametrize("adds", [
    [(10.0, "Pulling")],
    [(10.0, "Pulled"), (10.0, "Created"), (10.0, "Started")],
    [(10.0, "BackOff"), (20.0, "Started"), (30.0, "BackOff")],
], ids=["one event", "distinct events", "repeats folded"])
def test_folding_leaves_the_recorded_events_as_they_were(adds):
    events = EventRecorder()
    for at, reason in adds:
        events.add(at, "Normal", reason, reason.lower())
    kept = [(e.first, e.last, e.count) for e in events.items]
    engine = Engine()
    for _ in range(2):  # a second flush folds the same events again
        events.flush({"metadata": {"name": "p"}}, engine.record_all, "node01")
    assert [(e.first, e.last, e.count) for e in events.items] == kept
    assert engine.calls[:len(engine.calls) // 2] == engine.calls[len(engine.calls) // 2:]


def test_a_recorders_parameters_are_read_as_inspect_reads_them():
    import functools
    import inspect

    from kubesim.kubelet.recorder import _parameters

    def plain(obj, type_, reason, message, component, host, path, at=None, count=1): ...

    def keywords(obj, *args, **kwargs): ...

    def keyword_only(obj, *, first, at): ...

    class Sink:
        def record(self, obj, type_, reason, message, component, host, path, count=1): ...

        def __call__(self, obj, at=None): ...

    @functools.wraps(plain)
    def wrapped(*args, **kwargs): ...

    for record in (plain, keywords, keyword_only, Sink().record, Sink(), wrapped,
                   functools.partial(plain, {}), lambda obj, first=None: None):
        params = inspect.signature(record).parameters
        want = (set(params), any(p.kind == p.VAR_KEYWORD for p in params.values()))
        names, takes_keywords = _parameters(record)
        assert (set(names), takes_keywords) == want, record
