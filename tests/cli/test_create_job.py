"""``create job`` and ``create cronjob|cj``, byte for byte against the real kubectl 1.36
(``--dry-run=client`` needs no server for these), with kubectl's refusals (upstream:
staging/src/k8s.io/kubectl/pkg/cmd/create/create_job.go, create_cronjob.go); and ``create job
--from=cronjob/NAME``, which reads the CronJob from the server."""

from __future__ import annotations

import shlex

import pytest

from kubesim.testing.cli import Harness
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

CASES = [
    "job j1 --image=busybox -o yaml",
    "job j1 --image=busybox -o json",
    "job j1 --image=busybox -n team-a -o yaml -- sh -c 'echo hi'",
    "job j1 --image=busybox -o json -- a b",
    "job j1 --image=busybox",
    "job j1 --image=busybox -o name",
    "job j1 --image=a --image=b -o yaml",
    "cronjob c1 --image=busybox --schedule='*/1 * * * *' -o yaml -- date",
    "cronjob c1 --image=busybox --schedule=@hourly -o json",
    "cronjob c1 --image=busybox --schedule=@hourly --restart=Never -o yaml",
    "cronjob c1 --image=busybox --schedule=@hourly --restart=Always -o yaml",
    "cj c1 --image=busybox --schedule=@daily -n team-a",
    "cj c1 --image=busybox --schedule=@daily -o name",
    # refused, with kubectl's words
    "job j1",
    "job j1 --image=x --from=cronjob/a",
    "job j1 --from=cronjob/a -- echo",
    "cronjob c1 --image=busybox",
    "cronjob c1 --schedule=x",
    "cronjob c1",
    "job j1 --image=x --schedule=y",
]


@needs_kubectl
@pytest.mark.parametrize("line", CASES)
def test_create_job_and_cronjob_print_what_kubectl_prints(kubectl, tmp_path, line):
    parts = shlex.split(line)
    if "--" in parts:
        i = parts.index("--")
        argv = ["create"] + parts[:i] + ["--dry-run=client"] + parts[i:]
    else:
        argv = ["create"] + parts + ["--dry-run=client"]
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    got = h(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


def test_create_job_from_a_cronjob(tmp_path):
    h = Harness(tmp_path)
    h.ok("create cronjob nightly --image=busybox --schedule=@daily -- date")
    h.ok(["annotate", "cronjob", "nightly", "x=y"])
    out = h.ok("create job manual --from=cronjob/nightly --dry-run=client -o yaml")
    uid = h.ok("get cj nightly -o jsonpath={.metadata.uid}")
    assert out == f"""apiVersion: batch/v1
kind: Job
metadata:
  annotations:
    cronjob.kubernetes.io/instantiate: manual
  name: manual
  ownerReferences:
  - apiVersion: batch/v1
    controller: true
    kind: CronJob
    name: nightly
    uid: {uid}
spec:
  template:
    metadata: {{}}
    spec:
      containers:
      - command:
        - date
        image: busybox
        imagePullPolicy: Always
        name: nightly
        resources: {{}}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: OnFailure
      schedulerName: default-scheduler
      securityContext: {{}}
      terminationGracePeriodSeconds: 30
status: {{}}
"""
    assert h.ok("create job manual --from=cronjob/nightly") == "job.batch/manual created\n"
    assert h.ok("get job manual -o jsonpath={.metadata.ownerReferences[0].name}") == "nightly"
    r = h("create job other --from=cronjob/missing")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): cronjobs.batch "missing" not found\n')
