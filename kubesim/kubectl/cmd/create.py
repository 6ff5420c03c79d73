"""kubectl create: ``-f`` manifests, or a generator (``create deployment|namespace|priorityclass|
poddisruptionbudget|configmap NAME``, ``kubesim.kubectl.generate``): its flags share the parser,
and those a generator does not take are refused as cobra refuses an unknown flag.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create.go and create_*.go (the flags and the
Complete/Validate steps of each generator).
"""

from __future__ import annotations

from kubesim.errors import UsageError
from kubesim.kubectl.cmd.util import dry_run_strategy
from kubesim.kubectl.generate.configmap import config_map
from kubesim.kubectl.generate.flags import (
    bool_flag,
    csv_flag,
    dry_run_flag,
    flag_error,
    int32_flag,
    read_csv_line,
    unknown_flag,
    usage_error,
)
from kubesim.kubectl.generate.objects import (
    PDB_VALUE,
    deployment,
    namespace_object,
    parse_to_label_selector,
    pod_disruption_budget,
    priority_class,
)
from kubesim.kubectl.generate.printing import check_output, submit


def add_flags(p):
    p.add_argument("what", nargs="*", help="deployment|namespace|priorityclass|poddisruptionbudget NAME")
    p.add_argument("-f", "--filename", action="append", help="file, directory or - for stdin")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-o", "--output", default=None,
                   help="output format: json|yaml|name|jsonpath=...|custom-columns=...")
    create_generator_args(p)  # create deployment|namespace|priorityclass|poddisruptionbudget|configmap


def run(f, args, env) -> int:
    if args.what:
        return create_generated(f, args, env)
    reject_generator_flags(args)  # the generators' flags share this parser
    if not args.filename:
        raise UsageError("must specify one of -f and -k")
    from kubesim.kubectl.apply import create
    from kubesim.kubectl.cmd.apply import from_manifests

    return from_manifests(f, args, env, "create", create)


# The flags each `create` generator accepts, beyond -o/--dry-run and the global ones: (dest, flag).
_CREATE_FLAGS = {
    "deployment": (("image", "--image"), ("replicas", "--replicas"), ("port", "--port")),
    "namespace": (),
    "priorityclass": (("value", "--value"), ("global_default", "--global-default"),
                      ("description", "--description"), ("preemption_policy", "--preemption-policy")),
    "poddisruptionbudget": (("selector_pdb", "--selector"), ("min_available", "--min-available"),
                            ("max_unavailable", "--max-unavailable")),
    "configmap": (("from_file", "--from-file"), ("from_literal", "--from-literal"),
                  ("from_env_file", "--from-env-file"), ("append_hash", "--append-hash")),
    "service": (("tcp", "--tcp"), ("clusterip", "--clusterip"), ("node_port", "--node-port"),
                ("external_name", "--external-name")),
}


_CREATE_ALIASES = {"deployment": "deployment", "deploy": "deployment", "namespace": "namespace", "ns": "namespace",
                   "priorityclass": "priorityclass", "pc": "priorityclass",
                   "poddisruptionbudget": "poddisruptionbudget", "pdb": "poddisruptionbudget",
                   "configmap": "configmap", "cm": "configmap", "service": "service", "svc": "service"}


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
    g.add_argument("--from-file", action="append", default=None, metavar="[KEY=]SOURCE",
                   help="configmap: a file (key: its basename, or KEY), or a directory (each regular file)")
    g.add_argument("--from-literal", action="append", default=None, metavar="KEY=VALUE",
                   help="configmap: a key and literal value (repeatable)")
    g.add_argument("--from-env-file", action="append", default=None, metavar="FILE",
                   help="configmap: a file of KEY=VALUE lines (a Docker .env file)")
    bool_flag(g, "--append-hash", dest="append_hash", help="configmap: append a hash of the config map to its name")
    g.add_argument("--tcp", action="append", default=None, metavar="PORT[:TARGETPORT]",
                   help="service: port pairs (repeatable, comma-separated)")
    g.add_argument("--clusterip", default=None, metavar="IP", help="service clusterip: its cluster IP, or None (headless)")
    g.add_argument("--node-port", dest="node_port", default=None, metavar="PORT",
                   help="service nodeport: the node port of every port")
    g.add_argument("--external-name", dest="external_name", default=None, metavar="NAME",
                   help="service externalname: the external DNS name")
    dry_run_flag(g)


def reject_generator_flags(args, verb: str = "create", allowed: tuple = ()) -> None:
    """Generator flags share the ``create`` parser; where a subcommand (or ``create -f``) does not
    take one, say so as cobra does."""
    for flags in _CREATE_FLAGS.values():
        for dest, flag in flags:
            if dest not in allowed and getattr(args, dest, None) is not None:
                raise unknown_flag(verb, flag)
    if verb == "create" and getattr(args, "dry_run", None) is not None:
        raise unknown_flag(verb, "--dry-run")


def create_generated(f, args, env) -> int:
    """``create deployment|namespace|priorityclass NAME ...``."""
    what = _CREATE_ALIASES.get(args.what[0])
    if what is None:
        raise usage_error("create", "Unexpected args: [" + " ".join(args.what) + "]")
    if what == "service":
        return create_service(f, args, env)
    verb = f"create {what}"
    reject_generator_flags(args, verb, tuple(dest for dest, _ in _CREATE_FLAGS[what]) + ("dry_run",))
    # cobra's flag parsing comes first: the int32 flags and the image CSV
    replicas = int32_flag(args.replicas, verb, "-r, --replicas", 1)
    port = int32_flag(args.port, verb, "--port", -1)
    value = int32_flag(args.value, verb, "--value", 0)
    images: list[str] = []
    for raw in args.image or []:
        try:
            images += read_csv_line(raw)
        except ValueError as e:
            raise flag_error(verb, raw, "--image", str(e)) from None
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
    if what == "configmap":
        file_sources = csv_flag(args.from_file, verb, "--from-file")
        env_sources = csv_flag(args.from_env_file, verb, "--from-env-file")
        literal_sources = list(args.from_literal or [])
        if not name:
            raise UsageError("name must be specified")
        if env_sources and (file_sources or literal_sources):
            raise UsageError("from-env-file cannot be combined with from-file or from-literal")

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
    elif what == "configmap":
        cm = config_map(name, args.namespace if strategy == "client" else None, file_sources, literal_sources,
                        env_sources, bool(args.append_hash), env.vars)

        def build(rng):
            return cm
        wrap = "configmap"
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
    if min_a and not PDB_VALUE.match(min_a):
        raise UsageError("invalid format specified for min-available")
    if max_u and not PDB_VALUE.match(max_u):
        raise UsageError("invalid format specified for max-unavailable")


# the flags each `create service` subcommand takes, beyond --tcp
_SERVICE_FLAGS = {"clusterip": ("clusterip",), "nodeport": ("node_port",), "loadbalancer": (),
                  "externalname": ("external_name",)}


def create_service(f, args, env) -> int:
    """``create service clusterip|nodeport|loadbalancer|externalname NAME`` (create_service.go)."""
    from kubesim.kubectl.generate import service as gen
    from kubesim.kubectl.generate.flags import parse_go_int

    sub = args.what[1] if len(args.what) > 1 else None
    if sub not in gen.SERVICE_TYPES:
        # cobra: a parent command without Run prints its help (and refuses the flags it lacks)
        if sub is None and args.dry_run is None and args.output is None:
            env.stderr.write(gen.CREATE_SERVICE_HELP)
            return 1
        raise unknown_flag("create service", "--dry-run" if args.dry_run is not None else "--output")
    verb = f"create service {sub}"
    reject_generator_flags(args, verb, ("tcp", "dry_run") + _SERVICE_FLAGS[sub])
    node_port = 0
    if args.node_port is not None:
        try:
            node_port = parse_go_int(args.node_port, 64)
        except ValueError as e:
            raise flag_error(verb, args.node_port, "--node-port", str(e)) from None
    tcp = csv_flag(args.tcp, verb, "--tcp")
    if sub == "externalname" and args.external_name is None:
        raise UsageError('required flag(s) "external-name" not set')
    names = args.what[2:]
    if len(names) != 1:
        raise usage_error(verb, f"exactly one NAME is required, got {len(names)}")
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
    type_ = gen.SERVICE_TYPES[sub]
    gen.validate_create_service(type_, tcp, args.clusterip or "", args.external_name or "")
    svc = gen.created_service(names[0], type_, tcp, args.clusterip or "", node_port, args.external_name or "",
                              f.namespace() if f.explicit_namespace and strategy == "client" else None)

    def build(rng):
        return svc
    env.stdout.write(submit(f, args, env, build, strategy, f"{type_} service"))
    return 0
