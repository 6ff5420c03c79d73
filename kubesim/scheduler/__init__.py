"""kube-scheduler, plugin by plugin, as pkg/scheduler: the framework (extension points, Status,
CycleState, NodeInfo and the snapshot, the runtime that runs profiles), one module per default
plugin (``plugins/registry.py`` imports them all), the configuration (KubeSchedulerConfiguration
with upstream's defaults), the scheduling queue, and the scheduling cycle (``schedule_one``) with
its explain mode. It reads objects handed to it and imports nothing of kubesim but ``api``."""
