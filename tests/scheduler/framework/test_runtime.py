"""The framework runtime: plugin lists from profiles, score normalization/weights/range checks,
Unreserve in reverse, Bind stopping at the first non-Skip, PostFilter, PreFilter merging
(after upstream runtime/framework_test.go)."""

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (BindPlugin, FilterPlugin, NodeScore,
                                                   PostFilterPlugin, PostFilterResult,
                                                   PreFilterPlugin, PreFilterResult,
                                                   PreScorePlugin, QueueSortPlugin,
                                                   ReservePlugin, ScorePlugin, PermitPlugin)
from kubesim.scheduler.framework.runtime import Framework, FrameworkError, NodeToStatus
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo

from kubesim.testing.wrappers import make_node, make_pod

CALLS: list[str] = []


class Sort(QueueSortPlugin):
    name = "Sort"

    def less(self, a, b):
        return False


class Binder(BindPlugin):
    name = "Binder"

    def bind(self, state, pod, node_name):
        CALLS.append(f"bind:{self.name}")
        return None


class SkipBinder(BindPlugin):
    name = "SkipBinder"

    def bind(self, state, pod, node_name):
        CALLS.append(f"bind:{self.name}")
        return Status(Code.Skip)


class FailBinder(BindPlugin):
    name = "FailBinder"

    def bind(self, state, pod, node_name):
        CALLS.append(f"bind:{self.name}")
        return Status(Code.Error, "apiserver down")


def make_score_plugin(plugin_name, raw, normalize=None):
    """A score plugin returning raw[node] and optionally normalizing with ``normalize``."""
    attrs = {"name": plugin_name,
             "score": lambda self, state, pod, node: (raw[node.name], None)}
    if normalize is not None:
        def normalize_score(self, state, pod, scores):
            for s in scores:
                s.score = normalize(s.score)
            return None
        attrs["normalize_score"] = normalize_score
    return type(plugin_name, (ScorePlugin,), attrs)


def make_reserve(plugin_name, fail=False):
    def reserve(self, state, pod, node_name):
        CALLS.append(f"reserve:{self.name}")
        return Status(Code.Unschedulable, "no") if fail else None

    def unreserve(self, state, pod, node_name):
        CALLS.append(f"unreserve:{self.name}")
    return type(plugin_name, (ReservePlugin,), {"name": plugin_name, "reserve": reserve,
                                                 "unreserve": unreserve})


def make_filter(plugin_name, verdicts):
    def filt(self, state, pod, node):
        return verdicts.get(node.name)
    return type(plugin_name, (FilterPlugin,), {"name": plugin_name, "filter": filt})


def make_pre_filter(plugin_name, result=None, status=None):
    def pre_filter(self, state, pod, nodes):
        CALLS.append(f"prefilter:{self.name}")
        return result, status
    return type(plugin_name, (PreFilterPlugin,), {"name": plugin_name, "pre_filter": pre_filter})


def profile(plugins: dict, multi=(), config=()):
    p = {"schedulerName": "test", "plugins": {
        "queueSort": {"enabled": [{"name": "Sort"}]},
        "bind": {"enabled": [{"name": "Binder"}]},
    }}
    for key, names in plugins.items():
        p["plugins"][key] = {"enabled": [n if isinstance(n, dict) else {"name": n} for n in names]}
    if multi:
        p["plugins"]["multiPoint"] = {"enabled": [n if isinstance(n, dict) else {"name": n}
                                                  for n in multi]}
    if config:
        p["pluginConfig"] = list(config)
    return p


def registry(*classes):
    r = {"Sort": Sort, "Binder": Binder}
    for c in classes:
        r[c.name] = c
    return r


NODES = [NodeInfo(make_node(n).obj()) for n in ("n1", "n2", "n3")]
POD = PodInfo(make_pod("p").obj())


def run_scores(fw):
    state = CycleState()
    return fw.run_score_plugins(state, POD, NODES)


def test_scores_are_normalized_then_weighted_and_summed():
    a = make_score_plugin("A", {"n1": 1, "n2": 2, "n3": 4}, normalize=lambda s: s * 25)
    b = make_score_plugin("B", {"n1": 10, "n2": 20, "n3": 30})
    fw = Framework(profile({"score": [{"name": "A", "weight": 2}, "B"]}), registry(a, b))
    table, s = run_scores(fw)
    assert s is None
    # A: raw [1,2,4] -> normalized [25,50,100] x2; B: [10,20,30] x1 (weight 0 -> 1)
    assert table.raw == {"A": [1, 2, 4], "B": [10, 20, 30]}
    assert table.normalized == {"A": [25, 50, 100], "B": [10, 20, 30]}
    assert table.totals == [60, 120, 230]
    assert fw.weights == {"A": 2, "B": 1}


@pytest.mark.parametrize("raw, normalize, error", [
    pytest.param({"n1": 101, "n2": 0, "n3": 0}, None,
                 'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
                 "score 101, it should in the range of [0, 100] after normalizing",
                 id="a score above 100 after normalizing is an error"),
    pytest.param({"n1": 50, "n2": 0, "n3": 0}, lambda s: -s,
                 'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
                 "score -50, it should in the range of [0, 100] after normalizing",
                 id="a negative normalized score is an error"),
    pytest.param({"n1": 500, "n2": 0, "n3": 0}, lambda s: s // 5, None,
                 id="out-of-range raw scores are fine when NormalizeScore brings them in range"),
])
def test_score_range_check(raw, normalize, error):
    a = make_score_plugin("A", raw, normalize)
    fw = Framework(profile({"score": ["A"]}), registry(a))
    table, s = run_scores(fw)
    if error is None:
        assert s is None and table.totals[0] == 100
    else:
        assert s.code == Code.Error and s.message() == error


def test_skipped_score_plugins_do_not_run():
    a = make_score_plugin("A", {"n1": 1, "n2": 2, "n3": 3})
    pre = type("A", (PreScorePlugin, ScorePlugin), {
        "name": "A", "pre_score": lambda self, st, pod, nodes: Status(Code.Skip),
        "score": lambda self, st, pod, node: (_ for _ in ()).throw(AssertionError("ran"))})
    fw = Framework(profile({"preScore": ["A"], "score": ["A"]}), {**registry(), "A": pre})
    state = CycleState()
    assert fw.run_pre_score_plugins(state, POD, NODES) is None
    assert state.skip_score_plugins == {"A"}
    table, s = fw.run_score_plugins(state, POD, NODES)
    assert s is None and table.plugins == [] and table.skipped == ["A"]
    assert a  # the plain class is unused here


def test_unreserve_runs_in_reverse_order():
    CALLS.clear()
    r1, r2, r3 = make_reserve("R1"), make_reserve("R2"), make_reserve("R3")
    fw = Framework(profile({"reserve": ["R1", "R2", "R3"]}), registry(r1, r2, r3))
    fw.run_reserve_plugins_unreserve(CycleState(), POD, "n1")
    assert CALLS == ["unreserve:R3", "unreserve:R2", "unreserve:R1"]


def test_reserve_stops_at_the_first_rejection():
    CALLS.clear()
    r1, r2, r3 = make_reserve("R1"), make_reserve("R2", fail=True), make_reserve("R3")
    fw = Framework(profile({"reserve": ["R1", "R2", "R3"]}), registry(r1, r2, r3))
    s = fw.run_reserve_plugins_reserve(CycleState(), POD, "n1")
    assert s.code == Code.Unschedulable and s.plugin == "R2"
    assert CALLS == ["reserve:R1", "reserve:R2"]


@pytest.mark.parametrize("binders, calls, code", [
    pytest.param(["SkipBinder", "Binder", "FailBinder"], ["bind:SkipBinder", "bind:Binder"],
                 Code.Success, id="bind stops at the first plugin that does not skip"),
    pytest.param(["SkipBinder", "FailBinder", "Binder"], ["bind:SkipBinder", "bind:FailBinder"],
                 Code.Error, id="an error stops binding too"),
    pytest.param(["SkipBinder"], ["bind:SkipBinder"], Code.Skip,
                 id="when every binder skips the result is Skip"),
])
def test_bind_stops_at_first_non_skip(binders, calls, code):
    CALLS.clear()
    p = profile({})
    p["plugins"]["bind"] = {"enabled": [{"name": b} for b in binders]}
    fw = Framework(p, {**registry(), "SkipBinder": SkipBinder, "FailBinder": FailBinder})
    s = fw.run_bind_plugins(CycleState(), POD, "n1")
    assert CALLS == calls
    assert (s.code if s is not None else Code.Success) == code
    if code == Code.Error:
        assert s.message() == 'running Bind plugin "FailBinder": apiserver down'


def test_filter_stops_at_the_first_rejection_and_names_the_plugin():
    f1 = make_filter("F1", {"n2": Status(Code.Unschedulable, "f1 says no")})
    f2 = make_filter("F2", {"n2": Status(Code.Unschedulable, "f2 says no"),
                            "n3": Status(Code.Error, "boom")})
    fw = Framework(profile({"filter": ["F1", "F2"]}), registry(f1, f2))
    state = CycleState()
    assert fw.run_filter_plugins(state, POD, NODES[0]) is None
    s = fw.run_filter_plugins(state, POD, NODES[1])
    assert (s.message(), s.plugin) == ("f1 says no", "F1")
    s = fw.run_filter_plugins(state, POD, NODES[2])
    assert s.code == Code.Error and s.message() == 'running "F2" filter plugin: boom'
    verdicts = fw.run_all_filter_plugins(state, POD, NODES[1])
    assert [(n, v.message()) for n, v in verdicts] == [("F1", "f1 says no"), ("F2", "f2 says no")]


def test_pre_filter_results_intersect_and_skips_are_recorded():
    CALLS.clear()
    a = make_pre_filter("A", PreFilterResult({"n1", "n2"}))
    b = make_pre_filter("B", PreFilterResult({"n2", "n3"}))
    c = make_pre_filter("C", None, Status(Code.Skip))
    fw = Framework(profile({"preFilter": ["A", "B", "C"]}), registry(a, b, c))
    state = CycleState()
    res, s, plugins = fw.run_pre_filter_plugins(state, POD, NODES)
    assert s is None and res.node_names == {"n2"} and plugins == {"A", "B"}
    assert state.skip_filter_plugins == {"C"}


@pytest.mark.parametrize("results, message", [
    pytest.param([{"n1"}, {"n2"}], "node(s) didn't satisfy plugin(s) [A B] simultaneously",
                 id="disjoint node sets from two plugins"),
    pytest.param([set(), None], "node(s) didn't satisfy plugin A", id="an empty set from one plugin"),
])
def test_pre_filter_empty_intersection_is_unresolvable(results, message):
    a = make_pre_filter("A", PreFilterResult(results[0]))
    b = make_pre_filter("B", None if results[1] is None else PreFilterResult(results[1]))
    fw = Framework(profile({"preFilter": ["A", "B"]}), registry(a, b))
    _, s, _ = fw.run_pre_filter_plugins(CycleState(), POD, NODES)
    assert s.code == Code.UnschedulableAndUnresolvable and s.message() == message


def test_pre_filter_unschedulable_keeps_running_but_unresolvable_stops():
    CALLS.clear()
    a = make_pre_filter("A", None, Status(Code.Unschedulable, "a"))
    b = make_pre_filter("B", None, Status(Code.UnschedulableAndUnresolvable, "b"))
    c = make_pre_filter("C")
    fw = Framework(profile({"preFilter": ["A", "B", "C"]}), registry(a, b, c))
    _, s, _ = fw.run_pre_filter_plugins(CycleState(), POD, NODES)
    assert (s.message(), s.plugin) == ("b", "B")
    assert CALLS == ["prefilter:A", "prefilter:B"]


def test_pre_filters_left_out_run_for_an_explanation_on_a_copy_of_the_state():
    CALLS.clear()
    a = make_pre_filter("A", None, Status(Code.UnschedulableAndUnresolvable, "a"))

    def writes(self, state, pod, nodes):
        CALLS.append(f"prefilter:{self.name}")
        state.write("B-state", True)
        return None, Status(Code.Skip)
    b = type("B", (PreFilterPlugin,), {"name": "B", "pre_filter": writes})
    fw = Framework(profile({"preFilter": ["A", "B"]}), registry(a, b))
    state, record = CycleState(), {}
    _, s, _ = fw.run_pre_filter_plugins(state, POD, NODES, record)
    assert s.plugin == "A" and list(record) == ["A"]
    copy = fw.run_remaining_pre_filter_plugins(state, POD, NODES, record)
    assert CALLS == ["prefilter:A", "prefilter:B"] and list(record) == ["A", "B"]
    # PostFilter plugins read the cycle's state: B's PreFilter never ran there
    assert "B-state" in copy and "B-state" not in state


def test_post_filter_collects_rejections():
    def make_pf(pname, status, result=None):
        return type(pname, (PostFilterPlugin,), {
            "name": pname, "post_filter": lambda self, st, pod, m: (result, status)})
    p1 = make_pf("P1", Status(Code.Unschedulable, "one"))
    p2 = make_pf("P2", Status(Code.Unschedulable, "two"), PostFilterResult("", True))
    fw = Framework(profile({"postFilter": ["P1", "P2"]}), registry(p1, p2))
    record = {}
    r, s = fw.run_post_filter_plugins(CycleState(), POD, NodeToStatus(), record)
    assert s.message() == "one, two" and s.plugin == "P1" and r.mode_override
    assert [(name, st.message()) for name, st in record.items()] == [("P1", "one"), ("P2", "two")]


def test_post_filter_stops_at_an_error():
    def make_pf(pname, status):
        return type(pname, (PostFilterPlugin,), {
            "name": pname, "post_filter": lambda self, st, pod, m: (None, status)})
    p1 = make_pf("P1", Status(Code.Error, err="not found"))
    p2 = make_pf("P2", Status(Code.Unschedulable, "two"))
    fw = Framework(profile({"postFilter": ["P1", "P2"]}), registry(p1, p2))
    record = {}
    r, s = fw.run_post_filter_plugins(CycleState(), POD, NodeToStatus(), record)
    assert (r, s.code, s.message(), s.plugin) == (None, Code.Error, "not found", "P1")
    assert list(record) == ["P1"]


def test_permit_wait_is_reported_with_the_timeout():
    pl = type("W", (PermitPlugin,), {"name": "W", "permit": lambda self, st, pod, n: (
        Status(Code.Wait), 99999)})
    fw = Framework(profile({"permit": ["W"]}), registry(pl))
    s, waits = fw.run_permit_plugins(CycleState(), POD, "n1")
    assert s.code == Code.Wait and waits == {"W": 900.0}


# -- building frameworks from profiles ------------------------------------------------------------
class FS(FilterPlugin, ScorePlugin):
    name = "FS"

    def filter(self, state, pod, node):
        return None

    def score(self, state, pod, node):
        return 0, None


class F(FilterPlugin):
    name = "F"

    def filter(self, state, pod, node):
        return None


class G(FilterPlugin):
    name = "G"

    def filter(self, state, pod, node):
        return None


def names(plugins):
    return [p.name for p in plugins]


def test_multi_point_expands_to_every_point_a_plugin_implements():
    fw = Framework(profile({}, multi=["F", {"name": "FS", "weight": 5}]), registry(F, FS))
    assert names(fw.filter) == ["F", "FS"]
    assert names(fw.score) == ["FS"] and fw.weights == {"FS": 5}


def test_explicit_extension_point_entries_override_multi_point_and_go_first():
    # G is explicit, FS is both explicit (override) and multiPoint, F only multiPoint:
    # order = overrides (in explicit order), then multiPoint-only, then the other explicit ones
    p = profile({"filter": ["G", "FS"], "score": [{"name": "FS", "weight": 7}]},
                multi=["F", {"name": "FS", "weight": 2}])
    fw = Framework(p, registry(F, FS, G))
    assert names(fw.filter) == ["FS", "F", "G"]
    assert fw.weights == {"FS": 7}


def test_disabled_at_a_point_removes_a_multi_point_plugin_there():
    p = profile({}, multi=["FS"])
    p["plugins"]["score"] = {"disabled": [{"name": "FS"}]}
    fw = Framework(p, registry(FS))
    assert names(fw.filter) == ["FS"] and fw.score == []


def test_disabled_star_skips_multi_point_expansion():
    p = profile({}, multi=["FS"])
    p["plugins"]["filter"] = {"disabled": [{"name": "*"}]}
    fw = Framework(p, registry(FS))
    assert fw.filter == [] and names(fw.score) == ["FS"]


@pytest.mark.parametrize("prof, error", [
    pytest.param(profile({"filter": ["Nope"]}), 'FilterPlugin "Nope" does not exist',
                 id="an unknown plugin at an extension point"),
    pytest.param(profile({}, multi=["Nope"]), 'PreFilterPlugin "Nope" does not exist',
                 id="an unknown multiPoint plugin fails at the first extension point"),
    pytest.param(profile({"score": ["F"]}), 'plugin "F" does not extend ScorePlugin plugin',
                 id="a plugin at a point it does not implement"),
    pytest.param(profile({"filter": ["F", "F"]}), 'plugin "F" already registered as "FilterPlugin"',
                 id="the same plugin twice at one point"),
    pytest.param(profile({}, multi=["F", "F"]), 'plugin "F" already registered as "FilterPlugin"',
                 id="the same plugin twice in multiPoint"),
    pytest.param({**profile({}), "plugins": {"bind": {"enabled": [{"name": "Binder"}]}}},
                 'only one queue sort plugin required for profile with scheduler name "test", '
                 "but got 0", id="no queue sort plugin"),
    pytest.param({**profile({}), "plugins": {"queueSort": {"enabled": [{"name": "Sort"}]}}},
                 'at least one bind plugin is needed for profile with scheduler name "test"',
                 id="no bind plugin"),
    pytest.param(profile({"score": [{"name": "FS", "weight": 2 ** 62}]}, multi=[
        {"name": "FS", "weight": 1}]), "total score of Score plugins could overflow",
        id="weights that could overflow the total score"),
    pytest.param(profile({}, config=[{"name": "F", "args": {}}, {"name": "F", "args": {}}]),
                 "repeated config for plugin F", id="repeated plugin config"),
])
def test_profile_errors(prof, error):
    with pytest.raises(FrameworkError) as e:
        Framework(prof, registry(F, FS, G))
    assert str(e.value) == error


def test_known_but_unimplemented_plugins_are_skipped_and_recorded():
    fw = Framework(profile({"filter": ["VolumeBinding"]}, multi=["F", "InterPodAffinity"]),
                   registry(F), known_plugins={"VolumeBinding", "InterPodAffinity"})
    assert names(fw.filter) == ["F"]
    assert fw.unimplemented == ["VolumeBinding", "InterPodAffinity"]


def test_normalize_only_when_the_plugin_defines_it():
    plain = make_score_plugin("Plain", {})
    norm = make_score_plugin("Norm", {}, normalize=lambda s: s)
    assert not plain.has_normalize and norm.has_normalize
    scores = [NodeScore("a", 1)]
    assert plain().normalize_score(CycleState(), POD, scores) is None
