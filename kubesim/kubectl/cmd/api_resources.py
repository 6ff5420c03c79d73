"""kubectl api-resources: the resources the server serves (discovery).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/apiresources/apiresources.go (columns NAME,
SHORTNAMES, APIVERSION, NAMESPACED, KIND; ``-o wide`` adds VERBS and CATEGORIES).
"""

from __future__ import annotations


def add_flags(p):
    p.add_argument("--namespaced", default=None, choices=["true", "false"])
    p.add_argument("-o", "--output", default=None, help="wide|name")
    p.add_argument("--no-headers", action="store_true")


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.printers.tabwriter import format_cells

    infos = sorted((k for k in kinds.REGISTRY.all() if k.served), key=lambda k: (k.group, k.plural))
    if args.namespaced is not None:
        want = args.namespaced == "true"
        infos = [k for k in infos if k.namespaced == want]
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
