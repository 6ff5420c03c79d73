"""The Pod Security checks kubesim added with their versions: AppArmor, SELinux options, sysctls,
procMount (baseline and, from v1.35, restricted), Windows hostProcess and probe/lifecycle hosts,
tabled as staging/src/k8s.io/pod-security-admission/policy/check_*_test.go has them (same pods,
reasons, details), and the registry's versions (registry.go: a check from its first
MinimumVersion, the newest variant not above the policy's version, overrides from the version
that declares them)."""

from __future__ import annotations

import pytest

from kubesim.apiserver.admission import podsecuritypolicy as psp


def c(name: str, **sc) -> dict:
    return {"name": name, "image": "nginx", **({"securityContext": sc} if sc else {})}


def run(check_id: str, spec: dict, meta: dict | None = None, version: str = "latest"):
    """One check's result at a version (None: allowed, or the check does not exist there)."""
    v = psp.parse_version(version)
    for cid, _level, versions in psp.CHECKS:
        if cid == check_id:
            fitting = [fn for minimum, fn, _ in versions if minimum <= v]
            return fitting[-1](meta or {}, spec) if fitting else None
    raise KeyError(check_id)


AA = "container.apparmor.security.beta.kubernetes.io/"

CASES = [
    # check_appArmorProfile_test.go
    ("appArmorProfile", "unconfined pod",
     {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}, "containers": [c("a")]}, None,
     ("forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"')),
    ("appArmorProfile", "unconfined container",
     {"containers": [c("a", appArmorProfile={"type": "RuntimeDefault"}),
                     c("foo", appArmorProfile={"type": "Unconfined"})]}, None,
     ("forbidden AppArmor profile", 'container "foo" must not set AppArmor profile type to "Unconfined"')),
    ("appArmorProfile", "unconfined init container",
     {"initContainers": [c("bar", appArmorProfile={"type": "Unconfined"})], "containers": [c("a")]}, None,
     ("forbidden AppArmor profile", 'container "bar" must not set AppArmor profile type to "Unconfined"')),
    ("appArmorProfile", "multiple containers (annotations)", {"containers": [c("a")]},
     {"annotations": {AA: "bogus", AA + "a": "", AA + "b": "runtime/default", AA + "c": "localhost/",
                      AA + "d": "localhost/foo", AA + "e": "unconfined", AA + "f": "unknown"}},
     ("forbidden AppArmor profiles", "annotations must not set AppArmor profile type to "
      f'"{AA}="bogus"", "{AA}e="unconfined"", "{AA}f="unknown""')),
    ("appArmorProfile", "pod with runtime default and a localhost container",
     {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
      "containers": [c("a", appArmorProfile={"type": "Localhost", "localhostProfile": "p"})]}, None, None),
    # check_seLinuxOptions_test.go (latest: container_engine_t allowed since v1.31)
    ("seLinuxOptions", "invalid pod and containers",
     {"securityContext": {"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
      "containers": [c("a", seLinuxOptions={"type": "container_t"}), c("b", seLinuxOptions={"type": "container_init_t"}),
                     c("c", seLinuxOptions={"type": "container_kvm_t"}),
                     c("d", seLinuxOptions={"type": "container_engine_t"}), c("e", seLinuxOptions={"type": "bar"}),
                     c("f", seLinuxOptions={"user": "bar"}), c("g", seLinuxOptions={"role": "baz"})]}, None,
     ("seLinuxOptions", 'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: '
      'types "bar", "foo"; user may not be set; role may not be set')),
    ("seLinuxOptions", "bad type", {"securityContext": {"seLinuxOptions": {"type": "bad"}}, "containers": [c("a")]},
     None, ("seLinuxOptions", 'pod set forbidden securityContext.seLinuxOptions: type "bad"')),
    ("seLinuxOptions", "bad user", {"securityContext": {"seLinuxOptions": {"user": "bad"}}, "containers": [c("a")]},
     None, ("seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: user may not be set")),
    ("seLinuxOptions", "bad role", {"securityContext": {"seLinuxOptions": {"role": "bad"}}, "containers": [c("a")]},
     None, ("seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: role may not be set")),
    # check_sysctls_test.go (latest)
    ("sysctls", "forbidden sysctls",
     {"securityContext": {"sysctls": [{"name": "a", "value": "a"}, {"name": "b", "value": "b"}]}}, None,
     ("forbidden sysctls", "a, b")),
    ("sysctls", "new supported sysctls",
     {"securityContext": {"sysctls": [{"name": n, "value": "1"} for n in (
         "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")]}},
     None, None),
    # check_procMount_baseline_test.go (1.35)
    ("procMount", "procMount",
     {"hostUsers": True, "containers": [c("a"), c("b"), c("c", procMount="Default"), c("d", procMount="Unmasked"),
                                         c("e", procMount="other")]}, None,
     ("procMount", 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"')),
    ("procMount", "procMount with userns",
     {"hostUsers": False, "containers": [c("d", procMount="Unmasked")]}, None, None),
    ("procMount_restricted", "procMount with userns is still refused by restricted",
     {"hostUsers": False, "containers": [c("d", procMount="Unmasked")]}, None,
     ("procMount", 'container "d" must not set securityContext.procMount to "Unmasked"')),
    # check_windowsHostProcess_test.go
    ("windowsHostProcess", "host process",
     {"securityContext": {"windowsOptions": {"hostProcess": True}},
      "containers": [c("a"), c("b", windowsOptions={}), c("c", windowsOptions={"hostProcess": False}),
                     c("d", windowsOptions={"hostProcess": True}), c("e", windowsOptions={"hostProcess": True})]},
     None, ("hostProcess", 'pod and containers "d", "e" must not set securityContext.windowsOptions.hostProcess=true')),
    # check_hostProbesAndhostLifecycle_test.go
    ("hostProbesAndHostLifecycle", "probes and lifecycle handlers with hosts",
     {"containers": [
         {"name": "a", "image": "nginx", "livenessProbe": {"httpGet": {"host": "evil.example", "port": 80}}},
         {"name": "b", "image": "nginx", "readinessProbe": {"tcpSocket": {"host": "10.0.0.1", "port": 80}},
          "lifecycle": {"preStop": {"httpGet": {"host": "evil.example", "port": 80}}}},
         {"name": "c", "image": "nginx", "startupProbe": {"httpGet": {"port": 80}}}]}, None,
     ("probe or lifecycle host",
      'containers "a", "b" use probe or lifecycle hosts "10.0.0.1", "evil.example"')),
    ("hostProbesAndHostLifecycle", "one container, one host",
     {"containers": [{"name": "a", "image": "nginx",
                      "lifecycle": {"postStart": {"tcpSocket": {"host": "h", "port": 1}}}}]}, None,
     ("probe or lifecycle host", 'container "a" uses probe or lifecycle host "h"')),
]


@pytest.mark.parametrize("check_id, spec, meta, want", [c_[0:1] + c_[2:] for c_ in CASES],
                         ids=[f"{c_[0]}: {c_[1]}" for c_ in CASES])
def test_a_check_reports_as_upstream(check_id, spec, meta, want):
    assert run(check_id, spec, meta) == want


@pytest.mark.parametrize("check_id, spec, version, want", [
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.ip_local_reserved_ports"}]}}, "v1.26",
     ("forbidden sysctls", "net.ipv4.ip_local_reserved_ports")),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.ip_local_reserved_ports"}]}}, "v1.27", None),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_keepalive_time"}]}}, "v1.28",
     ("forbidden sysctls", "net.ipv4.tcp_keepalive_time")),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}}, "v1.31",
     ("forbidden sysctls", "net.ipv4.tcp_rmem")),
    ("sysctls", {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}}, "v1.32", None),
    ("seLinuxOptions", {"securityContext": {"seLinuxOptions": {"type": "container_engine_t"}}}, "v1.30",
     ("seLinuxOptions", 'pod set forbidden securityContext.seLinuxOptions: type "container_engine_t"')),
    ("seLinuxOptions", {"securityContext": {"seLinuxOptions": {"type": "container_engine_t"}}}, "v1.31", None),
    ("procMount", {"hostUsers": False, "containers": [c("d", procMount="Unmasked")]}, "v1.34",
     ("procMount", 'container "d" must not set securityContext.procMount to "Unmasked"')),
    ("hostProbesAndHostLifecycle", {"containers": [{"name": "a", "livenessProbe": {"httpGet": {"host": "h"}}}]},
     "v1.33", None),
    ("hostProbesAndHostLifecycle", {"containers": [{"name": "a", "livenessProbe": {"httpGet": {"host": "h"}}}]},
     "v1.34", ("probe or lifecycle host", 'container "a" uses probe or lifecycle host "h"')),
], ids=["v1.26 does not allow ip_local_reserved_ports", "v1.27 allows it", "v1.28 does not allow the keepalive ones",
        "v1.31 does not allow tcp_rmem", "v1.32 allows it", "v1.30 does not allow container_engine_t",
        "v1.31 allows it", "before v1.35 procMount is refused in a user namespace too",
        "before v1.34 probe hosts are not checked", "from v1.34 they are"])
def test_a_check_follows_the_policy_version(check_id, spec, version, want):
    assert run(check_id, spec, version=version) == want


@pytest.mark.parametrize("level, version, ids", [
    ("baseline", "latest", ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes",
                            "hostPorts", "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions",
                            "seccompProfile_baseline", "sysctls", "windowsHostProcess"]),
    ("baseline", "v1.33", ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes",
                           "hostPorts", "privileged", "procMount", "seLinuxOptions", "seccompProfile_baseline",
                           "sysctls", "windowsHostProcess"]),
    ("restricted", "latest", ["appArmorProfile", "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle",
                              "privileged", "seLinuxOptions", "sysctls", "windowsHostProcess",
                              "allowPrivilegeEscalation", "capabilities_restricted", "procMount_restricted",
                              "restrictedVolumes", "runAsNonRoot", "runAsUser", "seccompProfile_restricted"]),
    ("restricted", "v1.21", ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPorts",
                             "privileged", "procMount", "seLinuxOptions", "sysctls", "windowsHostProcess",
                             "allowPrivilegeEscalation", "restrictedVolumes", "runAsNonRoot",
                             "seccompProfile_restricted"]),
], ids=["baseline at latest", "baseline before v1.34 has no probe host check",
        "restricted at latest: its checks override baseline's capabilities, procMount, volumes and seccomp",
        "restricted at v1.21: no restricted capabilities or runAsUser yet, baseline's capabilities instead"])
def test_the_registry_runs_each_levels_checks_in_order(level, version, ids):
    fns = psp._ordered(level, version)
    names = []
    v = psp.parse_version(version)
    for cid, _lvl, versions in psp.CHECKS:
        fitting = [fn for minimum, fn, _ in versions if minimum <= v]
        if fitting and fitting[-1] in fns and cid not in names:
            names.append(cid)
    assert [n for n in names if n in ids] == ids and len(fns) == len(ids)


def test_a_pod_fails_every_new_baseline_check_in_order():
    spec = {"securityContext": {"sysctls": [{"name": "kernel.msgmax"}], "seLinuxOptions": {"user": "u"},
                                "appArmorProfile": {"type": "Unconfined"}},
            "containers": [{"name": "a", "image": "nginx", "securityContext": {"procMount": "Unmasked"},
                            "livenessProbe": {"httpGet": {"host": "h", "port": 80}}}]}
    assert psp.forbidden_reason(psp.evaluate("baseline", {}, spec)) == (
        "forbidden AppArmor profile, probe or lifecycle host, procMount, seLinuxOptions, forbidden sysctls")


FIXTURES = "/root/go/pkg/mod/k8s.io/pod-security-admission@v0.35.4/test/testdata"


def _fixtures():
    import glob
    import os

    if not os.path.isdir(FIXTURES):
        return []
    return sorted(glob.glob(f"{FIXTURES}/*/v1.*/*/*.yaml"))


@pytest.mark.skipif(not _fixtures(), reason="pod-security-admission v0.35.4 is not in the Go module cache")
def test_upstreams_generated_fixtures_pass_and_fail_at_their_level_and_version():
    """test/testdata/<level>/<version>/{pass,fail}/*.yaml (generated by upstream's TestFixtures):
    every pass fixture passes its level at its version, every fail fixture fails it; the objects
    are defaulted first, as the API server defaults a pod before admission (a volume without a
    source becomes an emptyDir)."""
    import copy

    import yaml

    from kubesim.api.core.defaults import set_defaults_pod_template, set_object_defaults_pod
    from kubesim.apiserver.admission.podsecurity import extract_pod_spec

    wrong = []
    for path in _fixtures():
        level, version, outcome = path.split("/")[-4:-1]
        with open(path) as f:
            obj = yaml.safe_load(f)
        obj = copy.deepcopy(obj)
        if obj.get("kind") == "Pod":
            set_object_defaults_pod(obj)
        elif isinstance((obj.get("spec") or {}).get("template"), dict):
            set_defaults_pod_template(obj["spec"]["template"])
        extracted = extract_pod_spec(obj)
        if extracted is None:
            continue
        failed = bool(psp.evaluate(level, extracted[0], extracted[1], version))
        if failed != (outcome == "fail"):
            wrong.append(f"{level}/{version}/{outcome}/{path.rsplit('/', 1)[1]}")
    assert wrong == []
