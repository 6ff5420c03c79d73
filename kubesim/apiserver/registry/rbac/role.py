"""Roles: no status; validation is all.

Upstream: pkg/registry/rbac/role/strategy.go (``strategy``: nothing to prepare,
``Validate``/``ValidateUpdate`` are ``ValidateRole``/``ValidateRoleUpdate``,
``kubesim.api.rbac.validation``). That a user may only write a role granting what they hold
(pkg/registry/rbac/role/policybased) is not modelled: kubesim's requests are the cluster
admin's, or are refused by the authorizer first.
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class RoleStrategy(Strategy):
    kind = "Role"

    def validate(self, obj: dict) -> list:
        from kubesim.api.rbac.validation import validate_role

        return validate_role(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.rbac.validation import validate_role_update

        return validate_role_update(new, old)


strategy = RoleStrategy()
