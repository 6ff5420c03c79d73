"""Quota evaluation: what an object costs against a ResourceQuota, and whether it may be created.

Upstream: pkg/quota/v1 (``resources.go``: ``Add``, ``Mask``, ``LessThanOrEqual``,
``RemoveZeros``), pkg/quota/v1/generic (``Matches``, ``MatchesNoScopeFunc``, the object count
evaluator ``count/<resource>[.<group>]`` with its legacy aliases, ``CalculateUsageStats``),
pkg/quota/v1/evaluator/core (``pods.go``: ``PodUsageFunc``, ``QuotaV1Pod``,
``podComputeUsageHelper``, ``podMatchesScopeFunc``, ``Constraints``; ``services.go``;
``persistent_volume_claims.go``; ``registry.go``: ``legacyObjectCountAliases``) and
staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go (``CheckRequest``,
``prettyPrint``, ``prettyPrintResourceNames``, ``getScopeSelectorsFromQuota``).

One evaluation serves both the ResourceQuota admission plugin
(``kubesim.apiserver.admission.resourcequota``) and the resource quota controller
(``kubesim.controllers.resourcequota``): :func:`usage` of one object, :func:`calculate_used` of a
quota over its namespace's objects, :func:`check_request` for a create or an update.

Where kubesim differs: a claim's storage usage is its request (the larger
``status.allocatedResources`` of an expanded claim is not looked at); the VolumeAttributesClass
and CrossNamespacePodAffinity scopes never match; there are no limited resources
(``AdmissionConfiguration``'s ``limitedResources``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubesim.api.quantity import Quantity, from_json

ResourceList = dict  # resource name -> Quantity

POD_RESOURCES = frozenset({
    "count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
})
_POD_RESOURCE_PREFIXES = ("hugepages-", "requests.hugepages-")
# the pod resources Constraints requires every container to set, when a quota limits them
VALIDATION_SET = ("cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory")
SERVICE_RESOURCES = frozenset({"count/services", "services", "services.loadbalancers", "services.nodeports"})
PVC_RESOURCES = ("persistentvolumeclaims", "requests.storage")
STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"
DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"  # resourceapi.ResourceDeviceClassPrefix
# registry.go legacyObjectCountAliases: the object count quotas that have an old name too
LEGACY_OBJECT_COUNT_ALIASES = {"ConfigMap": "configmaps", "ResourceQuota": "resourcequotas",
                               "ReplicationController": "replicationcontrollers", "Secret": "secrets"}

ONE = Quantity(from_json("1").value, "DecimalSI")
ZERO = Quantity()


def _q(n: int) -> Quantity:
    return from_json(str(n))


def object_count_name(resource: str, group: str) -> str:
    """ObjectCountQuotaResourceNameFor: ``count/<resource>`` (core), ``count/<resource>.<group>``."""
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def _count_name(kind: str) -> str:
    from kubesim.api import kinds

    try:
        info = kinds.by_kind(kind)
    except KeyError:
        return f"count/{kind.lower()}s"
    return object_count_name(info.plural, info.group)


# --- ResourceList arithmetic (pkg/quota/v1/resources.go) ---------------------------------------


def add(a: ResourceList, b: ResourceList) -> ResourceList:
    """Add: the sum of both lists, key by key."""
    out = dict(a)
    for k, q in b.items():
        out[k] = out[k].add(q) if k in out else q
    return out


def mask(rl: ResourceList, names: Iterable[str]) -> ResourceList:
    names = set(names)
    return {k: q for k, q in rl.items() if k in names}


def less_than_or_equal(a: ResourceList, b: ResourceList) -> tuple[bool, list[str]]:
    """LessThanOrEqual: whether every value of ``a`` that ``b`` also has is within it."""
    exceeded = [k for k, q in a.items() if k in b and q.value > b[k].value]
    return not exceeded, exceeded


def remove_zeros(rl: ResourceList) -> ResourceList:
    return {k: q for k, q in rl.items() if q.value != 0}


def pretty_print(rl: ResourceList) -> str:
    """prettyPrint: ``name=value`` pairs in name order, comma-separated."""
    return ",".join(f"{k}={rl[k]}" for k in sorted(rl))


def parsed(rl) -> ResourceList:
    out: ResourceList = {}
    for k, v in (rl.items() if isinstance(rl, dict) else ()):
        try:
            out[k] = from_json(v)
        except ValueError:
            pass
    return out


# --- pods (evaluator/core/pods.go) -------------------------------------------------------------


def is_terminating(pod: dict) -> bool:
    """IsTerminating: an activeDeadlineSeconds of 0 or more."""
    ads = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return isinstance(ads, int) and not isinstance(ads, bool) and ads >= 0


def is_best_effort(pod: dict) -> bool:
    from kubesim.api.pods import qos_class

    return qos_class(pod) == "BestEffort"


def quota_v1_pod(pod: dict, now: float) -> bool:
    """QuotaV1Pod: a pod counts (beyond its object count) unless it has finished, or its
    deletion's grace period is over."""
    if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
        return False
    md = pod.get("metadata") or {}
    grace = md.get("deletionGracePeriodSeconds")
    if md.get("deletionTimestamp") and grace is not None:
        from datetime import UTC, datetime

        ts = str(md["deletionTimestamp"]).strip()
        if ts.endswith(("Z", "z")):
            ts = ts[:-1] + "+00:00"
        try:
            at = datetime.fromisoformat(ts)
        except ValueError:
            return True
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        if now > at.timestamp() + float(grace):
            return False
    return True


def pod_compute_usage_helper(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """podComputeUsageHelper: a pod (or container) as the compute resources quota counts."""
    result: ResourceList = {"pods": ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            result[name] = requests[name]
            result[f"requests.{name}"] = requests[name]
        if name in limits:
            result[f"limits.{name}"] = limits[name]
    from kubesim.api.core.container_validation import is_extended_resource

    for name, q in requests.items():
        if name.startswith("hugepages-"):
            result[name] = q
            result[f"requests.{name}"] = q
        if is_extended_resource(name) or name.startswith(DEVICE_CLASS_PREFIX):  # IsDRAExtendedResourceName
            result[f"requests.{name}"] = q
    return result


def pod_usage(pod: dict, now: float) -> ResourceList:
    """PodUsageFunc."""
    from kubesim.api.resource import pod_limits, pod_requests

    result: ResourceList = {"count/pods": ONE}
    if not quota_v1_pod(pod, now):
        return result
    return add(result, pod_compute_usage_helper(pod_requests(pod), pod_limits(pod)))


def pod_constraints(required: Iterable[str], pod: dict) -> str | None:
    """Constraints: every container must set what a matching quota limits of ``VALIDATION_SET``
    (``must specify limits.cpu for: c; requests.memory for: c,d``); none when the pod sets
    pod-level resources."""
    from kubesim.api.resource import is_pod_level_resources_set

    if is_pod_level_resources_set(pod):
        return None
    required_set = set(required) & set(VALIDATION_SET)
    missing: dict[str, set[str]] = {}
    spec = pod.get("spec") or {}
    for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
        res = (c or {}).get("resources") or {}
        have = pod_compute_usage_helper(parsed(res.get("requests")), parsed(res.get("limits")))
        for name in required_set - set(have):
            missing.setdefault(name, set()).add((c or {}).get("name", ""))
    if not missing:
        return None
    return "must specify " + "; ".join(f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing))


def _selector_matches(selector: dict, value: str | None) -> bool:
    """ScopedResourceSelectorRequirementsAsSelector's label requirement on one key, against a
    label set holding ``value`` (None: no such label)."""
    op, values = selector.get("operator"), selector.get("values") or []
    if op == "In":
        return value is not None and value in values
    if op == "NotIn":
        return value is None or value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    return False


def pod_matches_scope(selector: dict, pod: dict) -> bool:
    """podMatchesScopeFunc."""
    scope = selector.get("scopeName")
    if scope == "Terminating":
        return is_terminating(pod)
    if scope == "NotTerminating":
        return not is_terminating(pod)
    if scope == "BestEffort":
        return is_best_effort(pod)
    if scope == "NotBestEffort":
        return not is_best_effort(pod)
    if scope == "PriorityClass":
        pcn = (pod.get("spec") or {}).get("priorityClassName") or ""
        if selector.get("operator") == "Exists":
            return bool(pcn)
        return _selector_matches(selector, pcn or None)
    return False


def _is_extended_resource_name_for_quota(name: str) -> bool:
    """isExtendedResourceNameForQuota: ``requests.<extended or device class resource>``."""
    from kubesim.api.core.container_validation import is_native_resource

    non_native = not is_native_resource(name)
    implicit = name.startswith("requests." + DEVICE_CLASS_PREFIX)
    return (non_native or implicit) and name.startswith("requests.")


# --- the evaluators --------------------------------------------------------------------------


def matching_resources(kind: str, names: Iterable[str]) -> list[str]:
    """MatchingResources of the kind's evaluator: the quota resources its objects use."""
    names = list(names)
    if kind == "Pod":
        return [n for n in names if n in POD_RESOURCES or n.startswith(_POD_RESOURCE_PREFIXES)
                or _is_extended_resource_name_for_quota(n)]
    if kind == "Service":
        return [n for n in names if n in SERVICE_RESOURCES]
    if kind == "PersistentVolumeClaim":
        return [n for n in names if n == "count/persistentvolumeclaims" or n in PVC_RESOURCES
                or any(n.endswith(STORAGE_CLASS_SUFFIX + r) for r in PVC_RESOURCES)]
    own = {_count_name(kind)}
    if kind in LEGACY_OBJECT_COUNT_ALIASES:
        own.add(LEGACY_OBJECT_COUNT_ALIASES[kind])
    return [n for n in names if n in own]


def usage(obj: dict, now: float) -> ResourceList:
    """Usage: what one object costs."""
    kind = obj.get("kind", "")
    if kind == "Pod":
        return pod_usage(obj, now)
    if kind == "Service":
        spec = obj.get("spec") or {}
        ports = len(spec.get("ports") or [])
        result = {"count/services": ONE, "services": ONE, "services.loadbalancers": ZERO,
                  "services.nodeports": ZERO}
        if spec.get("type") == "NodePort":
            result["services.nodeports"] = _q(ports)
        elif spec.get("type") == "LoadBalancer":
            if spec.get("allocateLoadBalancerNodePorts") is False:
                result["services.nodeports"] = _q(sum(1 for p in spec.get("ports") or [] if (p or {}).get("nodePort")))
            else:
                result["services.nodeports"] = _q(ports)
            result["services.loadbalancers"] = ONE
        return result
    if kind == "PersistentVolumeClaim":
        from kubesim.api.volumes import claim_class

        result = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
        cls = claim_class(obj)
        if cls:
            result[f"{cls}{STORAGE_CLASS_SUFFIX}persistentvolumeclaims"] = ONE
        storage = parsed(((obj.get("spec") or {}).get("resources") or {}).get("requests")).get("storage")
        if storage is not None:
            result["requests.storage"] = storage
            if cls:
                result[f"{cls}{STORAGE_CLASS_SUFFIX}requests.storage"] = storage
        return result
    result = {_count_name(kind): ONE}
    if kind in LEGACY_OBJECT_COUNT_ALIASES:
        result[LEGACY_OBJECT_COUNT_ALIASES[kind]] = ONE
    return result


def scope_selectors(quota: dict) -> list[dict]:
    """getScopeSelectorsFromQuota: each scope as an Exists requirement, then the scopeSelector's."""
    spec = quota.get("spec") or {}
    out = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    out.extend(e for e in ((spec.get("scopeSelector") or {}).get("matchExpressions") or []) if isinstance(e, dict))
    return out


def matches(quota: dict, obj: dict, hard_names: Iterable[str]) -> bool:
    """generic.Matches: the quota limits something the object uses, and every scope matches it
    (only pods have scopes; MatchesNoScopeFunc for the others)."""
    kind = obj.get("kind", "")
    if not matching_resources(kind, hard_names):
        return False
    for selector in scope_selectors(quota):
        if kind != "Pod" or not pod_matches_scope(selector, obj):
            return False
    return True


def calculate_used(quota: dict, objects: Iterable[dict], now: float) -> ResourceList:
    """What the quota controller stores as ``status.used``: for each hard resource some
    evaluator tracks, zero plus the usage of every object of the namespace the quota matches
    (``CalculateUsage`` / ``CalculateUsageStats``)."""
    hard = list((quota.get("spec") or {}).get("hard") or {})
    used: ResourceList = {}
    by_kind: dict[str, list[dict]] = {}
    for obj in objects:
        by_kind.setdefault(obj.get("kind", ""), []).append(obj)
    for kind in tracked_kinds(hard):
        names = matching_resources(kind, hard)
        if not names:
            continue
        total: ResourceList = {n: ZERO for n in names}
        for obj in by_kind.get(kind, ()):
            if all(kind == "Pod" and pod_matches_scope(s, obj) for s in scope_selectors(quota)):
                total = add(total, mask(usage(obj, now), names))
        used.update(total)
    return used


def tracked_kinds(hard_names: Iterable[str]) -> list[str]:
    """The kinds whose objects a quota of these resources counts."""
    from kubesim.api import kinds

    hard_names = list(hard_names)
    out = []
    if matching_resources("Pod", hard_names):
        out.append("Pod")
    if matching_resources("Service", hard_names):
        out.append("Service")
    if matching_resources("PersistentVolumeClaim", hard_names):
        out.append("PersistentVolumeClaim")
    for kind in LEGACY_OBJECT_COUNT_ALIASES:
        if kinds.REGISTRY.kinds_named(kind) and matching_resources(kind, hard_names) and kind not in out:
            out.append(kind)
    for name in hard_names:
        if name.startswith("count/"):
            info = _kind_of_count(name[len("count/"):])
            if info is not None and info.kind not in out:
                out.append(info.kind)
    return out


def _kind_of_count(resource: str):
    from kubesim.api import kinds

    plural, _, group = resource.partition(".")
    for info in kinds.REGISTRY.all():
        if info.plural == plural and info.group == group and info.namespaced:
            return info
    return None


def handles(operation: str, obj: dict, old: dict | None) -> bool:
    """The evaluator's Handles: creates; updates of services and claims (their type or size can
    change) and of a pod whose activeDeadlineSeconds makes it (not) terminating."""
    if operation == "CREATE":
        return True
    if operation != "UPDATE":
        return False
    kind = obj.get("kind", "")
    if kind == "Pod":
        return old is not None and is_terminating(old) != is_terminating(obj)
    return kind in ("Service", "PersistentVolumeClaim")


def subtract_with_non_negative_result(a: ResourceList, b: ResourceList) -> ResourceList:
    """SubtractWithNonNegativeResult: ``a - b`` key by key over ``a``'s keys, never below zero."""
    out: ResourceList = {}
    for k, q in a.items():
        value = q.value - b[k].value if k in b else q.value
        out[k] = Quantity(max(value, 0), q.format)
    return out


def check_request(quotas: list[dict], obj: dict, now: float,
                  used_of: Callable[[dict], ResourceList], old: dict | None = None) -> str | None:
    """CheckRequest: the reason the object may not be created (or, with ``old``, updated to
    ``obj``), the text after ``is forbidden: ``, or None. ``used_of(quota)`` is the quota's
    current use. An update is charged what it adds to the old object's use, for each quota the
    old object matched too."""
    kind = obj.get("kind", "")
    interesting = []
    for quota in sorted(quotas, key=lambda q: (q.get("metadata") or {}).get("name") or ""):
        name = (quota.get("metadata") or {}).get("name") or ""
        status_hard = parsed((quota.get("status") or {}).get("hard"))
        if not matches(quota, obj, status_hard):
            continue
        restricted = matching_resources(kind, status_hard)
        if kind == "Pod":
            err = pod_constraints(restricted, obj)
            if err:
                return f"failed quota: {name}: {err}"
        used = parsed((quota.get("status") or {}).get("used"))
        if not all(r in used for r in restricted):
            return f"status unknown for quota: {name}, resources: {','.join(sorted(restricted))}"
        interesting.append((quota, name, status_hard))
    if not interesting:
        return None
    input_usage = usage(obj, now)
    negative = sorted(k for k, q in input_usage.items() if q.value < 0)
    if negative:
        return f"quota usage is negative for resource(s): {','.join(negative)}"
    prev = usage(old, now) if old is not None and (old.get("metadata") or {}).get("resourceVersion") else None
    deltas = []
    for quota, name, hard in interesting:
        delta = input_usage
        if prev is not None and matches(quota, old, hard):
            delta = subtract_with_non_negative_result(input_usage, prev)
        delta = remove_zeros(delta)
        if delta:
            deltas.append((quota, name, hard, delta))
    for quota, name, hard, delta in deltas:
        requested = mask(delta, hard)
        used = used_of(quota)
        new_usage = add(used, requested)
        allowed, exceeded = less_than_or_equal(mask(new_usage, requested), hard)
        if not allowed:
            return (f"exceeded quota: {name}, requested: {pretty_print(mask(requested, exceeded))}, "
                    f"used: {pretty_print(mask(used, exceeded))}, limited: {pretty_print(mask(hard, exceeded))}")
    return None
