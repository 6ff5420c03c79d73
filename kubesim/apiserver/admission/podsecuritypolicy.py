"""The Pod Security Standards checks, baseline and restricted, at a policy version.

Upstream: staging/src/k8s.io/pod-security-admission/policy/check_*.go (one function here per
check file, named by its check ID), checks.go (``AggregateCheckResults``, ``ForbiddenDetail``),
registry.go (the order: baseline IDs sorted, then restricted IDs sorted; a restricted check
overrides the baseline check it names), helpers.go (``joinQuote``, ``pluralize``) and
visitor.go (init, then regular, then ephemeral containers).

A check exists from its first ``MinimumVersion`` and runs the variant of the newest
``MinimumVersion`` not above the policy's version (``latest``, or a version newer than v1.35:
v1.35): ``evaluate(level, meta, spec, version)``. Every check's ``Versions`` list is upstream's:
the restricted checks exempt Windows pods (``spec.os.name: windows``) from v1.25 on
(allowPrivilegeEscalation, capabilities_restricted, seccompProfile_restricted), pods in a user
namespace (``hostUsers: false``) from v1.35 on (runAsNonRoot, runAsUser; baseline's procMount,
which restricted's procMount_restricted then overrides), and the baseline lists grow (sysctls
at v1.27, v1.29, v1.32; SELinux's container_engine_t at v1.31; probe and lifecycle hosts from
v1.34; the seccomp annotations before v1.19, the fields from then). Upstream's generated
fixtures (test/testdata, every level and version) are run against this registry by
tests/apiserver/admission/test_podsecurity_versions.py when the module is on disk.
"""

from __future__ import annotations

PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"
LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)


def join_quote(items) -> str:
    items = list(items)
    return '"' + '", "'.join(items) + '"' if items else ""


def pluralize(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _containers(spec: dict):
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(key) or ()


def _sc(c: dict) -> dict:
    return c.get("securityContext") or {}


def _windows(spec: dict) -> bool:
    return (spec.get("os") or {}).get("name") == "windows"


def _user_ns(spec: dict) -> bool:
    return spec.get("hostUsers") is False


def _setters(bad: list[str], containers: list[str]) -> list[str]:
    if containers:
        bad = bad + [f"{pluralize('container', 'containers', len(containers))} {join_quote(containers)}"]
    return bad


# -- baseline ----------------------------------------------------------------------------

_CAPS_ALLOWED = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                 "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}


def capabilities_baseline(meta: dict, spec: dict):
    """check_capabilities_baseline.go"""
    bad, caps = [], set()
    for c in _containers(spec):
        added = [x for x in (_sc(c).get("capabilities") or {}).get("add") or () if x not in _CAPS_ALLOWED]
        if added:
            bad.append(c.get("name", ""))
            caps.update(added)
    if bad:
        return ("non-default capabilities",
                (f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not include "
                f"{join_quote(sorted(caps))} in securityContext.capabilities.add"))
    return None


def host_namespaces(meta: dict, spec: dict):
    """check_hostNamespaces.go"""
    ns = [f"{k}=true" for k in ("hostNetwork", "hostPID", "hostIPC") if spec.get(k)]
    return ("host namespaces", ", ".join(ns)) if ns else None


def host_path_volumes(meta: dict, spec: dict):
    """check_hostPathVolumes.go"""
    vols = [v.get("name", "") for v in spec.get("volumes") or () if "hostPath" in v]
    if vols:
        return "hostPath volumes", f"{pluralize('volume', 'volumes', len(vols))} {join_quote(vols)}"
    return None


def host_ports(meta: dict, spec: dict):
    """check_hostPorts.go"""
    bad, ports = [], set()
    for c in _containers(spec):
        hp = [str(p["hostPort"]) for p in c.get("ports") or () if p.get("hostPort")]
        if hp:
            bad.append(c.get("name", ""))
            ports.update(hp)
    if bad:
        return ("hostPort", (f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
                f"{pluralize('uses', 'use', len(bad))} {pluralize('hostPort', 'hostPorts', len(ports))} "
                f"{', '.join(sorted(ports))}"))
    return None


def privileged(meta: dict, spec: dict):
    """check_privileged.go"""
    bad = [c.get("name", "") for c in _containers(spec) if _sc(c).get("privileged") is True]
    if bad:
        return ("privileged", (f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
                "must not set securityContext.privileged=true"))
    return None


def seccomp_profile_baseline(meta: dict, spec: dict):
    """check_seccompProfile_baseline.go (1.19: the fields; the annotations are not modelled)."""
    setters, bad_values = [], set()
    t = ((spec.get("securityContext") or {}).get("seccompProfile") or {}).get("type")
    if t == "Unconfined":
        setters.append("pod")
        bad_values.add(t)
    bad = []
    for c in _containers(spec):
        t = (_sc(c).get("seccompProfile") or {}).get("type")
        if t == "Unconfined":
            bad.append(c.get("name", ""))
            bad_values.add(t)
    setters = _setters(setters, bad)
    if setters:
        return ("seccompProfile", (f"{' and '.join(setters)} must not set securityContext.seccompProfile.type "
                f"to {join_quote(sorted(bad_values))}"))
    return None


# -- restricted --------------------------------------------------------------------------

def allow_privilege_escalation(meta: dict, spec: dict):
    """check_allowPrivilegeEscalation.go allowPrivilegeEscalation_1_25: not for Windows pods."""
    return None if _windows(spec) else allow_privilege_escalation_1_8(meta, spec)


def allow_privilege_escalation_1_8(meta: dict, spec: dict):
    """allowPrivilegeEscalation_1_8: every container sets allowPrivilegeEscalation=false."""
    bad = [c.get("name", "") for c in _containers(spec) if _sc(c).get("allowPrivilegeEscalation") is not False]
    if bad:
        return ("allowPrivilegeEscalation != false",
                (f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
                "must set securityContext.allowPrivilegeEscalation=false"))
    return None


def capabilities_restricted(meta: dict, spec: dict):
    """check_capabilities_restricted.go capabilitiesRestricted_1_25: not for Windows pods."""
    return None if _windows(spec) else capabilities_restricted_1_22(meta, spec)


def capabilities_restricted_1_22(meta: dict, spec: dict):
    """capabilitiesRestricted_1_22: drop ALL, add at most NET_BIND_SERVICE."""
    missing, adding, caps = [], [], set()
    for c in _containers(spec):
        cp = _sc(c).get("capabilities")
        if cp is None:
            missing.append(c.get("name", ""))
            continue
        if "ALL" not in (cp.get("drop") or ()):
            missing.append(c.get("name", ""))
        added = [x for x in cp.get("add") or () if x != "NET_BIND_SERVICE"]
        if added:
            adding.append(c.get("name", ""))
            caps.update(added)
    details = []
    if missing:
        details.append(f"{pluralize('container', 'containers', len(missing))} {join_quote(missing)} "
                       'must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(f"{pluralize('container', 'containers', len(adding))} {join_quote(adding)} "
                       f"must not include {join_quote(sorted(caps))} in securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


_ALLOWED_VOLUMES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
                    "persistentVolumeClaim", "projected", "secret")
_VOLUME_TYPES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
                 "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
                 "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
                 "scaleIO", "storageos")


def restricted_volumes(meta: dict, spec: dict):
    """check_restrictedVolumes.go"""
    bad, types = [], set()
    for v in spec.get("volumes") or ():
        if any(k in v for k in _ALLOWED_VOLUMES):
            continue
        bad.append(v.get("name", ""))
        types.add(next((t for t in _VOLUME_TYPES if t in v), "unknown"))
    if bad:
        return ("restricted volume types",
                (f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)} {pluralize('uses', 'use', len(bad))} "
                f"{pluralize('restricted volume type', 'restricted volume types', len(types))} {join_quote(sorted(types))}"))
    return None


def run_as_non_root(meta: dict, spec: dict):
    """check_runAsNonRoot.go runAsNonRoot1_35: relaxed for pods in a user namespace (hostUsers:
    false)."""
    return None if _user_ns(spec) else run_as_non_root_1_0(meta, spec)


def run_as_non_root_1_0(meta: dict, spec: dict):
    """runAsNonRoot1_0: the pod or every container sets runAsNonRoot=true, none false."""
    setters = []
    pod_non_root = False
    v = (spec.get("securityContext") or {}).get("runAsNonRoot")
    if v is False:
        setters.append("pod")
    elif v is True:
        pod_non_root = True
    explicit, implicit = [], []
    for c in _containers(spec):
        cv = _sc(c).get("runAsNonRoot")
        if cv is not None:
            if cv is False:
                explicit.append(c.get("name", ""))
        elif not pod_non_root:
            implicit.append(c.get("name", ""))
    setters = _setters(setters, explicit)
    if setters:
        return "runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
    if implicit:
        return ("runAsNonRoot != true", (f"pod or {pluralize('container', 'containers', len(implicit))} "
                f"{join_quote(implicit)} must set securityContext.runAsNonRoot=true"))
    return None


def run_as_user(meta: dict, spec: dict):
    """check_runAsUser.go runAsUser1_35: relaxed for pods in a user namespace."""
    return None if _user_ns(spec) else run_as_user_1_23(meta, spec)


def run_as_user_1_23(meta: dict, spec: dict):
    """runAsUser1_23: neither the pod nor a container sets runAsUser=0."""
    setters = ["pod"] if (spec.get("securityContext") or {}).get("runAsUser") == 0 else []
    setters = _setters(setters, [c.get("name", "") for c in _containers(spec) if _sc(c).get("runAsUser") == 0])
    if setters:
        return "runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0"
    return None


def seccomp_profile_restricted(meta: dict, spec: dict):
    """check_seccompProfile_restricted.go seccompProfileRestricted_1_25: not for Windows pods."""
    return None if _windows(spec) else seccomp_profile_restricted_1_19(meta, spec)


def seccomp_profile_restricted_1_19(meta: dict, spec: dict):
    """seccompProfileRestricted_1_19: RuntimeDefault or Localhost, set on the pod or on every
    container."""
    valid = ("RuntimeDefault", "Localhost")
    setters, bad_values = [], set()
    pod_set = False
    prof = (spec.get("securityContext") or {}).get("seccompProfile")
    if prof is not None:
        if prof.get("type") not in valid:
            setters.append("pod")
            bad_values.add(prof.get("type") or "")
        else:
            pod_set = True
    explicit, implicit = [], []
    for c in _containers(spec):
        p = _sc(c).get("seccompProfile")
        if p is not None:
            if p.get("type") not in valid:
                explicit.append(c.get("name", ""))
                bad_values.add(p.get("type") or "")
        elif not pod_set:
            implicit.append(c.get("name", ""))
    setters = _setters(setters, explicit)
    if setters:
        return ("seccompProfile", (f"{' and '.join(setters)} must not set securityContext.seccompProfile.type "
                f"to {join_quote(sorted(bad_values))}"))
    if implicit:
        return ("seccompProfile", (f"pod or {pluralize('container', 'containers', len(implicit))} "
                f'{join_quote(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'))
    return None


# -- baseline checks with versions (check_appArmorProfile.go, check_hostProbesAndhostLifecycle.go,
# check_procMount_baseline.go, check_procMount_restricted.go, check_seLinuxOptions.go,
# check_sysctls.go, check_windowsHostProcess.go) ---------------------------------------------

def seccomp_profile_baseline_1_0(meta: dict, spec: dict):
    """check_seccompProfile_baseline.go seccompProfileBaseline_1_0 (before v1.19): the alpha
    annotations runtime/default, docker/default or localhost/*."""
    annotations = (meta or {}).get("annotations") or {}

    def valid(v: str) -> bool:
        return v in ("runtime/default", "docker/default") or v.startswith("localhost/")
    forbidden = set()
    key = "seccomp.security.alpha.kubernetes.io/pod"
    if key in annotations and not valid(annotations[key]):
        forbidden.add(f'{key}="{annotations[key]}"')
    for c in _containers(spec):
        key = "container.seccomp.security.alpha.kubernetes.io/" + c.get("name", "")
        if key in annotations and not valid(annotations[key]):
            forbidden.add(f'{key}="{annotations[key]}"')
    if forbidden:
        detail = f"forbidden {pluralize('annotation', 'annotations', len(forbidden))} {', '.join(sorted(forbidden))}"
        return "seccompProfile", detail
    return None

def app_armor_profile(meta: dict, spec: dict):
    """check_appArmorProfile.go: type RuntimeDefault, Localhost or unset; the deprecated
    annotations runtime/default, localhost/* or empty."""
    allowed = ("RuntimeDefault", "Localhost")
    setters, values = [], set()
    pod_profile = (spec.get("securityContext") or {}).get("appArmorProfile")
    if isinstance(pod_profile, dict) and pod_profile.get("type") not in allowed:
        setters.append("pod")
        values.add(str(pod_profile.get("type") or ""))
    bad = []
    for c in _containers(spec):
        profile = _sc(c).get("appArmorProfile")
        if isinstance(profile, dict) and profile.get("type") not in allowed:
            bad.append(c.get("name", ""))
            values.add(str(profile.get("type") or ""))
    setters = _setters(setters, bad)
    forbidden = sorted(f'{k}="{v}"' for k, v in ((meta or {}).get("annotations") or {}).items()
                       if k.startswith("container.apparmor.security.beta.kubernetes.io/")
                       and not (v == "" or v == "runtime/default" or v.startswith("localhost/")))
    value_list = sorted(values) + forbidden
    if forbidden:
        setters.append(pluralize("annotation", "annotations", len(forbidden)))
    if setters:
        return (pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(value_list)),
                f"{' and '.join(setters)} must not set AppArmor profile type to {join_quote(value_list)}")
    return None


def _probe_hosts(handler) -> list[str]:
    if not isinstance(handler, dict):
        return []
    return [h["host"] for key in ("httpGet", "tcpSocket")
            if isinstance(handler.get(key), dict) and (h := handler[key]).get("host")]


def host_probes_and_host_lifecycle(meta: dict, spec: dict):
    """check_hostProbesAndhostLifecycle.go (1.34+): no ``host`` in probes and lifecycle handlers."""
    bad, hosts = set(), set()
    for c in _containers(spec):
        lifecycle = c.get("lifecycle") or {}
        found = [h for k in ("livenessProbe", "readinessProbe", "startupProbe") for h in _probe_hosts(c.get(k))]
        found += [h for k in ("postStart", "preStop") for h in _probe_hosts(lifecycle.get(k))]
        if found:
            bad.add(c.get("name", ""))
            hosts.update(found)
    if bad:
        detail = (f"{pluralize('container', 'containers', len(bad))} {join_quote(sorted(bad))} "
                  f"{pluralize('uses', 'use', len(bad))} "
                  f"{pluralize('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} "
                  f"{join_quote(sorted(hosts))}")
        return "probe or lifecycle host", detail
    return None


def proc_mount_1_0(meta: dict, spec: dict):
    """check_procMount_baseline.go procMount_1_0: procMount unset or Default."""
    bad, types = [], set()
    for c in _containers(spec):
        pm = _sc(c).get("procMount")
        if pm is not None and pm != "Default":
            bad.append(c.get("name", ""))
            types.add(str(pm))
    if bad:
        detail = (f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} must not set "
                  f"securityContext.procMount to {join_quote(sorted(types))}")
        return "procMount", detail
    return None


def proc_mount_1_35(meta: dict, spec: dict):
    """procMount1_35baseline: any procMount in a user namespace (hostUsers: false)."""
    return None if _user_ns(spec) else proc_mount_1_0(meta, spec)


def _se_linux_options(allowed_types: frozenset):
    def check(meta: dict, spec: dict):
        """check_seLinuxOptions.go: type one of the container types, no user, no role."""
        bad_types: set[str] = set()
        flags = {"user": False, "role": False}

        def valid(opts: dict) -> bool:
            ok = True
            if (opts.get("type") or "") not in allowed_types:
                ok = False
                bad_types.add(opts.get("type") or "")
            for key in ("user", "role"):
                if opts.get(key):
                    ok = False
                    flags[key] = True
            return ok
        setters = []
        pod_opts = (spec.get("securityContext") or {}).get("seLinuxOptions")
        if isinstance(pod_opts, dict) and not valid(pod_opts):
            setters.append("pod")
        bad = [c.get("name", "") for c in _containers(spec)
               if isinstance(_sc(c).get("seLinuxOptions"), dict) and not valid(_sc(c)["seLinuxOptions"])]
        setters = _setters(setters, bad)
        if not setters:
            return None
        data = []
        if bad_types:
            data.append(f"{pluralize('type', 'types', len(bad_types))} {join_quote(sorted(bad_types))}")
        if flags["user"]:
            data.append("user may not be set")
        if flags["role"]:
            data.append("role may not be set")
        detail = f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}"
        return "seLinuxOptions", detail
    return check


_SELINUX_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_1_31 = _SELINUX_1_0 | {"container_engine_t"}

_SYSCTLS_1_0 = frozenset({"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
                          "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"})
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                                 "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _sysctls(allowed: frozenset):
    def check(meta: dict, spec: dict):
        """check_sysctls.go: only the safe, namespaced sysctls."""
        bad = [str(x.get("name")) for x in (spec.get("securityContext") or {}).get("sysctls") or ()
               if isinstance(x, dict) and x.get("name") not in allowed]
        return ("forbidden sysctls", ", ".join(bad)) if bad else None
    return check


def windows_host_process(meta: dict, spec: dict):
    """check_windowsHostProcess.go: no windowsOptions.hostProcess=true."""
    setters = ["pod"] if ((spec.get("securityContext") or {}).get("windowsOptions") or {}).get("hostProcess") is True \
        else []
    bad = [c.get("name", "") for c in _containers(spec) if (_sc(c).get("windowsOptions") or {}).get("hostProcess") is True]
    setters = _setters(setters, bad)
    if setters:
        return "hostProcess", f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true"
    return None



# registry.go: each check's ID, level and versions (minimum version, check, the baseline check a
# restricted one overrides from that version on); the order: baseline IDs sorted, then
# restricted IDs sorted (Go's byte order)
V = tuple[int, int]
CHECKS: tuple[tuple[str, str, tuple[tuple[V, object, str | None], ...]], ...] = (
    ("appArmorProfile", BASELINE, (((1, 0), app_armor_profile, None),)),
    ("capabilities_baseline", BASELINE, (((1, 0), capabilities_baseline, None),)),
    ("hostNamespaces", BASELINE, (((1, 0), host_namespaces, None),)),
    ("hostPathVolumes", BASELINE, (((1, 0), host_path_volumes, None),)),
    ("hostPorts", BASELINE, (((1, 0), host_ports, None),)),
    ("hostProbesAndHostLifecycle", BASELINE, (((1, 34), host_probes_and_host_lifecycle, None),)),
    ("privileged", BASELINE, (((1, 0), privileged, None),)),
    ("procMount", BASELINE, (((1, 0), proc_mount_1_0, None), ((1, 35), proc_mount_1_35, None))),
    ("seLinuxOptions", BASELINE, (((1, 0), _se_linux_options(_SELINUX_1_0), None),
                                  ((1, 31), _se_linux_options(_SELINUX_1_31), None))),
    ("seccompProfile_baseline", BASELINE, (((1, 0), seccomp_profile_baseline_1_0, None),
                                           ((1, 19), seccomp_profile_baseline, None))),
    ("sysctls", BASELINE, (((1, 0), _sysctls(_SYSCTLS_1_0), None), ((1, 27), _sysctls(_SYSCTLS_1_27), None),
                           ((1, 29), _sysctls(_SYSCTLS_1_29), None), ((1, 32), _sysctls(_SYSCTLS_1_32), None))),
    ("windowsHostProcess", BASELINE, (((1, 0), windows_host_process, None),)),
    ("allowPrivilegeEscalation", RESTRICTED, (((1, 8), allow_privilege_escalation_1_8, None),
                                              ((1, 25), allow_privilege_escalation, None))),
    ("capabilities_restricted", RESTRICTED, (((1, 22), capabilities_restricted_1_22, "capabilities_baseline"),
                                             ((1, 25), capabilities_restricted, "capabilities_baseline"))),
    ("procMount_restricted", RESTRICTED, (((1, 35), proc_mount_1_0, "procMount"),)),
    ("restrictedVolumes", RESTRICTED, (((1, 0), restricted_volumes, "hostPathVolumes"),)),
    ("runAsNonRoot", RESTRICTED, (((1, 0), run_as_non_root_1_0, None), ((1, 35), run_as_non_root, None))),
    ("runAsUser", RESTRICTED, (((1, 23), run_as_user_1_23, None), ((1, 35), run_as_user, None))),
    ("seccompProfile_restricted", RESTRICTED, (((1, 19), seccomp_profile_restricted_1_19, "seccompProfile_baseline"),
                                               ((1, 25), seccomp_profile_restricted, "seccompProfile_baseline"))),
)
LATEST: V = (1, 35)


def parse_version(version: str) -> V:
    """``latest`` or ``v1.x`` (api.ParseVersion); a newer minor than kubesim knows is latest."""
    if version == "latest" or not version.startswith("v1."):
        return LATEST
    try:
        return min((1, int(version[3:])), LATEST)
    except ValueError:
        return LATEST


def _ordered(level: str, version: str = "latest"):
    """The checks a level runs at a version, in the registry's order."""
    if level == PRIVILEGED:
        return []
    v = parse_version(version)
    chosen, overridden = [], set()
    for check_id, check_level, versions in CHECKS:
        if check_level == RESTRICTED and level != RESTRICTED:
            continue
        fitting = [(fn, over) for minimum, fn, over in versions if minimum <= v]
        if not fitting:
            continue
        fn, over = fitting[-1]
        if over:
            overridden.add(over)
        chosen.append((check_id, fn))
    return [fn for check_id, fn in chosen if check_id not in overridden]


def evaluate(level: str, meta: dict, spec: dict, version: str = "latest") -> list[tuple[str, str]]:
    """The (reason, detail) of each failed check of ``level`` at ``version``, in the registry's
    order."""
    return [r for f in _ordered(level, version) if (r := f(meta or {}, spec or {})) is not None]


def forbidden_detail(results: list[tuple[str, str]]) -> str:
    """AggregateCheckResult.ForbiddenDetail."""
    return ", ".join(f"{r} ({d})" if d else r for r, d in results)


def forbidden_reason(results: list[tuple[str, str]]) -> str:
    """AggregateCheckResult.ForbiddenReason."""
    return ", ".join(r for r, _ in results)
