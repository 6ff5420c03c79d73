"""The shell-script reader: runs a container's command, and the ``sh -c`` scripts in it, in
simulated time, to learn what the container prints, which files it creates and removes, whether
and when it exits and with which code, and what it does on SIGTERM.

It interprets the tree kubesim.kubelet.shellsyntax parses, with POSIX shell semantics (IEEE Std
1003.1, XCU chapter 2: expansions, ``$?``, ``$((...))``, command substitution, AND/OR lists,
loops, ``trap``) and the builtins and applets container scripts use, answering as busybox does
(``cat: can't open 'f': No such file or directory``, ``nslookup: can't resolve 'x'``,
``wget: bad address 'x'``; ``sleep`` takes busybox/GNU suffixes, coreutils/sleep.c). Time moves
only by ``sleep`` (and ``stress --timeout``); a program that would run for ever - ``sleep
infinity``, a server, a loop that never ends, an unknown binary - ends the run with
``duration`` None.
"""

from __future__ import annotations

import math
import re

from kubesim.api.record import Record
from kubesim.kubelet.images import SERVERS
from kubesim.kubelet.shellsyntax import parse_script

FOREVER = math.inf         # a duration that never ends
MAX_STEPS = 20000          # interpreter steps before a program is taken to run forever
LOOP_CAP = 100             # iterations of one loop before it is taken to run forever (behaviour)
SHELLS = {"sh", "bash", "ash", "dash", "zsh", "ksh"}
NETWORK_TOOLS = ("nslookup", "host", "dig", "wget", "curl", "nc")
_DUR_RE = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")


def parse_sleep(arg: str) -> float | None:
    """busybox/GNU ``sleep`` operands: ``10``, ``1.5``, ``2m``, ``1h``, ``1d``, ``infinity``."""
    a = arg.strip()
    if a in ("infinity", "inf", "Infinity"):
        return FOREVER
    m = _DUR_RE.match(a)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


# --------------------------------------------------------------------------------------------
# the shell interpreter


class _Exit(Exception):
    def __init__(self, code: int):
        self.code = code


class _RunsForever(Exception):
    pass


class _OutOfSteps(Exception):
    pass


class Run(Record):
    """One execution of a program: what it printed and did, and how it ended."""
    __slots__ = ("duration", "exit_code", "file_log", "files", "oom", "output", "ports", "serves", "sigterm",
                 "sigterm_exit_code", "unknown_app")

    def __init__(self, output: list | None = None, files: dict | None = None, file_log: list | None = None,
                 exit_code: int | None = None, duration: float | None = None, ports: set | None = None,
                 serves: bool = False, sigterm: str = "ignore", sigterm_exit_code: int = 143, oom: bool = False,
                 unknown_app: bool = False):
        self.output = [] if output is None else output            # (t, line)
        self.files = {} if files is None else files                # path -> [created, removed|None, content]
        self.file_log = [] if file_log is None else file_log       # (path, created, removed)
        self.exit_code = exit_code
        self.duration = duration                                   # None: runs forever
        self.ports = set() if ports is None else ports
        self.serves = serves
        self.sigterm = sigterm
        self.sigterm_exit_code = sigterm_exit_code
        self.oom = oom
        self.unknown_app = unknown_app


class RunContext(Record):
    """What a run is given: the environment, the pod name (``hostname``), the absolute start
    time (``date``), the memory limit (``stress``), a name resolver, and its budgets."""
    __slots__ = ("env", "files", "loop_cap", "max_steps", "memory_limit", "network", "not_found", "pod_name",
                 "pod_read", "resolve", "start", "until")

    def __init__(self, env: dict, pod_name: str = "", start: float = 0.0, memory_limit: int | None = None,
                 resolve: object = None, network: object = None, files: dict | None = None,
                 max_steps: int = MAX_STEPS, until: float | None = None, loop_cap: int | None = LOOP_CAP,
                 not_found: object = None, pod_read: bool = False):
        self.env = env
        self.pod_name = pod_name
        self.start = start                  # absolute time for `date`
        self.memory_limit = memory_limit
        self.resolve = resolve              # callable(name) -> bool
        self.network = network              # network(argv) -> (stdout, stderr, code): the cluster's
        self.files = files                  # path -> text: what its configMap/secret volumes hold
        self.max_steps = max_steps
        self.until = until                  # stop (as if forever) past this offset
        self.loop_cap = loop_cap            # None: loops run until the step budget
        self.not_found = not_found          # callable(exe) -> the shell's "not found" line or None
        self.pod_read = pod_read            # set when the run reads its pod's name or files


class _Shell:
    """A small POSIX-sh subset, executed in simulated time: ``elapsed`` is the seconds since
    the run started, ``steps`` the interpreter steps spent."""

    def __init__(self, ctx: RunContext):
        self.ctx = ctx
        self.elapsed = 0.0
        self.vars = dict(ctx.env)
        self.status = 0
        self.run = Run()
        self.steps = 0

    # ---- bookkeeping
    def count_step(self):
        self.steps += 1
        if self.steps > self.ctx.max_steps:
            raise _OutOfSteps()
        if self.ctx.until is not None and self.elapsed > self.ctx.until:
            raise _OutOfSteps()

    def write(self, line: str):
        self.run.output.append((self.elapsed, line))

    def touch(self, path: str, content: str | None = None):
        f = self.run.files.get(path)
        if f is None:
            self.run.files[path] = [self.elapsed, content or ""]
        elif content is not None:
            f[1] = content

    def rm(self, path: str):
        f = self.run.files.pop(path, None)
        if f is not None:
            self.run.file_log.append((path, f[0], self.elapsed))

    # ---- expansion
    def var(self, name: str, default: str | None = None) -> str | None:
        """A variable's value. Reading ``HOSTNAME`` (the pod's name) is noted on the run's
        context (``RunContext.pod_read``: a run that reads neither its pod's name nor its
        mounted files does the same in every pod of a template, kubesim.kubelet.behaviour)."""
        if name == "HOSTNAME":
            self.ctx.pod_read = True
        return self.vars.get(name, default)

    def expand(self, word: str) -> str:
        def arith(m):
            expr = re.sub(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
                          lambda v: str(self._integer(self.var(v.group(1), "0"))), m.group(1))
            try:
                # digits and + - * / % only: no ** (an exponent could take forever to compute)
                if not re.fullmatch(r"[\d\s+\-*/%()]+", expr) or "**" in expr:
                    return "0"
                return str(int(eval(expr.replace("/", "//"), {"__builtins__": {}})))
            except (SyntaxError, ArithmeticError, ValueError, TypeError, RecursionError):
                return "0"

        word = re.sub(r"\$\(\((.*?)\)\)", arith, word)

        def subst(m):
            inner = m.group(1) or m.group(2) or ""
            return self.command_substitution(inner)

        word = re.sub(r"\$\(([^()]*)\)|`([^`]*)`", subst, word)
        word = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}",
                      lambda m: self.var(m.group(1)) or (m.group(2) or ""), word)
        word = re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*|\?|\$)",
                      lambda m: str(self.status) if m.group(1) == "?" else
                      ("1" if m.group(1) == "$" else self.var(m.group(1), "")), word)
        return word

    @staticmethod
    def _integer(v) -> int:
        try:
            return int(str(v).strip())
        except ValueError:
            return 0

    def command_substitution(self, script: str) -> str:
        saved = self.run.output
        self.run.output = []
        try:
            self.execute(parse_script(script))
        except (_Exit, _RunsForever):
            pass
        lines = [line for _, line in self.run.output]
        self.run.output = saved
        return "\n".join(lines).strip()

    # ---- execution
    def execute(self, node):
        self.count_step()
        kind = node[0]
        if kind == "list":
            for item in node[1]:
                self.execute(item)
        elif kind in ("&&", "||"):
            self.execute(node[1])
            if (self.status == 0) == (kind == "&&"):
                self.execute(node[2])
        elif kind == "pipe":
            saved = self.run.output
            for c in node[1][:-1]:
                self.run.output = []
                self.execute(c)
            self.run.output = saved
            self.execute(node[1][-1])
        elif kind in ("while", "until"):
            rounds = 0
            while True:
                self.count_step()
                rounds += 1
                if self.ctx.loop_cap is not None and rounds > self.ctx.loop_cap:
                    raise _RunsForever()
                self.execute(node[1])
                ok = self.status == 0
                if ok != (kind == "while"):
                    break
                t0, s0 = self.elapsed, self.steps
                self.execute(node[2])
                if self.elapsed == t0 and self.steps - s0 < 2 and not node[2][1]:
                    raise _RunsForever()  # a busy loop that never sleeps
            self.status = 0
        elif kind == "for":
            words = []
            for w in node[2]:
                words.extend(self.expand(w).split())
            for w in words:
                self.vars[node[1]] = w
                self.execute(node[3])
        elif kind == "if":
            for cond, body in node[1]:
                self.execute(cond)
                if self.status == 0:
                    self.execute(body)
                    return
            if node[2] is not None:
                self.execute(node[2])
            else:
                self.status = 0
        elif kind == "group":
            self.execute(node[1])
        elif kind == "cmd":
            self.simple_command(node[1], node[2])

    def simple_command(self, words: list[str], redirect):
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
        missing = self.ctx.not_found(argv[0]) if self.ctx.not_found is not None and argv[0] else None
        if missing is not None:
            self.write(missing)  # the shell's own message, and the script goes on
            self.status = 127
            return
        if redirect is not None:
            saved = self.run.output
            self.run.output = []
            self.run_command(argv)
            text = "\n".join(line for _, line in self.run.output)
            self.run.output = saved
            path = self.expand(redirect[1])
            if path not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
                old = self.run.files.get(path)
                content = ((old[1] + "\n") if (old and redirect[0] == ">>" and old[1]) else "") + text
                self.touch(path, content)
            elif path != "/dev/null":
                for line in text.split("\n"):
                    self.write(line)
            return
        self.run_command(argv)

    def run_command(self, argv: list[str]):
        name = argv[0].rsplit("/", 1)[-1] if argv[0].startswith("/") else argv[0]
        args = argv[1:]
        self.status = 0
        if name in ("exec", "nohup", "command"):
            if args:
                self.run_command(args)
            return
        if name == "sleep":
            d = parse_sleep(args[0]) if args else None
            if d is None:
                self.write(f"sleep: invalid number '{args[0] if args else ''}'")
                self.status = 1
                return
            if d == FOREVER:
                raise _RunsForever()
            self.elapsed += d
        elif name in ("echo",):
            while args and args[0] in ("-n", "-e", "-ne", "-en", "-E"):
                args = args[1:]
            text = " ".join(args).replace("\\n", "\n")
            for line in text.split("\n"):
                self.write(line)
        elif name == "printf":
            fmt = args[0] if args else ""
            rest = args[1:]
            text = re.sub(r"%[sd]", lambda m: rest.pop(0) if rest else "", fmt).replace("\\n", "\n")
            for line in text.rstrip("\n").split("\n"):
                if line or text:
                    self.write(line)
        elif name in ("true", ":"):
            pass
        elif name == "false":
            self.status = 1
        elif name == "exit":
            raise _Exit(self._integer(args[0]) if args else self.status)
        elif name == "date":
            self.write("{ts:%a %b %e %H:%M:%S UTC %Y}")
        elif name == "hostname":
            self.ctx.pod_read = True
            self.write(self.ctx.pod_name)
        elif name in ("env", "printenv"):
            if args:
                for a in args:
                    value = self.var(a)
                    if value is not None:
                        self.write(value)
                    else:
                        self.status = 1
            else:
                self.ctx.pod_read = True  # (every variable: HOSTNAME too)
                for k, v in self.vars.items():
                    self.write(f"{k}={v}")
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
                            self.write(line)
                    continue
                self.ctx.pod_read = True  # (what the pod's volumes hold)
                if self.ctx.files and f in self.ctx.files:
                    text = self.ctx.files[f]
                    for line in text.removesuffix("\n").split("\n"):
                        self.write(line)
                elif f.startswith("/var/run/secrets/kubernetes.io/serviceaccount/namespace"):
                    self.write(self.vars.get("POD_NAMESPACE", "default"))
                elif f.startswith(("/etc/", "/proc/", "/var/run/secrets")):
                    pass
                else:
                    self.write(f"cat: can't open '{f}': No such file or directory")
                    self.status = 1
        elif name in ("test", "["):
            self.status = 0 if self.test_expression([a for a in args if a != "]"]) else 1
        elif name in NETWORK_TOOLS and self.ctx.network is not None:
            out, err, code = self.ctx.network([name] + args)  # kubesim.network, wired by the control plane
            for line in (out + err).removesuffix("\n").split("\n") if (out + err) else ():
                self.write(line)
            self.status = code
        elif name in ("nslookup", "host", "dig"):
            target = next((a for a in args if not a.startswith("-")), "")
            if self.resolves(target):
                self.write(f"Name:\t{target}")
            else:
                self.write(f"nslookup: can't resolve '{target}'")
                self.status = 1
        elif name in ("wget", "curl", "nc", "ping", "telnet"):
            target = next((a for a in args if not a.startswith("-") and not a.isdigit()), "")
            host = re.sub(r"^[a-z]+://", "", target).split("/", 1)[0].split(":", 1)[0]
            if host in ("localhost", "127.0.0.1") or self.resolves(host):
                pass
            else:
                self.write(f"{name}: bad address '{host}'")
                self.status = 1
        elif name == "trap":
            action, sigs = (args[0], args[1:]) if args else ("", [])
            if any(s.upper().lstrip("SIG") in ("TERM", "15") for s in sigs):
                self.run.sigterm = "exit"
                m = re.search(r"exit\s+(\d+)", action)
                self.run.sigterm_exit_code = int(m.group(1)) if m else 0
        elif name in SHELLS:
            script = script_argument(args)
            if script is None and args:
                self.run.unknown_app = True  # sh /some/script.sh: an application kubesim cannot read
                raise _RunsForever()
            if script is not None:
                sub = _Shell(self.ctx)
                sub.elapsed, sub.vars, sub.run, sub.steps = self.elapsed, self.vars, self.run, self.steps
                try:
                    sub.execute(parse_script(script))
                except _Exit as e:
                    sub.status = e.code
                self.elapsed, self.steps, self.status = sub.elapsed, sub.steps, sub.status
        elif name in SERVERS or argv[0] in SERVERS:
            ports = SERVERS.get(argv[0], SERVERS.get(name, ()))
            self.run.ports.update(ports)
            self.run.serves = True
            self.run.sigterm = "exit"
            self.run.sigterm_exit_code = 0
            raise _RunsForever()
        elif name in ("python", "python3") and len(args) >= 2 and args[0] == "-m" and args[1] == "http.server":
            port = int(args[2]) if len(args) > 2 and args[2].isdigit() else 8000
            self.run.ports.add(port)
            self.run.serves = True
            self.run.sigterm, self.run.sigterm_exit_code = "ignore", 137  # PID 1 without a handler
            raise _RunsForever()
        elif name == "stress":
            self.stress(args)
        elif name == "tail" and _follows(args):
            raise _RunsForever()  # tail -f waits for more lines until it is stopped
        elif name in ("ls", "cd", "export", "set", "shift", "read", "kill", "wait", "sync", "chmod", "chown",
                      "cp", "mv", "ln", "tee", "grep", "awk", "sed", "tail", "head", "wc", "sort", "uniq",
                      "id", "whoami", "uname", "df", "ps", "top", "free", "mount", "umount", "which",
                      "apk", "apt-get", "yum", "pip", "npm", "git", "tar", "gzip", "base64", "tr", "cut"):
            if name == "ls":
                missing = [a for a in args if not a.startswith("-") and a.startswith("/tmp") and a not in self.run.files]
                if missing:
                    self.write(f"ls: {missing[0]}: No such file or directory")
                    self.status = 1
        else:
            # an unknown program: a long-running application
            self.run.unknown_app = True
            raise _RunsForever()

    def resolves(self, name: str) -> bool:
        if self.ctx.resolve is not None:
            try:
                return bool(self.ctx.resolve(name))
            except (LookupError, ValueError):
                return False
        return name in ("localhost", "127.0.0.1") or name.startswith("kubernetes.default") or name == "kubernetes"

    def test_expression(self, words: list[str]) -> bool:
        """``test`` / ``[``: file tests against the files the run created, string and integer
        comparisons."""
        if not words:
            return False
        if words[0] == "!":
            return not self.test_expression(words[1:])
        if len(words) == 2:
            op, x = words
            if op in ("-f", "-e", "-s", "-r"):
                return x in self.run.files
            if op == "-d":
                return x.startswith("/") and x not in self.run.files
            if op == "-z":
                return x == ""
            if op == "-n":
                return x != ""
        if len(words) == 3:
            x, op, y = words
            if op in ("=", "=="):
                return x == y
            if op == "!=":
                return x != y
            xi, yi = self._integer(x), self._integer(y)
            return {"-eq": xi == yi, "-ne": xi != yi, "-lt": xi < yi, "-le": xi <= yi,
                    "-gt": xi > yi, "-ge": xi >= yi}.get(op, False)
        return words[0] != ""

    def stress(self, args: list[str]):
        vm_bytes = None
        timeout = None
        for i, a in enumerate(args):
            if a in ("--vm-bytes",) and i + 1 < len(args):
                vm_bytes = _parse_bytes(args[i + 1])
            if a in ("--timeout", "-t") and i + 1 < len(args):
                timeout = parse_sleep(args[i + 1])
        self.write("stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd")
        if vm_bytes is not None and self.ctx.memory_limit is not None and vm_bytes > self.ctx.memory_limit:
            self.elapsed += 1.0
            self.run.oom = True
            raise _Exit(137)
        if timeout is not None and timeout != FOREVER:
            self.elapsed += timeout
            self.write(f"stress: info: [1] successful run completed in {int(timeout)}s")
            return
        raise _RunsForever()


def _follows(args: list[str]) -> bool:
    """``tail -f`` / ``-F`` / ``--follow[=...]`` (also within bundled short options, ``-fn1``)."""
    for a in args:
        if a == "--":
            return False
        if a.startswith("--follow"):
            return True
        if a.startswith("-") and not a.startswith("--") and ("f" in a[1:] or "F" in a[1:]):
            return True
    return False


def script_argument(args: list[str]) -> str | None:
    """The script of ``sh -c SCRIPT`` (given the arguments after ``sh``), or None when the
    shell reads a file or standard input."""
    for i, a in enumerate(args):
        if a.startswith("-") and "c" in a[1:]:
            return args[i + 1] if i + 1 < len(args) else ""
    return None


def _parse_bytes(s: str) -> int | None:
    m = re.fullmatch(r"(\d+)([bBkKmMgG]?)", s.strip())
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "b": 1, "B": 1, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20,
                              "g": 1 << 30, "G": 1 << 30}[m.group(2)]


def run_program(argv: list[str], ctx: RunContext) -> Run:
    """Execute ``argv`` (a container's effective command) in simulated time."""
    shell = _Shell(ctx)
    run = shell.run
    try:
        shell.run_command(list(argv))
        run.exit_code = shell.status
        run.duration = shell.elapsed
    except _Exit as e:
        run.exit_code = e.code
        run.duration = shell.elapsed
    except (_RunsForever, _OutOfSteps):
        run.exit_code = None
        run.duration = None
    for path, (created, _content) in run.files.items():
        run.file_log.append((path, created, None))
    return run
