"""kubesim: a kubectl-style Kubernetes cluster emulator with a faithful kube-scheduler."""

__version__ = "0.1.0"
