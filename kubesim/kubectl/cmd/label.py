"""kubectl label and annotate.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/label/label.go and annotate/annotate.go: argument
syntax (``k=v``, ``k-``), the lines printed (``pod/x labeled``, ``... not labeled``) and the
errors.
"""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("args", nargs="+", metavar="TYPE NAME KEY=VAL ... | KEY-")
    p.add_argument("--overwrite", action="store_true", help="allow existing values to be replaced")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--list", action="store_true", help="list the current values")
    p.add_argument("-o", "--output", default=None, help="output format: name")


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
    targets, specs = split_args(args.args, what, selecting=bool(args.selector or args.all))
    if args.list:
        with f.connect() as client:
            for _, obj in objects_of(client, f, args, targets):
                for k, v in sorted((obj["metadata"].get(field) or {}).items()):
                    env.stdout.write(f"{k}={v}\n")
        return 0
    if not specs:
        raise UsageError(f"at least one {what} update is required")
    add, remove = _parse_pairs(specs, what, validate=(field == "labels"))
    lines, warnings = [], []
    with f.connect() as client:
        for info, obj in objects_of(client, f, args, targets):
            current = dict(obj["metadata"].get(field) or {})
            if not args.overwrite:
                for k, v in add.items():
                    if k in current and current[k] != v:
                        raise UsageError(f"'{k}' already has a value ({current[k]}), and --overwrite is false")
            new = dict(current)
            for k in remove:
                if k not in new:
                    warnings.append(f'{what} "{k}" not found.')
                new.pop(k, None)
            new.update(add)
            ref = f"{info.ref}/{obj['metadata']['name']}"
            if new == current:
                lines.append(f"{ref} not {past}" if field == "labels" else f"{ref} {past}")
                continue
            updated = _with_meta(obj, field, new)
            client.update(info, updated)
            if field == "labels" and not args.overwrite and len(new) < len(current):
                lines.append(f"{ref} un{past}")
            else:
                lines.append(f"{ref} {past}")
    for w in warnings:
        env.stdout.write(w + "\n")
    for line in lines:
        env.stdout.write((line.split(" ")[0] if args.output == "name" else line) + "\n")
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
