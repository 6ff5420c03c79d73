"""apps/v1 defaulting and validation (kubesim.api.apps), and the overlap with kubectl's generator."""

import copy
import json
import os
import shutil
import subprocess

import pytest

from kubesim.api import apps
from kubesim.errors import Invalid


def deploy(**spec):
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}}}
    d["spec"].update(spec)
    return d


# What a v1.35 API server stores for `kubectl create deployment web --image=nginx --replicas=2`
# (as `kubectl get deployment web -o yaml` shows its spec).
SERVER_SPEC = {
    "progressDeadlineSeconds": 600, "replicas": 2, "revisionHistoryLimit": 10,
    "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
    "template": {"metadata": {"creationTimestamp": None, "labels": {"app": "web"}},
                 "spec": {"containers": [{"image": "nginx", "imagePullPolicy": "Always", "name": "nginx",
                                          "resources": {}, "terminationMessagePath": "/dev/termination-log",
                                          "terminationMessagePolicy": "File"}],
                          "dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
                          "schedulerName": "default-scheduler", "securityContext": {},
                          "terminationGracePeriodSeconds": 30}}}


def test_deployment_defaults_as_the_api_server_stores_them():
    d = deploy()
    apps.default_deployment(d)
    assert d["spec"] == SERVER_SPEC
    assert d["status"] == {} and d["metadata"]["generation"] == 1


def _kubectl():
    for c in (shutil.which("kubectl"), "/tmp/venv/bin/kubectl"):
        if c and os.path.exists(c):
            return c
    return None


@pytest.mark.skipif(_kubectl() is None, reason="the real kubectl is not installed")
def test_kubectl_generator_output_defaults_to_what_the_server_stores():
    out = subprocess.run([_kubectl(), "create", "deployment", "web", "--image=nginx", "--replicas=2",
                          "--dry-run=client", "-o", "json"], capture_output=True, text=True, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "KUBECONFIG": "/dev/null"})
    generated = json.loads(out.stdout)
    client = copy.deepcopy(generated)
    apps.default_deployment(generated)
    assert generated["spec"] == SERVER_SPEC
    # everything kubectl sent survives defaulting unchanged (the overlap is the user's intent)
    for key in ("replicas", "selector"):
        assert generated["spec"][key] == client["spec"][key]
    assert generated["spec"]["template"]["metadata"]["labels"] == client["spec"]["template"]["metadata"]["labels"]
    generated["metadata"]["namespace"] = "default"  # the request's namespace, as the server fills it
    assert apps.validate_deployment(generated) == []


def test_replicaset_and_daemonset_defaults():
    rs = deploy()
    rs["kind"] = "ReplicaSet"
    del rs["spec"]["replicas"]
    apps.default_replicaset(rs)
    assert rs["spec"]["replicas"] == 1 and rs["status"] == {"replicas": 0}
    ds = deploy()
    ds["kind"] = "DaemonSet"
    del ds["spec"]["replicas"]
    apps.default_daemonset(ds)
    assert ds["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert ds["spec"]["revisionHistoryLimit"] == 10
    assert ds["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    assert ds["status"] == {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                            "numberReady": 0}


def test_template_defaulting_is_not_pod_admission():
    d = deploy()
    d["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "0.5"}}
    apps.default_deployment(d)
    spec = d["spec"]["template"]["spec"]
    assert "serviceAccountName" not in spec and "tolerations" not in spec and "enableServiceLinks" not in spec
    assert spec["containers"][0]["resources"] == {"limits": {"cpu": "500m"}}


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["spec"].update(replicas=-1),
     "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    (lambda d: d["spec"]["selector"].update(matchLabels={"app": "other"}),
     'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`'),
    (lambda d: d["spec"].pop("selector"), "spec.selector: Required value"),
    (lambda d: d["spec"].update(selector={}),
     "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
     "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"),
    (lambda d: d["spec"]["strategy"]["rollingUpdate"].update(maxSurge=0, maxUnavailable=0),
     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"),
    (lambda d: d["spec"]["strategy"]["rollingUpdate"].update(maxUnavailable="110%"),
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%'),
    (lambda d: d["spec"]["strategy"]["rollingUpdate"].update(maxSurge="x"),
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"x\": must be an integer or percentage (e.g '5%')"),
    (lambda d: d["spec"]["template"]["spec"].update(restartPolicy="Never"),
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    (lambda d: d["spec"].update(progressDeadlineSeconds=5, minReadySeconds=10),
     "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds"),
], ids=["negative replicas", "a selector that does not match the template labels", "no selector",
        "an empty selector", "maxSurge and maxUnavailable both zero", "maxUnavailable over 100%",
        "a maxSurge that is neither integer nor percentage", "a restart policy other than Always",
        "a progress deadline not above minReadySeconds"])
def test_deployment_validation_messages(mutate, message):
    d = deploy()
    apps.default_deployment(d)
    mutate(d)
    errs = apps.validate_deployment(d)
    assert message in [str(e) for e in errs]


def test_the_selector_is_immutable_on_update():
    old = deploy()
    apps.default_deployment(old)
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"app": "web2"}}
    new["spec"]["template"]["metadata"]["labels"] = {"app": "web2"}
    err = Invalid("Deployment", "web", apps.validate_deployment(new, old))
    assert str(err) == ('The Deployment "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:'
                        'map[string]string{"app":"web2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: '
                        'field is immutable')


def test_the_invalid_deployment_reads_as_kubectl_prints_it():
    d = deploy(replicas=-1)
    apps.default_deployment(d)
    d["spec"]["selector"]["matchLabels"] = {"app": "x"}
    assert str(Invalid("Deployment", "web", apps.validate_deployment(d))) == (
        'The Deployment "web" is invalid: \n'
        "* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
        '* spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
        "`selector` does not match template `labels`")


def test_an_update_bumps_generation_only_when_the_spec_changes():
    old = deploy()
    apps.default_deployment(old)
    old["status"] = {"replicas": 2}
    same = copy.deepcopy(old)
    apps.default_update(same, old)
    assert same["metadata"]["generation"] == 1 and same["status"] == {"replicas": 2}
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 5
    apps.default_update(scaled, old)
    assert scaled["metadata"]["generation"] == 2


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["spec"]["updateStrategy"]["rollingUpdate"].update(maxSurge=1),
     "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"),
    (lambda d: d["spec"]["updateStrategy"]["rollingUpdate"].update(maxUnavailable=0),
     "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"),
    (lambda d: d["spec"]["selector"].update(matchLabels={"app": "x"}),
     'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`'),
], ids=["surge and unavailable both set", "both zero", "selector mismatch"])
def test_daemonset_validation_messages(mutate, message):
    ds = deploy()
    ds["kind"] = "DaemonSet"
    del ds["spec"]["replicas"]
    apps.default_daemonset(ds)
    mutate(ds)
    assert message in [str(e) for e in apps.validate_daemonset(ds)]
