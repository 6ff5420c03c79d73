"""The policy group's resources: pkg/registry/policy/<resource>/strategy.go."""
