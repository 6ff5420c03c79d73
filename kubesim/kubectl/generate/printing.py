"""What a generator prints: the typed object's JSON in Go struct order, ``-o yaml|name|jsonpath``,
``created (dry run)``; and the submission of a generated object through the client (a server
dry run in a session that is not committed).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go (the printers' dry-run suffixes),
cli-runtime's PrintFlags (which ``-o`` values a generator accepts).
"""

from __future__ import annotations

import json

from kubesim.errors import Invalid, StatusError, UsageError

_PRINT_FORMATS = ("go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,"
                  "template,templatefile,yaml")


def typed_json(obj) -> str:
    """kubectl's JSON printer on a typed object: fields in the order given (Go struct order),
    four-space indent, Go's HTML-safe escaping."""
    text = json.dumps(obj, indent=4, ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text + "\n"


# kind → (``-o name`` prefix, the resource a typed client posts to)
_KIND_NAMES = {"Deployment": ("deployment.apps", "deployments.apps"), "Namespace": ("namespace", "namespaces"),
               "ConfigMap": ("configmap", "configmaps"), "Secret": ("secret", "secrets"),
               "ServiceAccount": ("serviceaccount", "serviceaccounts"),
               "ResourceQuota": ("resourcequota", "resourcequotas"),
               "PriorityClass": ("priorityclass.scheduling.k8s.io", "priorityclasses.scheduling.k8s.io"),
               "PodDisruptionBudget": ("poddisruptionbudget.policy", "poddisruptionbudgets.policy"),
               "Pod": ("pod", "pods"), "Service": ("service", "services"),
               "Ingress": ("ingress.networking.k8s.io", "ingresses.networking.k8s.io"),
               "Job": ("job.batch", "jobs.batch"),
               "HorizontalPodAutoscaler": ("horizontalpodautoscaler.autoscaling", "horizontalpodautoscalers.autoscaling"), "CronJob": ("cronjob.batch", "cronjobs.batch"),
               "Role": ("role.rbac.authorization.k8s.io", "roles.rbac.authorization.k8s.io"),
               "ClusterRole": ("clusterrole.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io"),
               "RoleBinding": ("rolebinding.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io"),
               "ClusterRoleBinding": ("clusterrolebinding.rbac.authorization.k8s.io",
                                      "clusterrolebindings.rbac.authorization.k8s.io")}


def check_output(fmt: str | None) -> None:
    """PrintFlags.ToPrinter's verdict on ``-o``, before anything is generated."""
    if not fmt or fmt.lower() in ("yaml", "json", "name"):
        return
    if fmt in ("jsonpath=", "jsonpath-file="):
        raise UsageError("template format specified but no template given")
    if fmt.startswith(("jsonpath=", "jsonpath-file=")):
        from kubesim.kubectl.cmd.util import template_text

        template_text(fmt)  # a template file that cannot be read fails here, before anything is sent
        return
    if fmt in ("go-template", "go-template-file", "template", "templatefile", "kyaml", "jsonpath-as-json") or \
            fmt.startswith(("go-template=", "go-template-file=", "template=", "templatefile=", "jsonpath-as-json=")):
        raise UsageError(f'kubesim does not support the output format "{fmt.split("=", 1)[0]}" yet; '
                         "use json, yaml, name or jsonpath")
    if fmt == "jsonpath":
        raise UsageError("template format specified but no template given")
    raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", '
                     f"allowed formats are: {_PRINT_FORMATS}")


def render(obj: dict, fmt: str | None, suffix: str, typed: bool) -> str:
    """The printed form of a generated (``typed``) or created object."""
    from kubesim.printers import output

    name = obj.get("metadata", {}).get("name") or "<unknown>"
    fmt = fmt.lower() if fmt and fmt.lower() in ("yaml", "json", "name") else fmt
    if fmt in ("yaml", "json"):  # the JSON and YAML printers omit managedFields; jsonpath sees them
        obj = output.omit_managed_fields(obj)
    if not fmt:
        return f"{_KIND_NAMES[obj['kind']][0]}/{name} {suffix}\n"
    if fmt == "name":
        return f"{_KIND_NAMES[obj['kind']][0]}/{name}\n"
    if fmt == "yaml":
        return output.to_yaml(obj)
    if fmt == "json":
        return typed_json(obj) if typed else output.to_json(obj)
    from kubesim.kubectl.cmd.util import template_text
    from kubesim.printers import jsonpath

    template = template_text(fmt)
    try:
        parsed = jsonpath.parse(template)
    except ValueError as e:
        raise UsageError(f"error parsing jsonpath {template}, {e}") from None
    try:
        return parsed.execute(json.loads(json.dumps(obj)))
    except ValueError as e:
        raise UsageError(str(e)) from None


class _NoResource(StatusError):
    """What a typed client gets back when the server does not serve the resource (a bare 404)."""

    reason = "NotFound"

    def __init__(self, resource: str):
        super().__init__(f"the server could not find the requested resource (post {resource})")


def submit(f, args, env, build, strategy: str, wrap: str | None) -> str:
    """Print the generated object (client dry run), or create it through the client (for a
    server dry run, in a session that is not committed) and print what the server returned."""
    import copy

    if strategy == "client":
        from kubesim.clock import make_random

        return render(build(make_random(0, env.vars)), args.output, "created (dry run)", typed=True)
    from kubesim.api import kinds

    try:
        with f.connect(commit=strategy != "server") as client:
            obj = build(client.rng)
            try:
                info = kinds.by_kind(obj["kind"])
            except KeyError:
                raise _NoResource(_KIND_NAMES[obj["kind"]][1]) from None
            if info.namespaced:
                obj["metadata"]["namespace"] = f.namespace()
            created = copy.deepcopy(client.create(obj, info))
            if strategy == "server":
                created.get("metadata", {}).pop("resourceVersion", None)
    except StatusError as e:
        if wrap is None:
            raise
        message = e.message
        if isinstance(e, Invalid):
            # a typed client names the kind with its group: Deployment.apps, PriorityClass.scheduling.k8s.io
            qualified = {"deployment": "Deployment.apps", "priorityclass": "PriorityClass.scheduling.k8s.io",
                         "poddisruptionbudgets": "PodDisruptionBudget.policy",
                         "ingress": "Ingress.networking.k8s.io",
                         "job": "Job.batch", "cronjob": "CronJob.batch"}.get(wrap)
            kind = qualified.split(".")[0] if qualified else ""
            if qualified and message.startswith(kind + " "):
                message = qualified + message[len(kind):]
        raise UsageError(f"failed to create {wrap}: {message}") from None
    suffix = "created (server dry run)" if strategy == "server" else "created"
    return render(created, args.output, suffix, typed=False)
