"""kubectl rollout status|history|undo|restart|pause|resume.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/rollout/rollout_{status,history,undo,restart,pause,
resume}.go; what each does to each kind is ``kubesim.kubectl.polymorphichelpers``.

``rollout status`` watches each object as rollout_status.go does (UntilWithSync: a status line
for the object as listed, then one for every write of it, repeats included, until the viewer
says done; ``--watch=false`` prints one), on the simulated clock (``kubesim.kubectl.waiting``):
the rollout's pods start, become ready and go in simulated time, in no wall time. ``--timeout``
ends it with kubectl's ``timed out waiting for the condition``; without one kubectl would watch
for ever, and kubesim stops, with an error saying so, when nothing in the cluster will change
the rollout any more.
"""

from __future__ import annotations

from kubesim.errors import UsageError, client_error
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    add_dry_run,
    aggregate_lines,
    bool_flag_value,
    check_output,
    dry_run_strategy,
    dry_suffix,
    duration_flag,
    go_int,
    objects_text,
    result_line,
)
from kubesim.kubectl.resource import resolve

_ROLLOUT = ("history", "pause", "restart", "resume", "status", "undo")
_ROLLOUT_FLAGS = {  # flag attribute → subcommands that have it
    "revision": ("history", "status"), "to_revision": ("undo",), "watch": ("status",), "timeout": ("status",),
    "selector": _ROLLOUT, "output": ("history", "pause", "restart", "resume", "undo"),
    "dry_run": ("undo",),
}
_FLAG_NAMES = {"revision": "--revision", "to_revision": "--to-revision", "watch": "--watch", "timeout": "--timeout",
               "selector": "--selector", "output": "--output", "dry_run": "--dry-run"}


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="SUBCOMMAND (TYPE NAME | TYPE/NAME)")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector", default=None)
    p.add_argument("--revision", type=go_int(), default=None, help="history/status: the revision to show or pin to")
    p.add_argument("--to-revision", type=go_int(), default=None, help="undo: the revision to roll back to (0 = the last)")
    p.add_argument("-w", "--watch", nargs="?", const="true", default=None, metavar="true|false",
                   help="status: watch the status of the rollout until it's done (default true; on the simulated "
                        "clock, in no wall time)")
    p.add_argument("--timeout", default=None,
                   help="status: the length of time (simulated) to wait before ending the watch, zero means never "
                        "(kubesim then stops when nothing in the cluster will change the rollout any more)")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    p.add_argument("--field-manager", default="kubectl-rollout")
    add_dry_run(p)


def run(f, args, env) -> int:
    if not args.args:
        raise UsageError('a subcommand is required: one of "history", "pause", "restart", "resume", "status", "undo"'
                         "\nSee 'kubesim rollout --help' for usage.")
    sub, words = args.args[0], args.args[1:]
    if sub not in _ROLLOUT:
        raise UsageError(f'unknown command "{sub}" for "kubesim rollout"')
    for attr, subs in _ROLLOUT_FLAGS.items():
        if getattr(args, attr, None) is not None and sub not in subs:
            raise UsageError(f"unknown flag: {_FLAG_NAMES[attr]}\nSee 'kubesim rollout {sub} --help' for usage.")
    if args.timeout is not None:
        duration_flag(args.timeout, "--timeout", f"rollout {sub}")
    if not words and not args.filename:
        raise UsageError("required resource not specified")
    check_output(args.output)
    return {"status": _rollout_status, "history": _rollout_history, "undo": _rollout_undo,
            "restart": _rollout_restart, "pause": _rollout_pause, "resume": _rollout_resume}[sub](f, args, env, words)


def _rollout_status(f, args, env, words) -> int:
    from kubesim.errors import KubesimError

    revision = args.revision or 0
    if revision < 0:
        raise UsageError(f"revision must be a positive integer: {revision}")
    watch = bool_flag_value(args.watch, "-w, --watch", "rollout status") if args.watch is not None else True
    timeout = duration_flag(args.timeout, "--timeout", "rollout status") if args.timeout is not None else 0.0
    failure = None
    with f.connect() as client:
        targets = resolve(client, f, args, words, True, args.filename, args.selector, stdin=env.stdin)
        for info, obj in targets:
            try:
                _watch_status(client, info, obj, revision, watch, timeout, env.stdout)
            except KubesimError as e:  # the clock has moved: the session still commits
                failure = e
                break
    if failure is not None:
        raise failure
    if not targets:
        env.stderr.write(f"No resources found in {f.namespace()} namespace.\n")
    return 0


def _watch_status(client, info, obj: dict, revision: int, watch: bool, timeout: float, out) -> None:
    """One object's UntilWithSync: its status line for the object as listed, then for every
    later write of it, until the rollout is done (or at once without ``--watch``)."""
    from kubesim.kubectl import waiting

    ph.rollout_status(info, obj, revision)  # StatusViewerFn: no viewer for the kind fails first
    md = obj["metadata"]
    w = client.watch(info, md.get("namespace", ""), md["name"])
    current = client.find(info, md.get("namespace", ""), md["name"])  # the informer's list, now
    pending = [("ADDED", current)] if current is not None else []

    def done() -> bool:
        pending.extend((e.type, e.object) for e in w.events())
        while pending:
            kind, o = pending.pop(0)
            if kind == "DELETED":
                raise client_error("object has been deleted")
            message, finished = ph.rollout_status(info, o, revision)
            out.write(message + "\n")
            if finished or not watch:
                return True
        return False

    try:
        outcome = waiting.Waiter(client, timeout or None).until(done)
    finally:
        w.stop()
    if outcome == waiting.TIMEOUT:
        raise client_error("timed out waiting for the condition")
    if outcome != waiting.DONE:
        kind = "deployment" if info.kind == "Deployment" else "daemon set"
        raise client_error(f'{kind} "{md["name"]}" rollout is not finished, and ' +
                           waiting.gave_up(outcome, "keep watching"))


def _rollout_history(f, args, env, words) -> int:
    from kubesim.kubectl.describe.apps import pod_template_text
    from kubesim.printers.tabwriter import tabwrite

    revision = args.revision or 0
    if revision < 0:
        raise UsageError(f"revision must be a positive integer: {revision}")
    out = []
    with f.connect() as client:
        for info, obj in resolve(client, f, args, words, True, args.filename, args.selector, stdin=env.stdin):
            revs = ph.history(client, info, obj)
            if args.output:
                chosen = [h for h in revs if h.revision == revision] if revision > 0 else revs
                if revision > 0 and not chosen:
                    raise UsageError("unable to find the specified revision")
                objs = [h.obj for h in chosen]
                if args.output == "name":
                    from kubesim.printers.output import name_line

                    out.append("".join(name_line(o) + "\n" for o in objs))
                else:
                    out.append(objects_text(objs, args.output))
                continue
            if not revs:
                body = "No rollout history found."
            elif revision > 0:
                match = [h for h in revs if h.revision == revision]
                if not match:
                    raise UsageError("unable to find the specified revision")
                body = pod_template_text(match[0].template)
            else:
                rows = "REVISION\tCHANGE-CAUSE\n" + "".join(
                    f"{h.revision}\t{h.change_cause or '<none>'}\n" for h in revs)
                body = tabwrite(rows, 0, 8, 2)
            with_revision = f"with revision #{revision}" if revision > 0 else ""
            out.append(f"{info.ref}/{obj['metadata']['name']} {with_revision}\n{body}\n")
    env.stdout.write("".join(out))
    return 0


_UNDO_APPLY_MANAGED = ("Warning: resource {0} was previously managed with 'kubesim apply'. Rolling back will not "
                       "update the {1} annotation, which may cause unexpected behavior on future "
                       "'kubesim apply' operations. Consider using 'kubesim apply' with your previous configuration "
                       "file instead.\n")


def _rollout_undo(f, args, env, words) -> int:
    from kubesim.api.merge import LAST_APPLIED
    from kubesim.kubectl.describe.apps import pod_template_text

    to_revision = args.to_revision or 0
    dry = dry_run_strategy(args.dry_run, env)
    lines = []
    with f.connect() as client:
        for info, live in resolve(client, f, args, words, True, args.filename, args.selector, stdin=env.stdin):
            if LAST_APPLIED in (live["metadata"].get("annotations") or {}):
                env.stderr.write(_UNDO_APPLY_MANAGED.format(f"{info.plural}/{live['metadata']['name']}", LAST_APPLIED))
            if dry != "none" and info.kind == "Deployment":
                from kubesim.api.apps import deployment_util as du

                try:
                    rs = du.revision_replicaset(live, ph.replicasets_of(client, live), to_revision)
                except du.RolloutError as e:
                    raise UsageError(str(e)) from None
                template = dict((rs.get("spec") or {}).get("template") or {})
                lines.append(result_line(info, live, pod_template_text(template) + dry_suffix(dry), args.output))
                continue
            word = ph.rollback(client, info, live, to_revision)
            lines.append(result_line(info, live, word, args.output))
    env.stdout.write("".join(line + "\n" for line in lines))
    return 0


def _patch_fn_verb(f, args, env, words, fn, operation: str, already: str | None = None) -> int:
    """pause / resume / restart: CalculatePatches over the objects, kubectl's error per object."""
    lines, errors = [], []
    with f.connect() as client:
        targets = resolve(client, f, args, words, True, args.filename, args.selector, stdin=env.stdin)
        for info, live in targets:
            try:
                new = fn(client, info, live)
            except ph.PatchFnError as e:
                errors.append(f'error: {info.resource} "{live["metadata"]["name"]}" {e}')
                continue
            before = live["metadata"].get("resourceVersion")
            if client.update(info, new)["metadata"].get("resourceVersion") == before:
                if already:
                    lines.append(result_line(info, live, already, args.output))
                    continue
                errors.append(f"failed to create patch for {live['metadata']['name']}: if restart has already been "
                              "triggered within the past second, please wait before attempting to trigger another")
            lines.append(result_line(info, live, operation, args.output))
        if errors:
            raise aggregate_lines(errors)
    env.stdout.write("".join(line + "\n" for line in lines))
    return 0


def _rollout_pause(f, args, env, words) -> int:
    return _patch_fn_verb(f, args, env, words, lambda c, info, live: ph.pause(info, live, True), "paused")


def _rollout_resume(f, args, env, words) -> int:
    return _patch_fn_verb(f, args, env, words, lambda c, info, live: ph.pause(info, live, False), "resumed")


def _rollout_restart(f, args, env, words) -> int:
    return _patch_fn_verb(f, args, env, words, lambda c, info, live: ph.restart(info, live, c.now()), "restarted")
