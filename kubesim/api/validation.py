"""Semantic validation of objects, as the API server's registry strategies run it.

Written after kubernetes/kubernetes (v1.35):

- ``pkg/apis/core/validation/validation.go``: ``ValidatePodCreate``/``ValidatePodUpdate``
  (``validatePodMetadataAndSpec``, ``ValidatePodSpec``, ``validateContainers``,
  ``validateInitContainers``, ``validateContainerCommon``, ``validateContainerPorts``,
  ``ValidateEnv``, ``ValidateVolumes``, ``ValidateVolumeMounts``, probes and handlers,
  ``validateResourceRequirements``, ``ValidateResourceQuantityValue``, ``ValidateTolerations``,
  ``validateAffinity`` and node/pod affinity terms, ``validateTopologySpreadConstraints``),
  ``ValidateNode``/``ValidateNodeUpdate`` (``validateNodeTaints``, pod CIDRs), ``ValidateNamespace``;
- ``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go`` (``ValidateObjectMetaAccessor``,
  ``ValidateObjectMetaAccessorUpdate``, annotations size, owner references, finalizers);
- ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`` (labels, selectors);
- ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go`` (``IsDNS1123Label``/
  ``Subdomain``, ports, ``MaxLenError``/``InclusiveRangeError`` texts: "must be no more than 63
  characters"), ``ip.go`` (``IsValidCIDR``); label keys and values (``IsQualifiedName`` and
  ``IsValidLabelValue``, which are ``pkg/api/validate/content``'s ``IsLabelKey``/``IsLabelValue``:
  "must be no more than 63 bytes") are ``kubesim.api.content``'s, quantities
  ``kubesim.api.quantity``'s;
- ``staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`` (how values print).

Like the API server, validation runs on the object *after* defaulting and admission
(``kubesim.api.defaults``); fields those always set (restartPolicy, dnsPolicy, ...) are still
checked, so a caller that skips defaulting gets upstream's ``Required value`` errors.

Decisions where kubesim cannot be byte-identical, or simplifies:

- Go iterates maps in random order, so several bad labels/resources come back in random
  order from a real server; kubesim sorts keys so output is deterministic.
- The pod-update ``Forbidden`` message carries upstream's exact text (v1.35: the list of
  updatable fields, a newline, then a ``cmp.Diff`` of the internal ``core.PodSpec``). go-cmp's
  output is deliberately unstable and prints Go structs; kubesim renders its own diff in the
  same shape: a ``  core.PodSpec{`` line, then ``- \\t<field>: <old JSON>`` / ``+ \\t<field>: <new JSON>``
  lines for each changed field (JSON paths relative to ``spec``), then ``  }``.
- Negative ``terminationGracePeriodSeconds`` is accepted on create, as upstream does (only
  ``nil`` is an error; the kubelet treats negatives as 1).
- Not validated (accepted as given): volume source internals beyond names, required keys and the
  one-source rule; hugepages divisibility; sysctls, seccomp/AppArmor annotations, Windows
  options; pod-level ``spec.resources``; ephemeral containers (refused on create as upstream).
- ``metadata.resourceVersion`` on update is the store's business and is not checked here.
- Bad values that upstream prints with Go's ``%#v`` (structs such as ``core.Taint``) are
  rendered in that syntax for the common cases and abbreviated (``{...}``) for the rest.

Adding a kind is one entry in ``VALIDATORS``: ``Kind -> (create_fn(obj), update_fn(new, old))``.
"""

from __future__ import annotations

import re

from kubesim.api.equality import cmp_diff, semantic_equal
from kubesim.api.gofmt import GoValue, go_quote, go_string_slice
from kubesim.api.meta.validation import (
    IS_NEGATIVE_ERROR,
    IS_NOT_POSITIVE_ERROR,
    inclusive_range_error,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_dns1123_subdomain_with_underscore,
    is_qualified_name,
    is_relaxed_env_var_name,
    is_valid_cidr,
    is_valid_ip,
    is_valid_label_value,
    is_valid_port_name,
    is_valid_port_num,
    name_is_dns_label,
    name_is_dns_subdomain,
    not_found,
    validate_kube_finalizer_name,
    validate_label_name,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, duplicate, forbidden, invalid, required, unsupported

# kubesim.api.quantity (fractions, ~3 ms to import) is loaded when a quantity is first parsed;
# its Quantity is imported for type checkers only (and typing, ~3 ms too, not at all).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubesim.api.quantity import Quantity

# ---------------------------------------------------------------------------------------------
# resources


_STANDARD_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}
_STANDARD_RESOURCES = {
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services", "replicationcontrollers",
    "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers",
}
_INTEGER_RESOURCES = {"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
                      "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}


def is_hugepage_resource(name: str) -> bool:
    return name.startswith("hugepages-")


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepage_resource(name)


def is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended_resource(name)


def _validate_resource_name(name: str, path: str) -> list[FieldError]:
    errs = [invalid(path, name, m) for m in is_qualified_name(name)]
    if errs:
        return errs
    if "/" not in name and not (name in _STANDARD_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))):
        errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    return errs


def _validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    errs = _validate_resource_name(name, path)
    if "/" not in name:
        if not (name in _STANDARD_CONTAINER_RESOURCES or is_hugepage_resource(name)):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _parse_or_error(value, path: str, errs: list[FieldError]) -> Quantity | None:
    from kubesim.api.quantity import from_json

    try:
        return from_json(value)
    except ValueError as e:
        errs.append(invalid(path, value if isinstance(value, str) else str(value), str(e)))
        return None


def validate_resource_quantity_value(name: str, q: Quantity, path: str) -> list[FieldError]:
    errs = []
    if q.value < 0:
        errs.append(invalid(path, str(q), IS_NEGATIVE_ERROR))
    if is_integer_resource(name) and q.value.denominator != 1:
        errs.append(invalid(path, GoValue(str(q)), "must be an integer"))
    return errs


def validate_resource_requirements(res, path: str) -> list[FieldError]:
    """validateResourceRequirements with validateContainerResourceName."""
    errs: list[FieldError] = []
    if not isinstance(res, dict):
        return errs
    limits = res.get("limits") or {}
    requests = res.get("requests") or {}
    lim_path, req_path = f"{path}.limits", f"{path}.requests"
    parsed_limits: dict[str, Quantity] = {}
    for name in sorted(limits):
        fld = f"{lim_path}[{name}]"
        errs.extend(_validate_container_resource_name(name, fld))
        q = _parse_or_error(limits[name], fld, errs)
        if q is None:
            continue
        parsed_limits[name] = q
        errs.extend(validate_resource_quantity_value(name, q, fld))
    for name in sorted(requests):
        fld = f"{req_path}[{name}]"
        errs.extend(_validate_container_resource_name(name, fld))
        q = _parse_or_error(requests[name], fld, errs)
        if q is None:
            continue
        errs.extend(validate_resource_quantity_value(name, q, fld))
        lim = parsed_limits.get(name)
        if lim is not None:
            if q.value != lim.value and not is_overcommit_allowed(name):
                errs.append(invalid(req_path, str(q), f"must be equal to {name} limit of {lim}"))
            elif q.value > lim.value:
                errs.append(invalid(req_path, str(q), f"must be less than or equal to {name} limit of {lim}"))
        elif name not in limits and not is_overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
    has_cpu_mem = any(n in ("cpu", "memory") for n in list(limits) + list(requests))
    has_huge = any(is_hugepage_resource(n) for n in list(limits) + list(requests))
    if has_huge and not has_cpu_mem:
        errs.append(forbidden(path, "HugePages require cpu or memory"))
    return errs


# ---------------------------------------------------------------------------------------------
# pods

_RESTART_POLICIES = ["Always", "OnFailure", "Never"]
_DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
_PULL_POLICIES = ["Always", "IfNotPresent", "Never"]
_PROTOCOLS = ["SCTP", "TCP", "UDP"]
_TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"]
_TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
_TOLERATION_OPERATORS = ["Equal", "Exists"]
_PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"]
_MAX_INT32 = 2**31 - 1

UPDATABLE_POD_SPEC_FIELDS = [
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
]

MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"


def _string_slice(values: list) -> GoValue:
    return GoValue(go_string_slice(values))


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


def validate_pod_create(pod: dict) -> list[FieldError]:
    errs = _validate_pod_metadata_and_spec(pod)
    spec = _dict(pod.get("spec"))
    if _list(spec.get("ephemeralContainers")):
        errs.append(forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and _list(spec.get("schedulingGates")):
        errs.append(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    return errs


def _validate_pod_metadata_and_spec(pod: dict, old: dict | None = None) -> list[FieldError]:
    meta = _dict(pod.get("metadata"))
    spec = _dict(pod.get("spec"))
    errs = validate_object_meta(meta, True, name_is_dns_subdomain)
    errs.extend(_validate_pod_specific_annotations(meta, spec, old))
    errs.extend(validate_pod_spec(spec, meta, "spec"))
    if not spec.get("serviceAccountName"):
        for vi, vol in enumerate(_list(spec.get("volumes"))):
            proj = _dict(_dict(vol).get("projected"))
            for si, src in enumerate(_list(proj.get("sources"))):
                if _dict(src).get("serviceAccountToken") is not None:
                    errs.append(forbidden(f"spec.volumes[{vi}].projected.sources[{si}].serviceAccountToken",
                                          "must not be specified when serviceAccountName is not set"))
    for key in ("containers", "initContainers"):
        for i, c in enumerate(_list(spec.get(key))):
            image = _str(_dict(c).get("image"))
            if len(image) != len(image.strip()):
                errs.append(invalid(f"spec.{key}[{i}].image", image, "must not have leading or trailing whitespace"))
    return errs


def _validate_pod_specific_annotations(meta: dict, spec: dict, old: dict | None) -> list[FieldError]:
    errs: list[FieldError] = []
    ann = _dict(meta.get("annotations"))
    path = "metadata.annotations"
    if MIRROR_POD_ANNOTATION in ann and not spec.get("nodeName"):
        errs.append(invalid(f"{path}[{MIRROR_POD_ANNOTATION}]", _str(ann[MIRROR_POD_ANNOTATION]),
                            "must set spec.nodeName if mirror pod annotation is set"))
    if POD_DELETION_COST_ANNOTATION in ann:
        allow_invalid = False
        if old is not None:
            old_cost = _dict(_dict(old.get("metadata")).get("annotations")).get(POD_DELETION_COST_ANNOTATION)
            allow_invalid = old_cost is not None and not _is_int32(old_cost)
        if not allow_invalid and not _is_int32(ann[POD_DELETION_COST_ANNOTATION]):
            errs.append(invalid(f"{path}[{POD_DELETION_COST_ANNOTATION}]", _str(ann[POD_DELETION_COST_ANNOTATION]),
                                "must be a 32bit integer"))
    return errs


def _is_int32(s) -> bool:
    s = _str(s)
    if not re.match(r"^[+-]?[0-9]+\Z", s):
        return False
    return -(2**31) <= int(s) <= _MAX_INT32


def validate_pod_spec(spec: dict, meta: dict | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is None:
        errs.append(required(f"{path}.terminationGracePeriodSeconds", ""))
    volumes, vol_errs = _validate_volumes(_list(spec.get("volumes")), f"{path}.volumes")
    errs.extend(vol_errs)
    restart = _str(spec.get("restartPolicy"))
    errs.extend(_validate_containers(_list(spec.get("containers")), volumes, grace, f"{path}.containers"))
    errs.extend(_validate_init_containers(_list(spec.get("initContainers")), _list(spec.get("containers")),
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
            errs.append(invalid(f"{path}.imagePullSecrets[{i}]", GoValue(f"core.LocalObjectReference{{Name:{go_quote(_str(ref.get('name')))}}}"),
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
            errs.append(invalid(f"{path}.nameservers", _string_slice(ns), "must not have more than 3 nameservers"))
        for i, n in enumerate(ns):
            errs.extend(is_valid_ip(f"{path}.nameservers[{i}]", _str(n)))
        for i, s in enumerate(_list(cfg.get("searches"))):
            s = _str(s)
            if s != ".":
                s = s[:-1] if s.endswith(".") else s
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


# -- containers


def _validate_containers(containers: list, volumes: set[str], grace, path: str) -> list[FieldError]:
    if not containers:
        return [required(path, "")]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, c in enumerate(containers):
        c = _dict(c)
        idx = f"{path}[{i}]"
        errs.extend(_validate_container_common(c, volumes, idx))
        name = _str(c.get("name"))
        if name in names:
            errs.append(duplicate(f"{idx}.name", name))
        else:
            names.add(name)
        if c.get("lifecycle") is not None:
            errs.extend(_validate_lifecycle(_dict(c.get("lifecycle")), grace, f"{idx}.lifecycle"))
        errs.extend(_validate_probe(c.get("livenessProbe"), f"{idx}.livenessProbe", success_one=True))
        errs.extend(_validate_probe(c.get("readinessProbe"), f"{idx}.readinessProbe", readiness=True))
        errs.extend(_validate_probe(c.get("startupProbe"), f"{idx}.startupProbe", success_one=True))
        if c.get("restartPolicy") is not None:
            errs.append(forbidden(f"{idx}.restartPolicy", "may not be set for non-init containers"))
    errs.extend(_check_host_port_conflicts(containers, path))
    return errs


def _validate_init_containers(containers: list, regular: list, volumes: set[str], grace, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names = {_str(_dict(c).get("name")) for c in regular}
    for i, c in enumerate(containers):
        c = _dict(c)
        idx = f"{path}[{i}]"
        errs.extend(_validate_container_common(c, volumes, idx))
        restart_always = False
        rp = c.get("restartPolicy")
        if rp is not None:
            if rp != "Always":
                errs.append(unsupported(f"{idx}.restartPolicy", _str(rp), ["Always"]))
            restart_always = rp == "Always"
        name = _str(c.get("name"))
        if name in names:
            errs.append(duplicate(f"{idx}.name", name))
        elif name:
            names.add(name)
        errs.extend(_check_host_port_conflicts([c], path))
        if restart_always:
            if c.get("lifecycle") is not None:
                errs.extend(_validate_lifecycle(_dict(c.get("lifecycle")), grace, f"{idx}.lifecycle"))
            errs.extend(_validate_probe(c.get("livenessProbe"), f"{idx}.livenessProbe", success_one=True))
            errs.extend(_validate_probe(c.get("readinessProbe"), f"{idx}.readinessProbe", readiness=True))
            errs.extend(_validate_probe(c.get("startupProbe"), f"{idx}.startupProbe", success_one=True))
        else:
            for fld in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if c.get(fld) is not None:
                    errs.append(forbidden(f"{idx}.{fld}", "may not be set for init containers without restartPolicy=Always"))
        if _list(c.get("resizePolicy")):
            errs.append(invalid(f"{idx}.resizePolicy", GoValue("[]core.ContainerResizePolicy{...}"),
                                "must not be set for init containers"))
    return errs


def _validate_container_common(c: dict, volumes: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = _str(c.get("name"))
    if not name:
        errs.append(required(f"{path}.name", ""))
    else:
        errs.extend(invalid(f"{path}.name", name, m) for m in is_dns1123_label(name))
    if not _str(c.get("image")):
        errs.append(required(f"{path}.image", ""))
    tmp = _str(c.get("terminationMessagePolicy"))
    if not tmp:
        errs.append(required(f"{path}.terminationMessagePolicy", ""))
    elif tmp not in _TERMINATION_MESSAGE_POLICIES:
        errs.append(unsupported(f"{path}.terminationMessagePolicy", tmp, _TERMINATION_MESSAGE_POLICIES))
    errs.extend(validate_container_ports(_list(c.get("ports")), f"{path}.ports"))
    errs.extend(_validate_env(_list(c.get("env")), f"{path}.env"))
    errs.extend(_validate_env_from(_list(c.get("envFrom")), f"{path}.envFrom"))
    errs.extend(_validate_volume_mounts(_list(c.get("volumeMounts")), volumes, f"{path}.volumeMounts"))
    pull = _str(c.get("imagePullPolicy"))
    if not pull:
        errs.append(required(f"{path}.imagePullPolicy", ""))
    elif pull not in _PULL_POLICIES:
        errs.append(unsupported(f"{path}.imagePullPolicy", pull, _PULL_POLICIES))
    errs.extend(validate_resource_requirements(_dict(c.get("resources")), f"{path}.resources"))
    errs.extend(_validate_container_security_context(c.get("securityContext"), f"{path}.securityContext"))
    return errs


def validate_container_ports(ports: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, p in enumerate(ports):
        p = _dict(p)
        idx = f"{path}[{i}]"
        name = _str(p.get("name"))
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                errs.extend(invalid(f"{idx}.name", name, m) for m in msgs)
            elif name in names:
                errs.append(duplicate(f"{idx}.name", name))
            else:
                names.add(name)
        cp = _int(p.get("containerPort"))
        if cp == 0:
            errs.append(required(f"{idx}.containerPort", ""))
        else:
            errs.extend(invalid(f"{idx}.containerPort", cp, m) for m in is_valid_port_num(cp))
        hp = _int(p.get("hostPort"))
        if hp != 0:
            errs.extend(invalid(f"{idx}.hostPort", hp, m) for m in is_valid_port_num(hp))
        proto = _str(p.get("protocol"))
        if not proto:
            errs.append(required(f"{idx}.protocol", ""))
        elif proto not in _PROTOCOLS:
            errs.append(unsupported(f"{idx}.protocol", proto, _PROTOCOLS))
    return errs


def _check_host_port_conflicts(containers: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for ci, c in enumerate(containers):
        for pi, p in enumerate(_list(_dict(c).get("ports"))):
            p = _dict(p)
            hp = _int(p.get("hostPort"))
            if hp == 0:
                continue
            key = f"{_str(p.get('protocol'))}/{_str(p.get('hostIP'))}/{hp}"
            if key in seen:
                errs.append(duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            else:
                seen.add(key)
    return errs


_ENV_FIELD_PATHS = ["metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                    "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"]


def _validate_env(env: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, ev in enumerate(env):
        ev = _dict(ev)
        idx = f"{path}[{i}]"
        name = _str(ev.get("name"))
        if not name:
            errs.append(required(f"{idx}.name", ""))
        else:
            errs.extend(invalid(f"{idx}.name", name, m) for m in is_relaxed_env_var_name(name))
        vf = ev.get("valueFrom")
        if isinstance(vf, dict):
            vpath = f"{idx}.valueFrom"
            sources = [k for k in ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef") if vf.get(k) is not None]
            fr = vf.get("fieldRef")
            if isinstance(fr, dict):
                fp = _str(fr.get("fieldPath"))
                if not _str(fr.get("apiVersion")):
                    errs.append(required(f"{vpath}.fieldRef.apiVersion", ""))
                elif not fp:
                    errs.append(required(f"{vpath}.fieldRef.fieldPath", ""))
                elif not re.match(r"^metadata\.(labels|annotations)\['[^']*'\]\Z", fp) and fp not in _ENV_FIELD_PATHS:
                    errs.append(unsupported(f"{vpath}.fieldRef.fieldPath", fp, sorted(_ENV_FIELD_PATHS)))
            for ref in ("configMapKeyRef", "secretKeyRef"):
                r = vf.get(ref)
                if isinstance(r, dict) and not _str(r.get("key")):
                    errs.append(required(f"{vpath}.{ref}.key", ""))
            if not sources:
                errs.append(invalid(vpath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
            elif ev.get("value"):
                errs.append(invalid(vpath, "", "may not be specified when `value` is not empty"))
            elif len(sources) > 1:
                errs.append(invalid(vpath, "", "may not have more than one field specified at a time"))
    return errs


def _validate_env_from(env_from: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, ev in enumerate(env_from):
        ev = _dict(ev)
        idx = f"{path}[{i}]"
        prefix = _str(ev.get("prefix"))
        if prefix:
            errs.extend(invalid(f"{idx}.prefix", prefix, m) for m in is_relaxed_env_var_name(prefix))
        n = 0
        for ref in ("configMapRef", "secretRef"):
            r = ev.get(ref)
            if r is not None:
                n += 1
                name = _str(_dict(r).get("name"))
                if not name:
                    errs.append(required(f"{idx}.{ref}.name", ""))
                else:
                    errs.extend(invalid(f"{idx}.{ref}.name", name, m) for m in name_is_dns_subdomain(name, True))
        if n == 0:
            errs.append(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif n > 1:
            errs.append(invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _validate_volume_mounts(mounts: list, volumes: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    paths: set[str] = set()
    for i, m in enumerate(mounts):
        m = _dict(m)
        idx = f"{path}[{i}]"
        name = _str(m.get("name"))
        if not name:
            errs.append(required(f"{idx}.name", ""))
        if name not in volumes:
            errs.append(not_found(f"{idx}.name", name))
        mp = _str(m.get("mountPath"))
        if not mp:
            errs.append(required(f"{idx}.mountPath", ""))
        if mp in paths:
            errs.append(invalid(f"{idx}.mountPath", mp, "must be unique"))
        paths.add(mp)
        for fld in ("subPath", "subPathExpr"):
            sp = _str(m.get(fld))
            if sp:
                if sp.startswith("/"):
                    errs.append(invalid(f"{path}.{fld}", sp, "must be a relative path"))
                if ".." in re.split(r"[/\\]", sp):
                    errs.append(invalid(f"{path}.{fld}", sp, "must not contain '..'"))
        if m.get("subPath") and m.get("subPathExpr"):
            errs.append(invalid(f"{idx}.subPathExpr", _str(m.get("subPathExpr")), "subPathExpr and subPath are mutually exclusive"))
    return errs


def _validate_container_security_context(sc, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not isinstance(sc, dict):
        return errs
    for fld in ("runAsUser", "runAsGroup"):
        v = sc.get(fld)
        if v is not None and not 0 <= _int(v) <= 0xFFFFFFFF:
            errs.append(invalid(f"{path}.{fld}", _int(v), inclusive_range_error(0, 0xFFFFFFFF)))
    if sc.get("allowPrivilegeEscalation") is False and sc.get("privileged") is True:
        errs.append(invalid(path, GoValue("&core.SecurityContext{...}"),
                            "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
    return errs


def _validate_probe(probe, path: str, success_one: bool = False, readiness: bool = False) -> list[FieldError]:
    if not isinstance(probe, dict):
        return []
    errs = _validate_handler(probe, ("exec", "httpGet", "tcpSocket", "grpc"), path)
    for fld in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        v = _int(probe.get(fld))
        if v < 0:
            errs.append(invalid(f"{path}.{fld}", v, IS_NEGATIVE_ERROR))
    tg = probe.get("terminationGracePeriodSeconds")
    if tg is not None and _int(tg) <= 0:
        errs.append(invalid(f"{path}.terminationGracePeriodSeconds", _int(tg), "must be greater than 0"))
    if success_one and _int(probe.get("successThreshold")) != 1:
        errs.append(invalid(f"{path}.successThreshold", _int(probe.get("successThreshold")), "must be 1"))
    if readiness and tg is not None:
        errs.append(invalid(f"{path}.terminationGracePeriodSeconds", _int(tg), "must not be set for readinessProbes"))
    return errs


def _validate_lifecycle(lc: dict, grace, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        h = lc.get(hook)
        if isinstance(h, dict):
            errs.extend(_validate_handler(h, ("exec", "httpGet", "tcpSocket", "sleep"), f"{path}.{hook}", grace))
    return errs


def _validate_handler(h: dict, kinds: tuple, path: str, grace=None) -> list[FieldError]:
    errs: list[FieldError] = []
    n = 0
    for k in kinds:
        v = h.get(k)
        if v is None:
            continue
        if n > 0:
            errs.append(forbidden(f"{path}.{k}", "may not specify more than 1 handler type"))
            continue
        n += 1
        v = _dict(v)
        if k == "exec" and not _list(v.get("command")):
            errs.append(required(f"{path}.exec.command", ""))
        elif k == "httpGet":
            if not _str(v.get("path")):
                errs.append(required(f"{path}.httpGet.path", ""))
            errs.extend(_validate_port_num_or_name(v.get("port"), f"{path}.httpGet.port"))
            scheme = _str(v.get("scheme"))
            if scheme not in ("HTTP", "HTTPS"):
                errs.append(unsupported(f"{path}.httpGet.scheme", scheme, ["HTTP", "HTTPS"]))
        elif k == "tcpSocket":
            errs.extend(_validate_port_num_or_name(v.get("port"), f"{path}.tcpSocket.port"))
        elif k == "grpc":
            errs.extend(_validate_port_num_or_name(_int(v.get("port")), f"{path}.grpc.port"))
        elif k == "sleep" and grace is not None:
            secs = _int(v.get("seconds"))
            if secs < 0 or secs > _int(grace):
                errs.append(invalid(f"{path}.sleep", secs,
                                    f"must be non-negative and less than terminationGracePeriodSeconds ({_int(grace)})"))
    if n == 0:
        errs.append(required(path, "must specify a handler type"))
    return errs


def _validate_port_num_or_name(port, path: str) -> list[FieldError]:
    if isinstance(port, str):
        return [invalid(path, port, m) for m in is_valid_port_name(port)]
    p = _int(port)
    return [invalid(path, p, m) for m in is_valid_port_num(p)]


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
        if effect and effect not in _TAINT_EFFECTS:
            errs.append(unsupported(f"{idx}.effect", effect, _TAINT_EFFECTS))
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


def _validate_node_selector_term(term: dict, allow_invalid_values: bool, path: str) -> list[FieldError]:
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
                errs.extend(_validate_node_selector_term(_dict(term), False, f"{tp}[{i}]"))
        for i, pref in enumerate(_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            pref = _dict(pref)
            pp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            w = _int(pref.get("weight"))
            if w <= 0 or w > 100:
                errs.append(invalid(f"{pp}.weight", w, "must be in the range 1-100"))
            errs.extend(_validate_node_selector_term(_dict(pref.get("preference")), True, f"{pp}.preference"))
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


# -- pod update


def validate_pod_update(new: dict, old: dict) -> list[FieldError]:
    new_meta, old_meta = _dict(new.get("metadata")), _dict(old.get("metadata"))
    errs = validate_object_meta_update(new_meta, old_meta)
    errs.extend(_validate_pod_metadata_and_spec(new, old))
    errs.extend(_validate_pod_annotation_updates(new_meta, old_meta))
    ns, os_ = _dict(new.get("spec")), _dict(old.get("spec"))
    for key in ("containers", "initContainers"):
        nc, oc = _list(ns.get(key)), _list(os_.get(key))
        if len(nc) != len(oc):
            errs.append(forbidden(f"spec.{key}", "pod updates may not add or remove containers"))
            return errs
        for i, c in enumerate(nc):
            image = _str(_dict(c).get("image"))
            if not image:
                errs.append(required(f"spec.{key}[{i}].image", ""))
            if len(image.strip()) != len(image):
                errs.append(invalid(f"spec.{key}[{i}].image", image, "must not have leading or trailing whitespace"))
    nads, oads = ns.get("activeDeadlineSeconds"), os_.get("activeDeadlineSeconds")
    if nads is not None:
        v = _int(nads)
        if v < 0 or v > _MAX_INT32:
            errs.append(invalid("spec.activeDeadlineSeconds", v, inclusive_range_error(0, _MAX_INT32)))
            return errs
        if oads is not None and _int(oads) < v:
            errs.append(invalid("spec.activeDeadlineSeconds", v, "must be less than or equal to previous value"))
            return errs
    elif oads is not None:
        errs.append(invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil value"))
    errs.extend(_validate_only_added_tolerations(_list(ns.get("tolerations")), _list(os_.get("tolerations"))))
    errs.extend(_validate_only_deleted_scheduling_gates(_list(ns.get("schedulingGates")), _list(os_.get("schedulingGates"))))
    if semantic_equal(ns, os_):
        return errs
    munged = _munge_pod_spec(ns, os_)
    if not semantic_equal(munged, os_):
        diff = cmp_diff(os_, munged)
        errs.append(forbidden("spec", "pod updates may not change fields other than "
                              + ",".join(UPDATABLE_POD_SPEC_FIELDS) + "\n" + diff))
    return errs


def _validate_pod_annotation_updates(new_meta: dict, old_meta: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    new_ann, old_ann = _dict(new_meta.get("annotations")), _dict(old_meta.get("annotations"))
    for k in sorted(old_ann):
        if k in new_ann and new_ann[k] == old_ann[k]:
            continue
        if k.startswith("container.apparmor.security.beta.kubernetes.io/"):
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not remove or update AppArmor annotations"))
        if k == MIRROR_POD_ANNOTATION:
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not remove or update mirror pod annotation"))
    for k in sorted(new_ann):
        if k in old_ann:
            continue
        if k.startswith("container.apparmor.security.beta.kubernetes.io/"):
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not add AppArmor annotations"))
        if k == MIRROR_POD_ANNOTATION:
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not add mirror pod annotation"))
    return errs


def _validate_only_added_tolerations(new: list, old: list) -> list[FieldError]:
    for o in old:
        o = _dict(o)
        found = False
        for n in new:
            n = _dict(n)
            clone = dict(o)
            if "tolerationSeconds" in n:
                clone["tolerationSeconds"] = n["tolerationSeconds"]
            else:
                clone.pop("tolerationSeconds", None)
            if semantic_equal(clone, n):
                found = True
                break
        if not found:
            return [forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")]
    return validate_tolerations(new, "spec.tolerations")


def _validate_only_deleted_scheduling_gates(new: list, old: list) -> list[FieldError]:
    errs: list[FieldError] = []
    old_names = {_str(_dict(g).get("name")) for g in old}
    added: dict[str, int] = {}
    for i, g in enumerate(new):
        added[_str(_dict(g).get("name"))] = i
    for name, i in added.items():
        if name not in old_names:
            errs.append(forbidden(f"spec.schedulingGates[{i}].name",
                                  f"only deletion is allowed, but found new scheduling gate '{name}'"))
    return errs


def _munge_pod_spec(new: dict, old: dict) -> dict:
    import copy

    m = copy.deepcopy(new)
    for key in ("containers", "initContainers"):
        olds = _list(old.get(key))
        for i, c in enumerate(_list(m.get(key))):
            if isinstance(c, dict) and i < len(olds):
                oi = _dict(olds[i]).get("image")
                if oi is None:
                    c.pop("image", None)
                else:
                    c["image"] = oi
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in old:
            m[key] = copy.deepcopy(old[key])
        else:
            m.pop(key, None)
    og = old.get("terminationGracePeriodSeconds")
    if isinstance(og, int) and og < 0 and m.get("terminationGracePeriodSeconds") == 1:
        m["terminationGracePeriodSeconds"] = og
    if _list(old.get("schedulingGates")):
        # gated pods may add to nodeSelector and tighten node affinity; kubesim allows both wholesale
        if "nodeSelector" in old:
            m["nodeSelector"] = copy.deepcopy(old["nodeSelector"])
        else:
            m.pop("nodeSelector", None)
        oaff = _dict(old.get("affinity"))
        if isinstance(m.get("affinity"), dict) or oaff:
            maff = _dict(m.get("affinity"))
            if "nodeAffinity" in oaff:
                maff["nodeAffinity"] = copy.deepcopy(oaff["nodeAffinity"])
            else:
                maff.pop("nodeAffinity", None)
            if maff or "affinity" in old:
                m["affinity"] = maff
            else:
                m.pop("affinity", None)
    return m



# ---------------------------------------------------------------------------------------------
# nodes


def _go_taint(t: dict) -> str:
    added = t.get("timeAdded")
    ta = "(*v1.Time)(nil)" if not added else f"time.Date({go_quote(_str(added))})"
    return (f"core.Taint{{Key:{go_quote(_str(t.get('key')))}, Value:{go_quote(_str(t.get('value')))}, "
            f"Effect:{go_quote(_str(t.get('effect')))}, TimeAdded:{ta}}}")


def validate_node_taints(taints: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    unique: dict[str, set[str]] = {}
    for i, t in enumerate(taints):
        t = _dict(t)
        idx = f"{path}[{i}]"
        key, effect = _str(t.get("key")), _str(t.get("effect"))
        errs.extend(validate_label_name(key, f"{idx}.key"))
        msgs = is_valid_label_value(_str(t.get("value")))
        if msgs:
            errs.append(invalid(f"{idx}.value", _str(t.get("value")), ";".join(msgs)))
        if not effect:
            errs.append(required(f"{idx}.effect", ""))
        elif effect not in _TAINT_EFFECTS:
            errs.append(unsupported(f"{idx}.effect", effect, _TAINT_EFFECTS))
        if key in unique.get(effect, ()):
            errs.append(FieldError(idx, "Duplicate value", "taints must be unique by key and effect pair",
                                   GoValue(_go_taint(t)), True))
            continue
        unique.setdefault(effect, set()).add(key)
    return errs


def _node_pod_cidrs(spec: dict) -> list:
    cidrs = _list(spec.get("podCIDRs"))
    if not cidrs and spec.get("podCIDR"):
        cidrs = [spec.get("podCIDR")]
    return cidrs


def validate_node_create(node: dict) -> list[FieldError]:
    meta = _dict(node.get("metadata"))
    spec = _dict(node.get("spec"))
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    taints = _list(spec.get("taints"))
    if taints:
        # upstream reports node taints under metadata.taints (validation.go passes the metadata path)
        errs.extend(validate_node_taints(taints, "metadata.taints"))
    errs.extend(_validate_node_resources(node))
    cidrs = _node_pod_cidrs(spec)
    if cidrs:
        errs.extend(_validate_pod_cidrs(cidrs))
    return errs


def _validate_pod_cidrs(cidrs: list) -> list[FieldError]:
    import ipaddress

    errs: list[FieldError] = []
    for i, c in enumerate(cidrs):
        errs.extend(is_valid_cidr(f"spec.podCIDRs[{i}]", _str(c)))
    if len(cidrs) > 1:
        families = []
        for c in cidrs:
            try:
                families.append(ipaddress.ip_network(_str(c), strict=False).version)
            except ValueError:
                families.append(0)
        if len(cidrs) > 2 or len(set(families)) != 2:
            errs.append(invalid("spec.podCIDRs", _string_slice(cidrs), "may specify no more than one CIDR for each IP family"))
        seen: set[str] = set()
        for i, c in enumerate(cidrs):
            if c in seen:
                errs.append(duplicate(f"spec.podCIDRs[{i}]", _str(c)))
            seen.add(c)
    return errs


def _validate_node_resources(node: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    status = _dict(node.get("status"))
    for fld in ("capacity", "allocatable"):
        res = _dict(status.get(fld))
        for name in sorted(res):
            path = f"status.{fld}.{name}"
            q = _parse_or_error(res[name], path, errs)
            if q is not None:
                errs.extend(validate_resource_quantity_value(name, q, path))
    return errs


def validate_node_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    errs.extend(_validate_node_resources(new))
    seen: list = []
    for i, a in enumerate(_list(_dict(new.get("status")).get("addresses"))):
        if a in seen:
            a = _dict(a)
            errs.append(duplicate(f"status.addresses[{i}]", GoValue(
                f"core.NodeAddress{{Type:{go_quote(_str(a.get('type')))}, Address:{go_quote(_str(a.get('address')))}}}")))
        seen.append(a)
    ns, os_ = _dict(new.get("spec")), _dict(old.get("spec"))
    old_cidrs, new_cidrs = _node_pod_cidrs(os_), _node_pod_cidrs(ns)
    if old_cidrs:
        msg = "node updates may not change podCIDR except from \"\" to valid"
        if len(old_cidrs) != len(new_cidrs):
            errs.append(forbidden("spec.podCIDRs", msg))
        else:
            for a, b in zip(old_cidrs, new_cidrs):
                if a != b:
                    errs.append(forbidden("spec.podCIDRs", msg))
    if os_.get("providerID") and os_.get("providerID") != ns.get("providerID"):
        errs.append(forbidden("spec.providerID", "node updates may not change providerID except from \"\" to valid"))
    taints = _list(ns.get("taints"))
    if taints:
        errs.extend(validate_node_taints(taints, "metadata.taints"))
    if _str(ns.get("externalID")) != _str(os_.get("externalID")):
        errs.append(forbidden("spec.externalID", "may not be updated"))
    return errs


# ---------------------------------------------------------------------------------------------
# namespaces


def validate_namespace_create(ns: dict) -> list[FieldError]:
    errs = validate_object_meta(_dict(ns.get("metadata")), False, name_is_dns_label)
    for f in _list(_dict(ns.get("spec")).get("finalizers")):
        f = _str(f)
        errs.extend(invalid("spec.finalizers", f, m) for m in is_qualified_name(f))
        errs.extend(validate_kube_finalizer_name(f, "spec.finalizers"))
    return errs


def validate_namespace_update(new: dict, old: dict) -> list[FieldError]:
    return validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))


# ---------------------------------------------------------------------------------------------
# dispatch

VALIDATORS = {
    "Pod": (validate_pod_create, validate_pod_update),
    "Node": (validate_node_create, validate_node_update),
    "Namespace": (validate_namespace_create, validate_namespace_update),
}


_APPS_KINDS = ("Deployment", "ReplicaSet", "DaemonSet")  # validated by kubesim.api.apps


def _apps_validators() -> dict:
    from kubesim.api import apps

    return apps.VALIDATORS


def _group_validators() -> dict:
    from kubesim.api import policy, scheduling, storage

    return {**scheduling.VALIDATORS, **policy.VALIDATORS, **storage.VALIDATORS}


# validated by kubesim.api.scheduling, .policy and .storage
_GROUP_KINDS = ("PriorityClass", "PodDisruptionBudget", "PersistentVolume", "PersistentVolumeClaim",
                "StorageClass", "CSINode")


def validate_object(obj: dict, old: dict | None = None) -> list[FieldError]:
    """The API server's verdict on a create (``old`` is None) or an update of ``obj``.

    Returns [] for kinds without validation here. Expects a defaulted object, as the server
    validates after defaulting and admission. Errors repeating an earlier message are dropped,
    as ``field.ErrorList.ToAggregate`` does for the server's message."""
    kind = obj.get("kind", "")
    entry = VALIDATORS.get(kind) or (_apps_validators().get(kind) if kind in _APPS_KINDS else None) or \
        (_group_validators().get(kind) if kind in _GROUP_KINDS else None)
    if entry is None:
        return []
    create, update = entry
    errs = create(obj) if old is None else update(obj, old)
    # the server's message comes from ErrorList.ToAggregate(), which drops repeated messages
    seen: set[str] = set()
    out = []
    for e in errs:
        text = str(e)
        if text not in seen:
            seen.add(text)
            out.append(e)
    return out
