"""kubectl events: the events of a namespace (or all), filtered and sorted as kubectl does.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/events/events.go (``--for``, ``--types``, sorted
by last seen, "No events found in <ns> namespace.").
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--for", dest="for_", default=None, help="only events about this object, e.g. pod/web")
    p.add_argument("--types", default=None, help="comma-separated event types, e.g. Warning")
    p.add_argument("-o", "--output", default=None, help="json|yaml|name")
    p.add_argument("--no-headers", action="store_true")


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.printers import output
    from kubesim.printers.tables import PrintContext, render_table
    from kubesim.printers.tabwriter import format_cells

    ns = None if args.all_namespaces else f.namespace()
    types = {t.strip().lower() for t in args.types.split(",")} if args.types else None
    for_kind = for_name = None
    if args.for_:
        if "/" not in args.for_:
            raise UsageError("--for must be in resource/name form")
        t, for_name = args.for_.split("/", 1)
        for_kind = kinds.lookup(t).kind
    with f.connect(read_only=True) as client:
        now = client.now()
        evs = client.list(kinds.by_kind("Event"), ns)
    evs = [e for e in evs
           if (types is None or (e.get("type") or "").lower() in types)
           and (for_kind is None or ((e.get("involvedObject") or {}).get("kind") == for_kind
                                     and (e.get("involvedObject") or {}).get("name") == for_name))]
    evs.sort(key=lambda e: (e.get("lastTimestamp") or e.get("eventTime") or "", e["metadata"]["name"]))
    if not evs:
        env.stderr.write("No events found.\n" if ns is None else f"No events found in {ns} namespace.\n")
        return 0
    if args.output in ("json", "yaml", "name"):
        env.stdout.write(output.render(evs, args.output, False))
        return 0
    rows = render_table("Event", evs, PrintContext(now=now), no_headers=args.no_headers,
                        show_namespace=ns is None)
    env.stdout.write(format_cells(rows))
    return 0
