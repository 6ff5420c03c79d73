"""Verb → command function. Imports each verb family's module only when it runs.

A verb whose flags are not declared in ``kubesim.cli.main`` declares them in its own module as
``<fn>_args(parser)`` next to ``<fn>(args, env)``; ``EXTRA_HELP`` gives its one-line help.
"""

from __future__ import annotations

import importlib

VERBS = {
    "apply": ("kubesim.cli.manifest", "apply_cmd"),
    "create": ("kubesim.cli.manifest", "create_cmd"),
    "delete": ("kubesim.cli.manifest", "delete_cmd"),
    "get": ("kubesim.cli.get", "get_cmd"),
    "describe": ("kubesim.cli.describe", "describe_cmd"),
    "label": ("kubesim.cli.mutate", "label_cmd"),
    "annotate": ("kubesim.cli.mutate", "annotate_cmd"),
    "taint": ("kubesim.cli.mutate", "taint_cmd"),
    "cordon": ("kubesim.cli.mutate", "cordon_cmd"),
    "uncordon": ("kubesim.cli.mutate", "uncordon_cmd"),
    "api-resources": ("kubesim.cli.cluster", "api_resources_cmd"),
    "cluster": ("kubesim.cli.cluster", "cluster_cmd"),
    "advance": ("kubesim.cli.cluster", "advance_cmd"),
    "version": ("kubesim.cli.cluster", "version_cmd"),
    "explain-schedule": ("kubesim.cli.explain", "explain_cmd"),
    # what the kubelets and events show (issue 4)
    "logs": ("kubesim.cli.kubelet_verbs", "logs_cmd"),
    "events": ("kubesim.cli.kubelet_verbs", "events_cmd"),
    "node": ("kubesim.cli.kubelet_verbs", "node_cmd"),
    # workload verbs (issue 3)
    "run": ("kubesim.cli.generate", "run_cmd"),
    "scale": ("kubesim.cli.workloads", "scale_cmd"),
    "set": ("kubesim.cli.workloads", "set_cmd"),
    "rollout": ("kubesim.cli.workloads", "rollout_cmd"),
    "drain": ("kubesim.cli.workloads", "drain_cmd"),
    "patch": ("kubesim.cli.edit", "patch_cmd"),
    "replace": ("kubesim.cli.edit", "replace_cmd"),
    "edit": ("kubesim.cli.edit", "edit_cmd"),
}

EXTRA_HELP = {
    "logs": "Print the logs for a container in a pod",
    "events": "List events",
    "node": "kubesim's own: stop or start a node's kubelet (node failure drills)",
    "run": "Run a particular image on the cluster",
    "scale": "Set a new size for a deployment, replica set, or replication controller",
    "set": "Set specific features on objects (set image)",
    "rollout": "Manage the rollout of a resource (status, history, undo, restart, pause, resume)",
    "drain": "Drain node in preparation for maintenance",
    "patch": "Update fields of a resource",
    "replace": "Replace a resource by file name or stdin",
    "edit": "Edit a resource on the server (through $EDITOR)",
}


def add_args(verb: str, parser) -> bool:
    """Let a verb's module declare its flags; False when the module is not there (yet)."""
    module, fn = VERBS[verb]
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError:
        return False
    adder = getattr(mod, fn + "_args", None)
    if adder is None:
        return False
    adder(parser)
    return True


def dispatch(args, env) -> int:
    module, fn = VERBS[args.verb]
    return getattr(importlib.import_module(module), fn)(args, env) or 0
