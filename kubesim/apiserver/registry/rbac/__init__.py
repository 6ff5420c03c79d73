"""rbac.authorization.k8s.io strategies."""
