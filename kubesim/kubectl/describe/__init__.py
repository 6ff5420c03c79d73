"""kubectl describe: one describer per kind, and kubectl's generic describer for the rest.

Each describer renders one object from a :class:`DescribeContext` (``writer.py``) and never
fetches; ``describe(client, obj)`` fetches for it what kubectl's describer asks the API server
for, then renders:

- ``events``: the events involving the object (every kind);
- ``pods``: for a Node the pods bound to it (terminal ones left out, as kubectl's field selector
  does); for a ReplicaSet, DaemonSet or PersistentVolumeClaim the pods of its namespace (the
  describer keeps, as kubectl does, those matching the selector whose controller reference has
  the owner's UID, or for a claim the pods using it);
- ``extra``, by key: ``"lease"`` (Node: its Lease in ``kube-node-lease``; without it the line
  kubectl prints for a missing lease), ``"resource_quotas"`` and ``"limit_ranges"`` (Namespace),
  ``"replicasets"`` (Deployment: the ReplicaSets of its namespace).

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go, one module here per API group of
its describers (``core``, ``persistentvolume`` (core too), ``apps``, ``policy``, ``scheduling``,
``storage``, ``generic``). Verified byte for byte against the real kubectl 1.36.4 describing the
same objects from a fake API server (``tests/kubectl/test_describe.py`` keeps its output as
golden files).
"""

from __future__ import annotations

import importlib

from kubesim.kubectl.describe.writer import DescribeContext

# kind -> (module of this package, describer)
DESCRIBERS = {
    "Pod": ("core", "describe_pod"),
    "Node": ("core", "describe_node"),
    "Namespace": ("core", "describe_namespace"),
    "ConfigMap": ("core", "describe_config_map"),
    "Secret": ("core", "describe_secret"),
    "ServiceAccount": ("core", "describe_service_account"),
    "PersistentVolume": ("persistentvolume", "describe_persistent_volume"),
    "PersistentVolumeClaim": ("persistentvolume", "describe_persistent_volume_claim"),
    "Deployment": ("apps", "describe_deployment"),
    "ReplicaSet": ("apps", "describe_replicaset"),
    "DaemonSet": ("apps", "describe_daemonset"),
    "PodDisruptionBudget": ("policy", "describe_pdb"),
    "PriorityClass": ("scheduling", "describe_priority_class"),
    "StorageClass": ("storage", "describe_storage_class"),
    "CSINode": ("storage", "describe_csinode"),
    "Role": ("rbac", "describe_role"),
    "ClusterRole": ("rbac", "describe_role"),
    "RoleBinding": ("rbac", "describe_role_binding"),
    "ClusterRoleBinding": ("rbac", "describe_role_binding"),
    "NetworkPolicy": ("networking", "describe_network_policy"),
    "Ingress": ("networking", "describe_ingress"),
    "IngressClass": ("networking", "describe_ingress_class"),
    "Job": ("batch", "describe_job"),
    "CronJob": ("batch", "describe_cronjob"),
    "StatefulSet": ("apps", "describe_statefulset"),
    "Service": ("service", "describe_service"),
    "Endpoints": ("service", "describe_endpoints"),
    "EndpointSlice": ("discovery", "describe_endpoint_slice"),
    "LimitRange": ("core", "describe_limit_range"),
    "ResourceQuota": ("core", "describe_resource_quota"),
    "HorizontalPodAutoscaler": ("autoscaling", "describe_hpa"),
}


# Kinds kubectl describes with its generic describer: describe.go's describer map has no entry
# for them (a new kind is in DESCRIBERS or here; tests/test_kinds.py checks it).
GENERIC = frozenset({"Event", "ControllerRevision", "RuntimeClass", "Lease", "CustomResourceDefinition"})


def render(obj: dict, ctx: DescribeContext) -> str:
    """kubectl describe's text for one object (kinds without a describer go generic)."""
    module, fn = DESCRIBERS.get(obj.get("kind", ""), ("generic", "describe_generic"))
    return getattr(importlib.import_module(f"kubesim.kubectl.describe.{module}"), fn)(obj, ctx)


def describe(client, obj: dict, show_events: bool = True) -> str:
    """Fetch what the object's describer shows (its events only if ``show_events``), then render it."""
    from kubesim.api import kinds

    md = obj["metadata"]
    kind, ns = obj.get("kind", ""), md.get("namespace", "")
    pods: list[dict] = []
    extra: dict = {}
    if kind == "Node":
        on_node = client.list(kinds.by_kind("Pod"), None, field_selector=f"spec.nodeName={md['name']}")
        pods = [p for p in on_node if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        extra["lease"] = client.find(kinds.by_kind("Lease"), "kube-node-lease", md["name"])
    elif kind in ("ReplicaSet", "DaemonSet", "PersistentVolumeClaim", "StatefulSet"):
        pods = client.list(kinds.by_kind("Pod"), ns)
    elif kind == "Deployment":
        extra["replicasets"] = client.list(kinds.by_kind("ReplicaSet"), ns)
    elif kind == "Ingress":
        from kubesim.kubectl.describe.networking import fetch_ingress_backends

        extra.update(fetch_ingress_backends(client, obj))
    elif kind == "Service":
        extra["endpointslices"] = client.list(kinds.by_kind("EndpointSlice"), ns,
                                              f"kubernetes.io/service-name={md['name']}")
    elif kind == "Namespace":
        extra["resource_quotas"] = client.list(kinds.by_kind("ResourceQuota"), md["name"])
        extra["limit_ranges"] = client.list(kinds.by_kind("LimitRange"), md["name"])
    events = events_for(client, obj) if show_events else None
    return render(obj, DescribeContext(now=client.now(), events=events, pods=pods, extra=extra))


def events_for(client, obj: dict) -> list[dict]:
    """The events whose involvedObject is ``obj`` (by kind, namespace, name and uid), oldest first:
    describe.go searchEvents' field selector, whose ``involvedObject.uid`` leaves out the events
    recorded without one (the taint eviction controller's)."""
    from kubesim.api import kinds

    md = obj.get("metadata", {})
    uid = md.get("uid")
    selector = f"involvedObject.kind={obj.get('kind', '')},involvedObject.name={md.get('name', '')}"
    from kubesim.errors import Forbidden

    try:
        listed = client.list(kinds.by_kind("Event"), md.get("namespace") or "default", field_selector=selector)
    except Forbidden:  # describe.go ignores searchEvents' error: no events to show
        return []
    evs = [ev for ev in listed if not uid or (ev.get("involvedObject") or {}).get("uid") == uid]
    evs.sort(key=lambda e: (e.get("firstTimestamp") or "", e.get("lastTimestamp") or ""))
    return evs
