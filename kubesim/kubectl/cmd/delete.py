"""kubectl delete: names, ``TYPE``+``-l``/``--all``, or ``-f`` manifests; grace periods, force,
cascade.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go (flags, the lines printed:
``pod "x" deleted from default namespace``, the ``--force`` warning, "No resources found").
kubesim does not wait yet: ``--wait`` is accepted as kubectl accepts it, and a pod shows
Terminating for its grace period.
"""

from __future__ import annotations

from kubesim.errors import Aggregate, KubesimError, NotFound, UsageError
from kubesim.kubectl.resource import NO_RESOURCES, parse_targets, select


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="TYPE [NAME ...]")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true", help="delete all resources of the type in the namespace")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--grace-period", type=int, default=-1)
    p.add_argument("--now", action="store_true", help="same as --grace-period=1")
    p.add_argument("--force", action="store_true", help="remove immediately (with --grace-period=0)")
    p.add_argument("--ignore-not-found", action="store_true")
    p.add_argument("--cascade", default="background", help="background|foreground|orphan")
    p.add_argument("--wait", nargs="?", const="true", default=None, metavar="true|false",
                   help="accepted as kubectl does; kubesim returns at once either way (a pod "
                        "shows Terminating for its grace period)")
    p.add_argument("-o", "--output", default=None, help="name")


def delete_line(info, obj: dict, force: bool = False) -> str:
    op = "force deleted" if force else "deleted"
    ns = obj["metadata"].get("namespace")
    if info.namespaced and ns:
        return f'{info.ref} "{obj["metadata"]["name"]}" {op} from {ns} namespace'
    return f'{info.ref} "{obj["metadata"]["name"]}" {op}'


def run(f, args, env) -> int:
    from kubesim.kubectl.cmd.apply import load_documents
    from kubesim.kubectl.cmd.util import bool_flag_value
    from kubesim.kubectl.resource import prepare

    bool_flag_value(args.wait, "--wait")  # kubectl's error for a bad value; nothing waits here
    grace = 1 if args.now else (None if args.grace_period < 0 else args.grace_period)
    if args.force and grace is None:
        grace = 0
    force = bool(args.force) and grace == 0
    if args.force and grace == 0:
        env.stderr.write("Warning: Immediate deletion does not wait for confirmation that the running resource "
                         "has been terminated. The resource may continue to run on the cluster indefinitely.\n")
    cascade = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan",
               "true": "Background", "false": "Orphan"}.get((args.cascade or "background").lower())
    if cascade is None:
        raise UsageError(f'invalid cascade value ({args.cascade}). Must be "background", "foreground", or "orphan".')
    opts = {"grace_period": grace, "force": force, "propagation": cascade}
    lines: list[str] = []
    errors: list[KubesimError] = []
    if args.filename:
        docs = load_documents(args, env, "delete")
        prepared = prepare(docs, f.namespace_flag, "deleting", explicit_namespace=f.explicit_namespace)
        with f.connect() as client:
            for p in prepared:
                try:
                    obj = client.delete(p.info, p.namespace, p.name, **opts)
                    lines.append(delete_line(p.info, obj, force))
                except NotFound as e:
                    if not args.ignore_not_found:
                        errors.append(e)
            if errors and not lines:
                raise errors[0] if len(errors) == 1 else Aggregate(errors)
        _finish(env, lines, errors, args.output)
        return 1 if errors else 0
    if not args.args:
        raise UsageError(NO_RESOURCES)
    targets = parse_targets(args.args, selecting=bool(args.selector or args.all))
    if not any(names for _, names in targets) and not (args.selector or args.all):
        raise UsageError("resource(s) were provided, but no name was specified")
    ns = None if args.all_namespaces else f.namespace()
    with f.connect() as client:
        for info, names in targets:
            if names:
                for n in names:
                    try:
                        obj = client.delete(info, ns or "", n, **opts)
                        lines.append(delete_line(info, obj, force))
                    except NotFound as e:
                        if not args.ignore_not_found:
                            errors.append(e)
            else:
                for obj in select(client, info, ns, args.selector):
                    client.delete(info, obj["metadata"].get("namespace", ""), obj["metadata"]["name"], **opts)
                    lines.append(delete_line(info, obj, force))
    if not lines and not errors:
        env.stdout.write("No resources found\n")
        return 0
    _finish(env, lines, errors, args.output)
    return 1 if errors else 0


def _finish(env, lines, errors, output) -> None:
    for line in lines:
        if output == "name":
            ref, name = line.split(" ", 2)[:2]
            env.stdout.write(f"{ref}/{name.strip(chr(34))}\n")
        else:
            env.stdout.write(line + "\n")
    for e in errors:
        env.stderr.write(str(e) + "\n")
