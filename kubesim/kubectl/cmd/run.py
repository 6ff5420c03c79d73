"""kubectl run: a pod from the run-pod/v1 generator (``kubesim.kubectl.generate``).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/run/run.go, pkg/generate/versioned/run.go.
"""

from __future__ import annotations

from kubesim.api.gofmt import go_quote
from kubesim.errors import UsageError
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


def add_flags(p) -> None:
    p.add_argument("name", nargs="*", metavar="NAME [ARGS...]", help="the pod's name, then arguments for its container")
    p.add_argument("--image", default=None, help="the image for the container to run (required)")
    p.add_argument("-l", "--labels", default=None, help="comma-separated labels to apply to the pod (default run=NAME)")
    p.add_argument("--env", action="append", default=None, metavar="KEY=VALUE",
                   help="environment variables to set in the container (repeatable)")
    p.add_argument("--annotations", action="append", default=None, metavar="KEY=VALUE",
                   help="annotations to apply to the pod (repeatable)")
    p.add_argument("--port", default=None, help="the port that this container exposes")
    p.add_argument("--restart", default=None, help="the restart policy: Always (default), OnFailure or Never")
    p.add_argument("--image-pull-policy", default=None, help="Always, IfNotPresent or Never (default: set by the server)")
    bool_flag(p, "--command", dest="command",
               help="use the arguments after -- as the container's command rather than its args")
    bool_flag(p, "--privileged", dest="privileged", help="run the container in privileged mode")
    dry_run_flag(p)
    p.add_argument("-o", "--output", default=None, help="output format: json|yaml|name|jsonpath=...")


def run(f, args, env) -> int:
    """``run NAME --image=IMAGE [...] [-- ARGS...]``: a pod, from the run-pod/v1 generator."""
    if args.image is None:
        raise UsageError('required flag(s) "image" not set')
    strategy = dry_run_strategy(args.dry_run, env)
    check_output(args.output)
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
                   pull, bool(args.privileged), args.namespace if strategy == "client" else None)

    env.stdout.write(submit(f, args, env, build, strategy, None))
    return 0
