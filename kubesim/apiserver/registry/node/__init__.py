"""The node.k8s.io group's resources: pkg/registry/node/<resource>/strategy.go."""
