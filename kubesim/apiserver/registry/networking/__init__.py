"""networking.k8s.io: NetworkPolicy, Ingress, IngressClass."""
