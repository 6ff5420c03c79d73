"""kubectl delete: names, ``TYPE``+``-l``/``--all``, or ``-f`` manifests; grace periods, force,
cascade; then, by default, wait until the deleted objects are gone.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go (Complete and Validate: ``--now``
is ``--grace-period=1``, ``--grace-period=0`` without ``--force`` is 1, ``--force`` alone is 0
and prints its warning; DeleteResult: the lines printed, ``pod "x" deleted from default
namespace``, "No resources found", then the wait) and delete_flags.go (``--wait`` true,
``--timeout`` 0 = a week). The wait is cmd/wait's ``IsDeleted`` for each deleted object in turn:
gone, or re-created under another UID; kubectl's ``timed out waiting for the condition on
pods/x`` at ``--timeout``. It runs on the simulated clock (``kubesim.kubectl.waiting``): a pod's
grace period passes and its kubelet removes it, in no wall time. Without ``--timeout`` kubectl
would wait a week; kubesim stops, with an error saying so, when nothing in the cluster will
remove the object (a finalizer no one removes, a node whose kubelet is stopped).
"""

from __future__ import annotations

from kubesim.errors import Aggregate, KubesimError, NotFound, UsageError, client_error
from kubesim.kubectl.cmd.util import go_int
from kubesim.kubectl.resource import NO_RESOURCES, parse_targets, select


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="TYPE [NAME ...]")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    from kubesim.kubectl.kustomize import add_flag

    add_flag(p)
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true", help="Delete all resources, in the namespace of the specified "
                                                      "resource types.")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--grace-period", type=go_int(), default=-1,
                   help="Period of time in seconds given to the resource to terminate gracefully. Ignored if "
                        "negative. Set to 1 for immediate shutdown. Can only be set to 0 when --force is true "
                        "(force deletion).")
    p.add_argument("--now", action="store_true",
                   help="If true, resources are signaled for immediate shutdown (same as --grace-period=1).")
    p.add_argument("--force", action="store_true",
                   help="If true, immediately remove resources from API and bypass graceful deletion.")
    p.add_argument("--ignore-not-found", action="store_true")
    p.add_argument("--cascade", default="background", help="background|foreground|orphan")
    p.add_argument("--wait", nargs="?", const="true", default=None, metavar="true|false",
                   help="If true (the default), wait for resources to be gone before returning. This waits for "
                        "finalizers. kubesim waits on its simulated clock: a pod's grace period passes at once.")
    p.add_argument("--timeout", default="0s",
                   help="The length of time to wait before giving up on a delete, zero means determine a timeout "
                        "from the size of the object (kubectl: a week; kubesim stops sooner when nothing in the "
                        "cluster will remove the object)")
    p.add_argument("-o", "--output", default=None, help="name")


def delete_line(info, obj: dict, force: bool = False) -> str:
    op = "force deleted" if force else "deleted"
    ns = obj["metadata"].get("namespace")
    if info.namespaced and ns:
        return f'{info.ref} "{obj["metadata"]["name"]}" {op} from {ns} namespace'
    return f'{info.ref} "{obj["metadata"]["name"]}" {op}'


def grace_period(args) -> int:
    """DeleteOptions.Complete: the grace period kubectl sends (-1: the object's own)."""
    grace = args.grace_period
    if args.now:
        if grace != -1:
            raise UsageError("--now and --grace-period cannot be specified together")
        grace = 1
    if grace == 0 and not args.force:
        grace = 1  # kubectl keeps --grace-period=0 from deleting without --force
    if args.force and grace < 0:
        grace = 0
    return grace


def run(f, args, env) -> int:
    from kubesim.kubectl.cmd.apply import load_documents
    from kubesim.kubectl.cmd.util import bool_flag_value, duration_flag
    from kubesim.kubectl.resource import prepare

    wait = bool_flag_value(args.wait, "--wait", "delete") if args.wait is not None else True
    timeout = duration_flag(args.timeout, "--timeout", "delete")
    cascade = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan",
               "true": "Background", "false": "Orphan"}.get((args.cascade or "background").lower())
    if cascade is None:
        raise UsageError(f'invalid cascade value ({args.cascade}). Must be "background", "foreground", or "orphan".')
    grace = grace_period(args)
    force = grace == 0

    def validate():
        if args.output not in (None, "", "name"):
            raise UsageError(f"unexpected -o output mode: {args.output}. We only support '-o name'")
        if grace > 0 and args.force:
            raise UsageError("--force and --grace-period greater than 0 cannot be specified together")
        if force:
            env.stderr.write("Warning: Immediate deletion does not wait for confirmation that the running resource "
                             "has been terminated. The resource may continue to run on the cluster indefinitely.\n")

    opts = {"grace_period": None if grace < 0 else grace, "force": force, "propagation": cascade}
    deleted: list[tuple] = []  # (info, namespace, name, uid) in the order deleted
    lines: list[str] = []
    errors: list[KubesimError] = []

    def delete(client, info, ns: str, name: str) -> None:
        obj = client.delete(info, ns, name, **opts)
        lines.append(delete_line(info, obj, force))
        deleted.append((info, ns, name, obj["metadata"].get("uid")))

    if args.filename or args.kustomize:
        docs = load_documents(args, env, "delete")
        prepared = prepare(docs, f.namespace_flag, "deleting", explicit_namespace=f.explicit_namespace, default_namespace=f.namespace())
        validate()
        with f.connect() as client:
            client.prefetch([(p.info, p.namespace, p.name) for p in prepared if p.info.served])  # (the deletes' reads)
            for p in prepared:
                try:
                    delete(client, p.info, p.namespace, p.name)
                except NotFound as e:
                    if not args.ignore_not_found:
                        errors.append(e)
            if errors and not lines:
                raise errors[0] if len(errors) == 1 else Aggregate(errors)
            failure = wait_for_deletion(client, deleted, timeout) if wait and deleted and not errors else None
        _finish(env, lines, errors, args.output)
        return _report(env, failure, errors)
    if not args.args:
        raise UsageError(NO_RESOURCES)
    if args.all and args.selector:  # the builder's SelectAllParam
        raise UsageError("setting 'all' parameter but found a non empty selector. ")
    targets = parse_targets(args.args, selecting=bool(args.selector or args.all))
    if not any(names for _, names in targets) and not (args.selector or args.all):
        raise UsageError("resource(s) were provided, but no name was specified")
    validate()
    ns = None if args.all_namespaces else f.namespace()
    with f.connect() as client:
        for info, names in targets:
            if names:
                for n in names:
                    try:
                        delete(client, info, ns or "", n)
                    except NotFound as e:
                        if not args.ignore_not_found:
                            errors.append(e)
            else:
                for obj in select(client, info, ns, args.selector):
                    delete(client, info, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        failure = wait_for_deletion(client, deleted, timeout) if wait and deleted and not errors else None
    if not lines and not errors:
        env.stdout.write("No resources found\n")
        return 0
    _finish(env, lines, errors, args.output)
    return _report(env, failure, errors)


def wait_for_deletion(client, deleted: list[tuple], timeout: float) -> str | None:
    """The wait after the deletions (cmd/wait IsDeleted for each object in turn, one deadline for
    all): None when every object is gone, else the error kubectl (or kubesim) ends with."""
    from kubesim.clock import format_duration
    from kubesim.kubectl import waiting

    def gone_now(info, ns: str, name: str, uid) -> bool:
        obj = client.find(info, ns, name)
        return obj is None or (uid is not None and obj["metadata"].get("uid") != uid)

    if all(gone_now(*d) for d in deleted):
        return None  # removed at once (a force deletion, an object without finalizers): nothing to wait for
    waiter = waiting.Waiter(client, None if timeout == 0 else timeout)
    for info, ns, name, uid in deleted:
        def gone(info=info, ns=ns, name=name, uid=uid) -> bool:
            return gone_now(info, ns, name, uid)

        if timeout < 0:  # a deadline already passed: one look, then kubectl's timeout
            outcome = waiting.DONE if gone() else waiting.TIMEOUT
        else:
            outcome = waiter.until(gone)
        if outcome == waiting.DONE:
            continue
        if outcome == waiting.TIMEOUT:
            return f"timed out waiting for the condition on {info.plural}/{name}"
        return (f"{info.plural}/{name} is not gone yet, and " +
                waiting.gave_up(outcome, f"wait up to {format_duration(waiting.WEEK)}"))
    return None


def _report(env, failure: str | None, errors: list[KubesimError]) -> int:
    if failure is not None:
        env.stderr.write(client_error(failure).text + "\n")
        return 1
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
