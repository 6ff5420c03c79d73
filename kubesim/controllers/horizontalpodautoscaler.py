"""The horizontal pod autoscaler controller: every 15 s each HPA reads its target's scale and its
pods' resource metrics, computes a replica count, stabilizes and limits it, rescales the target
and writes its status, conditions and events.

Upstream (v1.35): pkg/controller/podautoscaler/horizontal.go (``reconcileAutoscaler``,
``computeReplicasForMetrics``, ``validateAndParseSelector``, ``computeReplicasForMetric``,
``computeStatusForResourceMetricGeneric``, ``buildQuantity``, ``normalizeDesiredReplicas``,
``stabilizeRecommendation``, ``normalizeDesiredReplicasWithBehaviors``,
``stabilizeRecommendationWithBehaviors``, ``convertDesiredReplicasWithBehaviorRate``,
``convertDesiredReplicasWithRules``, ``calculateScaleUpLimitWithScalingRules``,
``calculateScaleDownLimitWithBehaviors``, ``storeScaleEvent``, ``setStatus``, ``setCondition``,
``tolerancesForHpa``), with replica_calculator.go in ``kubesim.controllers.replica_calculator``;
the defaults of kube-controller-manager's options (``--horizontal-pod-autoscaler-sync-period``
15 s, ``--horizontal-pod-autoscaler-downscale-stabilization`` 5 m).

A sync is ``sync(view, state) -> (changes, state)``. The view holds the HPAs, their targets
(Deployments, ReplicaSets, StatefulSets: the scale subresource), the pods and ``PodMetrics``
(what metrics.k8s.io serves, computed by the control plane from the simulated usage). ``state``
is what upstream keeps in memory, kept by the control plane between commands: per HPA the time
of its next sync (its work queue's 15 s rate limit: the first sync 15 s after creation), its
recent recommendations and its scale events. Only the HPAs whose sync is due are reconciled;
the changes end with a wake at the next one. Metrics other than Resource and ContainerResource
(Pods, Object, External) need a custom or external metrics API, which kubesim does not serve:
they fail as they do on a cluster without one.
"""

from __future__ import annotations

import copy
import math

from kubesim.api import selectors
from kubesim.api.meta.helpers import meta
from kubesim.clock import parse_time
from kubesim.controllers.base import Change, Event
from kubesim.controllers.replica_calculator import (
    MetricError,
    Tolerances,
    milli,
    plain_metric_replicas,
    pod_resource_metrics,
    resource_replicas,
)

COMPONENT = "horizontal-pod-autoscaler"
SYNC_PERIOD = 15.0
DOWNSCALE_STABILIZATION_WINDOW = 300
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4.0
MAX_INT32 = 2**31 - 1
# the kinds whose scale subresource kubesim serves, by (group, kind): their resource
SCALABLE = {("apps", "Deployment"): "deployments", ("apps", "ReplicaSet"): "replicasets",
            ("apps", "StatefulSet"): "statefulsets"}
NO_CUSTOM_METRICS = "no custom metrics API (custom.metrics.k8s.io) registered"
NO_EXTERNAL_METRICS = "no external metrics API (external.metrics.k8s.io) registered"


def key_of(hpa: dict) -> str:
    md = meta(hpa)
    return f"{md.get('namespace', '')}/{md.get('name', '')}"


def next_sync(hpa: dict, state: dict) -> float:
    """When the HPA is next synced: 15 s after its creation, then 15 s after each sync."""
    entry = state.get(key_of(hpa)) or {}
    if entry.get("next") is not None:
        return float(entry["next"])
    created = parse_time(meta(hpa).get("creationTimestamp")) if meta(hpa).get("creationTimestamp") else 0.0
    return created + SYNC_PERIOD


def due(hpas: list[dict], state: dict, now: float) -> list[dict]:
    return [h for h in hpas if next_sync(h, state) <= now]


def tolerances_for(hpa: dict) -> Tolerances:
    """tolerancesForHpa (HPAConfigurableTolerance is on in v1.35)."""
    t = Tolerances()
    behavior = (hpa.get("spec") or {}).get("behavior") or {}
    from kubesim.api.quantity import parse_quantity

    for key, attr in (("scaleDown", "down"), ("scaleUp", "up")):
        tol = (behavior.get(key) or {}).get("tolerance")
        if tol is not None:
            setattr(t, attr, float(parse_quantity(tol)))
    return t


def build_quantity(resource: str, raw_milli: int) -> str:
    """buildQuantity: a milli-quantity, BinarySI for memory, DecimalSI otherwise."""
    from fractions import Fraction

    from kubesim.api.quantity import format_quantity

    return format_quantity(Fraction(raw_milli, 1000), "BinarySI" if resource == "memory" else "DecimalSI")


# -- conditions and status -------------------------------------------------------------------

def set_condition(conditions: list[dict], type_: str, status: str, reason: str, message: str, now: str) -> None:
    """setConditionInList: the condition updated in place (its transition time when its status
    changes), or appended."""
    for c in conditions:
        if c.get("type") == type_:
            break
    else:
        c = {"type": type_}
        conditions.append(c)
    if c.get("status") != status:
        c["lastTransitionTime"] = now
    c["status"] = status
    c["reason"] = reason
    c["message"] = message
    # field order as the API server writes it
    ordered = {k: c[k] for k in ("type", "status", "lastTransitionTime", "reason", "message") if k in c}
    c.clear()
    c.update(ordered)


def _status(old: dict, current: int, desired: int, metric_statuses, conditions: list[dict],
            last_scale: str | None) -> dict:
    """setStatus, in the v2 status's field order (currentReplicas is omitempty)."""
    out: dict = {}
    if old.get("observedGeneration") is not None:
        out["observedGeneration"] = old["observedGeneration"]
    if last_scale:
        out["lastScaleTime"] = last_scale
    if current:
        out["currentReplicas"] = current
    out["desiredReplicas"] = desired
    out["currentMetrics"] = metric_statuses
    if conditions:
        out["conditions"] = conditions
    return out


# -- the scale target ------------------------------------------------------------------------

def scale_of(view, hpa: dict) -> tuple[dict, int, int, str]:
    """The target's scale (its object, spec.replicas, status.replicas, status.selector), or
    MetricError("FailedGetScale", the error text)."""
    ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
    api_version, kind, name = ref.get("apiVersion") or "", ref.get("kind") or "", ref.get("name") or ""
    parts = api_version.split("/")
    if len(parts) > 2:
        raise MetricError("FailedGetScale", f"unexpected GroupVersion string: {api_version}")
    group = parts[0] if len(parts) == 2 else ""
    resource = SCALABLE.get((group, kind))
    if resource is None:
        raise MetricError("FailedGetScale", f'no matches for kind "{kind}" in group "{group}"')
    target = view.get(kind, meta(hpa).get("namespace", ""), name)
    if target is None:
        raise MetricError("FailedGetScale", f'{resource}.{group} "{name}" not found')
    spec, status = target.get("spec") or {}, target.get("status") or {}
    replicas = spec.get("replicas")
    try:
        selector = str(selectors.from_label_selector(spec.get("selector")))
    except ValueError:
        selector = ""
    return target, 1 if replicas is None else int(replicas), int(status.get("replicas") or 0), selector


def _pods_selected(view, namespace: str, selector: str) -> list[dict]:
    sel = selectors.parse_label_selector(selector)
    return [p for p in view.list("Pod", namespace) if sel.matches(meta(p).get("labels") or {})]


def _metrics_of(view, namespace: str, selector: str) -> list[dict]:
    sel = selectors.parse_label_selector(selector)
    return [m for m in view.list("PodMetrics", namespace) if sel.matches(meta(m).get("labels") or {})]


# -- metrics ---------------------------------------------------------------------------------

def compute_resource_metric(hpa: dict, spec: dict, current: int, pods: list[dict], pod_metrics: list[dict],
                            now: float, container_source: bool) -> tuple[int, str, dict]:
    """computeStatusForResourceMetric / ...ContainerResourceMetric: (replicas, metric name, status)."""
    key = "containerResource" if container_source else "resource"
    src = spec.get(key) or {}
    resource, container = src.get("name", ""), src.get("container", "") if container_source else ""
    target = src.get("target") or {}
    reason = "FailedGetContainerResourceMetric" if container_source else "FailedGetResourceMetric"
    tolerances = tolerances_for(hpa)

    def fetch():
        if not pod_metrics:
            raise MetricError(reason, f"unable to get metrics for resource {resource}: no metrics returned from "
                                      "resource metrics API")
        return pod_resource_metrics(pod_metrics, resource, container)

    try:
        if target.get("averageValue") is not None:
            try:
                metrics = fetch()
                replicas, usage = plain_metric_replicas(current, milli(target["averageValue"]), pods, metrics,
                                                        resource, tolerances, now)
            except MetricError as e:
                raise MetricError(reason, f"failed to get {resource} usage: {e}") from None
            value = {"averageValue": build_quantity(resource, usage)}
            name = f"{resource} resource"
        else:
            if target.get("averageUtilization") is None:
                raise MetricError(reason, "invalid resource metric source: neither an average utilization target nor "
                                          "an average value (usage) target was set")
            try:
                metrics = fetch()
                replicas, utilization, raw = resource_replicas(current, target["averageUtilization"], pods, metrics,
                                                               resource, tolerances, now, container)
            except MetricError as e:
                raise MetricError(reason, f"failed to get {resource} utilization: {e}") from None
            value = {"averageValue": build_quantity(resource, raw), "averageUtilization": utilization}
            kind = "container resource" if container_source else "resource"
            name = f"{resource} {kind} utilization (percentage of request)"
    except MetricError as e:
        if container_source:
            raise MetricError(reason, f"failed to get {container} container metric value: {e}", str(e)) from None
        raise MetricError(reason, f"failed to get {resource} resource metric value: {e}", str(e)) from None
    status_src = {"name": resource}
    if container_source:
        status_src["container"] = container
    status_src["current"] = value
    return replicas, name, {"type": spec.get("type"), key: status_src}


def compute_metric(hpa: dict, spec: dict, current: int, pods, pod_metrics, now: float) -> tuple[int, str, dict]:
    """computeReplicasForMetric: the replicas one metric proposes, or MetricError with its
    condition's reason and the wrapped error."""
    type_ = spec.get("type")
    if type_ == "Resource":
        return compute_resource_metric(hpa, spec, current, pods, pod_metrics, now, False)
    if type_ == "ContainerResource":
        return compute_resource_metric(hpa, spec, current, pods, pod_metrics, now, True)
    namespace = meta(hpa).get("namespace", "")
    if type_ == "Pods":
        name = ((spec.get("pods") or {}).get("metric") or {}).get("name", "")
        inner = f"unable to get metric {name}: unable to fetch metrics from custom metrics API: {NO_CUSTOM_METRICS}"
        raise MetricError("FailedGetPodsMetric", f"failed to get pods metric value: {inner}", inner)
    if type_ == "Object":
        src = spec.get("object") or {}
        name = (src.get("metric") or {}).get("name", "")
        obj = src.get("describedObject") or {}
        inner = (f"unable to get metric {name}: {obj.get('kind', '')} on {namespace} {obj.get('name', '')}/"
                 f"unable to fetch metrics from custom metrics API: {NO_CUSTOM_METRICS}")
        raise MetricError("FailedGetObjectMetric", f"failed to get object metric value: {inner}", inner)
    if type_ == "External":
        metric = (spec.get("external") or {}).get("metric") or {}
        name = metric.get("name", "")
        inner = (f"unable to get external metric {namespace}/{name}/{go_label_selector(metric.get('selector'))}: "
                 "unable to fetch metrics from external metrics API: the server could not find the requested "
                 f"resource (get {name}.external.metrics.k8s.io)")
        raise MetricError("FailedGetExternalMetric", f"failed to get {name} external metric value: {inner}", inner)
    raise MetricError("InvalidMetricSourceType", f'unknown metric source type "{type_}"')


def go_label_selector(sel) -> str:
    """A *metav1.LabelSelector as %+v prints it (its generated String())."""
    if sel is None:
        return "nil"
    labels = "".join(f"{k}: {v}," for k, v in sorted((sel.get("matchLabels") or {}).items()))
    exprs = "".join(f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
                    f"Values:[{' '.join(e.get('values') or [])}],}},"
                    for e in sel.get("matchExpressions") or [])
    return f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}"


# -- normalization ---------------------------------------------------------------------------

def convert_desired_replicas_with_rules(current: int, desired: int, min_replicas: int,
                                        max_replicas: int) -> tuple[int, str, str]:
    """convertDesiredReplicasWithRules (an HPA without behavior)."""
    scale_up_limit = int(max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM))
    if max_replicas > scale_up_limit:
        maximum, reason, message = scale_up_limit, "ScaleUpLimit", \
            "the desired replica count is increasing faster than the maximum scale rate"
    else:
        maximum, reason, message = max_replicas, "TooManyReplicas", \
            "the desired replica count is more than the maximum replica count"
    if desired < min_replicas:
        return min_replicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
    if desired > maximum:
        return maximum, reason, message
    return desired, "DesiredWithinRange", "the desired count is within the acceptable range"


def replicas_change_per_period(period: int, events: list, now: float) -> int:
    """getReplicasChangePerPeriod: the changes after now - period."""
    return sum(e[0] for e in events if e[1] > now - period)


def scale_up_limit_with_rules(current: int, up_events: list, down_events: list, rules: dict, now: float) -> int:
    """calculateScaleUpLimitWithScalingRules."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    result, pick = (MAX_INT32, min) if select == "Min" else (-MAX_INT32 - 1, max)
    for p in rules.get("policies") or ():
        start = current - replicas_change_per_period(p["periodSeconds"], up_events, now) + \
            replicas_change_per_period(p["periodSeconds"], down_events, now)
        if p["type"] == "Pods":
            proposed = start + p["value"]
        else:
            proposed = math.ceil(start * (1 + p["value"] / 100))
        result = pick(result, proposed)
    return result


def scale_down_limit_with_behaviors(current: int, up_events: list, down_events: list, rules: dict,
                                    now: float) -> int:
    """calculateScaleDownLimitWithBehaviors."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    result, pick = (-MAX_INT32 - 1, max) if select == "Min" else (MAX_INT32, min)
    for p in rules.get("policies") or ():
        start = current - replicas_change_per_period(p["periodSeconds"], up_events, now) + \
            replicas_change_per_period(p["periodSeconds"], down_events, now)
        if p["type"] == "Pods":
            proposed = start - p["value"]
        else:
            proposed = int(start * (1 - p["value"] / 100))
        result = pick(result, proposed)
    return result


def stabilize_recommendation(recs: list, desired: int, now: float, window: float) -> int:
    """stabilizeRecommendation: the highest recommendation of the window; the oldest stale one
    replaced by this one (``recs`` updated in place)."""
    highest, old = desired, None
    for i, (rec, t) in enumerate(recs):
        if t < now - window:
            old = i
        elif rec > highest:
            highest = rec
    if old is not None:
        recs[old] = [desired, now]
    else:
        recs.append([desired, now])
    return highest


def stabilize_with_behaviors(recs: list, current: int, desired: int, up_window: int, down_window: int,
                             now: float) -> tuple[int, str, str]:
    """stabilizeRecommendationWithBehaviors."""
    up, down, old = desired, desired, None
    up_cut, down_cut = now - up_window, now - down_window
    for i, (rec, t) in enumerate(recs):
        if t > up_cut:
            up = min(rec, up)
        if t > down_cut:
            down = max(rec, down)
        if t < up_cut and t < down_cut:
            old = i
    recommendation = min(max(current, up), down)
    if old is not None:
        recs[old] = [desired, now]
    else:
        recs.append([desired, now])
    if desired >= current:
        return recommendation, "ScaleUpStabilized", \
            "recent recommendations were lower than current one, applying the lowest recent recommendation"
    return recommendation, "ScaleDownStabilized", \
        "recent recommendations were higher than current one, applying the highest recent recommendation"


def convert_with_behavior_rate(current: int, desired: int, min_replicas: int, max_replicas: int, behavior: dict,
                               up_events: list, down_events: list, now: float) -> tuple[int, str, str]:
    """convertDesiredReplicasWithBehaviorRate."""
    if desired > current:
        limit = max(scale_up_limit_with_rules(current, up_events, down_events, behavior["scaleUp"], now), current)
        if max_replicas > limit:
            maximum, reason, message = limit, "ScaleUpLimit", \
                "the desired replica count is increasing faster than the maximum scale rate"
        else:
            maximum, reason, message = max_replicas, "TooManyReplicas", \
                "the desired replica count is more than the maximum replica count"
        if desired > maximum:
            return maximum, reason, message
    elif desired < current:
        limit = min(scale_down_limit_with_behaviors(current, up_events, down_events, behavior["scaleDown"], now),
                    current)
        if min_replicas < limit:
            minimum, reason, message = limit, "ScaleDownLimit", \
                "the desired replica count is decreasing faster than the maximum scale rate"
        else:
            minimum, reason, message = min_replicas, "TooFewReplicas", \
                "the desired replica count is less than the minimum replica count"
        if desired < minimum:
            return minimum, reason, message
    return desired, "DesiredWithinRange", "the desired count is within the acceptable range"


def store_scale_event(behavior: dict | None, entry: dict, prev: int, new: int, now: float) -> None:
    """storeScaleEvent: the change recorded over the oldest outdated event of its direction."""
    if behavior is None:
        return
    up = new > prev
    rules = behavior.get("scaleUp" if up else "scaleDown") or {}
    longest = max((p.get("periodSeconds") or 0 for p in rules.get("policies") or ()), default=0)
    events = entry.setdefault("scaleUp" if up else "scaleDown", [])
    for e in events:
        if e[1] < now - longest:
            e[2] = True
    old = None
    for i, e in enumerate(events):
        if e[2]:
            old = i
    event = [new - prev if up else prev - new, now, False]
    if old is not None:
        events[old] = event
    else:
        events.append(event)


# -- the reconcile ---------------------------------------------------------------------------

def _event(hpa: dict, type_: str, reason: str, message: str) -> Event:
    return Event(hpa, type_, reason, message, COMPONENT)


def reconcile(view, hpa: dict, entry: dict, all_hpas: list[dict]) -> tuple[list[Change], list[Event]]:
    """reconcileAutoscaler for one HPA: the target's rescale (if any) and the status update,
    with the events recorded, in upstream's order; ``entry`` (its recommendations and scale
    events) is updated in place."""
    now, stamp = view.now, view.stamp()
    spec, old_status = hpa.get("spec") or {}, copy.deepcopy(hpa.get("status") or {})
    conditions = copy.deepcopy(old_status.get("conditions") or [])
    events: list[Event] = []
    changes: list[Change] = []

    def finish(current, desired, metric_statuses, last_scale=None):
        last_scale = last_scale or old_status.get("lastScaleTime")
        status = _status(old_status, current, desired, metric_statuses, conditions, last_scale)
        if status != old_status:
            new = copy.deepcopy(hpa)
            new["status"] = status
            changes.append(Change("update_status", new))

    try:
        target, current, _, selector = scale_of(view, hpa)
    except MetricError as e:
        events.append(_event(hpa, "Warning", "FailedGetScale", str(e)))
        set_condition(conditions, "AbleToScale", "False", "FailedGetScale",
                      f"the HPA controller was unable to get the target's current scale: {e}", stamp)
        finish(old_status.get("currentReplicas") or 0, old_status.get("desiredReplicas") or 0,
               old_status.get("currentMetrics"))
        return changes, events
    set_condition(conditions, "AbleToScale", "True", "SucceededGetScale",
                  "the HPA controller was able to get the target's current scale", stamp)
    recs = entry.setdefault("recommendations", [])
    if not recs:
        recs.append([current, now])
    min_replicas = spec.get("minReplicas")
    min_replicas = 1 if min_replicas is None else int(min_replicas)
    max_replicas = int(spec.get("maxReplicas") or 0)
    metric_statuses = None
    rescale, reason, desired = True, "", 0
    if current == 0 and min_replicas != 0:
        rescale = False
        set_condition(conditions, "ScalingActive", "False", "ScalingDisabled",
                      "scaling is disabled since the replica count of the target is zero", stamp)
    elif current > max_replicas:
        reason, desired = "Current number of replicas above Spec.MaxReplicas", max_replicas
    elif current < min_replicas:
        reason, desired = "Current number of replicas below Spec.MinReplicas", min_replicas
    else:
        proposal = _compute_replicas(view, hpa, spec, current, selector, conditions, events, all_hpas)
        if proposal[0] == -1:
            metric_statuses = proposal[2]
            finish(current, old_status.get("desiredReplicas") or 0, metric_statuses)
            events.append(_event(hpa, "Warning", "FailedComputeMetricsReplicas", proposal[3]))
            return changes, events
        metric_desired, metric_name, metric_statuses = proposal[:3]
        rescale_metric = ""
        if metric_desired > desired:
            desired, rescale_metric = metric_desired, metric_name
        if desired > current:
            reason = f"{rescale_metric} above target"
        if desired < current:
            reason = "All metrics below target"
        behavior = copy.deepcopy(spec.get("behavior"))
        if behavior is None:
            stabilized = stabilize_recommendation(recs, desired, now, DOWNSCALE_STABILIZATION_WINDOW)
            if stabilized != desired:
                set_condition(conditions, "AbleToScale", "True", "ScaleDownStabilized",
                              "recent recommendations were higher than current one, applying the highest recent "
                              "recommendation", stamp)
            else:
                set_condition(conditions, "AbleToScale", "True", "ReadyForNewScale",
                              "recommended size matches current size", stamp)
            final, limit_reason, message = convert_desired_replicas_with_rules(current, stabilized, min_replicas,
                                                                               max_replicas)
        else:
            if behavior["scaleDown"].get("stabilizationWindowSeconds") is None:
                behavior["scaleDown"]["stabilizationWindowSeconds"] = DOWNSCALE_STABILIZATION_WINDOW
            stabilized, why, text = stabilize_with_behaviors(
                recs, current, desired, behavior["scaleUp"].get("stabilizationWindowSeconds") or 0,
                behavior["scaleDown"]["stabilizationWindowSeconds"], now)
            if stabilized != desired:
                set_condition(conditions, "AbleToScale", "True", why, text, stamp)
            else:
                set_condition(conditions, "AbleToScale", "True", "ReadyForNewScale",
                              "recommended size matches current size", stamp)
            final, limit_reason, message = convert_with_behavior_rate(
                current, stabilized, min_replicas, max_replicas, behavior, entry.get("scaleUp") or [],
                entry.get("scaleDown") or [], now)
        set_condition(conditions, "ScalingLimited", "False" if final == stabilized else "True", limit_reason,
                      message, stamp)
        desired = final
        rescale = desired != current
    last_scale = old_status.get("lastScaleTime")
    if rescale:
        scaled = copy.deepcopy(target)
        scaled.setdefault("spec", {})["replicas"] = desired
        md = scaled.setdefault("metadata", {})
        md["generation"] = int(md.get("generation") or 1) + 1
        changes.append(Change("update", scaled))
        set_condition(conditions, "AbleToScale", "True", "SucceededRescale",
                      f"the HPA controller was able to update the target scale to {desired}", stamp)
        events.append(_event(hpa, "Normal", "SuccessfulRescale", f"New size: {desired}; reason: {reason}"))
        store_scale_event(spec.get("behavior"), entry, current, desired, now)
        last_scale = stamp
    else:
        desired = current
    finish(current, desired, metric_statuses, last_scale)
    return changes, events


def _compute_replicas(view, hpa: dict, spec: dict, current: int, selector: str, conditions: list[dict],
                      events: list[Event], all_hpas: list[dict]):
    """computeReplicasForMetrics: (replicas, metric, statuses, error text); replicas -1 when
    the HPA cannot scale on them (the condition is set)."""
    stamp = view.stamp()
    namespace = meta(hpa).get("namespace", "")
    if not selector:
        events.append(_event(hpa, "Warning", "SelectorRequired", "selector is required"))
        set_condition(conditions, "ScalingActive", "False", "InvalidSelector",
                      "the HPA target's scale is missing a selector", stamp)
        return -1, "", None, "selector is required"
    pods = _pods_selected(view, namespace, selector)
    controlling = sorted(_hpas_controlling(view, pods, all_hpas))
    if len(controlling) > 1:
        message = f"pods by selector {selector} are controlled by multiple HPAs: [{' '.join(controlling)}]"
        events.append(_event(hpa, "Warning", "AmbiguousSelector", message))
        set_condition(conditions, "ScalingActive", "False", "AmbiguousSelector", message, stamp)
        return -1, "", None, message
    pod_metrics = _metrics_of(view, namespace, selector)
    specs = spec.get("metrics") or []
    statuses = [{"type": ""} for _ in specs]
    replicas, metric, invalid, first = 0, "", 0, None
    for i, m in enumerate(specs):
        try:
            proposal, name, status = compute_metric(hpa, m, current, pods, pod_metrics, view.now)
        except MetricError as e:
            events.append(_event(hpa, "Warning", e.reason, e.inner))
            if invalid == 0:
                first = e
            invalid += 1
            continue
        statuses[i] = status
        if replicas == 0 or proposal > replicas:
            replicas, metric = proposal, name
    error = None
    if first is not None:
        error = f"invalid metrics ({invalid} invalid out of {len(specs)}), first error is: {first}"
    if invalid >= len(specs) or (invalid > 0 and replicas < current):
        set_condition(conditions, "ScalingActive", "False", first.reason,
                      f"the HPA was unable to compute the replica count: {first.inner}", stamp)
        return -1, "", statuses, error
    set_condition(conditions, "ScalingActive", "True", "ValidMetricFound",
                  f"the HPA was able to successfully calculate a replica count from {metric}", stamp)
    return replicas, metric, statuses, error


def _hpas_controlling(view, pods: list[dict], all_hpas: list[dict]) -> set[str]:
    """hpasControllingPodsUnderSelector: the HPAs whose targets' selectors select any of ``pods``."""
    out = set()
    for other in all_hpas:
        ns = meta(other).get("namespace", "")
        try:
            _, _, _, sel = scale_of(view, other)
        except MetricError:
            continue
        if not sel:
            continue
        parsed = selectors.parse_label_selector(sel)
        if any(meta(p).get("namespace", "") == ns and parsed.matches(meta(p).get("labels") or {}) for p in pods):
            out.add(key_of(other))
    return out


def sync(view, state: dict | None = None) -> tuple[list[Change], dict]:
    """Reconcile every HPA whose sync is due; (changes, the state to keep)."""
    state = copy.deepcopy(state or {})
    hpas = view.list("HorizontalPodAutoscaler")
    keys = {key_of(h) for h in hpas}
    state = {k: v for k, v in state.items() if k in keys}
    changes: list[Change] = []
    for hpa in hpas:
        key = key_of(hpa)
        if next_sync(hpa, state) > view.now:
            continue
        entry = state.setdefault(key, {})
        hpa_changes, events = reconcile(view, hpa, entry, hpas)
        if hpa_changes:
            hpa_changes[-1].events.extend(events)
        elif events:
            changes.append(Change("event", hpa, events=events))
        changes.extend(hpa_changes)
        entry["next"] = view.now + SYNC_PERIOD
    if hpas:
        changes.append(Change("wake", at=min(next_sync(h, state) for h in hpas)))
    return changes, state

