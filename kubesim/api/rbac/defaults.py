"""rbac.authorization.k8s.io/v1 scheme defaulting: bindings' roleRef and subjects.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/rbac/v1/defaults.go``
(``SetDefaults_ClusterRoleBinding``, ``SetDefaults_RoleBinding``: an empty ``roleRef.apiGroup``
is ``rbac.authorization.k8s.io``; ``SetDefaults_Subject``: a User or Group subject's empty
``apiGroup`` is ``rbac.authorization.k8s.io``, a ServiceAccount's stays empty).
"""

from __future__ import annotations

GROUP_NAME = "rbac.authorization.k8s.io"


def set_defaults_binding(binding: dict) -> None:
    """SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding, and SetDefaults_Subject for
    every subject."""
    ref = binding.get("roleRef")
    if isinstance(ref, dict) and not ref.get("apiGroup"):
        ref["apiGroup"] = GROUP_NAME
    for subject in binding.get("subjects") or ():
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = GROUP_NAME
