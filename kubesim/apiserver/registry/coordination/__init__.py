"""The coordination.k8s.io group's resources: pkg/registry/coordination/<resource>/strategy.go."""
