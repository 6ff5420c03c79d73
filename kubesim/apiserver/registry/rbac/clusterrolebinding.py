"""ClusterRoleBindings: the roleRef and subjects defaulted, validated; the roleRef cannot change.

Upstream: pkg/registry/rbac/clusterrolebinding/strategy.go (``strategy``: ``Validate``/``ValidateUpdate``
are ``ValidateClusterRoleBinding``/``ValidateClusterRoleBindingUpdate``, ``kubesim.api.rbac.validation``),
pkg/apis/rbac/v1/defaults.go (``SetDefaults_ClusterRoleBinding``, ``SetDefaults_Subject``). A binding
to a role that does not exist is accepted, as upstream accepts it. The escalation check of
pkg/registry/rbac/clusterrolebinding/policybased is not modelled.
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ClusterRoleBindingStrategy(Strategy):
    kind = "ClusterRoleBinding"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.rbac.defaults import set_defaults_binding

        set_defaults_binding(obj)

    def validate(self, obj: dict) -> list:
        from kubesim.api.rbac.validation import validate_cluster_role_binding

        return validate_cluster_role_binding(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.rbac.validation import validate_cluster_role_binding_update

        return validate_cluster_role_binding_update(new, old)


strategy = ClusterRoleBindingStrategy()
