"""apps/v1 scheme defaulting: Deployment, ReplicaSet, DaemonSet, as the API server decodes them.

Upstream (v1.35): pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment, SetDefaults_ReplicaSet,
SetDefaults_DaemonSet) and the generated SetObjectDefaults_* that default the pod template as
core/v1 defaults a PodTemplateSpec (``kubesim.api.core.defaults.set_defaults_pod_template``).
What the strategies set on create and update (status, generation, the DaemonSet's template
generation) is ``kubesim.apiserver.registry.apps``'.
"""

from __future__ import annotations

from kubesim.api.core.defaults import set_defaults_pod_template


def set_defaults_deployment(obj: dict) -> None:
    """SetDefaults_Deployment."""
    spec = obj.setdefault("spec", {})
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = spec.setdefault("strategy", {})
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        ru = strategy.get("rollingUpdate")
        if not isinstance(ru, dict):
            ru = strategy["rollingUpdate"] = {}
        if ru.get("maxUnavailable") is None:
            ru["maxUnavailable"] = "25%"
        if ru.get("maxSurge") is None:
            ru["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    set_defaults_pod_template(spec.setdefault("template", {}))


def set_defaults_replicaset(obj: dict) -> None:
    """SetDefaults_ReplicaSet."""
    spec = obj.setdefault("spec", {})
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    set_defaults_pod_template(spec.setdefault("template", {}))


def set_defaults_daemonset(obj: dict) -> None:
    """SetDefaults_DaemonSet."""
    spec = obj.setdefault("spec", {})
    us = spec.setdefault("updateStrategy", {})
    if not us.get("type"):
        us["type"] = "RollingUpdate"
    if us["type"] == "RollingUpdate":
        ru = us.get("rollingUpdate")
        if not isinstance(ru, dict):
            ru = us["rollingUpdate"] = {}
        if ru.get("maxUnavailable") is None:
            ru["maxUnavailable"] = 1
        if ru.get("maxSurge") is None:
            ru["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    set_defaults_pod_template(spec.setdefault("template", {}))
