"""ResourceQuota and LimitRange from the command line: ``create quota`` byte for byte against the
real kubectl (staging/src/k8s.io/kubectl/pkg/cmd/create/create_quota.go), the quota admission
plugin refusing the third pod, the resource quota controller's status, a ReplicaSet's refused
pods as FailedCreate events, LimitRanger's defaults, and ``get``/``describe`` as kubectl 1.36
prints them (the texts as the v1.35 oracle printed them)."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from kubesim.testing.cli import Harness, snapshot
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

SAME = [
    "create quota q --hard=cpu=1,pods=2,memory=1.5Gi,requests.cpu=0.5 --scopes=BestEffort,NotTerminating "
    "--dry-run=client -o yaml",
    "create quota q --dry-run=client -o yaml -n foo",
    "create quota q --dry-run=client -o json --hard=pods=3",
    "create resourcequota q --hard=count/deployments.apps=2 --dry-run=client -o yaml",
    "create quota q --scopes=Foo --dry-run=client -o yaml",
    "create quota q --hard= --dry-run=client -o yaml",
    "create quota q --dry-run=client -o name",
    "create quota q --dry-run=client",
    # refused by the client
    "create quota q --hard=cpu --dry-run=client -o yaml",
    "create quota q --hard=cpu=abc --dry-run=client -o yaml",
    "create quota q --hard=cpu=1=2 --dry-run=client -o yaml",
    "create quota q --hard=cpu=1, --dry-run=client -o yaml",
    "create quota q --scopes=, --dry-run=client -o yaml",
    "create quota q --image=nginx --dry-run=client",
    "create quota --dry-run=client -o yaml",
]


@needs_kubectl
@pytest.mark.parametrize("line", SAME)
def test_create_quota_prints_what_kubectl_prints(kubectl, tmp_path, line):  # noqa: F811
    argv = shlex.split(line)
    want = kubectl(argv)
    got = Harness(tmp_path / "state")(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


def pod(name: str, cpu: str = "", memory: str = "") -> str:
    res = ""
    if cpu or memory:
        res = ", resources: {requests: {" + (f"cpu: {cpu}" if cpu else "") + "}, limits: {" + \
              (f"memory: {memory}" if memory else "") + "}}"
    return f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers: [{{name: c, image: nginx{res}}}]\n"


def test_a_namespace_limited_to_two_pods_refuses_the_third(kubesim):
    kubesim.ok("create ns dev")
    assert kubesim.ok("create quota pods-max --hard=pods=2 -n dev") == "resourcequota/pods-max created\n"
    assert kubesim.ok("get quota -n dev") == ("NAME       REQUEST     LIMIT   AGE\n"
                                              "pods-max   pods: 0/2           0s\n")
    kubesim.ok("run a --image=nginx -n dev")
    kubesim.ok("run b --image=nginx -n dev")
    before = snapshot(kubesim.state_dir)
    r = kubesim("run c --image=nginx -n dev")
    assert (r.code, r.out, r.err) == (1, "", 'Error from server (Forbidden): pods "c" is forbidden: exceeded quota: '
                                             "pods-max, requested: pods=1, used: pods=2, limited: pods=2\n")
    assert snapshot(kubesim.state_dir) == before
    assert kubesim.ok("describe quota pods-max -n dev") == ("Name:       pods-max\n"
                                                            "Namespace:  dev\n"
                                                            "Resource    Used  Hard\n"
                                                            "--------    ----  ----\n"
                                                            "pods        2     2\n")
    kubesim.ok("delete pod a -n dev --now")
    assert kubesim.ok("get quota pods-max -n dev -o jsonpath={.status.used.pods}") == "1"
    assert kubesim.ok("run c --image=nginx -n dev") == "pod/c created\n"


def test_compute_quota_texts_as_the_oracle_printed_them(kubesim):
    kubesim.ok("create ns q")
    kubesim.ok("create quota compute -n q --hard=pods=3,requests.cpu=1,limits.memory=1Gi,services=1")
    for name, cpu in (("a", "400m"), ("c", "500m")):
        kubesim.ok(["apply", "-n", "q", "-f", "-"], stdin=pod(name, cpu, "300Mi"))
    r = kubesim(["apply", "-n", "q", "-f", "-"], stdin=pod("b", "700m", "300Mi"))
    assert r.err == ('Error from server (Forbidden): error when creating "STDIN": pods "b" is forbidden: exceeded '
                     "quota: compute, requested: requests.cpu=700m, used: requests.cpu=900m, limited: requests.cpu=1\n")
    r = kubesim(["apply", "-n", "q", "-f", "-"], stdin=pod("d"))
    assert r.err == ('Error from server (Forbidden): error when creating "STDIN": pods "d" is forbidden: failed quota: '
                     "compute: must specify limits.memory for: c; requests.cpu for: c\n")
    assert kubesim.ok("get quota -n q") == (
        "NAME      REQUEST                                          LIMIT                      AGE\n"
        "compute   pods: 2/3, requests.cpu: 900m/1, services: 0/1   limits.memory: 600Mi/1Gi   0s\n")


def test_a_replicaset_refused_by_quota_records_failed_create(kubesim):
    kubesim.ok("create ns q")
    kubesim.ok("create quota compute -n q --hard=requests.cpu=1")
    kubesim.ok("create deployment web --image=nginx -n q")
    out = kubesim.ok("get events -n q --field-selector reason=FailedCreate -o jsonpath={.items[0].message}")
    assert out.startswith('Error creating: pods "web-') and out.endswith(
        '" is forbidden: failed quota: compute: must specify requests.cpu for: nginx')


def test_a_replicaset_short_of_quota_retries_with_back_off_and_says_so(kubesim):
    """As the oracle's ReplicaSet did: slowStartBatch creates 1, then 2 (one refused), and the
    controller retries after 5ms, 10ms, ... 5.12s (and whenever one of its pods changes): at
    least 11 refusals in 8 s, beyond the tenth combined by the event aggregator; ReplicaFailure
    on the ReplicaSet and its Deployment until a retry after the quota was raised succeeds —
    when the back-off allows, not when the quota changes."""
    kubesim.ok("create ns q")
    kubesim.ok("create quota q -n q --hard=pods=2")
    kubesim.ok("create deployment web --image=nginx --replicas=5 -n q")
    assert kubesim.ok("get rs -n q -o jsonpath={.items[0].status.replicas}") == "2"
    kubesim.ok("advance 8s")
    counts = kubesim.ok("get events -n q --field-selector reason=FailedCreate -o jsonpath={.items[*].count}").split()
    assert len(counts) == 10 and sum(map(int, counts)) >= 11
    cond = json.loads(kubesim.ok("get rs -n q -o jsonpath={.items[0].status.conditions}"))
    assert [(c["type"], c["status"], c["reason"]) for c in cond] == [("ReplicaFailure", "True", "FailedCreate")]
    assert cond[0]["message"].endswith(" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2")
    assert kubesim.ok("get deploy web -n q -o jsonpath={.status.conditions[*].type}") == \
        "Available ReplicaFailure Progressing"
    kubesim.ok("""patch quota q -n q -p '{"spec":{"hard":{"pods":"5"}}}'""")
    assert kubesim.ok("get rs -n q -o jsonpath={.items[0].status.replicas}") == "2"
    kubesim.ok("advance 1000s")  # the longest back-off
    assert kubesim.ok("get rs -n q -o jsonpath={.items[0].status.replicas}") == "5"
    assert kubesim.ok("get rs -n q -o jsonpath={.items[0].status.conditions}") == ""
    assert kubesim.ok("get deploy web -n q -o jsonpath={.status.conditions[*].type}") == "Available Progressing"


def test_a_rollout_whose_new_replicaset_the_quota_refuses(kubesim):
    """As on the v1.35 oracle: the update is accepted, the Deployment controller's create of the
    new ReplicaSet is refused (ReplicaSetCreateError, retried with back-off), the old
    ReplicaSet keeps serving and Progressing turns False with the event's message."""
    kubesim.ok("create ns d")
    kubesim.ok("create quota rq -n d --hard=count/replicasets.apps=1")
    kubesim.ok("create deployment web --image=nginx:1.27 -n d")
    assert kubesim.ok("set image deploy/web nginx=nginx:1.28 -n d") == "deployment.apps/web image updated\n"
    kubesim.ok("advance 5s")
    assert kubesim.ok("get rs -n d -o name") == "replicaset.apps/web-5974c5bb9c\n"
    refused = ('Failed to create new replica set "web-77657b99d8": replicasets.apps "web-77657b99d8" is forbidden: '
               "exceeded quota: rq, requested: count/replicasets.apps=1, used: count/replicasets.apps=1, "
               "limited: count/replicasets.apps=1")
    out = kubesim.ok("describe deploy web -n d")
    assert "  Progressing    False   ReplicaSetCreateError\n" in out and "NewReplicaSet:   <none>\n" in out
    tries = re.search(r"  Warning  ReplicaSetCreateError  3s \(x(\d+) over 5s\)  deployment-controller  " +
                      re.escape(refused) + "\n", out)
    assert tries and int(tries.group(1)) >= 10  # (the oracle: x11 over 6s; each change to its pods retries too)
    cond = json.loads(kubesim.ok("get deploy web -n d -o jsonpath={.status.conditions[1]}"))
    assert (cond["reason"], cond["message"]) == ("ReplicaSetCreateError", refused)
    kubesim.ok("delete quota rq -n d")
    kubesim.ok("advance 1000s")
    assert kubesim.ok("get rs -n d -o jsonpath={.items[*].status.replicas}") == "0 1"  # rolled out


def test_count_quota_refuses_a_second_deployment(kubesim):
    kubesim.ok("create ns q")
    kubesim.ok("create quota one -n q --hard=count/deployments.apps=1")
    kubesim.ok("create deployment web --image=nginx -n q")
    r = kubesim("create deployment web2 --image=nginx -n q")
    assert (r.code, r.err) == (1, 'error: failed to create deployment: deployments.apps "web2" is forbidden: exceeded '
                                  "quota: one, requested: count/deployments.apps=1, used: count/deployments.apps=1, "
                                  "limited: count/deployments.apps=1\n")


LIMIT_RANGE = """apiVersion: v1
kind: LimitRange
metadata: {name: cpu-limits}
spec:
  limits:
  - type: Container
    min: {cpu: 100m}
    max: {cpu: "1", memory: 1Gi}
    defaultRequest: {cpu: 200m}
    maxLimitRequestRatio: {cpu: "4"}
  - type: Pod
    max: {memory: 1536Mi}
  - type: PersistentVolumeClaim
    min: {storage: 1Gi}
    max: {storage: 5Gi}
"""


def test_get_and_describe_limit_ranges(kubesim):
    kubesim.apply(LIMIT_RANGE)
    assert kubesim.ok("get limits") == "NAME         CREATED AT\ncpu-limits   2026-11-22T10:00:00Z\n"
    assert kubesim.ok("describe limits cpu-limits") == (
        "Name:                  cpu-limits\n"
        "Namespace:             default\n"
        "Type                   Resource  Min   Max     Default Request  Default Limit  Max Limit/Request Ratio\n"
        "----                   --------  ---   ---     ---------------  -------------  -----------------------\n"
        "Container              cpu       100m  1       200m             1              4\n"
        "Container              memory    -     1Gi     1Gi              1Gi            -\n"
        "Pod                    memory    -     1536Mi  -                -              -\n"
        "PersistentVolumeClaim  storage   1Gi   5Gi     -                -              -\n")
    assert kubesim.ok("describe ns default").endswith(
        "No resource quota.\n\n"
        "Resource Limits\n"
        " Type                   Resource  Min   Max     Default Request  Default Limit  Max Limit/Request Ratio\n"
        " ----                   --------  ---   ---     ---------------  -------------  -----------------------\n"
        " Container              cpu       100m  1       200m             1              4\n"
        " Container              memory    -     1Gi     1Gi              1Gi            -\n"
        " Pod                    memory    -     1536Mi  -                -              -\n"
        " PersistentVolumeClaim  storage   1Gi   5Gi     -                -              -\n")


@pytest.mark.parametrize("manifest,err", [
    (pod("small", "50m"), 'pods "small" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, '
                          "cpu max limit to request ratio per Container is 4, but provided ratio is 20.000000]"),
    ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: big}\nspec:\n  accessModes: [ReadWriteOnce]\n"
     "  resources: {requests: {storage: 10Gi}}\n",
     'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, '
     "but request is 10Gi"),
], ids=["a container below the min", "a claim above the max"])
def test_limit_range_refusals(kubesim, manifest, err):
    kubesim.apply(LIMIT_RANGE)
    before = snapshot(kubesim.state_dir)
    r = kubesim("apply -f -", stdin=manifest)
    assert (r.code, r.err) == (1, f'Error from server (Forbidden): error when creating "STDIN": {err}\n')
    assert snapshot(kubesim.state_dir) == before


def test_a_limit_range_defaults_a_pods_requests(kubesim):
    kubesim.apply("apiVersion: v1\nkind: LimitRange\nmetadata: {name: defaults}\nspec:\n  limits:\n"
                  "  - type: Container\n    default: {cpu: 500m, memory: 256Mi}\n    defaultRequest: {cpu: 250m}\n")
    kubesim.ok("run web --image=nginx")
    assert kubesim.ok("get pod web -o jsonpath={.spec.containers[0].resources}") == \
        '{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"250m","memory":"256Mi"}}'
    assert "    kubernetes.io/limit-ranger: 'LimitRanger plugin set: cpu, memory request for container\n" \
           "      web; cpu, memory limit for container web'\n" in kubesim.ok("get pod web -o yaml")


@pytest.mark.parametrize("manifest,err", [
    ("apiVersion: v1\nkind: LimitRange\nmetadata: {name: bad}\nspec:\n  limits:\n  - type: Container\n"
     "    min: {cpu: 200m}\n    max: {cpu: 100m}\n",
     'The LimitRange "bad" is invalid: \n'
     '* spec.limits[0].min[cpu]: Invalid value: "200m": min value 200m is greater than max value 100m\n'
     '* spec.limits[0].defaultRequest[cpu]: Invalid value: "100m": min value 200m is greater than default request '
     "value 100m\n"
     '* spec.limits[0].default[cpu]: Invalid value: "200m": min value 200m is greater than default value 100m\n'),
    ("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: bad}\nspec:\n  hard: {pods: 1.5}\n",
     'The ResourceQuota "bad" is invalid: spec.hard[pods]: Invalid value: "1500m": must be an integer\n'),
    ("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: bad}\nspec:\n  hard: {cpu: 1x}\n",
     None),
], ids=["a limit range with min above max", "a fractional pod count", "a malformed quantity"])
def test_bad_input_is_refused_and_changes_nothing(kubesim, manifest, err):
    kubesim.ok("get ns")
    before = snapshot(kubesim.state_dir)
    r = kubesim("apply -f -", stdin=manifest)
    assert r.code == 1 and "Traceback" not in r.err
    if err is not None:
        assert r.err == err
    assert snapshot(kubesim.state_dir) == before


def test_an_update_is_charged_what_it_adds(kubesim):
    """A Service patched to NodePort, and a pod patched to have a deadline, as the oracle refused them."""
    kubesim.ok("create ns q")
    kubesim.ok("create quota np -n q --hard=services.nodeports=1,services.loadbalancers=0")
    kubesim.ok("create service clusterip s1 --tcp=80:80,81:81 -n q")
    before = snapshot(kubesim.state_dir)
    r = kubesim(["patch", "svc", "s1", "-n", "q", "-p", '{"spec":{"type":"NodePort"}}'])
    assert (r.code, r.err) == (1, 'Error from server (Forbidden): services "s1" is forbidden: exceeded quota: np, '
                                  "requested: services.nodeports=2, used: services.nodeports=0, "
                                  "limited: services.nodeports=1\n")
    assert snapshot(kubesim.state_dir) == before
    kubesim.ok("run p --image=nginx -n q")
    kubesim.ok("create quota term -n q --hard=pods=0 --scopes=Terminating")
    r = kubesim(["patch", "pod", "p", "-n", "q", "-p", '{"spec":{"activeDeadlineSeconds":60}}'])
    assert (r.code, r.err) == (1, 'Error from server (Forbidden): pods "p" is forbidden: exceeded quota: term, '
                                  "requested: pods=1, used: pods=0, limited: pods=0\n")
