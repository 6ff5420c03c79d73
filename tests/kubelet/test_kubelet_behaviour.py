"""Container behaviour read from what a container runs (kubesim.kubelet.behaviour)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.behaviour import behaviour

CASES = [
    # id, container, exits_after, exit_code, ports (None = answers every probe), sigterm
    ("busybox with no command exits 0 at once (sh reads end-of-file)",
     {"image": "busybox"}, 0.0, 0, frozenset(), None),
    ("busybox kept on a terminal runs until stopped",
     {"image": "busybox", "stdin": True, "tty": True}, None, 0, frozenset(), "ignore"),
    ("alpine, ubuntu and python with no command exit at once",
     {"image": "python:3.12"}, 0.0, 0, frozenset(), None),
    ("nginx with no command serves port 80 and exits on SIGTERM",
     {"image": "nginx:1.27"}, None, 0, frozenset({80}), "exit"),
    ("redis serves 6379", {"image": "redis:7"}, None, 0, frozenset({6379}), "exit"),
    ("args replace the image CMD: busybox sleep 3600",
     {"image": "busybox", "args": ["sleep", "3600"]}, 3600.0, 0, frozenset(), "ignore"),
    ("command replaces the entrypoint: nginx running sleep 10",
     {"image": "nginx", "command": ["sleep", "10"]}, 10.0, 0, frozenset(), "ignore"),
    ("sleep accepts busybox suffixes", {"image": "busybox", "command": ["sleep", "2m"]}, 120.0, 0, frozenset(), "ignore"),
    ("sleep infinity never exits", {"image": "busybox", "command": ["sleep", "infinity"]}, None, 0, frozenset(), "ignore"),
    ("tail -f /dev/null never exits (and, as PID 1, ignores SIGTERM)",
     {"image": "busybox", "command": ["tail", "-f", "/dev/null"]}, None, 0, frozenset(), "ignore"),
    ("tail -F and --follow too", {"image": "ubuntu", "args": ["tail", "--follow=name", "/var/log/x"]},
     None, 0, frozenset(), "ignore"),
    ("tail -f at the end of a script", {"image": "busybox", "command": ["sh", "-c", "echo up; tail -fn0 /dev/null"]},
     None, 0, frozenset(), None),
    ("tail without -f exits", {"image": "busybox", "command": ["tail", "-n", "1", "/etc/hostname"]},
     0.0, 0, frozenset(), None),
    ("true exits 0", {"image": "busybox", "command": ["true"]}, 0.0, 0, frozenset(), None),
    ("false exits 1", {"image": "busybox", "command": ["false"]}, 0.0, 1, frozenset(), None),
    ("sh -c with && and ; runs the chain and exits with exit N",
     {"image": "busybox", "command": ["sh", "-c", "echo hello && sleep 30; exit 3"]}, 30.0, 3, frozenset(), None),
    ("a failing step short-circuits &&",
     {"image": "busybox", "command": ["sh", "-c", "false && sleep 30"]}, 0.0, 1, frozenset(), None),
    ("an endless loop with a sleep runs forever",
     {"image": "busybox", "command": ["sh", "-c", "while true; do echo hi; sleep 10; done"]}, None, 0, frozenset(), "ignore"),
    ("a trap on TERM makes the script exit on SIGTERM",
     {"image": "busybox", "command": ["sh", "-c", "trap 'exit 0' TERM; sleep 3600"]}, 3600.0, 0, frozenset(), "exit"),
    ("an unknown application runs and answers every probe",
     {"image": "myorg/api:2.1"}, None, 0, None, "exit"),
    ("postgres without POSTGRES_PASSWORD exits 1",
     {"image": "postgres:16"}, 0.0, 1, frozenset(), None),
    ("postgres with a password serves 5432",
     {"image": "postgres:16", "env": [{"name": "POSTGRES_PASSWORD", "value": "x"}]}, None, 0, frozenset({5432}), "exit"),
    ("python -m http.server serves its port",
     {"image": "python:3.12", "command": ["python", "-m", "http.server", "8080"]}, None, 0, frozenset({8080}), "ignore"),
]


@pytest.mark.parametrize("container,exits_after,exit_code,ports,sigterm", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_behaviour_from_what_the_container_runs(container, exits_after, exit_code, ports, sigterm):
    b = behaviour({"name": "c", **container}, pod_name="p")
    assert b.exits_after == exits_after
    assert b.exit_code == exit_code
    assert b.ports == ports
    if sigterm is not None:
        assert b.sigterm == sigterm


def test_stress_above_its_memory_limit_is_oomkilled():
    b = behaviour({"name": "c", "image": "polinux/stress", "command": ["stress"],
                   "args": ["--vm", "1", "--vm-bytes", "250M", "--vm-hang", "1"],
                   "resources": {"limits": {"memory": "100Mi"}}})
    assert (b.exits_after, b.exit_code, b.reason, b.terminated_reason()) == (1.0, 137, "OOMKilled", "OOMKilled")


def test_stress_within_its_memory_limit_keeps_running():
    b = behaviour({"name": "c", "image": "polinux/stress", "command": ["stress"],
                   "args": ["--vm", "1", "--vm-bytes", "150M", "--vm-hang", "1"],
                   "resources": {"limits": {"memory": "200Mi"}}})
    assert b.exits_after is None


def test_files_a_script_touches_and_removes_are_tracked_for_exec_probes():
    b = behaviour({"name": "c", "image": "busybox",
                   "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"]})
    assert b.files == (("/tmp/healthy", 0.0, 30.0),)
    assert b.file_exists("/tmp/healthy", 29.9) and not b.file_exists("/tmp/healthy", 30.0)
    assert b.exits_after == 630.0


def test_agnhost_liveness_answers_for_ten_seconds_then_fails():
    b = behaviour({"name": "c", "image": "registry.k8s.io/e2e-test-images/agnhost:2.40", "args": ["liveness"]})
    assert (b.ports, b.http_fail_after, b.exits_after) == (frozenset({8080}), 10.0, None)


# What a container does is derived once for every pod of its template when its run reads
# neither the pod's name (``hostname``, ``$HOSTNAME``, the whole environment) nor the files its
# volumes hold; then the pods' volume names (kube-api-access-<random>) and names do not matter.
# Each case: two pods' containers (name, container); the derivation must equal one made afresh
# (uncached) for each, and whether the second pod reuses the first one's.
_MOUNTS_A = {"volumeMounts": [{"name": "kube-api-access-aaaaa", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}
_MOUNTS_B = {"volumeMounts": [{"name": "kube-api-access-bbbbb", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}
_FILES = "kubesim.io/mounted-files"
ANY_POD_CASES = [
    ("nginx's image default serves in every pod alike", {"image": "nginx"}, {"image": "nginx"}, True),
    ("pods differing only in their volume names share it",
     {"image": "busybox", "command": ["sh", "-c", "echo up; sleep 3600"], **_MOUNTS_A},
     {"image": "busybox", "command": ["sh", "-c", "echo up; sleep 3600"], **_MOUNTS_B}, True),
    ("hostname prints each pod's name", {"image": "busybox", "command": ["sh", "-c", "hostname; sleep 5"]},
     {"image": "busybox", "command": ["sh", "-c", "hostname; sleep 5"]}, False),
    ("$HOSTNAME expands to each pod's name", {"image": "busybox", "command": ["sh", "-c", "echo $HOSTNAME"]},
     {"image": "busybox", "command": ["sh", "-c", "echo $HOSTNAME"]}, False),
    ("a test of $HOSTNAME decides by each pod's name",
     {"image": "busybox", "command": ["sh", "-c", "[ \"${HOSTNAME}\" = pod-a ] && exit 3; sleep 9"]},
     {"image": "busybox", "command": ["sh", "-c", "[ \"${HOSTNAME}\" = pod-a ] && exit 3; sleep 9"]}, False),
    ("env prints the whole environment", {"image": "busybox", "command": ["sh", "-c", "env"]},
     {"image": "busybox", "command": ["sh", "-c", "env"]}, False),
    ("printenv HOSTNAME", {"image": "busybox", "command": ["printenv", "HOSTNAME"]},
     {"image": "busybox", "command": ["printenv", "HOSTNAME"]}, False),
    ("cat of a mounted file reads each pod's files",
     {"image": "busybox", "command": ["sh", "-c", "cat /etc/cfg/k; sleep 5"], _FILES: {"/etc/cfg/k": "one"}},
     {"image": "busybox", "command": ["sh", "-c", "cat /etc/cfg/k; sleep 5"], _FILES: {"/etc/cfg/k": "two"}}, False),
    ("cat of a file the pod may not have", {"image": "busybox", "command": ["sh", "-c", "cat /etc/cfg/k"]},
     {"image": "busybox", "command": ["sh", "-c", "cat /etc/cfg/k"], _FILES: {"/etc/cfg/k": "two"}}, False),
    ("other variables do not make it the pod's own",
     {"image": "busybox", "command": ["sh", "-c", "echo $GREETING"], "env": [{"name": "GREETING", "value": "hi"}]},
     {"image": "busybox", "command": ["sh", "-c", "echo $GREETING"], "env": [{"name": "GREETING", "value": "hi"}]}, True),
    ("a different environment is another template",
     {"image": "busybox", "command": ["sh", "-c", "echo $GREETING"], "env": [{"name": "GREETING", "value": "hi"}]},
     {"image": "busybox", "command": ["sh", "-c", "echo $GREETING"], "env": [{"name": "GREETING", "value": "yo"}]}, False),
    ("a program that runs until stopped keeps its pod's name (logs replay it)",
     {"image": "busybox", "command": ["sh", "-c", "while true; do date; sleep 1; done"]},
     {"image": "busybox", "command": ["sh", "-c", "while true; do date; sleep 1; done"]}, False),
]


@pytest.mark.parametrize("first,second,shared", [c[1:] for c in ANY_POD_CASES], ids=[c[0] for c in ANY_POD_CASES])
def test_a_template_s_pods_share_a_behaviour_that_reads_nothing_of_the_pod(first, second, shared):
    from kubesim.kubelet import behaviour as B

    B._ANY_POD.clear()
    B._CACHE.clear()
    a = behaviour({"name": "c", **first}, pod_name="pod-a")
    b = behaviour({"name": "c", **second}, pod_name="pod-b")
    assert a == B._derive({"name": "c", **first}, pod_name="pod-a")
    assert b == B._derive({"name": "c", **second}, pod_name="pod-b")
    assert (a is b) == shared
