"""apps/v1: Deployment, ReplicaSet, DaemonSet (ControllerRevision has no rules of its own)."""
