"""The storage.k8s.io group's resources: pkg/registry/storage/<resource>/strategy.go."""
