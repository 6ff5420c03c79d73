"""kubectl delete waits until what it deleted is gone (delete.go DeleteResult + cmd/wait
IsDeleted), on the simulated clock: the grace period passes, the kubelet removes the pod, the
command returns — in no wall time. The grace-period table mirrors upstream's
pkg/cmd/delete/delete_test.go TestGracePeriodScenarios, read through the clock: how long the
wait took is the grace period the request carried."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot

SLOW = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\nspec:\n  nodeName: node01\n{grace}"
        "  containers:\n  - name: c\n    image: busybox\n    command: [\"sleep\", \"3600\"]\n")
FORCE_WARNING = ("Warning: Immediate deletion does not wait for confirmation that the running resource has been "
                 "terminated. The resource may continue to run on the cluster indefinitely.\n")
DELETED = 'pod "slow" deleted from default namespace\n'


def slow(name="slow", grace=None) -> str:
    text = SLOW.format(grace=f"  terminationGracePeriodSeconds: {grace}\n" if grace is not None else "")
    return text.replace("name: slow", f"name: {name}")


@pytest.fixture
def cluster(kubesim):
    kubesim.apply(slow())  # sleep as PID 1 ignores SIGTERM: it takes its whole grace period
    kubesim.ok("advance 1s")  # busybox pulled: the container runs
    return kubesim


@pytest.mark.parametrize("flags, out, err, ends", [
    ("", DELETED, "", "10:00:31", ),
    ("--force", 'pod "slow" force deleted from default namespace\n', FORCE_WARNING, "10:00:01"),
    ("--force --grace-period=0", 'pod "slow" force deleted from default namespace\n', FORCE_WARNING, "10:00:01"),
    ("--grace-period=0", DELETED, "", "10:00:03"),
    ("--grace-period=10", DELETED, "", "10:00:11"),
    ("--now", DELETED, "", "10:00:03"),
    ("--force -o name", "pod/slow\n", FORCE_WARNING, "10:00:01"),
], ids=["by default the pod's own grace period (30s) passes before delete returns",
        "--force uses grace period 0: gone at once",
        "--force and --grace-period 0 use grace period 0",
        "--grace-period 0 without --force becomes 1 (which the kubelet stretches to its minimum, 2s)",
        "--grace-period > 0 is the grace period waited for",
        "--now is --grace-period=1 (2s at the kubelet)",
        "-o name prints resource/name"])
def test_delete_returns_when_the_object_is_gone(cluster, flags, out, err, ends):
    r = cluster(f"delete pods/slow {flags}")
    assert (r.code, r.out, r.err) == (0, out, err)
    assert cluster.clock() == f"2026-11-22T{ends}Z"
    assert cluster("get pod slow").code == 1


@pytest.mark.parametrize("flags, err", [
    ("--force --grace-period=10", "error: --force and --grace-period greater than 0 cannot be specified together\n"),
    ("--now --grace-period=10", "error: --now and --grace-period cannot be specified together\n"),
    ("--wait=maybe", 'error: invalid argument "maybe" for "--wait" flag: strconv.ParseBool: parsing "maybe": '
                     "invalid syntax\nSee 'kubesim delete --help' for usage.\n"),
    ("--timeout=3", 'error: invalid argument "3" for "--timeout" flag: time: missing unit in duration "3"\n'
                    "See 'kubesim delete --help' for usage.\n"),
    ("--timeout=1x", 'error: invalid argument "1x" for "--timeout" flag: time: unknown unit "x" in duration "1x"\n'
                     "See 'kubesim delete --help' for usage.\n"),
    ("-o yaml", "error: unexpected -o output mode: yaml. We only support '-o name'\n"),
], ids=["--force with a grace period", "--now with a grace period", "a bad --wait", "a --timeout without unit",
        "a --timeout with a bad unit", "an output other than name"])
def test_bad_flags_fail_as_kubectl_does_and_change_nothing(cluster, flags, err):
    before = snapshot(cluster.state_dir)
    r = cluster(f"delete pod slow {flags}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(cluster.state_dir) == before


def test_the_same_name_can_be_created_again_right_after(cluster):
    cluster.ok("delete pod slow")
    assert cluster.ok("create -f -", stdin=slow()) == "pod/slow created\n"


def test_wait_false_returns_at_once_with_the_pod_terminating(cluster):
    assert cluster.ok("delete pod slow --wait=false") == DELETED
    assert cluster.clock() == "2026-11-22T10:00:01Z"
    assert cluster.ok("get pod slow --no-headers").split()[2] == "Terminating"


def test_a_timeout_fails_as_kubectl_does_and_keeps_the_deletion(cluster):
    r = cluster("delete pod slow --timeout=5s")
    assert (r.code, r.out, r.err) == (1, DELETED, "error: timed out waiting for the condition on pods/slow\n")
    assert cluster.clock() == "2026-11-22T10:00:06Z"
    assert cluster.ok("get pod slow --no-headers").split()[2] == "Terminating"


def test_several_objects_are_waited_for_together(kubesim):
    kubesim.apply(slow("a", grace=5) + "---\n" + slow("b", grace=20))
    kubesim.ok("advance 1s")  # busybox pulled: the containers run
    assert kubesim.ok("delete pod a b") == ('pod "a" deleted from default namespace\n'
                                            'pod "b" deleted from default namespace\n')
    assert kubesim.clock() == "2026-11-22T10:00:21Z"


def test_a_missing_name_fails_the_command_before_any_wait(cluster):
    r = cluster("delete pod slow ghost")
    assert (r.code, r.out, r.err) == (1, DELETED, 'Error from server (NotFound): pods "ghost" not found\n')
    assert cluster.clock() == "2026-11-22T10:00:01Z"


GAVE_UP = ("is not gone yet, and nothing in the cluster will change that (kubectl would wait up to 168h0m0s; "
           "kubesim stops)\n")


def test_a_pod_whose_kubelet_is_stopped_is_never_removed_and_kubesim_stops_waiting(cluster):
    cluster.ok("node stop node01")
    r = cluster("delete pod slow")
    assert (r.code, r.out, r.err) == (1, DELETED, "error: pods/slow " + GAVE_UP)
    # the node lifecycle controller marks the node NotReady 50s after its Lease's last renewal
    # and taints it unreachable:NoExecute (10:00:50); the taint eviction controller deletes the
    # pod again when its 300s toleration ends (10:05:50), and node01's CoreDNS pod with it; its
    # replacement leaves the coredns Deployment progressing for a moment, so the deployment
    # controller is due again at its progress deadline (requeueStuckDeployment: the Progressing
    # condition's 10:00:00 + 600s, plus the second upstream adds); then nothing is due
    assert cluster.clock() == "2026-11-22T10:10:01Z"
    assert cluster.ok("get pod slow --no-headers").split()[2] == "Terminating"  # the deletion stands


def test_an_object_whose_finalizer_nobody_removes_stays_and_kubesim_stops_waiting(kubesim):
    kubesim.ok("create configmap held")
    kubesim.ok(["patch", "configmap", "held", "-p", '{"metadata":{"finalizers":["example.com/hold"]}}'])
    r = kubesim("delete configmap held")
    assert (r.code, r.err) == (1, "error: configmaps/held " + GAVE_UP)
    assert kubesim.ok("get configmap held -o jsonpath={.metadata.deletionTimestamp}") == "2026-11-22T10:00:00Z"


def test_an_unbounded_wait_gives_up_after_an_hour_when_something_keeps_waking(kubesim):
    kubesim.apply(slow("looper").replace('"3600"', '"600"'))  # restarts every 10 minutes, for ever
    kubesim.ok("create configmap held")
    kubesim.ok(["patch", "configmap", "held", "-p", '{"metadata":{"finalizers":["example.com/hold"]}}'])
    r = kubesim("delete configmap held")
    assert r.code == 1 and r.err == (
        "error: configmaps/held is not gone yet, and kubesim waits at most 1h0m0s of simulated time, through at "
        "most 1000 wake-ups (kubectl would wait up to 168h0m0s; set --timeout)\n")
    assert kubesim.clock() <= "2026-11-22T11:00:00Z"


DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
              "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n"
              "    spec:\n      containers:\n      - name: c\n        image: busybox\n"
              "        command: [\"sleep\", \"3600\"]\n")


@pytest.mark.parametrize("cascade, ends, pods_left", [
    ("background", "10:00:01", True),
    ("foreground", "10:00:31", False),  # the pods' grace period
], ids=["background: only the Deployment object is waited for; its pods terminate afterwards",
        "foreground: the Deployment goes after its dependents, and delete waits for that"])
def test_a_deployments_deletion_waits_for_the_deployment_object(kubesim, cascade, ends, pods_left):
    kubesim.apply(DEPLOYMENT)
    kubesim.ok("advance 1s")  # busybox pulled: the containers run
    assert kubesim.ok(f"delete deployment web --cascade={cascade}") == \
        'deployment.apps "web" deleted from default namespace\n'
    assert kubesim.clock() == f"2026-11-22T{ends}Z"
    assert kubesim("get deployment web").code == 1
    assert bool(kubesim.ok("get pods -l app=web --no-headers")) == pods_left
