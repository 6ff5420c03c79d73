"""kubesim's own ``node stop|start NODE``: a node's kubelet stops (the node goes NotReady, is
tainted unreachable, its pods are evicted after their tolerationSeconds) or starts again — the
node-failure drills a real cluster makes with ``systemctl stop kubelet``.
"""

from __future__ import annotations


def add_flags(p):
    p.add_argument("action", choices=["stop", "start"], help="stop or start the node's kubelet")
    p.add_argument("node")


def run(f, args, env) -> int:
    """kubesim's own: stop a node's kubelet (the node goes NotReady, is tainted unreachable and
    its pods are evicted after their tolerationSeconds) or start it again."""
    with f.connect() as client:
        changed = client.set_kubelet(args.node, running=args.action == "start")
    verb = "stopped" if args.action == "stop" else "started"
    env.stdout.write(f"node/{args.node} kubelet {verb}\n" if changed else f"node/{args.node} kubelet already {verb}\n")
    return 0
