"""Pods: a new pod starts Pending with its QoS class; an update keeps the status and bumps the
generation when the spec changes.

Upstream: pkg/registry/core/pod/strategy.go (``podStrategy``: ``PrepareForCreate`` sets the
status to ``Pending`` with ``qos.ComputePodQOS``, applies the ``SchedulingGated`` condition
(``applySchedulingGatedCondition``), merges ``matchLabelKeys``/``mismatchLabelKeys`` into the
affinity terms' and spread constraints' selectors (``mutatePodAffinity``,
``mutateTopologySpreadConstraints``) and sets generation 1 (``updatePodGeneration``);
``PrepareForUpdate`` keeps the status; ``Validate``/``ValidateUpdate`` are
``kubesim.api.core.validation``'s; ``CheckGracefulDelete``: a pod bound to a node is deleted
gracefully, its kubelet removes it when the grace period ends).

Where kubesim differs: a status given with a new pod keeps its QoS class (``GetPodQOS``
reads it back; the API server's create path drops a client's status first); the generation goes
up on any change of the stored spec, where upstream compares with Semantic.DeepEqual.
"""

from __future__ import annotations

import copy

from kubesim.api.core.defaults import set_object_defaults_pod
from kubesim.api.pods import is_mirror_pod
from kubesim.apiserver.registry.rest import Strategy
from kubesim.clock import format_time, parse_timestamp

SCHEDULING_GATED_CONDITION = {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                              "lastTransitionTime": None, "reason": "SchedulingGated",
                              "message": "Scheduling is blocked due to non-empty scheduling gates"}


class PodStrategy(Strategy):
    kind = "Pod"
    graceful_delete = True

    def set_defaults(self, obj: dict) -> None:
        set_object_defaults_pod(obj)

    def check_graceful_delete(self, obj: dict, grace_seconds: float | None, now: float) -> float:
        return check_graceful_delete(obj, grace_seconds, now)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        from kubesim.api.pods import qos_class

        meta = obj.setdefault("metadata", {})
        meta["generation"] = 1
        old_status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
        qos = old_status.get("qosClass") or qos_class(obj)  # GetPodQOS keeps a class already set
        status = {"phase": "Pending", "qosClass": qos}
        if (obj.get("spec") or {}).get("schedulingGates"):
            status["conditions"] = [dict(SCHEDULING_GATED_CONDITION)]
        obj["status"] = status
        mutate_pod_affinity_and_spread(obj)

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        update_pod_generation(new, old)

    def validate(self, obj: dict) -> list:
        from kubesim.api.core.validation import validate_pod_create

        return validate_pod_create(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.core.validation import validate_pod_update

        return validate_pod_update(new, old)

    def delete_dependents(self, store, obj: dict) -> None:
        # kubesim's record of the pod's last scheduling attempt (explain-schedule) goes with it
        md = obj.get("metadata") or {}
        store.delete("ScheduleExplanation", md.get("namespace", ""), md.get("name", ""))


def update_pod_generation(new: dict, old: dict) -> None:
    """updatePodGeneration on an update: up by one when the spec changed, else the old one."""
    old_meta = old.get("metadata") or {}
    meta = new.setdefault("metadata", {})
    if new.get("spec") != old.get("spec"):
        meta["generation"] = int(old_meta.get("generation", 1)) + 1
    else:
        meta["generation"] = old_meta.get("generation") or 0


def _merge_match_label_keys(selector, keys, labels: dict, operator: str) -> None:
    if not isinstance(selector, dict):
        return  # a nil selector matches nothing and is left alone
    for key in keys or ():
        if key in labels:
            selector.setdefault("matchExpressions", []).append(
                {"key": key, "operator": operator, "values": [labels[key]]})


def mutate_pod_affinity_and_spread(pod: dict) -> None:
    """mutatePodAffinity / mutateTopologySpreadConstraints (matchLabelKeys, mismatchLabelKeys)."""
    spec = pod.get("spec") or {}
    labels = (pod.get("metadata") or {}).get("labels") or {}
    aff = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind)
        if not isinstance(pa, dict):
            continue
        terms = [t for t in pa.get("requiredDuringSchedulingIgnoredDuringExecution") or () if isinstance(t, dict)]
        terms += [t.get("podAffinityTerm") for t in pa.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
                  if isinstance(t, dict) and isinstance(t.get("podAffinityTerm"), dict)]
        for term in terms:
            _merge_match_label_keys(term.get("labelSelector"), term.get("matchLabelKeys"), labels, "In")
            _merge_match_label_keys(term.get("labelSelector"), term.get("mismatchLabelKeys"), labels, "NotIn")
    for c in spec.get("topologySpreadConstraints") or ():
        if isinstance(c, dict):
            _merge_match_label_keys(c.get("labelSelector"), c.get("matchLabelKeys"), labels, "In")


strategy = PodStrategy()


DEFAULT_TERMINATION_GRACE_PERIOD = 30  # core/v1 DefaultTerminationGracePeriodSeconds


def check_graceful_delete(pod: dict, grace_seconds: float | None, now: float) -> float:
    """Mark ``pod`` deleted as the API server does (pod strategy CheckGracefulDelete): the grace
    period is ``grace_seconds`` or the pod's terminationGracePeriodSeconds (30); 0 when the pod
    is not bound to a node, has finished (Succeeded/Failed) or is a mirror pod (the kubelet
    deletes and recreates those at once). A second delete can only shorten it. Returns the
    grace period: 0 means delete the object now."""
    spec = pod.get("spec") or {}
    md = pod.setdefault("metadata", {})
    period = grace_seconds
    if period is None:
        tg = spec.get("terminationGracePeriodSeconds")
        period = DEFAULT_TERMINATION_GRACE_PERIOD if tg is None else tg
    period = max(float(period), 0.0)
    phase = (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in ("Succeeded", "Failed") or is_mirror_pod(pod):
        period = 0.0
    existing = parse_timestamp(md.get("deletionTimestamp"))
    deadline = now + period
    if existing is not None and existing <= deadline:
        # rest.BeforeDelete: graceful deletion is pending, do nothing; the object goes when its
        # kubelet confirms, even past its deletionTimestamp (a stopped kubelet never does)
        if md.get("deletionGracePeriodSeconds"):
            return max(existing - now, 1e-3)
        return max(existing - now, 0.0)
    md["deletionTimestamp"] = format_time(deadline + 1e-6)  # not a hair under the second it stands for
    md["deletionGracePeriodSeconds"] = int(period)
    return period




def bind(pod: dict, node_name: str, node: dict | None) -> None:
    """The ``pods/binding`` subresource's effect on the pod (BindingREST.setPodNodeAndMetadata):
    its node set, and the Binding's labels — the node's zone and region, which PodTopologyLabels
    admission put there — copied onto it, overwriting (copyLabelsWithOverwriting). The caller
    sets the PodScheduled condition."""
    from kubesim.apiserver.admission.podtopologylabels import topology_labels

    pod["spec"]["nodeName"] = node_name
    copied = topology_labels(node)
    if copied:
        pod.setdefault("metadata", {}).setdefault("labels", {}).update(copied)
