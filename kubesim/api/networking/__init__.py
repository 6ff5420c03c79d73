"""networking.k8s.io/v1: NetworkPolicy, Ingress, IngressClass."""
