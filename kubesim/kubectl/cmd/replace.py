"""kubectl replace -f: PUT the file's objects (``--force``: delete them, wait until they are
gone, then create them).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/replace/replace.go (Complete, Validate and
forceReplace: the deletion is delete.go's DeleteResult with replace's own delete flags, so with
the object's own grace period and no wait unless ``--wait`` or ``--grace-period=0``, which
becomes 1 and waits; then a poll every second until each object is NotFound, up to
``--timeout`` or 5 minutes: ``context deadline exceeded``; then the creates). The wait and the
polls run on the simulated clock (``kubesim.kubectl.waiting``).
"""

from __future__ import annotations

import copy

from kubesim.errors import Conflict, StatusError, UsageError, WithSource
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    bool_flag,
    change_cause,
    check_output,
    dry_run_strategy,
    dry_suffix,
    go_int,
    print_result,
    record_warning,
    result_line,
)


def add_flags(p):
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("--force", action="store_true",
                   help="If true, immediately remove resources from API and bypass graceful deletion. Note that "
                        "immediate deletion of some resources may result in inconsistency or data loss and requires "
                        "confirmation.")
    p.add_argument("--grace-period", type=go_int(), default=-1,
                   help="Period of time in seconds given to the resource to terminate gracefully. Ignored if "
                        "negative. Set to 1 for immediate shutdown. Can only be set to 0 when --force is true "
                        "(force deletion).")
    p.add_argument("--cascade", default="background")
    p.add_argument("--timeout", default="0s",
                   help="The length of time to wait before giving up on a delete, zero means determine a timeout "
                        "from the size of the object (simulated time)")
    p.add_argument("--wait", nargs="?", const="true", default=None, metavar="true|false",
                   help="If true, wait for resources to be gone before returning. This waits for finalizers.")
    p.add_argument("--save-config", action="store_true",
                   help="If true, the configuration of current object will be saved in its annotation.")
    p.add_argument("--validate", default="strict")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    p.add_argument("--field-manager", default="kubectl-replace")
    bool_flag(p, "--record")
    p.add_argument("--dry-run", nargs="?", const="unchanged", default=None)


def run(f, args, env) -> int:
    from kubesim.codec.load import load
    from kubesim.kubectl.resource import prepare

    if not args.filename:
        raise UsageError("Must specify --filename to replace\nSee 'kubesim replace -h' for help and examples")
    check_output(args.output)
    from kubesim.kubectl.cmd.util import bool_flag_value, duration_flag

    timeout = duration_flag(args.timeout, "--timeout", "replace")
    wait = bool_flag_value(args.wait, "--wait", "replace")
    cascade = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan",
               "true": "Background", "false": "Orphan"}.get((args.cascade or "background").lower())
    if cascade is None:
        raise UsageError(f'invalid cascade value ({args.cascade}). Must be "background", "foreground", or "orphan".')
    dry = dry_run_strategy(args.dry_run, env)
    if args.grace_period >= 0 and not args.force:
        raise UsageError("--grace-period must have --force specified")
    if timeout != 0 and not args.force:
        raise UsageError("--timeout must have --force specified")
    if args.force and dry != "none":
        raise UsageError("--dry-run can not be used when --force is set")
    grace = args.grace_period
    if grace == 0:  # kubectl's Complete: 0 becomes 1, and the deletion is waited for
        grace, wait = 1, True
    args._delete = {"grace_period": None if grace < 0 else grace, "propagation": cascade, "wait": wait,
                    "timeout": timeout}
    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to replace")
    prepared = prepare(docs, f.namespace_flag, "replacing", explicit_namespace=f.explicit_namespace, default_namespace=f.namespace())
    args._given_flags = []
    cause = change_cause(args, ["replace"])
    record_warning(args, env)
    deleted, lines, shown = [], [], []
    failure = _replace(f, args, prepared, dry, cause, deleted, lines, shown)
    for line in deleted:
        env.stdout.write((_name_form(line) if args.output == "name" else line) + "\n")
    if failure is not None:
        env.stderr.write(failure + "\n")
        return 1
    print_result(env, args.output, shown, lines)
    return 0


def _name_form(line: str) -> str:
    """delete's ``-o name`` line for one of its result lines."""
    ref, name = line.split(" ", 2)[:2]
    return f"{ref}/{name.strip(chr(34))}"


def _replace(f, args, prepared, dry, cause, deleted, lines, shown) -> str | None:
    """The replace (or, with ``--force``, the deletions, the waits and the creates); the error
    text a failed wait ends the command with, else None."""
    from kubesim.api.merge import LAST_APPLIED, last_applied_json

    with f.connect(commit=dry == "none") as client:
        if args.force and dry == "none":
            failure = _force_delete(client, args, prepared, deleted)
            if failure is not None:
                return failure
        for p in prepared:
            new = copy.deepcopy(p.obj)
            md = new.setdefault("metadata", {})
            annotations = md.get("annotations") or {}
            if args.save_config or LAST_APPLIED in annotations:
                md.setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(new)
            ph.record(new, cause)
            try:
                if args.force and dry == "none":
                    client.create(new, p.info)
                else:
                    live = client.get(p.info, p.namespace, p.name)
                    rv = md.get("resourceVersion")
                    if rv and rv != live["metadata"].get("resourceVersion"):
                        raise Conflict(f'Operation cannot be fulfilled on {p.info.resource} "{p.name}": the object has '
                                       "been modified; please apply your changes to the latest version and try again")
                    if dry == "none":
                        client.update(p.info, new, verb="update")
            except StatusError as e:
                if args.force and dry == "none":
                    raise  # forceReplace returns the create's error as it is
                raise WithSource(e, "replacing", p.where) from None
            stored = client.find(p.info, p.namespace, p.name)
            shown.append(stored if stored is not None else new)
            lines.append(result_line(p.info, new, "replaced" + dry_suffix(dry), args.output))
    return None


FORCE_REPLACE_TIMEOUT = 300.0  # forceReplace's wait when --timeout is 0
POLL_INTERVAL = 1.0


def _force_delete(client, args, prepared, deleted) -> str | None:
    """forceReplace's first half: DeleteResult (NotFound ignored), then a poll every second
    until each object is NotFound; the error text when a wait ends unfinished."""
    from kubesim.errors import NotFound, client_error
    from kubesim.kubectl import waiting
    from kubesim.kubectl.cmd.delete import delete_line, wait_for_deletion

    opts = args._delete
    gone: list[tuple] = []
    for p in prepared:
        try:
            obj = client.delete(p.info, p.namespace, p.name, grace_period=opts["grace_period"],
                                propagation=opts["propagation"])
        except NotFound:
            continue
        deleted.append(delete_line(p.info, obj))
        gone.append((p.info, p.namespace, p.name, obj["metadata"].get("uid")))
    if opts["wait"] and gone:
        failure = wait_for_deletion(client, gone, opts["timeout"])
        if failure is not None:
            return client_error(failure).text
    timeout = opts["timeout"] or FORCE_REPLACE_TIMEOUT
    for p in prepared:
        def not_found(p=p) -> bool:
            return client.find(p.info, p.namespace, p.name) is None

        outcome = waiting.Waiter(client, timeout).until(not_found, poll=POLL_INTERVAL)
        if outcome == waiting.TIMEOUT:
            return "error: context deadline exceeded"
        if outcome != waiting.DONE:  # a wait of more than MAX_STOPS polls
            return client_error(f"{p.info.plural}/{p.name} is not gone yet, and " +
                                waiting.gave_up(outcome, "keep polling until its --timeout")).text
    return None
