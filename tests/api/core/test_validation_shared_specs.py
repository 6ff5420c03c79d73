"""Pods that repeat a PodSpec (a file of 1,000 pods, a template's replicas) share its
validation: each case validates a first pod, then a second, and the second's errors must be
exactly what validating it alone gives (``validate_pod_spec`` without the shared verdicts)."""

from __future__ import annotations

import copy

import pytest

from kubesim.api.core import validation as v
from kubesim.api.core.podspec_validation import validate_pod_spec


def token_volume(name: str) -> dict:
    return {"name": name, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}


def pod(name: str = "p", token: str | None = "kube-api-access-8ptjg", **spec) -> dict:
    """A defaulted, admitted pod whose container mounts the ServiceAccount plugin's volume."""
    c = {"name": "c", "image": "nginx", "imagePullPolicy": "Always", "terminationMessagePolicy": "File",
         "terminationMessagePath": "/dev/termination-log", "resources": {}}
    s = {"containers": [c], "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
         "terminationGracePeriodSeconds": 30, "securityContext": {}, "schedulerName": "default-scheduler",
         "serviceAccountName": "default"}
    if token is not None:
        c["volumeMounts"] = [{"name": token, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                              "readOnly": True}]
        s["volumes"] = [token_volume(token)]
    s.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": s}


def mounting(p: dict, name: str) -> dict:
    """``p`` whose container mounts ``name`` instead of its token volume."""
    p = copy.deepcopy(p)
    p["spec"]["containers"][0]["volumeMounts"][0]["name"] = name
    return p


def alone(p: dict) -> list[str]:
    return [str(e) for e in validate_pod_spec(p["spec"], p["metadata"], "spec")]


CASES = [
    pytest.param(pod("a"), pod("b", "kube-api-access-x2x7q"), id="the same spec with another token volume is valid"),
    pytest.param(pod("a"), pod("b", None), id="a spec without a token volume is its own"),
    pytest.param(pod("a"), mounting(pod("b", "kube-api-access-x2x7q"), "kube-api-access-8ptjg"),
                 id="a second pod mounting the first one's token volume name is still refused"),
    pytest.param(pod("a"), pod("b", "kube-api-access-X2X7Q"),
                 id="a volume name no generated name can be is validated, not shared"),
    pytest.param(pod("a", "kube-api-access-_____"), pod("b", "kube-api-access-_____"),
                 id="a spec holding the placeholder itself is never shared"),
    pytest.param(pod("a", restartPolicy="Sometimes"), pod("b", "kube-api-access-x2x7q", restartPolicy="Sometimes"),
                 id="an invalid spec is validated again for its errors"),
    pytest.param(pod("a"), pod("b", "kube-api-access-x2x7q", terminationGracePeriodSeconds=None),
                 id="a spec that differs elsewhere is validated"),
]


@pytest.mark.parametrize("first, second", CASES)
def test_a_shared_spec_gets_the_verdict_validating_it_alone_gives(first, second):
    v._VALID_SPECS.clear()
    assert [str(e) for e in v._validate_pod_spec_shared(first["spec"], first["metadata"])] == alone(first)
    assert [str(e) for e in v._validate_pod_spec_shared(second["spec"], second["metadata"])] == alone(second)


def test_two_token_volumes_are_not_shared():
    p = pod("a")
    p["spec"]["volumes"].append(token_volume("kube-api-access-x2x7q"))
    assert v._spec_key(p["spec"]) is None


def test_the_pods_of_one_spec_are_validated_once():
    v._VALID_SPECS.clear()
    for i, token in enumerate(("kube-api-access-8ptjg", "kube-api-access-x2x7q", "kube-api-access-bbbbb")):
        p = pod(f"p{i}", token)
        assert v.validate_pod_create(p) == []
    assert len(v._VALID_SPECS) == 1
