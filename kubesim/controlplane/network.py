"""The cluster network and pods/exec, wired: the stored objects handed to kubesim.network (the
data plane) and the kubelet's exec (kubesim.kubelet.exec), with the kubelet's knowledge of
what each container serves as the network's listener.

Upstream: pkg/registry/core/pod/strategy.go ExecLocation/streamLocation (``pod x does not have
a host assigned``), pkg/kubelet/kubelet_pods.go GetExec (``container not found ("c")``, which
kubectl reports as ``unable to upgrade connection: ...``).
"""

from __future__ import annotations

import random

from kubesim.apiserver.context import Cluster


class UpgradeFailure(Exception):
    """The kubelet refused the stream (kubectl: ``error: unable to upgrade connection: ...``)."""


def snapshot(cluster: Cluster):
    from kubesim.network.cluster import Snapshot

    s = cluster.store
    return Snapshot(pods=s.list("Pod"), services=s.list("Service"), slices=s.list("EndpointSlice"),
                    namespaces=s.list("Namespace"), policies=s.list("NetworkPolicy"), nodes=s.list("Node"))


def listener(cluster: Cluster):
    from kubesim.kubelet.serving import reply

    date = _http_date(cluster.now())
    return lambda pod, port, protocol: reply(pod, port, protocol, date)


def _http_date(t: float) -> str:
    import email.utils

    return email.utils.formatdate(t, usegmt=True)


def chooser(cluster: Cluster, src: dict):
    """kube-proxy's random pick among endpoints, seeded by the source pod and the time (so a
    command repeats under KUBESIM_NOW)."""
    seed = f"{(src.get('metadata') or {}).get('uid', '')}/{cluster.now()}"
    rng = random.Random(seed)
    return lambda backends: backends[rng.randrange(len(backends))]


def _container(pod: dict, name: str) -> dict | None:
    spec = pod.get("spec") or {}
    for group in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(group) or ():
            if c.get("name") == name:
                return c
    return None


def _running(pod: dict, name: str) -> bool:
    st = pod.get("status") or {}
    for group in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for cs in st.get(group) or ():
            if cs.get("name") == name:
                return "running" in (cs.get("state") or {})
    return False


# what the network tools of pods' commands answered, by pod uid and command line: a container's
# behaviour is derived from its command once per start, and its log read again later; both must
# see the answers the network gave when the command ran, not the cluster as it is by then
ANSWERS_META = "network.podAnswers"


def pod_network(cluster: Cluster):
    """``network(pod, argv) -> (stdout, stderr, code)``: a network tool run in a pod's
    container (the kubelet's containers use it), answered by the cluster as it is the first
    time that pod runs that command line, and the same afterwards."""
    store = cluster.store

    def network(pod: dict, argv: list[str]) -> tuple[str, str, int]:
        import json

        from kubesim.kubelet.exec import nslookup_flavour
        from kubesim.network.tools import Net, run

        uid = (pod.get("metadata") or {}).get("uid") or ""
        key = json.dumps(list(argv))
        answers = store.meta(ANSWERS_META) or {}
        known = (answers.get(uid) or {}).get(key)
        if known is not None:
            return known[0], known[1], int(known[2])
        containers = (pod.get("spec") or {}).get("containers") or [{}]
        net = Net(snapshot(cluster), pod, listener(cluster), chooser(cluster, pod),
                  nslookup=nslookup_flavour(containers[0]))
        out, err, code = run(net, list(argv))
        if uid and not store.read_only:
            live = {(p.get("metadata") or {}).get("uid") for p in store.list("Pod")}
            kept = {u: a for u, a in answers.items() if u in live}
            kept[uid] = {**kept.get(uid, {}), key: [out, err, code]}
            store.set_meta(ANSWERS_META, kept)
        return out, err, code

    return network


def exec_in_container(cluster: Cluster, pod: dict, container: str, argv: list[str]) -> tuple[str, str, int, float]:
    """pods/exec: (stdout, stderr, exit code, seconds it took) of ``argv`` in the container: the
    time its ``sleep``s and its network tools' timeouts would have taken, which the caller may
    let pass on the simulated clock."""
    from kubesim.kubelet.exec import ExecContext, nslookup_flavour, run
    from kubesim.network import dns
    from kubesim.network.tools import Net
    from kubesim.network.tools import run as run_tool

    name = pod["metadata"]["name"]
    c = _container(pod, container)
    # the API server's BadRequest (streamLocation) fails kubectl's upgrade as the kubelet's does
    if c is None:
        raise UpgradeFailure(f"container {container} is not valid for pod {name}")
    if not (pod.get("spec") or {}).get("nodeName"):
        raise UpgradeFailure(f"pod {name} does not have a host assigned")
    if not _running(pod, container):
        raise UpgradeFailure(f'container not found ("{container}")')
    snap = snapshot(cluster)
    net = Net(snap, pod, listener(cluster), chooser(cluster, pod), nslookup=nslookup_flavour(c))
    store = cluster.store
    ctx = ExecContext(pod=pod, container=c, get=lambda kind, ns, n: store.get(kind, ns, n),
                      services=store.list("Service"),
                      extra_files={"/etc/resolv.conf": dns.resolv_conf(pod).text()},
                      network=lambda args: run_tool(net, args))
    out, err, code = run(ctx, list(argv))
    return out, err, code, ctx.elapsed + net.elapsed


def forwarded_reply(cluster: Cluster, pod: dict, port: int, request: bytes) -> bytes | None:
    """pods/portforward: the bytes the pod's ``port`` answers to ``request`` (one HTTP request,
    as a client such as curl sends it through ``kubectl port-forward``); b"" for an empty or
    incomplete request; None when nothing listens on the port (connection refused)."""
    from kubesim.network.tools import _headers, respond

    reply = listener(cluster)(pod, port, "TCP")
    if reply is None:
        return None
    head = request.split(b"\r\n", 1)[0].decode("latin-1").split()
    if len(head) < 2:
        return b""
    method, target = head[0], head[1]
    path = target.split("?", 1)[0].split("#", 1)[0]
    status, reason, body, ctype = respond(reply, "http", path)
    out = _headers({**reply, "content_type": ctype}, status, reason, body)
    return (out + ("" if method == "HEAD" else body)).encode()


def explain(cluster: Cluster, pod: dict, host: str, port: int, protocol: str) -> dict:
    """explain-network: every hop from the pod to ``host:port``, as JSON."""
    from kubesim.network.path import reach

    snap = snapshot(cluster)
    return reach(snap, pod, host, port, protocol, listener(cluster), chooser(cluster, pod)).to_json()
