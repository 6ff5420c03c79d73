"""The Pod Security Standards checks, baseline and restricted, as v1.35 ("latest") runs them.

Upstream: staging/src/k8s.io/pod-security-admission/policy/check_*.go (one function here per
check file, named by its check ID), checks.go (``AggregateCheckResults``, ``ForbiddenDetail``),
registry.go (the order: baseline IDs sorted, then restricted IDs sorted; a restricted check
overrides the baseline check it names), helpers.go (``joinQuote``, ``pluralize``) and
visitor.go (init, then regular, then ephemeral containers).

Where kubesim differs: every version label (``v1.x``) is evaluated with the latest checks; the
baseline checks of AppArmor, SELinux options, sysctls, procMount, Windows hostProcess and
host probes/lifecycle handlers are not modelled (they always pass).
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
    """check_allowPrivilegeEscalation.go (1.25: not for Windows pods)"""
    if _windows(spec):
        return None
    bad = [c.get("name", "") for c in _containers(spec) if _sc(c).get("allowPrivilegeEscalation") is not False]
    if bad:
        return ("allowPrivilegeEscalation != false",
                (f"{pluralize('container', 'containers', len(bad))} {join_quote(bad)} "
                "must set securityContext.allowPrivilegeEscalation=false"))
    return None


def capabilities_restricted(meta: dict, spec: dict):
    """check_capabilities_restricted.go (1.25: not for Windows pods)"""
    if _windows(spec):
        return None
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
    """check_runAsNonRoot.go (1.35: relaxed for pods in a user namespace, hostUsers: false)"""
    if _user_ns(spec):
        return None
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
    """check_runAsUser.go (1.35: relaxed for pods in a user namespace)"""
    if _user_ns(spec):
        return None
    setters = ["pod"] if (spec.get("securityContext") or {}).get("runAsUser") == 0 else []
    setters = _setters(setters, [c.get("name", "") for c in _containers(spec) if _sc(c).get("runAsUser") == 0])
    if setters:
        return "runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0"
    return None


def seccomp_profile_restricted(meta: dict, spec: dict):
    """check_seccompProfile_restricted.go (1.25: not for Windows pods)"""
    if _windows(spec):
        return None
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


# registry.go: baseline IDs sorted, then restricted IDs sorted; (ID, check, overridden baseline ID)
BASELINE_CHECKS = (
    ("capabilities_baseline", capabilities_baseline),
    ("hostNamespaces", host_namespaces),
    ("hostPathVolumes", host_path_volumes),
    ("hostPorts", host_ports),
    ("privileged", privileged),
    ("seccompProfile_baseline", seccomp_profile_baseline),
)
RESTRICTED_CHECKS = (
    ("allowPrivilegeEscalation", allow_privilege_escalation, None),
    ("capabilities_restricted", capabilities_restricted, "capabilities_baseline"),
    ("restrictedVolumes", restricted_volumes, "hostPathVolumes"),
    ("runAsNonRoot", run_as_non_root, None),
    ("runAsUser", run_as_user, None),
    ("seccompProfile_restricted", seccomp_profile_restricted, "seccompProfile_baseline"),
)


def _ordered(level: str):
    if level == PRIVILEGED:
        return []
    if level == BASELINE:
        return [f for _, f in BASELINE_CHECKS]
    overridden = {o for _, _, o in RESTRICTED_CHECKS if o}
    ids = [(i, f) for i, f in BASELINE_CHECKS if i not in overridden] + [(i, f) for i, f, _ in RESTRICTED_CHECKS]
    order = [i for i, _ in BASELINE_CHECKS] + [i for i, _, _ in RESTRICTED_CHECKS]
    return [f for _, f in sorted(ids, key=lambda p: order.index(p[0]))]


def evaluate(level: str, meta: dict, spec: dict) -> list[tuple[str, str]]:
    """The (reason, detail) of each failed check of ``level``, in the registry's order."""
    return [r for f in _ordered(level) if (r := f(meta or {}, spec or {})) is not None]


def forbidden_detail(results: list[tuple[str, str]]) -> str:
    """AggregateCheckResult.ForbiddenDetail."""
    return ", ".join(f"{r} ({d})" if d else r for r, d in results)


def forbidden_reason(results: list[tuple[str, str]]) -> str:
    """AggregateCheckResult.ForbiddenReason."""
    return ", ".join(r for r, _ in results)
