"""The apps group's resources: pkg/registry/apps/<resource>/strategy.go."""
