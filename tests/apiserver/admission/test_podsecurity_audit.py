"""PodSecurity's audit annotations (admission/admission.go EvaluatePod and response.go's shared
responses; the plugin prefixes each key with ``pod-security.kubernetes.io/``): the policy a pod
was enforced with, what the audit level would refuse, the namespace labels' parse error; none
when a request is not audited."""

from __future__ import annotations

import pytest

from kubesim.apiserver.admission import CREATE, UPDATE, Attributes
from kubesim.apiserver.admission.podsecurity import PodSecurity
from kubesim.errors import Forbidden

P = "pod-security.kubernetes.io/"


def ns(**labels) -> dict:
    return {"kind": "Namespace", "metadata": {"name": "ns", "labels": {P + k: v for k, v in labels.items()}}}


def pod(privileged: bool = False, image: str = "nginx") -> dict:
    sc = {"securityContext": {"privileged": True}} if privileged else {}
    return {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "image": image, **sc}]}}


def deployment() -> dict:
    return {"kind": "Deployment", "metadata": {"name": "d", "namespace": "ns"},
            "spec": {"template": {"metadata": {}, "spec": pod(privileged=True)["spec"]}}}


def run(obj, namespace, old=None, operation=CREATE):
    annotations: dict = {}
    warnings: list = []
    err = None
    a = Attributes(operation, obj, old, lambda kind: [namespace] if kind == "Namespace" else [],
                   warnings=warnings, audit_annotations=annotations)
    try:
        PodSecurity().validate(a)
    except Forbidden as e:
        err = e.message
    return annotations, warnings, err


BASELINE_PRIV = 'privileged (container "c" must not set securityContext.privileged=true)'


@pytest.mark.parametrize("obj, namespace, want_annotations, refused", [
    (pod(), ns(), {P + "enforce-policy": "privileged:latest"}, False),
    (pod(), ns(audit="baseline"), {P + "enforce-policy": "privileged:latest"}, False),
    (pod(privileged=True), ns(audit="baseline", **{"audit-version": "v1.30"}),
     {P + "enforce-policy": "privileged:latest",
      P + "audit-violations": f'would violate PodSecurity "baseline:v1.30": {BASELINE_PRIV}'}, False),
    (pod(privileged=True), ns(enforce="baseline", audit="baseline"),
     {P + "enforce-policy": "baseline:latest",
      P + "audit-violations": f'would violate PodSecurity "baseline:latest": {BASELINE_PRIV}'}, True),
    (pod(), ns(enforce="privileged", **{"enforce-version": "v1.x"}),
     {P + "enforce-policy": "privileged:latest",
      P + "error": 'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce-version]: '
                   'Invalid value: "v1.x": must be "latest" or "v1.x"'}, False),
    (deployment(), ns(audit="baseline"),
     {P + "audit-violations": f'would violate PodSecurity "baseline:latest": {BASELINE_PRIV}'}, False),
    (deployment(), ns(enforce="baseline"), {}, False),
], ids=["a fully privileged namespace: the shared privileged response",
        "a pod the audit level allows", "the audit level at its own version",
        "refused by enforce, and reported by audit too (one evaluation)",
        "labels that do not parse are not short-circuited: their error is annotated",
        "a controller: audit only, no enforce-policy",
        "a controller in an enforce-only namespace: nothing (the warning is enforce's)"])
def test_the_audit_annotations_of_a_request(obj, namespace, want_annotations, refused):
    annotations, _warnings, err = run(obj, namespace)
    assert annotations == want_annotations and (err is not None) == refused


def test_an_insignificant_pod_update_is_not_evaluated():
    old = pod(privileged=True)
    new = pod(privileged=True)
    new["metadata"]["labels"] = {"a": "b"}
    assert run(new, ns(audit="baseline", enforce="baseline"), old, UPDATE) == ({}, [], None)
    new["spec"]["containers"][0]["image"] = "nginx:2"
    annotations, _, err = run(new, ns(audit="baseline", enforce="baseline"), old, UPDATE)
    assert annotations[P + "enforce-policy"] == "baseline:latest" and err is not None


def test_an_unaudited_request_gets_no_annotations_and_the_same_answer():
    a = Attributes(CREATE, pod(), None, lambda kind: [ns(warn="restricted")], warnings=[])
    PodSecurity().validate(a)
    assert a.audit_annotations is None and len(a.warnings) == 1
