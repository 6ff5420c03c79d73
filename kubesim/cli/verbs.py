"""The one verb table: every verb, its one-line help, and the module that declares its flags
(``add_flags(parser)``) and runs it (``run(f, args, env)``). Modules are imported only when their
verb runs, so start-up stays cheap.
"""

from __future__ import annotations

from kubesim.api.record import FrozenRecord


class Verb(FrozenRecord):
    __slots__ = ("flags", "help", "module", "run")

    def __init__(self, help: str, module: str, run: str = "run", flags: str = "add_flags"):
        self.help = help
        self.module = module  # kubesim.<module>
        self.run = run
        self.flags = flags


_K = "kubectl.cmd."

VERBS: dict[str, Verb] = {
    "apply": Verb("Apply a configuration to a resource by file name or stdin", _K + "apply"),
    "diff": Verb("Diff the live version against a would-be applied version (a server-side dry run)", _K + "diff"),
    "create": Verb("Create a resource from a file or from stdin, or a deployment, namespace, priorityclass or "
                   "poddisruptionbudget", _K + "create"),
    "get": Verb("Display one or many resources", _K + "get"),
    "describe": Verb("Show details of a specific resource or group of resources", _K + "describe"),
    "delete": Verb("Delete resources by file names, stdin, resources and names, or by resources and label selector",
                   _K + "delete"),
    "label": Verb("Update the labels on a resource", _K + "label", "label_cmd"),
    "annotate": Verb("Update the annotations on a resource", _K + "label", "annotate_cmd"),
    "taint": Verb("Update the taints on one or more nodes", _K + "taint"),
    "cordon": Verb("Mark node as unschedulable", _K + "cordon", "cordon_cmd"),
    "uncordon": Verb("Mark node as schedulable", _K + "cordon", "uncordon_cmd"),
    "explain": Verb("Get documentation for a resource", _K + "explain"),
    "kustomize": Verb("Build a kustomization target from a directory (kustomize inside the real kubectl)",
                      "kubectl.kustomize"),
    "options": Verb("Print the list of flags inherited by all commands", "cli.help", "run_options"),
    "api-resources": Verb("Print the supported API resources", _K + "api_resources"),
    "explain-schedule": Verb("Every scheduler plugin's verdict and score for a pod, on every node",
                             _K + "explain_schedule"),
    "cluster": Verb("Init, reset or inspect the simulated cluster", "cli.cluster"),
    "advance": Verb("Move the simulated clock forward and settle", _K + "advance"),
    "version": Verb("Print the client and server version information", _K + "version"),
    "api-versions": Verb('Print the supported API versions on the server, in the form of "group/version"',
                         _K + "api_versions"),
    "cluster-info": Verb("Display cluster information", _K + "cluster_info"),
    "logs": Verb("Print the logs for a container in a pod", _K + "logs"),
    "events": Verb("List events", _K + "events"),
    "node": Verb("Stop or start a node's kubelet (node failure drills)", _K + "node"),
    "run": Verb("Run a particular image on the cluster", _K + "run"),
    "expose": Verb("Take a replication controller, service, deployment or pod and expose it as a new Kubernetes "
                   "service", _K + "expose"),
    "scale": Verb("Set a new size for a deployment, replica set, or replication controller", _K + "scale"),
    "autoscale": Verb("Auto-scale a deployment, replica set, stateful set, or replication controller",
                      _K + "autoscale"),
    "set": Verb("Set specific features on objects (set image|env|resources|serviceaccount|selector|subject)",
                _K + "set"),
    "rollout": Verb("Manage the rollout of a resource (status, history, undo, restart, pause, resume)",
                    _K + "rollout"),
    "drain": Verb("Drain node in preparation for maintenance", _K + "drain"),
    "patch": Verb("Update fields of a resource", _K + "patch"),
    "replace": Verb("Replace a resource by file name or stdin", _K + "replace"),
    "edit": Verb("Edit a resource on the server (through $EDITOR)", _K + "edit"),
    "config": Verb("Modify kubeconfig files: contexts, clusters, the current context and its namespace",
                   _K + "config"),
    "completion": Verb("Output shell completion code for the specified shell (bash, zsh, fish, or powershell)",
                       "cli.completion"),
    "wait": Verb("Wait for a specific condition on one or many resources (on the simulated clock)", _K + "wait"),
    "auth": Verb("Inspect authorization (can-i, whoami)", _K + "auth"),
    "serve": Verb("Serve the cluster as the Kubernetes API, for the real kubectl, client libraries and tools",
                  "server.cmd"),
    "top": Verb("Display resource (CPU/memory) usage", _K + "top"),
    "exec": Verb("Execute a command in a container (simulated: env, files, nslookup, wget, curl ...)", _K + "exec"),
    "explain-network": Verb("Each hop of a connection from a pod: DNS, Service, endpoints, NetworkPolicies, port",
                            _K + "explain_network"),
    "drill": Verb("Practise a CKA-style task on a prepared cluster, graded with explanations",
                  "cli.practice", "run_drill", "add_drill_flags"),
    "exam": Verb("Take a mock CKA exam: 15-20 tasks, each on its own context, graded at the end",
                 "cli.practice", "run_exam", "add_exam_flags"),
}


def module_of(verb: Verb):
    import importlib

    return importlib.import_module("kubesim." + verb.module)
