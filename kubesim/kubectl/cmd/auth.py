"""kubectl auth can-i|whoami.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/auth/cani.go (``CanIOptions``: Complete resolves
``TYPE[/NAME]`` through the REST mapper, warning, not failing, on a type the server does not
have; Validate's refusals and warnings; ``RunAccessCheck`` (a SelfSubjectAccessReview: ``yes``,
or ``no`` with the authorizer's reason, exit code 1) and ``RunAccessList`` (a
SelfSubjectRulesReview, its rules broken down, compacted and sorted as describe does, in
kubectl's tab writer)) and whoami.go (a SelfSubjectReview as a table, JSON or YAML). The
reviews go to the API server as the command's user, ``--as`` and ``--as-group`` included.
"""

from __future__ import annotations

from kubesim.errors import UsageError, client_error

_SUBCOMMANDS = ("can-i", "whoami")
RESOURCE_VERBS = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "use", "bind",
                  "impersonate", "*", "approve", "sign", "escalate", "attest"}
NON_RESOURCE_URL_VERBS = {"get", "put", "post", "head", "options", "delete", "patch", "*"}
NON_STANDARD_RESOURCE_NAMES = {"users", "groups"}


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="SUBCOMMAND [VERB TYPE[/NAME] | NONRESOURCEURL]")
    p.add_argument("-A", "--all-namespaces", action="store_true",
                   help="can-i: if true, check the specified action in all namespaces.")
    p.add_argument("-q", "--quiet", action="store_true", help="can-i: suppress output and just return the exit code.")
    p.add_argument("--subresource", default="", help="can-i: SubResource such as pod/log or deployment/scale")
    p.add_argument("--list", action="store_true", help="can-i: if true, prints all allowed actions.")
    p.add_argument("--no-headers", action="store_true", help="can-i: if true, prints allowed actions without headers")
    p.add_argument("-o", "--output", default=None, help="whoami: json or yaml")


def run(f, args, env) -> int:
    if not args.args:
        raise UsageError('a subcommand is required: one of "can-i", "whoami"\nSee \'kubesim auth --help\' for usage.')
    sub, words = args.args[0], args.args[1:]
    if sub not in _SUBCOMMANDS:
        raise client_error(f'unknown command "{sub}"\nSee \'kubesim auth -h\' for help and examples')
    f.impersonate()  # groups without a user are refused before anything is sent
    if sub == "whoami":
        return _whoami(f, args, env, words)
    return _can_i(f, args, env, words)


# -- can-i --------------------------------------------------------------------------------------

def _resource_for(arg: str, warn) -> tuple[str, str, bool | None]:
    """CanIOptions.resourceFor: (group, resource, namespaced) of ``TYPE``; a type the server does
    not have is sent as written, with a warning (but ``users`` and ``groups``)."""
    from kubesim.api import kinds

    if arg == "*":
        return "", "*", True
    try:
        info = kinds.lookup(arg.lower())
    except UsageError:
        resource, _, group = arg.lower().partition(".")
        if arg.lower() not in NON_STANDARD_RESOURCE_NAMES:
            warn(f"the server doesn't have a resource type '{resource}'" +
                 (f" in group '{group}'" if group else "") + "\n")
        return "", arg, None
    if not info.served:
        return "", arg, None
    return info.group, info.plural, info.namespaced


def _can_i(f, args, env, words) -> int:
    def warn(message: str) -> None:
        env.stderr.write(f"Warning: {message}\n")

    verb = resource = group = url = name = ""
    namespaced: bool | None = None
    if args.list:
        if words:
            raise client_error("list option must be specified with no arguments")
    elif len(words) != 2:
        raise client_error("you must specify two arguments: verb resource or verb resource/resourceName.\n"
                           "See 'kubesim auth can-i -h' for help and examples.")
    else:
        verb = words[0]
        if words[1].startswith("/"):
            url = words[1]
        else:
            type_, _, name = words[1].partition("/")
            group, resource, namespaced = _resource_for(type_, warn)
    namespace = "" if args.all_namespaces else f.namespace()
    # Validate
    if args.list:
        if args.quiet or args.all_namespaces or args.subresource:
            raise client_error("list option can't be specified with neither quiet, all-namespaces nor subresource "
                               "options")
        return _can_i_list(f, args, env, namespace)
    if url:
        if args.subresource:
            raise client_error("--subresource can not be used with NonResourceURL")
        if verb not in NON_RESOURCE_URL_VERBS:
            warn(f"verb '{verb}' is not a known verb\n")
    elif resource:
        if namespaced is False and not args.all_namespaces:
            warn(f"resource '{resource}' is not namespace scoped" + (f" in group '{group}'" if group else "") + "\n")
        if verb not in RESOURCE_VERBS:
            warn(f"verb '{verb}' is not a known verb\n")
    if args.no_headers:
        raise client_error("--no-headers cannot be set without --list specified")
    with f.connect(read_only=True) as client:
        client.self_review_allowed("authorization.k8s.io", "selfsubjectaccessreviews")
        if url:
            allowed, reason = client.access_review(verb, path=url)
        else:
            allowed, reason = client.access_review(verb, group, resource, args.subresource, namespace, name)
    if not args.quiet:
        env.stdout.write("yes\n" if allowed else ("no - " + reason if reason else "no") + "\n")
    return 0 if allowed else 1


def _can_i_list(f, args, env, namespace: str) -> int:
    from kubesim.kubectl.describe.rbac import (
        combine_resource_group,
        sorted_compact_rules,
    )
    from kubesim.printers.tabwriter import table_tabwrite

    with f.connect(read_only=True) as client:
        client.self_review_allowed("authorization.k8s.io", "selfsubjectrulesreviews")
        resource_rules, non_resource_rules, incomplete, error = client.rules_review(namespace)
    if incomplete:
        env.stderr.write(f"Warning: the list may be incomplete: {error}\n")
    rules = [{k: r.get(k) for k in ("verbs", "apiGroups", "resources", "resourceNames")} for r in resource_rules]
    rules += [{"verbs": r.get("verbs"), "nonResourceURLs": r.get("nonResourceURLs")} for r in non_resource_rules]
    lines = [] if args.no_headers else ["Resources\tNon-Resource URLs\tResource Names\tVerbs\n"]
    for r in sorted_compact_rules(rules):
        lines.append(f"{combine_resource_group(r.get('resources') or [], r.get('apiGroups') or [])}\t"
                     f"{_slice(r.get('nonResourceURLs'))}\t{_slice(r.get('resourceNames'))}\t{_slice(r.get('verbs'))}\n")
    env.stdout.write(table_tabwrite("".join(lines)))
    return 0


def _slice(v) -> str:
    return "[" + " ".join(v or []) + "]"


# -- whoami -------------------------------------------------------------------------------------

def _whoami(f, args, env, words) -> int:
    import json

    from kubesim.clock import format_time
    from kubesim.codec.dump import to_yaml
    from kubesim.printers.tabwriter import table_tabwrite

    if words:
        raise client_error(f"unknown command {words[0]!r} for \"kubesim auth whoami\"")
    out = args.output
    if out not in (None, "", "json", "yaml"):
        raise client_error(f'unable to match a printer suitable for the output format "{out}", allowed formats are: '
                           "json,yaml")
    with f.connect(read_only=True) as client:
        if not client.self_review_allowed("authentication.k8s.io", "selfsubjectreviews", raise_forbidden=False):
            raise client_error("the selfsubjectreviews API is not enabled in the cluster or you do not have "
                               "permission to call it")
        info = client.self_subject_review()
        now = client.now()
    if out in ("json", "yaml"):
        review = {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1",
                  "metadata": {"creationTimestamp": format_time(now)}, "status": {"userInfo": info}}
        if out == "yaml":
            env.stdout.write(to_yaml(review))
        else:
            text = json.dumps(review, indent=4, ensure_ascii=False)
            env.stdout.write(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n")
        return 0
    lines = ["ATTRIBUTE\tVALUE\n"]
    if info.get("username"):
        lines.append(f"Username\t{info['username']}\n")
    if info.get("uid"):
        lines.append(f"UID\t{info['uid']}\n")
    if info.get("groups"):
        lines.append(f"Groups\t{_slice(info['groups'])}\n")
    for k in sorted(info.get("extra") or {}):
        lines.append(f"Extra: {k}\t{_slice(info['extra'][k])}\n")
    env.stdout.write(table_tabwrite("".join(lines)))
    return 0
