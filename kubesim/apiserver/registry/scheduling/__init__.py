"""The scheduling.k8s.io group's resources: pkg/registry/scheduling/<resource>/strategy.go."""
