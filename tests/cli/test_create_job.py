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


REFUSED = [
    ("create cronjob bad --image=busybox --schedule='70 * * * *'",
     'error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "70 * * * *": '
     "end of range (70) above maximum (59): 70\n"),
    ("create job Bad_Name --image=busybox",
     'error: failed to create job: Job.batch "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": a '
     "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
     "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.template.spec.containers[0].name: "
     "Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
     "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
     "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]\n"),
    ("create job x --from=deployment/missing", 'Error from server (NotFound): deployments.apps "missing" not found\n'),
    ("create job x --from=cronjob", "error: resource(s) were provided, but no name was specified\n"),
]


@pytest.mark.parametrize("line,err", REFUSED, ids=["a bad schedule", "a name that is not a DNS subdomain",
                                                    "from a missing deployment", "from without a name"])
def test_what_the_server_refuses_as_the_real_cluster_words_it(tmp_path, line, err):
    # texts printed by kubectl 1.36 against the real v1.35 API server
    from kubesim.testing.cli import snapshot

    h = Harness(tmp_path)
    h.ok("get ns")
    before = snapshot(tmp_path)
    r = h(shlex.split(line))
    assert (r.code, r.err) == (1, err)
    assert snapshot(tmp_path) == before
