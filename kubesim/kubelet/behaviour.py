"""What a container does, derived from what it runs: kubesim has no containers, so each one's
behaviour is read from its command, arguments and image, the way a person reading the manifest
would predict it.

``behaviour(container, image_defaults) -> Behaviour`` is pure. It understands:

- ``sleep N`` (``N`` in seconds or with busybox/GNU suffixes ``s m h d``), ``sleep infinity``;
- ``true``, ``false``, ``exit N``, ``echo ...``, ``printf``, ``date``, ``hostname``, ``env``;
- ``sh -c '...'`` / ``bash -c`` scripts with ``;``, ``&&``, ``||``, ``while``/``until``/``for``
  loops, ``if``, variables and ``$((arithmetic))``, ``touch``/``rm``/``echo > file`` (tracked,
  so ``cat /tmp/healthy`` exec probes see the file come and go, as in the upstream
  ``exec-liveness.yaml`` example), ``nslookup``/``wget``/``curl``/``nc`` (which fail: kubesim
  has no cluster DNS), ``trap '...' TERM`` (kubesim.kubelet.shell runs them);
- images that serve forever when given no command (nginx, httpd, redis, ...), with the ports
  they listen on (httpGet/tcpSocket probes against other ports are refused; the catalogue is
  kubesim.kubelet.images);
- images whose default command exits at once (busybox, alpine, ubuntu, python, ...: a shell or
  REPL with no terminal reads end-of-file and exits 0) unless ``stdin: true``;
- a program the image does not have (kubesim.kubelet.imagefiles) cannot start: StartError; a
  script's command the image does not have is reported by its shell, status 127;
- ``stress --vm-bytes X`` above the memory limit is OOMKilled; ``registry.k8s.io/e2e-test-images/
  agnhost liveness`` answers 200 for 10 s then 500; ``hello-world`` prints its greeting.

Anything else (an unknown binary or image) runs until it is stopped and answers every probe.
The pod annotations of kubesim.kubelet.overrides change the result where kubesim cannot guess.

The effective command is resolved as the runtime resolves it (containerd's CRI plugin,
WithProcessArgs: ``command`` replaces the image's ENTRYPOINT and drops its CMD, ``args`` replaces
CMD); the environment is the container's ``env`` values plus the variables
pkg/kubelet/kubelet_pods.go makeEnvironmentVariables adds for the ``kubernetes`` Service.
"""

from __future__ import annotations

import json
import marshal
import re

from kubesim.api.quantity import mem_bytes
from kubesim.api.record import FrozenRecord
from kubesim.kubelet.images import HELLO_WORLD, SERVERS, ImageInfo, image_info
from kubesim.kubelet.overrides import apply_override
from kubesim.kubelet.shell import SHELLS, RunContext, run_program, script_argument

MAX_LOG_LINES = 10000
REPLS = {"python", "python3", "node", "irb", "jshell", "perl", "php", "ruby"}
PASSTHROUGH = {"/docker-entrypoint.sh", "docker-entrypoint.sh", "/entrypoint.sh", "entrypoint.sh",
               "/usr/local/bin/docker-entrypoint.sh", "tini", "/tini", "/bin/tini", "/usr/bin/tini", "dumb-init",
               "/usr/bin/dumb-init", "--", "exec", "env", "/usr/bin/env", "nohup"}


class Behaviour(FrozenRecord):
    """A container's deterministic timeline, relative to its start.

    ``exits_after`` is None when the process runs until it is stopped. ``files`` holds
    (path, created, removed-or-None) intervals, ``ports`` what it listens on (None: unknown,
    every probe connects). ``sigterm`` is "exit" (it exits with ``sigterm_exit_code`` when
    signalled) or "ignore" (PID 1 without a handler: SIGKILL at the end of the grace period,
    exit code 137)."""

    __slots__ = ("exit_code", "exits_after", "files", "http_fail_after", "output", "ports", "probes",
                 "program", "pull_error", "reason", "sigterm", "sigterm_exit_code", "source", "start_error")

    def __init__(self, exits_after: float | None = None, exit_code: int = 0, reason: str = "",
                 output: tuple[tuple[float, str], ...] = (), files: tuple[tuple[str, float, float | None], ...] = (),
                 ports: frozenset[int] | None = None, http_fail_after: float | None = None, sigterm: str = "exit",
                 sigterm_exit_code: int = 0, pull_error: str = "", start_error: str = "", probes: dict | None = None,
                 program: tuple | None = None, source: str = ""):
        self.exits_after = exits_after
        self.exit_code = exit_code
        self.reason = reason                        # "" = Completed/Error from the code; "OOMKilled"
        self.output = output
        self.files = files
        self.ports = ports
        self.http_fail_after = http_fail_after
        self.sigterm = sigterm
        self.sigterm_exit_code = sigterm_exit_code
        self.pull_error = pull_error                # "" or "notfound"
        self.start_error = start_error              # the runtime's error starting it (imagefiles)
        self.probes = {} if probes is None else probes  # probe kind -> overrides.ProbeOverride
        self.program = program                      # (argv, env, pod name) for logs of endless loops
        self.source = source

    def file_exists(self, path: str, offset: float) -> bool:
        for file, created, removed in self.files:
            if file == path and created <= offset and (removed is None or offset < removed):
                return True
        return False

    def file_changes(self, path: str) -> list[float]:
        out = []
        for file, created, removed in self.files:
            if file == path:
                out.append(created)
                if removed is not None:
                    out.append(removed)
        return sorted(set(out))

    def terminated_reason(self) -> str:
        if self.reason:
            return self.reason
        return "Completed" if self.exit_code == 0 else "Error"


def effective_argv(container: dict, image_defaults: dict | None = None) -> tuple[list[str], ImageInfo | None]:
    """ENTRYPOINT/CMD resolution as the runtime does it: ``command`` replaces the entrypoint
    (and drops the image CMD), ``args`` replaces CMD."""
    info = image_info(container.get("image") or "", image_defaults)
    command = [str(c) for c in container.get("command") or []]
    args = [str(a) for a in container.get("args") or []]
    if command:
        return command + args, info
    entry = list(info.entrypoint) if info else []
    cmd = args if args else (list(info.cmd) if info else [])
    return entry + cmd, info


def _strip_passthrough(argv: list[str]) -> list[str]:
    """Drop the init and entrypoint wrappers that hand over to the real program."""
    while argv and (argv[0] in PASSTHROUGH or argv[0].endswith("docker-entrypoint.sh")):
        argv = argv[1:]
    return argv


def _container_env(container: dict, pod_name: str) -> dict:
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME": pod_name,
           "HOME": "/root", "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443",
           "KUBERNETES_SERVICE_PORT_HTTPS": "443", "KUBERNETES_PORT": "tcp://10.96.0.1:443",
           "KUBERNETES_PORT_443_TCP": "tcp://10.96.0.1:443", "KUBERNETES_PORT_443_TCP_PROTO": "tcp",
           "KUBERNETES_PORT_443_TCP_PORT": "443", "KUBERNETES_PORT_443_TCP_ADDR": "10.96.0.1"}
    for e in container.get("env") or ():
        if isinstance(e, dict) and "value" in e:
            env[e.get("name", "")] = str(e.get("value") or "")
        elif isinstance(e, dict) and e.get("name"):
            env.setdefault(e["name"], "")
    return env


def _memory_limit(container: dict) -> int | None:
    lim = ((container.get("resources") or {}).get("limits") or {}).get("memory")
    if lim is None:
        return None
    try:
        return mem_bytes(lim)
    except (ValueError, TypeError):  # a limit the API server would have refused
        return None


_CACHE: dict[bytes | str, Behaviour] = {}
# json.dumps(value, sort_keys=True, default=str), the encoder built once: the text that tells
# two values alike (a key per container start here; a status compared by the pod workers)
canonical_text = json.JSONEncoder(sort_keys=True, default=str).encode

# the files a container's configMap and secret volumes hold ({path: text}), put on a copy of the
# container by the kubelet (kubelet_pods.with_resolved_env) for its programs to read
MOUNTED_FILES_KEY = "kubesim.io/mounted-files"


def behaviour(container: dict, image_defaults: dict | None = None, *, pod_name: str = "",
              override: dict | None = None, start: float = 0.0, resolve=None, network=None) -> Behaviour:
    """The behaviour of ``container`` (a pod spec container dict). ``image_defaults`` replaces
    the built-in ``images.IMAGES`` table; ``override`` is this container's entry of the pod's
    annotations (kubesim.kubelet.overrides). ``network(argv)`` answers the network tools its
    command runs (the cluster as it is now), for a command that names one. Pure but for
    ``network``, and memoised."""
    if network is not None and not uses_network(container):
        network = None
    if image_defaults is not None or resolve is not None or network is not None:
        return _derive(container, image_defaults, pod_name=pod_name, override=override, start=start, resolve=resolve,
                       network=network)
    # what the container does in any pod of its template (its run read neither the pod's name
    # nor its mounted files), else in this pod
    base = _memo_key([[container.get(f) for f in DERIVED_FROM], override, start])
    derived = _ANY_POD.get(base)
    if derived is not None:
        return derived
    key = _memo_key([container, pod_name, override, start])
    derived = _CACHE.get(key)
    if derived is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        if len(_ANY_POD) > 4096:
            _ANY_POD.clear()
        reads: list = []
        derived = _CACHE[key] = _derive(container, None, pod_name=pod_name, override=override, start=start,
                                        name_reads=reads)
        if not reads and derived.program is None:
            _ANY_POD[base] = derived
    return derived


def _memo_key(value) -> bytes | str:
    """What tells ``value`` (JSON-shaped) from any other for the memos: its marshalled form (a
    third of the cost of its canonical_text; it tells 1 from 1.0 and keeps the dicts' order,
    which only ever makes a miss, never a false hit), canonical_text for what marshal cannot
    write."""
    try:
        return marshal.dumps(value, 2)  # (version 2: no back-references)
    except ValueError:
        return canonical_text(value)


# behaviours whose run read neither the pod's name nor its files (shell.RunContext.pod_read),
# by what of the container ``_derive`` reads: the pods of one template (a Deployment's, a file
# of bare pods; their volume names differ) derive theirs once
_ANY_POD: dict[bytes | str, Behaviour] = {}
# every field of a container ``_derive`` reads, but for MOUNTED_FILES_KEY (the files, which the
# run reads or not)
DERIVED_FROM = ("image", "command", "args", "env", "resources", "stdin", "tty", "ports")


def uses_network(container: dict) -> bool:
    """Whether the container's command or args name a network tool (nslookup, wget, curl, ...)."""
    command, args = container.get("command"), container.get("args")
    if not command and not args:  # (an image's own program: most containers)
        return False
    from kubesim.kubelet.shell import NETWORK_TOOLS

    words = " ".join(str(a) for a in (command or []) + (args or []))
    return any(t in words for t in NETWORK_TOOLS)


def _derive(container: dict, image_defaults: dict | None = None, *, pod_name: str = "",
            override: dict | None = None, start: float = 0.0, resolve=None, network=None,
            name_reads: list | None = None) -> Behaviour:
    """``behaviour``'s derivation; ``name_reads``, when given, gets an entry when the
    container's program read the pod's name (its hostname) or its mounted files."""
    argv, info = effective_argv(container, image_defaults)
    from kubesim.kubelet.imagefiles import start_error

    cannot_start = start_error(argv, container.get("image") or "")
    if cannot_start:
        return _with_pull_error(Behaviour(exits_after=0.0, exit_code=128, reason="StartError", ports=frozenset(),
                                          start_error=cannot_start, source=" ".join(argv)), container)
    argv = _strip_passthrough(argv)
    env = _container_env(container, pod_name)
    source = " ".join(argv) if argv else ""
    derived = Behaviour(source=source)
    interactive = bool(container.get("stdin")) or bool(container.get("tty"))
    if not argv:
        derived = Behaviour(exits_after=None, sigterm="exit", ports=None, source="(image default)")
    else:
        head = argv[0].rsplit("/", 1)[-1]
        if head in SHELLS and script_argument(argv[1:]) is None and len(argv) == 1 or \
                (head in REPLS and len(argv) == 1):
            # a shell or REPL reading standard input: end-of-file at once unless stdin is kept open
            if interactive:
                derived = Behaviour(exits_after=None, sigterm="ignore", sigterm_exit_code=137, ports=frozenset(), source=source)
            else:
                derived = Behaviour(exits_after=0.0, exit_code=0, ports=frozenset(), source=source)
        elif head == "agnhost" or argv[0] == "/agnhost":
            derived = _agnhost(argv[1:], source)
        elif head == "hello" and info is not None and info.cmd == ("/hello",):
            derived = Behaviour(exits_after=0.0, exit_code=0, output=tuple((0.0, line) for line in HELLO_WORLD),
                          ports=frozenset(), source=source)
        elif head == "kubectl":
            derived = Behaviour(exits_after=0.0, exit_code=0 if len(argv) == 1 else 1,
                          output=((0.0, "kubectl controls the Kubernetes cluster manager."),), ports=frozenset(), source=source)
        elif head == "curl" and len(argv) == 1:
            derived = Behaviour(exits_after=0.0, exit_code=2,
                          output=((0.0, "curl: try 'curl --help' or 'curl --manual' for more information"),),
                          ports=frozenset(), source=source)
        elif head in ("postgres", "mysqld", "mariadbd") and not _database_configured(head, env):
            derived = _unconfigured_database(head, source)
        else:
            files = container.get(MOUNTED_FILES_KEY) or None
            ctx = RunContext(env=env, pod_name=pod_name, start=start, memory_limit=_memory_limit(container),
                             resolve=resolve, files=files, network=network,
                             not_found=_script_lookup(argv, container))
            run = run_program(argv, ctx)
            if ctx.pod_read and name_reads is not None:
                name_reads.append(True)
            output = tuple((t, line) for t, line in run.output[:MAX_LOG_LINES])
            if info is not None and run.serves and info.output and _same_program(argv, info):
                output = tuple((0.0, line) for line in info.output) + output
            ports = None if (run.unknown_app and not run.serves) else frozenset(run.ports)
            if run.serves and info is not None and info.ports is not None:
                ports = frozenset(set(info.ports) | set(run.ports)) if _same_program(argv, info) else frozenset(run.ports)
            program = None
            if run.duration is None and not run.serves:
                program = (tuple(argv), tuple(sorted(env.items())), pod_name, tuple(sorted((files or {}).items())))
            derived = Behaviour(
                exits_after=run.duration, exit_code=run.exit_code or 0,
                reason="OOMKilled" if run.oom else "", output=output,
                files=tuple(run.file_log), ports=ports,
                sigterm=run.sigterm,
                sigterm_exit_code=137 if run.sigterm == "ignore" else run.sigterm_exit_code,
                program=program, source=source)
            if run.duration is None and run.unknown_app and not run.serves and _unknown_program(argv):
                # an application kubesim does not know: it answers probes and stops when asked
                derived = derived._replace(ports=None, sigterm="exit", sigterm_exit_code=0)
    # container ports the app declares are where it listens, for servers and unknown apps
    if derived.ports is not None and derived.exits_after is None and derived.sigterm == "exit":
        declared = {int(p.get("containerPort")) for p in container.get("ports") or ()
                    if isinstance(p, dict) and str(p.get("containerPort", "")).isdigit()}
        if declared and derived.ports and not (declared & derived.ports) and info is None:
            derived = derived._replace(ports=frozenset(derived.ports | declared))
    if override:
        derived = apply_override(derived, override)
    return _with_pull_error(derived, container)


def _with_pull_error(derived: Behaviour, container: dict) -> Behaviour:
    if not derived.pull_error:
        from kubesim.kubelet.imagetags import pull_error

        if pull_error(container.get("image") or "") is not None:
            derived = derived._replace(pull_error="notfound")
    return derived


def _script_lookup(argv: list[str], container: dict):
    """How the script's shell looks its commands up in the image (imagefiles), for ``sh -c``."""
    head = argv[0].rsplit("/", 1)[-1] if argv else ""
    if head not in SHELLS:
        return None
    from kubesim.kubelet.imagefiles import not_found_in_script, programs_of

    image = container.get("image") or ""
    if programs_of(image) is None:
        return None
    return lambda exe: not_found_in_script(exe, image, head)


def _same_program(argv: list[str], info: ImageInfo) -> bool:
    return bool(info.cmd) and argv[0].rsplit("/", 1)[-1] == info.cmd[0].rsplit("/", 1)[-1]


def _unknown_program(argv: list[str]) -> bool:
    head = argv[0].rsplit("/", 1)[-1]
    return head not in SHELLS and head not in ("sleep", "stress", "while", "until") and head not in SERVERS


def _database_configured(head: str, env: dict) -> bool:
    if head == "postgres":
        return bool(env.get("POSTGRES_PASSWORD")) or env.get("POSTGRES_HOST_AUTH_METHOD") == "trust"
    keys = ("MYSQL_ROOT_PASSWORD", "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD",
            "MARIADB_ROOT_PASSWORD", "MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "MARIADB_RANDOM_ROOT_PASSWORD")
    return any(k in env for k in keys)


def _unconfigured_database(head: str, source: str) -> Behaviour:
    if head == "postgres":
        lines = ("Error: Database is uninitialized and superuser password is not specified.",
                 "       You must specify POSTGRES_PASSWORD to a non-empty value for the",
                 "       superuser. For example, \"-e POSTGRES_PASSWORD=password\" on \"docker run\".")
    else:
        lines = ("{ts:%Y-%m-%d %H:%M:%S+00:00} [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified",
                 "    You need to specify one of the following as an environment variable:",
                 "    - MYSQL_ROOT_PASSWORD", "    - MYSQL_ALLOW_EMPTY_PASSWORD", "    - MYSQL_RANDOM_ROOT_PASSWORD")
    return Behaviour(exits_after=0.0, exit_code=1, output=tuple((0.0, line) for line in lines),
                     ports=frozenset(), source=source)


def _agnhost(args: list[str], source: str) -> Behaviour:
    sub = args[0] if args else "pause"
    if sub == "liveness":
        # test/images/agnhost/liveness: /healthz answers 200 for 10 s, then 500
        # a Go program as PID 1: the runtime exits with status 2 on SIGTERM
        return Behaviour(exits_after=None, ports=frozenset({8080}), http_fail_after=10.0, sigterm_exit_code=2,
                         source=source)
    if sub in ("netexec", "serve-hostname", "porter", "test-webserver"):
        port = 8080 if sub != "serve-hostname" else 9376
        for a in args[1:]:
            m = re.match(r"--(?:http-)?port[=](\d+)", a)
            if m:
                port = int(m.group(1))
        return Behaviour(exits_after=None, ports=frozenset({port}), source=source)
    return Behaviour(exits_after=None, ports=frozenset(), source=source)
