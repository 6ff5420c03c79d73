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


def set_defaults_statefulset(obj: dict) -> None:
    """SetDefaults_StatefulSet, and SetObjectDefaults_StatefulSet's pod template and claim
    templates (each a v1 PersistentVolumeClaim: its TypeMeta, volumeMode, status phase
    Pending). The MaxUnavailableStatefulSet gate is off by default in v1.35 (beta), so
    ``rollingUpdate.maxUnavailable`` is not defaulted."""
    from kubesim.api.core.defaults import set_defaults_persistent_volume_claim

    spec = obj.setdefault("spec", {})
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    us = spec.get("updateStrategy")
    if not isinstance(us, dict):
        us = spec["updateStrategy"] = {}
    if not us.get("type"):
        us["type"] = "RollingUpdate"
        if us.get("rollingUpdate") is None:
            us["rollingUpdate"] = {}
    ru = us.get("rollingUpdate")
    if us["type"] == "RollingUpdate" and isinstance(ru, dict) and ru.get("partition") is None:
        ru["partition"] = 0
    policy = spec.get("persistentVolumeClaimRetentionPolicy")
    if not isinstance(policy, dict):
        policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
    for k in ("whenDeleted", "whenScaled"):
        if not policy.get(k):
            policy[k] = "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    set_defaults_pod_template(spec.setdefault("template", {}))
    for claim in spec.get("volumeClaimTemplates") or ():
        if not isinstance(claim, dict):
            continue
        claim.setdefault("apiVersion", "v1")
        claim.setdefault("kind", "PersistentVolumeClaim")
        set_defaults_persistent_volume_claim(claim)
        status = claim.get("status")
        if not isinstance(status, dict):
            status = claim["status"] = {}
        if not status.get("phase"):
            status["phase"] = "Pending"
