"""kubectl config: read and change the kubeconfig (the state's own, or ``--kubeconfig FILE``).

``view`` (``--minify``, ``--raw``, ``-o yaml|json``), ``get-contexts`` (``-o name``,
``--no-headers``), ``current-context``, ``use-context`` (``use``), ``set-context`` (``NAME`` or
``--current``; ``--cluster``, ``--user``, ``--namespace``), ``rename-context``,
``delete-context``, ``get-clusters``, ``delete-cluster``, ``get-users``, ``delete-user``,
``set-cluster``, ``set-credentials`` (certificates, keys, tokens and basic auth; not the exec and
auth-provider plugins), ``set`` and ``unset`` (one value by its dotted path,
``kubesim.kubectl.cmd.config_set``). Client-side only, as kubectl's: nothing here opens a cluster.

Upstream: kubectl ``pkg/cmd/config/``: ``config.go`` (the subcommands), ``view.go``,
``get_contexts.go``, ``current_context.go``, ``use_context.go``, ``set_context.go``,
``rename_context.go``, ``delete_context.go``, ``get_clusters.go``, ``delete_cluster.go``,
``get_users.go``, ``delete_user.go``, ``set_cluster.go``, ``set_credentials.go``; the file's
reading and writing: ``kubesim.kubectl.clientcmd``.
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
    "set": "Set an individual value in a kubeconfig file",
    "set-cluster": "Set a cluster entry in kubeconfig",
    "set-context": "Set a context entry in kubeconfig",
    "set-credentials": "Set a user entry in kubeconfig",
    "unset": "Unset an individual value in a kubeconfig file",
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
    p.add_argument("--server", default=None, help="set-cluster: server for the cluster entry in kubeconfig")
    p.add_argument("--certificate-authority", default=None,
                   help="set-cluster: path to certificate-authority file for the cluster entry in kubeconfig")
    p.add_argument("--insecure-skip-tls-verify", nargs="?", const="true", default=None,
                   help="set-cluster: insecure-skip-tls-verify for the cluster entry in kubeconfig")
    p.add_argument("--tls-server-name", default=None,
                   help="set-cluster: tls-server-name for the cluster entry in kubeconfig")
    p.add_argument("--proxy-url", default=None, help="set-cluster: proxy-url for the cluster entry in kubeconfig")
    p.add_argument("--embed-certs", nargs="?", const="true", default=None,
                   help="set-cluster, set-credentials: embed the certificate files' data in the kubeconfig")
    p.add_argument("--client-certificate", default=None,
                   help="set-credentials: path to client-certificate file for the user entry in kubeconfig")
    p.add_argument("--client-key", default=None,
                   help="set-credentials: path to client-key file for the user entry in kubeconfig")
    p.add_argument("--token", default=None, help="set-credentials: token for the user entry in kubeconfig")
    p.add_argument("--username", default=None, help="set-credentials: username for the user entry in kubeconfig")
    p.add_argument("--password", default=None, help="set-credentials: password for the user entry in kubeconfig")
    p.add_argument("--set-raw-bytes", nargs="?", const="true", default=None,
                   help="set: when writing a []byte PROPERTY_VALUE, write the given string directly without base64 "
                        "decoding")


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
    """ModifyConfig: the one file, or, with $KUBECONFIG's several, each change where it belongs."""
    from kubesim.kubectl.clientcmd import modify_config, save

    files = f.kubeconfig_precedence() if hasattr(f, "kubeconfig_precedence") else []
    if files:
        modify_config(files, f.kubeconfig(), config)
    else:
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
    config = f.kubeconfig()  # file paths as written (relative to the file), as kubectl's view prints them
    if args.minify:
        config = clientcmd.minified(config, getattr(args, "context", None))
    if args.flatten:
        import os

        config = clientcmd.flattened(config, os.path.dirname(os.path.abspath(f.kubeconfig_path())))
    elif not args.raw:
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


def _bool_flag(name: str, value: str | None, sub: str) -> bool:
    """pflag's bool parsing (strconv.ParseBool)."""
    if value is None:
        return False
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise RawError(f'error: invalid argument "{value}" for "--{name}" flag: strconv.ParseBool: parsing "{value}": '
                   f"invalid syntax\nSee 'kubesim config {sub} --help' for usage.")


def _file_data(flag: str, path: str) -> str:
    """A file's bytes as the kubeconfig's ``-data`` fields hold them (base64)."""
    import base64

    try:
        with open(path, "rb") as fh:
            return base64.b64encode(fh.read()).decode()
    except OSError as e:
        raise client_error(f"could not stat {flag} file {path}: stat {path}: {_go_errno(e)}") from None


def _go_errno(e: OSError) -> str:
    return (e.strerror or str(e)).lower()


def _stat(flag: str, path: str) -> None:
    import os

    try:
        os.stat(path)
    except OSError as e:
        raise client_error(f"could not stat {flag} file {path}: stat {path}: {_go_errno(e)}") from None


def _set_cluster(f, args, env) -> int:

    if len(args.names) != 1:
        raise _unexpected(args.names)
    name = args.names[0]
    if not name:
        raise client_error("you must specify a non-empty cluster name")
    insecure = _bool_flag("insecure-skip-tls-verify", args.insecure_skip_tls_verify, "set-cluster")
    embed = _bool_flag("embed-certs", args.embed_certs, "set-cluster")
    ca = args.certificate_authority
    if insecure and ca:
        raise client_error("you cannot specify a certificate authority and insecure mode at the same time")
    if embed:
        if not ca:
            raise client_error("you must specify a --certificate-authority to embed")
        _stat("certificate-authority", ca)
    config = f.kubeconfig()
    c = dict(config.clusters.get(name) or {})
    if args.server is not None:
        c["server"] = args.server
        c.pop("tls-server-name", None)
    if args.tls_server_name is not None:
        _set(c, "tls-server-name", args.tls_server_name)
    # kubectl's flag has a default, so it always counts as given: unless true, it turns insecure off
    _set(c, "insecure-skip-tls-verify", insecure)
    if insecure:
        c.pop("certificate-authority", None)
        c.pop("certificate-authority-data", None)
    if ca is not None:
        if embed:
            _set(c, "certificate-authority-data", _file_data("certificate-authority", ca))
            c.pop("insecure-skip-tls-verify", None)
            c.pop("certificate-authority", None)
        else:
            c["certificate-authority"] = _written_path(f, ca)
            c.pop("insecure-skip-tls-verify", None)
            c.pop("certificate-authority-data", None)
    if args.proxy_url is not None:
        _set(c, "proxy-url", args.proxy_url)
    config.clusters[name] = c
    _write(f, config)
    env.stdout.write(f'Cluster "{name}" set.\n')
    return 0


def _written_path(f, path: str) -> str:
    """A file path as ModifyConfig writes it: relative to the kubeconfig's directory when under it."""
    import os

    from kubesim.kubectl.clientcmd import relative_path

    return relative_path(os.path.abspath(path), os.path.dirname(os.path.abspath(f.kubeconfig_path())))


def _set(body: dict, key: str, value) -> None:
    """Set a field, or drop it when empty (the kubeconfig's omitempty fields)."""
    if value:
        body[key] = value
    else:
        body.pop(key, None)


def _set_credentials(f, args, env) -> int:

    if len(args.names) != 1:
        raise client_error(f"unexpected args: [{' '.join(args.names)}]")
    name = args.names[0]
    if not name:
        raise client_error("you must specify a non-empty user name")
    methods = []
    if args.token:
        methods.append("--token")
    if args.username or args.password:
        methods.append("--username/--password")
    if len(methods) > 1:
        raise client_error("you cannot specify more than one authentication method at the same time: "
                           + ", ".join(methods))
    embed = _bool_flag("embed-certs", args.embed_certs, "set-credentials")
    if embed:
        if not args.client_certificate and not args.client_key:
            raise client_error("you must specify a --client-certificate or --client-key to embed")
        for flag, path in (("client-certificate", args.client_certificate), ("client-key", args.client_key)):
            if path:
                _stat(flag, path)
    config = f.kubeconfig()
    u = dict(config.users.get(name) or {})
    for flag, path in (("client-certificate", args.client_certificate), ("client-key", args.client_key)):
        if path is None:
            continue
        if embed:
            _set(u, f"{flag}-data", _file_data(flag, path))
            u.pop(flag, None)
        else:
            u[flag] = _written_path(f, path)
            u.pop(f"{flag}-data", None)
    set_token = set_basic = False
    if args.token is not None:
        _set(u, "token", args.token)
        set_token = bool(args.token)
    for key in ("username", "password"):
        value = getattr(args, key)
        if value is not None:
            _set(u, key, value)
            set_basic = set_basic or bool(value)
    if set_token or set_basic:  # one way to authenticate: the others go
        if not set_token:
            u.pop("token", None)
        if not set_basic:
            u.pop("username", None)
            u.pop("password", None)
    config.users[name] = u
    _write(f, config)
    env.stdout.write(f'User "{name}" set.\n')
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
    if ("contexts", old) in config.origins:  # the entry keeps its LocationOfOrigin
        config.origins[("contexts", new)] = config.origins[("contexts", old)]
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


def _config_set(f, args, env) -> int:
    from kubesim.kubectl.cmd.config_set import config_set

    return config_set(f, args, env, _write)


def _config_unset(f, args, env) -> int:
    from kubesim.kubectl.cmd.config_set import config_unset

    return config_unset(f, args, env, _write)


_HANDLERS = {
    "view": _view,
    "set": _config_set,
    "unset": _config_unset,
    "get-contexts": _get_contexts,
    "current-context": _current_context,
    "use-context": _use_context,
    "set-context": _set_context,
    "set-cluster": _set_cluster,
    "set-credentials": _set_credentials,
    "rename-context": _rename_context,
    "delete-context": _delete("context", "contexts"),
    "delete-cluster": _delete("cluster", "clusters"),
    "delete-user": _delete("user", "users"),
    "get-clusters": _get_names("clusters"),
    "get-users": _get_names("users"),
}
