"""The pod worker (kubesim.kubelet.pod_workers and its parts) on a pinned simulated clock."""

from __future__ import annotations

import copy

import pytest

from kubesim.apiserver.registry.core.pod import check_graceful_delete
from kubesim.kubelet import pod_workers as L
from kubesim.kubelet.logs import logs
from kubesim.kubelet.pod_workers import memory_key, sync_pod
from kubesim.printers.core import pod_ready_status_restarts
from kubesim.testing.kubelet import T0, Recorder, container, node, pod


def sync(p, at, memory, n=None, rec=None):
    return sync_pod(p, n or node(), [], T0 + at, rec if rec is not None else Recorder(), memory=memory)


def get(p, at):
    return pod_ready_status_restarts(p, T0 + at)


def cs(p, name=None):
    statuses = p["status"].get("containerStatuses") or []
    return statuses[0] if name is None else next(s for s in statuses if s["name"] == name)


# --------------------------------------------------------------------------------------------
# back-off


def test_busybox_crash_loop_backs_off_10s_doubling_to_5m():
    # the first exit restarts at once (no back-off entry yet); each later one waits
    # 10s, 20s, 40s, 1m20s, 2m40s, then 5m0s for ever: restarts at 0, 10, 30, 70, 150, 310, 610, 910
    p = pod("bb", container("bb", "busybox"))
    mem: dict = {}
    restarts_at, messages = [], []
    wake = 0.0
    for _ in range(8):
        r = sync(p, wake, mem)
        restarts_at.append(wake)
        messages.append(cs(p)["state"]["waiting"]["message"].split(" restarting")[0])
        wake = r.next_wake - T0
    assert restarts_at == [0, 10, 30, 70, 150, 310, 610, 910]
    assert messages == ["back-off 10s", "back-off 20s", "back-off 40s", "back-off 1m20s", "back-off 2m40s",
                        "back-off 5m0s", "back-off 5m0s", "back-off 5m0s"]
    assert get(p, 915) == ("0/1", "CrashLoopBackOff", "8 (5s ago)")


def test_a_container_that_ran_ten_minutes_restarts_without_back_off():
    # flowcontrol.Backoff forgets an entry not updated for twice the maximum (600 s)
    p = pod("long", container("long", "busybox", command=["sh", "-c", "sleep 700; exit 1"]))
    mem: dict = {}
    for at in (0, 700, 1400, 2100):
        sync(p, at, mem)
        assert "running" in cs(p)["state"], at
    assert cs(p)["restartCount"] == 3


def test_one_jump_and_many_small_syncs_agree():
    # `kubesim advance 1h` must land where an hour of settles would
    specs = [
        pod("bb", container("bb", "busybox")),
        pod("live", container("live", "busybox", args=["/bin/sh", "-c", "touch /tmp/h; sleep 30; rm /tmp/h; sleep 600"],
                              livenessProbe={"exec": {"command": ["cat", "/tmp/h"]}, "initialDelaySeconds": 5,
                                             "periodSeconds": 5, "failureThreshold": 3})),
        pod("ready", container("web", "nginx", readinessProbe={"tcpSocket": {"port": 8080}, "periodSeconds": 7})),
        pod("init", container("app", "nginx"), init=[container("i1", "busybox", command=["sh", "-c", "sleep 5; exit 1"])]),
    ]
    for spec in specs:
        a, b = copy.deepcopy(spec), copy.deepcopy(spec)
        ra, rb = Recorder(), Recorder()
        ma: dict = {}
        mb: dict = {}
        sync(a, 0, ma, rec=ra)
        sync(a, 3600, ma, rec=ra)
        for at in range(0, 3601, 37):
            sync(b, at, mb, rec=rb)
        sync(b, 3600, mb, rec=rb)
        assert a["status"] == b["status"], spec["metadata"]["name"]

        def totals(rec):
            out: dict = {}
            for e in rec.events:
                key = (e["reason"], e["message"])
                out[key] = out.get(key, 0) + e["count"]
            return out
        assert totals(ra) == totals(rb), spec["metadata"]["name"]


def test_memory_survives_being_stored_as_json():
    import json

    spec = pod("live", container("live", "nginx", livenessProbe={"httpGet": {"port": 80}, "periodSeconds": 10}),
               annotations={"kubesim.io/probe-failure": "liveness@20s"})
    a, b = copy.deepcopy(spec), copy.deepcopy(spec)
    ma: dict = {}
    mb: dict = {}
    for at in range(0, 86401, 3600):
        sync(a, at, ma)
        sync(b, at, mb)
        mb = json.loads(json.dumps(mb))
    assert a["status"] == b["status"]
    assert cs(a)["restartCount"] > 100


def test_a_month_of_crash_looping_is_simulated_in_whole_cycles():
    p = pod("bb", container("bb", "busybox"))
    mem: dict = {}
    rec = Recorder()
    sync(p, 0, mem, rec=rec)
    sync(p, 30 * 86400, mem, rec=rec)
    # 6 restarts by 310 s, then one every 300 s
    assert cs(p)["restartCount"] == 6 + (30 * 86400 - 310) // 300
    assert mem["c"]["bb"]["n"] == cs(p)["restartCount"] + 1
    assert len(rec.events) < 20  # counted, not listed one by one


# --------------------------------------------------------------------------------------------
# restart policies and phases


POLICIES = [
    ("Always restarts a container that completed", "Always", 0, "Running", "CrashLoopBackOff"),
    ("Always restarts a container that failed", "Always", 1, "Running", "CrashLoopBackOff"),
    ("OnFailure leaves a completed container: Succeeded", "OnFailure", 0, "Succeeded", "Completed"),
    ("OnFailure restarts a failed container", "OnFailure", 1, "Running", "CrashLoopBackOff"),
    ("Never leaves a completed container: Succeeded", "Never", 0, "Succeeded", "Completed"),
    ("Never leaves a failed container: Failed", "Never", 2, "Failed", "Error"),
]


@pytest.mark.parametrize("policy,code,phase,status", [c[1:] for c in POLICIES], ids=[c[0] for c in POLICIES])
def test_restart_policy(policy, code, phase, status):
    p = pod("p", container("c", "busybox", command=["sh", "-c", f"sleep 5; exit {code}"]), restart_policy=policy)
    mem: dict = {}
    sync(p, 0, mem)
    assert p["status"]["phase"] == "Running"
    sync(p, 5, mem)   # first exit: an Always/OnFailure container restarts at once
    sync(p, 10, mem)  # second exit
    assert p["status"]["phase"] == phase
    assert get(p, 10)[1] == status


def test_sleep_3600_is_running_then_completed_after_an_hour():
    p = pod("sleeper", container("sleeper", "busybox", args=["sleep", "3600"]), restart_policy="Never")
    mem: dict = {}
    r = sync(p, 0, mem)
    assert get(p, 0) == ("1/1", "Running", "0") and r.next_wake == T0 + 3600
    sync(p, 3599, mem)
    assert get(p, 3599)[1] == "Running"
    sync(p, 3600, mem)
    assert get(p, 3600) == ("0/1", "Completed", "0")
    assert p["status"]["phase"] == "Succeeded"
    term = cs(p)["state"]["terminated"]
    assert (term["reason"], term["exitCode"], term["startedAt"], term["finishedAt"]) == \
        ("Completed", 0, "2026-11-22T10:00:00Z", "2026-11-22T11:00:00Z")


# --------------------------------------------------------------------------------------------
# init containers


INIT = [
    ("the first init container runs: Init:0/2", 0, "Init:0/2", "Pending"),
    ("the second init container runs: Init:1/2", 5, "Init:1/2", "Pending"),
    ("both completed: the app runs", 15, "Running", "Running"),
]


@pytest.mark.parametrize("at,status,phase", [c[1:] for c in INIT], ids=[c[0] for c in INIT])
def test_init_containers_run_in_order(at, status, phase):
    p = pod("app", container("app", "nginx"),
            init=[container("one", "busybox", command=["sleep", "5"]), container("two", "busybox", command=["sleep", "10"])])
    mem: dict = {}
    for t in (0, 5, 15):
        if t <= at:
            sync(p, t, mem)
    assert get(p, at)[1] == status
    assert p["status"]["phase"] == phase


def test_a_failing_init_container_with_restart_never_fails_the_pod():
    p = pod("p", container("app", "nginx"), init=[container("init", "busybox", command=["false"])], restart_policy="Never")
    sync(p, 0, {})
    assert get(p, 0) == ("0/1", "Init:Error", "0")
    assert p["status"]["phase"] == "Failed"


def test_a_failing_init_container_crash_loops_and_the_app_never_starts():
    p = pod("p", container("app", "nginx"), init=[container("init", "busybox", command=["sh", "-c", "exit 1"])])
    mem: dict = {}
    sync(p, 0, mem)
    assert get(p, 0)[1] == "Init:CrashLoopBackOff"
    sync(p, 600, mem)
    assert get(p, 600)[1] == "Init:CrashLoopBackOff"
    assert cs(p)["state"]["waiting"]["reason"] == "PodInitializing"


def test_sidecars_count_in_ready_and_start_before_the_next_init_container():
    p = pod("p", container("app", "nginx"),
            init=[container("proxy", "envoyproxy/envoy:v1.31", restartPolicy="Always"),
                  container("setup", "busybox", command=["sleep", "5"])])
    mem: dict = {}
    sync(p, 0, mem)
    assert get(p, 0) == ("1/2", "Init:1/2", "0")
    sync(p, 5, mem)
    assert get(p, 5) == ("2/2", "Running", "0")


# --------------------------------------------------------------------------------------------
# probes


def test_a_failing_liveness_probe_restarts_the_container():
    p = pod("live", container("c", "busybox", args=["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
                              livenessProbe={"exec": {"command": ["cat", "/tmp/healthy"]}, "initialDelaySeconds": 5,
                                             "periodSeconds": 5, "failureThreshold": 3}))
    mem: dict = {}
    rec = Recorder()
    sync(p, 0, mem, rec=rec)
    r = sync(p, 40, mem, rec=rec)
    # failures at 30, 35, 40 -> Killing at 40; sh ignores SIGTERM: SIGKILL 30 s later, restart at once
    assert r.next_wake == T0 + 70
    unhealthy = [e for e in rec.events if e["reason"] == "Unhealthy"]
    assert sum(e["count"] for e in unhealthy) == 3
    assert unhealthy[0]["message"] == "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"
    killing = [e for e in rec.events if e["reason"] == "Killing"]
    assert killing[0]["message"] == "Container c failed liveness probe, will be restarted"
    sync(p, 70, mem, rec=rec)
    assert get(p, 70) == ("1/1", "Running", "1 (0s ago)")
    last = cs(p)["lastState"]["terminated"]
    assert (last["reason"], last["exitCode"]) == ("Error", 137)


def test_liveness_failure_with_restart_never_kills_without_restart():
    p = pod("p", container("web", "nginx", livenessProbe={"httpGet": {"path": "/", "port": 80}, "periodSeconds": 10}),
            restart_policy="Never", annotations={"kubesim.io/probe-failure": "liveness"})
    rec = Recorder()
    mem: dict = {}
    sync(p, 0, mem, rec=rec)
    sync(p, 60, mem, rec=rec)
    assert [e["message"] for e in rec.events if e["reason"] == "Killing"] == ["Container web failed liveness probe"]
    assert p["status"]["phase"] == "Succeeded"  # nginx exits 0 on SIGTERM


READINESS = [
    # probe ticks run every 10 s from the pod's first sync; initialDelaySeconds 5 skips the one at 0
    ("not ready before the first probe", 4, "0/1"),
    ("one success is not enough with successThreshold 2", 10, "0/1"),
    ("still one success just before the next tick", 19, "0/1"),
    ("ready at the second success", 20, "1/1"),
]


@pytest.mark.parametrize("at,ready", [c[1:] for c in READINESS], ids=[c[0] for c in READINESS])
def test_readiness_probe_gates_ready(at, ready):
    p = pod("web", container("web", "nginx", readinessProbe={"httpGet": {"path": "/", "port": 80}, "initialDelaySeconds": 5,
                                                            "periodSeconds": 10, "successThreshold": 2}))
    mem: dict = {}
    sync(p, 0, mem)
    sync(p, at, mem)
    assert get(p, at)[0] == ready
    ready_cond = next(c for c in p["status"]["conditions"] if c["type"] == "Ready")
    assert ready_cond["status"] == ("True" if ready == "1/1" else "False")
    if ready == "1/1":
        assert ready_cond["lastTransitionTime"] == "2026-11-22T10:00:20Z"


def test_a_readiness_probe_on_a_port_nobody_listens_on_keeps_the_pod_unready():
    p = pod("web", container("web", "nginx", readinessProbe={"httpGet": {"path": "/healthz", "port": 8080}}))
    rec = Recorder()
    mem: dict = {}
    sync(p, 0, mem, rec=rec)
    sync(p, 300, mem, rec=rec)
    assert get(p, 300) == ("0/1", "Running", "0")
    msgs = {e["message"] for e in rec.events if e["reason"] == "Unhealthy"}
    assert msgs == {'Readiness probe failed: Get "http://10.244.1.2:8080/healthz": dial tcp 10.244.1.2:8080: connect: connection refused'}
    cond = next(c for c in p["status"]["conditions"] if c["type"] == "ContainersReady")
    assert (cond["reason"], cond["message"]) == ("ContainersNotReady", "containers with unready status: [web]")


# --------------------------------------------------------------------------------------------
# termination


def test_delete_shows_terminating_until_the_grace_period_ends():
    p = pod("sleeper", container("sleeper", "busybox", command=["sleep", "3600"]))
    mem: dict = {}
    rec = Recorder()
    sync(p, 0, mem)
    assert check_graceful_delete(p, None, T0 + 100) == 30
    assert p["metadata"]["deletionTimestamp"] == "2026-11-22T10:02:10Z"
    r = sync(p, 100, mem, rec=rec)
    assert get(p, 100)[1] == "Terminating" and not r.remove and r.next_wake == T0 + 130
    assert [(e["reason"], e["message"]) for e in rec.events] == [("Killing", "Stopping container sleeper")]
    assert not sync(p, 129, mem).remove
    assert sync(p, 130, mem).remove


def test_a_pod_deleted_before_its_first_sync_compares_the_status_it_was_found_with():
    """A first sync that ends the pod at once (deleted before it started, no grace left)
    reports whether its status changed from the one it was found with (the final status is
    written before the delete only then)."""
    import json

    p = pod("gone", container("c", "busybox", command=["sleep", "3600"]))
    p["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}
    check_graceful_delete(p, 0, T0)
    found = json.dumps(p["status"], sort_keys=True, default=str)
    r = sync(p, 5, None)
    assert r.remove
    assert r.status_changed == (found != json.dumps(p["status"], sort_keys=True, default=str))


@pytest.mark.parametrize("grace,removed_at", [(None, 30), (5, 5), (1, 2)],
                         ids=["the pod's 30 s by default", "--grace-period=5", "--now gives 1 s, at least 2 s after SIGTERM"])
def test_grace_period(grace, removed_at):
    p = pod("s", container("s", "busybox", command=["sleep", "3600"]))
    mem: dict = {}
    sync(p, 0, mem)
    check_graceful_delete(p, grace, T0 + 10)
    r = sync(p, 10, mem)
    assert r.next_wake == T0 + 10 + removed_at


def test_prestop_runs_within_the_grace_period():
    p = pod("p", container("c", "nginx", lifecycle={"preStop": {"exec": {"command": ["sh", "-c", "sleep 8"]}}}))
    mem: dict = {}
    sync(p, 0, mem)
    check_graceful_delete(p, None, T0 + 10)
    assert sync(p, 10, mem).next_wake == T0 + 18   # nginx exits on the SIGTERM that follows the hook


# --------------------------------------------------------------------------------------------
# everything else


def test_an_image_change_restarts_the_container():
    p = pod("p", container("web", "nginx:1.26"))
    rec = Recorder()
    mem: dict = {}
    sync(p, 0, mem, rec=rec)
    p["spec"]["containers"][0]["image"] = "nginx:1.27"
    sync(p, 50, mem, rec=rec)
    assert [e["message"] for e in rec.events if e["reason"] == "Killing"] == \
        ["Container web definition changed, will be restarted"]
    assert cs(p)["image"] == "docker.io/library/nginx:1.27" and cs(p)["restartCount"] == 1
    assert cs(p)["state"]["running"]["startedAt"] == "2026-11-22T10:00:50Z"


def test_pod_ip_comes_from_the_node_cidr_and_host_network_takes_the_node_ip():
    n = node()
    used = pod("other", container("c", "nginx"))
    used["status"]["podIP"] = "10.244.1.2"
    p = pod("p", container("c", "nginx"))
    sync_pod(p, n, [used], T0, Recorder(), memory={})
    assert (p["status"]["podIP"], p["status"]["hostIP"]) == ("10.244.1.3", "172.30.1.2")
    h = pod("h", container("c", "nginx"), hostNetwork=True)
    sync_pod(h, n, [], T0, Recorder(), memory={})
    assert h["status"]["podIP"] == "172.30.1.2" and h["status"]["podIPs"] == [{"ip": "172.30.1.2"}]


def test_status_fields_of_a_running_pod():
    p = pod("p", container("web", "nginx", resources={"requests": {"cpu": "100m"}, "limits": {"memory": "64Mi"}},
                           volumeMounts=[{"name": "data", "mountPath": "/data", "readOnly": True}]))
    sync(p, 0, {})
    st = p["status"]
    assert (st["phase"], st["startTime"], st["observedGeneration"], st["qosClass"]) == \
        ("Running", "2026-11-22T10:00:00Z", 1, "BestEffort")
    assert [c["type"] for c in st["conditions"]] == \
        ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    c = cs(p)
    assert c["containerID"].startswith("containerd://") and len(c["containerID"]) == len("containerd://") + 64
    assert c["imageID"].startswith("docker.io/library/nginx@sha256:")
    assert c["allocatedResources"] == {"cpu": "100m"}
    assert c["resources"] == {"limits": {"memory": "64Mi"}, "requests": {"cpu": "100m"}}
    assert c["volumeMounts"] == [{"mountPath": "/data", "name": "data", "readOnly": True, "recursiveReadOnly": "Disabled"}]


def test_app_container_statuses_are_sorted_by_name():
    p = pod("p", container("zeta", "nginx"), container("alpha", "redis"))
    sync(p, 0, {})
    assert [s["name"] for s in p["status"]["containerStatuses"]] == ["alpha", "zeta"]


def test_a_stopped_kubelet_changes_nothing():
    n = node()
    n["metadata"]["annotations"] = {"kubesim.io/kubelet-stopped": "2026-11-22T09:00:00Z"}
    p = pod("p", container("c", "nginx"))
    before = copy.deepcopy(p)
    assert sync_pod(p, n, [], T0, Recorder(), memory={})[:3] == (False, None, False)
    assert p == before


def test_without_memory_the_kubelet_picks_up_from_the_stored_status():
    p = pod("sleeper", container("sleeper", "busybox", command=["sleep", "3600"]), restart_policy="Never")
    sync(p, 0, {})
    r = sync(p, 100, None)  # a restarted kubelet: the container kept running
    assert get(p, 100) == ("1/1", "Running", "0") and r.next_wake == T0 + 3600
    sync(p, 3600, None)
    assert get(p, 3600)[1] == "Completed"


def test_rejected_pods_stay_rejected():
    p = pod("big", container("big", "nginx", resources={"requests": {"cpu": "5"}}))
    rec = Recorder()
    mem: dict = {}
    r = sync(p, 0, mem, rec=rec)
    assert r.changed and p["status"]["reason"] == "OutOfcpu"
    assert p["status"]["message"] == "Pod was rejected: Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000"
    assert [(e["type"], e["reason"]) for e in rec.events] == [("Warning", "OutOfcpu")]
    assert sync(p, 60, mem)[:3] == (False, None, False)


def test_mirror_pods_keep_their_memory_under_the_static_pod_hash():
    p = pod("etcd-cp", container("etcd", "registry.k8s.io/etcd:3.6.6-0"),
            annotations={"kubernetes.io/config.mirror": "h1", "kubernetes.io/config.hash": "h1"})
    q = pod("plain", container("c", "nginx"))
    assert memory_key(p) == "static:h1" and memory_key(q) == "uid-plain"


LOGS = [
    ("the current instance", False, ["hello"]),
    ("the previous instance", True, ["hello"]),
]


@pytest.mark.parametrize("previous,expected", [c[1:] for c in LOGS], ids=[c[0] for c in LOGS])
def test_logs(previous, expected):
    p = pod("p", container("c", "busybox", command=["sh", "-c", "echo hello; sleep 10; exit 1"]))
    mem: dict = {}
    sync(p, 0, mem)
    sync(p, 12, mem)
    assert logs(p, "c", T0 + 12, previous=previous) == expected


def test_logs_of_a_container_that_never_started():
    p = pod("p", container("app", "nginx"), init=[container("init", "busybox", command=["sleep", "100"])])
    sync(p, 0, {})
    with pytest.raises(LookupError, match='container "app" in pod "p" is waiting to start: PodInitializing'):
        logs(p, "app", T0)


def test_resume_after_the_kubelet_was_stopped_sees_exits_that_happened_meanwhile():
    p = pod("p", container("c", "busybox", command=["sleep", "60"]), restart_policy="Never")
    mem: dict = {}
    sync(p, 0, mem)
    L.resume_pod(p, node(), T0 + 500, mem)
    sync(p, 500, mem)
    assert get(p, 500)[1] == "Completed"
    assert cs(p)["state"]["terminated"]["finishedAt"] == "2026-11-22T10:01:00Z"


def test_resume_during_a_crash_loop_back_off_restarts_the_container_at_once():
    # restarts at 310 and 610 (test above): at 400 it waits; a new kubelet process has no
    # back-off entry, so it restarts the container now and the back-off starts over at 10s
    p = pod("bb", container("bb", "busybox"))
    mem: dict = {}
    sync(p, 0, mem)
    sync(p, 400, mem)
    assert get(p, 400) == ("0/1", "CrashLoopBackOff", "6 (90s ago)")
    L.resume_pod(p, node(), T0 + 400, mem)
    sync(p, 400, mem)
    assert cs(p)["restartCount"] == 7
    assert cs(p)["state"]["waiting"]["message"].startswith("back-off 10s restarting")

