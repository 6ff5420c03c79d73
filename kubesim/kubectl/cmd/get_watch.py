"""kubectl get -w / --watch / --watch-only: the objects, then a line (or document) for every
change to them as simulated time passes.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/get/get.go (``watch``: one resource type, the
list (or the one object) printed first, unless ``--watch-only``; then each watch event printed
and flushed; ``--output-watch-events``; ``--sort-by`` orders the first table only, with its
warning), get/skip_printer.go, and cli-runtime's printers/tableprinter.go (a table's header is
printed once, with its first row, and not again while the columns stay; the EVENT column of
``--output-watch-events``) and printers/tabwriter.go (one writer for the whole watch, flushed
after each event: columns keep the widest width they have had, RememberWidths).

A real watch never ends. kubesim's runs on the simulated clock (``kubesim.kubectl.waiting``),
each row aged at the moment of its event, and ends silently at ``--request-timeout`` (as
kubectl's does, exit 0), or, saying so on stderr, when nothing in the cluster will change any
more, or at most an hour of simulated time after it began.
"""

from __future__ import annotations

from kubesim.errors import NotFound, UsageError

_EVENT_CELLS = {"ADDED": "ADDED   ", "MODIFIED": "MODIFIED", "DELETED": "DELETED ", "ERROR": "ERROR   "}


def watch(f, args, env) -> int:
    from kubesim.kubectl import waiting
    from kubesim.kubectl.cmd.get import _targets, check_output

    check_output(args.output or "")
    if args.sort_by:
        env.stderr.write(f"warning: --{'watch' if args.watch_flag else 'watch-only'} requested, --sort-by will be "
                         "ignored" + (" for watch events received" if args.watch_flag else "") + "\n")
    if args.filename:
        from kubesim.codec.load import load
        from kubesim.kubectl.resource import prepare

        prepared = prepare(load(args.filename, stdin=env.stdin), f.namespace_flag, "getting",
                           explicit_namespace=f.explicit_namespace, default_namespace=f.namespace())
        targets = [(p.info, [p.name], p.namespace) for p in prepared]
    else:
        if not args.args:
            from kubesim.kubectl.resource import NO_RESOURCES

            raise UsageError(NO_RESOURCES)
        targets = [(info, names, None) for info, names in _targets(args.args, bool(args.selector or
                                                                                 args.field_selector))]
    if len({t[0].kind for t in targets}) != 1:
        raise UsageError("you may only specify a single resource type")
    info = targets[0][0]
    names = [n for t in targets for n in t[1]]
    all_ns = bool(args.all_namespaces)
    ns = None if all_ns else (targets[0][2] or f.namespace())
    deadline = f.request_timeout() or None
    printer = _printer(args, env, all_ns)
    with f.connect() as client:
        if names:
            objs = []
            for n in names:
                obj = client.find(info, ns or "", n)
                if obj is None:
                    raise NotFound(info.resource, n)
                objs.append(obj)
        else:
            from kubesim.kubectl.resource import select

            objs = select(client, info, ns, args.selector, args.field_selector)
        if not args.watch_only:
            if printer.table and args.sort_by:
                from kubesim.kubectl.cmd.get import _sort

                objs = _sort(objs, args.sort_by)
            printer.print([("ADDED", o) for o in objs], client.now())
        if len(names) > 1:
            raise UsageError("you may only watch a single resource or type of resource at a time")
        w = client.watch(info, ns, names[0] if names else None, args.selector, args.field_selector)

        def step() -> bool:
            for event in w.events():
                printer.print([(event.type, event.object)], event.at)
            return False  # a watch goes on until it is stopped

        try:
            outcome = waiting.Waiter(client, deadline).until(step)
        finally:
            w.stop()
        end = client.now()
    if outcome in (waiting.STUCK, waiting.LIMIT):
        from kubesim.clock import format_duration, format_time

        why = ("nothing in the cluster will change any more" if outcome == waiting.STUCK else
               f"as kubesim watches at most {format_duration(waiting.UNBOUNDED_WAIT)} of simulated time")
        hint = "" if outcome == waiting.STUCK else "; set --request-timeout"
        env.stderr.write(f"kubesim: the watch ends at {format_time(end)} (simulated time), {why} (kubectl would "
                         f"keep watching until interrupted{hint})\n")
    return 0


class _Printer:
    """One printer for the whole watch, as kubectl keeps one (its headers printed once, its
    tabwriter's remembered widths)."""

    table = False

    def __init__(self, env):
        self.env = env

    def print(self, events: list[tuple[str, dict]], at: float) -> None:
        raise NotImplementedError


class _TablePrinter(_Printer):
    """The server's table for the kind (``-o wide``, ``--show-labels``, ``-L``), or custom
    columns: rows through one remembering tabwriter, the header with the first row."""

    table = True

    def __init__(self, env, args, all_ns: bool, columns=None):
        super().__init__(env)
        self.args, self.all_ns, self.columns = args, all_ns, columns
        self.widths: list[int] = []
        self.headed = bool(args.no_headers)
        self.events = bool(args.output_watch_events) and columns is None

    def print(self, events, at) -> None:
        from kubesim.printers.tabwriter import format_cells

        if not events:
            return
        header = not self.headed
        rows = self._rows([o for _, o in events], at, header)
        if self.events:  # the EVENT column, first
            body = rows[1:] if header else rows
            rows = ([["EVENT"] + rows[0]] if header else []) + \
                [[_EVENT_CELLS.get(t, t)] + row for (t, _), row in zip(events, body)]
        text = format_cells(rows, self.widths)
        self.headed = True
        self.env.stdout.write(text)

    def _rows(self, objs: list[dict], at: float, header: bool) -> list[list[str]]:
        if self.columns is not None:
            from kubesim.printers import custom_columns, jsonpath

            parsers = [jsonpath.parse(spec, allow_missing_keys=True) for _, spec in self.columns]
            try:
                rows = [custom_columns.row(parsers, o) for o in objs]
            except jsonpath.JSONPathError as e:
                raise UsageError(str(e)) from None
            return ([[h for h, _ in self.columns]] if header else []) + rows
        from kubesim.kubectl.cmd.get import _label_columns
        from kubesim.printers.tables import PrintContext, render_table

        args = self.args
        return render_table(objs[0]["kind"], objs, PrintContext(now=at), wide=args.output == "wide",
                            no_headers=not header, show_namespace=self.all_ns, show_labels=args.show_labels,
                            label_columns=_label_columns(args.label_columns))


class _ObjectPrinter(_Printer):
    """``-o yaml|json|name|jsonpath=``: each object (or, with ``--output-watch-events``, each
    event) on its own; YAML documents after the first start with ``---``."""

    def __init__(self, env, fmt: str, events: bool):
        super().__init__(env)
        self.fmt, self.events, self.count = fmt, events, 0
        self.path = None
        if fmt.startswith("jsonpath"):
            from kubesim.kubectl.cmd.util import template_text
            from kubesim.printers import jsonpath

            template = template_text(fmt)
            try:
                self.path = jsonpath.parse(template, output_json=fmt.startswith("jsonpath-as-json="))
            except jsonpath.JSONPathError as e:
                raise UsageError(str(e)) from None

    def print(self, events, at) -> None:
        from kubesim.printers.output import (
            name_line,
            omit_managed_fields,
            to_json,
            to_yaml,
        )

        out = []
        for kind, obj in events:
            self.count += 1
            if self.path is None:  # the JSON and YAML printers omit them, jsonpath sees them
                obj = omit_managed_fields(obj)
            doc = {"type": kind, "object": obj} if self.events else obj
            if self.path is not None:
                try:
                    out.append(self.path.execute(doc))
                except ValueError as e:
                    raise UsageError(str(e)) from None
            elif self.fmt == "name":
                out.append(name_line(obj) + "\n")
            elif self.fmt == "json":
                out.append(_event_json(kind, obj) if self.events else to_json(obj))
            else:
                out.append(("---\n" if self.count > 1 else "") + to_yaml(doc))
        self.env.stdout.write("".join(out))


def _event_json(kind: str, obj: dict) -> str:
    """A metav1.WatchEvent as kubectl's JSON printer writes it: compact, ``type`` first."""
    import json

    def go(v) -> str:
        text = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return '{"type":' + go(kind) + ',"object":' + go(obj) + "}\n"


def _printer(args, env, all_ns: bool) -> _Printer:
    fmt = args.output or ""
    fmt = fmt.lower() if fmt.lower() in ("json", "yaml") else fmt
    if fmt in ("", "wide"):
        return _TablePrinter(env, args, all_ns)
    if fmt.startswith("custom-columns"):
        from kubesim.kubectl.cmd.get import custom_columns_spec

        return _TablePrinter(env, args, all_ns, columns=custom_columns_spec(fmt))
    return _ObjectPrinter(env, fmt, bool(args.output_watch_events))
