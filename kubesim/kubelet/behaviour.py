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
  has no cluster DNS), ``trap '...' TERM``;
- images that serve forever when given no command (nginx, httpd, redis, ...), with the ports
  they listen on (httpGet/tcpSocket probes against other ports are refused);
- images whose default command exits at once (busybox, alpine, ubuntu, python, ...: a shell or
  REPL with no terminal reads end-of-file and exits 0) unless ``stdin: true``;
- ``stress --vm-bytes X`` above the memory limit is OOMKilled; ``registry.k8s.io/e2e-test-images/
  agnhost liveness`` answers 200 for 10 s then 500; ``hello-world`` prints its greeting.

Anything else (an unknown binary or image) runs until it is stopped and answers every probe.

Two pod annotations let a manifest say what kubesim cannot guess:

``kubesim.io/behaviour`` (JSON: container name, or ``"*"`` for all, to an override)::

    {"app": {"exitCode": 1, "after": "30s"}}    # exits with 1 thirty seconds after each start
    {"app": {"forever": true}}                  # runs until stopped
    {"app": {"oomKilled": true, "after": "5s"}} # terminated reason OOMKilled, exit code 137
    {"app": {"logs": ["ready", "serving"]}}     # printed at start (kubesim logs)
    {"app": {"sigterm": "ignore"}}              # "exit" (default for servers) or "ignore"
    {"app": {"ports": [8080]}}                  # what it listens on
    {"app": {"image": "notfound"}}              # ErrImagePull / ImagePullBackOff
    {"app": {"liveness": "fail"}}               # probe results: "fail", "pass",
    {"app": {"readiness": {"failAfter": "1m"}}} #   {"failAfter": d} or {"passAfter": d}

``kubesim.io/probe-failure`` (troubleshooting drills), a comma-separated list of
``[container:]probe[@delay]`` where probe is ``liveness``, ``readiness``, ``startup`` or
``all``: ``"liveness"``, ``"web:readiness"``, ``"liveness@30s"`` (passes for 30 s after each
container start, then fails). It is the same as the ``failAfter`` override above.

Durations are relative to each container start, so a restarted container repeats its behaviour.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import time as _time
from dataclasses import dataclass, field, replace

BEHAVIOUR_ANNOTATION = "kubesim.io/behaviour"
PROBE_FAILURE_ANNOTATION = "kubesim.io/probe-failure"
FOREVER = math.inf
MAX_STEPS = 20000          # interpreter steps before a program is taken to run forever
LOOP_CAP = 100             # iterations of one loop before it is taken to run forever (behaviour)
MAX_LOG_LINES = 10000


# --------------------------------------------------------------------------------------------
# the result


@dataclass(frozen=True)
class ProbeOverride:
    """A forced probe result: fail (or pass) from ``after`` seconds after the container start."""
    fail: bool
    after: float = 0.0


@dataclass(frozen=True)
class Behaviour:
    """A container's deterministic timeline, relative to its start.

    ``exits_after`` is None when the process runs until it is stopped. ``files`` holds
    (path, created, removed-or-None) intervals, ``ports`` what it listens on (None: unknown,
    every probe connects). ``sigterm`` is "exit" (it exits with ``sigterm_exit_code`` when
    signalled) or "ignore" (PID 1 without a handler: SIGKILL at the end of the grace period,
    exit code 137)."""

    exits_after: float | None = None
    exit_code: int = 0
    reason: str = ""                                   # "" = Completed/Error from the code; "OOMKilled"
    output: tuple[tuple[float, str], ...] = ()
    files: tuple[tuple[str, float, float | None], ...] = ()
    ports: frozenset[int] | None = None
    http_fail_after: float | None = None
    sigterm: str = "exit"
    sigterm_exit_code: int = 0
    pull_error: str = ""                               # "" or "notfound"
    probes: dict = field(default_factory=dict)         # probe kind -> ProbeOverride
    program: tuple | None = None                       # (argv, env, pod name) for logs of endless loops
    source: str = ""

    def file_exists(self, path: str, offset: float) -> bool:
        for p, a, b in self.files:
            if p == path and a <= offset and (b is None or offset < b):
                return True
        return False

    def file_changes(self, path: str) -> list[float]:
        out = []
        for p, a, b in self.files:
            if p == path:
                out.append(a)
                if b is not None:
                    out.append(b)
        return sorted(set(out))

    def terminated_reason(self) -> str:
        if self.reason:
            return self.reason
        return "Completed" if self.exit_code == 0 else "Error"


# --------------------------------------------------------------------------------------------
# images


@dataclass(frozen=True)
class ImageInfo:
    """What an image runs without a command: ENTRYPOINT and CMD, what it serves."""
    entrypoint: tuple[str, ...] = ()
    cmd: tuple[str, ...] = ()
    ports: tuple[int, ...] | None = None
    sigterm: str = "exit"
    output: tuple[str, ...] = ()


_SHELL_IMAGES = {
    "busybox": ("sh",), "alpine": ("/bin/sh",), "ubuntu": ("/bin/bash",), "debian": ("bash",),
    "centos": ("/bin/bash",), "fedora": ("/bin/bash",), "rockylinux": ("/bin/bash",),
    "almalinux": ("/bin/bash",), "amazonlinux": ("/bin/bash",), "oraclelinux": ("/bin/bash",),
    "archlinux": ("/usr/bin/bash",), "opensuse/leap": ("/bin/bash",), "bash": ("bash",),
    "python": ("python3",), "node": ("node",), "ruby": ("irb",), "golang": ("bash",),
    "openjdk": ("jshell",), "eclipse-temurin": ("jshell",), "perl": ("perl", "-de0"), "php": ("php", "-a"),
    "rust": ("bash",), "gcc": ("bash",), "buildpack-deps": ("bash",), "docker.io/library/busybox": ("sh",),
    "registry.k8s.io/busybox": ("sh",), "gcr.io/google-containers/busybox": ("sh",),
    "k8s.gcr.io/busybox": ("sh",), "radial/busyboxplus": ("/bin/sh",), "nicolaka/netshoot": ("zsh",),
}

NGINX_LOG = (
    "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
    "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
    "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
    "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
    "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
    "/docker-entrypoint.sh: Configuration complete; ready for start up",
    "{ts:%Y/%m/%d %H:%M:%S} [notice] 1#1: using the \"epoll\" event method",
    "{ts:%Y/%m/%d %H:%M:%S} [notice] 1#1: start worker processes",
)

HELLO_WORLD = (
    "", "Hello from Docker!", "This message shows that your installation appears to be working correctly.", "",
    "To generate this message, Docker took the following steps:",
    " 1. The Docker client contacted the Docker daemon.",
    " 2. The Docker daemon pulled the \"hello-world\" image from the Docker Hub.", "    (amd64)",
    " 3. The Docker daemon created a new container from that image which runs the",
    "    executable that produces the output you are currently reading.",
    " 4. The Docker daemon streamed that output to the Docker client, which sent it", "    to your terminal.", "",
    "To try something more ambitious, you can run an Ubuntu container with:",
    " $ docker run -it ubuntu bash", "", "Share images, automate workflows, and more with a free Docker ID:",
    " https://hub.docker.com/", "", "For more examples and ideas, visit:",
    " https://docs.docker.com/get-started/", "",
)

# image (repository without registry defaults and tag) -> what it runs
IMAGES: dict[str, ImageInfo] = {
    "nginx": ImageInfo(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), (80,), output=NGINX_LOG),
    "nginxinc/nginx-unprivileged": ImageInfo(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), (8080,)),
    "nginxdemos/hello": ImageInfo(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), (80,)),
    "httpd": ImageInfo((), ("httpd-foreground",), (80,)),
    "redis": ImageInfo(("docker-entrypoint.sh",), ("redis-server",), (6379,)),
    "memcached": ImageInfo(("docker-entrypoint.sh",), ("memcached",), (11211,)),
    "mongo": ImageInfo(("docker-entrypoint.sh",), ("mongod",), (27017,)),
    "postgres": ImageInfo(("docker-entrypoint.sh",), ("postgres",), (5432,)),
    "mysql": ImageInfo(("docker-entrypoint.sh",), ("mysqld",), (3306, 33060)),
    "mariadb": ImageInfo(("docker-entrypoint.sh",), ("mariadbd",), (3306,)),
    "rabbitmq": ImageInfo(("docker-entrypoint.sh",), ("rabbitmq-server",), (5672, 15672)),
    "traefik": ImageInfo(("/entrypoint.sh",), ("traefik",), (80, 8080)),
    "traefik/whoami": ImageInfo(("/whoami",), (), (80,)),
    "containous/whoami": ImageInfo(("/whoami",), (), (80,)),
    "caddy": ImageInfo((), ("caddy", "run", "--config", "/etc/caddy/Caddyfile"), (80,)),
    "haproxy": ImageInfo(("docker-entrypoint.sh",), ("haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"), (80,)),
    "tomcat": ImageInfo((), ("catalina.sh", "run"), (8080,)),
    "jenkins/jenkins": ImageInfo(("/usr/bin/tini", "--", "/usr/local/bin/jenkins.sh"), (), (8080, 50000)),
    "grafana/grafana": ImageInfo(("/run.sh",), (), (3000,)),
    "prom/prometheus": ImageInfo(("/bin/prometheus",), (), (9090,)),
    "registry": ImageInfo(("/entrypoint.sh",), ("/etc/docker/registry/config.yml",), (5000,)),
    "elasticsearch": ImageInfo(("/bin/tini", "--", "/usr/local/bin/docker-entrypoint.sh"), (), (9200, 9300)),
    "wordpress": ImageInfo(("docker-entrypoint.sh",), ("apache2-foreground",), (80,)),
    "kennethreitz/httpbin": ImageInfo((), ("gunicorn",), (80,)),
    "hashicorp/http-echo": ImageInfo(("/http-echo",), (), (5678,)),
    "k8s.gcr.io/echoserver": ImageInfo((), ("nginx",), (8080,)),
    "registry.k8s.io/echoserver": ImageInfo((), ("nginx",), (8080,)),
    "gcr.io/google-samples/hello-app": ImageInfo(("/hello-app",), (), (8080,)),
    "us-docker.pkg.dev/google-samples/containers/gke/hello-app": ImageInfo(("/hello-app",), (), (8080,)),
    "paulbouwer/hello-kubernetes": ImageInfo((), ("node", "server.js"), (8080,)),
    "registry.k8s.io/goproxy": ImageInfo(("/goproxy",), (), (8080,)),
    "k8s.gcr.io/goproxy": ImageInfo(("/goproxy",), (), (8080,)),
    "registry.k8s.io/pause": ImageInfo(("/pause",), (), ()),
    "k8s.gcr.io/pause": ImageInfo(("/pause",), (), ()),
    "registry.k8s.io/coredns/coredns": ImageInfo(("/coredns",), (), (53, 8080, 8181, 9153)),
    "registry.k8s.io/kube-proxy": ImageInfo((), ("kube-proxy",), (10249, 10256)),
    "registry.k8s.io/etcd": ImageInfo((), ("etcd",), (2379, 2380, 2381)),
    "registry.k8s.io/kube-apiserver": ImageInfo((), ("kube-apiserver",), (6443,)),
    "registry.k8s.io/kube-scheduler": ImageInfo((), ("kube-scheduler",), (10259,)),
    "registry.k8s.io/kube-controller-manager": ImageInfo((), ("kube-controller-manager",), (10257,)),
    "registry.k8s.io/e2e-test-images/agnhost": ImageInfo(("/agnhost",), ("pause",), ()),
    "polinux/stress": ImageInfo((), ("stress",), ()),
    "hello-world": ImageInfo((), ("/hello",), ()),
    "curlimages/curl": ImageInfo(("/entrypoint.sh",), ("curl",), ()),
    "bitnami/kubectl": ImageInfo(("kubectl",), (), ()),
    "registry.k8s.io/kubectl": ImageInfo(("kubectl",), (), ()),
    "envoyproxy/envoy": ImageInfo(("/docker-entrypoint.sh",), ("envoy", "-c", "/etc/envoy/envoy.yaml"), (10000,)),
    "consul": ImageInfo(("docker-entrypoint.sh",), ("agent", "-dev"), (8500,)),
    "hashicorp/consul": ImageInfo(("docker-entrypoint.sh",), ("agent", "-dev"), (8500,)),
    "vault": ImageInfo(("docker-entrypoint.sh",), ("server", "-dev"), (8200,)),
    "fluent/fluent-bit": ImageInfo(("/fluent-bit/bin/fluent-bit",), (), (2020,)),
    "fluentd": ImageInfo(("tini", "--", "/bin/entrypoint.sh"), ("fluentd",), (24224,)),
    "nats": ImageInfo(("/nats-server",), (), (4222, 8222)),
    "ghost": ImageInfo(("docker-entrypoint.sh",), ("node", "current/index.js"), (2368,)),
}
for _name, _cmd in _SHELL_IMAGES.items():
    IMAGES.setdefault(_name, ImageInfo((), _cmd, ()))

# commands that serve forever, with the ports they listen on
SERVERS = {
    "nginx": (80,), "httpd-foreground": (80,), "httpd": (80,), "apache2-foreground": (80,),
    "redis-server": (6379,), "memcached": (11211,), "mongod": (27017,), "postgres": (5432,),
    "mysqld": (3306,), "mariadbd": (3306,), "rabbitmq-server": (5672,), "traefik": (80,), "caddy": (80,),
    "haproxy": (80,), "catalina.sh": (8080,), "gunicorn": (80,), "/pause": (), "pause": (),
    "/coredns": (53, 8080, 8181), "coredns": (53, 8080, 8181), "kube-proxy": (10249, 10256),
    "etcd": (2379, 2380, 2381), "kube-apiserver": (6443,), "kube-scheduler": (10259,),
    "kube-controller-manager": (10257,), "/goproxy": (8080,), "/hello-app": (8080,), "/http-echo": (5678,),
    "/whoami": (80,), "envoy": (10000,), "/fluent-bit/bin/fluent-bit": (2020,), "/nats-server": (4222, 8222),
    "/bin/prometheus": (9090,), "/run.sh": (3000,), "kubelet": (10250,),
}
SHELLS = {"sh", "bash", "ash", "dash", "zsh", "ksh"}
REPLS = {"python", "python3", "node", "irb", "jshell", "perl", "php", "ruby"}
PASSTHROUGH = {"/docker-entrypoint.sh", "docker-entrypoint.sh", "/entrypoint.sh", "entrypoint.sh",
               "/usr/local/bin/docker-entrypoint.sh", "tini", "/tini", "/bin/tini", "/usr/bin/tini", "dumb-init",
               "/usr/bin/dumb-init", "--", "exec", "env", "/usr/bin/env", "nohup"}


def image_repository(image: str) -> str:
    """``docker.io/library/nginx:1.27`` -> ``nginx``; ``registry.k8s.io/pause:3.10`` ->
    ``registry.k8s.io/pause``: the key into :data:`IMAGES`."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    for prefix in ("docker.io/library/", "index.docker.io/library/", "library/", "docker.io/", "index.docker.io/"):
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    return name


def image_info(image: str, image_defaults: dict | None = None) -> ImageInfo | None:
    repo = image_repository(image)
    table = image_defaults if image_defaults is not None else IMAGES
    if repo in table:
        return table[repo]
    base = repo.rsplit("/", 1)[-1]
    if "/" in repo and base in table and base in _SHELL_IMAGES:
        return table[base]
    return None


# --------------------------------------------------------------------------------------------
# durations


_DUR_RE = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
_GO_DUR_RE = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")


def parse_sleep(arg: str) -> float | None:
    """busybox/GNU ``sleep`` operands: ``10``, ``1.5``, ``2m``, ``1h``, ``1d``, ``infinity``."""
    a = arg.strip()
    if a in ("infinity", "inf", "Infinity"):
        return FOREVER
    m = _DUR_RE.match(a)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def parse_duration(v) -> float:
    """``30``, ``"30s"``, ``"1m30s"``, ``"2h"`` -> seconds."""
    if isinstance(v, (int, float)):
        return float(v)
    s = str(v).strip()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        return float(s)
    total, pos = 0.0, 0
    for m in _GO_DUR_RE.finditer(s):
        if m.start() != pos:
            raise ValueError(f"invalid duration {v!r}")
        total += float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
        pos = m.end()
    if pos != len(s) or not s:
        raise ValueError(f"invalid duration {v!r}")
    return total


# --------------------------------------------------------------------------------------------
# the shell interpreter


class _Exit(Exception):
    def __init__(self, code: int):
        self.code = code


class _Forever(Exception):
    pass


class _Budget(Exception):
    pass


@dataclass
class Run:
    """One execution of a program: what it printed and did, and how it ended."""
    output: list = field(default_factory=list)         # (t, line)
    files: dict = field(default_factory=dict)          # path -> [created, removed|None, content]
    file_log: list = field(default_factory=list)       # (path, created, removed)
    exit_code: int | None = None
    duration: float | None = None                      # None: runs forever
    ports: set = field(default_factory=set)
    serves: bool = False
    sigterm: str = "ignore"
    sigterm_exit_code: int = 143
    oom: bool = False
    unknown_app: bool = False


@dataclass
class RunContext:
    env: dict
    pod_name: str = ""
    start: float = 0.0                                 # absolute time for `date`
    memory_limit: int | None = None
    resolve: object = None                             # callable(name) -> bool
    max_steps: int = MAX_STEPS
    until: float | None = None                         # stop (as if forever) past this offset
    loop_cap: int | None = LOOP_CAP                    # None: loops run until the step budget


class _Shell:
    """A small POSIX-sh subset, executed in simulated time."""

    def __init__(self, ctx: RunContext):
        self.ctx = ctx
        self.t = 0.0
        self.vars = dict(ctx.env)
        self.status = 0
        self.run = Run()
        self.steps = 0

    # ---- bookkeeping
    def tick(self):
        self.steps += 1
        if self.steps > self.ctx.max_steps:
            raise _Budget()
        if self.ctx.until is not None and self.t > self.ctx.until:
            raise _Budget()

    def out(self, line: str):
        self.run.output.append((self.t, line))

    def touch(self, path: str, content: str | None = None):
        f = self.run.files.get(path)
        if f is None:
            self.run.files[path] = [self.t, content or ""]
        elif content is not None:
            f[1] = content

    def rm(self, path: str):
        f = self.run.files.pop(path, None)
        if f is not None:
            self.run.file_log.append((path, f[0], self.t))

    # ---- parsing
    @staticmethod
    def tokenize(script: str) -> list[str]:
        script = re.sub(r"\d?>&\d", " ", script)
        script = re.sub(r"\d?>\s*/dev/null", " ", script)
        script = script.replace("\r", "")
        lex = shlex.shlex(script.replace("\n", " ; "), posix=True, punctuation_chars=";&|<>")
        lex.whitespace_split = True
        lex.commenters = "#"
        try:
            toks = list(lex)
        except ValueError:
            toks = script.replace("\n", " ; ").split()
        return toks

    def parse(self, toks: list[str]):
        self.toks, self.i = toks, 0
        node = self.p_list(())
        return node

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def p_list(self, stops):
        items = []
        while True:
            while self.peek() in (";", "&", ";;"):
                self.take()
            tok = self.peek()
            if tok is None or tok in stops:
                break
            items.append(self.p_andor(stops))
        return ("list", items)

    def p_andor(self, stops):
        left = self.p_pipeline(stops)
        while self.peek() in ("&&", "||"):
            op = self.take()
            right = self.p_pipeline(stops)
            left = (op, left, right)
        return left

    def p_pipeline(self, stops):
        cmds = [self.p_command(stops)]
        while self.peek() == "|":
            self.take()
            cmds.append(self.p_command(stops))
        return cmds[0] if len(cmds) == 1 else ("pipe", cmds)

    def p_command(self, stops):
        tok = self.peek()
        if tok in ("while", "until"):
            self.take()
            cond = self.p_list(("do",))
            self.take()
            body = self.p_list(("done",))
            self.take()
            return (tok, cond, body)
        if tok == "for":
            self.take()
            var = self.take()
            words = []
            if self.peek() == "in":
                self.take()
                while self.peek() not in (";", "do", None):
                    words.append(self.take())
            while self.peek() == ";":
                self.take()
            self.take()  # do
            body = self.p_list(("done",))
            self.take()
            return ("for", var, words, body)
        if tok == "if":
            self.take()
            branches = []
            cond = self.p_list(("then",))
            self.take()
            body = self.p_list(("elif", "else", "fi"))
            branches.append((cond, body))
            other = None
            while True:
                t = self.take()
                if t == "elif":
                    c = self.p_list(("then",))
                    self.take()
                    b = self.p_list(("elif", "else", "fi"))
                    branches.append((c, b))
                elif t == "else":
                    other = self.p_list(("fi",))
                else:
                    break
            return ("if", branches, other)
        if tok in ("{", "("):
            self.take()
            body = self.p_list(("}", ")"))
            self.take()
            return ("group", body)
        words, redirect = [], None
        while True:
            t = self.peek()
            if t is None or t in (";", "&", "&&", "||", "|", ";;") or (t in stops and not words):
                break
            if t in stops and t in ("done", "fi", "then", "do", "else", "elif", "}", ")"):
                break
            self.take()
            if t in (">", ">>"):
                redirect = (t, self.take())
                continue
            if t == "<":
                self.take()
                continue
            words.append(t)
        return ("cmd", words, redirect)

    # ---- expansion
    def expand(self, word: str) -> str:
        def arith(m):
            expr = re.sub(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
                          lambda v: str(self._num(self.vars.get(v.group(1), "0"))), m.group(1))
            try:
                if not re.fullmatch(r"[\d\s+\-*/%()]+", expr):
                    return "0"
                return str(int(eval(expr.replace("/", "//"), {"__builtins__": {}})))  # noqa: S307 - digits/operators only
            except Exception:
                return "0"

        word = re.sub(r"\$\(\((.*?)\)\)", arith, word)

        def subst(m):
            inner = m.group(1) or m.group(2) or ""
            return self.capture(inner)

        word = re.sub(r"\$\(([^()]*)\)|`([^`]*)`", subst, word)
        word = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}",
                      lambda m: self.vars.get(m.group(1)) or (m.group(2) or ""), word)
        word = re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*|\?|\$)",
                      lambda m: str(self.status) if m.group(1) == "?" else
                      ("1" if m.group(1) == "$" else self.vars.get(m.group(1), "")), word)
        return word

    @staticmethod
    def _num(v) -> int:
        try:
            return int(str(v).strip())
        except ValueError:
            return 0

    def capture(self, script: str) -> str:
        saved = self.run.output
        self.run.output = []
        try:
            self.exec(self.parse_script(script))
        except (_Exit, _Forever):
            pass
        lines = [line for _, line in self.run.output]
        self.run.output = saved
        return "\n".join(lines).strip()

    def parse_script(self, script: str):
        sub = _Shell(self.ctx)
        return sub.parse(self.tokenize(script))

    # ---- execution
    def exec(self, node):
        self.tick()
        kind = node[0]
        if kind == "list":
            for item in node[1]:
                self.exec(item)
        elif kind in ("&&", "||"):
            self.exec(node[1])
            if (self.status == 0) == (kind == "&&"):
                self.exec(node[2])
        elif kind == "pipe":
            saved = self.run.output
            for c in node[1][:-1]:
                self.run.output = []
                self.exec(c)
            self.run.output = saved
            self.exec(node[1][-1])
        elif kind in ("while", "until"):
            rounds = 0
            while True:
                self.tick()
                rounds += 1
                if self.ctx.loop_cap is not None and rounds > self.ctx.loop_cap:
                    raise _Forever()
                self.exec(node[1])
                ok = self.status == 0
                if ok != (kind == "while"):
                    break
                t0, s0 = self.t, self.steps
                self.exec(node[2])
                if self.t == t0 and self.steps - s0 < 2 and not node[2][1]:
                    raise _Forever()  # a busy loop that never sleeps
            self.status = 0
        elif kind == "for":
            words = []
            for w in node[2]:
                words.extend(self.expand(w).split())
            for w in words:
                self.vars[node[1]] = w
                self.exec(node[3])
        elif kind == "if":
            for cond, body in node[1]:
                self.exec(cond)
                if self.status == 0:
                    self.exec(body)
                    return
            if node[2] is not None:
                self.exec(node[2])
            else:
                self.status = 0
        elif kind == "group":
            self.exec(node[1])
        elif kind == "cmd":
            self.simple(node[1], node[2])

    def simple(self, words: list[str], redirect):
        if not words:
            self.status = 0
            return
        while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
            k, v = words[0].split("=", 1)
            self.vars[k] = self.expand(v)
            words = words[1:]
        if not words:
            self.status = 0
            return
        argv = [self.expand(w) for w in words]
        if redirect is not None:
            saved = self.run.output
            self.run.output = []
            self.command(argv)
            text = "\n".join(line for _, line in self.run.output)
            self.run.output = saved
            path = self.expand(redirect[1])
            if path not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
                old = self.run.files.get(path)
                content = ((old[1] + "\n") if (old and redirect[0] == ">>" and old[1]) else "") + text
                self.touch(path, content)
            elif path != "/dev/null":
                for line in text.split("\n"):
                    self.out(line)
            return
        self.command(argv)

    def command(self, argv: list[str]):
        name = argv[0].rsplit("/", 1)[-1] if argv[0].startswith("/") else argv[0]
        args = argv[1:]
        self.status = 0
        if name in ("exec", "nohup", "command"):
            if args:
                self.command(args)
            return
        if name == "sleep":
            d = parse_sleep(args[0]) if args else None
            if d is None:
                self.out(f"sleep: invalid number '{args[0] if args else ''}'")
                self.status = 1
                return
            if d == FOREVER:
                raise _Forever()
            self.t += d
        elif name in ("echo",):
            while args and args[0] in ("-n", "-e", "-ne", "-en", "-E"):
                args = args[1:]
            text = " ".join(args).replace("\\n", "\n")
            for line in text.split("\n"):
                self.out(line)
        elif name == "printf":
            fmt = args[0] if args else ""
            rest = args[1:]
            text = re.sub(r"%[sd]", lambda m: rest.pop(0) if rest else "", fmt).replace("\\n", "\n")
            for line in text.rstrip("\n").split("\n"):
                if line or text:
                    self.out(line)
        elif name in ("true", ":"):
            pass
        elif name == "false":
            self.status = 1
        elif name == "exit":
            raise _Exit(self._num(args[0]) if args else self.status)
        elif name == "date":
            self.out("{ts:%a %b %e %H:%M:%S UTC %Y}")
        elif name == "hostname":
            self.out(self.ctx.pod_name)
        elif name in ("env", "printenv"):
            if args:
                for a in args:
                    if a in self.vars:
                        self.out(self.vars[a])
                    else:
                        self.status = 1
            else:
                for k, v in self.vars.items():
                    self.out(f"{k}={v}")
        elif name == "touch":
            for a in args:
                if not a.startswith("-"):
                    self.touch(a)
        elif name == "rm":
            for a in args:
                if not a.startswith("-"):
                    self.rm(a)
        elif name == "mkdir":
            pass
        elif name == "cat":
            files = [a for a in args if not a.startswith("-")]
            for f in files:
                if f in self.run.files:
                    for line in (self.run.files[f][1] or "").split("\n"):
                        if line:
                            self.out(line)
                elif f.startswith("/var/run/secrets/kubernetes.io/serviceaccount/namespace"):
                    self.out(self.vars.get("POD_NAMESPACE", "default"))
                elif f.startswith(("/etc/", "/proc/", "/var/run/secrets")):
                    pass
                else:
                    self.out(f"cat: can't open '{f}': No such file or directory")
                    self.status = 1
        elif name in ("test", "["):
            self.status = 0 if self.test([a for a in args if a != "]"]) else 1
        elif name in ("nslookup", "host", "dig"):
            target = next((a for a in args if not a.startswith("-")), "")
            if self.resolves(target):
                self.out(f"Name:\t{target}")
            else:
                self.out(f"nslookup: can't resolve '{target}'")
                self.status = 1
        elif name in ("wget", "curl", "nc", "ping", "telnet"):
            target = next((a for a in args if not a.startswith("-") and not a.isdigit()), "")
            host = re.sub(r"^[a-z]+://", "", target).split("/", 1)[0].split(":", 1)[0]
            if host in ("localhost", "127.0.0.1") or self.resolves(host):
                pass
            else:
                self.out(f"{name}: bad address '{host}'")
                self.status = 1
        elif name == "trap":
            action, sigs = (args[0], args[1:]) if args else ("", [])
            if any(s.upper().lstrip("SIG") in ("TERM", "15") for s in sigs):
                self.run.sigterm = "exit"
                m = re.search(r"exit\s+(\d+)", action)
                self.run.sigterm_exit_code = int(m.group(1)) if m else 0
        elif name in SHELLS:
            script = self._script_arg(args)
            if script is None and args:
                self.run.unknown_app = True  # sh /some/script.sh: an application kubesim cannot read
                raise _Forever()
            if script is not None:
                sub = _Shell(self.ctx)
                sub.t, sub.vars, sub.run, sub.steps = self.t, self.vars, self.run, self.steps
                try:
                    sub.exec(sub.parse(sub.tokenize(script)))
                except _Exit as e:
                    sub.status = e.code
                self.t, self.steps, self.status = sub.t, sub.steps, sub.status
        elif name in SERVERS or argv[0] in SERVERS:
            ports = SERVERS.get(argv[0], SERVERS.get(name, ()))
            self.run.ports.update(ports)
            self.run.serves = True
            self.run.sigterm = "exit"
            self.run.sigterm_exit_code = 0
            raise _Forever()
        elif name in ("python", "python3") and len(args) >= 2 and args[0] == "-m" and args[1] == "http.server":
            port = int(args[2]) if len(args) > 2 and args[2].isdigit() else 8000
            self.run.ports.add(port)
            self.run.serves = True
            self.run.sigterm, self.run.sigterm_exit_code = "ignore", 137  # PID 1 without a handler
            raise _Forever()
        elif name == "stress":
            self.stress(args)
        elif name in ("ls", "cd", "export", "set", "shift", "read", "kill", "wait", "sync", "chmod", "chown",
                      "cp", "mv", "ln", "tee", "grep", "awk", "sed", "tail", "head", "wc", "sort", "uniq",
                      "id", "whoami", "uname", "df", "ps", "top", "free", "mount", "umount", "which",
                      "apk", "apt-get", "yum", "pip", "npm", "git", "tar", "gzip", "base64", "tr", "cut"):
            if name == "ls":
                missing = [a for a in args if not a.startswith("-") and a.startswith("/tmp") and a not in self.run.files]
                if missing:
                    self.out(f"ls: {missing[0]}: No such file or directory")
                    self.status = 1
        else:
            # an unknown program: a long-running application
            self.run.unknown_app = True
            raise _Forever()

    @staticmethod
    def _script_arg(args: list[str]) -> str | None:
        for i, a in enumerate(args):
            if a.startswith("-") and "c" in a[1:]:
                return args[i + 1] if i + 1 < len(args) else ""
        return None

    def resolves(self, name: str) -> bool:
        if self.ctx.resolve is not None:
            try:
                return bool(self.ctx.resolve(name))
            except Exception:
                return False
        return name in ("localhost", "127.0.0.1") or name.startswith("kubernetes.default") or name == "kubernetes"

    def test(self, a: list[str]) -> bool:
        if not a:
            return False
        if a[0] == "!":
            return not self.test(a[1:])
        if len(a) == 2:
            op, x = a
            if op in ("-f", "-e", "-s", "-r"):
                return x in self.run.files
            if op == "-d":
                return x.startswith("/") and x not in self.run.files
            if op == "-z":
                return x == ""
            if op == "-n":
                return x != ""
        if len(a) == 3:
            x, op, y = a
            if op in ("=", "=="):
                return x == y
            if op == "!=":
                return x != y
            xi, yi = self._num(x), self._num(y)
            return {"-eq": xi == yi, "-ne": xi != yi, "-lt": xi < yi, "-le": xi <= yi,
                    "-gt": xi > yi, "-ge": xi >= yi}.get(op, False)
        return a[0] != ""

    def stress(self, args: list[str]):
        vm_bytes = None
        timeout = None
        for i, a in enumerate(args):
            if a in ("--vm-bytes",) and i + 1 < len(args):
                vm_bytes = _bytes(args[i + 1])
            if a in ("--timeout", "-t") and i + 1 < len(args):
                timeout = parse_sleep(args[i + 1])
        self.out("stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd")
        if vm_bytes is not None and self.ctx.memory_limit is not None and vm_bytes > self.ctx.memory_limit:
            self.t += 1.0
            self.run.oom = True
            raise _Exit(137)
        if timeout is not None and timeout != FOREVER:
            self.t += timeout
            self.out(f"stress: info: [1] successful run completed in {int(timeout)}s")
            return
        raise _Forever()


def _bytes(s: str) -> int | None:
    m = re.fullmatch(r"(\d+)([bBkKmMgG]?)", s.strip())
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "b": 1, "B": 1, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20,
                              "g": 1 << 30, "G": 1 << 30}[m.group(2)]


def run_program(argv: list[str], ctx: RunContext) -> Run:
    """Execute ``argv`` (a container's effective command) in simulated time."""
    sh = _Shell(ctx)
    run = sh.run
    try:
        sh.command(list(argv))
        run.exit_code = sh.status
        run.duration = sh.t
    except _Exit as e:
        run.exit_code = e.code
        run.duration = sh.t
    except (_Forever, _Budget):
        run.exit_code = None
        run.duration = None
    for path, (created, _content) in run.files.items():
        run.file_log.append((path, created, None))
    return run


# --------------------------------------------------------------------------------------------
# the container's effective command


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
        from kubesim.api.quantity import mem_bytes

        return mem_bytes(lim)
    except Exception:
        return None


_CACHE: dict[str, Behaviour] = {}


def behaviour(container: dict, image_defaults: dict | None = None, *, pod_name: str = "",
              override: dict | None = None, start: float = 0.0, resolve=None) -> Behaviour:
    """The behaviour of ``container`` (a pod spec container dict). ``image_defaults`` replaces
    the built-in :data:`IMAGES` table; ``override`` is this container's entry of the
    ``kubesim.io/behaviour`` annotation (see the module docstring). Pure, and memoised."""
    if image_defaults is not None or resolve is not None:
        return _behaviour(container, image_defaults, pod_name=pod_name, override=override, start=start, resolve=resolve)
    key = json.dumps([container, pod_name, override, start], sort_keys=True, default=str)
    b = _CACHE.get(key)
    if b is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        b = _CACHE[key] = _behaviour(container, None, pod_name=pod_name, override=override, start=start)
    return b


def _behaviour(container: dict, image_defaults: dict | None = None, *, pod_name: str = "",
               override: dict | None = None, start: float = 0.0, resolve=None) -> Behaviour:
    argv, info = effective_argv(container, image_defaults)
    argv = _strip_passthrough(argv)
    env = _container_env(container, pod_name)
    source = " ".join(argv) if argv else ""
    b = Behaviour(source=source)
    interactive = bool(container.get("stdin")) or bool(container.get("tty"))
    if not argv:
        b = Behaviour(exits_after=None, sigterm="exit", ports=None, source="(image default)")
    else:
        head = argv[0].rsplit("/", 1)[-1]
        if head in SHELLS and _Shell._script_arg(argv[1:]) is None and len(argv) == 1 or \
                (head in REPLS and len(argv) == 1):
            # a shell or REPL reading standard input: end-of-file at once unless stdin is kept open
            if interactive:
                b = Behaviour(exits_after=None, sigterm="ignore", sigterm_exit_code=137, ports=frozenset(), source=source)
            else:
                b = Behaviour(exits_after=0.0, exit_code=0, ports=frozenset(), source=source)
        elif head == "agnhost" or argv[0] == "/agnhost":
            b = _agnhost(argv[1:], source)
        elif head == "hello" and info is not None and info.cmd == ("/hello",):
            b = Behaviour(exits_after=0.0, exit_code=0, output=tuple((0.0, line) for line in HELLO_WORLD),
                          ports=frozenset(), source=source)
        elif head == "kubectl":
            b = Behaviour(exits_after=0.0, exit_code=0 if len(argv) == 1 else 1,
                          output=((0.0, "kubectl controls the Kubernetes cluster manager."),), ports=frozenset(), source=source)
        elif head == "curl" and len(argv) == 1:
            b = Behaviour(exits_after=0.0, exit_code=2,
                          output=((0.0, "curl: try 'curl --help' or 'curl --manual' for more information"),),
                          ports=frozenset(), source=source)
        elif head in ("postgres", "mysqld", "mariadbd") and not _database_configured(head, env):
            b = _unconfigured_database(head, source)
        else:
            ctx = RunContext(env=env, pod_name=pod_name, start=start, memory_limit=_memory_limit(container),
                             resolve=resolve)
            run = run_program(argv, ctx)
            output = tuple((t, line) for t, line in run.output[:MAX_LOG_LINES])
            if info is not None and run.serves and info.output and _same_program(argv, info):
                output = tuple((0.0, line) for line in info.output) + output
            ports = None if (run.unknown_app and not run.serves) else frozenset(run.ports)
            if run.serves and info is not None and info.ports is not None:
                ports = frozenset(set(info.ports) | set(run.ports)) if _same_program(argv, info) else frozenset(run.ports)
            program = None
            if run.duration is None and not run.serves:
                program = (tuple(argv), tuple(sorted(env.items())), pod_name)
            b = Behaviour(
                exits_after=run.duration, exit_code=run.exit_code or 0,
                reason="OOMKilled" if run.oom else "", output=output,
                files=tuple(run.file_log), ports=ports,
                sigterm=run.sigterm,
                sigterm_exit_code=137 if run.sigterm == "ignore" else run.sigterm_exit_code,
                program=program, source=source)
            if run.duration is None and run.unknown_app and not run.serves and _unknown_program(argv):
                # an application kubesim does not know: it answers probes and stops when asked
                b = replace(b, ports=None, sigterm="exit", sigterm_exit_code=0)
    # container ports the app declares are where it listens, for servers and unknown apps
    if b.ports is not None and b.exits_after is None and b.sigterm == "exit":
        declared = {int(p.get("containerPort")) for p in container.get("ports") or ()
                    if isinstance(p, dict) and str(p.get("containerPort", "")).isdigit()}
        if declared and b.ports and not (declared & b.ports) and info is None:
            b = replace(b, ports=frozenset(b.ports | declared))
    if override:
        b = apply_override(b, override)
    return b


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


# --------------------------------------------------------------------------------------------
# overrides from annotations


def pod_overrides(pod: dict) -> dict[str, dict]:
    """The per-container overrides of a pod's ``kubesim.io/behaviour`` and
    ``kubesim.io/probe-failure`` annotations, merged: container name (or ``*``) -> override."""
    ann = ((pod.get("metadata") or {}).get("annotations") or {})
    out: dict[str, dict] = {}
    raw = ann.get(BEHAVIOUR_ANNOTATION)
    if raw:
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for k, v in data.items():
                if isinstance(v, dict):
                    out[str(k)] = dict(v)
    pf = ann.get(PROBE_FAILURE_ANNOTATION)
    if pf:
        for item in str(pf).split(","):
            item = item.strip()
            if not item:
                continue
            name = "*"
            if ":" in item:
                name, item = item.split(":", 1)
            delay = "0s"
            if "@" in item:
                item, delay = item.split("@", 1)
            kinds = ("liveness", "readiness", "startup") if item == "all" else (item,)
            for k in kinds:
                if k in ("liveness", "readiness", "startup"):
                    out.setdefault(name, {})[k] = {"failAfter": delay}
    return out


def override_for(pod: dict, container_name: str) -> dict:
    ov = pod_overrides(pod)
    merged = dict(ov.get("*") or {})
    merged.update(ov.get(container_name) or {})
    return merged


def apply_override(b: Behaviour, ov: dict) -> Behaviour:
    changes: dict = {}
    try:
        if ov.get("forever"):
            changes["exits_after"] = None
        if "exitCode" in ov or "after" in ov or ov.get("oomKilled"):
            changes["exit_code"] = int(ov.get("exitCode", 137 if ov.get("oomKilled") else 0))
            changes["exits_after"] = parse_duration(ov.get("after", 0))
            changes["reason"] = "OOMKilled" if ov.get("oomKilled") else ""
        if "logs" in ov and isinstance(ov["logs"], list):
            changes["output"] = tuple((0.0, str(x)) for x in ov["logs"])
            changes["program"] = None
        if ov.get("sigterm") in ("exit", "ignore"):
            changes["sigterm"] = ov["sigterm"]
            changes["sigterm_exit_code"] = 0 if ov["sigterm"] == "exit" else 137
        if isinstance(ov.get("ports"), list):
            changes["ports"] = frozenset(int(p) for p in ov["ports"])
        if ov.get("image") in ("notfound", "pullError", "ErrImagePull"):
            changes["pull_error"] = "notfound"
        probes = dict(b.probes)
        for kind in ("liveness", "readiness", "startup"):
            v = ov.get(kind)
            if v is None:
                continue
            if v in ("fail", False):
                probes[kind] = ProbeOverride(True, 0.0)
            elif v in ("pass", True):
                probes[kind] = ProbeOverride(False, 0.0)
            elif isinstance(v, dict) and "failAfter" in v:
                probes[kind] = ProbeOverride(True, parse_duration(v["failAfter"]))
            elif isinstance(v, dict) and "passAfter" in v:
                probes[kind] = ProbeOverride(False, parse_duration(v["passAfter"]))
        changes["probes"] = probes
    except (ValueError, TypeError):
        return b
    return replace(b, **changes)


# --------------------------------------------------------------------------------------------
# logs


def log_lines(b: Behaviour, started: float, until: float, *, container: dict | None = None) -> list[str]:
    """What the instance started at ``started`` printed by ``until`` (absolute times)."""
    elapsed = until - started
    if b.program is not None:
        argv, env, pod_name = b.program
        ctx = RunContext(env=dict(env), pod_name=pod_name, start=started, until=elapsed,
                         max_steps=MAX_STEPS * 5, loop_cap=None)
        out = run_program(list(argv), ctx).output
    else:
        out = b.output
    lines = []
    for t, line in out:
        if t > elapsed + 1e-9:
            break
        lines.append(_format_line(line, started + t))
    return lines[-MAX_LOG_LINES:]


def _format_line(line: str, t: float) -> str:
    def ts(m):
        return _time.strftime(m.group(1), _time.gmtime(t))
    return re.sub(r"\{ts:([^}]*)\}", ts, line)
