"""PodSecurity (staging/src/k8s.io/pod-security-admission): the checks, named and tabled as
policy/check_*_test.go has them (the same pods, reasons and details), the order in which a
level runs them (registry.go), the namespace labels read as api/helpers_test.go's
TestPolicyToEvaluate reads them, and the plugin's enforce/warn/namespace behaviour
(admission/admission_test.go), with the texts the v1.35 oracle printed."""

from __future__ import annotations

import pytest

from kubesim.apiserver.admission import CREATE, UPDATE, Attributes
from kubesim.apiserver.admission import podsecuritypolicy as psp
from kubesim.apiserver.admission.podsecurity import PodSecurity, policy_to_evaluate
from kubesim.errors import Forbidden


def c(name: str, **sc) -> dict:
    return {"name": name, "image": "nginx", **({"securityContext": sc} if sc else {})}


# (test name as upstream, check, pod spec, (reason, detail) or None for allowed)
CHECKS = [
    # check_runAsNonRoot_test.go
    ("no explicit runAsNonRoot", psp.run_as_non_root, {"containers": [c("a")]},
     ("runAsNonRoot != true", 'pod or container "a" must set securityContext.runAsNonRoot=true')),
    ("pod runAsNonRoot=false", psp.run_as_non_root,
     {"securityContext": {"runAsNonRoot": False}, "containers": [c("a", runAsNonRoot=True)]},
     ("runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false")),
    ("containers runAsNonRoot=false", psp.run_as_non_root,
     {"securityContext": {"runAsNonRoot": True},
      "containers": [c("a"), c("b", runAsNonRoot=True), c("c", runAsNonRoot=False), c("d", runAsNonRoot=False)]},
     ("runAsNonRoot != true", 'containers "c", "d" must not set securityContext.runAsNonRoot=false')),
    ("pod nil, container fallthrough", psp.run_as_non_root, {"containers": [c("a"), c("b")]},
     ("runAsNonRoot != true", 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true')),
    ("host users false allowed", psp.run_as_non_root, {"hostUsers": False, "containers": [c("a")]}, None),
    # check_runAsUser_test.go
    ("pod runAsUser=0", psp.run_as_user, {"securityContext": {"runAsUser": 0}, "containers": [c("a", runAsUser=1)]},
     ("runAsUser=0", "pod must not set runAsUser=0")),
    ("pod and containers runAsUser=0", psp.run_as_user,
     {"securityContext": {"runAsUser": 0}, "containers": [c("a", runAsUser=0), c("b", runAsUser=0), c("c")]},
     ("runAsUser=0", 'pod and containers "a", "b" must not set runAsUser=0')),
    ("pod runAsUser=non-zero", psp.run_as_user, {"securityContext": {"runAsUser": 1000}, "containers": [c("a")]},
     None),
    ("UserNamespacesPodSecurityStandards enabled with hostUsers=false", psp.run_as_user,
     {"hostUsers": False, "securityContext": {"runAsUser": 0}, "containers": [c("a")]}, None),
    # check_allowPrivilegeEscalation_test.go
    ("multiple containers", psp.allow_privilege_escalation,
     {"containers": [c("a"), c("b", allowPrivilegeEscalation=None), c("c", allowPrivilegeEscalation=True),
                     c("d", allowPrivilegeEscalation=False)]},
     ("allowPrivilegeEscalation != false",
      'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false')),
    ("windows pod", psp.allow_privilege_escalation, {"os": {"name": "windows"}, "containers": [c("a")]}, None),
    # check_capabilities_restricted_test.go
    ("multiple containers (restricted)", psp.capabilities_restricted,
     {"containers": [c("a"), c("b", capabilities={"add": ["BAR", "BAZ"], "drop": ["ALL"]}),
                     c("c", capabilities={"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}),
                     c("d", capabilities={"drop": ["FOO"]}), c("e", capabilities={"add": ["NET_BIND_SERVICE"]})]},
     ("unrestricted capabilities",
      'containers "a", "d", "e" must set securityContext.capabilities.drop=["ALL"]; '
      'containers "b", "c" must not include "BAR", "BAZ", "CHOWN" in securityContext.capabilities.add')),
    # check_capabilities_baseline_test.go
    ("multiple containers (baseline)", psp.capabilities_baseline,
     {"containers": [c("a", capabilities={"add": ["FOO", "BAR"]}), c("b", capabilities={"add": ["BAR", "BAZ"]}),
                     c("c", capabilities={"add": ["CHOWN", "KILL"]})]},
     ("non-default capabilities",
      'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add')),
    # check_hostNamespaces_test.go
    ("host namespaces", psp.host_namespaces, {"hostNetwork": True, "hostPID": True, "hostIPC": True,
                                              "containers": [c("a")]},
     ("host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true")),
    # check_hostPorts_test.go
    ("one container, one host port", psp.host_ports,
     {"containers": [{"name": "a", "ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 1}]}]},
     ("hostPort", 'container "a" uses hostPort 1')),
    ("multiple containers, multiple host ports", psp.host_ports,
     {"containers": [{"name": "a", "ports": [{"hostPort": 10}, {"hostPort": 20}]},
                     {"name": "b", "ports": [{"hostPort": 20}, {"hostPort": 30}]}]},
     ("hostPort", 'containers "a", "b" use hostPorts 10, 20, 30')),
    # check_privileged_test.go
    ("privileged", psp.privileged,
     {"containers": [c("a"), c("b", privileged=False), c("c", privileged=True), c("d", privileged=True)]},
     ("privileged", 'containers "c", "d" must not set securityContext.privileged=true')),
    # check_hostPathVolumes_test.go
    ("host path volumes", psp.host_path_volumes,
     {"volumes": [{"name": "a", "hostPath": {}}, {"name": "b", "hostPath": {}}, {"name": "c", "emptyDir": {}}]},
     ("hostPath volumes", 'volumes "a", "b"')),
    # check_restrictedVolumes_test.go
    ("restricted volume types", psp.restricted_volumes,
     {"volumes": [{"name": "a", "hostPath": {}}, {"name": "b", "nfs": {}}, {"name": "c", "configMap": {}},
                  {"name": "d", "gitRepo": {}}, {"name": "e", "image": {}}, {"name": "f", "storageos": {}}]},
     ("restricted volume types",
      'volumes "a", "b", "d", "f" use restricted volume types "gitRepo", "hostPath", "nfs", "storageos"')),
    ("one volume", psp.restricted_volumes, {"volumes": [{"name": "a", "hostPath": {}}]},
     ("restricted volume types", 'volume "a" uses restricted volume type "hostPath"')),
    # check_seccompProfile_restricted_test.go
    ("no explicit seccomp", psp.seccomp_profile_restricted, {"containers": [c("a")]},
     ("seccompProfile",
      'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')),
    ("pod Unconfined, container Localhost", psp.seccomp_profile_restricted,
     {"securityContext": {"seccompProfile": {"type": "Unconfined"}},
      "containers": [c("a", seccompProfile={"type": "Localhost"}), c("b", seccompProfile={"type": "Unconfined"})]},
     ("seccompProfile", 'pod and container "b" must not set securityContext.seccompProfile.type to "Unconfined"')),
    ("pod RuntimeDefault", psp.seccomp_profile_restricted,
     {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}, "containers": [c("a")]}, None),
    # check_seccompProfile_baseline_test.go
    ("container Unconfined", psp.seccomp_profile_baseline,
     {"containers": [c("a", seccompProfile={"type": "Unconfined"}), c("b", seccompProfile={"type": "Unconfined"})]},
     ("seccompProfile", 'containers "a", "b" must not set securityContext.seccompProfile.type to "Unconfined"')),
]


@pytest.mark.parametrize("check,spec,want", [t[1:] for t in CHECKS], ids=[t[0] for t in CHECKS])
def test_each_check_as_upstreams_table(check, spec, want):
    assert check({}, spec) == want


RESTRICTED_OK = {
    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "containers": [c("c", allowPrivilegeEscalation=False, capabilities={"drop": ["ALL"]})],
}


def test_levels_run_their_checks_in_the_registrys_order_and_restricted_overrides_baseline():
    spec = {"hostNetwork": True, "volumes": [{"name": "h", "hostPath": {}}],
            "containers": [c("c", privileged=True, capabilities={"add": ["SYS_ADMIN"]})]}
    assert [r for r, _ in psp.evaluate("baseline", {}, spec)] == [
        "non-default capabilities", "host namespaces", "hostPath volumes", "privileged"]
    assert [r for r, _ in psp.evaluate("restricted", {}, spec)] == [
        "host namespaces", "privileged", "allowPrivilegeEscalation != false", "unrestricted capabilities",
        "restricted volume types", "runAsNonRoot != true", "seccompProfile"]
    assert psp.evaluate("privileged", {}, spec) == []
    assert psp.evaluate("restricted", {}, RESTRICTED_OK) == []


POLICIES = [
    ("no labels", {}, ("privileged", "latest"), ("privileged", "latest")),
    ("enforce sets warn", {"pod-security.kubernetes.io/enforce": "baseline",
                           "pod-security.kubernetes.io/enforce-version": "v1.30"},
     ("baseline", "v1.30"), ("baseline", "v1.30")),
    ("explicit warn kept", {"pod-security.kubernetes.io/enforce": "restricted",
                            "pod-security.kubernetes.io/warn": "baseline"},
     ("restricted", "latest"), ("baseline", "latest")),
    ("warn version kept", {"pod-security.kubernetes.io/enforce": "restricted",
                           "pod-security.kubernetes.io/warn-version": "v1.29"},
     ("restricted", "latest"), ("restricted", "v1.29")),
    ("bad enforce fails closed, warn not defaulted", {"pod-security.kubernetes.io/enforce": "bogus"},
     ("restricted", "latest"), ("privileged", "latest")),
    ("bad warn fails open", {"pod-security.kubernetes.io/warn": "bogus"},
     ("privileged", "latest"), ("privileged", "latest")),
    ("bad version is latest", {"pod-security.kubernetes.io/enforce": "baseline",
                               "pod-security.kubernetes.io/enforce-version": "1.30"},
     ("baseline", "latest"), ("baseline", "latest")),
]


@pytest.mark.parametrize("labels,enforce,warn", [p[1:] for p in POLICIES], ids=[p[0] for p in POLICIES])
def test_policy_to_evaluate(labels, enforce, warn):
    p = policy_to_evaluate(labels)
    assert (p["enforce"], p["warn"]) == (enforce, warn)


def lister_of(ns_labels: dict, pods=()):
    def lister(kind: str):
        if kind == "Namespace":
            return [{"kind": "Namespace", "metadata": {"name": "ns", "labels": ns_labels}}]
        return list(pods) if kind == "Pod" else []
    return lister


def pod(name: str, spec: dict) -> dict:
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


RESTRICTED = {"pod-security.kubernetes.io/enforce": "restricted"}
BAD = {"containers": [c("c", privileged=True, allowPrivilegeEscalation=False, capabilities={"drop": ["ALL"]})],
       "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}}


def test_enforce_refuses_a_pod_with_the_servers_text():
    with pytest.raises(Forbidden) as e:
        PodSecurity().validate(Attributes(CREATE, pod("x", BAD), lister=lister_of(RESTRICTED), warnings=[]))
    assert e.value.message == ('pods "x" is forbidden: violates PodSecurity "restricted:latest": privileged '
                               '(container "c" must not set securityContext.privileged=true)')


@pytest.mark.parametrize("labels,obj,warnings", [
    ({"pod-security.kubernetes.io/warn": "baseline"}, pod("x", BAD),
     ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set '
      'securityContext.privileged=true)']),
    (RESTRICTED, pod("x", RESTRICTED_OK), []),
    (RESTRICTED, {"kind": "Deployment", "metadata": {"name": "d", "namespace": "ns"},
                  "spec": {"template": {"spec": BAD}}},
     ['would violate PodSecurity "restricted:latest": privileged (container "c" must not set '
      'securityContext.privileged=true)']),
    (RESTRICTED, {"kind": "CronJob", "metadata": {"name": "cj", "namespace": "ns"},
                  "spec": {"jobTemplate": {"spec": {"template": {"spec": BAD}}}}},
     ['would violate PodSecurity "restricted:latest": privileged (container "c" must not set '
      'securityContext.privileged=true)']),
    ({"pod-security.kubernetes.io/enforce": "privileged"}, pod("x", BAD), []),
    (RESTRICTED, {"kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "ns"}}, []),
], ids=["warn-only pod", "compliant pod", "deployment warned, not refused", "cronjob template", "privileged",
        "other kinds"])
def test_warnings(labels, obj, warnings):
    got: list[str] = []
    PodSecurity().validate(Attributes(CREATE, obj, lister=lister_of(labels), warnings=got))
    assert got == warnings


def test_a_pod_update_is_checked_only_when_an_image_or_the_containers_change():
    old = pod("x", BAD)
    new = pod("x", BAD)
    new["metadata"]["labels"] = {"a": "b"}
    PodSecurity().validate(Attributes(UPDATE, new, old, lister=lister_of(RESTRICTED), warnings=[]))
    new["spec"] = {**BAD, "containers": [{**BAD["containers"][0], "image": "nginx:2"}]}
    with pytest.raises(Forbidden):
        PodSecurity().validate(Attributes(UPDATE, new, old, lister=lister_of(RESTRICTED), warnings=[]))


def ns(labels: dict) -> dict:
    return {"kind": "Namespace", "metadata": {"name": "ns", "labels": labels}}


NS_CASES = [
    ("stricter enforce lists the failing pods", {}, RESTRICTED,
     ['existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"',
      "a (and 2 other pods): privileged",
      "b: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"]),
    ("unchanged enforce", RESTRICTED, RESTRICTED, []),
    ("relaxed enforce", RESTRICTED, {"pod-security.kubernetes.io/enforce": "baseline"}, []),
    ("privileged enforce", {}, {"pod-security.kubernetes.io/enforce": "privileged"}, []),
    ("version change re-checks", RESTRICTED, {**RESTRICTED, "pod-security.kubernetes.io/enforce-version": "v1.30"},
     ['existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:v1.30"',
      "a (and 2 other pods): privileged",
      "b: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"]),
]


@pytest.mark.parametrize("old,new,warnings", [t[1:] for t in NS_CASES], ids=[t[0] for t in NS_CASES])
def test_a_namespace_label_update_dry_runs_the_new_enforce_level(old, new, warnings):
    pods = [pod("c", BAD), pod("a", BAD), pod("b", {"containers": [c("x")]}), pod("e", BAD),
            pod("ok", RESTRICTED_OK)]
    got: list[str] = []
    PodSecurity().validate(Attributes(UPDATE, ns(new), ns(old), lister=lister_of(old, pods), warnings=got))
    assert got == warnings
