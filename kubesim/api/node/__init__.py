"""node.k8s.io: RuntimeClass."""
