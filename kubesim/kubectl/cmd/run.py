"""kubectl run: a pod from the run-pod/v1 generator (``kubesim.kubectl.generate``); with
``-i``/``--attach``, its output as it runs, and with ``--rm`` the pod deleted after.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/run/run.go (Complete, Validate, Run: the restart
policy ``-i`` implies, ``handleAttachPod``'s wait until the pod is running and ready or has
completed, ``waitForPod`` until it has completed for ``--restart=Never|OnFailure``, the exit
code of its container, ``removeCreatedObjects`` for ``--rm``), cmd/attach/attach.go (the notices
an attach prints) and pkg/generate/versioned/run.go. kubesim has no terminal to attach: the
container's output (its simulated log) is printed as it is produced, on the simulated clock
(``kubesim.kubectl.waiting``), until the container ends.
"""

from __future__ import annotations

from kubesim.api.gofmt import go_quote
from kubesim.errors import KubesimError, NotFound, RawError, UsageError, client_error
from kubesim.kubectl.cmd.util import dry_run_strategy
from kubesim.kubectl.generate.flags import (
    bool_flag,
    dry_run_flag,
    go_atoi,
    int32_wrap,
    usage_error,
)
from kubesim.kubectl.generate.objects import (
    is_image_reference,
    parse_annotations,
    parse_envs,
    parse_labels,
    pod,
)
from kubesim.kubectl.generate.printing import check_output, submit

ATTACH_NOTICE = ("All commands and output from this session will be recorded in container logs, including "
                 "credentials and sensitive information passed through the command prompt.\n"
                 "If you don't see a command prompt, try pressing enter.\n")


def add_flags(p) -> None:
    p.add_argument("name", nargs="*", metavar="NAME [ARGS...]", help="the pod's name, then arguments for its container")
    p.add_argument("--image", default=None, help="the image for the container to run (required)")
    p.add_argument("-l", "--labels", default=None, help="comma-separated labels to apply to the pod (default run=NAME)")
    p.add_argument("--env", action="append", default=None, metavar="KEY=VALUE",
                   help="environment variables to set in the container (repeatable)")
    p.add_argument("--annotations", action="append", default=None, metavar="KEY=VALUE",
                   help="annotations to apply to the pod (repeatable)")
    p.add_argument("--port", default=None, help="the port that this container exposes")
    bool_flag(p, "--expose", dest="expose",
              help="If true, create a ClusterIP service associated with the pod.  Requires `--port`.")
    p.add_argument("--restart", default=None,
                   help="the restart policy: Always (default), OnFailure (the default with -i) or Never")
    p.add_argument("--image-pull-policy", default=None, help="Always, IfNotPresent or Never (default: set by the server)")
    bool_flag(p, "--command", dest="command",
               help="use the arguments after -- as the container's command rather than its args")
    bool_flag(p, "--privileged", dest="privileged", help="run the container in privileged mode")
    bool_flag(p, "-i", "--stdin", dest="stdin", help="Keep stdin open on the container in the pod (and attach)")
    bool_flag(p, "-t", "--tty", dest="tty", help="Allocate a TTY for the container in the pod")
    p.add_argument("--attach", nargs="?", const="true", default=None, metavar="true|false",
                   help="Wait for the Pod to start running, then print its output until it ends (kubesim's attach, "
                        "on the simulated clock). Default false, unless -i/--stdin is set.")
    bool_flag(p, "--rm", dest="rm", help="Delete the pod after it exits. Only valid when attaching to the container.")
    bool_flag(p, "--leave-stdin-open", dest="leave_stdin_open",
              help="Leave stdin open after the first attach completes.")
    bool_flag(p, "-q", "--quiet", dest="quiet", help="Suppress prompt messages.")
    p.add_argument("--pod-running-timeout", default="1m0s",
                   help="The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod "
                        "is running")
    dry_run_flag(p)
    p.add_argument("-o", "--output", default=None, help="output format: json|yaml|name|jsonpath=...")


def run(f, args, env) -> int:
    """``run NAME --image=IMAGE [...] [-- ARGS...]``: a pod, from the run-pod/v1 generator."""
    from kubesim.kubectl.cmd.util import bool_flag_value, duration_flag

    if args.image is None:
        raise UsageError('required flag(s) "image" not set')
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
    interactive, tty = bool(args.stdin), bool(args.tty)
    attach = bool_flag_value(args.attach, "--attach", "run") if args.attach is not None else interactive
    timeout = duration_flag(args.pod_running_timeout, "--pod-running-timeout", "run")
    words = list(args.name) + list(getattr(args, "after_dashdash", None) or [])
    if not words:
        raise usage_error("run", "NAME is required for run")
    if not args.image:
        raise UsageError("--image is required")
    if not is_image_reference(args.image):
        raise UsageError(f'Invalid image name {go_quote(args.image)}: invalid reference format')
    restart = args.restart or ""
    if restart not in ("", "Always", "OnFailure", "Never"):
        raise usage_error("run", f"invalid restart policy: {restart}")
    pull = args.image_pull_policy or ""
    if pull not in ("", "Always", "IfNotPresent", "Never"):
        raise usage_error("run", f"invalid image pull policy: {pull}")
    if tty and not interactive:
        raise UsageError("-i/--stdin is required for containers with -t/--tty=true")
    if args.expose and not args.port:
        raise usage_error("run", "--port must be set when exposing a service")
    if args.rm and not attach:
        raise UsageError("--rm should only be used for attached containers")
    if attach and strategy != "none":
        raise UsageError("--dry-run=[server|client] can't be used with attached containers options (--attach, "
                         "--stdin, or --tty)")
    if not restart and interactive:
        restart = "OnFailure"  # getRestartPolicy
    name, rest = words[0], words[1:]
    if not name:
        raise UsageError("Parameter: name is required")
    envs = parse_envs(args.env or [])
    annotations = parse_annotations(args.annotations or [])
    labels = parse_labels(args.labels) if args.labels else None
    port = None
    if args.port:
        try:
            port = int32_wrap(go_atoi(args.port))
        except ValueError as e:
            raise UsageError(str(e)) from None

    def build(rng):
        return pod(name, args.image, labels, annotations or None, envs, port, restart, bool(args.command), rest,
                   pull, bool(args.privileged), args.namespace if strategy == "client" else None,
                   stdin=interactive, stdin_once=interactive and not args.leave_stdin_open, tty=tty)

    if not attach:
        pod_text = submit(f, args, env, build, strategy, None)
        if args.expose:
            env.stdout.write(_exposed(f, args, env, name, strategy))
            if (args.output or "").lower() == "yaml":
                pod_text = "---\n" + pod_text  # the printer's separator before its second object
        env.stdout.write(pod_text)
        return 0
    return _run_attached(f, args, env, build, restart, timeout)


def _exposed(f, args, env, name: str, strategy: str) -> str:
    """run.go's generateService: the ServiceGeneratorV2 Service selecting the pod (its ``-l``
    labels, else ``run=NAME``), created after the pod and printed before it (``---`` after it
    in YAML)."""
    from kubesim.kubectl.generate.service import service

    svc = service(name, args.labels or f"run={name}", port=args.port, labels=args.labels or "",
                  namespace=args.namespace if strategy == "client" else None)
    text = submit(f, args, env, lambda rng: svc, strategy, None)
    if (args.output or "").lower() == "yaml":
        text += "---\n"
    return text


def _run_attached(f, args, env, build, restart: str, timeout: float) -> int:
    """Run's attach path: create, wait for the pod, its output, the exit code; ``--rm`` last."""
    from kubesim.api import kinds

    info = kinds.by_kind("Pod")
    failure: KubesimError | None = None
    with f.connect() as client:
        obj = build(client.rng)
        obj["metadata"]["namespace"] = ns = f.namespace()
        name = obj["metadata"]["name"]
        client.create(obj, info)
        try:
            failure = _attach(client, ns, name, args, env, restart, timeout)
        finally:
            if args.rm and client.find(info, ns, name) is not None:
                from kubesim.kubectl.cmd.delete import delete_line

                deleted = client.delete(info, ns, name)  # removeCreatedObjects: no wait
                if not args.quiet:
                    env.stdout.write(delete_line(info, deleted) + "\n")
    if failure is not None:
        raise failure
    return 0


def _attach(client, ns: str, name: str, args, env, restart: str, timeout: float) -> KubesimError | None:
    """handleAttachPod, then waitForPod for the exit code: None, or the error run ends with."""
    from kubesim.kubectl.cmd.logs import follow_log

    pod, error = _wait_for_pod(client, ns, name, timeout, _running_and_ready)
    if error is not None:
        return error
    container = pod["spec"]["containers"][0]["name"]
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):  # ErrPodCompleted: its logs, at once
        env.stdout.write("".join(line + "\n" for line in client.logs(ns, name, container)))
    else:
        if not args.quiet:
            if args.tty and not _is_terminal(env.stdin):
                env.stderr.write("Unable to use a TTY - input is not a terminal or the right kind of file\n")
            env.stderr.write(ATTACH_NOTICE)
        note = follow_log(client, ns, name, container, env, retry=False)
        if note is not None:
            return client_error("kubesim stops attaching: the container runs on and nothing in the cluster will end "
                                "it (kubectl would stay attached until interrupted)")
    if args.leave_stdin_open or restart not in ("Never", "OnFailure"):
        return None
    done = _completed if restart == "Never" else _succeeded
    pod, error = _wait_for_pod(client, ns, name, timeout, done)
    if error is not None:
        return error
    st = pod.get("status") or {}
    if st.get("phase") == "Succeeded":
        return None
    if st.get("phase") == "Failed":
        term = ((st.get("containerStatuses") or [{}])[0].get("state") or {}).get("terminated")
        if not term or not term.get("exitCode"):
            return client_error(f"pod {ns}/{name} failed with unknown exit code")
        err = RawError(f"pod {ns}/{name} terminated ({term.get('reason', '')})\n{term.get('message', '')}")
        err.exit_code = int(term["exitCode"])
        return err
    return client_error(f"pod {ns}/{name} left in phase {st.get('phase', '')}")


def _running_and_ready(pod: dict) -> bool:
    st = pod.get("status") or {}
    if st.get("phase") in ("Failed", "Succeeded"):
        return True  # handleAttachPod takes the completed pod's logs instead
    return st.get("phase") == "Running" and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in st.get("conditions") or [])


def _completed(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded")


def _succeeded(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Succeeded"


def _wait_for_pod(client, ns: str, name: str, timeout: float, condition) -> tuple[dict | None, KubesimError | None]:
    """waitForPod: UntilWithSync on the pod until ``condition`` holds for a version of it; a
    deleted pod is ``pods "" not found``, the deadline kubectl's timeout."""
    from kubesim.api import kinds
    from kubesim.kubectl import waiting

    info = kinds.by_kind("Pod")
    w = client.watch(info, ns, name)
    current = client.find(info, ns, name)
    pending = [("ADDED", current)] if current is not None else []
    found: list = []

    def met() -> bool:
        pending.extend((e.type, e.object) for e in w.events())
        while pending:
            kind, obj = pending.pop(0)
            if kind == "DELETED":
                found.append(NotFound("pods", ""))
                return True
            if condition(obj):
                found.append(obj)
                return True
        return False

    try:
        outcome = waiting.Waiter(client, timeout or None).until(met)
    finally:
        w.stop()
    if found:
        return (None, found[0]) if isinstance(found[0], KubesimError) else (found[0], None)
    if outcome == waiting.TIMEOUT:
        return None, client_error("timed out waiting for the condition")
    return None, client_error(f"pod {ns}/{name} is not running yet, and " +
                              waiting.gave_up(outcome, "keep waiting"))


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
