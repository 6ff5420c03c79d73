"""kubectl replace -f: PUT the file's objects (``--force``: delete them, then create them).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/replace/replace.go. ``replace --force`` deletes,
lets the control plane react, then creates, in one command (kubectl would wait for the deletion
to finish; kubesim does not wait yet).
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
    print_result,
    record_warning,
    result_line,
)


def add_flags(p):
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("--force", action="store_true",
                   help="If true, immediately remove resources from API and bypass graceful deletion.")
    p.add_argument("--grace-period", type=int, default=-1)
    p.add_argument("--cascade", default="background")
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
    dry = dry_run_strategy(args.dry_run, env)
    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to replace")
    prepared = prepare(docs, f.namespace_flag, "replacing", explicit_namespace=f.explicit_namespace)
    args._given_flags = []
    cause = change_cause(args, ["replace"])
    record_warning(args, env)
    deleted, lines, shown = [], [], []
    _replace(f, args, prepared, dry, cause, deleted, lines, shown)
    for line in deleted:
        env.stdout.write(line + "\n")
    print_result(env, args.output, shown, lines)
    return 0


def _replace(f, args, prepared, dry, cause, deleted, lines, shown) -> None:
    from kubesim.api.merge import LAST_APPLIED, last_applied_json
    from kubesim.kubectl.cmd.delete import delete_line

    with f.connect(commit=dry == "none") as client:
        if args.force and dry == "none":
            for p in prepared:
                if client.find(p.info, p.namespace, p.name) is not None:
                    obj = client.delete(p.info, p.namespace, p.name)
                    deleted.append(delete_line(p.info, obj))
            client.settle()
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
                        client.update(p.info, new)
            except StatusError as e:
                raise WithSource(e, "replacing", p.where) from None
            stored = client.find(p.info, p.namespace, p.name)
            shown.append(stored if stored is not None else new)
            lines.append(result_line(p.info, new, "replaced" + dry_suffix(dry), args.output))
