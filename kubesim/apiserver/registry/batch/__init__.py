"""Strategies of batch/v1 (upstream pkg/registry/batch)."""
