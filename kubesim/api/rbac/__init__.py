"""rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding."""
