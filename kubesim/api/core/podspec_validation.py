"""Validation of a PodSpec (a Pod's, or a workload's pod template): restart and DNS policies,
volumes, scheduling constraints (node selector, affinity, tolerations, topology spread),
security context and the rest of ``ValidatePodSpec``; the containers are
``kubesim.api.core.container_validation``'s.

Written after kubernetes/kubernetes (v1.35) ``pkg/apis/core/validation/validation.go``
(``ValidatePodSpec``, ``ValidateVolumes``, ``validateVolumeSource`` for the one-source rule and
the required keys, ``ValidatePodSecurityContext``, ``validatePodDNSConfig``,
``ValidateTolerations``, ``validateAffinity`` with ``ValidateNodeSelectorTerm`` and
``validatePodAffinityTerm``, ``validateTopologySpreadConstraints``,
``validateHostNetwork``).

Not validated (accepted as given): volume source internals beyond names, required keys and the
one-source rule; sysctls, seccomp/AppArmor annotations; pod-level ``spec.resources``.
"""

from __future__ import annotations

from kubesim.api.core.container_validation import (
    validate_containers,
    validate_init_containers,
)
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    IS_NOT_POSITIVE_ERROR,
    inclusive_range_error,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_dns1123_subdomain_with_underscore,
    is_qualified_name,
    is_valid_ip,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_label_name,
    validate_label_selector,
    validate_labels,
)
from kubesim.errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
    unsupported,
)

_RESTART_POLICIES = ["Always", "OnFailure", "Never"]
_DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
_TOLERATION_OPERATORS = ["Equal", "Exists"]
_PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]
_MAX_INT32 = 2**31 - 1


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _str(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def _int(v, default: int = 0) -> int:
    if isinstance(v, bool) or v is None:
        return default
    if isinstance(v, (int, float)):
        return int(v)
    return default


def _validate_windows_host_process_pod(spec: dict, path: str) -> list[FieldError]:
    """validateWindowsHostProcessPod: a container's hostProcess equal to the pod's when both are
    set; with any hostProcess container, all of them are, and hostNetwork is true (kubeadm's
    apiserver allows privileged, so no Forbidden)."""
    errs: list[FieldError] = []
    pod_hp = _dict(_dict(_dict(spec.get("securityContext")).get("windowsOptions"))).get("hostProcess")
    count = hp_count = 0
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(_list(spec.get(key))):
            count += 1
            c_hp = _dict(_dict(_dict(c).get("securityContext")).get("windowsOptions")).get("hostProcess")
            if pod_hp is not None and c_hp is not None and bool(pod_hp) != bool(c_hp):
                errs.append(invalid(f"{path}.{key}[{i}].securityContext.windowsOptions.hostProcess", bool(c_hp),
                                    f"pod hostProcess value must be identical if both are specified, was "
                                    f"{str(bool(pod_hp)).lower()}"))
            if c_hp is True or (c_hp is None and pod_hp is True):
                hp_count += 1
    if hp_count:
        if hp_count != count:
            errs.append(invalid(path, "", "If pod contains any hostProcess containers then all containers must be "
                                          "HostProcess containers"))
        if not spec.get("hostNetwork"):
            errs.append(invalid(f"{path}.hostNetwork", False,
                                "hostNetwork must be true if pod contains any hostProcess containers"))
    return errs


def validate_pod_spec(spec: dict, meta: dict | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is None:
        errs.append(required(f"{path}.terminationGracePeriodSeconds", ""))
    volumes, vol_errs = _validate_volumes(_list(spec.get("volumes")), f"{path}.volumes")
    errs.extend(vol_errs)
    restart = _str(spec.get("restartPolicy"))
    errs.extend(validate_containers(_list(spec.get("containers")), volumes, grace, f"{path}.containers"))
    errs.extend(validate_init_containers(_list(spec.get("initContainers")), _list(spec.get("containers")),
                                          volumes, grace, f"{path}.initContainers"))
    errs.extend(_validate_host_network_deps(spec, path))
    if not restart:
        errs.append(required(f"{path}.restartPolicy", ""))
    elif restart not in _RESTART_POLICIES:
        errs.append(unsupported(f"{path}.restartPolicy", restart, _RESTART_POLICIES))
    dns = _str(spec.get("dnsPolicy"))
    if not dns:
        errs.append(required(f"{path}.dnsPolicy", ""))
    elif dns not in _DNS_POLICIES:
        errs.append(unsupported(f"{path}.dnsPolicy", dns, _DNS_POLICIES))
    errs.extend(validate_labels(spec.get("nodeSelector"), f"{path}.nodeSelector"))
    errs.extend(_validate_pod_security_context(_dict(spec.get("securityContext")), f"{path}.securityContext"))
    for i, ref in enumerate(_list(spec.get("imagePullSecrets"))):
        if isinstance(ref, dict) and set(ref) - {"name"}:
            errs.append(invalid(f"{path}.imagePullSecrets[{i}]", GoJSON(ref, "LocalObjectReference"),
                                "only name may be set"))
    errs.extend(_validate_affinity(_dict(spec.get("affinity")), f"{path}.affinity"))
    errs.extend(_validate_dns_config(spec.get("dnsConfig"), dns, f"{path}.dnsConfig"))
    for i, gate in enumerate(_list(spec.get("readinessGates"))):
        ct = _str(_dict(gate).get("conditionType"))
        errs.extend(invalid(f"{path}.readinessGates[{i}].conditionType", ct, m) for m in is_qualified_name(ct))
    seen: set[str] = set()
    for i, gate in enumerate(_list(spec.get("schedulingGates"))):
        name = _str(_dict(gate).get("name"))
        errs.extend(invalid(f"{path}.schedulingGates[{i}]", name, m) for m in is_qualified_name(name))
        if name in seen:
            errs.append(duplicate(f"{path}.schedulingGates[{i}]", name))
        seen.add(name)
    errs.extend(_validate_topology_spread(_list(spec.get("topologySpreadConstraints")),
                                          f"{path}.topologySpreadConstraints"))
    errs.extend(_validate_windows_host_process_pod(spec, path))
    sa = _str(spec.get("serviceAccountName"))
    if sa:
        errs.extend(invalid(f"{path}.serviceAccountName", sa, m) for m in name_is_dns_subdomain(sa, False))
    node = _str(spec.get("nodeName"))
    if node:
        errs.extend(invalid(f"{path}.nodeName", node, m) for m in name_is_dns_subdomain(node, False))
    ads = spec.get("activeDeadlineSeconds")
    if ads is not None and not (1 <= _int(ads) <= _MAX_INT32):
        errs.append(invalid(f"{path}.activeDeadlineSeconds", _int(ads), inclusive_range_error(1, _MAX_INT32)))
    for fld in ("hostname", "subdomain"):
        v = _str(spec.get(fld))
        if v:
            errs.extend(invalid(f"{path}.{fld}", v, m) for m in is_dns1123_label(v))
    tols = _list(spec.get("tolerations"))
    if tols:
        errs.extend(validate_tolerations(tols, f"{path}.tolerations"))
    for i, alias in enumerate(_list(spec.get("hostAliases"))):
        alias = _dict(alias)
        errs.extend(is_valid_ip(f"{path}.hostAliases[{i}].ip", _str(alias.get("ip"))))
        for j, h in enumerate(_list(alias.get("hostnames"))):
            errs.extend(invalid(f"{path}.hostAliases[{i}].hostnames[{j}]", _str(h), m)
                        for m in is_dns1123_subdomain(_str(h)))
    pcn = _str(spec.get("priorityClassName"))
    if pcn:
        errs.extend(invalid(f"{path}.priorityClassName", pcn, m) for m in name_is_dns_subdomain(pcn, False))
    rcn = spec.get("runtimeClassName")
    if rcn is not None:
        errs.extend(invalid(f"{path}.runtimeClassName", _str(rcn), m) for m in name_is_dns_subdomain(_str(rcn), False))
    pp = spec.get("preemptionPolicy")
    if pp is not None:
        if pp == "":
            errs.append(required(f"{path}.preemptionPolicy", ""))
        elif pp not in _PREEMPTION_POLICIES:
            errs.append(unsupported(f"{path}.preemptionPolicy", _str(pp), _PREEMPTION_POLICIES))
    os_ = spec.get("os")
    if isinstance(os_, dict):
        name = _str(os_.get("name"))
        if not name:
            errs.append(required(f"{path}.os.name", "cannot be empty"))
        elif name not in ("linux", "windows"):
            errs.append(unsupported(f"{path}.os.name", name, ["linux", "windows"]))
    return errs


def _validate_host_network_deps(spec: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if spec.get("hostNetwork") is True:
        for i, c in enumerate(_list(spec.get("containers"))):
            for j, p in enumerate(_list(_dict(c).get("ports"))):
                p = _dict(p)
                hp, cp = _int(p.get("hostPort")), _int(p.get("containerPort"))
                if hp != cp:
                    errs.append(invalid(f"{path}.containers[{i}].ports[{j}].hostPort", hp,
                                        "must match `containerPort` when `hostNetwork` is true"))
    return errs


def _validate_pod_security_context(sc: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for fld in ("fsGroup", "runAsUser", "runAsGroup"):
        v = sc.get(fld)
        if v is not None and not 0 <= _int(v) <= 0xFFFFFFFF:
            errs.append(invalid(f"{path}.{fld}", _int(v), inclusive_range_error(0, 0xFFFFFFFF)))
    for i, gid in enumerate(_list(sc.get("supplementalGroups"))):
        if not 0 <= _int(gid) <= 0xFFFFFFFF:
            errs.append(invalid(f"{path}.supplementalGroups[{i}]", _int(gid), inclusive_range_error(0, 0xFFFFFFFF)))
    if sc.get("shareProcessNamespace") is True and sc.get("hostPID") is True:
        errs.append(invalid(f"{path}.shareProcessNamespace", True, "ShareProcessNamespace and HostPID cannot both be enabled"))
    return errs


def _validate_dns_config(cfg, policy: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if policy == "None":
        if not isinstance(cfg, dict):
            return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not _list(cfg.get("nameservers")):
            return [required(f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    if isinstance(cfg, dict):
        ns = _list(cfg.get("nameservers"))
        if len(ns) > 3:
            errs.append(invalid(f"{path}.nameservers", GoJSON(ns), "must not have more than 3 nameservers"))
        for i, n in enumerate(ns):
            errs.extend(is_valid_ip(f"{path}.nameservers[{i}]", _str(n)))
        for i, s in enumerate(_list(cfg.get("searches"))):
            s = _str(s)
            if s != ".":
                s = s.removesuffix(".")
                errs.extend(invalid(f"{path}.searches[{i}]", s, m) for m in is_dns1123_subdomain_with_underscore(s))
        for i, o in enumerate(_list(cfg.get("options"))):
            if not _str(_dict(o).get("name")):
                errs.append(required(f"{path}.options[{i}]", "must not be empty"))
    return errs


# -- volumes

_VOLUME_SOURCES = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
    "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk",
    "storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
)
_HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"]


def _validate_volumes(volumes: list, path: str) -> tuple[set[str], list[FieldError]]:
    names: set[str] = set()
    errs: list[FieldError] = []
    for i, vol in enumerate(volumes):
        vol = _dict(vol)
        idx = f"{path}[{i}]"
        name = _str(vol.get("name"))
        el = _validate_volume_source(vol, idx)
        if not name:
            el.append(required(f"{idx}.name", ""))
        else:
            el.extend(invalid(f"{idx}.name", name, m) for m in is_dns1123_label(name))
        if name in names:
            el.append(duplicate(f"{idx}.name", name))
        if not el:
            names.add(name)
        else:
            errs.extend(el)
    return names, errs


def _validate_volume_source(vol: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    for src in _VOLUME_SOURCES:
        if vol.get(src) is None:
            continue
        if count > 0:
            errs.append(forbidden(f"{path}.{src}", "may not specify more than 1 volume type"))
            continue
        count += 1
        s = _dict(vol.get(src))
        if src == "hostPath":
            p = _str(s.get("path"))
            if not p:
                errs.append(required(f"{path}.hostPath.path", ""))
            else:
                if ".." in p.split("/"):
                    errs.append(invalid(f"{path}.hostPath.path", p, "must not contain '..'"))
                t = s.get("type")
                if t is not None and t not in _HOST_PATH_TYPES:
                    errs.append(unsupported(f"{path}.hostPath.type", _str(t), _HOST_PATH_TYPES))
        elif src == "secret":
            if not _str(s.get("secretName")):
                errs.append(required(f"{path}.secret.secretName", ""))
        elif src == "configMap":
            if not _str(s.get("name")):
                errs.append(required(f"{path}.configMap.name", ""))
        elif src == "persistentVolumeClaim":
            if not _str(s.get("claimName")):
                errs.append(required(f"{path}.persistentVolumeClaim.claimName", ""))
        elif src == "nfs":
            if not _str(s.get("server")):
                errs.append(required(f"{path}.nfs.server", ""))
            if not _str(s.get("path")):
                errs.append(required(f"{path}.nfs.path", ""))
        elif src == "emptyDir":
            limit = s.get("sizeLimit")
            if limit is not None:
                from kubesim.api.quantity import from_json

                try:
                    if from_json(limit).value < 0:
                        errs.append(forbidden(f"{path}.emptyDir.sizeLimit", "SizeLimit field must be a valid resource quantity"))
                except ValueError:
                    pass
    if count == 0:
        errs.append(required(path, "must specify a volume type"))
    return errs


# -- tolerations and affinity


def validate_tolerations(tolerations: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, t in enumerate(tolerations):
        t = _dict(t)
        idx = f"{path}[{i}]"
        key = _str(t.get("key"))
        op = _str(t.get("operator"))
        effect = _str(t.get("effect"))
        value = _str(t.get("value"))
        if key:
            errs.extend(validate_label_name(key, f"{idx}.key"))
        if not key and op != "Exists":
            errs.append(invalid(f"{idx}.operator", op,
                                "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid(f"{idx}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if op in ("Equal", ""):
            msgs = is_valid_label_value(value)
            if msgs:
                errs.append(invalid(f"{idx}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errs.append(invalid(f"{idx}.operator", value, "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(unsupported(f"{idx}.operator", op, _TOLERATION_OPERATORS))
        if effect and effect not in TAINT_EFFECTS:
            errs.append(unsupported(f"{idx}.effect", effect, TAINT_EFFECTS))
    return errs


def _validate_node_selector_requirement(rq: dict, allow_invalid_values: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    op = _str(rq.get("operator"))
    values = _list(rq.get("values"))
    if op in ("In", "NotIn"):
        if not values:
            errs.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid(f"{path}.operator", op, "not a valid selector operator"))
    errs.extend(validate_label_name(_str(rq.get("key")), f"{path}.key"))
    if not allow_invalid_values:
        for j, v in enumerate(values):
            errs.extend(invalid(f"{path}.values[{j}]", _str(v), m) for m in is_valid_label_value(_str(v)))
    return errs


def _validate_node_field_selector_requirement(rq: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    op = _str(rq.get("operator"))
    values = _list(rq.get("values"))
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(required(f"{path}.values",
                                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(invalid(f"{path}.operator", op, "not a valid selector operator"))
    key = _str(rq.get("key"))
    if key != "metadata.name":
        errs.append(invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for j, v in enumerate(values):
            errs.extend(invalid(f"{path}.values[{j}]", _str(v), m) for m in name_is_dns_subdomain(_str(v), False))
    return errs


def validate_node_selector_term(term: dict, allow_invalid_values: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for j, rq in enumerate(_list(term.get("matchExpressions"))):
        errs.extend(_validate_node_selector_requirement(_dict(rq), allow_invalid_values, f"{path}.matchExpressions[{j}]"))
    for j, rq in enumerate(_list(term.get("matchFields"))):
        errs.extend(_validate_node_field_selector_requirement(_dict(rq), f"{path}.matchFields[{j}]"))
    return errs


def _validate_affinity(aff: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    na = aff.get("nodeAffinity")
    if isinstance(na, dict):
        p = f"{path}.nodeAffinity"
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(req, dict):
            tp = f"{p}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            terms = _list(req.get("nodeSelectorTerms"))
            if not terms:
                errs.append(required(tp, "must have at least one node selector term"))
            for i, term in enumerate(terms):
                errs.extend(validate_node_selector_term(_dict(term), False, f"{tp}[{i}]"))
        for i, pref in enumerate(_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            pref = _dict(pref)
            pp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            w = _int(pref.get("weight"))
            if w <= 0 or w > 100:
                errs.append(invalid(f"{pp}.weight", w, "must be in the range 1-100"))
            errs.extend(validate_node_selector_term(_dict(pref.get("preference")), True, f"{pp}.preference"))
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind)
        if not isinstance(pa, dict):
            continue
        p = f"{path}.{kind}"
        for i, term in enumerate(_list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            errs.extend(_validate_pod_affinity_term(_dict(term), f"{p}.requiredDuringSchedulingIgnoredDuringExecution[{i}]"))
        for i, wt in enumerate(_list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            wt = _dict(wt)
            wp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            w = _int(wt.get("weight"))
            if w <= 0 or w > 100:
                errs.append(invalid(f"{wp}.weight", w, "must be in the range 1-100"))
            errs.extend(_validate_pod_affinity_term(_dict(wt.get("podAffinityTerm")), f"{wp}.podAffinityTerm"))
    return errs


def _validate_pod_affinity_term(term: dict, path: str) -> list[FieldError]:
    errs = validate_label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    errs.extend(validate_label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector"))
    for ns in _list(term.get("namespaces")):
        errs.extend(invalid(f"{path}.namespace", _str(ns), m) for m in name_is_dns_label(_str(ns), False))
    tk = _str(term.get("topologyKey"))
    if not tk:
        errs.append(required(f"{path}.topologyKey", "can not be empty"))
    errs.extend(validate_label_name(tk, f"{path}.topologyKey"))
    return errs


def _validate_topology_spread(constraints: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, c in enumerate(constraints):
        c = _dict(c)
        p = f"{path}[{i}]"
        skew = _int(c.get("maxSkew"))
        if skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", skew, IS_NOT_POSITIVE_ERROR))
        tk = _str(c.get("topologyKey"))
        if not tk:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs.extend(validate_label_name(tk, f"{p}.topologyKey"))
        wu = _str(c.get("whenUnsatisfiable"))
        if wu not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(unsupported(f"{p}.whenUnsatisfiable", wu, ["DoNotSchedule", "ScheduleAnyway"]))
        for later in constraints[i + 1:]:
            later = _dict(later)
            if _str(later.get("topologyKey")) == tk and _str(later.get("whenUnsatisfiable")) == wu:
                errs.append(duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}", f"{{{tk}, {wu}}}"))
                break
        md = c.get("minDomains")
        if md is not None:
            if _int(md) <= 0:
                errs.append(invalid(f"{p}.minDomains", _int(md), IS_NOT_POSITIVE_ERROR))
            if wu != "DoNotSchedule":
                errs.append(invalid(f"{p}.minDomains", _int(md),
                                    f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {wu}"))
        for fld in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            v = c.get(fld)
            if v is not None and v not in ("Honor", "Ignore"):
                errs.append(unsupported(f"{p}.{fld}", _str(v), ["Honor", "Ignore"]))
        errs.extend(validate_label_selector(c.get("labelSelector"), f"{p}.labelSelector"))
    return errs
