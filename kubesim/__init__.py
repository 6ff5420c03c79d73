"""kubesim: a kubectl-style Kubernetes cluster emulator with a faithful kube-scheduler."""

__version__ = "0.1.0"

# The Kubernetes release kubesim emulates (API server, scheduler, controllers, kubelet).
SERVER_VERSION = "v1.35.0"
