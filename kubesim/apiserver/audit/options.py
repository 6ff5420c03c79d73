"""The kube-apiserver's audit flags, as its static pod manifest on the control-plane node gives
them, and the node files they name.

Upstream: staging/src/k8s.io/apiserver/pkg/server/options/audit.go (``--audit-policy-file``,
``--audit-log-path``; ``ApplyTo``: no policy file, no events; a policy that does not load stops
the server: ``loading audit policy file: ...``; ``--audit-log-path=-`` is standard output) and the
kubelet's hostPath volumes: the flags name paths inside the kube-apiserver container, which see
the node's files only through the container's ``volumeMounts`` of ``hostPath`` volumes (kubeadm
mounts ``/etc/kubernetes/pki`` and the CA directories; an audit task adds its own).

kubesim's node files: a node's machine directory ``<state>/nodes/<node>/`` stands for its root
``/`` (``/etc/kubernetes/audit/policy.yaml`` is ``nodes/controlplane/etc/kubernetes/audit/
policy.yaml``), except the static pod directory ``/etc/kubernetes/manifests``, which is
``nodes/<node>/manifests`` as it always was. The manifest is read as the kubelet would start it:
at once (a real kube-apiserver restarts some seconds after its manifest changes).
"""

from __future__ import annotations

import os

from kubesim.api.record import Record

MANIFEST = "kube-apiserver.yaml"
STATIC_POD_PATH = "/etc/kubernetes/manifests"
CONTAINER = "kube-apiserver"


def node_file(node_dir: str, path: str) -> str:
    """Where the node's absolute ``path`` is kept in its machine directory."""
    norm = os.path.normpath("/" + path.lstrip("/"))
    if norm == STATIC_POD_PATH or norm.startswith(STATIC_POD_PATH + "/"):
        return os.path.join(node_dir, "manifests", norm[len(STATIC_POD_PATH):].lstrip("/"))
    return os.path.join(node_dir, norm.lstrip("/"))


def host_path(pod: dict, container: dict, path: str) -> str | None:
    """The node path a container's ``path`` is, through its deepest volumeMount of a hostPath
    volume (None: in the container's own filesystem, which the node does not see)."""
    path = os.path.normpath(path)
    volumes = {v.get("name"): v for v in (pod.get("spec") or {}).get("volumes") or () if isinstance(v, dict)}
    best = None
    for m in container.get("volumeMounts") or ():
        mount = os.path.normpath(m.get("mountPath") or "/")
        covers = path == mount or path.startswith(mount.rstrip("/") + "/")
        if covers and (best is None or len(mount) > len(best[0])):
            best = (mount, m)
    if best is None:
        return None
    mount, m = best
    source = (volumes.get(m.get("name")) or {}).get("hostPath")
    if not isinstance(source, dict) or not source.get("path"):
        return None
    rest = path[len(mount):].lstrip("/")
    sub = (m.get("subPath") or "").strip("/")
    return os.path.normpath(os.path.join(source["path"], sub, rest))


def flags(container: dict) -> dict[str, str]:
    """The ``--name=value`` (or ``--name value``) flags of the container's command and args; the
    last one given wins, as pflag's."""
    argv = list(container.get("command") or ()) + list(container.get("args") or ())
    out: dict[str, str] = {}
    i = 0
    while i < len(argv):
        a = str(argv[i])
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            if not eq and i + 1 < len(argv) and not str(argv[i + 1]).startswith("-"):
                value = str(argv[i + 1])
                i += 1
            out[name] = value
        i += 1
    return out


class AuditConfig(Record):
    """The audit log a running kube-apiserver keeps: its policy, and where the events go
    (``log_file``: the node file, None when the path is not on a hostPath mount)."""

    __slots__ = ("log_file", "log_path", "policy")

    def __init__(self, policy: dict, log_path: str, log_file: str | None):
        self.policy = policy
        self.log_path = log_path
        self.log_file = log_file


def read_manifest(node_dir: str) -> tuple[dict, dict] | None:
    """(pod, kube-apiserver container) of the control plane's manifest, when it asks for an
    audit log; None when it does not (the common case costs one small read)."""
    try:
        with open(os.path.join(node_dir, "manifests", MANIFEST), "rb") as f:
            raw = f.read()
    except OSError:
        return None
    if b"--audit-" not in raw:
        return None
    from kubesim.codec.load import decode_yaml
    from kubesim.errors import ParseError

    try:
        docs = decode_yaml(MANIFEST, raw.decode("utf-8", errors="replace"))
    except ParseError:
        return None  # the kubelet refuses the manifest: kubesim.kubelet.staticpods reports it
    pod = docs[0] if docs and isinstance(docs[0], dict) else None
    if pod is None:
        return None
    containers = [c for c in (pod.get("spec") or {}).get("containers") or () if isinstance(c, dict)]
    container = next((c for c in containers if c.get("name") == CONTAINER), containers[0] if containers else None)
    return (pod, container) if container is not None else None


def audit_config(node_dir: str) -> AuditConfig | None:
    """What ``AuditOptions.ApplyTo`` makes of the flags: None without both a policy file and a
    log path; raises ``PolicyError`` (``loading audit policy file: ...``) when the policy does
    not load, as the kube-apiserver then exits."""
    from kubesim.apiserver.audit.policy import PolicyError, load_policy_from_file

    found = read_manifest(node_dir)
    if found is None:
        return None
    pod, container = found
    f = flags(container)
    policy_path, log_path = f.get("audit-policy-file", ""), f.get("audit-log-path", "")
    if not policy_path:
        return None
    hp = host_path(pod, container, policy_path)
    try:
        policy = load_policy_from_file(policy_path, node_file(node_dir, hp) if hp is not None else None)
    except PolicyError as e:
        raise PolicyError(f"loading audit policy file: {e}") from None
    if not log_path:
        return None
    if log_path == "-":
        return AuditConfig(policy, log_path, None)
    hp = host_path(pod, container, log_path)
    return AuditConfig(policy, log_path, node_file(node_dir, hp) if hp is not None else None)
