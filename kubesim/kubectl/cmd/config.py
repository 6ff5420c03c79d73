"""kubectl config: read and change the kubeconfig (the state's own, or ``--kubeconfig FILE``).

``view`` (``--minify``, ``--raw``, ``-o yaml|json``), ``get-contexts`` (``-o name``,
``--no-headers``), ``current-context``, ``use-context`` (``use``), ``set-context`` (``NAME`` or
``--current``; ``--cluster``, ``--user``, ``--namespace``), ``rename-context``,
``delete-context``, ``get-clusters``, ``delete-cluster``, ``get-users``, ``delete-user``.
Client-side only, as kubectl's: nothing here opens a cluster.

Upstream: kubectl ``pkg/cmd/config/``: ``config.go`` (the subcommands), ``view.go``,
``get_contexts.go``, ``current_context.go``, ``use_context.go``, ``set_context.go``,
``rename_context.go``, ``delete_context.go``, ``get_clusters.go``, ``delete_cluster.go``,
``get_users.go``, ``delete_user.go``; the file's reading and writing: ``kubesim.kubectl.clientcmd``.
"""

from __future__ import annotations

from kubesim.errors import RawError, UsageError, client_error

SUBCOMMANDS = {
    "current-context": "Display the current-context",
    "delete-cluster": "Delete the specified cluster from the kubeconfig",
    "delete-context": "Delete the specified context from the kubeconfig",
    "delete-user": "Delete the specified user from the kubeconfig",
    "get-clusters": "Display clusters defined in the kubeconfig",
    "get-contexts": "Describe one or many contexts",
    "get-users": "Display users defined in the kubeconfig",
    "rename-context": "Rename a context from the kubeconfig file",
    "set-context": "Set a context entry in kubeconfig",
    "use-context": "Set the current-context in a kubeconfig file",
    "view": "Display merged kubeconfig settings or a specified kubeconfig file",
}
_ALIASES = {"use": "use-context"}

HELP = ("Modify kubeconfig files using subcommands like \"kubesim config use-context my-context\".\n\n"
        "kubesim keeps the kubeconfig in the state directory (DIR/kubeconfig); --kubeconfig FILE reads and "
        "writes another file.\n\nAvailable Commands:\n"
        + "".join(f"  {name:<17} {h}\n" for name, h in SUBCOMMANDS.items())
        + "\nUsage:\n  kubesim config SUBCOMMAND [options]\n")


def add_flags(p):
    import argparse

    p.description = HELP.split("\nUsage:")[0]
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("subcommand", nargs="?", default=None, metavar="SUBCOMMAND")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--current", action="store_true", help="set-context: modify the current context")
    p.add_argument("--user", default=None, help="set-context: user for the context entry in kubeconfig")
    p.add_argument("--raw", action="store_true", help="view: display raw byte data and sensitive data")
    p.add_argument("--minify", action="store_true",
                   help="view: remove all information not used by current-context from the output")
    p.add_argument("--flatten", action="store_true", help="view: flatten into self-contained output")
    p.add_argument("-o", "--output", default=None, help="view: yaml or json; get-contexts: name")
    p.add_argument("--no-headers", action="store_true", help="get-contexts: don't print headers")


def run(f, args, env) -> int:
    sub = _ALIASES.get(args.subcommand, args.subcommand)
    if sub is None:
        env.stderr.write(HELP)
        return 1
    handler = _HANDLERS.get(sub)
    if handler is None:
        raise RawError(f'error: unknown command "{sub}"\nSee \'kubesim config -h\' for help and examples')
    return handler(f, args, env) or 0


def _unexpected(names: list[str]) -> UsageError:
    return UsageError(f"Unexpected args: [{' '.join(names)}]")


def _write(f, config) -> None:
    from kubesim.kubectl.clientcmd import save

    save(f.kubeconfig_path(), config)


def _view(f, args, env) -> int:
    from kubesim.kubectl import clientcmd

    if args.names:
        raise RawError(f"error: unexpected arguments: [{' '.join(args.names)}]\n"
                       "See 'kubesim config view -h' for help and examples")
    output = args.output or "yaml"
    if output not in ("yaml", "json") and not output.startswith("jsonpath="):
        raise client_error(f'unable to match a printer suitable for the output format "{output}", '
                           f"allowed formats are: {_VIEW_FORMATS}")
    config = f.kubeconfig()
    if args.minify:
        config = clientcmd.minified(config, getattr(args, "context", None))
    if not (args.raw or args.flatten):
        config = clientcmd.redacted(config)
    if output.startswith("jsonpath="):
        import json

        from kubesim.printers import jsonpath

        try:
            text = jsonpath.parse(output.split("=", 1)[1]).execute(json.loads(clientcmd.to_json(config)))
        except ValueError as e:
            raise UsageError(str(e)) from None
        env.stdout.write(text)
        return 0
    env.stdout.write(clientcmd.to_json(config) if output == "json" else clientcmd.to_yaml(config))
    return 0


_VIEW_FORMATS = ("go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,"
                 "templatefile,yaml")


def _get_contexts(f, args, env) -> int:
    from kubesim.printers.tabwriter import format_cells

    if args.output not in (None, "", "name"):
        raise client_error(f"--output {args.output} is not available in kubectl config get-contexts; "
                           "resetting to default output format")
    config = f.kubeconfig()
    name_only = args.output == "name"
    errors, names = [], []
    if not args.names:
        names = list(config.contexts)
    for n in args.names:
        if n in config.contexts:
            names.append(n)
        else:
            errors.append(f"context {n} not found")
    rows = []
    if not (args.no_headers or name_only):
        rows.append(["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"])
    for n in sorted(names):
        ctx = config.contexts[n]
        if name_only:
            rows.append([n])
        else:
            rows.append(["*" if config.current_context == n else " ", n, ctx.get("cluster", ""), ctx.get("user", ""),
                         ctx.get("namespace", "")])
    env.stdout.write(format_cells(rows))
    if errors:
        # CheckErr prints an aggregate of several one per line, without the prefix
        raise client_error(errors[0]) if len(errors) == 1 else RawError("\n".join(errors))
    return 0


def _current_context(f, args, env) -> int:
    if args.names:
        raise _unexpected(args.names)
    config = f.kubeconfig()
    if not config.current_context:
        raise client_error("current-context is not set")
    env.stdout.write(config.current_context + "\n")
    return 0


def _use_context(f, args, env) -> int:
    if len(args.names) != 1:
        raise _unexpected(args.names)
    name = args.names[0]
    config = f.kubeconfig()
    if name not in config.contexts:
        raise client_error(f'no context exists with the name: "{name}"')
    config.current_context = name
    _write(f, config)
    env.stdout.write(f'Switched to context "{name}".\n')
    return 0


def _set_context(f, args, env) -> int:
    if len(args.names) > 1:
        raise _unexpected(args.names)
    name = args.names[0] if args.names else ""
    if not name and not args.current:
        raise client_error("you must specify a non-empty context name or --current")
    if name and args.current:
        raise client_error("you cannot specify both a context name and --current")
    config = f.kubeconfig()
    if args.current:
        if not config.current_context:
            raise client_error("no current context is set")
        name = config.current_context
    exists = name in config.contexts
    ctx = dict(config.contexts.get(name) or {})
    for key, value in (("cluster", getattr(args, "cluster", None)), ("user", args.user),
                       ("namespace", getattr(args, "namespace", None))):
        if value is not None:
            if value:
                ctx[key] = value
            else:
                ctx.pop(key, None)
    config.contexts[name] = ctx
    _write(f, config)
    env.stdout.write(f'Context "{name}" {"modified" if exists else "created"}.\n')
    return 0


def _rename_context(f, args, env) -> int:
    if len(args.names) != 2:
        raise _unexpected(args.names)
    old, new = args.names
    if not new:
        raise client_error("You must specify a new non-empty context name")
    config = f.kubeconfig()
    path = f.kubeconfig_path()
    if old not in config.contexts:
        raise client_error(f'cannot rename the context "{old}", it\'s not in {path}')
    if new in config.contexts:
        raise client_error(f'cannot rename the context "{old}", the context "{new}" already exists in {path}')
    config.contexts[new] = config.contexts.pop(old)
    if config.current_context == old:
        config.current_context = new
    _write(f, config)
    env.stdout.write(f'Context "{old}" renamed to "{new}".\n')
    return 0


def _delete(kind: str, plural: str):
    def handler(f, args, env) -> int:
        if len(args.names) != 1:
            if not args.names:  # kubectl prints the command's help and succeeds
                env.stdout.write(f"Delete the specified {kind} from the kubeconfig.\n\nUsage:\n"
                                 f"  kubesim config delete-{kind} NAME [options]\n")
                return 0
            raise _unexpected(args.names)
        name = args.names[0]
        config = f.kubeconfig()
        path = f.kubeconfig_path()
        section = config.section(plural)
        if name not in section:
            raise client_error(f"cannot delete {kind} {name}, not in {path}")
        if kind == "context" and config.current_context == name:
            env.stderr.write('warning: this removed your active context, use "kubectl config use-context" to '
                             "select a different one\n")
        del section[name]
        _write(f, config)
        env.stdout.write(f"deleted {kind} {name} from {path}\n")
        return 0
    return handler


def _get_names(plural: str):
    def handler(f, args, env) -> int:
        config = f.kubeconfig()
        env.stdout.write("NAME\n" + "".join(n + "\n" for n in sorted(config.section(plural))))
        return 0
    return handler


_HANDLERS = {
    "view": _view,
    "get-contexts": _get_contexts,
    "current-context": _current_context,
    "use-context": _use_context,
    "set-context": _set_context,
    "rename-context": _rename_context,
    "delete-context": _delete("context", "contexts"),
    "delete-cluster": _delete("cluster", "clusters"),
    "delete-user": _delete("user", "users"),
    "get-clusters": _get_names("clusters"),
    "get-users": _get_names("users"),
}
