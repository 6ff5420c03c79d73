"""kubectl get: tables, -o wide|yaml|json|name|jsonpath|custom-columns, selectors, sorting,
``--raw``; ``-w``/``--watch-only`` (``kubesim.kubectl.cmd.get_watch``).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/get/get.go (the printers it picks, "No resources
found in NS namespace.", multi-kind output), get/sorter.go (``--sort-by``). The tables are the
server-side printers' (``kubesim.printers.tables``).
"""

from __future__ import annotations

import json

from kubesim.errors import Forbidden, KubesimError, NotFound, UsageError


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="TYPE[.VERSION][.GROUP] [NAME ...]")
    p.add_argument("-A", "--all-namespaces", action="store_true", help="list across all namespaces")
    p.add_argument("-o", "--output", default=None,
                   help="output format: json|yaml|name|wide|jsonpath=...|custom-columns=...")
    p.add_argument("-l", "--selector", help="label selector (e.g. -l key1=value1,key2 in (a,b))")
    p.add_argument("--field-selector", help="field selector (e.g. --field-selector spec.nodeName=node01)")
    p.add_argument("--show-labels", action="store_true", help="show all labels as the last column")
    p.add_argument("-L", "--label-columns", action="append", default=[], help="label keys to show as columns")
    p.add_argument("--sort-by", help="JSONPath to sort the list by (e.g. .metadata.name)")
    p.add_argument("--no-headers", action="store_true", help="don't print headers")
    p.add_argument("--show-kind", action="store_true", help="list the resource type for the requested object(s)")
    p.add_argument("-f", "--filename", action="append", help="identify the resources by the files that define them")
    p.add_argument("--raw", help="raw URI to request, e.g. /api/v1/nodes/node01/proxy/configz")
    p.add_argument("-w", "--watch", nargs="?", const="true", default=None, metavar="true|false",
                   help="After listing/getting the requested object, watch for changes (on the simulated clock: "
                        "the watch ends at --request-timeout or when nothing in the cluster will change any more).")
    p.add_argument("--watch-only", nargs="?", const="true", default=None, metavar="true|false",
                   help="Watch for changes to the requested object(s), without listing/getting first.")
    p.add_argument("--show-managed-fields", action="store_true",
                   help="If true, keep the managedFields when printing objects in JSON or YAML format.")
    p.add_argument("--output-watch-events", nargs="?", const="true", default=None, metavar="true|false",
                   help="Output watch event objects when --watch or --watch-only is used. Existing objects are "
                        "output as initial ADDED events.")


def _targets(words: list[str], selecting: bool):
    """[(KindInfo, [names])] from ``pods``, ``pods,nodes``, ``pod/x node/y``, ``all``."""
    from kubesim.api import kinds
    from kubesim.kubectl.resource import parse_targets

    if not words:
        raise UsageError("You must specify the type of resource to get. Use \"kubesim api-resources\" "
                         "for a complete list of supported resources.")
    if "/" not in words[0]:
        types = words[0].split(",")
        if "all" in types:
            expanded = []
            for t in types:
                if t == "all":
                    # discovery's order: the core group first, then the groups, each's resources by name
                    expanded.extend(k.plural for k in sorted(kinds.REGISTRY.all(), key=lambda k: (k.group != "",
                                                                                                   k.group, k.plural))
                                    if "all" in k.categories)
                else:
                    expanded.append(t)
            words = [",".join(expanded)] + words[1:]
    return parse_targets(words, selecting)


_FORMATS = ("custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,"
            "jsonpath-file,kyaml,name,template,templatefile,wide,yaml")


def check_output(fmt: str) -> None:
    """get's printer for ``-o``, chosen before anything is read (PrintFlags.ToPrinter)."""
    name, _, arg = fmt.partition("=")
    if fmt in ("", "wide", "name") or fmt.lower() in ("json", "yaml"):
        return
    if name in ("jsonpath", "jsonpath-as-json", "jsonpath-file") and not arg:
        raise UsageError("template format specified but no template given")
    if name in ("custom-columns", "custom-columns-file") and not arg:
        raise UsageError("custom-columns format specified but no custom columns given")
    if name in ("jsonpath", "jsonpath-as-json", "jsonpath-file", "custom-columns", "custom-columns-file"):
        return
    if name in ("go-template", "go-template-file", "template", "templatefile", "kyaml"):
        raise UsageError(f'kubesim does not support the output format "{name}" yet; '
                         "use json, yaml, name, jsonpath or custom-columns")
    raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", allowed formats are: '
                     f"{_FORMATS}")


# The warnings a v1.35 API server sends with every request for a deprecated API (the
# ``+k8s:prerelease-lifecycle-gen:deprecated`` markers of k8s.io/api), which kubectl prints.
SERVER_WARNINGS = {"Endpoints": "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"}


def run(f, args, env) -> int:
    from kubesim.kubectl.cmd.util import bool_flag_value

    args.watch_flag = bool_flag_value(args.watch, "-w, --watch", "get")
    args.watch_only = bool_flag_value(args.watch_only, "--watch-only", "get")
    args.output_watch_events = bool_flag_value(args.output_watch_events, "--output-watch-events", "get")
    if args.raw:
        if args.args:
            raise UsageError("arguments may not be passed when --raw is specified")
        if args.watch_flag or args.watch_only or args.selector:
            raise UsageError("--raw may not be specified with other flags that filter the server request or alter "
                             "the output")
        return _raw(f, args, env)
    if args.output_watch_events and not (args.watch_flag or args.watch_only):
        raise UsageError("--output-watch-events option can only be used with --watch or --watch-only")
    if args.watch_flag or args.watch_only:
        from kubesim.kubectl.cmd.get_watch import watch

        return watch(f, args, env)
    check_output(args.output or "")
    if args.filename:
        from kubesim.codec.load import load
        from kubesim.kubectl.resource import prepare

        docs = load(args.filename, stdin=env.stdin)
        prepared = prepare(docs, f.namespace_flag, "getting", explicit_namespace=f.explicit_namespace, default_namespace=f.namespace())
        targets = [(p.info, [p.obj["metadata"].get("name", "")]) for p in prepared]
        ns_for = {id(t): p.namespace for t, p in zip(targets, prepared)}
        local = {id(t): p.obj for t, p in zip(targets, prepared) if not t[1][0]}
    else:
        targets = _targets(args.args, bool(args.selector or args.field_selector))
        ns_for, local = {}, {}
    all_ns = bool(args.all_namespaces)
    ns = None if all_ns else f.namespace()
    results: list[tuple] = []
    errors: list[KubesimError] = []
    # one type listed as a table: its rows are printed page by page as the list is read, and
    # only the rows are kept (kubectl's chunked LIST with the server printing each page)
    streamed = (not args.filename and len(targets) == 1 and not targets[0][1] and targets[0][0].served
                and (args.output or "") in ("", "wide") and not args.sort_by and "all" not in args.args[0].split(","))
    with f.connect(read_only=True) as client:
        now = client.now()
        for t in targets:
            info, names = t
            if streamed:
                try:
                    results.append((info, names, _printed(client, info, ns, args, now, all_ns)))
                except Forbidden as e:
                    errors.append(e)
                    args.refused_kinds = True
                continue
            if id(t) in local:
                # RetrieveLatest leaves a nameless document as the file has it; kubectl prints it
                # in the generic NAME, AGE table, not the kind's
                if results and results[-1][0].kind == "" and results[-1][0].plural == info.plural:
                    results[-1][2].append(local[id(t)])
                else:
                    results.append((info._replace(kind=""), names, [local[id(t)]]))
                continue
            try:
                objs, errs = select(client, info, names, ns_for.get(id(t), ns), args.selector, args.field_selector,
                                    _unread(info, args))
            except Forbidden as e:  # (an impersonated user's) refused list: the other kinds still print
                errors.append(e)
                args.refused_kinds = True  # then only kinds with objects count as several (kubectl's infos)
                continue
            errors.extend(errs)
            results.append((info, names, objs))
    for w in dict.fromkeys(SERVER_WARNINGS[r[0].kind] for r in results if r[0].kind in SERVER_WARNINGS):
        env.stderr.write(f"Warning: {w}\n")  # the API server's deprecation warning, once per command
    out = render(results, args, now, all_ns, ns, env)
    env.stdout.write(out["stdout"])
    if out["stderr"]:
        env.stderr.write(out["stderr"])
    for e in errors:
        env.stderr.write(str(e) + "\n")
    return 1 if errors else 0


def _unread(info, args) -> tuple[str, ...]:
    """What get's output never shows of the objects it lists: in a table of a built-in kind,
    what its printer never reads (``tables.unread``: managedFields, and e.g. a pod's volumes);
    their managedFields for a name, or JSON and YAML without ``--show-managed-fields``. The
    server may then leave them out (``Client.list``) and the list costs less to read. Nothing
    in the other formats (jsonpath and custom-columns see everything), with a ``--sort-by``
    (but for JSON and YAML) and in a custom resource's table (its columns are JSONPaths)."""
    fmt = (args.output or "").lower()
    if info.crd is not None or not info.served:
        return ()
    if fmt in ("", "wide") and not args.sort_by:
        from kubesim.printers.tables import unread

        return unread(info.kind)
    if fmt == "name" and not args.sort_by:
        return ("metadata.managedFields",)
    if fmt in ("json", "yaml") and not getattr(args, "show_managed_fields", False):
        return ("metadata.managedFields",)  # (dropped before --sort-by reads them)
    return ()


class _Printed(list):
    """The rows (no header) of a table printed while its objects were listed (``_printed``)."""


def _printed(client, info, namespace: str | None, args, now: float, all_ns: bool) -> _Printed:
    """The table rows of every object the selectors match, read a page at a time: what
    ``render`` prints for one listed type, without holding all its objects."""
    from kubesim.gcpause import collector_paused
    from kubesim.kubectl import resource
    from kubesim.printers.tables import PrintContext, table_rows

    ctx = PrintContext(now=now)
    rows = _Printed()
    # rows of strings hold no cycles: the cyclic collector, which would scan them again and
    # again as they pile up (a tenth of the time at 15,000 pods), waits until they are made
    with collector_paused():
        for piece in resource.select_pieces(client, info, namespace, args.selector, args.field_selector,
                                            _unread(info, args), table=info.crd is None):
            rows.extend(table_rows(info.kind, piece, ctx, wide=(args.output == "wide"),
                                   show_namespace=all_ns and info.namespaced, show_labels=args.show_labels,
                                   label_columns=_label_columns(args.label_columns),
                                   show_kind=bool(getattr(args, "show_kind", False))))
    return rows


def select(client, info, names: list[str], namespace: str | None, label_selector: str | None,
           field_selector: str | None, omit: tuple[str, ...] = ()) -> tuple[list[dict], list[KubesimError]]:
    """The objects ``get`` shows: each named one (a NotFound error for each missing one, the
    others still shown, as kubectl does), else the list the selectors match (without the
    ``omit`` paths, which the caller does not show)."""
    from kubesim.kubectl import resource

    if not names:
        return resource.select(client, info, namespace, label_selector, field_selector, omit), []
    found, errors = [], []
    for n in names:
        obj = client.find(info, namespace or "", n)
        if obj is None:
            errors.append(NotFound(info.resource, n))
        else:
            found.append(obj)
    if label_selector or field_selector:
        # objects named by -f: the builder filters them by the selector
        kept = {(o["metadata"].get("namespace", ""), o["metadata"]["name"])
                for o in resource.select(client, info, namespace, label_selector, field_selector)}
        found = [o for o in found if (o["metadata"].get("namespace", ""), o["metadata"]["name"]) in kept]
    return found, errors


def _natural_key(s: str) -> tuple:
    """sortorder.NaturalLess: runs of digits compare as numbers."""
    import re

    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|\D+", s))


def _sort(objs: list[dict], sort_by: str) -> list[dict]:
    """kubectl's --sort-by (get/sorter.go): the first value the JSONPath finds in each object;
    numbers numerically, strings naturally; objects without the field first."""
    from kubesim.printers import jsonpath
    from kubesim.printers.custom_columns import relaxed

    try:
        field = relaxed(sort_by)
        expr = jsonpath.parse(field)
    except ValueError as e:
        raise UsageError(str(e)) from None
    found_once = []

    def key(o):
        try:
            found = [v for group in expr.find_results(o) for v in group]
        except ValueError:
            found = []
        if not found:
            return (0, 0, ())
        found_once.append(True)
        v = found[0]
        if isinstance(v, bool):
            return (1, int(v), ())
        if isinstance(v, (int, float)):
            return (1, v, ())
        if isinstance(v, str):
            return (2, 0, _natural_key(v))
        return (3, 0, (json.dumps(v, sort_keys=True),))

    out = sorted(objs, key=key)
    if objs and not found_once:  # NewTableSorter / SortObjects: the field must exist somewhere
        raise UsageError(f'couldn\'t find any field with path "{field}" in the list of objects')
    return out


def render(results, args, now: float, all_ns: bool, ns: str | None, env) -> dict:
    """Format the selected objects as kubectl would print them."""
    from kubesim.printers import output as out_mod

    fmt = args.output or ""
    fmt = fmt.lower() if fmt.lower() in ("json", "yaml") else fmt  # JSONYamlPrintFlags ignore case
    single = len(results) == 1 and len(results[0][1]) == 1
    if len(results) == 1 and not results[0][0].served:
        # the scheduler configuration is one document, not a list of named objects
        single = True
        fmt = fmt if fmt and fmt != "wide" else "yaml"
    objs_all = [o for _, _, objs in results for o in objs]
    if fmt in ("json", "yaml") and not getattr(args, "show_managed_fields", False):
        # the JSON and YAML printers omit them (jsonpath and custom-columns see them)
        objs_all = [out_mod.omit_managed_fields(o) for o in objs_all]
    if args.sort_by:
        objs_all = _sort(objs_all, args.sort_by)
        sorted_results = [(info, names, [o for o in objs_all if o["kind"] == info.kind]) for info, names, _ in results]
    else:
        sorted_results = results
    stderr = ""
    if not objs_all and not any(names for _, names, _ in results):
        if fmt in ("json", "yaml"):
            return {"stdout": out_mod.render([], fmt, False), "stderr": ""}
        if fmt.startswith("jsonpath") or fmt == "name":
            return {"stdout": "", "stderr": ""}
        namespaced = any(info.namespaced for info, _, _ in results)
        if getattr(args, "refused_kinds", False):
            stderr = ""  # kubectl says "No resources found" only when nothing went wrong
        elif all_ns or not namespaced:
            stderr = "No resources found\n"
        else:
            stderr = f"No resources found in {ns} namespace.\n"
        return {"stdout": "", "stderr": stderr}
    if fmt in ("json", "yaml", "name"):
        return {"stdout": out_mod.render(objs_all, fmt, single), "stderr": ""}
    if fmt.startswith("jsonpath"):
        from kubesim.kubectl.cmd.util import template_text
        from kubesim.printers import jsonpath

        template = template_text(fmt)
        data = objs_all[0] if single and len(objs_all) == 1 else out_mod.as_list(objs_all)
        try:
            text = jsonpath.parse(template, output_json=fmt.startswith("jsonpath-as-json=")).execute(data)
        except ValueError as e:
            raise UsageError(str(e)) from None
        return {"stdout": text, "stderr": ""}
    if fmt.startswith("custom-columns"):
        from kubesim.printers import custom_columns

        cols = custom_columns_spec(fmt)
        try:
            text = custom_columns.render(cols, objs_all, no_headers=args.no_headers)
        except ValueError as e:
            raise UsageError(str(e)) from None
        return {"stdout": text, "stderr": ""}
    from kubesim.printers.tables import PrintContext, render_table, table_header
    from kubesim.printers.tabwriter import format_cells

    ctx = PrintContext(now=now)
    # get.go multipleGVKsRequested over the infos: server-side printing answers each listed
    # type with one Table, an empty one too, so two types listed print kinds though one is empty
    multi_kind = len({r[0].kind for r in sorted_results}) > 1 or getattr(args, "show_kind", False) or \
        (args.args and "all" in args.args[0].split(",") and not getattr(args, "refused_kinds", False))
    blocks = []
    for info, names, objs in sorted_results:
        if not objs:
            continue
        if isinstance(objs, _Printed):
            header = [] if args.no_headers else [
                table_header(info.kind, wide=(fmt == "wide"), show_namespace=all_ns and info.namespaced,
                             show_labels=args.show_labels, label_columns=_label_columns(args.label_columns))]
            blocks.append(format_cells(header + objs))
            continue
        rows = render_table(info.kind, objs, ctx, wide=(fmt == "wide"), no_headers=args.no_headers,
                            show_namespace=all_ns and info.namespaced, show_labels=args.show_labels,
                            label_columns=_label_columns(args.label_columns), show_kind=bool(multi_kind))
        text = format_cells(rows)
        blocks.append(text)
    return {"stdout": "\n".join(blocks), "stderr": stderr}


def _label_columns(values: list[str]) -> list[str]:
    out = []
    for v in values:
        out.extend(x for x in v.split(",") if x)
    return out


def custom_columns_spec(fmt: str) -> list:
    """The columns of ``-o custom-columns=SPEC`` or ``-o custom-columns-file=FILE``, or kubectl's
    error (a file that cannot be read is os.ReadFile's)."""
    from kubesim.printers import custom_columns

    try:
        if fmt.startswith("custom-columns-file="):
            path = fmt.split("=", 1)[1]
            try:
                with open(path, encoding="utf-8") as fh:
                    return custom_columns.parse_file(fh.read())
            except OSError as e:
                raise UsageError(f"open {path}: {(e.strerror or str(e)).lower()}") from None
        return custom_columns.parse_spec(_format_arg(fmt, ("custom-columns=",)))
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(str(e)) from None


def _format_arg(fmt: str, prefixes) -> str:
    for p in prefixes:
        if fmt.startswith(p):
            return fmt[len(p):]
    raise UsageError("template format specified but no template given")


def _raw(f, args, env) -> int:
    """``get --raw``: a non-resource path (the kubelet's configz for a node, DESIGN §3.6)."""
    with f.connect() as client:
        body = client.raw(args.raw)
    env.stdout.write(json.dumps(body, separators=(",", ":")) + "\n")
    return 0
