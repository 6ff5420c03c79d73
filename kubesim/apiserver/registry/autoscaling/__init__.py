"""Strategies of autoscaling (upstream pkg/registry/autoscaling)."""
