"""kubectl create: ``-f`` manifests, or a generator (``create deployment|namespace|priorityclass|
poddisruptionbudget|configmap|ingress NAME``, ``kubesim.kubectl.generate``): its flags share the parser,
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
from kubesim.kubectl.generate.ingress import ingress
from kubesim.kubectl.generate.ingress import validate as validate_ingress_flags
from kubesim.kubectl.generate.job import cronjob, job, job_from_cronjob
from kubesim.kubectl.generate.objects import (
    PDB_VALUE,
    deployment,
    metadata,
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
    from kubesim.kubectl.kustomize import add_flag

    add_flag(p)
    p.add_argument("-o", "--output", default=None,
                   help="output format: json|yaml|name|jsonpath=...|custom-columns=...")
    create_generator_args(p)  # create deployment|namespace|priorityclass|poddisruptionbudget|configmap


def run(f, args, env) -> int:
    if args.what:
        return create_generated(f, args, env)
    reject_generator_flags(args)  # the generators' flags share this parser
    from kubesim.kubectl.kustomize import validate

    validate(args)
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
    "ingress": (("ingress_class", "--class"), ("rule", "--rule"), ("default_backend", "--default-backend"),
                ("annotation", "--annotation")),
    "job": (("image", "--image"), ("from_", "--from")),
    "cronjob": (("image", "--image"), ("schedule", "--schedule"), ("restart", "--restart")),
    "secret generic": (("from_file", "--from-file"), ("from_literal", "--from-literal"),
                       ("from_env_file", "--from-env-file"), ("secret_type", "--type"), ("append_hash", "--append-hash")),
    "secret tls": (("tls_cert", "--cert"), ("tls_key", "--key"), ("append_hash", "--append-hash")),
    "secret docker-registry": (("from_file", "--from-file"), ("docker_username", "--docker-username"),
                               ("docker_password", "--docker-password"), ("docker_email", "--docker-email"),
                               ("docker_server", "--docker-server"), ("append_hash", "--append-hash")),
    "serviceaccount": (),
    "token": (("audience", "--audience"), ("duration", "--duration"), ("bound_object_kind", "--bound-object-kind"),
              ("bound_object_name", "--bound-object-name"), ("bound_object_uid", "--bound-object-uid")),
    "role": (("rbac_verb", "--verb"), ("rbac_resource", "--resource"), ("rbac_resource_name", "--resource-name")),
    "clusterrole": (("rbac_verb", "--verb"), ("rbac_resource", "--resource"), ("rbac_resource_name", "--resource-name"),
                    ("rbac_non_resource_url", "--non-resource-url"), ("rbac_aggregation_rule", "--aggregation-rule")),
    "rolebinding": (("rbac_role", "--role"), ("rbac_clusterrole", "--clusterrole"), ("rbac_user", "--user"),
                    ("rbac_group", "--group"), ("rbac_serviceaccount", "--serviceaccount")),
    "clusterrolebinding": (("rbac_clusterrole", "--clusterrole"), ("rbac_user", "--user"), ("rbac_group", "--group"),
                           ("rbac_serviceaccount", "--serviceaccount")),
    "service": (("tcp", "--tcp"), ("clusterip", "--clusterip"), ("node_port", "--node-port"),
                ("external_name", "--external-name")),
    "quota": (("quota_hard", "--hard"), ("quota_scopes", "--scopes")),
}


_CREATE_ALIASES = {"deployment": "deployment", "deploy": "deployment", "namespace": "namespace", "ns": "namespace",
                   "priorityclass": "priorityclass", "pc": "priorityclass",
                   "poddisruptionbudget": "poddisruptionbudget", "pdb": "poddisruptionbudget",
                   "configmap": "configmap", "cm": "configmap", "ingress": "ingress", "ing": "ingress",
                   "job": "job", "cronjob": "cronjob", "cj": "cronjob",
                   "secret": "secret", "serviceaccount": "serviceaccount", "sa": "serviceaccount",
                   "token": "token",
                   "role": "role", "clusterrole": "clusterrole", "rolebinding": "rolebinding",
                   "clusterrolebinding": "clusterrolebinding", "service": "service", "svc": "service",
                   "quota": "quota", "resourcequota": "quota"}


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
    g.add_argument("--class", dest="ingress_class", default=None, help="ingress: the Ingress Class to be used")
    g.add_argument("--rule", action="append", default=None, metavar="host/path=service:port[,tls[=secret]]",
                   help="ingress: a rule; a path ending in '*' is pathType=Prefix (repeatable)")
    g.add_argument("--default-backend", default=None, metavar="svcname:port", help="ingress: the default backend")
    g.add_argument("--annotation", action="append", default=None, metavar="KEY=VALUE",
                   help="ingress: an annotation to insert in the ingress (repeatable)")
    g.add_argument("--from", dest="from_", default=None, metavar="cronjob/NAME",
                   help="job: the CronJob whose job template the Job is made from")
    g.add_argument("--schedule", default=None, metavar="CRON", help="cronjob: the schedule, in the Cron format")
    g.add_argument("--restart", default=None, metavar="POLICY", help="cronjob: the job's restart policy (OnFailure)")
    g.add_argument("--type", dest="secret_type", default=None, help="secret generic: the type of secret to create")
    g.add_argument("--cert", dest="tls_cert", default=None, help="secret tls: path to PEM encoded public key certificate")
    g.add_argument("--key", dest="tls_key", default=None, help="secret tls: path to the certificate's private key")
    g.add_argument("--docker-username", default=None, help="secret docker-registry: username for the registry")
    g.add_argument("--docker-password", default=None, help="secret docker-registry: password for the registry")
    g.add_argument("--docker-email", default=None, help="secret docker-registry: email for the registry")
    g.add_argument("--docker-server", default=None, help="secret docker-registry: server location for the registry")
    g.add_argument("--audience", action="append", default=None, help="token: audience of the requested token (repeatable)")
    g.add_argument("--duration", default=None, help="token: requested lifetime of the issued token")
    g.add_argument("--bound-object-kind", default=None, help="token: Pod, Secret or Node to bind the token to")
    g.add_argument("--bound-object-name", default=None, help="token: name of the object to bind the token to")
    g.add_argument("--bound-object-uid", default=None, help="token: UID of the object to bind the token to")
    _rbac_generator_args(g)
    g.add_argument("--tcp", action="append", default=None, metavar="PORT[:TARGETPORT]",
                   help="service: port pairs (repeatable, comma-separated)")
    g.add_argument("--clusterip", default=None, metavar="IP", help="service clusterip: its cluster IP, or None (headless)")
    g.add_argument("--node-port", dest="node_port", default=None, metavar="PORT",
                   help="service nodeport: the node port of every port")
    g.add_argument("--external-name", dest="external_name", default=None, metavar="NAME",
                   help="service externalname: the external DNS name")
    g.add_argument("--hard", dest="quota_hard", default=None, metavar="key1=value1,key2=value2",
                   help="quota: a comma-delimited set of resource=quantity pairs that define a hard limit")
    g.add_argument("--scopes", dest="quota_scopes", default=None, metavar="Scope1,Scope2",
                   help="quota: a comma-delimited set of quota scopes that must all match each object tracked")
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
    if what == "secret":
        from kubesim.kubectl.cmd.create_secret import create_secret

        return create_secret(f, args, env)
    if what == "token":
        from kubesim.kubectl.cmd.create_token import create_token

        return create_token(f, args, env)
    if what == "service":
        return create_service(f, args, env)
    verb = f"create {what}"
    reject_generator_flags(args, verb, tuple(dest for dest, _ in _CREATE_FLAGS[what]) + ("dry_run",))
    if what in ("role", "clusterrole", "rolebinding", "clusterrolebinding"):
        return _create_rbac(f, args, env, what, verb)
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
    if what == "cronjob" and (args.image is None or args.schedule is None):
        missing = [n for n, v in (("image", args.image), ("schedule", args.schedule)) if v is None]
        raise UsageError("required flag(s) " + ", ".join(f'"{n}"' for n in missing) + " not set")
    names = args.what[1:]
    if len(names) != 1:
        raise usage_error(verb, f"exactly one NAME is required, got {len(names)}")
    name = names[0]
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
    command = list(getattr(args, "after_dashdash", None) or [])
    if what in ("namespace", "serviceaccount") and not name:
        raise UsageError("name must be specified")
    if what == "job":
        # CreateJobOptions.Validate
        if bool(args.image) == bool(args.from_):
            raise UsageError("either --image or --from must be specified")
        if command and args.from_:
            raise UsageError("cannot specify --from and command")
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
    if what == "ingress":
        validate_ingress_flags(args.rule or [], args.annotation or [], args.default_backend or "")

    if what == "serviceaccount":
        def build(rng):
            return {"kind": "ServiceAccount", "apiVersion": "v1",
                    "metadata": metadata(name, args.namespace if strategy == "client" else None)}
        wrap = "serviceaccount"
    elif what == "deployment":
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
    elif what == "ingress":
        ing = ingress(name, args.namespace if strategy == "client" else None, args.ingress_class or "",
                      args.rule or [], args.default_backend or "", args.annotation or [])

        def build(rng):
            return ing
        wrap = "ingress"
    elif what == "job":
        ns = args.namespace if strategy == "client" else None
        source = _from_cronjob(f, args.from_) if args.from_ else None

        def build(rng):
            if source is not None:
                return job_from_cronjob(name, source, ns)
            return job(name, args.image[-1], command, ns)
        wrap = "job"
    elif what == "cronjob":
        def build(rng):
            return cronjob(name, args.image[-1], args.schedule[-1] if isinstance(args.schedule, list) else args.schedule,
                           args.restart or "OnFailure", command, args.namespace if strategy == "client" else None)
        wrap = "cronjob"
    elif what == "quota":
        from kubesim.kubectl.generate.quota import resource_quota

        rq = resource_quota(name, args.namespace if strategy == "client" else None, args.quota_hard or "",
                            args.quota_scopes or "")

        def build(rng):
            return rq
        wrap = "quota"
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


def _from_cronjob(f, source: str) -> dict:
    """create job --from: the named CronJob, read from the server (with --dry-run=client too)."""
    from kubesim.api import kinds

    kind, _, name = source.partition("/")
    if not name:
        raise UsageError("resource(s) were provided, but no name was specified")
    info = kinds.lookup(kind)
    with f.connect(commit=False) as client:
        obj = client.get(info, f.namespace(), name)
    if info.kind != "CronJob":
        raise UsageError(f"unknown object type *v1.{info.kind}")
    return obj
def _rbac_generator_args(g) -> None:
    """Flags of ``create role|clusterrole|rolebinding|clusterrolebinding``."""
    g.add_argument("--verb", dest="rbac_verb", action="append", default=None, metavar="VERB[,VERB...]",
                   help="role, clusterrole: verb that applies to the resources contained in the rule")
    g.add_argument("--resource", dest="rbac_resource", action="append", default=None,
                   metavar="RESOURCE.GROUP/SUBRESOURCE[,...]", help="role, clusterrole: resource that the rule applies to")
    g.add_argument("--resource-name", dest="rbac_resource_name", action="append", default=None, metavar="NAME",
                   help="role, clusterrole: resource in the white list that the rule applies to (repeatable)")
    g.add_argument("--non-resource-url", dest="rbac_non_resource_url", action="append", default=None,
                   metavar="URL[,URL...]", help="clusterrole: a partial url that user should have access to")
    g.add_argument("--aggregation-rule", dest="rbac_aggregation_rule", action="append", default=None,
                   metavar="KEY=VALUE[,...]", help="clusterrole: an aggregation label selector for combining ClusterRoles")
    g.add_argument("--role", dest="rbac_role", default=None, help="rolebinding: Role this RoleBinding should reference")
    g.add_argument("--clusterrole", dest="rbac_clusterrole", default=None,
                   help="rolebinding, clusterrolebinding: ClusterRole this binding should reference")
    g.add_argument("--user", dest="rbac_user", action="append", default=None,
                   help="rolebinding, clusterrolebinding: usernames to bind to the role (repeatable)")
    g.add_argument("--group", dest="rbac_group", action="append", default=None,
                   help="rolebinding, clusterrolebinding: groups to bind to the role (repeatable)")
    g.add_argument("--serviceaccount", dest="rbac_serviceaccount", action="append", default=None,
                   metavar="NAMESPACE:NAME", help="rolebinding, clusterrolebinding: service accounts to bind (repeatable)")


def _create_rbac(f, args, env, what: str, verb: str) -> int:
    """``create role|clusterrole|rolebinding|clusterrolebinding NAME`` (kubesim.kubectl.generate.rbac)."""
    from kubesim.kubectl.generate import rbac

    if what == "clusterrolebinding" and args.rbac_clusterrole is None:
        raise UsageError('required flag(s) "clusterrole" not set')
    verbs = csv_flag(args.rbac_verb, verb, "--verb")
    resources = csv_flag(args.rbac_resource, verb, "--resource")
    urls = csv_flag(args.rbac_non_resource_url, verb, "--non-resource-url")
    aggregation = rbac.parse_aggregation_rule(args.rbac_aggregation_rule, verb)
    names = args.what[1:]
    if len(names) != 1:
        raise usage_error(verb, f"exactly one NAME is required, got {len(names)}")
    name = names[0]
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
    namespace = args.namespace if strategy == "client" else None
    users, groups, sas = args.rbac_user or [], args.rbac_group or [], args.rbac_serviceaccount or []
    if what == "role":
        obj = rbac.role(name, namespace, verbs, resources, args.rbac_resource_name or [], env.stderr.write)
        wrap = None
    elif what == "clusterrole":
        obj = rbac.cluster_role(name, verbs, resources, args.rbac_resource_name or [], urls, aggregation,
                                env.stderr.write)
        wrap = None
    elif what == "rolebinding":
        obj = rbac.role_binding(name, namespace, args.rbac_role or "", args.rbac_clusterrole or "", users, groups, sas)
        wrap = "rolebinding"
    else:
        obj = rbac.cluster_role_binding(name, args.rbac_clusterrole or "", users, groups, sas)
        wrap = "clusterrolebinding"

    def build(rng):
        return obj
    env.stdout.write(submit(f, args, env, build, strategy, wrap))
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
