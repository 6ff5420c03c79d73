"""policy/v1: PodDisruptionBudget."""
