"""kubectl exec: run a command in a container — simulated: kubesim has no containers, so the
pod's kubelet answers from the cluster's objects (kubesim.kubelet.exec: env, mounted files,
hostname, ...; kubesim.network: nslookup, wget, curl, dig, host through DNS, kube-proxy and
the NetworkPolicies).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/exec/exec.go — Complete (``exec [POD] [COMMAND] is
not supported anymore. Use exec [POD] -- [COMMAND] instead``), Validate (``pod, type/name or
--filename must be specified``, ``you must specify at least one command for the container``),
Run (a TYPE/NAME through polymorphichelpers.AttachablePodForObjectFn; ``cannot exec into a
container in a completed pod; current phase is P``; -c checked against the pod: ``container C
is not valid for pod P out of: ...``; pkg/cmd/util/podcmd FindOrDefaultContainerByName with the
``kubectl.kubernetes.io/default-container`` annotation and ``Defaulted container "x" out of:
x, y``; SetupTTY: ``Unable to use a TTY - input is not a terminal or the right kind of
file``); pkg/cmd/util/helpers.go CheckErr for client-go's exec.CodeExitError: ``command
terminated with exit code N`` and kubectl exits with N.

kubesim's own: ``--explain`` shows explain-network's hops for the network command instead of
running it; ``-i`` with a bare shell (``exec -i POD -- sh``) reads the commands from standard
input, one line each.
"""

from __future__ import annotations

from kubesim.errors import UsageError, client_error

DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
NOT_SUPPORTED = "exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead"
SHELLS = ("sh", "bash", "ash", "dash", "zsh")


def add_flags(p):
    from kubesim.kubectl.generate.flags import bool_flag

    p.add_argument("resources", nargs="*", metavar="(POD | TYPE/NAME)")
    p.add_argument("-c", "--container", default="",
                   help="Container name. If omitted, use the kubectl.kubernetes.io/default-container annotation for "
                        "selecting the container to be attached or the first container in the pod will be chosen")
    bool_flag(p, "-i", "--stdin", dest="stdin", help="Pass stdin to the container")
    bool_flag(p, "-t", "--tty", dest="tty", help="Stdin is a TTY")
    bool_flag(p, "-q", "--quiet", dest="quiet", help="Only print output from the remote session")
    p.add_argument("-f", "--filename", action="append", default=None, help="to use to exec into the resource")
    p.add_argument("--pod-running-timeout", default="1m0s",
                   help="The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod "
                        "is running")
    bool_flag(p, "--explain", dest="explain",
              help="kubesim: instead of running a network command (wget, curl, nslookup, ...), show each hop of "
                   "its connection (as explain-network)")


def _usage(message: str) -> UsageError:
    from kubesim.kubectl.generate.flags import usage_error

    return usage_error("exec", message)


def all_container_names(pod: dict) -> str:
    spec = pod.get("spec") or {}
    names = [c["name"] for c in spec.get("containers") or []]
    names += [f"{c['name']} (ephem)" for c in spec.get("ephemeralContainers") or []]
    names += [f"{c['name']} (init)" for c in spec.get("initContainers") or []]
    return ", ".join(names)


def _find(pod: dict, name: str) -> dict | None:
    spec = pod.get("spec") or {}
    for group in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(group) or ():
            if c.get("name") == name:
                return c
    return None


def container_name(pod: dict, name: str, quiet: bool, env) -> str:
    """Run's -c check, or FindOrDefaultContainerByName."""
    md = pod["metadata"]
    if name:
        if _find(pod, name) is None:
            raise client_error(f"container {name} is not valid for pod {md['name']} out of: {all_container_names(pod)}")
        return name
    containers = (pod.get("spec") or {}).get("containers") or []
    if not containers:
        raise client_error(f"pod {md.get('namespace')}/{md['name']} does not have any containers")
    default = (md.get("annotations") or {}).get(DEFAULT_CONTAINER_ANNOTATION, "")
    if default:
        if _find(pod, default) is None:
            raise client_error(f"container {default} is not valid for pod {md['name']} out of: "
                               f"{all_container_names(pod)}")
        return default
    spec = pod.get("spec") or {}
    if not quiet and (len(containers) > 1 or spec.get("initContainers") or spec.get("ephemeralContainers")):
        env.stderr.write(f'Defaulted container "{containers[0]["name"]}" out of: {all_container_names(pod)}\n')
    return containers[0]["name"]


def _pod(client, ns: str, resource: str) -> dict:
    """The pod named, or the one a TYPE/NAME stands for (AttachablePodForObjectFn)."""
    from kubesim.api import kinds

    pod_info = kinds.by_kind("Pod")
    if "/" not in resource:
        return client.get(pod_info, ns, resource)
    kind, name = resource.split("/", 1)
    try:
        info = kinds.lookup(kind)
    except (KeyError, LookupError, ValueError):
        raise client_error(f"the server doesn't have a resource type \"{kind}\"") from None
    obj = client.get(info, ns if info.namespaced else "", name)
    if obj.get("kind") == "Pod" or info.kind == "Pod":
        return obj
    from kubesim.kubectl.polymorphichelpers import by_logging, selector_for_object

    try:
        selector = selector_for_object(obj)
    except Exception:  # noqa: BLE001 - a kind without a selector
        raise client_error(f"cannot attach to {info.kind}: not implemented") from None
    pods = client.list(pod_info, ns, str(selector) or None) if not selector.matches_nothing else []
    if not pods:
        raise client_error("timed out waiting for the condition")
    return by_logging(pods)[0]


def _network_target(argv: list[str]) -> tuple[str, int, str] | None:
    """(host, port, protocol) a network command connects to, for --explain."""
    import re

    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    words = [a for a in argv[1:] if not a.startswith("-")]
    if name in ("wget", "curl"):
        skip_next = {"-T", "-m", "-O", "-o", "--max-time", "--connect-timeout", "--timeout", "-H", "-X", "-d"}
        url = None
        args = argv[1:]
        i = 0
        while i < len(args):
            if args[i] in skip_next:
                i += 2
                continue
            if not args[i].startswith("-"):
                url = args[i]
            i += 1
        if url is None:
            return None
        m = re.match(r"^(?:([a-zA-Z]+)://)?([^/:?#]*)(?::(\d+))?", url)
        scheme = (m.group(1) or "http").lower()
        port = int(m.group(3)) if m.group(3) else (443 if scheme == "https" else 80)
        return m.group(2), port, "TCP"
    if name in ("nslookup", "dig", "host") and words:
        return words[0], 53, "DNS"
    if name == "nc":
        args, positional, udp = argv[1:], [], False
        i = 0
        while i < len(args):
            a = args[i]
            if a.startswith("-") and len(a) > 1:
                udp = udp or "u" in a
                if a[-1] in "wpsio":  # an option whose value is the next word
                    i += 1
            else:
                positional.append(a)
            i += 1
        if len(positional) >= 2 and positional[1].isdigit():
            return positional[0], int(positional[1]), "UDP" if udp else "TCP"
    return None


def run(f, args, env) -> int:
    command = list(getattr(args, "after_dashdash", []) or [])
    resources = list(args.resources)
    dashed = bool(command) or "--" in (getattr(args, "_argv", None) or [])
    if not command and (len(resources) > 1 or (resources and args.filename)):
        raise _usage(NOT_SUPPORTED)
    if not dashed and not resources and not args.filename:
        raise client_error("pod, type/name or --filename must be specified")
    if not resources and not args.filename:
        raise client_error("pod, type/name or --filename must be specified")
    if args.filename:
        raise client_error("kubesim exec reads the pod from its name or TYPE/NAME, not from --filename")
    if not command:
        raise client_error("you must specify at least one command for the container")
    ns = f.namespace()
    with f.connect(read_only=True) as client:
        pod = _pod(client, ns, resources[0])
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Succeeded", "Failed"):
            raise client_error(f"cannot exec into a container in a completed pod; current phase is {phase}")
        container = container_name(pod, args.container, bool(args.quiet), env)
        if args.explain:
            return _explain(client, pod, command, env)
        if args.tty and args.stdin and not _stdin_is_tty(env) and not args.quiet:
            env.stderr.write("Unable to use a TTY - input is not a terminal or the right kind of file\n")
        md = pod["metadata"]
        elapsed = 0.0
        if args.stdin and len(command) == 1 and command[0].rsplit("/", 1)[-1] in SHELLS:
            code = 0
            for line in env.stdin.read().splitlines():
                if not line.strip():
                    continue
                if line.strip() == "exit":
                    break
                out, err, code, took = client.exec(md["namespace"], md["name"], container, [command[0], "-c", line])
                elapsed += took
                env.stdout.write(out)
                env.stderr.write(err)
        else:
            out, err, code, elapsed = client.exec(md["namespace"], md["name"], container, command)
            env.stdout.write(out)
            env.stderr.write(err)
    if elapsed > 0:
        # the command took that long on a node: the cluster moved on meanwhile
        with f.connect() as client:
            client.advance(elapsed)
    if code:
        env.stderr.write(f"command terminated with exit code {code}\n")
    return code


def _stdin_is_tty(env) -> bool:
    try:
        return env.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _explain(client, pod: dict, command: list[str], env) -> int:
    from kubesim.kubectl.cmd.explain_network import print_explanation

    target = _network_target(command)
    if target is None:
        raise client_error(f'--explain explains network commands (wget, curl, nc, nslookup, dig, host), not "{command[0]}"')
    host, port, protocol = target
    md = pod["metadata"]
    exp = client.explain_network(md["namespace"], md["name"], host, port if protocol != "DNS" else 53,
                                 "UDP" if protocol in ("DNS", "UDP") else "TCP")
    if protocol == "DNS":
        exp["hops"] = [h for h in exp["hops"] if h.get("step") == "dns"]
        exp["outcome"] = "connected" if exp["outcome"] not in ("unresolved", "dns-timeout", "dns-refused") else exp["outcome"]
    print_explanation(exp, "", env)
    return 0
