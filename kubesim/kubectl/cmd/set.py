"""kubectl set image|env|resources|serviceaccount|selector|subject.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/set/ — set_image.go, set_env.go (with env/env_parse.go:
SplitEnvironmentFromResources, ParseEnv, and env_resolve.go's GetEnvVarRefString for ``--list``,
GetEnvVarRefValue for ``--resolve``; Secrets, which kubesim does not serve, are never found),
set_resources.go (parseResourceList), set_serviceaccount.go, set_selector.go
(updateSelectorForObject: only Services have a settable selector), set_subject.go (addSubjects:
RoleBindings' and ClusterRoleBindings' subjects, never one twice), helper.go (selectContainers'
wildcards, updateEnv, CalculatePatches: an object the change leaves as it was is not sent nor
printed, except by ``set serviceaccount``) and polymorphichelpers/updatepodspec.go.

Each change is sent as an update of the object (kubectl sends a strategic merge patch of the same
difference); ``--dry-run=server`` prints the result without storing it.
"""

from __future__ import annotations

from kubesim.errors import StatusError, UsageError
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    add_dry_run,
    aggregate_lines,
    bool_flag,
    bool_flag_value,
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
    # set env, resources, serviceaccount, selector
    p.add_argument("-c", "--containers", default=None,
                   help="The names of containers in the selected pod templates to change - may use wildcards")
    p.add_argument("-e", "--env", action="append", default=None,
                   help="Specify a key-value pair for an environment variable to set into each container.")
    p.add_argument("--from", dest="from_", default=None,
                   help="The name of a resource from which to inject environment variables")
    p.add_argument("--prefix", default=None, help="Prefix to append to variable names")
    p.add_argument("--keys", action="append", default=None,
                   help="Comma-separated list of keys to import from specified resource")
    bool_flag(p, "--list")
    bool_flag(p, "--resolve")
    bool_flag(p, "--overwrite")
    p.add_argument("--limits", default=None,
                   help="The resource requirement requests for this container.  For example, 'cpu=100m,memory=256Mi'.")
    p.add_argument("--requests", default=None,
                   help="The resource requirement requests for this container.  For example, 'cpu=100m,memory=256Mi'.")
    p.add_argument("--resource-version", default=None,
                   help="If non-empty, the selectors update will only succeed if this is the current resource-version "
                        "for the object.")
    # set subject
    p.add_argument("--user", dest="subject_users", action="append", default=None,
                   help="Usernames to bind to the role")
    p.add_argument("--group", dest="subject_groups", action="append", default=None,
                   help="Groups to bind to the role")
    p.add_argument("--serviceaccount", dest="subject_serviceaccounts", action="append", default=None,
                   help="Service accounts to bind to the role")


# the flags only some subcommands have (dest -> (flag, subcommands)); any other is unknown there
_OWN_FLAGS = {
    "containers": ("--containers", ("env", "resources")), "env": ("--env", ("env",)),
    "from_": ("--from", ("env",)), "prefix": ("--prefix", ("env",)), "keys": ("--keys", ("env",)),
    "list": ("--list", ("env",)), "resolve": ("--resolve", ("env",)), "overwrite": ("--overwrite", ("env",)),
    "limits": ("--limits", ("resources",)), "requests": ("--requests", ("resources",)),
    "resource_version": ("--resource-version", ("selector",)),
    "selector": ("--selector", ("image", "env", "resources", "subject")),
    "subject_users": ("--user", ("subject",)), "subject_groups": ("--group", ("subject",)),
    "subject_serviceaccounts": ("--serviceaccount", ("subject",)),
    "record": ("--record", ("image", "resources", "serviceaccount", "selector")),
}


_SET_SUBCOMMANDS = ("env", "image", "resources", "selector", "serviceaccount", "sa", "subject")


def run(f, args, env) -> int:
    if not args.args:
        raise UsageError('a subcommand is required: "kubesim set image ..."\nSee \'kubesim set --help\' for usage.')
    sub, rest = args.args[0], args.args[1:]
    if sub not in _SET_SUBCOMMANDS:
        raise UsageError(f'unknown command "{sub}" for "kubesim set"')
    sub = {"sa": "serviceaccount"}.get(sub, sub)
    for dest, (flag, subs) in _OWN_FLAGS.items():
        if getattr(args, dest, None) is not None and sub not in subs:
            raise UsageError(f"unknown flag: {flag}\nSee 'kubesim set {sub} --help' for usage.")
    run_sub = {"image": _set_image, "env": _set_env, "resources": _set_resources,
               "serviceaccount": _set_serviceaccount, "selector": _set_selector,
               "subject": _set_subject}[sub]
    return run_sub(f, args, env, rest)


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


# -- shared ----------------------------------------------------------------------------------

def select_string(s: str, spec: str) -> bool:
    """helper.go selectString: ``*`` matches everything; otherwise the parts between ``*``s must
    appear in order, the first at the start and the last at the end."""
    if spec == "*":
        return True
    if "*" not in spec:
        return s == spec
    pos = 0
    parts = spec.split("*")
    for i, part in enumerate(parts):
        if not part:
            continue
        found = s.find(part, pos)
        if found < pos or (i == 0 and found != 0) or (i == len(parts) - 1 and len(s) != len(part) + found):
            return False
        pos = found + len(part)
    return True


def _containers(spec: dict, selector: str) -> list[dict]:
    """Regular containers then init containers whose names match ``selector``."""
    return [c for key in ("containers", "initContainers") for c in spec.get(key) or []
            if select_string(c.get("name", ""), selector)]


def _local_mutually_exclusive(args, dry: str) -> None:
    if args.local and dry == "server":
        raise UsageError("cannot specify --local and --dry-run=server - did you mean --dry-run=client?")


def _targets(f, client, args, env, resources: list[str], selector: str | None = None):
    return resolve(client, f, args, resources, True, args.filename, selector, args.all, stdin=env.stdin)


def _local_objects(args, env) -> list[tuple]:
    from kubesim.api import kinds
    from kubesim.codec.load import load

    if not args.filename:
        raise UsageError(NO_RESOURCES)
    return [(kinds.for_object(d.obj), d.obj) for d in load(args.filename, recursive=args.recursive, stdin=env.stdin)]


def _apply_changes(f, args, env, resources: list[str], mutate, operation: str, dry: str, *,
                   skip_unchanged: bool = True, patch_error: str = "", cause: str | None = None,
                   selector: str | None = None, validate=None) -> int:
    """Run ``mutate(info, copy) -> error text | None`` over the objects, then send (or, with
    ``--local`` or ``--dry-run=client``, only print) each one it changed, as CalculatePatches and
    the subcommands' Run loops do; errors are gathered and reported after the rest is done.
    ``validate(targets)``, when given, checks the options against the objects found before any
    is changed (set_subject.go's Validate runs after Complete has fetched them)."""
    import copy

    output = args.output

    def visit(targets, client):
        if validate is not None:
            validate(targets)
        lines, shown, errors = [], [], []
        for info, live in targets:
            new = copy.deepcopy(live)
            problem = mutate(info, new)
            if problem:
                plural = info.plural if info is not None else f"{live.get('kind', '').lower()}s"
                errors.append(f"error: {plural}/{live['metadata']['name']} {problem}\n")
                continue
            if skip_unchanged and comparable(new) == comparable(live):
                continue
            ph.record(new, cause)
            if client is not None and dry == "none":
                try:
                    new = client.update(info, new)
                except StatusError as e:
                    errors.append(f"{patch_error}{e.message}")
                    continue
            shown.append(new)
            if info is not None:
                lines.append(result_line(info, live, operation + dry_suffix(dry), output))
        return lines, shown, errors

    if args.local:
        lines, shown, errors = visit(_local_objects(args, env), None)
    else:
        with f.connect() as client:
            lines, shown, errors = visit(_targets(f, client, args, env, resources, selector), client)
    # what was changed stays changed and is printed; the errors follow (the Run loops' allErrs)
    print_result(env, output, shown, lines)
    if errors:
        raise aggregate_lines(errors)
    return 0


# -- set env -----------------------------------------------------------------------------------

def _is_env_argument(s: str) -> bool:
    import re

    return bool(re.fullmatch(r"(?s).+=.*", s)) or s.endswith("-")


def _parse_env(specs: list[str], stdin) -> tuple[list[dict], list[str]]:
    """env_parse.go ParseEnv: ``K=V`` to set, ``K-`` to remove, ``-`` to read ``K=V`` lines from
    standard input (``#`` starts a comment)."""
    from kubesim.api.content import env_var_name_errors
    from kubesim.errors import client_error

    env, remove, names = [], [], set()
    for spec in specs:
        if spec == "-":
            for line in stdin.read().splitlines():
                line = line.split("#", 1)[0]
                if "=" in line:
                    k, v = line.split("=", 1)
                    env.append({"name": k, "value": v})
        elif "=" in spec:
            k, v = spec.split("=", 1)
            errs = env_var_name_errors(k)
            if errs:
                raise client_error(f'"{k}" is not a valid key name: {";".join(errs)}')
            names.add(k)
            env.append({"name": k, "value": v})
        elif spec.endswith("-"):
            remove.append(spec[:-1])
        else:
            raise client_error(f"unknown environment variable: {spec}")
    if any(r in names for r in remove):
        raise client_error("can not both modify and remove the same environment variable in the same command")
    return env, remove


def _update_env(existing: list[dict], env: list[dict], remove: list[str]) -> list[dict]:
    """helper.go updateEnv: replaced in place, removed, new ones appended in order."""
    by_name = {}
    for e in env:
        by_name.setdefault(e["name"], e)
    covered, out = set(remove), []
    for e in existing:
        if e.get("name") in covered:
            continue
        if e.get("name") in by_name:
            covered.add(e["name"])
            out.append(by_name[e["name"]])
            continue
        out.append(e)
    for e in env:
        if e["name"] not in covered:
            covered.add(e["name"])
            out.append(e)
    return out


def _ref_string(source: dict) -> str:
    """env_resolve.go GetEnvVarRefString."""
    if source.get("configMapKeyRef"):
        r = source["configMapKeyRef"]
        return f"configmap {r.get('name', '')}, key {r.get('key', '')}"
    if source.get("secretKeyRef"):
        r = source["secretKeyRef"]
        return f"secret {r.get('name', '')}, key {r.get('key', '')}"
    if source.get("fieldRef"):
        return f"field path {source['fieldRef'].get('fieldPath', '')}"
    if source.get("resourceFieldRef"):
        r = source["resourceFieldRef"]
        prefix = f"{r['containerName']}/" if r.get("containerName") else ""
        return f"resource field {prefix}{r.get('resource', '')}"
    return "invalid valueFrom"


class _Unresolved(Exception):
    """Why a valueFrom reference could not be resolved (env_resolve.go's errors)."""


def _ref_value(source: dict, obj: dict, container: dict, client, namespace: str) -> str:
    """env_resolve.go GetEnvVarRefValue: a ConfigMap's or Secret's key, one of the object's own
    fields, or one of the container's resources (ceiling of value / divisor)."""
    import math

    from kubesim.api import kinds
    from kubesim.api.quantity import milli_value, value

    if source.get("secretKeyRef"):
        ref = source["secretKeyRef"]
        raise _Unresolved(f'secrets "{ref.get("name", "")}" not found')  # kubesim serves no Secrets
    if source.get("configMapKeyRef"):
        ref = source["configMapKeyRef"]
        cm = client.find(kinds.by_kind("ConfigMap"), namespace, ref.get("name", ""))
        if cm is None:
            raise _Unresolved(f'configmaps "{ref.get("name", "")}" not found')
        data = cm.get("data") or {}
        if ref.get("key") not in data:
            raise _Unresolved(f"key {ref.get('key')} not found in config map {ref.get('name')}")
        return data[ref["key"]]
    if source.get("fieldRef"):
        path = source["fieldRef"].get("fieldPath", "")
        md = obj.get("metadata") or {}
        if path.endswith("']") and "['" in path and not path.startswith("['"):
            base, key = path[:-2].split("['", 1)
            if base in ("metadata.annotations", "metadata.labels"):
                return (md.get(base.split(".")[1]) or {}).get(key, "")
            raise _Unresolved(f'fieldPath "{path}" does not support subscript')
        if path in ("metadata.annotations", "metadata.labels"):
            values = md.get(path.split(".")[1]) or {}
            return "\n".join(f'{k}="{values[k]}"' for k in sorted(values))
        if path in ("metadata.name", "metadata.namespace", "metadata.uid"):
            return md.get(path.split(".")[1], "")
        raise _Unresolved(f"unsupported fieldPath: {path}")
    if source.get("resourceFieldRef"):
        ref = source["resourceFieldRef"]
        divisor = str(ref.get("divisor") or "1")
        if divisor in ("0", ""):
            divisor = "1"
        group, _, name = str(ref.get("resource", "")).partition(".")
        have = ((container.get("resources") or {}).get(group) or {}).get(name, "0")
        if group in ("limits", "requests") and name == "cpu":
            return str(math.ceil(milli_value(have) / milli_value(divisor)))
        if group in ("limits", "requests") and (name in ("memory", "ephemeral-storage") or name.startswith("hugepages-")):
            return str(math.ceil(value(have) / value(divisor)))
        raise _Unresolved(f"Unsupported container resource : {ref.get('resource', '')}")
    raise _Unresolved("invalid valueFrom")


def _env_from(client, f, args, env_out, keys: list[str]) -> list[dict]:
    """``--from``: a variable per key of the ConfigMap (its name upper-cased, other characters
    made ``_``, with kubectl's warning), each a configMapKeyRef."""
    import re

    from kubesim.errors import client_error
    from kubesim.kubectl.resource import lookup, parse_targets

    out = []
    for _, obj in lookup(client, parse_targets([args.from_]), f.namespace()):
        if obj.get("kind") != "ConfigMap":
            raise client_error("unsupported resource specified in --from")
        for key in sorted(obj.get("data") or {}):
            if keys and key not in keys:
                continue
            name = re.sub(r"[^a-zA-Z0-9_]", "_", key).upper()
            if name != key:
                env_out.stderr.write(f"Warning: key {key} transferred to {name}\n")
            out.append({"name": name, "valueFrom": {"configMapKeyRef": {"name": obj["metadata"]["name"], "key": key}}})
    return out


def _set_env(f, args, env, words: list[str]) -> int:
    from kubesim.errors import client_error

    if args.all and args.selector:
        raise client_error("cannot set --all and --selector at the same time")
    resources, env_args = [], []
    for w in words:
        if _is_env_argument(w):
            env_args.append(w)
        elif env_args:
            raise client_error(f"all resources must be specified before environment changes: {' '.join(words)}")
        else:
            resources.append(w)
    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    _local_mutually_exclusive(args, dry)
    if not args.filename and not resources:
        raise client_error("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    listing = bool_flag_value(args.list, "--list")
    if listing and args.output:
        raise client_error("--list and --output may not be specified together")
    keys = [k for raw in args.keys or [] for k in raw.split(",") if k]
    if keys and not args.from_:
        raise client_error("when specifying --keys, a configmap or secret must be provided with --from")
    variables, remove = _parse_env((args.env or []) + env_args, env.stdin)
    overwrite = args.overwrite is None or bool_flag_value(args.overwrite, "--overwrite")
    selector = args.containers or "*"
    resolving = bool_flag_value(args.resolve, "--resolve")
    out: list[str] = []
    failures: list[str] = []
    reader: dict = {"client": None}  # what --resolve reads ConfigMaps through

    def mutate_with(from_vars):
        all_vars = variables + from_vars
        if args.prefix:
            all_vars = [dict(v, name=args.prefix + v["name"]) for v in all_vars]

        def mutate(info, obj):
            spec = ph.pod_spec_of(obj)
            if spec is None:
                return "the object is not a pod or does not have a pod template"
            containers = _containers(spec, selector)
            if not containers:
                env.stderr.write(f'Warning: {obj.get("kind")}/{obj["metadata"]["name"]} does not have any containers '
                                 f'matching "{selector}"\n')
                return None
            for c in containers:
                current = c.get("env") or []
                if not overwrite:
                    for v in all_vars:
                        old = next((e for e in current if e.get("name") == v["name"]), None)
                        if old is not None and old.get("value", "") != v.get("value", ""):
                            return f"'{old['name']}' already has a value ({old.get('value', '')}), and --overwrite is false"
                updated = _update_env(current, all_vars, remove)
                if updated:
                    c["env"] = updated
                else:
                    c.pop("env", None)
                if listing:
                    out.append(f"# {obj.get('kind')} {obj['metadata']['name']}, container {c.get('name')}\n")
                    unresolved: dict[str, list[str]] = {}
                    for e in updated:
                        if e.get("valueFrom") is None:
                            out.append(f"{e['name']}={e.get('value', '')}\n")
                            continue
                        if resolving:
                            try:
                                value = _ref_value(e["valueFrom"], obj, c, reader["client"], f.namespace())
                                out.append(f"{e['name']}={value}\n")
                                continue
                            except _Unresolved as problem:
                                unresolved.setdefault(str(problem), []).append(e["name"])
                        out.append(f"# {e['name']} from {_ref_string(e['valueFrom'])}\n")
                    failures.extend(sorted(f"error retrieving reference for {', '.join(sorted(names))}: {why}"
                                           for why, names in unresolved.items()))
            return None
        return mutate

    if listing:
        with f.connect(commit=False) as client:
            from_vars = _env_from(client, f, args, env, keys) if args.from_ else []
            targets = _local_objects(args, env) if args.local else \
                _targets(f, client, args, env, resources, args.selector)
            import copy

            mutate = mutate_with(from_vars)
            reader["client"] = client
            for _, obj in targets:
                mutate(None, copy.deepcopy(obj))
        env.stdout.write("".join(out))
        # the resolution errors are printed; RunEnv returns before it would report them as failures
        env.stderr.write("".join(line + "\n" for line in failures))
        return 0
    from_vars: list[dict] = []
    if args.from_:
        with f.connect(commit=False) as client:
            from_vars = _env_from(client, f, args, env, keys)
    return _apply_changes(f, args, env, resources, mutate_with(from_vars), "env updated", dry,
                          patch_error="failed to patch env update to pod template: ", selector=args.selector)


# -- set resources -----------------------------------------------------------------------------

def _resource_list(spec: str | None) -> dict[str, str]:
    """set_resources.go parseResourceList: ``name=quantity,...``, each quantity in canonical form."""
    from kubesim.api.quantity import canonical
    from kubesim.errors import client_error

    if not spec:
        return {}
    out = {}
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise client_error(f"invalid argument syntax {statement}, expected <resource>=<value>")
        try:
            out[parts[0]] = canonical(parts[1])
        except ValueError as e:
            raise client_error(str(e)) from None
    return out


def _set_resources(f, args, env, words: list[str]) -> int:
    from kubesim.errors import client_error

    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    cause = change_cause(args, ["set", "resources"] + words)
    record_warning(args, env)
    if args.local and words:
        raise UsageError("you must specify resources by --filename when --local is set.\n"
                         "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'")
    if not args.local and not words and not args.filename:
        raise UsageError(NO_RESOURCES)
    _local_mutually_exclusive(args, dry)
    if args.all and args.selector:
        raise client_error("cannot set --all and --selector at the same time")
    if not args.limits and not args.requests:
        raise client_error("you must specify an update to requests or limits (in the form of --requests/--limits)")
    limits, requests = _resource_list(args.limits), _resource_list(args.requests)
    selector = args.containers or "*"
    missing: list[str] = []

    def mutate(info, obj):
        spec = ph.pod_spec_of(obj)
        if spec is None:
            return "the object is not a pod or does not have a pod template"
        containers = _containers(spec, selector)
        if not containers:
            missing.append(f"error: unable to find container named {selector}")
        for c in containers:
            res = c.setdefault("resources", {})
            if limits:
                res.setdefault("limits", {}).update(limits)
            if requests:
                res.setdefault("requests", {}).update(requests)
        return None

    code = _apply_changes(f, args, env, words, mutate, "resource requirements updated", dry,
                          patch_error="failed to patch resources update to pod template ", cause=cause,
                          selector=args.selector)
    if missing:
        raise aggregate_lines(missing)
    return code


# -- set serviceaccount ------------------------------------------------------------------------

def _set_serviceaccount(f, args, env, words: list[str]) -> int:
    from kubesim.errors import client_error

    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    _local_mutually_exclusive(args, dry)
    cause = change_cause(args, ["set", "serviceaccount"] + words)
    record_warning(args, env)
    if not words:
        raise client_error("serviceaccount is required")
    name, resources = words[-1], words[:-1]
    if args.local and resources:
        raise UsageError("you must specify resources by --filename when --local is set.\n"
                         "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'")
    if not args.local and not resources and not args.filename:
        raise UsageError(NO_RESOURCES)

    def mutate(info, obj):
        spec = ph.pod_spec_of(obj)
        if spec is None:
            return "the object is not a pod or does not have a pod template"
        spec["serviceAccountName"] = name
        return None

    return _apply_changes(f, args, env, resources, mutate, "serviceaccount updated", dry, skip_unchanged=False,
                          patch_error="failed to patch ServiceAccountName ", cause=cause)


# -- set selector ------------------------------------------------------------------------------

def _set_selector(f, args, env, words: list[str]) -> int:
    from kubesim.api.selectors import parse_label_selector
    from kubesim.errors import client_error

    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    cause = change_cause(args, ["set", "selector"] + words)
    record_warning(args, env)
    if not words:
        raise client_error("one selector is required")
    resources, expression = words[:-1], words[-1]
    try:
        selector = parse_label_selector(expression)  # metav1.ParseToLabelSelector
    except ValueError as e:
        raise client_error(f'couldn\'t parse the selector string "{expression}": {e}') from None
    if not resources and not args.filename:
        raise UsageError(NO_RESOURCES)

    def mutate(info, obj):
        if obj.get("kind") != "Service":
            raise client_error("setting a selector is only supported for Services")
        obj.setdefault("spec", {})["selector"] = {r.key: r.values[0] for r in selector.requirements}
        if args.resource_version:
            obj["metadata"]["resourceVersion"] = args.resource_version

    return _apply_changes(f, args, env, resources, mutate, "selector updated", dry, skip_unchanged=False,
                          cause=cause)


# -- set subject -------------------------------------------------------------------------------

_RBAC_GROUP = "rbac.authorization.k8s.io"


def _subject_key(subject: dict) -> tuple:
    """rbacv1.Subject compared as a struct (set_subject.go contain): every field, empty if unset."""
    return tuple(subject.get(k) or "" for k in ("kind", "apiGroup", "name", "namespace"))


def _new_subjects(users: list[str], groups: list[str], serviceaccounts: list[str], namespace: str) -> list[dict]:
    """set_subject.go Run: each flag's values deduplicated and sorted (sets.List), users, then
    groups, then service accounts (an empty namespace is the current one)."""
    subjects = [{"kind": kind, "apiGroup": _RBAC_GROUP, "name": name}
                for kind, names in (("User", users), ("Group", groups)) for name in sorted(set(names))]
    for sa in sorted(set(serviceaccounts)):
        ns, name = sa.split(":")
        subjects.append({"kind": "ServiceAccount", "name": name, "namespace": ns or namespace})
    return subjects


def add_subjects(existing: list[dict], targets: list[dict]) -> tuple[bool, list[dict]]:
    """set_subject.go addSubjects: each target not already among the existing subjects is appended."""
    have = {_subject_key(s) for s in existing}
    updated = list(existing)
    for t in targets:
        if _subject_key(t) not in have:
            updated.append(t)
    return len(updated) != len(existing), updated


def _set_subject(f, args, env, words: list[str]) -> int:
    from kubesim.errors import client_error

    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    if args.local and words:
        raise UsageError("you must specify resources by --filename when --local is set.\n"
                         "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'")
    if not args.local and not words and not args.filename:
        raise UsageError(NO_RESOURCES)
    users, groups = args.subject_users or [], args.subject_groups or []
    serviceaccounts = args.subject_serviceaccounts or []
    namespace = f.namespace()

    def validate(targets):
        """set_subject.go Validate."""
        _local_mutually_exclusive(args, dry)
        if args.all and args.selector:
            raise client_error("cannot set --all and --selector at the same time")
        if not (users or groups or serviceaccounts):
            raise client_error("you must specify at least one value of user, group or serviceaccount")
        for sa in serviceaccounts:
            tokens = sa.split(":")
            if len(tokens) != 2 or not tokens[1]:
                raise client_error("serviceaccount must be <namespace>:<name>")
            if not tokens[0] and any(obj.get("kind") == "ClusterRoleBinding" for _, obj in targets):
                raise client_error("serviceaccount must be <namespace>:<name>, namespace must be specified")

    def mutate(info, obj):
        if obj.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
            return "setting subjects is only supported for RoleBinding/ClusterRoleBinding"
        subjects = _new_subjects(users, groups, serviceaccounts, namespace)
        changed, updated = add_subjects(obj.get("subjects") or [], subjects)
        if changed:
            obj["subjects"] = updated
        return None

    return _apply_changes(f, args, env, words, mutate, "subjects updated", dry,
                          patch_error="failed to patch subjects to rolebinding: ", selector=args.selector,
                          validate=validate)
