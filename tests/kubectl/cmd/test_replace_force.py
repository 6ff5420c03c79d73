"""kubectl replace --force (replace.go forceReplace): delete, poll every second until NotFound (up
to --timeout, else 5 minutes), then create — on the simulated clock. The flag checks are
replace.go's Validate, as pkg/cmd/replace/replace_test.go exercises them."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot

POD = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\nspec:\n  nodeName: node01\n  containers:\n"
       "  - name: c\n    image: busybox\n    command: [\"sleep\", \"{seconds}\"]\n")
DELETED = 'pod "slow" deleted from default namespace\n'


@pytest.fixture
def cluster(kubesim, tmp_path):
    kubesim.apply(POD.format(seconds=3600))
    kubesim.ok("advance 1s")  # busybox pulled: the container runs
    kubesim.uid = kubesim.ok("get pod slow -o jsonpath={.metadata.uid}")
    (tmp_path / "new.yaml").write_text(POD.format(seconds=7200))  # a pod's command is immutable
    kubesim.file = tmp_path / "new.yaml"
    return kubesim


def test_a_plain_replace_cannot_change_an_immutable_field(cluster):
    r = cluster(f"replace -f {cluster.file}")
    assert r.code == 1 and r.err.startswith('The Pod "slow" is invalid: spec: Forbidden: pod updates may not change '
                                            "fields other than")


@pytest.mark.parametrize("flags, ends", [
    ("", "10:00:31"),
    ("--grace-period=0", "10:00:03"),
    ("--grace-period=5", "10:00:06"),
    ("--wait", "10:00:31"),
], ids=["the old pod takes its own grace period (30s) to go; the new one is created then",
        "--grace-period=0 becomes 1 and a wait for the deletion (the kubelet's minimum is 2s)",
        "--grace-period shortens the deletion",
        "--wait waits for the deletion first, then the poll finds it gone at once"])
def test_replace_force_deletes_waits_until_gone_then_creates(cluster, flags, ends):
    r = cluster(f"replace --force {flags} -f {cluster.file}")
    assert (r.code, r.out, r.err) == (0, DELETED + "pod/slow replaced\n", "")
    assert cluster.clock() == f"2026-11-22T{ends}Z"
    new = cluster.ok("get pod slow -o jsonpath={.metadata.uid}/{.spec.containers[0].command[1]}")
    assert new.split("/")[0] != cluster.uid and new.split("/")[1] == "7200"


def test_replace_force_fails_at_its_timeout_with_the_object_deleted_but_not_created(cluster):
    r = cluster(f"replace --force --timeout=5s -f {cluster.file}")
    assert (r.code, r.out, r.err) == (1, DELETED, "error: context deadline exceeded\n")
    assert cluster.clock() == "2026-11-22T10:00:06Z"
    assert cluster.ok("get pod slow -o jsonpath={.metadata.uid}") == cluster.uid  # still the old, terminating


def test_without_a_timeout_the_poll_gives_up_after_five_minutes(kubesim, tmp_path):
    kubesim.ok("create configmap held")
    kubesim.ok(["patch", "configmap", "held", "-p", '{"metadata":{"finalizers":["example.com/hold"]}}'])
    f = tmp_path / "cm.yaml"
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\ndata:\n  a: b\n")
    r = kubesim(f"replace --force -f {f}")
    assert (r.code, r.err) == (1, "error: context deadline exceeded\n")
    assert kubesim.clock() == "2026-11-22T10:05:00Z"


@pytest.mark.parametrize("flags, err", [
    ("--grace-period=3", "error: --grace-period must have --force specified\n"),
    ("--timeout=3s", "error: --timeout must have --force specified\n"),
    ("--force --dry-run=client", "error: --dry-run can not be used when --force is set\n"),
    ("--force --wait=maybe", 'error: invalid argument "maybe" for "--wait" flag: strconv.ParseBool: parsing '
                             "\"maybe\": invalid syntax\nSee 'kubesim replace --help' for usage.\n"),
    ("--force --timeout=3", 'error: invalid argument "3" for "--timeout" flag: time: missing unit in duration "3"\n'
                            "See 'kubesim replace --help' for usage.\n"),
])
def test_bad_flags_fail_as_kubectl_does_and_change_nothing(cluster, flags, err):
    before = snapshot(cluster.state_dir)
    r = cluster(f"replace {flags} -f {cluster.file}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(cluster.state_dir) == before
