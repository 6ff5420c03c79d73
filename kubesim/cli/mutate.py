"""label, annotate, taint, cordon, uncordon.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/label/label.go, annotate/annotate.go,
taint/taint.go + taint/utils.go, drain/cordon.go (and pkg/drain/cordon.go): argument syntax,
the lines printed (``pod/x labeled``, ``node/x tainted``, ``node/x cordoned``) and the errors.
"""

from __future__ import annotations

from kubesim.cli.session import namespace, session
from kubesim.errors import UsageError

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _name_checks(key: str) -> list[str]:
    from kubesim.api.validation import is_qualified_name

    return is_qualified_name(key)


def _value_checks(value: str) -> list[str]:
    from kubesim.api.validation import is_valid_label_value

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
                key_errs = _name_checks(k)
                if key_errs:
                    raise UsageError(f"invalid {what} spec: {s}, " + ";".join(key_errs))
                value_errs = _value_checks(v)
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
    return "=" in word or word.endswith("-")


def _is_taint_spec(word: str) -> bool:
    return "=" in word or ":" in word or word.endswith("-")


def _split_args(args_list: list[str], is_spec=_is_meta_spec):
    """TYPE NAME... SPEC... → (targets, specs): kubectl takes the words that look like specs
    (``k=v``, ``k-``, and for taints ``k:Effect``) as the updates, the rest as resources."""
    from kubesim.cli.resources import parse_targets

    words = list(args_list)
    i = 1
    while i < len(words) and not is_spec(words[i]):
        i += 1
    resource_words, specs = words[:i], words[i:]
    if not resource_words:
        raise UsageError("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    return parse_targets(resource_words), specs


def _objects(cluster, args, targets):
    from kubesim.cli.resources import lookup

    ns = None if getattr(args, "all_namespaces", False) else namespace(args)
    return lookup(cluster, targets, ns, args.selector, every=getattr(args, "all", False))


def _meta_cmd(args, env, field: str, what: str, past: str) -> int:
    from kubesim.apiserver import objects

    targets, specs = _split_args(args.args)
    if args.list:
        with session(args, env) as cluster:
            for _, obj in _objects(cluster, args, targets):
                for k, v in sorted((obj["metadata"].get(field) or {}).items()):
                    env.stdout.write(f"{k}={v}\n")
        return 0
    if not specs:
        raise UsageError(f"at least one {what} update is required")
    add, remove = _parse_pairs(specs, what, validate=(field == "labels"))
    lines, warnings = [], []
    with session(args, env) as cluster:
        for info, obj in _objects(cluster, args, targets):
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
            objects.update_object(cluster, updated, obj, info)
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


def label_cmd(args, env) -> int:
    return _meta_cmd(args, env, "labels", "label", "labeled")


def annotate_cmd(args, env) -> int:
    return _meta_cmd(args, env, "annotations", "annotation", "annotated")


# -- taints --------------------------------------------------------------------------------

def parse_taint(spec: str) -> dict:
    """``key=value:Effect``, ``key:Effect`` or ``key`` (taint/utils.go parseTaint)."""
    parts = spec.split(":")
    value = None
    effect = ""
    if len(parts) == 1:
        key = parts[0]
    elif len(parts) == 2:
        effect = parts[1]
        if effect not in _EFFECTS:
            raise UsageError(f"invalid taint effect: {effect}, unsupported taint effect")
        kv = parts[0].split("=")
        if len(kv) > 2:
            raise UsageError(f"invalid taint spec: {spec}")
        key = kv[0]
        if len(kv) == 2:
            value = kv[1]
            errs = _value_checks(value)
            if errs:
                raise UsageError(f"invalid taint spec: {spec}, " + "; ".join(errs))
    else:
        raise UsageError(f"invalid taint spec: {spec}")
    errs = _name_checks(key)
    if errs:
        raise UsageError(f"invalid taint spec: {spec}, " + "; ".join(errs))
    t = {"key": key, "effect": effect}
    if value:
        t["value"] = value
    return t


def _taint_string(t: dict) -> str:
    s = t["key"]
    if t.get("value"):
        s += "=" + t["value"]
    if t.get("effect"):
        s += ":" + t["effect"]
    return s


def parse_taints(specs: list[str]) -> tuple[list[dict], list[dict]]:
    add, remove = [], []
    seen: set[tuple[str, str]] = set()
    for s in specs:
        if s.endswith("-"):
            t = parse_taint(s[:-1])
            remove.append(t)
        else:
            t = parse_taint(s)
            if not t["effect"]:
                raise UsageError(f"invalid taint spec: {s}")
            if (t["key"], t["effect"]) in seen:
                raise UsageError(f"duplicated taints with the same key and effect: {t}")
            seen.add((t["key"], t["effect"]))
            add.append(t)
    return add, remove


def reorganize_taints(old: list[dict], overwrite: bool, to_add: list[dict], to_remove: list[dict]) -> tuple[str, list[dict], list[str]]:
    """(operation, new taints, errors) as taint/utils.go reorganizeTaints computes them."""
    new = [dict(t) for t in to_add]
    for o in old:
        if not any(t["key"] == o["key"] and t["effect"] == o.get("effect") for t in new):
            new.append(o)
    added = len(old) != len(new)
    errors: list[str] = []
    deleted = False
    for r in to_remove:
        before = len(new)
        if r.get("effect"):
            new = [t for t in new if not (t["key"] == r["key"] and t.get("effect") == r["effect"])]
        else:
            new = [t for t in new if t["key"] != r["key"]]
        deleted = len(new) != before
        if not deleted:
            errors.append(f'taint "{_taint_string({"key": r["key"], "effect": r.get("effect", "")})}" not found')
    if (added and deleted) or overwrite:
        op = "modified"
    elif added:
        op = "tainted"
    else:
        op = "untainted"
    return op, new, errors


def taint_cmd(args, env) -> int:
    from kubesim.api import kinds
    from kubesim.apiserver import objects

    words = list(args.args)
    if not words:
        raise UsageError("at least one taint update is required")
    info = kinds.lookup(words[0].split("/")[0])
    if info.kind != "Node":
        raise UsageError(f"invalid resource type {words[0]}, only node types are supported")
    targets, specs = _split_args(words, _is_taint_spec)
    if not specs:
        raise UsageError("at least one taint update is required")
    to_add, to_remove = parse_taints(specs)
    lines = []
    with session(args, env) as cluster:
        for info, node in _objects(cluster, args, targets):
            old = list((node.get("spec") or {}).get("taints") or [])
            if not args.overwrite:
                exists = [t["key"] for t in to_add for o in old if t["key"] == o["key"] and t["effect"] == o.get("effect")]
                if exists:
                    raise UsageError(f"node {node['metadata']['name']} already has {','.join(exists)} taint(s) "
                                     "with same effect(s) and --overwrite is false")
            op, new, errors = reorganize_taints(old, args.overwrite, to_add, to_remove)
            if errors:
                raise UsageError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
            stamp = cluster.stamp()
            for t in new:
                if t.get("effect") == "NoExecute" and "timeAdded" not in t:
                    t["timeAdded"] = stamp  # the API server stamps NoExecute taints
            import copy

            updated = copy.deepcopy(node)
            updated.setdefault("spec", {})
            if new:
                updated["spec"]["taints"] = new
            else:
                updated["spec"].pop("taints", None)
            objects.update_object(cluster, updated, node, info)
            lines.append(f"node/{node['metadata']['name']} {op}")
    for line in lines:
        env.stdout.write((line.split(" ")[0] if args.output == "name" else line) + "\n")
    return 0


# -- cordon / uncordon ---------------------------------------------------------------------

def _cordon(args, env, unschedulable: bool) -> int:
    from kubesim.cli import resources
    from kubesim.engine import workloads as wl

    if not args.nodes and not args.selector:
        raise UsageError("USAGE: cordon NODE [flags]" if unschedulable else "USAGE: uncordon NODE [flags]")
    verb = "cordoned" if unschedulable else "uncordoned"
    lines = []
    with session(args, env) as cluster:
        for node in resources.nodes(cluster, args.nodes, args.selector):
            name = node["metadata"]["name"]
            lines.append(f"node/{name} {verb}" if wl.cordon(cluster, node, unschedulable) else
                         f"node/{name} already {verb}")
    for line in lines:
        env.stdout.write(line + "\n")
    return 0


def cordon_cmd(args, env) -> int:
    return _cordon(args, env, True)


def uncordon_cmd(args, env) -> int:
    return _cordon(args, env, False)
