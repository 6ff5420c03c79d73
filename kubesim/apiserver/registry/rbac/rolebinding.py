"""RoleBindings: the roleRef and subjects defaulted, validated; the roleRef cannot change.

Upstream: pkg/registry/rbac/rolebinding/strategy.go (``strategy``: ``Validate``/``ValidateUpdate``
are ``ValidateRoleBinding``/``ValidateRoleBindingUpdate``, ``kubesim.api.rbac.validation``),
pkg/apis/rbac/v1/defaults.go (``SetDefaults_RoleBinding``, ``SetDefaults_Subject``). A binding
to a role that does not exist is accepted, as upstream accepts it. The escalation check of
pkg/registry/rbac/rolebinding/policybased is not modelled.
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class RoleBindingStrategy(Strategy):
    kind = "RoleBinding"

    def set_defaults(self, obj: dict) -> None:
        from kubesim.api.rbac.defaults import set_defaults_binding

        set_defaults_binding(obj)

    def validate(self, obj: dict) -> list:
        from kubesim.api.rbac.validation import validate_role_binding

        return validate_role_binding(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.rbac.validation import validate_role_binding_update

        return validate_role_binding_update(new, old)


strategy = RoleBindingStrategy()
