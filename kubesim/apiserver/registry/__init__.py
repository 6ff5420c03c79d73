"""The API server's registry: for each kind it serves, the strategy that holds its rules.

Upstream: pkg/registry/<group>/<resource>/strategy.go, one per resource, wired into the REST
storage by pkg/controlplane's storage providers. Here one table maps a kind to its module,
``kubesim.apiserver.registry.<group>.<resource>``, imported when the kind is first written
(so a read-only command loads none of them). Adding a kind is one entry here, besides its
module.
"""

from __future__ import annotations

import importlib

from kubesim.apiserver.registry.rest import Strategy

# Kind -> module under kubesim.apiserver.registry (its ``strategy`` is the kind's Strategy)
STRATEGIES = {
    "Namespace": "core.namespace",
    "Node": "core.node",
    "Pod": "core.pod",
    "Event": "core.event",
    "ConfigMap": "core.configmap",
    "Secret": "core.secret",
    "ServiceAccount": "core.serviceaccount",
    "PersistentVolume": "core.persistentvolume",
    "PersistentVolumeClaim": "core.persistentvolumeclaim",
    "RuntimeClass": "node.runtimeclass",
    "Deployment": "apps.deployment",
    "ReplicaSet": "apps.replicaset",
    "DaemonSet": "apps.daemonset",
    "ControllerRevision": "apps.controllerrevision",
    "PriorityClass": "scheduling.priorityclass",
    "PodDisruptionBudget": "policy.poddisruptionbudget",
    "StorageClass": "storage.storageclass",
    "CSINode": "storage.csinode",
    "Lease": "coordination.lease",
    "Role": "rbac.role",
    "ClusterRole": "rbac.clusterrole",
    "RoleBinding": "rbac.rolebinding",
    "ClusterRoleBinding": "rbac.clusterrolebinding",
    "NetworkPolicy": "networking.networkpolicy",
    "Ingress": "networking.ingress",
    "IngressClass": "networking.ingressclass",
    "Job": "batch.job",
    "CronJob": "batch.cronjob",
    "StatefulSet": "apps.statefulset",
    "Service": "core.service",
    "Endpoints": "core.endpoints",
    "EndpointSlice": "discovery.endpointslice",
    "LimitRange": "core.limitrange",
    "ResourceQuota": "core.resourcequota",
    "HorizontalPodAutoscaler": "autoscaling.horizontalpodautoscaler",
    "CustomResourceDefinition": "apiextensions.customresourcedefinition",
}

_loaded: dict[str, Strategy] = {}


def for_kind(kind: str) -> Strategy | None:
    """The strategy of ``kind``; None for a kind the API server does not serve."""
    strategy = _loaded.get(kind)
    if strategy is None:
        module = STRATEGIES.get(kind)
        if module is None:
            return _custom(kind)
        strategy = _loaded[kind] = importlib.import_module(f"{__name__}.{module}").strategy
    return strategy


def _custom(kind: str) -> Strategy | None:
    """A custom resource's strategy, for a kind a stored CustomResourceDefinition serves (not
    kept: the CRD may change within the command)."""
    from kubesim.api import kinds

    found = kinds.REGISTRY.kinds_named(kind)
    if not found or found[0].crd is None:
        return None
    from kubesim.apiserver.registry.apiextensions.customresource import (
        CustomResourceStrategy,
    )

    return CustomResourceStrategy(found[0])
