"""scale, set image, rollout (status|history|undo|restart|pause|resume), drain.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go, cmd/set/set_image.go,
cmd/rollout/rollout_{status,history,undo,restart,pause,resume}.go, cmd/drain/drain.go: the flags,
the lines printed (``deployment.apps/web scaled``, ``... image updated``, ``... rolled back``,
``... restarted``, ``... paused``, ``... resumed``, ``node/node01 cordoned``, ``evicting pod ...``,
``pod/x evicted``, ``node/node01 drained``) and the errors. What the commands do to objects is
``kubesim.engine.workloads``.

Where kubesim differs from kubectl, on purpose:

- A command is all or nothing (DESIGN principle 5): kubectl ``scale``, ``set image``, ``rollout
  pause`` ... carry on past a failing resource and change the others; kubesim changes none.
  ``drain`` is the exception, as in kubectl: the cordon stays when pods cannot be evicted.
- ``rollout status`` does not wait: the settle loop has already run everything that happens at
  the current simulated time. A finished rollout prints kubectl's success line; an unfinished one
  prints kubectl's waiting line and, with ``--watch`` (the default), fails as kubectl's
  ``--timeout`` does (``error: timed out waiting for the condition``): the rollout needs simulated
  time to pass (``kubesim advance``).
- ``drain`` evicts through the eviction subresource (``kubesim.apiserver.eviction``), which honours
  PodDisruptionBudgets; its retries every 5 s and its polls for the pods' deletion run on the
  simulated clock, settling the cluster in between, so a drain moves simulated time forward as
  long as the real one would take. Where kubectl would retry forever (no ``--timeout``) and
  nothing in the cluster can change any more, kubesim stops with an error instead (see
  ``kubesim.apiserver.eviction.drain_pods``).
"""

from __future__ import annotations

from kubesim.cli.flags import bool_flag_value, dry_run_strategy
from kubesim.cli.resources import NO_RESOURCES, resolve
from kubesim.cli.session import session
from kubesim.errors import KubesimError, RawError, UsageError, client_error

# ---------------------------------------------------------------------------------------------
# shared by the verbs that change objects (here and kubesim.cli.edit): --record, -o, the result
# lines. Resource arguments are kubesim.cli.resources; --dry-run and bool values kubesim.cli.flags.


def _bool_flag(p, *names, help_=None):
    """A cobra bool flag: ``--x``, ``--x=true``, ``--x=false``."""
    p.add_argument(*names, nargs="?", const="true", default=None, metavar="true|false", help=help_)


def change_cause(args, words: list[str]) -> str | None:
    """RecordFlags: with ``--record``, the command line as kubectl records it (program, the
    non-flag words, then the flags as ``--name=value``)."""
    if not bool_flag_value(args.record, "--record"):
        return None
    flags = []
    for name, value in getattr(args, "_given_flags", []):
        flags.append(f" --{name}={value}")
    return "kubesim " + " ".join(words) + "".join(flags) + " --record=true"


def record_warning(args, env) -> None:
    if getattr(args, "record", None) is not None:
        env.stderr.write("Flag --record has been deprecated, --record will be removed in the future\n")


def _line(info, obj: dict, operation: str, output: str | None) -> str:
    ref = f"{info.ref}/{obj['metadata']['name']}"
    if output == "name" or not operation:
        return ref
    return f"{ref} {operation}"


def _print_result(env, output: str | None, objs: list[dict], lines: list[str]) -> None:
    """What a changing verb prints: the objects for ``-o yaml|json``, else its result lines
    (already in ``-o name`` form when asked)."""
    if output in ("yaml", "json"):
        env.stdout.write(_objects_text(objs, output))
    else:
        env.stdout.write("".join(line + "\n" for line in lines))


def _objects_text(objs: list[dict], output: str) -> str:
    """The YAML or JSON printer over several objects (YAML separates them with ``---``)."""
    from kubesim.printers.output import to_json, to_yaml

    out = []
    for i, obj in enumerate(objs):
        if output == "yaml":
            if i:
                out.append("---\n")
            out.append(to_yaml(obj))
        elif output == "json":
            out.append(to_json(obj))
        else:
            raise UsageError(f'unable to match a printer suitable for the output format "{output}", allowed formats '
                             "are: json,name,yaml")
    return "".join(out)


def _check_output(output: str | None) -> None:
    if output not in (None, "", "name", "yaml", "json"):
        raise UsageError(f'unable to match a printer suitable for the output format "{output}", allowed formats '
                         "are: json,name,yaml")


def _dry_suffix(dry: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry, "")


def _add_dry_run(p):
    p.add_argument("--dry-run", nargs="?", const="unchanged", default=None,
                   help='Must be "none", "server", or "client"')


# ---------------------------------------------------------------------------------------------
# scale


def scale_cmd_args(p):
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME)")
    p.add_argument("--replicas", type=int, default=None, help="The new desired number of replicas. Required.")
    p.add_argument("--current-replicas", type=int, default=-1,
                   help="Precondition for current size (-1 for no condition)")
    p.add_argument("--resource-version", default="", help="Precondition for resource version")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true", help="Select all resources in the namespace of the specified types")
    p.add_argument("--timeout", default="0s")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    _bool_flag(p, "--record", help_="(deprecated) record the command in kubernetes.io/change-cause")
    _add_dry_run(p)


def scale_cmd(args, env) -> int:
    from kubesim.engine import workloads as wl

    if args.replicas is None:
        raise UsageError('required flag(s) "replicas" not set')
    if args.replicas < 0:
        raise UsageError("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
    if args.current_replicas < -1:
        raise UsageError("The --current-replicas must specify an integer of -1 or greater")
    _check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    args._given_flags = [("replicas", args.replicas)]
    cause = change_cause(args, ["scale"] + args.args)
    record_warning(args, env)
    lines, shown = [], []
    with session(args, env) as cluster:
        targets = resolve(cluster, args, args.args, False, args.filename, args.selector, args.all, stdin=env.stdin)
        if args.resource_version and len(targets) > 1:
            raise UsageError("cannot use --resource-version with multiple resources")
        if not targets:
            raise UsageError("no objects passed to scale")
        for info, live in targets:
            if dry == "client":
                live.setdefault("spec", {})["replicas"] = args.replicas
                shown.append(live)
                lines.append(_line(info, live, "scaled" + _dry_suffix(dry), args.output))
                continue
            if dry == "none":
                wl.scale(cluster, info, live, args.replicas, args.current_replicas, args.resource_version, cause)
            stored = cluster.store.get(info.kind, live["metadata"].get("namespace", ""), live["metadata"]["name"])
            shown.append(stored)
            lines.append(_line(info, live, "scaled" + _dry_suffix(dry), args.output))
    _print_result(env, args.output, shown, lines)
    return 0


# ---------------------------------------------------------------------------------------------
# set image


def set_cmd_args(p):
    p.add_argument("args", nargs="*", metavar="image (-f FILENAME | TYPE NAME) CONTAINER_NAME=IMAGE ...")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true")
    p.add_argument("--local", action="store_true", help="If true, set image will NOT contact api-server but run locally.")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    _bool_flag(p, "--record")
    p.add_argument("--field-manager", default="kubectl-set")
    _add_dry_run(p)


_SET_SUBCOMMANDS = ("env", "image", "resources", "selector", "serviceaccount", "subject")


def set_cmd(args, env) -> int:
    if not args.args:
        raise UsageError('a subcommand is required: "kubesim set image ..."\nSee \'kubesim set --help\' for usage.')
    sub, rest = args.args[0], args.args[1:]
    if sub not in _SET_SUBCOMMANDS:
        raise UsageError(f'unknown command "{sub}" for "kubesim set"')
    if sub != "image":
        raise UsageError(f'"kubesim set {sub}" is not supported by kubesim yet (only "set image")')
    return _set_image(args, env, rest)


def _set_image(args, env, words: list[str]) -> int:
    from kubesim.engine import workloads as wl

    _check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    resources, pairs = wl.split_resources_and_pairs(words, "image")
    images = wl.parse_pairs(pairs, "image")
    if args.local:
        if resources:
            raise UsageError("you must specify resources by --filename when --local is set.\n"
                             "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'")
        return _set_image_local(args, env, images)
    cause = change_cause(args, ["set", "image"] + words)
    record_warning(args, env)
    if not resources and not args.filename:
        raise UsageError(NO_RESOURCES)
    with session(args, env) as cluster:
        targets = resolve(cluster, args, resources, True, args.filename, args.selector, args.all, stdin=env.stdin)
        problems = []
        if args.all and args.selector:
            problems.append("cannot set --all and --selector at the same time")
        if not images:
            problems.append("at least one image update is required")
        elif len(images) > 1 and "*" in images:
            problems.append("all containers are already specified by *, but saw more than one "
                            "container_name=container_image pairs")
        if problems:
            raise _aggregate_lines(problems)
        lines, errors, shown = [], [], []
        for info, live in targets:
            try:
                new, missing = wl.set_images(live, images)
            except wl._NoPodSpec as e:
                errors.append(f"error: {info.plural}/{live['metadata']['name']} {e}\n")
                continue
            errors.extend(missing)
            if _comparable(new) == _comparable(live):
                continue
            wl.record(new, cause)
            if dry == "none":
                wl.update(cluster, info, new, live)
                new = cluster.store.get(info.kind, live["metadata"].get("namespace", ""), live["metadata"]["name"])
            shown.append(new)
            lines.append(_line(info, live, "image updated" + _dry_suffix(dry), args.output))
        if errors:
            raise _aggregate_lines(errors)
    _print_result(env, args.output, shown, lines)
    return 0


def _comparable(obj: dict) -> dict:
    """The object as a change compares it: without its resourceVersion."""
    import copy

    o = copy.deepcopy(obj)
    (o.get("metadata") or {}).pop("resourceVersion", None)
    return o


def _set_image_local(args, env, images) -> int:
    from kubesim.api import kinds
    from kubesim.codec.load import load
    from kubesim.engine import workloads as wl

    if not args.filename:
        raise UsageError(NO_RESOURCES)
    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    shown, lines, errors = [], [], []
    for doc in docs:
        info = kinds.for_object(doc.obj)
        try:
            new, missing = wl.set_images(doc.obj, images)
        except wl._NoPodSpec as e:
            errors.append(f"error: {doc.obj.get('kind', '').lower()}s/{doc.obj['metadata']['name']} {e}\n")
            continue
        errors.extend(missing)
        if new == doc.obj:
            continue
        shown.append(new)
        if info is not None:
            lines.append(_line(info, new, "image updated", args.output))
    _print_result(env, args.output, shown, lines)
    if errors:
        raise _aggregate_lines(errors)
    return 0


def _aggregate_lines(messages: list[str]) -> KubesimError:
    """kubectl's CheckErr of an aggregate: one message, or each on its own line (unprefixed)."""
    messages = [m.rstrip("\n") if len(messages) == 1 else m for m in messages]
    if len(messages) == 1:
        return client_error(messages[0])
    return RawError("".join(m if m.endswith("\n") else m + "\n" for m in messages).rstrip("\n"))


# ---------------------------------------------------------------------------------------------
# rollout

_ROLLOUT = ("history", "pause", "restart", "resume", "status", "undo")
_ROLLOUT_FLAGS = {  # flag attribute → subcommands that have it
    "revision": ("history", "status"), "to_revision": ("undo",), "watch": ("status",), "timeout": ("status",),
    "selector": _ROLLOUT, "output": ("history", "pause", "restart", "resume", "undo"),
    "dry_run": ("undo",),
}
_FLAG_NAMES = {"revision": "--revision", "to_revision": "--to-revision", "watch": "--watch", "timeout": "--timeout",
               "selector": "--selector", "output": "--output", "dry_run": "--dry-run"}


def rollout_cmd_args(p):
    p.add_argument("args", nargs="*", metavar="SUBCOMMAND (TYPE NAME | TYPE/NAME)")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector", default=None)
    p.add_argument("--revision", type=int, default=None, help="history/status: the revision to show or pin to")
    p.add_argument("--to-revision", type=int, default=None, help="undo: the revision to roll back to (0 = the last)")
    p.add_argument("-w", "--watch", nargs="?", const="true", default=None, help="status: watch until done")
    p.add_argument("--timeout", default=None, help="status: how long to wait")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    p.add_argument("--field-manager", default="kubectl-rollout")
    _add_dry_run(p)


def rollout_cmd(args, env) -> int:
    if not args.args:
        raise UsageError('a subcommand is required: one of "history", "pause", "restart", "resume", "status", "undo"'
                         "\nSee 'kubesim rollout --help' for usage.")
    sub, words = args.args[0], args.args[1:]
    if sub not in _ROLLOUT:
        raise UsageError(f'unknown command "{sub}" for "kubesim rollout"')
    for attr, subs in _ROLLOUT_FLAGS.items():
        if getattr(args, attr, None) is not None and sub not in subs:
            raise UsageError(f"unknown flag: {_FLAG_NAMES[attr]}\nSee 'kubesim rollout {sub} --help' for usage.")
    if not words and not args.filename:
        raise UsageError("required resource not specified")
    _check_output(args.output)
    return {"status": _rollout_status, "history": _rollout_history, "undo": _rollout_undo,
            "restart": _rollout_restart, "pause": _rollout_pause, "resume": _rollout_resume}[sub](args, env, words)


def _rollout_status(args, env, words) -> int:
    from kubesim.engine import workloads as wl

    revision = args.revision or 0
    if revision < 0:
        raise UsageError(f"revision must be a positive integer: {revision}")
    watch = bool_flag_value(args.watch, "-w, --watch") if args.watch is not None else True
    with session(args, env) as cluster:
        targets = resolve(cluster, args, words, True, args.filename, args.selector, single_type=True,
                          stdin=env.stdin)
        if len(targets) != 1:
            raise UsageError("rollout status is only supported on individual resources and resource collections - "
                             f"{len(targets)} resources were found")
        info, obj = targets[0]
        message, done = wl.rollout_status(info, obj, revision)
    env.stdout.write(message + "\n")
    if done or not watch:
        return 0
    raise UsageError("timed out waiting for the condition")


def _rollout_history(args, env, words) -> int:
    from kubesim.engine import workloads as wl
    from kubesim.printers.describe import pod_template_text
    from kubesim.printers.tables import tabwrite

    revision = args.revision or 0
    if revision < 0:
        raise UsageError(f"revision must be a positive integer: {revision}")
    out = []
    with session(args, env) as cluster:
        for info, obj in resolve(cluster, args, words, True, args.filename, args.selector, stdin=env.stdin):
            revs = wl.history(cluster, info, obj)
            if args.output:
                chosen = [h for h in revs if h.revision == revision] if revision > 0 else revs
                if revision > 0 and not chosen:
                    raise UsageError("unable to find the specified revision")
                objs = [h.obj for h in chosen]
                if args.output == "name":
                    from kubesim.printers.output import name_line

                    out.append("".join(name_line(o) + "\n" for o in objs))
                else:
                    out.append(_objects_text(objs, args.output))
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


def _rollout_undo(args, env, words) -> int:
    from kubesim.engine import workloads as wl
    from kubesim.printers.describe import pod_template_text

    to_revision = args.to_revision or 0
    dry = dry_run_strategy(args.dry_run, env)
    lines = []
    with session(args, env) as cluster:
        for info, live in resolve(cluster, args, words, True, args.filename, args.selector, stdin=env.stdin):
            if dry != "none":
                if info.kind == "Deployment":
                    from kubesim.controllers import deployment as dctl

                    try:
                        rs = dctl.revision_replicaset(live, wl.replicasets_of(cluster, live), to_revision)
                    except dctl.RolloutError as e:
                        raise UsageError(str(e)) from None
                    template = dict((rs.get("spec") or {}).get("template") or {})
                    lines.append(_line(info, live, pod_template_text(template) + _dry_suffix(dry),
                                       args.output))
                    continue
            word = wl.rollback(cluster, info, live, to_revision)
            lines.append(_line(info, live, word, args.output))
    env.stdout.write("".join(line + "\n" for line in lines))
    return 0


def _patch_fn_verb(args, env, words, fn, operation: str, already: str | None = None) -> int:
    """pause / resume / restart: CalculatePatches over the objects, kubectl's error per object."""
    from kubesim.engine import workloads as wl

    lines, errors = [], []
    with session(args, env) as cluster:
        targets = resolve(cluster, args, words, True, args.filename, args.selector, stdin=env.stdin)
        for info, live in targets:
            try:
                new = fn(cluster, info, live)
            except wl.PatchFnError as e:
                errors.append(f'error: {info.resource} "{live["metadata"]["name"]}" {e}')
                continue
            if not wl.update(cluster, info, new, live):
                if already:
                    lines.append(_line(info, live, already, args.output))
                    continue
                errors.append(f"failed to create patch for {live['metadata']['name']}: if restart has already been "
                              "triggered within the past second, please wait before attempting to trigger another")
            lines.append(_line(info, live, operation, args.output))
        if errors:
            raise _aggregate_lines(errors)
    env.stdout.write("".join(line + "\n" for line in lines))
    return 0


def _rollout_pause(args, env, words) -> int:
    from kubesim.engine import workloads as wl

    return _patch_fn_verb(args, env, words, lambda c, info, live: wl.pause(info, live, True), "paused")


def _rollout_resume(args, env, words) -> int:
    from kubesim.engine import workloads as wl

    return _patch_fn_verb(args, env, words, lambda c, info, live: wl.pause(info, live, False), "resumed")


def _rollout_restart(args, env, words) -> int:
    from kubesim.engine import workloads as wl

    return _patch_fn_verb(args, env, words, lambda c, info, live: wl.restart(info, live, c.now()), "restarted")


# ---------------------------------------------------------------------------------------------
# drain


def drain_cmd_args(p):
    p.add_argument("nodes", nargs="*", metavar="NODE")
    p.add_argument("--force", action="store_true",
                   help="Continue even if there are pods not managed by a ReplicationController, ReplicaSet, Job, "
                        "DaemonSet or StatefulSet.")
    p.add_argument("--ignore-daemonsets", action="store_true", help="Ignore DaemonSet-managed pods.")
    p.add_argument("--delete-emptydir-data", action="store_true",
                   help="Continue even if there are pods using emptyDir (local data that will be deleted when the "
                        "node is drained).")
    p.add_argument("--grace-period", type=int, default=-1,
                   help="Period of time in seconds given to each pod to terminate gracefully. If negative, the "
                        "default value specified in the pod will be used.")
    p.add_argument("--timeout", default="0s",
                   help="The length of time to wait before giving up, zero means infinite (simulated time)")
    p.add_argument("-l", "--selector", default=None)
    p.add_argument("--pod-selector", default=None, help="Label selector to filter pods on the node")
    p.add_argument("--disable-eviction", action="store_true",
                   help="Force drain to use delete, even if eviction is supported. This will bypass checking "
                        "PodDisruptionBudgets, use with caution.")
    p.add_argument("--skip-wait-for-delete-timeout", type=int, default=0,
                   help="If pod DeletionTimestamp older than N seconds, skip waiting for the pod.  Seconds must be "
                        "greater than 0 to skip.")
    p.add_argument("--chunk-size", type=int, default=500)
    _add_dry_run(p)


def _drain_timeout(value: str) -> float:
    """--timeout, a pflag DurationVar: Go's time.ParseDuration (no ``d`` unit)."""
    from kubesim.clock import parse_duration

    try:
        if "d" in value:
            raise ValueError
        return parse_duration(value)
    except ValueError:
        raise UsageError(f'invalid argument "{value}" for "--timeout" flag: time: invalid duration "{value}"\n'
                         "See 'kubesim drain --help' for usage.") from None


def drain_cmd(args, env) -> int:
    from kubesim.cli import resources
    from kubesim.apiserver import eviction
    from kubesim.engine import workloads as wl

    if not args.nodes and args.selector is None:
        raise UsageError("USAGE: drain NODE [flags]\nSee 'kubesim drain -h' for help and examples")
    if args.nodes and args.selector:
        raise UsageError("cannot specify both a node name and a --selector option\n"
                         "See 'kubesim drain -h' for help and examples")
    timeout = _drain_timeout(args.timeout)
    dry = dry_run_strategy(args.dry_run, env)
    if args.pod_selector:
        from kubesim.api import selectors

        try:
            selectors.parse_label_selector(args.pod_selector)
        except ValueError:
            raise UsageError("--pod-selector=<pod_selector> must be a valid label selector") from None
    suffix = _dry_suffix(dry)
    opts = wl.DrainOptions(force=args.force, ignore_daemonsets=args.ignore_daemonsets,
                           delete_emptydir_data=args.delete_emptydir_data,
                           pod_selector=args.pod_selector, grace_period=args.grace_period,
                           disable_eviction=args.disable_eviction,
                           skip_wait_for_delete_timeout=args.skip_wait_for_delete_timeout)
    out, err = env.stdout, env.stderr
    fatal: list[tuple[list[str], bool]] = []
    with session(args, env) as cluster:
        nodes = resources.nodes(cluster, args.nodes, args.selector)
        names = [n["metadata"]["name"] for n in nodes]
        for node in nodes:
            name = node["metadata"]["name"]
            if bool((node.get("spec") or {}).get("unschedulable")):
                out.write(f"node/{name} already cordoned{suffix}\n")
            else:
                if dry == "none":
                    wl.cordon(cluster, node, True)
                out.write(f"node/{name} cordoned{suffix}\n")
        pending = []
        for name in names:
            plan = wl.plan_drain(cluster, name, opts)
            errors = plan.errors()
            if errors:
                err.write(f'error: unable to drain node "{name}" due to error: {_agg_text(errors)}, '
                          "continuing command...\n")
                fatal.append((errors, True))
                pending.append(name)
                continue
            warnings = plan.warnings()
            if warnings:
                err.write(f"Warning: {warnings}\n")
            if dry == "client":
                for pod in plan.pods():
                    out.write(f"evicting pod {pod['metadata'].get('namespace', '')}/{pod['metadata']['name']} (dry run)\n")
                out.write(f"node/{name} drained{suffix}\n")
                continue
            failure = eviction.drain_pods(cluster, plan.pods(), grace_period=args.grace_period, timeout=timeout,
                                          disable_eviction=args.disable_eviction, server_dry_run=dry == "server",
                                          skip_wait_seconds=args.skip_wait_for_delete_timeout, out=out, err=err)
            if failure is None:
                out.write(f"node/{name} drained{suffix}\n")
                continue
            messages, aggregate = failure
            text = _agg_text(messages) if aggregate else messages[0]
            left = wl.plan_drain(cluster, name, opts)
            if left.pods():
                err.write(f'There are pending pods in node "{name}" when an error occurred: {text}\n')
                err.write("".join(f"pod/{p['metadata']['name']}\n" for p in left.pods()))
            err.write(f'error: unable to drain node "{name}" due to error: {text}, continuing command...\n')
            fatal.append(failure)
            pending.append(name)
        if pending:
            err.write("There are pending nodes to be drained:\n" + "".join(f" {n}\n" for n in pending))
    if not fatal:
        return 0
    # cmdutil.CheckErr(utilerrors.NewAggregate(fatal)): an aggregate of one is unwrapped; an
    # aggregate prints one error a line, a plain error gets "error: "
    if len(fatal) == 1:
        messages, aggregate = fatal[0]
        if aggregate:
            err.write("".join(m + "\n" for m in messages))
        else:
            err.write(client_error(messages[0]).text + "\n")
    else:
        err.write("".join((_agg_text(m) if agg else m[0]) + "\n" for m, agg in fatal))
    return 1


def _agg_text(messages: list[str]) -> str:
    """utilerrors.Aggregate.Error(): one error as is, several as ``[a, b]``."""
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
