"""kubectl set image (the other ``set`` subcommands are not simulated yet).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/set/set_image.go, polymorphichelpers/updatepodspec.go.
"""

from __future__ import annotations

from kubesim.errors import UsageError
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    add_dry_run,
    aggregate_lines,
    bool_flag,
    change_cause,
    check_output,
    comparable,
    dry_run_strategy,
    dry_suffix,
    print_result,
    record_warning,
    result_line,
)
from kubesim.kubectl.resource import NO_RESOURCES, resolve


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="image (-f FILENAME | TYPE NAME) CONTAINER_NAME=IMAGE ...")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true")
    p.add_argument("--local", action="store_true", help="If true, set image will NOT contact api-server but run locally.")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    bool_flag(p, "--record")
    p.add_argument("--field-manager", default="kubectl-set")
    add_dry_run(p)


_SET_SUBCOMMANDS = ("env", "image", "resources", "selector", "serviceaccount", "subject")


def run(f, args, env) -> int:
    if not args.args:
        raise UsageError('a subcommand is required: "kubesim set image ..."\nSee \'kubesim set --help\' for usage.')
    sub, rest = args.args[0], args.args[1:]
    if sub not in _SET_SUBCOMMANDS:
        raise UsageError(f'unknown command "{sub}" for "kubesim set"')
    if sub != "image":
        raise UsageError(f'"kubesim set {sub}" is not supported by kubesim yet (only "set image")')
    return _set_image(f, args, env, rest)


def _set_image(f, args, env, words: list[str]) -> int:
    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    resources, pairs = ph.split_resources_and_pairs(words, "image")
    images = ph.parse_pairs(pairs, "image")
    if args.local:
        if resources:
            raise UsageError("you must specify resources by --filename when --local is set.\n"
                             "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'")
        return _set_image_local(args, env, images)
    cause = change_cause(args, ["set", "image"] + words)
    record_warning(args, env)
    if not resources and not args.filename:
        raise UsageError(NO_RESOURCES)
    with f.connect() as client:
        targets = resolve(client, f, args, resources, True, args.filename, args.selector, args.all, stdin=env.stdin)
        problems = []
        if args.all and args.selector:
            problems.append("cannot set --all and --selector at the same time")
        if not images:
            problems.append("at least one image update is required")
        elif len(images) > 1 and "*" in images:
            problems.append("all containers are already specified by *, but saw more than one "
                            "container_name=container_image pairs")
        if problems:
            raise aggregate_lines(problems)
        lines, errors, shown = [], [], []
        for info, live in targets:
            try:
                new, missing = ph.set_images(live, images)
            except ph._NoPodSpec as e:
                errors.append(f"error: {info.plural}/{live['metadata']['name']} {e}\n")
                continue
            errors.extend(missing)
            if comparable(new) == comparable(live):
                continue
            ph.record(new, cause)
            if dry == "none":
                new = client.update(info, new)
            shown.append(new)
            lines.append(result_line(info, live, "image updated" + dry_suffix(dry), args.output))
        if errors:
            raise aggregate_lines(errors)
    print_result(env, args.output, shown, lines)
    return 0


def _set_image_local(args, env, images) -> int:
    from kubesim.api import kinds
    from kubesim.codec.load import load
    if not args.filename:
        raise UsageError(NO_RESOURCES)
    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    shown, lines, errors = [], [], []
    for doc in docs:
        info = kinds.for_object(doc.obj)
        try:
            new, missing = ph.set_images(doc.obj, images)
        except ph._NoPodSpec as e:
            errors.append(f"error: {doc.obj.get('kind', '').lower()}s/{doc.obj['metadata']['name']} {e}\n")
            continue
        errors.extend(missing)
        if new == doc.obj:
            continue
        shown.append(new)
        if info is not None:
            lines.append(result_line(info, new, "image updated", args.output))
    print_result(env, args.output, shown, lines)
    if errors:
        raise aggregate_lines(errors)
    return 0
