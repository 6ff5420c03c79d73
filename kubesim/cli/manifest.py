"""apply, create, delete: kubectl's verbs that take manifests (and, for delete, names)."""

from __future__ import annotations

from kubesim.cli.resources import NO_RESOURCES, parse_targets
from kubesim.cli.session import namespace, session
from kubesim.errors import Aggregate, KubesimError, NotFound, UsageError


def _load(args, env):
    from kubesim.codec.load import load

    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to " + args.verb)
    return docs


def _print_lines(env, lines: list[str], output: str | None) -> None:
    for line in lines:
        if output == "name":
            env.stdout.write(line.rsplit(" ", 1)[0] + "\n")
        else:
            env.stdout.write(line + "\n")


def _from_manifests(args, env, verb) -> int:
    """apply / create -f: the documents prepared (client-side errors kept in file order for the
    engine to report among its own), ``verb(cluster, prepared, errors)``, its lines printed."""
    from kubesim.apiserver import objects

    docs = _load(args, env)
    prepared, errors = objects.prepare(docs, args.namespace, "creating", explicit_namespace=bool(args.namespace),
                                       collect=True)
    with session(args, env) as cluster:
        lines = verb(cluster, prepared, errors)
    _print_lines(env, lines, args.output)
    return 0


def apply_cmd(args, env) -> int:
    from kubesim.apiserver import objects

    return _from_manifests(args, env, objects.apply)


def create_cmd(args, env) -> int:
    from kubesim.apiserver import objects

    if args.what:
        return _create_generator(args, env)
    from kubesim.cli.generate import reject_generator_flags

    reject_generator_flags(args)  # the generators' flags share this parser
    if not args.filename:
        raise UsageError("must specify one of -f and -k")
    return _from_manifests(args, env, objects.create)


def _create_generator(args, env) -> int:
    from kubesim.cli.generate import create_generated

    return create_generated(args, env)


def delete_cmd(args, env) -> int:
    from kubesim.cli.flags import bool_flag_value
    from kubesim.apiserver import objects

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
    opts = {"grace_seconds": grace, "force": force, "propagation": cascade}
    lines: list[str] = []
    errors: list[KubesimError] = []
    if args.filename:
        docs = _load(args, env)
        prepared = objects.prepare(docs, args.namespace, "deleting", explicit_namespace=bool(args.namespace))
        with session(args, env) as cluster:
            for p in prepared:
                try:
                    obj = objects.delete_object(cluster, p.info, p.namespace, p.name, **opts)
                    lines.append(objects.delete_line(p.info, obj, force))
                except NotFound as e:
                    if not args.ignore_not_found:
                        errors.append(e)
            if errors and not lines:
                raise errors[0] if len(errors) == 1 else Aggregate(errors)
        _finish(env, lines, errors, args.output)
        return 1 if errors else 0
    if not args.args:
        raise UsageError(NO_RESOURCES)
    targets = parse_targets(args.args)
    if not any(names for _, names in targets) and not (args.selector or args.all):
        raise UsageError("resource(s) were provided, but no name was specified")
    ns = None if args.all_namespaces else namespace(args)
    with session(args, env) as cluster:
        for info, names in targets:
            if names:
                for n in names:
                    try:
                        obj = objects.delete_object(cluster, info, ns or "" if info.namespaced else "", n, **opts)
                        lines.append(objects.delete_line(info, obj, force))
                    except NotFound as e:
                        if not args.ignore_not_found:
                            errors.append(e)
            else:
                objs, _ = objects.select(cluster, info, [], ns, args.selector)
                for obj in objs:
                    objects.delete_object(cluster, info, obj["metadata"].get("namespace", ""), obj["metadata"]["name"],
                                          **opts)
                    lines.append(objects.delete_line(info, obj, force))
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
