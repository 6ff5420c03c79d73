"""kubectl label and annotate.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/label/label.go and annotate/annotate.go: argument
syntax (``k=v``, ``k-``), ``--overwrite`` (validateNoOverwrites), ``--list`` (the values after the
command's changes, under a ``Listing labels for Kind.group/name:`` heading when the arguments
could name several objects), ``--resource-version`` (only with a single resource; sent with the
change, so the API server refuses it with a Conflict when the object has moved on — label sends
nothing, and so cannot conflict, when no label changes; annotate always sends), ``--dry-run``,
``-o``, and the lines printed: label's updateDataChangeMsg (``labeled``, ``unlabeled``,
``modified`` when it both adds and removes, ``not labeled``; ``label "k" not found.`` for a
removal of a label the object lacks) and annotate's ``annotated``.
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    from kubesim.kubectl.cmd.util import add_dry_run
    from kubesim.kubectl.generate.flags import bool_flag

    p.add_argument("args", nargs="*", metavar="TYPE NAME KEY=VAL ... | KEY-")
    bool_flag(p, "--overwrite", dest="overwrite", help="If true, allow labels (annotations) to be overwritten, "
                                                       "otherwise reject updates that overwrite existing ones.")
    p.add_argument("-l", "--selector")
    bool_flag(p, "--all", dest="all", help="Select all resources, in the namespace of the specified resource types")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    bool_flag(p, "--list", dest="list", help="If true, display the labels (annotations) for a given resource.")
    p.add_argument("--resource-version", default="",
                   help="If non-empty, the update will only succeed if this is the current resource-version for the "
                        "object. Only valid when specifying a single resource.")
    p.add_argument("-o", "--output", default=None, help="Output format. One of: (json, yaml, name).")
    p.add_argument("--field-manager", default=None, help="Name of the manager used to track field ownership.")
    add_dry_run(p)


def name_checks(key: str) -> list[str]:
    from kubesim.api.meta.validation import is_qualified_name

    return is_qualified_name(key)


def value_checks(value: str) -> list[str]:
    from kubesim.api.meta.validation import is_valid_label_value

    return is_valid_label_value(value)


def _parse_pairs(specs: list[str], what: str, validate: bool) -> tuple[dict, list[str]]:
    """``k=v`` and ``k-`` arguments (label.go parseLabels / annotate.go parseAnnotations)."""
    add, remove = {}, []
    for s in specs:
        if "=" in s:
            k, v = s.split("=", 1)
            if not k:
                raise UsageError(f"invalid {what} spec: {s}")
            if validate:
                key_errs = name_checks(k)
                if key_errs:
                    raise UsageError(f"invalid {what} spec: {s}, " + ";".join(key_errs))
                value_errs = value_checks(v)
                if value_errs:
                    raise UsageError(f'invalid {what} value: "{s}": ' + ";".join(value_errs))
            add[k] = v
        elif s.endswith("-"):
            remove.append(s[:-1])
        else:
            raise UsageError(f"invalid {what} spec: {s}")
    for k in remove:
        if k in add:
            raise UsageError(f"can not both modify and remove the following {what}(s) in the same command: {k}")
    return add, remove


def _is_meta_spec(word: str) -> bool:
    return ("=" in word and not word.startswith("=")) or (word.endswith("-") and word != "-")


def split_args(args_list: list[str], what: str, is_spec=_is_meta_spec, selecting: bool = False):
    """TYPE NAME... SPEC... → (targets, specs), as cmdutil.GetResourcesAndPairs splits them: the
    words that look like updates (``k=v``, ``k-``; for taints also ``k:Effect``) are the specs, and
    every resource must come before the first of them."""
    from kubesim.kubectl.resource import parse_targets

    resource_words, specs = [], []
    for word in args_list:
        if is_spec(word):
            specs.append(word)
        elif specs:
            raise UsageError(f"all resources must be specified before {what} changes: {word}")
        else:
            resource_words.append(word)
    if not resource_words:
        raise UsageError("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    return parse_targets(resource_words, selecting), specs


def objects_of(client, f, args, targets):
    """The objects the resource arguments name (copies), in the request's namespace (all with -A)."""
    from kubesim.kubectl.resource import lookup

    ns = None if getattr(args, "all_namespaces", False) else f.namespace()
    return lookup(client, targets, ns, args.selector, every=getattr(args, "all", False), continue_on_error=True)


def _meta_cmd(f, args, env, field: str, what: str, past: str) -> int:
    from kubesim.errors import Conflict, client_error
    from kubesim.kubectl.cmd.util import (
        aggregate_lines,
        check_output,
        dry_run_strategy,
        dry_suffix,
        objects_text,
    )

    targets, specs = split_args(args.args, what, selecting=bool(args.selector or args.all))
    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    if not specs and not args.list:
        raise UsageError(f"at least one {what} update is required")
    add, remove = _parse_pairs(specs, what, validate=(field == "labels"))
    # the builder's IntoSingleItemImplied: one TYPE NAME (or TYPE/NAME)
    one = len(targets) == 1 and len(targets[0][1]) == 1
    shown, out = [], []
    with f.connect() as client:
        found = objects_of(client, f, args, targets)
        if args.resource_version and not one:
            raise client_error("--resource-version may only be used with a single resource")
        for info, obj in found:
            md = obj["metadata"]
            current = dict(md.get(field) or {})
            if not args.overwrite:
                clashes = [f"'{k}' already has a value ({current[k]}), and --overwrite is false"
                           for k, v in add.items() if k in current and current[k] != v]
                if clashes:
                    raise aggregate_lines(clashes)
            new = dict(current)
            for k in remove:
                new.pop(k, None)
            new.update(add)
            added = [k for k, v in add.items() if current.get(k) != v]
            removed = [k for k in remove if k in current]
            ref = f"{info.ref}/{md['name']}"
            if args.list:
                if not one:
                    out.append(f"Listing {field} for {obj.get('kind')}.{info.group}/{md['name']}:\n")
                out.extend(f"{'' if one else ' '}{k}={v}\n" for k, v in sorted(new.items()))
                continue
            if field == "labels" and dry != "client" and args.output not in ("yaml", "json"):
                out.extend(f'label "{k}" not found.\n' for k in remove if k not in current)
            sends = dry != "client" and (field == "annotations" or added or removed)
            if sends and args.resource_version and args.resource_version != md.get("resourceVersion"):
                raise Conflict(f'Operation cannot be fulfilled on {info.resource} "{md["name"]}": the object has been '
                               "modified; please apply your changes to the latest version and try again")
            updated = _with_meta(obj, field, new)
            if sends and dry == "none" and new != current:
                updated = client.update(info, updated)
            if field == "labels":
                message = ("modified" if added and removed else "labeled" if added else
                           "unlabeled" if removed else "not labeled")
            else:
                message = past
            shown.append(updated)
            out.append((ref if args.output == "name" else f"{ref} {message}{dry_suffix(dry)}") + "\n")
    if args.output in ("yaml", "json") and not args.list:
        env.stdout.write(objects_text(shown, args.output))
    else:
        env.stdout.write("".join(out))
    return 0


def _with_meta(obj: dict, field: str, values: dict) -> dict:
    import copy

    new = copy.deepcopy(obj)
    if values:
        new["metadata"][field] = values
    else:
        new["metadata"].pop(field, None)
    return new


def label_cmd(f, args, env) -> int:
    return _meta_cmd(f, args, env, "labels", "label", "labeled")


def annotate_cmd(f, args, env) -> int:
    return _meta_cmd(f, args, env, "annotations", "annotation", "annotated")
