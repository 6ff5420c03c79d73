"""Validation of a pod's containers: names, images, ports, environment, mounts, probes, hooks,
security context and resources, as the API server checks them.

Written after kubernetes/kubernetes (v1.35) ``pkg/apis/core/validation/validation.go``
(``validateContainers``, ``validateInitContainers``, ``validateContainerCommon``,
``validateContainerPorts``, ``ValidateEnv``, ``ValidateEnvFrom``, ``ValidateVolumeMounts``,
``validateProbe``, ``validateLifecycle``, ``validateHandler``, ``validateResourceRequirements``,
``validateContainerResourceName``, ``ValidateResourceQuantityValue``) and
``pkg/apis/core/helper/helpers.go`` (``IsNativeResource``, ``IsExtendedResourceName``,
``IsHugePageResourceName``, ``IsOvercommitAllowed``, ``IsIntegerResourceName``).

Several bad resources come back in random order from a real server (Go's map iteration);
kubesim sorts names so output is deterministic. Not validated (accepted as given): hugepages
divisibility, Windows options.
"""

from __future__ import annotations

import re

from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    IS_NEGATIVE_ERROR,
    inclusive_range_error,
    is_dns1123_label,
    is_qualified_name,
    is_relaxed_env_var_name,
    is_valid_port_name,
    is_valid_port_num,
    name_is_dns_subdomain,
    not_found,
)
from kubesim.errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
    unsupported,
)

# kubesim.api.quantity (fractions, ~3 ms to import) is loaded when a quantity is first parsed;
# its Quantity is imported for type checkers only (and typing, ~3 ms too, not at all).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from kubesim.api.quantity import Quantity

_PULL_POLICIES = ["Always", "IfNotPresent", "Never"]
_PROTOCOLS = ["SCTP", "TCP", "UDP"]
_TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"]


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


def parse_or_error(value, path: str, errs: list[FieldError]) -> Quantity | None:
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
        errs.append(invalid(path, GoJSON(str(q), "Quantity"), "must be an integer"))
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
        q = parse_or_error(limits[name], fld, errs)
        if q is None:
            continue
        parsed_limits[name] = q
        errs.extend(validate_resource_quantity_value(name, q, fld))
    for name in sorted(requests):
        fld = f"{req_path}[{name}]"
        errs.extend(_validate_container_resource_name(name, fld))
        q = parse_or_error(requests[name], fld, errs)
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
# containers


def validate_containers(containers: list, volumes: set[str], grace, path: str) -> list[FieldError]:
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


def validate_init_containers(containers: list, regular: list, volumes: set[str], grace, path: str) -> list[FieldError]:
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
        # v1.35 lets init containers carry a resizePolicy: upstream's "must not be set for init
        # containers" check applies only without AllowSidecarResizePolicy, which follows the
        # InPlacePodVerticalScaling gate (GA, on).
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
        errs.append(invalid(path, GoJSON(sc, "*SecurityContext"),
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
