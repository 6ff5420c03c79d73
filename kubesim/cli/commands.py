"""Verb → command function. Imports each verb family's module only when it runs."""

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
}


def dispatch(args, env) -> int:
    module, fn = VERBS[args.verb]
    return getattr(importlib.import_module(module), fn)(args, env) or 0
