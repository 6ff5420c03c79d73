"""core/v1 (the legacy group): Pod, Node, Namespace, Event, PersistentVolume(Claim)."""
