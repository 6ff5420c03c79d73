"""storage.k8s.io/v1: StorageClass, CSINode."""
