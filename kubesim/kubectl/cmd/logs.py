"""kubectl logs: a container's output (the pods/log subresource), of a pod, of the pod a
workload or Service stands for (``deploy/web``), or of the pods a selector matches; ``-f``
follows it.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go — Complete (the argument forms and
their usage errors, ``--since-time`` read as RFC 3339, ``--since`` rounded to the second, a
selector's default ``--tail`` of 10, the builder's NotFound reworded ``error from server
(NotFound): ... in namespace "ns"``, ``No resources found in ns namespace.``), Validate (its
messages, in its order), RunLogsContext (``--max-log-requests`` when following several
streams, sequentialConsumeRequest / parallelConsumeRequest, ``--prefix``'s ``[pod/P/C] ``,
``--ignore-errors``) and consumeWithRetry (with ``--follow``: while the container cannot be
read yet, the server's message on stderr and another try a second later, up to
``--pod-running-timeout`` (20s): ``context deadline exceeded``);
pkg/polymorphichelpers/logsforobject.go (the ``kubectl.kubernetes.io/default-container``
annotation, the ``Defaulted container`` notice, ``--all-containers`` as init, regular, then
ephemeral containers, a workload's pods through helpers.go GetPodList/GetFirstPod — waiting for
one to appear, ``Found N pods, using pod/x`` — and ``--all-pods``), pkg/cmd/util/podcmd
(AllContainerNames). What the server does with the options is
``kubesim.api.core.podlogs``'s.

Following runs on the simulated clock (``kubesim.kubectl.waiting``): the lines appear as the
container prints them, in no wall time. A container that runs for ever with nothing else in
the cluster due would be followed for ever: kubesim stops there and says so. Several streams
followed at once (kubectl's goroutines writing into one pipe) are read together, each wake-up's
new lines in the order they were printed.
"""

from __future__ import annotations

from kubesim.errors import (
    BadRequest,
    NotFound,
    RawError,
    StatusError,
    UsageError,
    client_error,
)

POD_LOGS_TIMEOUT = 20.0  # logs.go defaultPodLogsTimeout
RETRY = 1.0  # consumeWithRetry polls every second
SELECTOR_TAIL = 10  # logs.go selectorTail
USAGE = "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]"
USAGE_ERR = f"expected '{USAGE}'.\nPOD or TYPE/NAME is a required argument for the logs command"
DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"


def add_flags(p):
    from kubesim.kubectl.generate.flags import bool_flag

    p.add_argument("resources", nargs="*", metavar="(POD | TYPE/NAME) [CONTAINER]")
    bool_flag(p, "--all-pods", dest="all_pods", help="Get logs from all pod(s). Sets prefix to true.")
    bool_flag(p, "--all-containers", dest="all_containers", help="Get all containers' logs in the pod(s).")
    p.add_argument("-f", "--follow", nargs="?", const="true", default=None, metavar="true|false",
                   help="Specify if the logs should be streamed (on the simulated clock, until the container ends).")
    bool_flag(p, "--timestamps", dest="timestamps", help="Include timestamps on each line in the log output")
    p.add_argument("--limit-bytes", default="0", metavar="N",
                   help="Maximum bytes of logs to return. Defaults to no limit.")
    bool_flag(p, "-p", "--previous", dest="previous",
              help="If true, print the logs for the previous instance of the container in a pod if it exists.")
    p.add_argument("--tail", default=None, metavar="N",
                   help="Lines of recent log file to display. Defaults to -1 with no selector, showing all log "
                        "lines otherwise 10, if a selector is provided.")
    bool_flag(p, "--ignore-errors", dest="ignore_errors",
              help="If watching / following pod logs, allow for any errors that occur to be non-fatal")
    p.add_argument("--since-time", default="", metavar="RFC3339",
                   help="Only return logs after a specific date (RFC3339). Defaults to all logs. Only one of "
                        "since-time / since may be used.")
    p.add_argument("--since", default="0s", metavar="DURATION",
                   help="Only return logs newer than a relative duration like 5s, 2m, or 3h. Defaults to all logs. "
                        "Only one of since-time / since may be used.")
    p.add_argument("-c", "--container", default=None, help="Print the logs of this container")
    bool_flag(p, "--insecure-skip-tls-verify-backend", dest="insecure_skip_tls_verify_backend",
              help="Skip verifying the identity of the kubelet that logs are requested from (no effect in kubesim).")
    p.add_argument("--pod-running-timeout", default="20s",
                   help="The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod "
                        "is running")
    p.add_argument("-l", "--selector", default="",
                   help="Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l "
                        "key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the "
                        "specified label constraints.")
    p.add_argument("--max-log-requests", default="5", metavar="N",
                   help="Specify maximum number of concurrent logs to follow when using by a selector. Defaults to 5.")
    bool_flag(p, "--prefix", dest="prefix",
              help="Prefix each log line with the log source (pod name and container name)")


def _int_flag(value: str, flag: str) -> int:
    from kubesim.kubectl.generate.flags import flag_error, parse_go_int

    try:
        return parse_go_int(value, 64)
    except ValueError as e:
        raise flag_error("logs", value, flag, str(e)) from None


def _usage(message: str) -> UsageError:
    from kubesim.kubectl.generate.flags import usage_error

    return usage_error("logs", message)


def _parse_since_time(value: str) -> float:
    """kubectl's util.ParseRFC3339: RFC3339Nano, else RFC3339 (whose error is reported)."""
    import re

    from kubesim.api.gofmt import go_parse_time_error
    from kubesim.clock import parse_time

    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
        try:
            return parse_time(value)
        except ValueError:
            pass
    raise client_error(go_parse_time_error(value, "2006-01-02T15:04:05Z07:00")
                       or f'parsing time "{value}": cannot parse')


class Options:
    """LogsOptions after Complete: the flags read as kubectl reads them."""

    def __init__(self, args):
        from kubesim.api.core.podlogs import PodLogOptions
        from kubesim.kubectl.cmd.util import bool_flag_value, duration_flag

        self.follow = bool_flag_value(args.follow, "-f, --follow", "logs")
        self.timeout = duration_flag(args.pod_running_timeout, "--pod-running-timeout", "logs")
        since = duration_flag(args.since, "--since", "logs")
        tail = _int_flag(args.tail, "--tail") if args.tail is not None else -1
        limit = _int_flag(args.limit_bytes, "--limit-bytes")
        self.max_requests = _int_flag(args.max_log_requests, "--max-log-requests")
        self.selector = args.selector or ""
        self.resources = list(args.resources)
        self.container_flag = args.container is not None
        self.container = args.container or ""
        self.all_pods = bool(args.all_pods)
        self.all_containers = bool(args.all_containers)
        self.prefix = bool(args.prefix) or self.all_pods
        self.ignore_errors = bool(args.ignore_errors)
        self.limit = limit
        n = len(self.resources)
        if n == 0 and not self.selector or n > 2:
            raise _usage(USAGE_ERR)
        if n == 1 and self.selector:
            raise _usage("only a selector (-l) or a POD name is allowed")
        if n == 2:
            self.container = self.resources[1]
        self.since_time_flag = args.since_time
        since_time = _parse_since_time(args.since_time) if args.since_time else None
        since_seconds = None
        if since:
            since_seconds = int(since + 0.5) if since > 0 else -int(-since + 0.5)  # Duration.Round(time.Second)
        if self.selector and tail == -1 and args.tail is None:
            tail_lines = SELECTOR_TAIL
        else:
            tail_lines = tail if tail != -1 else None
        self.log_options = PodLogOptions(container=self.container, previous=bool(args.previous), follow=self.follow,
                                         timestamps=bool(args.timestamps), tail_lines=tail_lines,
                                         since_seconds=since_seconds, since_time=since_time,
                                         limit_bytes=limit if limit else None)
        self.since = since

    def validate(self) -> None:
        o = self.log_options
        if self.since_time_flag and self.since:
            raise client_error("at most one of `sinceTime` or `sinceSeconds` may be specified")
        if self.all_containers and o.container:
            raise client_error(f"--all-containers=true should not be specified with container name {o.container}")
        if self.container_flag and len(self.resources) == 2:
            raise client_error("only one of -c or an inline [CONTAINER] arg is allowed")
        if self.limit < 0:
            raise client_error("--limit-bytes must be greater than 0")
        if o.since_seconds is not None and o.since_seconds < 0:
            raise client_error("--since must be greater than 0")
        if o.tail_lines is not None and o.tail_lines < -1:
            raise client_error("--tail must be greater than or equal to -1")


class WaitFailed(RawError):
    """A wait that ended without what it waited for: the time it took has passed (the command
    commits, as ``kubesim wait`` does), and kubectl's error follows."""


def run(f, args, env) -> int:
    o = Options(args)
    failure = None
    with f.connect() as client:
        try:
            _run(client, f, o, env)
        except WaitFailed as e:
            failure = e
    if failure is not None:
        raise failure
    return 0


def _run(client, f, o: Options, env) -> None:
    from dataclasses import replace

    ns = f.namespace()
    obj = _object(client, o, ns, env)
    o.validate()
    requests = logs_for_object(client, obj, o, env)
    if o.follow and len(requests) > 1 and len(requests) > o.max_requests:
        raise client_error(f"you are attempting to follow {len(requests)} log streams, but maximum allowed "
                           f"concurrency is {o.max_requests}, use --max-log-requests to increase the limit")
    if o.follow:
        streams = [_Stream(client, pod["metadata"]["namespace"], pod["metadata"]["name"],
                           replace(o.log_options, container=c), _prefix(o, pod, c), env) for pod, c in requests]
        note = follow(client, streams, env, o.timeout, o.ignore_errors)
        if note is not None:
            env.stderr.write(note + "\n")
        return
    for pod, container in requests:
        md = pod["metadata"]
        try:
            text = client.pod_log(md["namespace"], md["name"], replace(o.log_options, container=container))
        except StatusError as e:
            if not o.ignore_errors:
                raise
            env.stdout.write(f"error: {e.message}\n")  # consumeWithRetry's internalErrOut: the output
            continue
        env.stdout.write(_prefixed(text, _prefix(o, pod, container)))


def _object(client, o: Options, ns: str, env):
    """Complete's builder: the pod or object named, or the list of pods the selector matches."""
    from kubesim.api import kinds
    from kubesim.kubectl.resource import select

    if not o.resources:
        pods = select(client, kinds.by_kind("Pod"), ns, o.selector)
        if not pods:
            env.stderr.write(f"No resources found in {ns} namespace.\n")
        return pods
    arg = o.resources[0]
    info, name = kinds.by_kind("Pod"), arg
    if "/" in arg:
        kind, name = arg.split("/", 1)
        info = kinds.lookup(kind)
    try:
        return client.get(info, ns if info.namespaced else "", name)
    except NotFound as e:
        raise client_error(f'error from server (NotFound): {e.message} in namespace "{ns}"') from None


def logs_for_object(client, obj, o: Options, env) -> list[tuple[dict, str]]:
    """logsForObjectWithClient: the (pod, container) pairs to read, in order."""
    if isinstance(obj, list):
        return [r for pod in obj for r in _pod_requests(pod, o, env, all_pods=False)]
    if obj.get("kind") == "Pod":
        return _pod_requests(obj, o, env, all_pods=o.all_pods)
    from kubesim.kubectl.polymorphichelpers import by_logging, selector_for_object

    selector = selector_for_object(obj)
    pods = _pods_for(client, obj["metadata"].get("namespace", ""), selector, o.timeout)
    if len(pods) > 1 and o.all_pods:
        return [r for pod in pods for r in _pod_requests(pod, o, env, all_pods=True)]
    if len(pods) > 1:
        env.stderr.write(f"Found {len(pods)} pods, using pod/{by_logging(pods)[0]['metadata']['name']}\n")
    return _pod_requests(by_logging(pods)[0], o, env, all_pods=o.all_pods)


def _pods_for(client, ns: str, selector, timeout: float) -> list[dict]:
    """GetPodList: the pods the selector matches, sorted ByLogging; with none, a watch until one
    is added or modified, up to ``timeout``."""
    from kubesim.api import kinds
    from kubesim.kubectl import waiting
    from kubesim.kubectl.polymorphichelpers import by_logging

    info = kinds.by_kind("Pod")

    def matching() -> list[dict]:
        if selector.matches_nothing:
            return []
        return client.list(info, ns, str(selector) or None)

    pods = matching()
    if not pods:
        found: list[list[dict]] = []

        def appeared() -> bool:
            now = matching()
            if now:
                found.append(now[:1])
            return bool(now)

        if waiting.Waiter(client, timeout or None).until(appeared) != waiting.DONE:
            raise WaitFailed("error: timed out waiting for the condition")
        return found[0]
    return by_logging(pods)


def _all_container_names(spec: dict) -> str:
    names = [c["name"] for c in spec.get("containers") or []]
    names += [f"{c['name']} (ephem)" for c in spec.get("ephemeralContainers") or []]
    names += [f"{c['name']} (init)" for c in spec.get("initContainers") or []]
    return ", ".join(names)


def _pod_requests(pod: dict, o: Options, env, all_pods: bool) -> list[tuple[dict, str]]:
    spec = pod.get("spec") or {}
    md = pod["metadata"]
    if o.all_containers:
        return [(pod, c["name"]) for group in ("initContainers", "containers", "ephemeralContainers")
                for c in spec.get(group) or []]
    every = {c["name"] for group in ("initContainers", "containers", "ephemeralContainers")
             for c in spec.get(group) or []}
    container = o.container
    default = (md.get("annotations") or {}).get(DEFAULT_CONTAINER_ANNOTATION, "")
    if not container and default:
        if default in every:
            container = default
        else:
            env.stderr.write(f'Default container name "{default}" not found in pod {md["name"]}\n')
    if not container:
        containers = spec.get("containers") or []
        container = containers[0]["name"]
        if (len(containers) > 1 or spec.get("initContainers") or spec.get("ephemeralContainers")) and not all_pods:
            env.stderr.write(f'Defaulted container "{container}" out of: {_all_container_names(spec)}\n')
    if container not in every:
        raise client_error(f"container {container} is not valid for pod {md['name']} out of: "
                           f"{_all_container_names(spec)}")
    return [(pod, container)]


def _prefix(o: Options, pod: dict, container: str) -> str:
    return f"[pod/{pod['metadata']['name']}/{container}] " if o.prefix else ""


def _prefixed(text: str, prefix: str) -> str:
    if not prefix or not text:
        return text
    parts = text.split("\n")
    tail = parts.pop()  # "" after a final newline, else a line cut short by --limit-bytes
    return "".join(prefix + p + "\n" for p in parts) + (prefix + tail if tail else "")


# -- following ---------------------------------------------------------------------------------

class _Stream:
    """One followed request: opened once its container can be read, then the lines of that
    instance of the container as it prints them, until it ends (or ``limitBytes`` is spent)."""

    def __init__(self, client, ns: str, name: str, options, prefix: str, env):
        self.client, self.ns, self.name, self.options, self.prefix = client, ns, name, options, prefix
        self.env = env
        self.opened = self.done = False
        self.printed = 0
        self.started = ""
        self.remaining = options.limit_bytes

    def try_open(self, quiet: bool = False, ignore_errors: bool = False) -> list[tuple[float, str]] | None:
        """The log so far, as the first read returns it; None (the server's reason written on
        stderr) while the container cannot be read; ``quiet``: its error raised instead;
        ``ignore_errors``: ``error: <reason>`` written on the output and the stream given up."""
        from kubesim.api.core import podlogs

        o = self.options
        try:
            entries = self.client.log_entries(self.ns, self.name, o.container, previous=o.previous)
        except BadRequest as e:
            if quiet:
                raise
            if ignore_errors:
                self.opened = self.done = True
                return [(self.client.now(), f"error: {e.message}\n")]
            self.env.stderr.write(e.message + "\n")
            return None
        self.opened = True
        instance = _instance(self.client, self.ns, self.name, o.container)
        self.printed = len(entries)
        self.started = instance[1] if instance else ""
        if o.previous or instance is None or instance[0] != "running":
            self.done = True  # a terminated instance's log is all there is
        start = podlogs.since(o, self.client.now())
        if o.tail_lines is not None:
            entries = entries[len(entries) - o.tail_lines:] if o.tail_lines else []
        return self._limited([e for e in entries if start is None or e[0] >= start])

    def poll(self) -> list[tuple[float, str]]:
        """What the instance printed since the last read; marks the stream done when it ended."""
        c = self.options.container
        client = self.client
        now = _instance(client, self.ns, self.name, c)
        if now is None:
            self.done = True  # the pod is gone: the stream closes
            return []
        if now == ("running", self.started):
            return self._new(client.log_entries(self.ns, self.name, c))
        self.done = True
        # the followed instance has ended: the rest of its log, wherever it now is
        if now[1] == self.started:
            return self._new(client.log_entries(self.ns, self.name, c))
        if _last_started(client, self.ns, self.name, c) == self.started:
            return self._new(client.log_entries(self.ns, self.name, c, previous=True))
        return []

    def _new(self, entries: list[tuple[float, str]]) -> list[tuple[float, str]]:
        new = entries[self.printed:]
        self.printed = max(self.printed, len(entries))
        return self._limited(new)

    def _limited(self, entries: list[tuple[float, str]]) -> list[tuple[float, str]]:
        """Each entry as the text written (timestamped, prefixed), within what is left of
        ``limitBytes``."""
        from kubesim.api.core import podlogs

        out = []
        for t, line in entries:
            text = (f"{podlogs.timestamp(t)} {line}" if self.options.timestamps else line) + "\n"
            if self.remaining is not None:
                text = podlogs.cut(text, self.remaining)
                self.remaining -= len(text.encode())
                if self.remaining <= 0:
                    self.done = True
            out.append((t, _prefixed(text, self.prefix)))
            if self.done and self.remaining is not None and self.remaining <= 0:
                break
        return out


def _write(env, chunks: list[tuple[float, str]]) -> None:
    env.stdout.write("".join(text for _, text in sorted(chunks, key=lambda c: c[0])))


def follow(client, streams: list[_Stream], env, retry_timeout: float | None = POD_LOGS_TIMEOUT,
           ignore_errors: bool = False, retry: bool = True) -> str | None:
    """consumeWithRetry with Follow, for every stream at once: wait (trying every second,
    saying why on stderr) until each can be read, then print what each prints until every one
    has ended. With ``ignore_errors`` a stream that cannot be read is reported on the output
    (``error: ...``) and given up at once. None when they all ended; else kubesim's note for stderr (following stopped
    where nothing in the cluster was due any more). Raises kubectl's errors."""
    from kubesim.kubectl import waiting

    def step() -> bool:
        chunks: list[tuple[float, str]] = []
        for s in streams:
            if s.done:
                continue
            if not s.opened:
                got = s.try_open(ignore_errors=ignore_errors)
                if got is not None:
                    chunks.extend(got)
            else:
                chunks.extend(s.poll())
        _write(env, chunks)
        return all(s.opened for s in streams)

    if retry:
        outcome = waiting.Waiter(client, retry_timeout).until(step, poll=RETRY, every_poll=True)
        if outcome == waiting.TIMEOUT:
            raise WaitFailed("error: context deadline exceeded")
        if outcome != waiting.DONE:
            raise WaitFailed(f"error: {waiting.gave_up(outcome, 'keep trying')}")
    else:
        for s in streams:
            _write(env, s.try_open(quiet=True) or [])

    def ended() -> bool:
        _write(env, [c for s in streams if not s.done for c in s.poll()])
        return all(s.done for s in streams)

    if all(s.done for s in streams):
        return None
    outcome = waiting.Waiter(client, None).until(ended)
    if outcome == waiting.DONE:
        return None
    from kubesim.clock import format_duration, format_time

    why = ("the container runs on and nothing in the cluster is due" if outcome == waiting.STUCK else
           f"as kubesim follows at most {format_duration(waiting.UNBOUNDED_WAIT)} of simulated time")
    return (f"kubesim: following ends at {format_time(client.now())} (simulated time), {why} (kubectl would keep "
            "following until interrupted; `kubesim advance` lets the log grow)")


def follow_log(client, ns: str, name: str, container: str, env, tail: int = -1, previous: bool = False,
               retry_timeout: float | None = POD_LOGS_TIMEOUT, retry: bool = True) -> str | None:
    """Follow one container (``run --attach`` attaches this way): :func:`follow`."""
    from kubesim.api.core.podlogs import PodLogOptions

    options = PodLogOptions(container=container, previous=previous, follow=True,
                            tail_lines=tail if tail >= 0 else None)
    return follow(client, [_Stream(client, ns, name, options, "", env)], env, retry_timeout, retry=retry)


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
