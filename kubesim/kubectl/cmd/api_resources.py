"""kubectl api-resources: the resources the server serves (discovery).

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/apiresources/apiresources.go (columns
NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND; ``-o wide`` adds VERBS, comma-separated, and
CATEGORIES; the filters ``--api-group``, ``--namespaced``, ``--verbs``, ``--categories``; sorted
by group, or by ``--sort-by=name|kind``, ties by name; ``-o json|yaml`` print the flattened
APIResourceList, each resource as aggregated discovery describes it).
"""

from __future__ import annotations


def add_flags(p):
    p.add_argument("--namespaced", nargs="?", const="true", default=None,
                   help="If false, non-namespaced resources will be returned, otherwise namespaced ones")
    p.add_argument("--api-group", default=None, help="Limit to resources in the specified API group.")
    p.add_argument("--verbs", action="append", default=None,
                   help="Limit to resources that support the specified verbs.")
    p.add_argument("--categories", action="append", default=None,
                   help="Limit to resources that belong to the specified categories.")
    p.add_argument("--sort-by", default="", help="If non-empty, sort list of resources using specified field. "
                                                 "The field can be either 'name' or 'kind'.")
    p.add_argument("--cached", nargs="?", const="true", default=None, help="(accepted; discovery is never stale)")
    p.add_argument("args", nargs="*")
    p.add_argument("-o", "--output", default=None, help="Output format. One of: (json, kyaml, name, wide, yaml).")
    p.add_argument("--no-headers", action="store_true")


def _csv(values: list[str] | None) -> set[str]:
    return {v for value in values or () for v in value.split(",") if v}


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.errors import UsageError
    from kubesim.kubectl.cmd.util import bool_flag_value
    from kubesim.printers.tabwriter import format_cells

    if args.output not in (None, "", "wide", "name", "json", "yaml"):
        if args.output == "kyaml":
            raise UsageError('kubesim does not support the output format "kyaml" yet; use json, yaml, name or wide')
        raise UsageError(f'unable to match a printer suitable for the output format "{args.output}", allowed '
                         "formats are: json,kyaml,name,wide,yaml")
    if args.sort_by not in ("", "name", "kind"):
        raise UsageError("--sort-by accepts only name or kind")
    # sorted by group (discovery's order), or by name or kind; ties by name
    field = {"name": lambda k: k.plural, "kind": lambda k: k.kind}.get(args.sort_by, lambda k: k.group)
    infos = sorted([k for k in _preferred(kinds.REGISTRY.all()) if k.served] + metrics_resources(),
                   key=lambda k: (field(k), k.plural))
    if args.namespaced is not None:
        want = bool_flag_value(args.namespaced, "--namespaced", "api-resources")
        infos = [k for k in infos if k.namespaced == want]
    if args.api_group is not None:
        infos = [k for k in infos if k.group == args.api_group]
    verbs, categories = _csv(args.verbs), _csv(args.categories)
    infos = [k for k in infos if verbs <= set(k.verbs) and categories <= set(k.categories)]
    if args.args:
        raise UsageError(f"unexpected arguments: [{' '.join(args.args)}]\nSee 'kubesim api-resources -h' for help "
                         "and examples")
    if args.output in ("json", "yaml"):
        env.stdout.write(_document(infos, args.output))
        return 0
    if args.output == "name":
        env.stdout.write("".join(f"{k.plural}{'.' + k.group if k.group else ''}\n" for k in infos))
        return 0
    header = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    if args.output == "wide":
        header += ["VERBS", "CATEGORIES"]
    rows = [] if args.no_headers else [header]
    for k in infos:
        row = [k.plural, ",".join(k.short_names), k.api_version, "true" if k.namespaced else "false", k.kind]
        if args.output == "wide":
            # a custom resource's verbs come in the apiextensions-apiserver's order
            row += [",".join(sorted(k.verbs) if k.crd is None else k.verbs), ",".join(k.categories)]
        rows.append(row)
    env.stdout.write(format_cells(rows))
    return 0


def _preferred(infos):
    """Discovery lists each resource once, at its group's preferred version (the first a
    CustomResourceDefinition serves)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for k in infos:
        if k.crd is not None:
            if (k.group, k.plural) in seen:
                continue
            seen.add((k.group, k.plural))
        out.append(k)
    return out


def metrics_resources() -> list:
    """metrics-server's resources (``kubesim.api.metricsapi``), as discovery lists them."""
    from kubesim.api import kinds, metricsapi

    return [kinds.KindInfo(kind, metricsapi.GROUP, metricsapi.VERSION, plural, namespaced, verbs=metricsapi.VERBS)
            for plural, kind, namespaced in metricsapi.RESOURCES]


def _document(infos, fmt: str) -> str:
    """The flattened APIResourceList: JSON in the struct's field order (four-space indent),
    YAML with sorted keys, as kubectl's printers write a typed object."""
    import json

    resources = []
    for k in infos:
        singular = "" if k.group == "metrics.k8s.io" else k.singular  # metrics-server sets none
        r = {"name": k.plural, "singularName": singular, "namespaced": k.namespaced}
        if k.group:
            r["group"] = k.group
        r.update(version=k.version, kind=k.kind, verbs=sorted(k.verbs))
        if k.short_names:
            r["shortNames"] = list(k.short_names)
        if k.categories:
            r["categories"] = list(k.categories)
        resources.append(r)
    doc = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "", "resources": resources or None}
    if fmt == "json":
        return json.dumps(doc, indent=4) + "\n"
    from kubesim.codec.dump import to_yaml

    return to_yaml(_sorted(doc))


def _sorted(value):
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value
