"""ClusterRoles: no status; validation is all.

Upstream: pkg/registry/rbac/clusterrole/strategy.go (``strategy``: nothing to prepare,
``Validate``/``ValidateUpdate`` are ``ValidateClusterRole``/``ValidateClusterRoleUpdate``,
``kubesim.api.rbac.validation``). That a user may only write a role granting what they hold
(pkg/registry/rbac/clusterrole/policybased) is not modelled: kubesim's requests are the cluster
admin's, or are refused by the authorizer first.
"""

from __future__ import annotations

from kubesim.apiserver.registry.rest import Strategy


class ClusterRoleStrategy(Strategy):
    kind = "ClusterRole"

    def validate(self, obj: dict) -> list:
        from kubesim.api.rbac.validation import validate_cluster_role

        return validate_cluster_role(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.rbac.validation import validate_cluster_role_update

        return validate_cluster_role_update(new, old)


strategy = ClusterRoleStrategy()
