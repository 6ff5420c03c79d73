"""The scheduling framework, as pkg/scheduler/framework and staging/src/k8s.io/kube-scheduler/
framework: the plugin interfaces by extension point (``interface``), Status and its codes,
CycleState, the NodeInfo/PodInfo types and the snapshot, the runtime that runs a profile's
plugins (normalizing, range-checking and weighting scores), and preemption's shared machinery."""
