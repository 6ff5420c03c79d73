"""kubectl logs: a container's output (the pods/log subresource); ``-f`` follows it.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go (flags, the container defaulting and
its "Defaulted container" notice; with ``--follow``, consumeWithRetry: while the container
cannot be read yet (``is waiting to start``), the server's message on stderr and another try a
second later, up to ``--pod-running-timeout`` (20s): ``context deadline exceeded``; then the
stream, which ends when the container does). Following runs on the simulated clock
(``kubesim.kubectl.waiting``): the lines appear as the container prints them, in no wall time.
A container that runs for ever with nothing else in the cluster due would be followed for
ever: kubesim stops there and says so.
"""

from __future__ import annotations

from kubesim.errors import BadRequest, RawError

POD_LOGS_TIMEOUT = 20.0  # logs.go defaultPodLogsTimeout
RETRY = 1.0  # consumeWithRetry polls every second


def add_flags(p):
    p.add_argument("target", help="POD or pod/POD")
    p.add_argument("container_arg", nargs="?", help="container (or use -c)")
    p.add_argument("-c", "--container", default=None)
    p.add_argument("-p", "--previous", action="store_true", help="the previous instance of the container")
    p.add_argument("--tail", type=int, default=-1)
    p.add_argument("--all-containers", action="store_true")
    p.add_argument("-f", "--follow", nargs="?", const="true", default=None, metavar="true|false",
                   help="Specify if the logs should be streamed (on the simulated clock, until the container ends).")
    p.add_argument("--pod-running-timeout", default="20s",
                   help="The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod "
                        "is running")


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.kubectl.cmd.util import bool_flag_value, duration_flag

    follow = bool_flag_value(args.follow, "-f, --follow", "logs")
    timeout = duration_flag(args.pod_running_timeout, "--pod-running-timeout", "logs")
    name = args.target.split("/", 1)[1] if args.target.startswith(("pod/", "pods/", "po/")) else args.target
    container = args.container or args.container_arg
    ns = f.namespace()
    note = None
    with f.connect() as client:
        pod = client.get(kinds.by_kind("Pod"), ns, name)
        spec = pod.get("spec") or {}
        names = [c["name"] for c in spec.get("containers") or []]
        targets = names if args.all_containers else [container or names[0]]
        if not container and not args.all_containers and len(names) > 1:
            env.stderr.write(f'Defaulted container "{names[0]}" out of: {", ".join(names)}\n')
        if not follow:
            out: list[str] = []
            for c in targets:
                out.extend(_tail(client.logs(ns, name, c, previous=args.previous), args.tail))
            env.stdout.write("".join(line + "\n" for line in out))
            return 0
        for c in targets:
            outcome = follow_log(client, ns, name, c, env, tail=args.tail, previous=args.previous,
                                 retry_timeout=timeout)
            if outcome is not None:
                note = outcome
                break
    if note is not None:
        env.stderr.write(note + "\n")
    return 0


def _tail(lines: list[str], tail: int) -> list[str]:
    if tail < 0:
        return lines
    return lines[-tail:] if tail else []


def follow_log(client, ns: str, name: str, container: str, env, tail: int = -1, previous: bool = False,
               retry_timeout: float | None = POD_LOGS_TIMEOUT, retry: bool = True) -> str | None:
    """consumeWithRetry with Follow: wait (polling every second, saying why on stderr) until the
    container's log can be read, then print it and what it prints next, until that instance of the
    container ends. None when it ended; else kubesim's note for stderr (following stopped where
    nothing in the cluster was due any more). Raises kubectl's errors."""
    from kubesim.kubectl import waiting

    out = env.stdout
    if retry:
        def readable() -> bool:
            try:
                client.logs(ns, name, container, previous=previous)
            except BadRequest as e:
                env.stderr.write(e.message + "\n")
                return False
            return True

        outcome = waiting.Waiter(client, retry_timeout).until(readable, poll=RETRY, every_poll=True)
        if outcome == waiting.TIMEOUT:
            raise RawError("error: context deadline exceeded")
        if outcome != waiting.DONE:
            raise RawError(f"error: {waiting.gave_up(outcome, 'keep trying')}")
    instance = _instance(client, ns, name, container)
    lines = client.logs(ns, name, container, previous=previous)
    out.write("".join(line + "\n" for line in _tail(lines, tail)))
    printed = [len(lines)]
    if previous or instance is None or instance[0] != "running":
        return None  # a terminated instance's log is all there is

    def print_new(lines: list[str]) -> None:
        out.write("".join(line + "\n" for line in lines[printed[0]:]))
        printed[0] = max(printed[0], len(lines))

    started = instance[1]

    def ended() -> bool:
        now = _instance(client, ns, name, container)
        if now is None:
            return True  # the pod is gone: the stream closes
        if now == ("running", started):
            print_new(client.logs(ns, name, container))
            return False
        # the followed instance has ended: the rest of its log, wherever it now is
        if now[1] == started:
            print_new(client.logs(ns, name, container))
        elif _last_started(client, ns, name, container) == started:
            print_new(client.logs(ns, name, container, previous=True))
        return True

    outcome = waiting.Waiter(client, None).until(ended)
    if outcome == waiting.DONE:
        return None
    from kubesim.clock import format_duration, format_time

    why = ("the container runs on and nothing in the cluster is due" if outcome == waiting.STUCK else
           f"as kubesim follows at most {format_duration(waiting.UNBOUNDED_WAIT)} of simulated time")
    return (f"kubesim: following ends at {format_time(client.now())} (simulated time), {why} (kubectl would keep "
            "following until interrupted; `kubesim advance` lets the log grow)")


def _status(client, ns: str, name: str, container: str) -> dict | None:
    from kubesim.api import kinds

    pod = client.find(kinds.by_kind("Pod"), ns, name)
    if pod is None:
        return None
    st = pod.get("status") or {}
    for s in (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []):
        if s.get("name") == container:
            return s
    return {}


def _instance(client, ns: str, name: str, container: str) -> tuple[str, str] | None:
    """The container's current instance: ("running" | "terminated" | "waiting", its startedAt);
    None when the pod is gone."""
    s = _status(client, ns, name, container)
    if s is None:
        return None
    state = s.get("state") or {}
    for kind in ("running", "terminated"):
        if state.get(kind):
            return kind, state[kind].get("startedAt", "")
    return "waiting", ""


def _last_started(client, ns: str, name: str, container: str) -> str | None:
    s = _status(client, ns, name, container) or {}
    term = (s.get("lastState") or {}).get("terminated") or {}
    return term.get("startedAt")
