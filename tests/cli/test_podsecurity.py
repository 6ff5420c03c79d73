"""Pod Security admission as a user meets it through kubectl: a namespace labelled
``pod-security.kubernetes.io/enforce=restricted`` refuses a privileged pod, takes a compliant
one, warns about a Deployment's template, and a stricter label lists the pods already there.
Every text is what kubectl 1.36 printed against the v1.35 oracle
(conformance/scenarios/podsecurity.yaml repeats them, in a namespace "shop")."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import Harness

RESTRICTED_DETAIL = (
    'allowPrivilegeEscalation != false (container "{0}" must set securityContext.allowPrivilegeEscalation=false), '
    'unrestricted capabilities (container "{0}" must set securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "{0}" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "{0}" must set securityContext.seccompProfile.type to "RuntimeDefault" or '
    '"Localhost")')

COMPLIANT = """apiVersion: v1
kind: Pod
metadata: {name: ok, namespace: psa-t1}
spec:
  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
  containers:
  - {name: c, image: nginx, securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}}
"""

EVERYTHING_WRONG = """apiVersion: v1
kind: Pod
metadata: {name: x, namespace: psa-t1}
spec:
  hostNetwork: true
  hostPID: true
  securityContext: {runAsNonRoot: false, runAsUser: 0, seccompProfile: {type: Unconfined}}
  volumes: [{name: h, hostPath: {path: /tmp}}, {name: nf, nfs: {server: a, path: /b}}, {name: e, emptyDir: {}}]
  initContainers: [{name: i, image: busybox, securityContext: {privileged: true, capabilities: {add: [SYS_ADMIN, NET_BIND_SERVICE, CHOWN]}}}]
  containers:
  - {name: c, image: nginx, ports: [{containerPort: 8080, hostPort: 8080}, {containerPort: 80, hostPort: 80}], securityContext: {allowPrivilegeEscalation: true, runAsNonRoot: false, seccompProfile: {type: Unconfined}, capabilities: {drop: [ALL], add: [NET_RAW]}}}
  - {name: d, image: nginx, securityContext: {runAsUser: 0}}
"""


@pytest.fixture
def h(tmp_path):
    h = Harness(tmp_path / "state")
    assert h("create ns psa-t1").code == 0
    return h


def test_a_restricted_namespace_refuses_a_pod_takes_a_compliant_one_and_warns_about_a_deployment(h):
    assert h("run web --image=nginx -n psa-t1").code == 0
    r = h("label ns psa-t1 pod-security.kubernetes.io/enforce=restricted")
    assert (r.code, r.out, r.err) == (0, "namespace/psa-t1 labeled\n", (
        'Warning: existing pods in namespace "psa-t1" violate the new PodSecurity enforce level "restricted:latest"\n'
        "Warning: web: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, "
        "seccompProfile\n"))
    r = h("create deployment d --image=nginx -n psa-t1")
    assert (r.code, r.out, r.err) == (0, "deployment.apps/d created\n", (
        'Warning: would violate PodSecurity "restricted:latest": ' + RESTRICTED_DETAIL.format("nginx") + "\n"))
    r = h("run web2 --image=nginx -n psa-t1")
    assert (r.code, r.out, r.err) == (1, "", (
        'Error from server (Forbidden): pods "web2" is forbidden: violates PodSecurity "restricted:latest": '
        + RESTRICTED_DETAIL.format("web2") + "\n"))
    assert h("get pod web2 -n psa-t1").code == 1
    r = h("apply -f -", stdin=COMPLIANT)
    assert (r.code, r.out, r.err) == (0, "pod/ok created\n", "")
    r = h("apply -f -", stdin=EVERYTHING_WRONG)
    assert (r.code, r.out, r.err) == (1, "", (
        'Error from server (Forbidden): error when creating "STDIN": pods "x" is forbidden: violates PodSecurity '
        '"restricted:latest": host namespaces (hostNetwork=true, hostPID=true), hostPort (container "c" uses '
        'hostPorts 80, 8080), privileged (container "i" must not set securityContext.privileged=true), '
        'allowPrivilegeEscalation != false (containers "i", "c", "d" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "i", "d" must set '
        'securityContext.capabilities.drop=["ALL"]; containers "i", "c" must not include "CHOWN", "NET_RAW", '
        '"SYS_ADMIN" in securityContext.capabilities.add), restricted volume types (volumes "h", "nf" use '
        'restricted volume types "hostPath", "nfs"), runAsNonRoot != true (pod and container "c" must not set '
        'securityContext.runAsNonRoot=false), runAsUser=0 (pod and container "d" must not set runAsUser=0), '
        'seccompProfile (pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined")\n'))


def test_baseline_enforced_restricted_warned(h):
    r = h("label ns psa-t1 pod-security.kubernetes.io/enforce=baseline pod-security.kubernetes.io/warn=restricted")
    assert (r.code, r.out, r.err) == (0, "namespace/psa-t1 labeled\n", "")
    r = h("run p1 --image=nginx -n psa-t1 --privileged")
    assert (r.code, r.out, r.err) == (1, "", (
        'Error from server (Forbidden): pods "p1" is forbidden: violates PodSecurity "baseline:latest": privileged '
        '(container "p1" must not set securityContext.privileged=true)\n'))
    r = h("apply -f -", stdin=(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: yy, namespace: psa-t1}\nspec:\n"
        "  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n  containers:\n"
        "  - {name: c, image: nginx, securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}}\n"
        "  - {name: d, image: nginx, securityContext: {runAsUser: 0, capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}}}\n"))
    assert (r.code, r.out, r.err) == (0, "pod/yy created\n", (
        'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "d" '
        'must set securityContext.allowPrivilegeEscalation=false), runAsUser=0 (container "d" must not set '
        "runAsUser=0)\n"))
    r = h("apply -f -", stdin=(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj, namespace: psa-t1}\nspec:\n"
        "  schedule: '* * * * *'\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: "
        "[{name: c, image: busybox, securityContext: {privileged: true}}]}}}}\n"))
    assert (r.code, r.out, r.err) == (0, "cronjob.batch/cj created\n", (
        'Warning: would violate PodSecurity "restricted:latest": privileged (container "c" must not set '
        'securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set '
        'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set '
        'securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\n'))
    r = h("label ns psa-t1 pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=v1.30 --overwrite")
    assert (r.code, r.out, r.err) == (0, "namespace/psa-t1 labeled\n", (
        'Warning: existing pods in namespace "psa-t1" violate the new PodSecurity enforce level "restricted:v1.30"\n'
        "Warning: yy: allowPrivilegeEscalation != false, runAsUser=0\n"))


BAD_LABELS = [
    ("two bad labels on update", "label ns psa-t1 pod-security.kubernetes.io/enforce=bogus "
     "pod-security.kubernetes.io/warn-version=1.2", "",
     'The Namespace "psa-t1" is invalid: \n'
     "* metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"bogus\": must be one of privileged, "
     "baseline, restricted\n"
     "* metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"1.2\": must be \"latest\" or "
     "\"v1.x\"\n"),
    ("a bad level on create", "apply -f -",
     "apiVersion: v1\nkind: Namespace\nmetadata: {name: psa-t3, labels: {pod-security.kubernetes.io/audit: x}}\n",
     'The Namespace "psa-t3" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "x": '
     "must be one of privileged, baseline, restricted\n"),
]


@pytest.mark.parametrize("cmd,stdin,err", [b[1:] for b in BAD_LABELS], ids=[b[0] for b in BAD_LABELS])
def test_bad_pod_security_labels_are_refused_and_nothing_changes(h, cmd, stdin, err):
    r = h(cmd, stdin=stdin)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert h("get ns psa-t3").code == 1
    assert h("get ns psa-t1 --show-labels --no-headers").out.split()[-1] == "kubernetes.io/metadata.name=psa-t1"
