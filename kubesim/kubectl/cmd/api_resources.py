"""kubectl api-resources: the resources the server serves (discovery).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/apiresources/apiresources.go (columns NAME,
SHORTNAMES, APIVERSION, NAMESPACED, KIND; ``-o wide`` adds VERBS and CATEGORIES; the filters
``--api-group``, ``--namespaced``, ``--verbs``, ``--categories``; sorted by group, or by
``--sort-by=name|kind``, ties by name).
"""

from __future__ import annotations


def add_flags(p):
    p.add_argument("--namespaced", nargs="?", const="true", default=None, choices=["true", "false"],
                   help="If false, non-namespaced resources will be returned, otherwise namespaced ones")
    p.add_argument("--api-group", default=None, help="Limit to resources in the specified API group.")
    p.add_argument("--verbs", action="append", default=None,
                   help="Limit to resources that support the specified verbs.")
    p.add_argument("--categories", action="append", default=None,
                   help="Limit to resources that belong to the specified categories.")
    p.add_argument("--sort-by", default="", help="If non-empty, sort list of resources using specified field. "
                                                 "The field can be either 'name' or 'kind'.")
    p.add_argument("--cached", nargs="?", const="true", default=None, help="(accepted; discovery is never stale)")
    p.add_argument("-o", "--output", default=None, help="wide|name")
    p.add_argument("--no-headers", action="store_true")


def _csv(values: list[str] | None) -> set[str]:
    return {v for value in values or () for v in value.split(",") if v}


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.errors import UsageError
    from kubesim.printers.tabwriter import format_cells

    if args.output not in (None, "", "wide", "name", "json", "yaml", "kyaml"):
        raise UsageError(f'unable to match a printer suitable for the output format "{args.output}", allowed formats '
                         "are: json,kyaml,name,wide,yaml")
    if args.sort_by not in ("", "name", "kind"):
        raise UsageError("--sort-by accepts only name or kind")
    # sorted by group (discovery's order), or by name or kind; ties by name
    field = {"name": lambda k: k.plural, "kind": lambda k: k.kind}.get(args.sort_by, lambda k: k.group)
    infos = sorted((k for k in kinds.REGISTRY.all() if k.served), key=lambda k: (field(k), k.plural))
    if args.namespaced is not None:
        want = args.namespaced == "true"
        infos = [k for k in infos if k.namespaced == want]
    if args.api_group is not None:
        infos = [k for k in infos if k.group == args.api_group]
    verbs, categories = _csv(args.verbs), _csv(args.categories)
    infos = [k for k in infos if verbs <= set(k.verbs) and categories <= set(k.categories)]
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
            row += ["[" + " ".join(sorted(k.verbs)) + "]", ",".join(k.categories)]
        rows.append(row)
    env.stdout.write(format_cells(rows))
    return 0
