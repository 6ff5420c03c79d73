"""Each Pod Security check at the versions its ``Versions`` list names
(staging/src/k8s.io/pod-security-admission/policy/check_*.go, registry.go): the variant of the
newest MinimumVersion not above the policy's version runs, nothing before the first, and a
version newer than v1.35 reads as latest. The CLI cases are what the v1.35 oracle answered
(conformance/scenarios/podsecurity-restricted-versions.yaml repeats them)."""

from __future__ import annotations

import pytest

from kubesim.apiserver.admission import podsecuritypolicy as psp
from kubesim.testing.cli import Harness


def c(name: str = "c", **sc) -> dict:
    return {"name": name, "image": "nginx", **({"securityContext": sc} if sc else {})}


def run(check_id: str, spec: dict, version: str, meta: dict | None = None):
    v = psp.parse_version(version)
    for cid, _level, versions in psp.CHECKS:
        if cid == check_id:
            fitting = [fn for minimum, fn, _ in versions if minimum <= v]
            return fitting[-1](meta or {}, spec) if fitting else "absent"
    raise KeyError(check_id)


WINDOWS = {"os": {"name": "windows"}, "containers": [c()]}
USERNS_ROOT = {"hostUsers": False, "securityContext": {"runAsUser": 0}, "containers": [c()]}
APE = ("allowPrivilegeEscalation != false", 'container "c" must set securityContext.allowPrivilegeEscalation=false')
CAPS = ("unrestricted capabilities", 'container "c" must set securityContext.capabilities.drop=["ALL"]')
SECCOMP = ("seccompProfile",
           'pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')
NON_ROOT = ("runAsNonRoot != true", 'pod or container "c" must set securityContext.runAsNonRoot=true')
ROOT = ("runAsUser=0", "pod must not set runAsUser=0")

PINS = [
    # check_allowPrivilegeEscalation.go: 1.8, 1.25 (Windows pods exempt)
    ("allowPrivilegeEscalation", {"containers": [c()]}, "v1.7", "absent"),
    ("allowPrivilegeEscalation", {"containers": [c()]}, "v1.8", APE),
    ("allowPrivilegeEscalation", WINDOWS, "v1.24", APE),
    ("allowPrivilegeEscalation", WINDOWS, "v1.25", None),
    # check_capabilities_restricted.go: 1.22, 1.25
    ("capabilities_restricted", {"containers": [c()]}, "v1.21", "absent"),
    ("capabilities_restricted", {"containers": [c()]}, "v1.22", CAPS),
    ("capabilities_restricted", WINDOWS, "v1.24", CAPS),
    ("capabilities_restricted", WINDOWS, "v1.25", None),
    # check_seccompProfile_restricted.go: 1.19, 1.25
    ("seccompProfile_restricted", {"containers": [c()]}, "v1.18", "absent"),
    ("seccompProfile_restricted", {"containers": [c()]}, "v1.19", SECCOMP),
    ("seccompProfile_restricted", WINDOWS, "v1.24", SECCOMP),
    ("seccompProfile_restricted", WINDOWS, "v1.25", None),
    # check_runAsNonRoot.go: 1.0, 1.35 (user namespaces relaxed)
    ("runAsNonRoot", USERNS_ROOT, "v1.0", NON_ROOT),
    ("runAsNonRoot", USERNS_ROOT, "v1.34", NON_ROOT),
    ("runAsNonRoot", USERNS_ROOT, "v1.35", None),
    # check_runAsUser.go: 1.23, 1.35
    ("runAsUser", USERNS_ROOT, "v1.22", "absent"),
    ("runAsUser", USERNS_ROOT, "v1.23", ROOT),
    ("runAsUser", USERNS_ROOT, "v1.34", ROOT),
    ("runAsUser", USERNS_ROOT, "v1.35", None),
    ("runAsUser", USERNS_ROOT, "v1.40", None),
    # check_seccompProfile_baseline.go: 1.0 (the alpha annotations), 1.19 (the fields)
    ("seccompProfile_baseline", {"containers": [c()]}, "v1.18", None),
    ("seccompProfile_baseline", {"securityContext": {"seccompProfile": {"type": "Unconfined"}}, "containers": [c()]},
     "v1.18", None),
    ("seccompProfile_baseline", {"securityContext": {"seccompProfile": {"type": "Unconfined"}}, "containers": [c()]},
     "v1.19", ("seccompProfile", 'pod must not set securityContext.seccompProfile.type to "Unconfined"')),
    # check_sysctls.go: 1.0, 1.27, 1.29, 1.32
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_fin_timeout"}]}}, "v1.28",
     ("forbidden sysctls", "net.ipv4.tcp_fin_timeout")),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_fin_timeout"}]}}, "v1.29", None),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_wmem"}]}}, "v1.31",
     ("forbidden sysctls", "net.ipv4.tcp_wmem")),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_wmem"}]}}, "v1.32", None),
    # check_procMount_baseline.go / check_procMount_restricted.go: 1.0, 1.35
    ("procMount", {"hostUsers": False, "containers": [c(procMount="Unmasked")]}, "v1.35", None),
    ("procMount_restricted", {"hostUsers": False, "containers": [c(procMount="Unmasked")]}, "v1.34", "absent"),
    # check_hostProbesAndhostLifecycle.go: 1.34
    ("hostProbesAndHostLifecycle", {"containers": [{"name": "c", "readinessProbe": {"tcpSocket": {"host": "h"}}}]},
     "v1.33", "absent"),
]


@pytest.mark.parametrize("check_id, spec, version, want", PINS,
                         ids=[f"{p[0]} at {p[2]}: {'absent' if p[3] == 'absent' else 'allowed' if p[3] is None else 'refused'}"
                              + (" (windows)" if p[1] is WINDOWS else " (user namespace)" if p[1] is USERNS_ROOT else "")
                              for p in PINS])
def test_a_check_runs_the_variant_of_its_versions_list(check_id, spec, version, want):
    assert run(check_id, spec, version) == want


@pytest.mark.parametrize("spec, version, reasons", [
    (WINDOWS, "v1.24", "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, "
                       "seccompProfile"),
    (WINDOWS, "v1.25", "runAsNonRoot != true"),
    ({"containers": [c(capabilities={"add": ["SYS_ADMIN"]})], "securityContext": {"runAsNonRoot": True}}, "v1.21",
     "non-default capabilities, allowPrivilegeEscalation != false, seccompProfile"),
    ({"containers": [c(capabilities={"add": ["SYS_ADMIN"]})], "securityContext": {"runAsNonRoot": True}}, "v1.22",
     "allowPrivilegeEscalation != false, unrestricted capabilities, seccompProfile"),
    ({"hostUsers": False, "containers": [c(procMount="Unmasked")]}, "v1.34",
     "procMount, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"),
    ({"hostUsers": False, "containers": [c(procMount="Unmasked")]}, "v1.35",
     "allowPrivilegeEscalation != false, unrestricted capabilities, procMount, seccompProfile"),
], ids=["restricted v1.24 holds a Windows pod to the Linux checks", "restricted v1.25 exempts it",
        "before v1.22 restricted runs baseline's capabilities check", "from v1.22 its own overrides it",
        "before v1.35 baseline's procMount refuses a user-namespace pod",
        "from v1.35 procMount_restricted does, and runAsNonRoot is relaxed"])
def test_the_restricted_level_at_a_version(spec, version, reasons):
    assert psp.forbidden_reason(psp.evaluate("restricted", {}, spec, version)) == reasons


WIN_POD = """apiVersion: v1
kind: Pod
metadata: {name: win, namespace: lab}
spec:
  os: {name: windows}
  securityContext: {runAsNonRoot: true}
  containers: [{name: c, image: nginx}]
"""
USERNS_POD = """apiVersion: v1
kind: Pod
metadata: {name: userns, namespace: lab}
spec:
  hostUsers: false
  securityContext: {runAsUser: 0, seccompProfile: {type: RuntimeDefault}}
  containers: [{name: c, image: nginx, securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}}]
"""


def test_the_oracles_answers_at_pinned_enforce_versions(tmp_path):
    h = Harness(tmp_path / "state")
    assert h("create ns lab").code == 0

    def at(version: str, manifest: str):
        assert h(f"label ns lab pod-security.kubernetes.io/enforce=restricted "
                 f"pod-security.kubernetes.io/enforce-version={version} --overwrite").code == 0
        r = h("create -f -", stdin=manifest)
        if r.code == 0:
            assert h("delete pod -n lab --all --grace-period=0 --force").code == 0
        return r.code, r.out, r.err

    assert at("v1.24", WIN_POD) == (1, "", (
        'Error from server (Forbidden): error when creating "STDIN": pods "win" is forbidden: violates PodSecurity '
        '"restricted:v1.24": allowPrivilegeEscalation != false (container "c" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set '
        'securityContext.capabilities.drop=["ALL"]), seccompProfile (pod or container "c" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\n'))
    assert at("v1.25", WIN_POD) == (0, "pod/win created\n", "")
    userns_refused = (
        'Error from server (Forbidden): error when creating "STDIN": pods "userns" is forbidden: violates '
        'PodSecurity "restricted:{}": runAsNonRoot != true (pod or container "c" must set '
        'securityContext.runAsNonRoot=true), runAsUser=0 (pod must not set runAsUser=0)\n')
    assert at("v1.24", USERNS_POD) == (1, "", userns_refused.format("v1.24"))
    assert at("v1.34", USERNS_POD) == (1, "", userns_refused.format("v1.34"))
    assert at("v1.35", USERNS_POD) == (0, "pod/userns created\n", "")
    assert at("v1.40", USERNS_POD) == (0, "pod/userns created\n", "")
