"""The contextual logger framework.go gives each plugin: from V(4), "<ExtensionPoint>.<Plugin>"
first, then the extension point's values (``node`` for Reserve, Permit, PreBind, Unreserve), then
ScheduleOne's pod, each dropped when the call passes the same key (klog's textlogger)."""

import random

import pytest

from kubesim.scheduler.framework.interface import (FilterPlugin, PermitPlugin, PreBindPlugin,
                                                   ReservePlugin, contextual_kvs)
from kubesim.scheduler.scheduler import Scheduler
from kubesim.testing.wrappers import make_node, make_pod


def logging_plugin(base, method, returns=None):
    def hook(self, *args):
        self.handle.log(3, "fake.go:1", "Plugin ran", {"at": method})
        return returns
    return type(base.__name__ + "Logger", (base,), {"name": "Chatty" + method.title(),
                                                   method: hook,
                                                   **({"unreserve": lambda *a: None}
                                                      if base is ReservePlugin else {})})


@pytest.mark.parametrize("point, base, method, returns, want", [
    pytest.param("filter", FilterPlugin, "filter", None,
                 {"logger": "Filter.ChattyFilter", "pod": "default/p", "at": "filter"},
                 id="Filter names the plugin, without a node"),
    pytest.param("reserve", ReservePlugin, "reserve", None,
                 {"logger": "Reserve.ChattyReserve", "pod": "default/p", "node": "node01",
                  "at": "reserve"}, id="Reserve adds the node"),
    pytest.param("permit", PermitPlugin, "permit", (None, 0),
                 {"logger": "Permit.ChattyPermit", "pod": "default/p", "node": "node01",
                  "at": "permit"}, id="Permit adds the node"),
    pytest.param("pre_bind", PreBindPlugin, "pre_bind", None,
                 {"logger": "PreBind.ChattyPre_Bind", "pod": "default/p", "node": "node01",
                  "at": "pre_bind"}, id="PreBind adds the node"),
])
@pytest.mark.parametrize("verbosity", [3, 4])
def test_a_plugins_line_carries_its_logger_from_v4(point, base, method, returns, want, verbosity):
    lines = []
    s = Scheduler(None, random.Random(0), log=lambda *a: lines.append(a), verbosity=verbosity)
    s.set_cluster([make_node("node01").capacity(cpu="4", memory="8Gi").obj()], [])
    plugin = logging_plugin(base, method, returns)(handle=s.handle)
    getattr(s.profiles["default-scheduler"], point).append(plugin)
    s.schedule_one(make_pod("p").obj(), 0.0)
    got = [kv for _, site, msg, kv in lines if msg == "Plugin ran"]
    if verbosity < 4:  # framework.go names loggers (and adds node) only when V(4) is on
        want = {k: v for k, v in want.items() if k not in ("logger", "node")}
    assert got and list(got[0].items()) == list(want.items())


@pytest.mark.parametrize("name, values, kv, want", [
    pytest.param("Bind.DefaultBinder", {"pod": "ns/p"}, {"pod": "ns/p", "node": "n"},
                 [("logger", "Bind.DefaultBinder"), ("pod", "ns/p"), ("node", "n")],
                 id="the call's own pod replaces the logger's, in the call's place"),
    pytest.param("", {"pod": "ns/p"}, {"status": ""}, [("pod", "ns/p"), ("status", "")],
                 id="without a name the logger's values come first"),
    pytest.param("Score.NodeResourcesFit", {"pod": "ns/p", "node": "n1"}, {"pod": "ns/q"},
                 [("logger", "Score.NodeResourcesFit"), ("node", "n1"), ("pod", "ns/q")],
                 id="values the call does not repeat stay before the call's"),
])
def test_contextual_kvs_merge_as_klog_does(name, values, kv, want):
    assert list(contextual_kvs(name, values, kv).items()) == want
