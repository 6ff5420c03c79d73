"""A task's checks: small declarative predicates over the cluster's objects, read through the
client interface (``kubesim.kubectl.client.Client``), never from printed output.

Each check is a mapping with an optional ``desc`` and exactly one predicate:

- ``object: {kind, name, namespace, exists: true}`` — the object exists (or, ``exists: false``,
  does not);
- ``field: {kind, name, namespace, path, <test>}`` — a field of one object, where ``path`` is
  dotted (``spec.template.spec.containers[0].image``, ``spec.taints[key=gpu].effect``,
  ``metadata.labels["kubernetes.io/hostname"]``, ``[*]`` for any item) and ``<test>`` one of
  ``equals``, ``contains`` (a substring or a list item), ``in`` (a list), ``matches`` (a
  regular expression), ``present`` (true/false), ``gte``/``lte`` (numbers or quantities);
  the check passes when any value the path reaches passes;
- ``pods: {namespace, name | selector, count, ready, node, not_node, spread}`` — pods are
  Running (and Ready unless ``ready: false``): exactly ``count`` of them (default: at least
  one), on ``node`` / not on ``not_node``, on ``spread`` distinct nodes at least;
- ``rollout: {kind, name, namespace}`` — a Deployment, DaemonSet or StatefulSet has all its
  replicas updated, ready and available, as ``kubectl rollout status`` waits for;
- ``endpoints: {service, namespace, count}`` — a Service has at least ``count`` ready endpoints;
- ``can_i: {as, groups, verb, resource, subresource, namespace, name, allowed}`` — what
  ``kubectl auth can-i VERB RESOURCE --as USER`` answers;
- ``count: {kind, namespace, selector, equals}`` — how many objects of a kind there are.

``namespace`` defaults to ``default`` for namespaced kinds. A check returns a ``Result``; a
failure carries an explanation in the cluster's own terms (``kubesim.practice.diagnose``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PREDICATES = {
    "object": ({"kind", "name"}, {"namespace", "exists"}),
    "field": ({"kind", "name", "path"}, {"namespace", "equals", "contains", "in", "matches", "present", "gte", "lte"}),
    "pods": (set(), {"namespace", "name", "selector", "count", "ready", "node", "not_node", "spread"}),
    "rollout": ({"kind", "name"}, {"namespace"}),
    "endpoints": ({"service"}, {"namespace", "count"}),
    "can_i": ({"as", "verb", "resource", "allowed"}, {"groups", "subresource", "namespace", "name"}),
    "count": ({"kind", "equals"}, {"namespace", "selector"}),
}
_FIELD_TESTS = ("equals", "contains", "in", "matches", "present", "gte", "lte")


@dataclass(frozen=True)
class Result:
    desc: str
    passed: bool
    explanation: str = ""


def check_errors(check) -> list[str]:
    """What is wrong with a check's shape (the task loader's schema check)."""
    if not isinstance(check, dict):
        return ["must be a mapping"]
    preds = [k for k in check if k != "desc"]
    if len(preds) != 1 or preds[0] not in _PREDICATES:
        return [f"must hold desc and exactly one of {', '.join(_PREDICATES)}"]
    name = preds[0]
    args = check[name]
    if not isinstance(args, dict):
        return [f"{name}: must be a mapping"]
    required, optional = _PREDICATES[name]
    errs = [f"{name}: missing {k}" for k in sorted(required - set(args))]
    errs += [f"{name}: unknown field {k}" for k in sorted(set(args) - required - optional)]
    if name == "field" and sum(t in args for t in _FIELD_TESTS) != 1:
        errs.append(f"field: needs exactly one of {', '.join(_FIELD_TESTS)}")
    if name == "pods" and ("name" in args) == ("selector" in args):
        errs.append("pods: needs exactly one of name, selector")
    if "kind" in args:
        from kubesim.api import kinds

        try:
            kinds.by_kind(str(args["kind"]))
        except KeyError:
            errs.append(f"{name}: unknown kind {args['kind']}")
    if name == "field":
        try:
            _path(str(args["path"]))
        except ValueError as e:
            errs.append(f"field: {e}")
    return errs


def describe(check: dict) -> str:
    if check.get("desc"):
        return str(check["desc"])
    name = next(k for k in check if k != "desc")
    return f"{name}: " + ", ".join(f"{k}={v}" for k, v in check[name].items())


def run_check(check: dict, ctx) -> Result:
    """One check against the cluster ``ctx`` reaches (``ctx.client``, ``ctx.client_as``)."""
    from kubesim.errors import KubesimError

    name = next(k for k in check if k != "desc")
    try:
        ok, why = _RUN[name](check[name], ctx)
    except KubesimError as e:
        ok, why = False, str(e).strip()
    return Result(describe(check), ok, "" if ok else why)


def _info(kind: str):
    from kubesim.api import kinds

    return kinds.by_kind(kind)


def _ns(info, args) -> str:
    return str(args.get("namespace") or "default") if info.namespaced else ""


def _where(info, ns: str) -> str:
    return f' in namespace "{ns}"' if info.namespaced else ""


def _missing(ctx, info, ns: str, name: str) -> str:
    others = [o["metadata"]["name"] for o in ctx.client.list(info, ns or None)]
    text = f'{info.kind} "{name}" not found{_where(info, ns)}'
    if others:
        text += f" (there: {', '.join(others[:8])}{' ...' if len(others) > 8 else ''})"
    return text


def _object(args, ctx):
    info = _info(args["kind"])
    ns = _ns(info, args)
    obj = ctx.client.find(info, ns, str(args["name"]))
    want = args.get("exists", True)
    if obj is not None and obj["metadata"].get("deletionTimestamp") and not want:
        return False, f'{info.kind} "{args["name"]}" is still terminating{_where(info, ns)}'
    if (obj is not None) == bool(want):
        return True, ""
    if want:
        return False, _missing(ctx, info, ns, str(args["name"]))
    return False, f'{info.kind} "{args["name"]}" still exists{_where(info, ns)}'


# -- field paths ----------------------------------------------------------------------------

_TOKEN = re.compile(r'\.?([^.\[\]]+)|\[(\*|\d+|"[^"]*"|[^\]=]+=[^\]]*)\]')


def _path(path: str) -> list:
    """``a.b[0].c[key=v]["x.y/z"]`` as steps: names, indexes, ``*``, (key, value) filters."""
    steps, pos = [], 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot read the path {path!r} at {path[pos:]!r}")
        name, sub = m.groups()
        if name is not None:
            steps.append(name)
        elif sub == "*":
            steps.append(("*",))
        elif sub.isdigit():
            steps.append(int(sub))
        elif sub.startswith('"'):
            steps.append(sub[1:-1])
        else:
            k, v = sub.split("=", 1)
            steps.append((k, v))
        pos = m.end()
    return steps


def resolve(obj, path: str) -> list:
    """Every value ``path`` reaches in ``obj`` (none when a step is missing)."""
    values = [obj]
    for step in _path(path):
        nxt = []
        for v in values:
            if (isinstance(step, str) and isinstance(v, dict) and step in v) or \
                    (isinstance(step, int) and isinstance(v, list) and step < len(v)):
                nxt.append(v[step])
            elif isinstance(step, tuple) and isinstance(v, list):
                if step == ("*",):
                    nxt.extend(v)
                else:
                    nxt.extend(i for i in v if isinstance(i, dict) and str(i.get(step[0])) == step[1])
        values = nxt
    return values


def _same(actual, expected) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual == expected
    if actual == expected:
        return True
    if isinstance(actual, (dict, list)) or isinstance(expected, (dict, list)):
        return False
    if str(actual) == str(expected):
        return True
    return _quantity(actual) is not None and _quantity(actual) == _quantity(expected)


def _quantity(v):
    from kubesim.api.quantity import parse_quantity

    try:
        return parse_quantity(str(v))
    except (ValueError, TypeError):
        return None


def _test(args, values) -> bool:
    if "present" in args:
        return bool(values) == bool(args["present"])
    for v in values:
        if "equals" in args and _same(v, args["equals"]):
            return True
        if "in" in args and any(_same(v, e) for e in args["in"]):
            return True
        if "contains" in args:
            want = args["contains"]
            if isinstance(v, list) and any(_same(i, want) or (isinstance(want, dict) and isinstance(i, dict)
                                                              and all(_same(i.get(k), w) for k, w in want.items()))
                                           for i in v):
                return True
            if isinstance(v, str) and str(want) in v:
                return True
        if "matches" in args and re.search(str(args["matches"]), str(v)):
            return True
        for op in ("gte", "lte"):
            if op in args:
                a, b = _quantity(v), _quantity(args[op])
                if a is not None and b is not None and (a >= b if op == "gte" else a <= b):
                    return True
    return False


def _show(values) -> str:
    import json

    if not values:
        return "not set"
    shown = [json.dumps(v, separators=(",", ":")) if isinstance(v, (dict, list)) else str(v) for v in values]
    return "is " + " / ".join(s if len(s) < 160 else s[:157] + "..." for s in shown)


def _field(args, ctx):
    info = _info(args["kind"])
    ns = _ns(info, args)
    obj = ctx.client.find(info, ns, str(args["name"]))
    if obj is None:
        return False, _missing(ctx, info, ns, str(args["name"]))
    values = resolve(obj, str(args["path"]))
    if _test(args, values):
        return True, ""
    test = next(t for t in _FIELD_TESTS if t in args)
    want = {"equals": "expected {}", "contains": "expected it to contain {}", "in": "expected one of {}",
            "matches": "expected it to match {}", "present": "expected it {}", "gte": "expected at least {}",
            "lte": "expected at most {}"}[test]
    shown = args[test] if test != "present" else ("set" if args[test] else "unset")
    return False, f'{info.kind} "{args["name"]}": {args["path"]} {_show(values)}, {want.format(shown)}'


def _pods(args, ctx):
    from kubesim.practice.diagnose import pod_problem, selector_mismatch

    info = _info("Pod")
    ns = _ns(info, args)
    if "name" in args:
        pod = ctx.client.find(info, ns, str(args["name"]))
        if pod is None:
            return False, _missing(ctx, info, ns, str(args["name"]))
        pods = [pod]
    else:
        pods = [p for p in ctx.client.list(info, ns, label_selector=str(args["selector"]))
                if not p["metadata"].get("deletionTimestamp")]
        if not pods:
            return False, "the " + selector_mismatch(ctx.client, ns, str(args["selector"]))
    want_ready = args.get("ready", True)
    problems, good = [], []
    for p in pods:
        why = pod_problem(p, want_ready, ctx.context)
        node = (p.get("spec") or {}).get("nodeName") or ""
        name = p["metadata"]["name"]
        if why is None and args.get("node") and node != str(args["node"]):
            why = f'pod {name} runs on {node or "no node"}, not on {args["node"]}'
        if why is None and args.get("not_node") and node == str(args["not_node"]):
            why = f"pod {name} runs on {node}"
        (problems if why else good).append(why or p)
    if "count" in args and len(good) != int(args["count"]):
        lead = f"{len(good)} of {len(pods)} matching pod(s) {'ready' if want_ready else 'running'}, " \
               f"expected {args['count']}"
        return False, "; ".join([lead] + problems[:3])
    if "count" not in args and problems:
        return False, "; ".join(problems[:3])
    spread = args.get("spread")
    if spread:
        nodes = {p["spec"].get("nodeName") for p in good}
        if len(nodes) < int(spread):
            return False, (f"the pods run on {len(nodes)} node(s) ({', '.join(sorted(nodes))}), expected "
                           f"{spread} different nodes")
    return True, ""


def _rollout(args, ctx):
    from kubesim.practice.diagnose import workload_problem

    info = _info(args["kind"])
    ns = _ns(info, args)
    obj = ctx.client.find(info, ns, str(args["name"]))
    if obj is None:
        return False, _missing(ctx, info, ns, str(args["name"]))
    why = workload_problem(ctx.client, obj, ctx.context)
    return why is None, why or ""


def _endpoints(args, ctx):
    from kubesim.practice.diagnose import service_problem

    ns = str(args.get("namespace") or "default")
    info = _info("Service")
    svc = ctx.client.find(info, ns, str(args["service"]))
    if svc is None:
        return False, _missing(ctx, info, ns, str(args["service"]))
    why = service_problem(ctx.client, svc, int(args.get("count", 1)))
    return why is None, why or ""


def _can_i(args, ctx):
    groups = args.get("groups") or []
    ns = str(args.get("namespace") or "default")
    resource = str(args["resource"])
    group = ""
    if "." in resource:
        resource, group = resource.split(".", 1)
    with ctx.client_as(str(args["as"]), list(groups)) as client:
        allowed, _reason = client.access_review(str(args["verb"]), group, resource, str(args.get("subresource") or ""),
                                                ns, str(args.get("name") or ""))
    if allowed == bool(args["allowed"]):
        return True, ""
    what = f"{args['verb']} {args['resource']}" + (f"/{args['subresource']}" if args.get("subresource") else "")
    return False, (f"kubectl auth can-i {what} -n {ns} --as {args['as']} says "
                   f"{'yes' if allowed else 'no'}, expected {'yes' if args['allowed'] else 'no'}")


def _count(args, ctx):
    info = _info(args["kind"])
    ns = _ns(info, args)
    objs = [o for o in ctx.client.list(info, ns or None, label_selector=args.get("selector"))
            if not o["metadata"].get("deletionTimestamp")]
    if len(objs) == int(args["equals"]):
        return True, ""
    names = ", ".join(o["metadata"]["name"] for o in objs[:8])
    sel = f" matching {args['selector']}" if args.get("selector") else ""
    return False, (f"{len(objs)} {info.plural}{sel}{_where(info, ns)}{': ' + names if names else ''}, "
                   f"expected {args['equals']}")


_RUN = {"object": _object, "field": _field, "pods": _pods, "rollout": _rollout, "endpoints": _endpoints,
        "can_i": _can_i, "count": _count}
