"""NoExecute taints through the CLI, on a pinned clock: the taint eviction controller evicts what
does not tolerate a taint at once, what tolerates it for ``tolerationSeconds`` that long after it
saw the taint (across commands), and cancels when the taint goes or the pod does."""

import json

import pytest

from kubesim.clock import format_time, parse_time


def pod(name, node="node01", tolerations=None, grace=None):
    spec = {"nodeName": node, "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})


def tolerate(seconds=None, key="maintenance"):
    t = {"key": key, "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return [t]


def status(h, name):
    rows = [ln.split() for ln in h.ok("get pods --no-headers").splitlines()]
    row = next((r for r in rows if r[0] == name), None)
    return row[2] if row else None


def evictions(h):
    out = h("get events --field-selector reason=TaintManagerEviction "
            "-o custom-columns=OBJECT:.involvedObject.name,SOURCE:.source.component,MESSAGE:.message").out
    return out.splitlines()[1:]


def test_a_pod_that_does_not_tolerate_the_taint_is_evicted_at_once(kubesim):
    kubesim.ok("apply -f -", pod("web"))
    kubesim.ok("advance 5s")  # nginx pulled: the pod runs
    assert kubesim.ok("taint nodes node01 maintenance=true:NoExecute") == "node/node01 tainted\n"
    assert evictions(kubesim) == ["web      taint-eviction-controller   Marking for deletion Pod default/web"]
    p = json.loads(kubesim.ok("get pod web -o json"))
    assert p["metadata"]["deletionTimestamp"] == "2026-11-22T10:00:35Z"  # its own 30 s grace period
    cond = next(c for c in p["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert (cond["type"], cond["status"], cond["reason"], cond["message"], cond["lastTransitionTime"]) == (
        "DisruptionTarget", "True", "DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint",
        "2026-11-22T10:00:05Z")
    assert status(kubesim, "web") == "Terminating"
    kubesim.ok("advance 30s")
    assert status(kubesim, "web") is None


def test_the_events_name_the_pod_without_its_uid_so_describe_does_not_list_them(kubesim):
    kubesim.ok("apply -f -", pod("web"))
    kubesim.ok("advance 5s")  # nginx pulled: the pod runs
    kubesim.ok("taint nodes node01 maintenance=true:NoExecute")
    ev = json.loads(kubesim.ok("get events --field-selector reason=TaintManagerEviction -o json"))["items"][0]
    assert ev["involvedObject"] == {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default"}
    assert "TaintManagerEviction" not in kubesim.ok("describe pod web")


@pytest.mark.parametrize("seconds,evicted_after", [(60, 60), (0, 0), (None, None)],
                         ids=["tolerationSeconds 60: evicted a minute after the taint",
                              "tolerationSeconds 0: evicted at once",
                              "no tolerationSeconds: tolerated for ever"])
def test_a_tolerating_pod_is_evicted_after_its_toleration_seconds(kubesim, seconds, evicted_after):
    kubesim.ok("apply -f -", pod("patient", tolerations=tolerate(seconds)))
    kubesim.ok("advance 10s")
    kubesim.ok("taint nodes node01 maintenance=true:NoExecute")
    if evicted_after is None:
        kubesim.ok("advance 1h")
        assert status(kubesim, "patient") == "Running" and evictions(kubesim) == []
        return
    if evicted_after:
        kubesim.ok(f"advance {evicted_after - 1}s")
        assert status(kubesim, "patient") == "Running" and evictions(kubesim) == []
        kubesim.ok("advance 1s")
    assert status(kubesim, "patient") == "Terminating"
    ev = json.loads(kubesim.ok("get events --field-selector reason=TaintManagerEviction -o json"))["items"][0]
    assert ev["firstTimestamp"] == format_time(parse_time("2026-11-22T10:00:10Z") + evicted_after)


def test_toleration_seconds_count_from_when_the_controller_saw_the_taint(kubesim):
    """A taint without timeAdded (as ``kubectl taint`` adds it) and one whose timeAdded is an hour
    old both start the clock when the controller sees them."""
    kubesim.ok("apply -f -", pod("patient", tolerations=tolerate(60)))
    kubesim.ok("advance 10s")
    node = json.loads(kubesim.ok("get node node01 -o json"))
    node["spec"]["taints"] = [{"key": "maintenance", "effect": "NoExecute", "timeAdded": "2026-11-22T09:00:00Z"}]
    kubesim.ok("replace -f -", json.dumps(node))
    kubesim.ok("advance 59s")
    assert status(kubesim, "patient") == "Running"
    kubesim.ok("advance 1s")
    assert status(kubesim, "patient") == "Terminating"


def test_removing_the_taint_cancels_the_eviction(kubesim):
    kubesim.ok("apply -f -", pod("patient", tolerations=tolerate(60)))
    kubesim.ok("taint nodes node01 maintenance=true:NoExecute")
    kubesim.ok("advance 30s")
    assert kubesim.ok("taint nodes node01 maintenance:NoExecute-") == "node/node01 untainted\n"
    assert evictions(kubesim) == ["patient   taint-eviction-controller   Cancelling deletion of Pod default/patient"]
    kubesim.ok("advance 1h")
    assert status(kubesim, "patient") == "Running"
    assert len(evictions(kubesim)) == 1


def test_a_pod_deleted_before_its_eviction_cancels_it(kubesim):
    kubesim.ok("apply -f -", pod("patient", tolerations=tolerate(60), grace=0))
    kubesim.ok("taint nodes node01 maintenance=true:NoExecute")
    kubesim.ok("delete pod patient")
    kubesim.ok("advance 5s")
    assert status(kubesim, "patient") is None
    assert evictions(kubesim) == ["patient   taint-eviction-controller   Cancelling deletion of Pod default/patient"]


def test_a_second_tolerated_taint_does_not_move_a_scheduled_eviction(kubesim):
    """processPodOnNode keeps an eviction already queued (upstream's "lengthening toleration
    shouldn't work"), even if the new taint's toleration is shorter."""
    tolerations = tolerate(60) + tolerate(10, key="other")
    kubesim.ok("apply -f -", pod("patient", tolerations=tolerations))
    kubesim.ok("taint nodes node01 maintenance=true:NoExecute")
    kubesim.ok("advance 20s")
    kubesim.ok("taint nodes node01 other=x:NoExecute")
    kubesim.ok("advance 39s")
    assert status(kubesim, "patient") == "Running"
    kubesim.ok("advance 1s")
    assert status(kubesim, "patient") == "Terminating"


def test_only_pods_on_the_tainted_node_are_touched(kubesim):
    kubesim.ok("apply -f -", pod("here"))
    kubesim.ok("apply -f -", pod("there", node="node02"))
    kubesim.ok("advance 5s")  # nginx pulled: the pods run
    kubesim.ok("taint nodes node01 maintenance=true:NoExecute")
    assert (status(kubesim, "here"), status(kubesim, "there")) == ("Terminating", "Running")


def test_a_stopped_node_evicts_after_the_default_300s_and_coming_back_cancels(kubesim):
    kubesim.ok("apply -f -", pod("early"))
    kubesim.ok("apply -f -", pod("late", tolerations=[
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 600},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 600}]))
    kubesim.ok("advance 5s")  # nginx pulled: the pods run
    kubesim.ok("node stop node01")
    kubesim.ok("advance 344s")  # NotReady at 50 s; the default tolerations (300 s) run from then
    assert (status(kubesim, "early"), status(kubesim, "late")) == ("Running", "Running")
    kubesim.ok("advance 1s")
    assert (status(kubesim, "early"), status(kubesim, "late")) == ("Terminating", "Running")
    kubesim.ok("node start node01")
    kubesim.ok("advance 10s")
    assert evictions(kubesim) == [
        "early    taint-eviction-controller   Marking for deletion Pod default/early",
        "late     taint-eviction-controller   Cancelling deletion of Pod default/late"]
    kubesim.ok("advance 1h")
    assert (status(kubesim, "early"), status(kubesim, "late")) == (None, "Running")
