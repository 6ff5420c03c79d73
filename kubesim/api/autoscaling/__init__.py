"""autoscaling: HorizontalPodAutoscaler (v2 stored, v1 served by conversion)."""
