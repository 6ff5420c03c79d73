"""kubectl's generators: ``create deployment|namespace|priorityclass|poddisruptionbudget`` and ``run``.

Upstream (kubectl v1.36): staging/src/k8s.io/kubectl/pkg/cmd/create/{create.go,create_deployment.go,
create_namespace.go,create_priorityclass.go,create_pdb.go}, pkg/cmd/run/run.go, pkg/generate/versioned/run.go
(the ``run-pod/v1`` generator), pkg/generate/generate.go (ParseLabels), pkg/cmd/util/helpers.go
(GetDryRunStrategy, the printers' "created (dry run)" suffix).

kubectl builds *typed* Go objects here, so ``-o json`` keeps Go struct field order (``kind``,
``apiVersion``, ``metadata``, ...; a Container's ``name``, ``image``, ``command``, ``args``, ``ports``,
``env``, ``resources``, ...) with ``omitempty`` fields left out, while ``-o yaml`` goes through
JSON → map and comes out sorted. The builders below construct their dicts in Go struct order, so
``typed_json`` prints them as kubectl does and ``printers.output.to_yaml`` sorts them as kubectl does.

Flags are parsed the way pflag parses them: ``--replicas``/``--port``/``--value`` as Go ``int32``
(``strconv.ParseInt(s, 0, 32)``: ``0x10``, ``010``, ``1_000``), ``--image`` of ``create deployment``
as a CSV string slice, ``run --port`` with ``strconv.Atoi`` and a silent int32 wrap-around, bool
flags accepting ``--flag``, ``--flag=true|false|1|0|t|f|...``. Errors carry kubectl's texts.

Without ``--dry-run`` the generated object is created through the client; ``--dry-run=server``
does the same in a session that is not committed. The object the server returns is printed by kubesim's usual
printers: its ``-o yaml`` is kubectl's, its ``-o json`` has sorted keys where kubectl, decoding into
a typed object, would keep Go order. What kubesim leaves out is listed in ``UNSUPPORTED``.
"""

from __future__ import annotations

import argparse
import json
import re

from kubesim.api.gofmt import GO_FALSE, GO_TRUE, go_quote
from kubesim.kubectl.cmd.util import dry_run_strategy
from kubesim.errors import Invalid, StatusError, UsageError

# What kubectl's generators offer that kubesim does not (yet): attach/interactive ``run``, ``--expose``
# (no Service kind), ``--overrides``, ``--save-config``, the go-template printers.
UNSUPPORTED = ("run -i/-t/--attach/--rm", "run --expose", "run --overrides", "--save-config",
               "-o go-template|template|kyaml|jsonpath-as-json")


_PRINT_FORMATS = ("go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,"
                  "template,templatefile,yaml")

# ---------------------------------------------------------------------------------------------
# flags


def bool_flag(p, *names: str, dest: str, help: str) -> None:
    """A pflag bool: ``--x`` sets it, ``--x=false`` (any strconv.ParseBool spelling) clears it, and
    unlike argparse's ``nargs="?"`` the next word is never taken as its value."""
    p.add_argument(*names, dest=dest, action="store_const", const=True, default=None, help=help)
    for name in names:
        if name.startswith("--"):
            for word, value in [(w, True) for w in GO_TRUE] + [(w, False) for w in GO_FALSE]:
                p.add_argument(f"{name}={word}", dest=dest, action="store_const", const=value,
                               help=argparse.SUPPRESS)


def dry_run_flag(p) -> None:
    p.add_argument("--dry-run", dest="dry_run", nargs="?", const="unchanged", default=None, metavar="none|server|client",
                   help='"client" only prints the object that would be sent; "server" submits it without '
                        "persisting it; \"none\" (the default) creates it")


# The flags each `create` generator accepts, beyond -o/--dry-run and the global ones: (dest, flag).
_CREATE_FLAGS = {
    "deployment": (("image", "--image"), ("replicas", "--replicas"), ("port", "--port")),
    "namespace": (),
    "priorityclass": (("value", "--value"), ("global_default", "--global-default"),
                      ("description", "--description"), ("preemption_policy", "--preemption-policy")),
    "poddisruptionbudget": (("selector_pdb", "--selector"), ("min_available", "--min-available"),
                            ("max_unavailable", "--max-unavailable")),
}
_CREATE_ALIASES = {"deployment": "deployment", "deploy": "deployment", "namespace": "namespace", "ns": "namespace",
                   "priorityclass": "priorityclass", "pc": "priorityclass",
                   "poddisruptionbudget": "poddisruptionbudget", "pdb": "poddisruptionbudget"}


def create_generator_args(p) -> None:
    """Flags of ``create deployment|namespace|priorityclass``, added to the ``create`` parser."""
    g = p.add_argument_group("generators (create deployment|namespace|priorityclass|poddisruptionbudget NAME)")
    g.add_argument("--image", action="append", default=None, metavar="IMAGE[,IMAGE...]",
                   help="deployment: image names to run (repeatable, comma-separated)")
    g.add_argument("-r", "--replicas", default=None, metavar="N", help="deployment: number of replicas (default 1)")
    g.add_argument("--port", default=None, metavar="PORT", help="deployment: the port the first container exposes")
    g.add_argument("--value", default=None, metavar="N", help="priorityclass: the value of this priority class")
    bool_flag(g, "--global-default", dest="global_default",
               help="priorityclass: whether this PriorityClass is the default priority")
    g.add_argument("--description", default=None, help="priorityclass: an arbitrary description")
    g.add_argument("--preemption-policy", default=None, metavar="POLICY",
                   help="priorityclass: PreemptLowerPriority (default) or Never")
    g.add_argument("--selector", dest="selector_pdb", default=None, metavar="SELECTOR",
                   help="poddisruptionbudget: the label selector of the budget (equality-based and set-based)")
    g.add_argument("--min-available", default=None, metavar="N|N%%",
                   help="poddisruptionbudget: the minimum number or percentage of available pods")
    g.add_argument("--max-unavailable", default=None, metavar="N|N%%",
                   help="poddisruptionbudget: the maximum number or percentage of unavailable pods")
    dry_run_flag(g)


# ---------------------------------------------------------------------------------------------
# Go-isms: how kubectl reads its flags


def _flag_error(verb: str, value: str, flag: str, detail: str) -> UsageError:
    return UsageError(f"invalid argument {go_quote(value)} for {go_quote(flag)} flag: {detail}\n"
                      f"See 'kubesim {verb} --help' for usage.")


_GO_INT_BASE0 = re.compile(r"[+-]?(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)")


def parse_go_int(s: str, bits: int = 32) -> int:
    """strconv.ParseInt(s, 0, bits); ValueError("invalid syntax"|"value out of range") as Go words it."""
    if not _GO_INT_BASE0.fullmatch(s) or "__" in s or s.rstrip("_") != s:
        raise ValueError(f"strconv.ParseInt: parsing {go_quote(s)}: invalid syntax")
    sign = -1 if s[0] == "-" else 1
    body = s.lstrip("+-").replace("_", "")
    if body[:2].lower() in ("0x", "0o", "0b"):
        if len(body) == 2:
            raise ValueError(f"strconv.ParseInt: parsing {go_quote(s)}: invalid syntax")
        n = int(body, 0)
    elif len(body) > 1 and body[0] == "0":
        n = int(body, 8)
    else:
        n = int(body, 10)
    n *= sign
    if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
        raise ValueError(f"strconv.ParseInt: parsing {go_quote(s)}: value out of range")
    return n


def go_atoi(s: str) -> int:
    """strconv.Atoi: base 10, an optional sign, 64-bit."""
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(f"strconv.Atoi: parsing {go_quote(s)}: invalid syntax")
    n = int(s)
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(f"strconv.Atoi: parsing {go_quote(s)}: value out of range")
    return n


def int32_wrap(n: int) -> int:
    return ((n + (1 << 31)) % (1 << 32)) - (1 << 31)


def read_csv_line(val: str) -> list[str]:
    """pflag's readAsCSV: one record of encoding/csv (quotes, doubled quotes), ``""`` → no items."""
    if val == "":
        return []
    fields: list[str] = []
    i, n = 0, len(val)
    while True:
        if i < n and val[i] == '"':
            i += 1
            buf = []
            while True:
                j = val.find('"', i)
                if j < 0:
                    raise ValueError(f'parse error on line 1, column {len(val.encode()) + 1}: extraneous or missing " in quoted-field')
                buf.append(val[i:j])
                if j + 1 < n and val[j + 1] == '"':
                    buf.append('"')
                    i = j + 2
                    continue
                i = j + 1
                if i < n and val[i] != ",":
                    col = len(val[:j].encode()) + 1  # Go points at the closing quote
                    raise ValueError(f'parse error on line 1, column {col}: extraneous or missing " in quoted-field')
                break
            fields.append("".join(buf))
        else:
            j = val.find(",", i)
            field = val[i:] if j < 0 else val[i:j]
            q = field.find('"')
            if q >= 0:
                col = len(val[:i + q].encode()) + 1
                raise ValueError(f'parse error on line 1, column {col}: bare " in non-quoted-field')
            fields.append(field)
            i = n if j < 0 else j
        if i >= n:
            return fields
        i += 1  # the comma
        if i >= n:
            fields.append("")
            return fields


# github.com/distribution/reference's ReferenceRegexp, anchored
_ALNUM = r"[a-z0-9]+"
_SEP = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = _ALNUM + r"(?:" + _SEP + _ALNUM + r")*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = r"(?:" + _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN_AND_PORT = _HOST + r"(?::[0-9]+)?"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}"
_REFERENCE: list = []


def is_image_reference(image: str) -> bool:
    """reference.ReferenceRegexp.MatchString (compiled on first use: it costs a millisecond)."""
    if not _REFERENCE:
        _REFERENCE.append(re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?", re.ASCII))
    return _REFERENCE[0].fullmatch(image) is not None

_ENV_VAR_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")


def parse_labels(spec: str) -> dict:
    """generate.ParseLabels: ``k=v,k2=v2``."""
    labels: dict[str, str] = {}
    for item in spec.split(","):
        parts = item.split("=")
        if len(parts) != 2:
            raise UsageError(f"unexpected label spec: {item}")
        if not parts[0]:
            raise UsageError("unexpected empty label key")
        labels[parts[0]] = parts[1]
    return dict(sorted(labels.items()))


def parse_annotations(items: list[str]) -> dict:
    out: dict[str, str] = {}
    for item in items:
        parts = item.split("=", 1)
        if len(parts) != 2 or not parts[0]:
            raise UsageError(f"invalid annotations format: {item}")
        out[parts[0]] = parts[1]
    return dict(sorted(out.items()))


def parse_envs(items: list[str]) -> list[dict]:
    envs = []
    for item in items:
        pos = item.find("=")
        if pos <= 0 or not _ENV_VAR_NAME.fullmatch(item[:pos]):
            raise UsageError(f"invalid env: {item}")
        env = {"name": item[:pos]}
        if item[pos + 1:]:
            env["value"] = item[pos + 1:]
        envs.append(env)
    return envs


# ---------------------------------------------------------------------------------------------
# the generators: dicts in Go struct field order, omitempty fields left out


def container_name(image: str, rng=None) -> str:
    """create deployment's buildPodSpec: the image's last path element, without tag or digest;
    with ``_`` or ``.`` in it, sanitised and given a random 5-character suffix."""
    name = image.split("/")[-1]
    if ":" in name:
        name = name.split(":")[0]
    if "@" in name:
        name = name.split("@")[0]
    if "_" in name or "." in name:
        from kubesim.api.names import random_string

        if rng is None:
            import random

            rng = random.Random()
        name = name.replace("_", "-").replace(".", "-") + "-" + random_string(rng)
    return name


def _meta(name: str, namespace: str | None = None, labels: dict | None = None,
          annotations: dict | None = None) -> dict:
    md: dict = {}
    if name:
        md["name"] = name
    if namespace:
        md["namespace"] = namespace
    if labels:
        md["labels"] = labels
    if annotations:
        md["annotations"] = annotations
    return md


def deployment(name: str, images: list[str], replicas: int = 1, port: int = -1, command: list[str] | None = None,
               namespace: str | None = None, rng=None) -> dict:
    """``kubectl create deployment``'s object (createDeployment)."""
    containers = []
    for i, image in enumerate(images):
        c: dict = {"name": container_name(image, rng)}
        if image:
            c["image"] = image
        if command:
            c["command"] = list(command)
        if i == 0 and port >= 0:
            c["ports"] = [{"containerPort": port}]
        c["resources"] = {}
        containers.append(c)
    return {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": _meta(name, namespace, {"app": name}),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
            "strategy": {},
        },
        "status": {},
    }


def namespace_object(name: str) -> dict:
    """``kubectl create namespace``'s object."""
    return {"kind": "Namespace", "apiVersion": "v1", "metadata": _meta(name), "spec": {}, "status": {}}


def priority_class(name: str, value: int = 0, global_default: bool = False, description: str = "",
                   preemption_policy: str = "PreemptLowerPriority") -> dict:
    """``kubectl create priorityclass``'s object."""
    pc: dict = {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": _meta(name),
                "value": value}
    if global_default:
        pc["globalDefault"] = True
    if description:
        pc["description"] = description
    pc["preemptionPolicy"] = preemption_policy
    return pc


_PDB_VALUE = re.compile(r"^[0-9]+%?$")


def parse_int_or_string(val: str):
    """intstr.Parse: an int32 when the text is one, else the string."""
    if re.fullmatch(r"[+-]?[0-9]+", val):
        n = int(val)
        if -2**31 <= n < 2**31:
            return n
    return val


def parse_to_label_selector(text: str) -> dict:
    """metav1.ParseToLabelSelector: ``=``/``==`` become matchLabels, the other operators
    matchExpressions (in key order, values sorted, as labels.Parse leaves them)."""
    from kubesim.api import selectors

    try:
        parsed = selectors.parse_label_selector(text)
    except ValueError as e:
        raise UsageError(f"couldn't parse the selector string \"{text}\": {e}") from None
    match_labels: dict = {}
    exprs: list = []
    ops = {"in": "In", "notin": "NotIn", "exists": "Exists", "!": "DoesNotExist"}
    for req in parsed.requirements:
        if req.operator in ("=", "=="):
            match_labels[req.key] = req.values[0]
        elif req.operator in ops:
            e: dict = {"key": req.key, "operator": ops[req.operator]}
            if req.values:
                e["values"] = list(req.values)
            exprs.append(e)
        else:
            raise UsageError(f'"{req.operator}" is not a valid label selector operator')
    sel: dict = {}
    if match_labels:
        sel["matchLabels"] = match_labels
    if exprs:
        sel["matchExpressions"] = exprs
    return sel


def pod_disruption_budget(name: str, selector: dict, min_available: str = "", max_unavailable: str = "",
                          namespace: str | None = None) -> dict:
    """``kubectl create poddisruptionbudget``'s object (policy/v1 struct order)."""
    spec: dict = {}
    if min_available:
        spec["minAvailable"] = parse_int_or_string(min_available)
    spec["selector"] = selector
    if not min_available and max_unavailable:
        spec["maxUnavailable"] = parse_int_or_string(max_unavailable)
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": _meta(name, namespace),
            "spec": spec, "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                     "expectedPods": 0}}


def pod(name: str, image: str, labels: dict | None = None, annotations: dict | None = None,
        env: list[dict] | None = None, port: int | None = None, restart: str = "", command: bool = False,
        args: list[str] | None = None, image_pull_policy: str = "", privileged: bool = False,
        namespace: str | None = None) -> dict:
    """``kubectl run``'s object (the run-pod/v1 generator, BasicPod)."""
    c: dict = {"name": name}
    if image:
        c["image"] = image
    if args:
        c["command" if command else "args"] = list(args)
    if port is not None:
        c["ports"] = [{"containerPort": port}]
    if env:
        c["env"] = env
    c["resources"] = {}
    if image_pull_policy:
        c["imagePullPolicy"] = image_pull_policy
    if privileged:
        c["securityContext"] = {"privileged": True}
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": _meta(name, namespace, labels if labels is not None else {"run": name}, annotations),
        "spec": {"containers": [c], "restartPolicy": restart or "Always", "dnsPolicy": "ClusterFirst"},
        "status": {},
    }


# ---------------------------------------------------------------------------------------------
# printing


def typed_json(obj) -> str:
    """kubectl's JSON printer on a typed object: fields in the order given (Go struct order),
    four-space indent, Go's HTML-safe escaping."""
    text = json.dumps(obj, indent=4, ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text + "\n"


# kind → (``-o name`` prefix, the resource a typed client posts to)
_KIND_NAMES = {"Deployment": ("deployment.apps", "deployments.apps"), "Namespace": ("namespace", "namespaces"),
               "PriorityClass": ("priorityclass.scheduling.k8s.io", "priorityclasses.scheduling.k8s.io"),
               "PodDisruptionBudget": ("poddisruptionbudget.policy", "poddisruptionbudgets.policy"),
               "Pod": ("pod", "pods")}


def check_output(fmt: str | None) -> None:
    """PrintFlags.ToPrinter's verdict on ``-o``, before anything is generated."""
    if not fmt or fmt.lower() in ("yaml", "json", "name"):
        return
    if fmt in ("jsonpath=", "jsonpath-file="):
        raise UsageError("template format specified but no template given")
    if fmt.startswith(("jsonpath=", "jsonpath-file=")):
        return
    if fmt in ("go-template", "go-template-file", "template", "templatefile", "kyaml", "jsonpath-as-json") or \
            fmt.startswith(("go-template=", "go-template-file=", "template=", "templatefile=", "jsonpath-as-json=")):
        raise UsageError(f'kubesim does not support the output format "{fmt.split("=", 1)[0]}" yet; '
                         "use json, yaml, name or jsonpath")
    if fmt == "jsonpath":
        raise UsageError("template format specified but no template given")
    raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", '
                     f"allowed formats are: {_PRINT_FORMATS}")


def render(obj: dict, fmt: str | None, suffix: str, typed: bool) -> str:
    """The printed form of a generated (``typed``) or created object."""
    from kubesim.printers import output

    name = obj.get("metadata", {}).get("name") or "<unknown>"
    fmt = fmt.lower() if fmt and fmt.lower() in ("yaml", "json", "name") else fmt
    if not fmt:
        return f"{_KIND_NAMES[obj['kind']][0]}/{name} {suffix}\n"
    if fmt == "name":
        return f"{_KIND_NAMES[obj['kind']][0]}/{name}\n"
    if fmt == "yaml":
        return output.to_yaml(obj)
    if fmt == "json":
        return typed_json(obj) if typed else output.to_json(obj)
    from kubesim.printers import jsonpath

    template = fmt.split("=", 1)[1]
    if fmt.startswith("jsonpath-file="):
        with open(template) as f:
            template = f.read()
    try:
        parsed = jsonpath.parse(template)
    except ValueError as e:
        raise UsageError(f"error parsing jsonpath {template}, {e}") from None
    try:
        return parsed.execute(json.loads(json.dumps(obj)))
    except ValueError as e:
        raise UsageError(str(e)) from None


# ---------------------------------------------------------------------------------------------
# commands


def usage_error(verb: str, message: str) -> UsageError:
    """cmdutil.UsageErrorf: the message and a pointer to the command's help."""
    return UsageError(f"{message}\nSee 'kubesim {verb} -h' for help and examples")


def _unknown_flag(verb: str, flag: str) -> UsageError:
    return UsageError(f"unknown flag: {flag}\nSee 'kubesim {verb} --help' for usage.")


def reject_generator_flags(args, verb: str = "create", allowed: tuple = ()) -> None:
    """Generator flags share the ``create`` parser; where a subcommand (or ``create -f``) does not
    take one, say so as cobra does."""
    for flags in _CREATE_FLAGS.values():
        for dest, flag in flags:
            if dest not in allowed and getattr(args, dest, None) is not None:
                raise _unknown_flag(verb, flag)
    if verb == "create" and getattr(args, "dry_run", None) is not None:
        raise _unknown_flag(verb, "--dry-run")


def _int32_flag(raw: str | None, verb: str, flag: str, default: int) -> int:
    if raw is None:
        return default
    try:
        return parse_go_int(raw, 32)
    except ValueError as e:
        raise _flag_error(verb, raw, flag, str(e)) from None


def create_generated(f, args, env) -> int:
    """``create deployment|namespace|priorityclass NAME ...``."""
    what = _CREATE_ALIASES.get(args.what[0])
    if what is None:
        raise usage_error("create", "Unexpected args: [" + " ".join(args.what) + "]")
    verb = f"create {what}"
    reject_generator_flags(args, verb, tuple(dest for dest, _ in _CREATE_FLAGS[what]) + ("dry_run",))
    # cobra's flag parsing comes first: the int32 flags and the image CSV
    replicas = _int32_flag(args.replicas, verb, "-r, --replicas", 1)
    port = _int32_flag(args.port, verb, "--port", -1)
    value = _int32_flag(args.value, verb, "--value", 0)
    images: list[str] = []
    for raw in args.image or []:
        try:
            images += read_csv_line(raw)
        except ValueError as e:
            raise _flag_error(verb, raw, "--image", str(e)) from None
    if what == "deployment" and args.image is None:
        raise UsageError('required flag(s) "image" not set')
    names = args.what[1:]
    if len(names) != 1:
        raise usage_error(verb, f"exactly one NAME is required, got {len(names)}")
    name = names[0]
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
    command = list(getattr(args, "after_dashdash", None) or [])
    if what == "namespace" and not name:
        raise UsageError("name must be specified")
    if what == "deployment" and len(images) > 1 and command:
        raise UsageError("cannot specify multiple --image options and command")
    if what == "poddisruptionbudget":
        _validate_pdb_flags(name, args)

    if what == "deployment":
        def build(rng):
            return deployment(name, images, replicas, port, command, args.namespace if strategy == "client" else None, rng)
        wrap = "deployment"
    elif what == "namespace":
        def build(rng):
            return namespace_object(name)
        wrap = None
    elif what == "poddisruptionbudget":
        selector = parse_to_label_selector(args.selector_pdb)

        def build(rng):
            return pod_disruption_budget(name, selector, args.min_available or "", args.max_unavailable or "",
                                         args.namespace if strategy == "client" else None)
        wrap = "poddisruptionbudgets"
    else:
        def build(rng):
            return priority_class(name, value, bool(args.global_default), args.description or "",
                                  "PreemptLowerPriority" if args.preemption_policy is None else args.preemption_policy)
        wrap = "priorityclass"
    env.stdout.write(submit(f, args, env, build, strategy, wrap))
    return 0


def _validate_pdb_flags(name: str, args) -> None:
    """PodDisruptionBudgetOpts.Validate."""
    min_a, max_u = args.min_available or "", args.max_unavailable or ""
    if not name:
        raise UsageError("name must be specified")
    if not args.selector_pdb:
        raise UsageError("a selector must be specified")
    if not min_a and not max_u:
        raise UsageError("one of min-available or max-unavailable must be specified")
    if min_a and max_u:
        raise UsageError("min-available and max-unavailable cannot be both specified")
    if min_a and not _PDB_VALUE.match(min_a):
        raise UsageError("invalid format specified for min-available")
    if max_u and not _PDB_VALUE.match(max_u):
        raise UsageError("invalid format specified for max-unavailable")


class _NoResource(StatusError):
    """What a typed client gets back when the server does not serve the resource (a bare 404)."""

    reason = "NotFound"

    def __init__(self, resource: str):
        super().__init__(f"the server could not find the requested resource (post {resource})")


def submit(f, args, env, build, strategy: str, wrap: str | None) -> str:
    """Print the generated object (client dry run), or create it through the client (for a
    server dry run, in a session that is not committed) and print what the server returned."""
    import copy

    if strategy == "client":
        from kubesim.clock import make_random

        return render(build(make_random(0, env.vars)), args.output, "created (dry run)", typed=True)
    from kubesim.api import kinds

    try:
        with f.connect(commit=strategy != "server") as client:
            obj = build(client.rng)
            try:
                info = kinds.by_kind(obj["kind"])
            except KeyError:
                raise _NoResource(_KIND_NAMES[obj["kind"]][1]) from None
            if info.namespaced:
                obj["metadata"]["namespace"] = f.namespace()
            created = copy.deepcopy(client.create(obj, info))
            if strategy == "server":
                created.get("metadata", {}).pop("resourceVersion", None)
    except StatusError as e:
        if wrap is None:
            raise
        message = e.message
        if isinstance(e, Invalid):
            # a typed client names the kind with its group: Deployment.apps, PriorityClass.scheduling.k8s.io
            qualified = {"deployment": "Deployment.apps", "priorityclass": "PriorityClass.scheduling.k8s.io",
                         "poddisruptionbudgets": "PodDisruptionBudget.policy"}.get(wrap)
            kind = qualified.split(".")[0] if qualified else ""
            if qualified and message.startswith(kind + " "):
                message = qualified + message[len(kind):]
        raise UsageError(f"failed to create {wrap}: {message}") from None
    suffix = "created (server dry run)" if strategy == "server" else "created"
    return render(created, args.output, suffix, typed=False)
