"""kubectl taint nodes.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/taint/taint.go and taint/utils.go (parseTaints,
reorganizeTaints): argument syntax (``key=value:Effect``, ``key:Effect-``, ``key-``), the lines
printed (``node/x tainted``, ``untainted``, ``modified``) and the errors.
"""

from __future__ import annotations

import copy

from kubesim.errors import UsageError
from kubesim.kubectl.cmd.label import name_checks, objects_of, split_args, value_checks
from kubesim.kubectl.generate.flags import usage_error

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _is_taint_spec(word: str) -> bool:
    return "=" in word or ":" in word or word.endswith("-")


def add_flags(p):
    from kubesim.kubectl.cmd.util import add_dry_run
    from kubesim.kubectl.generate.flags import bool_flag

    p.add_argument("args", nargs="*", metavar="nodes NAME KEY[=VALUE]:EFFECT ... | KEY[:EFFECT]-")
    bool_flag(p, "--overwrite", dest="overwrite", help="If true, allow taints to be overwritten, otherwise reject "
                                                       "taint updates that overwrite existing taints.")
    p.add_argument("-l", "--selector")
    bool_flag(p, "--all", dest="all", help="Select all nodes in the cluster")
    p.add_argument("-o", "--output", default=None, help="Output format. One of: (json, yaml, name).")
    p.add_argument("--field-manager", default=None, help="Name of the manager used to track field ownership.")
    add_dry_run(p)


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
            errs = value_checks(value)
            if errs:
                raise UsageError(f"invalid taint spec: {spec}, " + "; ".join(errs))
    else:
        raise UsageError(f"invalid taint spec: {spec}")
    errs = name_checks(key)
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
                # Go's %v of the corev1.Taint: {Key Value Effect TimeAdded}
                raise UsageError("duplicated taints with the same key and effect: "
                                 f"{{{t['key']} {t.get('value') or ''} {t['effect']} <nil>}}")
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


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.kubectl.cmd.util import (
        check_output,
        dry_run_strategy,
        dry_suffix,
        objects_text,
    )

    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    words = list(args.args)
    if not words:
        raise UsageError("one or more resources must be specified as <resource> <name>")
    info = kinds.lookup(words[0].split("/")[0])
    if info.kind != "Node":
        raise UsageError(f"invalid resource type {words[0]}, only node types are supported")
    targets, specs = split_args(words, "taint", _is_taint_spec, selecting=bool(args.selector or args.all))
    if not specs:
        raise UsageError("at least one taint update is required")
    try:
        to_add, to_remove = parse_taints(specs)
    except UsageError as e:  # taint.go returns parseTaints' errors as usage errors
        raise usage_error("taint", e.message) from None
    lines, shown = [], []
    with f.connect() as client:
        for info, node in objects_of(client, f, args, targets):
            old = list((node.get("spec") or {}).get("taints") or [])
            if not args.overwrite:
                exists = [t["key"] for t in to_add for o in old if t["key"] == o["key"] and t["effect"] == o.get("effect")]
                if exists:
                    raise UsageError(f"node {node['metadata']['name']} already has {','.join(exists)} taint(s) "
                                     "with same effect(s) and --overwrite is false")
            op, new, errors = reorganize_taints(old, args.overwrite, to_add, to_remove)
            if errors:
                raise UsageError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
            updated = copy.deepcopy(node)
            updated.setdefault("spec", {})
            if new:
                updated["spec"]["taints"] = new
            else:
                updated["spec"].pop("taints", None)
            if dry == "none":
                updated = client.update(info, updated)
            shown.append(updated)
            lines.append(f"node/{node['metadata']['name']} {op}{dry_suffix(dry)}")
    if args.output in ("yaml", "json"):
        env.stdout.write(objects_text(shown, args.output))
        return 0
    for line in lines:
        env.stdout.write((line.split(" ")[0] if args.output == "name" else line) + "\n")
    return 0
