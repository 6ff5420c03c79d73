"""The simulated kubelet through the CLI, on a pinned clock: static pods, container lifecycle,
termination, logs, events and node failure (issue 4's scenarios)."""

import json
from pathlib import Path

NGINX = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\nspec:\n  containers:\n  - name: nginx\n    image: nginx\n"


def pod(name, image="busybox", command=None, restart=None):
    cmd = f"    command: {json.dumps(command)}\n" if command else ""
    rp = f"  restartPolicy: {restart}\n" if restart else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{rp}  nodeName: node01\n"
            f"  containers:\n  - name: c\n    image: {image}\n{cmd}")


def status(h, name, ns="default"):
    row = [ln.split() for ln in h.ok(f"get pods -n {ns} --no-headers").splitlines() if ln.split()[0] == name]
    return row[0][1:4] if row else None  # READY STATUS RESTARTS


def static_dir(h, node):
    cfg = json.loads(h.ok(f"get --raw /api/v1/nodes/{node}/proxy/configz"))
    return Path(cfg["kubeletconfig"]["staticPodPath"])


def test_the_default_control_plane_runs_kubeadms_static_pods(kubesim):
    kubesim.ok("advance 30s")
    names = [ln.split()[0] for ln in kubesim.ok("get pods -n kube-system --no-headers").splitlines()
             if not ln.startswith(("coredns-", "kube-proxy-"))]  # not kubeadm's add-ons' pods
    assert names == ["etcd-controlplane", "kube-apiserver-controlplane", "kube-controller-manager-controlplane",
                     "kube-scheduler-controlplane"]
    assert status(kubesim, "kube-apiserver-controlplane", "kube-system")[:2] == ["1/1", "Running"]


def test_a_static_pod_manifest_becomes_a_mirror_pod_that_comes_back_and_goes_with_its_file(kubesim):
    d = static_dir(kubesim, "node01")
    (d / "nginx.yaml").write_text(NGINX)
    assert status(kubesim, "nginx-node01") is not None
    mirror = json.loads(kubesim.ok("get pod nginx-node01 -o json"))
    ann = mirror["metadata"]["annotations"]
    assert ann["kubernetes.io/config.source"] == "file" and "kubernetes.io/config.mirror" in ann
    assert mirror["metadata"]["ownerReferences"][0]["kind"] == "Node"
    kubesim.ok("delete pod nginx-node01")
    assert status(kubesim, "nginx-node01") is not None  # the kubelet recreates it at once
    (d / "nginx.yaml").unlink()
    assert status(kubesim, "nginx-node01") is None


def test_a_node_registered_from_a_manifest_has_its_static_pod_directory(kubesim):
    """As a kubeadm node has /etc/kubernetes/manifests: a manifest written there runs at once."""
    kubesim.ok("apply -f -", "apiVersion: v1\nkind: Node\nmetadata:\n  name: node03\n")
    d = static_dir(kubesim, "node03")
    node = json.loads(kubesim.ok("get node node03 -o json"))
    assert node["metadata"]["annotations"]["kubesim.io/static-pod-path"] == str(d)
    assert d.is_dir() and not any(d.iterdir())
    (d / "nginx.yaml").write_text(NGINX)
    assert status(kubesim, "nginx-node03") is not None


def test_a_static_pod_referencing_a_secret_is_refused(kubesim):
    d = static_dir(kubesim, "node01")
    (d / "bad.yaml").write_text(NGINX.replace("name: nginx\nspec:", "name: bad\nspec:") +
                                "    envFrom:\n    - secretRef:\n        name: s\n")
    assert status(kubesim, "bad-node01") is None


def test_busybox_without_a_command_crash_loops_with_growing_back_off(kubesim, tmp_path):
    f = tmp_path / "bb.yaml"
    f.write_text(pod("bb"))
    kubesim.ok(f"apply -f {f}")
    restarts = []
    for _ in range(4):
        kubesim.ok("advance 1m")
        ready, st, r = status(kubesim, "bb")
        restarts.append(int(r))
    assert st in ("CrashLoopBackOff", "Completed")
    assert restarts == sorted(restarts) and restarts[-1] > restarts[0] >= 1
    # back-off doubles (10s, 20s, 40s, ... 300s): restarts grow more slowly over time
    assert restarts[1] - restarts[0] >= restarts[3] - restarts[2]


def test_restart_never_completes(kubesim, tmp_path):
    f = tmp_path / "once.yaml"
    f.write_text(pod("once", restart="Never"))
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 5s")
    assert status(kubesim, "once") == ["0/1", "Completed", "0"]


def test_a_sleep_pod_runs_then_completes_after_its_sleep(kubesim, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(pod("sleeper", command=["sleep", "3600"], restart="OnFailure"))
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 10s")
    assert status(kubesim, "sleeper")[:2] == ["1/1", "Running"]
    kubesim.ok("advance 1h")
    assert status(kubesim, "sleeper")[:2] == ["0/1", "Completed"]


def test_delete_shows_terminating_until_the_grace_period_ends(kubesim, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(pod("slow", command=["sleep", "3600"]))  # sleep as PID 1 ignores SIGTERM
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 5s")
    assert kubesim.ok("delete pod slow --wait=false") == 'pod "slow" deleted from default namespace\n'
    assert status(kubesim, "slow")[1] == "Terminating"
    kubesim.ok("advance 29s")
    assert status(kubesim, "slow")[1] == "Terminating"
    kubesim.ok("advance 2s")
    assert status(kubesim, "slow") is None


def test_force_delete_removes_at_once(kubesim, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(pod("slow", command=["sleep", "3600"]))
    kubesim.ok(f"apply -f {f}")
    r = kubesim("delete pod slow --force --grace-period=0")
    assert r.code == 0 and r.out == 'pod "slow" force deleted from default namespace\n'
    assert status(kubesim, "slow") is None


def test_logs_print_what_echo_prints(kubesim, tmp_path):
    f = tmp_path / "e.yaml"
    f.write_text(pod("hello", command=["sh", "-c", "echo Hello CKA! && sleep 3600"]))
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 2s")
    assert kubesim.ok("logs hello") == "Hello CKA!\n"


def test_events_for_one_object_and_by_type(kubesim, tmp_path):
    f = tmp_path / "e.yaml"
    f.write_text(pod("hello", command=["sleep", "60"]))
    kubesim.ok(f"apply -f {f}")
    out = kubesim.ok("events --for pod/hello")
    assert out.splitlines()[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert all("pod/hello" in ln for ln in out.splitlines()[1:])
    assert kubesim("events --types Warning").err == "No events found in default namespace.\n"


def test_a_stopped_node_goes_not_ready_and_its_pods_are_evicted_after_300s(kubesim, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(pod("victim", command=["sleep", "3600"]))
    kubesim.ok(f"apply -f {f}")
    assert kubesim.ok("node stop node01") == "node/node01 kubelet stopped\n"
    kubesim.ok("advance 1m")
    row = [ln.split() for ln in kubesim.ok("get nodes --no-headers").splitlines() if ln.startswith("node01")][0]
    assert row[1] == "NotReady"
    taints = json.loads(kubesim.ok("get node node01 -o json"))["spec"]["taints"]
    assert {"node.kubernetes.io/unreachable"} == {t["key"] for t in taints if t["effect"] == "NoExecute"}
    kubesim.ok("advance 5m")
    assert status(kubesim, "victim")[1] == "Terminating"  # evicted; an unreachable kubelet cannot confirm
    assert kubesim.ok("node start node01") == "node/node01 kubelet started\n"
    kubesim.ok("advance 1m")
    row = [ln.split() for ln in kubesim.ok("get nodes --no-headers").splitlines() if ln.startswith("node01")][0]
    assert row[1] == "Ready"


def test_the_issue_scenarios_through_run(kubesim):
    kubesim.ok("run bb --image=busybox")
    kubesim.ok("run once --image=busybox --restart=Never")
    kubesim.ok(["run", "sl", "--image=busybox", "--restart=OnFailure", "--", "sleep", "3600"])
    kubesim.ok("advance 2m")
    assert status(kubesim, "bb")[1] == "CrashLoopBackOff"
    first = int(status(kubesim, "bb")[2])
    assert status(kubesim, "once")[1] == "Completed"
    assert status(kubesim, "sl")[:2] == ["1/1", "Running"]
    kubesim.ok("advance 1h")
    assert int(status(kubesim, "bb")[2]) > first
    assert status(kubesim, "sl")[:2] == ["0/1", "Completed"]


def test_a_manually_scheduled_pod_that_does_not_fit_is_rejected_by_the_kubelet(kubesim, tmp_path):
    f = tmp_path / "greedy.yaml"
    f.write_text(pod("greedy", image="nginx") + "    resources:\n      requests:\n        cpu: \"8\"\n")
    kubesim.ok(f"apply -f {f}")
    p = json.loads(kubesim.ok("get pod greedy -o json"))
    assert (p["status"]["phase"], p["status"]["reason"]) == ("Failed", "OutOfcpu")
    assert p["status"]["message"].startswith("Pod was rejected: Node didn't have enough resource: cpu, requested: 8000")
    assert status(kubesim, "greedy")[1] == "OutOfcpu"


def test_a_stopped_kubelet_asks_to_be_woken_for_nothing(kubesim, tmp_path):
    """Its pods' next steps (here a container ending at 11:00) wait until it starts again: only
    the node lifecycle controller and the taint eviction have anything due (NotReady at 40s,
    the pod evicted 5 minutes later)."""
    from kubesim.controlplane.session import Options, session

    f = tmp_path / "s.yaml"
    f.write_text(pod("slow", command=["sleep", "3600"]))
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("node stop node01")
    kubesim.ok("advance 10m")
    with session(Options(kubesim.state_dir, kubesim.vars), commit=False) as client:
        assert client.next_due() is None
    kubesim.ok("node start node01")
    with session(Options(kubesim.state_dir, kubesim.vars), commit=False) as client:
        assert client.next_due() is not None  # started again: its pods' wakes are back
