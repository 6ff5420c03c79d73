"""Shell completion: ``kubesim completion bash|zsh|fish|powershell`` prints a script, and the
script asks ``kubesim __complete WORDS... CURRENT`` what may come next, as kubectl's scripts ask
``kubectl __complete`` (cobra's protocol).

The answer is one candidate per line (``value<TAB>description``; ``__completeNoDesc`` leaves the
descriptions out), then ``:N``, N the directive: 1 error, 2 no space after the word, 4 no file
names, 8 only files with the listed extensions, 16 only directories, 0 the shell's default. It
completes verbs, flags and their values (output formats, namespaces, contexts, clusters), resource
types (what ``api-resources -o name`` lists) and object names read from the state of the current
context's cluster — without settling it and without ever writing: completing must not change the
cluster, and it answers in a few tens of milliseconds.

Upstream: cobra ``completions.go`` (the ``__complete`` command, the directives, flag-name and
flag-value completion), ``bash_completionsV2.go``, ``zsh_completions.go``, ``fish_completions.go``,
``powershell_completions.go`` (how each shell drives it); kubectl ``pkg/util/completion/
completion.go`` (resource types, then names; ``type/name``; pods for logs; contexts and clusters
from the kubeconfig) and ``pkg/cmd/completion/completion.go`` (the verb and its errors).
"""

from __future__ import annotations

import argparse

from kubesim.errors import RawError

SHELLS = ("bash", "zsh", "fish", "powershell")

ERROR, NO_SPACE, NO_FILE, FILE_EXT, DIRS = 1, 2, 4, 8, 16
_DIRECTIVE_NAMES = ((ERROR, "ShellCompDirectiveError"), (NO_SPACE, "ShellCompDirectiveNoSpace"),
                    (NO_FILE, "ShellCompDirectiveNoFileComp"), (FILE_EXT, "ShellCompDirectiveFilterFileExt"),
                    (DIRS, "ShellCompDirectiveFilterDirs"))

GET_OUTPUTS = ("json", "yaml", "kyaml", "name", "go-template", "go-template-file", "template", "templatefile",
               "jsonpath", "jsonpath-as-json", "jsonpath-file", "custom-columns", "custom-columns-file", "wide")
PODS_OWNERS = ("daemonsets", "deployments", "pods", "jobs", "replicasets", "replicationcontrollers", "services",
               "statefulsets")

# verb -> how its positional arguments complete
_TYPE_AND_NAME = {"get", "describe", "delete", "edit", "label", "annotate", "patch", "wait"}
_ALLOWED_TYPES = {"scale": ("deployment", "replicaset", "replicationcontroller", "statefulset"),
                  "taint": ("node",)}
_NODE_NAMES = {"cordon", "uncordon", "drain"}
_POD_NAMES = {"logs", "explain-schedule"}
_SUBCOMMANDS = {
    "cluster": ("init", "reset", "info"),
    "node": ("stop", "start"),
    "completion": SHELLS,
    "create": ("configmap", "deployment", "namespace", "poddisruptionbudget", "priorityclass"),
    "set": ("image",),
    "rollout": ("history", "pause", "restart", "resume", "status", "undo"),
}
_ROLLOUT_TYPES = {"pause": ("deployment",), "resume": ("deployment",)}
_CONTEXT_ARGS = {"use-context", "use", "set-context", "rename-context", "delete-context", "get-contexts"}


# -- the completion verb -------------------------------------------------------------------

def add_flags(p):
    import argparse

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.description = (
        "Output shell completion code for the specified shell (bash, zsh, fish, or powershell).\n\n"
        "It completes verbs, flags, resource types and the names of the objects in the current context's "
        "cluster.\n\nExamples:\n"
        "  # bash, in this shell (add it to ~/.bashrc to keep it)\n"
        "  source <(kubesim completion bash)\n"
        "  # with an alias, as for kubectl\n"
        "  alias k=kubesim\n"
        "  complete -o default -F __start_kubesim k\n"
        "  # zsh (after compinit)\n"
        "  source <(kubesim completion zsh)\n"
        "  # fish\n"
        "  kubesim completion fish | source\n"
        "  # powershell\n"
        "  kubesim completion powershell | Out-String | Invoke-Expression")
    p.add_argument("shell", nargs="*", metavar="SHELL", help="bash, zsh, fish or powershell")


def run(f, args, env) -> int:
    hint = "\nSee 'kubesim completion -h' for help and examples"
    if not args.shell:
        raise RawError("error: Shell not specified." + hint)
    if len(args.shell) > 1:
        raise RawError("error: Too many arguments. Expected only the shell type." + hint)
    shell = args.shell[0]
    if shell not in SHELLS:
        raise RawError(f'error: Unsupported shell type "{shell}".' + hint)
    from kubesim.cli import completion_scripts

    env.stdout.write(getattr(completion_scripts, shell)("kubesim"))
    return 0


# -- __complete ----------------------------------------------------------------------------

def complete(argv: list[str], env, descriptions: bool = True) -> int:
    """Answer one ``__complete`` request; never fails, never writes the state."""
    words = list(argv) or [""]
    try:
        comps, directive = _complete(words[:-1], words[-1], env)
    except Exception:  # noqa: BLE001 - a completion request must never break the shell: no candidates
        comps, directive = [], ERROR
    lines = []
    for c in comps:
        value, _, desc = c.partition("\t")
        desc = desc.split("\n", 1)[0].strip()
        lines.append(f"{value}\t{desc}\n" if descriptions and desc else f"{value}\n")
    names = [n for bit, n in _DIRECTIVE_NAMES if directive & bit] or ["ShellCompDirectiveDefault"]
    try:
        env.stdout.write("".join(lines) + f":{directive}\n")
        env.stderr.write(f"Completion ended with directive: {', '.join(names)}\n")
    except BrokenPipeError:
        pass
    return 0


class _Line:
    """The words typed so far, read as the verb's parser would read them."""

    def __init__(self, done: list[str]):
        from kubesim.cli.main import _GLOBAL_VALUE_FLAGS, find_verb, verb_parser
        from kubesim.cli.verbs import VERBS

        i = find_verb(done)
        self.verb = done[i] if i is not None and done[i] in VERBS else None
        self.unknown_verb = i is not None and self.verb is None
        self.parser = verb_parser(self.verb) if self.verb else None
        self.value_flags = set(_GLOBAL_VALUE_FLAGS)
        self.flags: dict[str, argparse.Action] = {}
        if self.parser is not None:
            for a in self.parser._actions:
                for s in a.option_strings:
                    self.flags[s] = a
                    if a.nargs != 0 and not (a.nargs == "?" and a.const is not None):
                        self.value_flags.add(s)
        self.values: dict[str, str] = {}
        self.args: list[str] = []
        self.pending: str | None = None  # a flag still waiting for its value
        rest = done[:i] + done[i + 1:] if i is not None else done
        for w in rest:
            if self.pending:
                self.values[self.pending] = w
                self.pending = None
            elif w.startswith("-") and len(w) > 1:
                name, eq, value = w.partition("=")
                if eq:
                    self.values[name] = value
                elif name in self.value_flags:
                    self.pending = name
            else:
                self.args.append(w)

    def value(self, *names: str) -> str | None:
        return next((self.values[n] for n in names if n in self.values), None)


class _Args:
    """What the Factory reads of a command line, taken from the words typed so far."""

    def __init__(self, line: _Line):
        self.state = line.value("--state")
        self.kubeconfig = line.value("--kubeconfig")
        self.context = line.value("--context")
        self.cluster = line.value("--cluster") if line.verb != "config" else None
        self.namespace = line.value("-n", "--namespace")
        self.verbosity = 0
        self.request_timeout = None


def _complete(done: list[str], cur: str, env) -> tuple[list[str], int]:
    from kubesim.cli.session import Factory

    line = _Line(done)
    if line.unknown_verb:
        return [], NO_FILE
    f = Factory(_Args(line), env)
    if line.pending:
        return _flag_value(f, line, line.pending, cur)
    if cur.startswith("-") and "=" in cur:
        flag, _, value = cur.partition("=")
        comps, directive = _flag_value(f, line, flag, value)
        return comps, directive
    if cur.startswith("-"):
        return _flag_names(line, cur), NO_FILE
    if line.verb is None:
        from kubesim.cli.verbs import VERBS

        return [f"{n}\t{v.help}" for n, v in sorted(VERBS.items()) if n.startswith(cur)], NO_FILE
    return _positional(f, line, cur)


def _flag_names(line: _Line, cur: str) -> list[str]:
    from kubesim.cli.main import _globals

    actions = line.parser._actions if line.parser is not None else _global_actions(_globals)
    out, seen = [], set()
    for a in actions:
        if a.help == argparse.SUPPRESS or not a.option_strings or "-h" in a.option_strings:
            continue
        for s in sorted(a.option_strings, key=lambda s: (not s.startswith("--"), s)):
            if s.startswith(cur) and s not in seen:
                seen.add(s)
                out.append(f"{s}\t{a.help or ''}")
    return out


def _global_actions(add_globals) -> list[argparse.Action]:
    p = argparse.ArgumentParser(add_help=False)
    add_globals(p)
    return p._actions


def _flag_value(f, line: _Line, flag: str, cur: str) -> tuple[list[str], int]:
    if flag in ("-o", "--output"):
        formats = GET_OUTPUTS if line.verb == "get" else GET_OUTPUTS[:-1]
        return [o for o in formats if o.startswith(cur)], NO_FILE
    if flag in ("-n", "--namespace"):
        return _names(f, "namespaces", cur, namespaced=False), NO_FILE
    if flag in ("--context", "--cluster", "--user"):
        section = {"--context": "contexts", "--cluster": "clusters", "--user": "users"}[flag]
        return _kubeconfig_names(f, section, cur), NO_FILE
    if flag in ("-f", "--filename"):
        return ["json", "yaml", "yml"], FILE_EXT
    if flag == "--state":
        return [], DIRS
    if flag in ("-c", "--container") and line.verb == "logs":
        return (_containers(f, line.args[0], cur) if line.args else []), NO_FILE
    return [], 0


def _kubeconfig_names(f, section: str, cur: str) -> list[str]:
    return [n for n in sorted(f.kubeconfig().section(section)) if n.startswith(cur)]


def _positional(f, line: _Line, cur: str) -> tuple[list[str], int]:
    verb, args = line.verb, line.args
    if verb == "config":
        from kubesim.kubectl.cmd.config import SUBCOMMANDS

        if not args:
            return [f"{n}\t{h}" for n, h in SUBCOMMANDS.items() if n.startswith(cur)], NO_FILE
        sub = args[0]
        if len(args) == 1 and sub in _CONTEXT_ARGS:
            return _kubeconfig_names(f, "contexts", cur), NO_FILE
        if len(args) == 1 and sub in ("delete-cluster", "delete-user"):
            return _kubeconfig_names(f, "clusters" if sub == "delete-cluster" else "users", cur), NO_FILE
        return [], NO_FILE
    if verb in _SUBCOMMANDS and not args:
        return [n for n in _SUBCOMMANDS[verb] if n.startswith(cur)], NO_FILE
    if verb == "node" and len(args) == 1:
        return _names(f, "nodes", cur, namespaced=False), NO_FILE
    if verb == "rollout":
        allowed = _ROLLOUT_TYPES.get(args[0], ("deployment", "daemonset", "statefulset"))
        return _type_and_name(f, args[1:], cur, allowed, True)
    if verb == "set" and args[:1] == ["image"]:
        return _type_and_name(f, args[1:], cur, (), True)
    if verb in _TYPE_AND_NAME:
        return _type_and_name(f, args, cur, (), True)
    if verb in _ALLOWED_TYPES:
        return _type_and_name(f, args, cur, _ALLOWED_TYPES[verb], verb != "taint")
    if verb in _NODE_NAMES:
        return (_names(f, "nodes", cur, namespaced=False) if not args else []), NO_FILE
    if verb in _POD_NAMES:
        if not args:
            return _pod_names(f, cur)
        if verb == "logs" and len(args) == 1:
            return _containers(f, args[0], cur), NO_FILE
        return [], NO_FILE
    return [], NO_FILE


def _type_and_name(f, args: list[str], cur: str, allowed: tuple, repeat: bool) -> tuple[list[str], int]:
    """kubectl's resourceTypeAndNameCompletionFunc."""
    directive = NO_FILE
    if args and "/" not in args[0]:
        if repeat or len(args) == 1:
            taken = set(args[1:])
            return [n for n in _names(f, args[0], cur) if n not in taken], directive
        return [], directive
    slash = cur.find("/")
    if slash == -1:
        types = [t for t in allowed if t.startswith(cur)] if allowed else _resource_types(cur)
        if not args:
            return types, directive
        if repeat:
            return [t + "/" for t in types], directive | NO_SPACE
        return [], directive
    if repeat or not args:
        kind, prefix = cur[:slash], cur[slash + 1:]
        taken = set(args)
        return [c for c in (f"{kind}/{n}" for n in _names(f, kind, prefix)) if c not in taken], directive
    return [], directive


def _pod_names(f, cur: str) -> tuple[list[str], int]:
    """kubectl's doPodResourceCompletion: pod names, else ``type/`` of what runs pods."""
    slash = cur.find("/")
    if slash == -1:
        comps = _names(f, "pods", cur)
        if comps:
            return comps, NO_FILE
        return [t + "/" for t in PODS_OWNERS if t.startswith(cur)], NO_FILE | NO_SPACE
    kind, prefix = cur[:slash], cur[slash + 1:]
    return [f"{kind}/{n}" for n in _names(f, kind, prefix)], NO_FILE


def _containers(f, pod: str, cur: str) -> list[str]:
    """kubectl's CompGetContainers: the pod's init containers, then its containers."""
    from kubesim.api import kinds
    from kubesim.errors import KubesimError

    kind, _, name = pod.rpartition("/")
    if kind not in ("", "pod", "pods", "po"):
        return []
    try:
        if not f.cluster_exists():
            return []
    except KubesimError:
        return []
    with f.read() as client:
        obj = client.find(kinds.by_kind("Pod"), f.namespace(), name)
    spec = (obj or {}).get("spec") or {}
    names = [c.get("name", "") for key in ("initContainers", "containers") for c in spec.get(key) or []]
    return [n for n in names if n.startswith(cur)]


def _resource_types(cur: str) -> list[str]:
    """``api-resources -o name --verbs=get``, with kubectl's comma-separated lists (``pods,dep``)."""
    from kubesim.api import kinds

    head, _, tail = cur.rpartition(",")
    prefix = head + "," if head else ""
    infos = sorted((k for k in kinds.REGISTRY.all() if k.served and "get" in k.verbs),
                   key=lambda k: (k.group, k.plural))
    names = (f"{k.plural}{'.' + k.group if k.group else ''}" for k in infos)
    return [prefix + n for n in names if n.startswith(tail)]


def _names(f, resource: str, cur: str, namespaced: bool = True) -> list[str]:
    """The names of the objects of a resource type in the request's namespace, read from the
    state as it was last committed: no settle, no write, nothing when there is no state yet."""
    from kubesim.api import kinds
    from kubesim.errors import KubesimError

    try:
        info = kinds.lookup(resource)
        if not f.cluster_exists():
            return []
    except KubesimError:
        return []
    ns = f.namespace() if info.namespaced else None
    with f.read() as client:
        objs = client.list(info, ns)
    return [o["metadata"]["name"] for o in objs if o["metadata"]["name"].startswith(cur)]
