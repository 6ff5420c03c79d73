"""The core group's resources: pkg/registry/core/<resource>/strategy.go."""
