"""kubectl apply -f: create what is absent, three-way merge what exists.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go; the merge is
``kubesim.kubectl.apply``.
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    from kubesim.kubectl.kustomize import add_flag

    p.add_argument("-f", "--filename", action="append", help="file, directory or - for stdin")
    add_flag(p)
    p.add_argument("-R", "--recursive", action="store_true", help="process the directory used in -f recursively")
    p.add_argument("-o", "--output", default=None, help="output format: name")
    p.add_argument("--server-side", action="store_true",
                   help="If true, apply runs in the server instead of the client.")
    p.add_argument("--force-conflicts", action="store_true",
                   help="If true, server-side apply will force the changes against conflicts.")
    p.add_argument("--field-manager", default=None,
                   help="Name of the manager used to track field ownership.")


def load_documents(args, env, verb: str):
    """The documents of ``-f`` (``-R``) or ``-k``: kubectl's error when there are none."""
    from kubesim.codec.load import load
    from kubesim.kubectl import kustomize

    kustomize.validate(args)
    if getattr(args, "kustomize", None):
        docs = kustomize.documents(args.kustomize, env.stderr)
    else:
        docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to " + verb)
    return docs


def from_manifests(f, args, env, verb: str, send) -> int:
    """apply / create -f: the documents prepared (client-side errors kept in file order, to be
    reported among the server's), ``send(client, prepared, errors)``, its lines printed."""
    from kubesim.gcpause import collector_paused
    from kubesim.kubectl.resource import prepare

    fmt = args.output or None
    if fmt and fmt != "name":
        from kubesim.kubectl.generate.printing import check_output

        check_output(fmt)  # before anything is sent, as kubectl's printer flags
    # the documents, and then the objects the requests store, are acyclic JSON-shaped data
    # made by the thousand (a file of 1,000 pods) that live as long as the command: the cyclic
    # collector waits while they are made, and leaves them out of its later scans for good
    # (the components' work when the connection closes is not inside: it is their own)
    with collector_paused(freeze=True):
        docs = load_documents(args, env, verb)
        prepared, errors = prepare(docs, f.namespace_flag, "creating", explicit_namespace=f.explicit_namespace,
                                   default_namespace=f.namespace(), collect=True, applying=verb == "apply",
                                   server_side=bool(getattr(args, "server_side", False)))
    # what the server returned, kept only to be printed (-o yaml|json|jsonpath...)
    objects: list[dict] | None = [] if fmt and fmt != "name" else None
    with f.connect() as client:
        try:
            with collector_paused(freeze=True):
                lines = send(client, prepared, errors, objects)
        finally:
            for warning in client.warnings():
                env.stderr.write(f"Warning: {warning}\n")
    if fmt and fmt != "name":  # the server's objects, printed as -o asks
        from kubesim.kubectl.cmd.util import objects_text
        from kubesim.kubectl.generate.printing import render

        if fmt.lower() in ("yaml", "json"):
            env.stdout.write(objects_text(objects, fmt.lower()))
        else:
            env.stdout.write("".join(render(o, fmt, "", typed=False) for o in objects))
        return 0
    for line in lines:
        env.stdout.write((line.rsplit(" ", 1)[0] if fmt == "name" else line) + "\n")
    return 0


def run(f, args, env) -> int:
    from kubesim.kubectl.apply import apply, server_side_apply

    if args.force_conflicts and not args.server_side:
        raise UsageError("--force-conflicts only works with --server-side")
    if args.server_side:
        manager = args.field_manager or "kubectl"  # GetApplyFieldManagerFlag

        def send(client, prepared, errors, objects):
            return server_side_apply(client, prepared, errors, objects, field_manager=manager,
                                     force=args.force_conflicts)

        return from_manifests(f, args, env, "apply", send)
    return from_manifests(f, args, env, "apply", apply)
