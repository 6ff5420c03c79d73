"""`create poddisruptionbudget|pdb` and `create priorityclass|pc` byte for byte against the real
kubectl (staging/src/k8s.io/kubectl/pkg/cmd/create/create_pdb.go, create_priorityclass.go), the
objects they create through the API server path, the system PriorityClasses every cluster has,
and the server's refusals (exit 1, state unchanged)."""

from __future__ import annotations

import shlex

import pytest

from kubesim.testing.cli import Harness, snapshot
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

SAME = [
    "create pdb my-pdb --selector=app=rails --min-available=1 --dry-run=client -o yaml",
    "create pdb my-pdb --selector=app=rails --min-available=1 --dry-run=client -o json",
    "create poddisruptionbudget my-pdb --selector=app=nginx --min-available=50% --dry-run=client -o yaml",
    "create pdb my-pdb --selector=app=rails --max-unavailable=50% --dry-run=client -o json -n foo",
    "create pdb my-pdb '--selector=app=rails,tier in (b,a),env,!debug,x==y' --min-available=1 --dry-run=client -o yaml",
    "create pdb my-pdb '--selector=app=rails,tier in (b,a),env,!debug,x==y' --min-available=1 --dry-run=client -o json",
    "create pdb my-pdb '--selector=a notin (x)' --max-unavailable=0 --dry-run=client -o yaml",
    "create pdb x --selector=' ' --min-available=007 --dry-run=client -o yaml",
    "create pdb x --selector=a=b --max-unavailable=99999999999 --dry-run=client -o yaml",
    "create pdb x --selector=a=b --max-unavailable=1 --dry-run=client",
    "create pdb x --selector=a=b --max-unavailable=1 --dry-run=client -o name",
    # refused by the client
    "create pdb my-pdb --selector=app=rails,tier!=x --min-available=1 --dry-run=client -o yaml",
    "create pdb x '--selector=a in (b' --max-unavailable=1 --dry-run=client",
    "create pdb x --selector=a=b --min-available=1Gb --dry-run=client",
    "create pdb x --selector=a=b --max-unavailable=x --dry-run=client",
    "create pdb --selector=a=b --max-unavailable=1 --dry-run=client",
    "create pdb x y --selector=a=b --min-available=1 --dry-run=client",
    "create pdb '' --selector=a=b --min-available=1 --dry-run=client",
    "create pdb x --min-available=1 --dry-run=client",
    "create pdb x --selector=a=b --dry-run=client",
    "create pdb x --selector=a=b --min-available=1 --max-unavailable=1 --dry-run=client",
    "create pdb x --selector=a=b --min-available=1 --image=nginx --dry-run=client",
    "create pdb x --selector=a=b --min-available=1 --dry-run=client -o wide",
    "create pc high --value=1000 --selector=a=b --dry-run=client",
]


@needs_kubectl
@pytest.mark.parametrize("line", SAME)
def test_prints_what_kubectl_prints(kubectl, tmp_path, line):  # noqa: F811
    argv = shlex.split(line)
    want = kubectl(argv)
    got = Harness(tmp_path / "state")(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


def test_create_pdb_stores_the_budget(kubesim):
    assert kubesim.ok("create pdb web --selector=app=web --min-available=50%") == \
        "poddisruptionbudget.policy/web created\n"
    assert kubesim.ok("get pdb web -o jsonpath={.spec.minAvailable}/{.spec.selector.matchLabels.app}/"
                      "{.metadata.generation}") == "50%/web/1"
    out = kubesim.ok("get pdb")
    assert out.splitlines()[0].split() == ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED",
                                           "DISRUPTIONS", "AGE"]
    assert out.splitlines()[1].split()[:3] == ["web", "50%", "N/A"]


def test_create_priorityclass_and_get_pc(kubesim):
    assert kubesim.ok("create pc high --value=1000 --description=high --preemption-policy=Never") == \
        "priorityclass.scheduling.k8s.io/high created\n"
    assert kubesim.ok("get pc") == (
        "NAME                      VALUE        GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY\n"
        "high                      1000         false            0s    Never\n"
        "system-cluster-critical   2000000000   false            0s    PreemptLowerPriority\n"
        "system-node-critical      2000001000   false            0s    PreemptLowerPriority\n")


@pytest.mark.parametrize("init", ["", "cluster init --empty", "cluster init --nodes 1 --zones 2"],
                         ids=["the default cluster", "an empty cluster", "another shape"])
def test_every_cluster_has_the_system_priority_classes(kubesim, init):
    if init:
        kubesim.ok(init)
    assert kubesim.ok("get pc -o name") == ("priorityclass.scheduling.k8s.io/system-cluster-critical\n"
                                            "priorityclass.scheduling.k8s.io/system-node-critical\n")
    assert kubesim.ok("get pc system-node-critical -o jsonpath={.description}") == \
        "Used for system critical pods that must not be moved from their current node."


@pytest.mark.parametrize("setup, line, err", [
    ("", "create pc huge --value=2000000000",
     'error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: '
     "maximum allowed value of a user defined priority is 1000000000"),
    ("", "create pc system-mine --value=5",
     'error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "system-mine" is invalid: '
     "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
     "error: system-mine is not a known system priority class"),
    ("", "create pc high --value=1 --preemption-policy=Sometimes",
     'error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "high" is invalid: preemptionPolicy: '
     'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'),
    ("create pc first --value=1 --global-default", "create pc second --value=2 --global-default",
     'error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "second" is forbidden: '
     "PriorityClass first is already marked as default. Only one default can exist"),
    ("create pc high --value=1", "create pc high --value=1",
     'error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "high" already exists'),
    ("", "create pdb web --selector=app=web --min-available=101%",
     'error: failed to create poddisruptionbudgets: PodDisruptionBudget.policy "web" is invalid: '
     'spec.minAvailable: Invalid value: "101%": must not be greater than 100%'),
    ("", "create pdb web --selector=app=web --min-available=1 -n nowhere",
     'error: failed to create poddisruptionbudgets: namespaces "nowhere" not found'),
    ("", "delete pc system-node-critical",
     'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: '
     "this is a system priority class and cannot be deleted"),
], ids=["a user class above one billion", "a system- name", "an unknown preemption policy",
        "a second global default", "an existing class", "a budget above 100%", "a budget in a missing namespace",
        "deleting a system class"])
def test_the_server_refuses(kubesim, setup, line, err):
    if setup:
        kubesim.ok(setup)
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(line)
    assert (r.code, r.out, r.err) == (1, "", err + "\n")
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("manifest, expected", [
    ("", ("", 0)),
    ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: normal}\nvalue: 100\nglobalDefault: true\n",
     ("normal", 100)),
], ids=["without a global default a pod gets priority 0", "the global default class applies to a new pod"])
def test_pods_get_the_stored_global_default(kubesim, tmp_path, manifest, expected):
    if manifest:
        (tmp_path / "pc.yaml").write_text(manifest)
        kubesim.ok(f"apply -f {tmp_path / 'pc.yaml'}")
    kubesim.ok("run p --image=nginx")
    out = kubesim.ok("get pod p -o jsonpath={.spec.priorityClassName}/{.spec.priority}")
    assert out == f"{expected[0]}/{expected[1]}"


def test_a_pod_naming_a_stored_class_gets_its_value_and_an_unknown_one_is_refused(kubesim, tmp_path):
    kubesim.ok("create pc high --value=1000 --preemption-policy=Never")
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  priorityClassName: %s\n"
           "  containers: [{name: c, image: nginx}]\n")
    (tmp_path / "a.yaml").write_text(pod % ("a", "high"))
    (tmp_path / "b.yaml").write_text(pod % ("b", "missing"))
    kubesim.ok(f"apply -f {tmp_path / 'a.yaml'}")
    assert kubesim.ok("get pod a -o jsonpath={.spec.priority}/{.spec.preemptionPolicy}") == "1000/Never"
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {tmp_path / 'b.yaml'}")
    assert r.code == 1 and 'pods "b" is forbidden: no PriorityClass with name missing was found' in r.err
    assert snapshot(kubesim.state_dir) == before
