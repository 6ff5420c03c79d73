"""LimitRanger: a namespace's LimitRanges default and bound its pods' and claims' resources.

Upstream: plugin/pkg/admission/limitranger/admission.go. ``Admit`` (mutating) fills each
container's and init container's missing requests and limits from the namespace's
LimitRanges' Container items (``defaultContainerResourceRequirements``,
``mergePodResourceRequirements``) and says what it set in the pod's
``kubernetes.io/limit-ranger`` annotation; ``Validate`` refuses a pod whose containers (Container
items) or whose whole requests/limits (Pod items, ``podRequests``/``podLimits``) fall outside an
item's min, max or maxLimitRequestRatio, and a claim whose storage request falls outside a
PersistentVolumeClaim item's min or max (``PersistentVolumeClaimValidateLimitFunc``). Every
failure of one LimitRange is reported together (``utilerrors.NewAggregate``) as
``<resource> "<name>" is forbidden: ...``.

Pods are handled on create only (their containers' resources cannot change through an update;
the ``resize`` subresource is not modelled), claims on create and update; an object being
deleted is left alone. Where upstream walks Go maps (random order), kubesim goes in resource
name order. Where the request has no cluster to read (mirror pods, a fresh cluster), nothing is
looked up.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import (
    CREATE,
    UPDATE,
    Attributes,
    MutationPlugin,
    ValidationPlugin,
    forbidden,
)

LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"
LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_PVC = "PersistentVolumeClaim"

_MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000  # resource.MaxMilliValue


class LimitRanger(MutationPlugin, ValidationPlugin):
    name = "LimitRanger"

    def admit(self, a: Attributes) -> None:
        if _supports(a) and a.kind == "Pod":
            for lr in _limit_ranges(a):
                pod_mutate_limit_func(lr, a.obj)

    def validate(self, a: Attributes) -> None:
        if not _supports(a):
            return
        for lr in _limit_ranges(a):
            if a.kind == "Pod":
                errs = pod_validate_limit_func(lr, a.obj)
            else:
                errs = persistent_volume_claim_validate_limit_func(lr, a.obj)
            if errs:
                raise forbidden(a, aggregate(errs))


def _supports(a: Attributes) -> bool:
    """SupportsAttributes (and the plugin's Create/Update handler): pods on create, claims on
    create and update, nothing marked for deletion."""
    if a.kind == "Pod":
        ok = a.operation == CREATE
    else:
        ok = a.kind == "PersistentVolumeClaim" and a.operation in (CREATE, UPDATE)
    if ok and a.old is not None and (a.old.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return ok and a.lister is not None


def _limit_ranges(a: Attributes) -> list[dict]:
    ns = (a.obj.get("metadata") or {}).get("namespace") or ""
    items = [lr for lr in a.lister("LimitRange") if (lr.get("metadata") or {}).get("namespace") == ns]
    return sorted(items, key=lambda lr: (lr.get("metadata") or {}).get("name") or "")


def aggregate(errs: list[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): one message as it is, several (repeats dropped)
    in brackets."""
    seen: list[str] = []
    for e in errs:
        if e not in seen:
            seen.append(e)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


# --- Admit -----------------------------------------------------------------------------------


def default_container_resource_requirements(lr: dict) -> tuple[dict, dict]:
    """defaultContainerResourceRequirements: the Container items' defaultRequest and default."""
    requests: dict = {}
    limits: dict = {}
    for item in (lr.get("spec") or {}).get("limits") or []:
        if (item or {}).get("type") == LIMIT_TYPE_CONTAINER:
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    return requests, limits


def _merge_container_resources(c: dict, requests: dict, limits: dict, prefix: str, notes: list[str]) -> None:
    """mergeContainerResources: the missing ones set, and noted."""
    res = c.get("resources")
    if not isinstance(res, dict):
        res = c["resources"] = {}
    have_limits = res.get("limits") if isinstance(res.get("limits"), dict) else {}
    have_requests = res.get("requests") if isinstance(res.get("requests"), dict) else {}
    set_limits = sorted(k for k in limits if k not in have_limits)
    set_requests = sorted(k for k in requests if k not in have_requests)
    if set_limits:
        res["limits"] = {**have_limits, **{k: limits[k] for k in set_limits}}
    if set_requests:
        res["requests"] = {**have_requests, **{k: requests[k] for k in set_requests}}
    if set_requests:
        notes.append(", ".join(set_requests) + f" request for {prefix} {c.get('name', '')}")
    if set_limits:
        notes.append(", ".join(set_limits) + f" limit for {prefix} {c.get('name', '')}")


def pod_mutate_limit_func(lr: dict, pod: dict) -> None:
    """PodMutateLimitFunc / mergePodResourceRequirements."""
    requests, limits = default_container_resource_requirements(lr)
    notes: list[str] = []
    spec = pod.get("spec") or {}
    for c in spec.get("containers") or []:
        _merge_container_resources(c, requests, limits, "container", notes)
    for c in spec.get("initContainers") or []:
        _merge_container_resources(c, requests, limits, "init container", notes)
    if notes:
        meta = pod.setdefault("metadata", {})
        annotations = meta.get("annotations")
        if not isinstance(annotations, dict):
            annotations = meta["annotations"] = {}
        annotations[LIMIT_RANGER_ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)


# --- Validate --------------------------------------------------------------------------------


def _values(req, lim, enforced) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli values where none overflows, else whole values."""
    r = req.int_value() if req is not None else 0
    li = lim.int_value() if lim is not None else 0
    e = enforced.int_value()
    if r <= _MAX_MILLI_VALUE and li <= _MAX_MILLI_VALUE and e <= _MAX_MILLI_VALUE:
        r = req.milli_value() if req is not None else 0
        li = lim.milli_value() if lim is not None else 0
        e = enforced.milli_value()
    return r, li, e


def min_constraint(limit_type: str, name: str, enforced, request: dict, limit: dict) -> str | None:
    """minConstraint."""
    req, lim = request.get(name), limit.get(name)
    r, li, e = _values(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {limit_type} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {limit_type} is {enforced}, but request is {req}"
    if lim is not None and li < e:
        return f"minimum {name} usage per {limit_type} is {enforced}, but limit is {lim}"
    return None


def max_request_constraint(limit_type: str, name: str, enforced, request: dict) -> str | None:
    """maxRequestConstraint (claims: only the request counts)."""
    req = request.get(name)
    r, _, e = _values(req, None, enforced)
    if req is None:
        return f"maximum {name} usage per {limit_type} is {enforced}.  No request is specified"
    if r > e:
        return f"maximum {name} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def max_constraint(limit_type: str, name: str, enforced, request: dict, limit: dict) -> str | None:
    """maxConstraint."""
    req, lim = request.get(name), limit.get(name)
    r, li, e = _values(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {limit_type} is {enforced}.  No limit is specified"
    if li > e:
        return f"maximum {name} usage per {limit_type} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {name} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def limit_request_ratio_constraint(limit_type: str, name: str, enforced, request: dict, limit: dict) -> str | None:
    """limitRequestRatioConstraint."""
    req, lim = request.get(name), limit.get(name)
    r, li, _ = _values(req, lim, enforced)
    if req is None or r == 0:
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                "but no request is specified or request is 0")
    if lim is None or li == 0:
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                "but no limit is specified or limit is 0")
    observed = li / r
    display = observed
    max_ratio = float(enforced.int_value())
    if enforced.int_value() <= _MAX_MILLI_VALUE:
        observed *= 1000
        max_ratio = float(enforced.milli_value())
    if observed > max_ratio:
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                f"but provided ratio is {display:.6f}")
    return None


def _parsed(rl) -> dict:
    from kubesim.api.quantity import from_json

    out = {}
    for k, v in (rl or {}).items() if isinstance(rl, dict) else ():
        try:
            out[k] = from_json(v)
        except ValueError:
            pass
    return out


def _check(limit_type: str, item: dict, requests: dict, limits: dict, errs: list[str]) -> None:
    for name, q in sorted(_parsed(item.get("min")).items()):
        errs.append(min_constraint(limit_type, name, q, requests, limits))
    for name, q in sorted(_parsed(item.get("max")).items()):
        errs.append(max_constraint(limit_type, name, q, requests, limits))
    for name, q in sorted(_parsed(item.get("maxLimitRequestRatio")).items()):
        errs.append(limit_request_ratio_constraint(limit_type, name, q, requests, limits))


def pod_validate_limit_func(lr: dict, pod: dict) -> list[str]:
    """PodValidateLimitFunc: each container (and init container) against Container items, the
    pod's requests and limits against Pod items."""
    errs: list = []
    spec = pod.get("spec") or {}
    for item in (lr.get("spec") or {}).get("limits") or []:
        item = item or {}
        limit_type = item.get("type")
        if limit_type == LIMIT_TYPE_CONTAINER:
            for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
                res = (c or {}).get("resources") or {}
                _check(limit_type, item, _parsed(res.get("requests")), _parsed(res.get("limits")), errs)
        if limit_type == LIMIT_TYPE_POD:
            requests, limits = pod_requests(pod), pod_limits(pod)
            _check(limit_type, item, requests, limits, errs)
    return [e for e in errs if e]


def persistent_volume_claim_validate_limit_func(lr: dict, pvc: dict) -> list[str]:
    """PersistentVolumeClaimValidateLimitFunc: the storage request within the min and max."""
    errs: list = []
    requests = _parsed(((pvc.get("spec") or {}).get("resources") or {}).get("requests"))
    for item in (lr.get("spec") or {}).get("limits") or []:
        item = item or {}
        if item.get("type") != LIMIT_TYPE_PVC:
            continue
        for name, q in sorted(_parsed(item.get("min")).items()):
            errs.append(min_constraint(LIMIT_TYPE_PVC, name, q, requests, {}))
        for name, q in sorted(_parsed(item.get("max")).items()):
            errs.append(max_request_constraint(LIMIT_TYPE_PVC, name, q, requests))
    return [e for e in errs if e]


def _pod_resources(pod: dict, field: str) -> dict:
    """podRequests / podLimits: the containers summed (sidecars too), raised to the largest
    init container step; the pod-level cpu and memory override (PodLevelResources)."""
    spec = pod.get("spec") or {}
    total: dict = {}

    def add(into: dict, rl: dict) -> None:
        for k, q in rl.items():
            into[k] = into[k].add(q) if k in into else q

    def maximum(into: dict, rl: dict) -> None:
        for k, q in rl.items():
            if k not in into or q.value > into[k].value:
                into[k] = q

    for c in spec.get("containers") or []:
        add(total, _parsed(((c or {}).get("resources") or {}).get(field)))
    sidecars: dict = {}
    init: dict = {}
    for c in spec.get("initContainers") or []:
        rl = _parsed(((c or {}).get("resources") or {}).get(field))
        if (c or {}).get("restartPolicy") == "Always":
            add(total, rl)
            add(sidecars, rl)
            step = dict(sidecars)
        else:
            step: dict = {}
            add(step, rl)
            add(step, sidecars)
        maximum(init, step)
    maximum(total, init)
    pod_level = _parsed((spec.get("resources") or {}).get(field))
    for k in ("cpu", "memory"):
        if k in pod_level:
            total[k] = pod_level[k]
    return total


def pod_requests(pod: dict) -> dict:
    return _pod_resources(pod, "requests")


def pod_limits(pod: dict) -> dict:
    return _pod_resources(pod, "limits")
