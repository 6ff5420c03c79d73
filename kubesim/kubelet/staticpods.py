"""Static pods: a node's manifest directory, the mirror pods its kubelet keeps in the API, and
kubeadm's control-plane manifests.

Upstream: pkg/kubelet/config/file.go (every regular file of ``staticPodPath`` whose name does not
start with ``.``, in name order, not recursing; one pod per file - the first YAML document, or a
PodList; an unreadable file is logged ``"Could not process manifest file" err="<path>: couldn't
parse as pod(<error>), please check config file"`` and skipped), pkg/kubelet/config/common.go
(applyDefaults: the UID is an FNV-128a hash of the decoded pod, the node and the file path,
also written to ``kubernetes.io/config.hash``; the name becomes ``<name>-<node>``; the namespace
defaults to ``default``; ``spec.nodeName`` is the node; a ``NoExecute`` toleration with
operator ``Exists`` is added; and, with PreventStaticPodAPIReferences (beta, on since v1.34),
``static pods may not reference <resource>`` for service accounts, secrets, config maps,
resource claims, persistent volume claims and the projected/CSI/... sources
pkg/api/pod/util.go HasAPIObjectReference lists), pkg/kubelet/config/config.go
(``kubernetes.io/config.seen`` in RFC 3339 with nanoseconds and ``kubernetes.io/config.source:
file``), pkg/kubelet/pod/mirror_client.go (CreateMirrorPod: the static pod's annotations plus
``kubernetes.io/config.mirror: <hash>``, and one owner reference: the Node, ``controller:
true``, with its uid; a mirror pod whose hash no longer matches is deleted and recreated).

An edited or removed manifest (pkg/kubelet/config/config.go: a new UID is a REMOVE of the old
pod then an ADD of the new; kubelet.go HandlePodRemoves → deletePod: the old static pod is
killed with its terminationGracePeriodSeconds; pod_workers.go allowStaticPodStart: the new one,
of the same full name, waits until the old one has finished terminating, its worker trying again
every backOffPeriod, 10 s; tryReconcileMirrorPods then deletes the stale mirror pod with grace 0
and creates the new one, with a new API uid). While the old pod is killed its mirror pod stays
as it was when the file was edited: pkg/kubelet/pod/pod_manager.go maps the mirror pod to the
new static pod, so the status manager drops the old pod's updates ("Pod was deleted and then
recreated, skipping status update"). A removed file's mirror pod does show the kill (the mapping
stays) and is deleted once the pod has terminated (kubelet_pods.go HandlePodCleanups: orphaned
mirror pods whose static pod is no longer terminating).

kubeadm: cmd/kubeadm/app/phases/controlplane/manifests.go and phases/etcd/local.go (the
kube-apiserver, kube-controller-manager, kube-scheduler and etcd pods of v1.35: images from
registry.k8s.io, commands with kubeadm's sorted default flags, ``cpu`` requests 250m / 200m /
100m and etcd ``cpu: 100m, memory: 100Mi``, host networking, ``priorityClassName:
system-node-critical``, the liveness/readiness/startup probes of util/staticpod ComponentProbe
(failureThreshold 8 / 3 / 24, initialDelaySeconds 10, periodSeconds 10 (readiness 1),
timeoutSeconds 15), hostPath volumes, seccompProfile RuntimeDefault).

File reading is separate from the pure parts: :func:`static_pod_from_manifest` and
:func:`mirror_pod` take already-parsed dicts; :func:`read_manifest_dir` reads a directory and
decodes each file through kubesim.codec (or a ``parse`` callable from the caller).
"""

from __future__ import annotations

import copy
import json
import math
import os

from kubesim.api.objcopy import deep_copy
from kubesim.api.pods import MIRROR_POD_ANNOTATION
from kubesim.api.record import Record
from kubesim.codec.load import MAX_FILE_BYTES, decode_yaml
from kubesim.errors import ParseError

CONFIG_HASH = "kubernetes.io/config.hash"
CONFIG_SEEN = "kubernetes.io/config.seen"
CONFIG_SOURCE = "kubernetes.io/config.source"
SYSTEM_PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
KUBERNETES_VERSION = "v1.35.0"
ETCD_VERSION = "3.6.6-0"
STATIC_POD_SUBDIR = ("nodes", "{node}", "manifests")


class StaticPodError(ValueError):
    """A manifest the kubelet refuses; ``str()`` is upstream's error text."""


class ManifestDir(Record):
    """What the kubelet made of a static pod directory."""
    __slots__ = ("errors", "pods")

    def __init__(self, pods: list[dict] | None = None, errors: list[tuple[str, str]] | None = None):
        self.pods = [] if pods is None else pods            # static pods, in file name order
        self.errors = [] if errors is None else errors      # (path, error) per refused file

    def log_lines(self) -> list[tuple[str, str, dict]]:
        """The klog entries: (where, message, key/values) - ``file.go:187] "Could not process
        manifest file" err="..." path="..."``."""
        return [("file.go:187", "Could not process manifest file", {"err": err, "path": path})
                for path, err in self.errors]


def static_pod_dir(state_dir: str, node_name: str) -> str:
    return os.path.join(state_dir, "nodes", node_name, "manifests")


# --------------------------------------------------------------------------------------------
# hashing (common.go applyDefaults)


def fnv128a(data: bytes) -> str:
    """FNV-1a 128-bit, hex (hash/fnv New128a)."""
    h = 0x6C62272E07BB014262B821756295C58D
    prime = 0x0000000001000000000000000000013B
    mask = (1 << 128) - 1
    for b in data:
        h ^= b
        h = (h * prime) & mask
    return f"{h:032x}"


KUBEADM_MANIFESTS = "/etc/kubernetes/manifests"


def config_hash(pod: dict, node_name: str, source: str) -> str:
    """The static pod's UID and config hash. Upstream hashes the decoded Go object with
    DeepHashObject; kubesim hashes its canonical JSON, then ``host:<node>file:<path>`` the same
    way, so the same file on the same node always gives the same hash and any edit changes it.
    The path is the file's as a kubeadm node has it (``/etc/kubernetes/manifests/<file>``), not
    where the state happens to be, so a copied or moved state keeps its static pods."""
    path = f"{KUBEADM_MANIFESTS}/{os.path.basename(source)}"
    body = json.dumps(pod, sort_keys=True, separators=(",", ":"), default=str)
    return fnv128a(body.encode() + f"host:{node_name}".encode() + f"file:{path}".encode())


# --------------------------------------------------------------------------------------------
# API object references (pkg/api/pod/util.go HasAPIObjectReference)


def _secret_names(spec: dict) -> bool:
    if spec.get("imagePullSecrets"):
        return True
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            for ef in c.get("envFrom") or ():
                if (ef or {}).get("secretRef"):
                    return True
            for e in c.get("env") or ():
                if ((e or {}).get("valueFrom") or {}).get("secretKeyRef"):
                    return True
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict):
            continue
        if v.get("secret") is not None:
            return True
        for kind in ("azureFile",):
            if v.get(kind) is not None:
                return True
        for kind, ref in (("cephfs", "secretRef"), ("cinder", "secretRef"), ("flexVolume", "secretRef"),
                          ("rbd", "secretRef"), ("scaleIO", "secretRef"), ("iscsi", "secretRef"),
                          ("storageos", "secretRef"), ("csi", "nodePublishSecretRef")):
            if isinstance(v.get(kind), dict) and v[kind].get(ref):
                return True
        for src in ((v.get("projected") or {}).get("sources") or []) if isinstance(v.get("projected"), dict) else []:
            if (src or {}).get("secret") is not None:
                return True
    return False


def _configmap_names(spec: dict) -> bool:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            for ef in c.get("envFrom") or ():
                if (ef or {}).get("configMapRef"):
                    return True
            for e in c.get("env") or ():
                if ((e or {}).get("valueFrom") or {}).get("configMapKeyRef"):
                    return True
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict):
            continue
        if v.get("configMap") is not None:
            return True
        for src in ((v.get("projected") or {}).get("sources") or []) if isinstance(v.get("projected"), dict) else []:
            if (src or {}).get("configMap") is not None:
                return True
    return False


_LOCAL_SOURCES = ("awsElasticBlockStore", "azureDisk", "cephfs", "cinder", "downwardAPI", "emptyDir", "fc",
                  "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "hostPath", "image", "iscsi", "nfs",
                  "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume")


def api_object_reference(pod: dict) -> str | None:
    """The plural resource a static pod refers to (None when it refers to none)."""
    spec = pod.get("spec") or {}
    if spec.get("serviceAccountName") or spec.get("serviceAccount"):
        return "serviceaccounts"
    if _secret_names(spec):
        return "secrets"
    if _configmap_names(spec):
        return "configmaps"
    if spec.get("resourceClaims"):
        return "resourceclaims"
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict):
            continue
        if any(v.get(k) is not None for k in _LOCAL_SOURCES):
            continue
        if v.get("configMap") is not None:
            return "configmaps (via configmap volumes)"
        if v.get("secret") is not None:
            return "secrets (via secret volumes)"
        if v.get("csi") is not None:
            return "csidrivers (via CSI volumes)"
        if v.get("glusterfs") is not None:
            return "endpoints (via glusterFS volumes)"
        if v.get("persistentVolumeClaim") is not None:
            return "persistentvolumeclaims"
        if v.get("ephemeral") is not None:
            return "persistentvolumeclaims (via ephemeral volumes)"
        if v.get("azureFile") is not None:
            return "secrets (via azureFile volumes)"
        if isinstance(v.get("projected"), dict):
            for src in v["projected"].get("sources") or ():
                src = src or {}
                if src.get("configMap") is not None:
                    return "configmaps (via projected volumes)"
                if src.get("secret") is not None:
                    return "secrets (via projected volumes)"
                if src.get("serviceAccountToken") is not None:
                    return "serviceaccounts (via projected volumes)"
                if src.get("clusterTrustBundle") is not None:
                    return "clustertrustbundles"
                if src.get("podCertificate") is not None:
                    return "podcertificates"
    return None


# --------------------------------------------------------------------------------------------
# manifests -> static pods -> mirror pods


def _format_seen(now: float) -> str:
    """RFC 3339 with nanoseconds, trailing zeros trimmed (Go's RFC3339Nano)."""
    import time as _t

    sec = int(now)
    nanos = round((now - sec) * 1e9)
    if nanos >= 1_000_000_000:
        sec, nanos = sec + 1, nanos - 1_000_000_000
    base = _t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(sec))
    frac = f"{nanos:09d}".rstrip("0")
    return base + (("." + frac) if frac else "") + "Z"


def static_pod_from_manifest(obj, source: str, node_name: str) -> dict:
    """One parsed manifest -> the static pod the kubelet runs (name ``<name>-<node>``, UID and
    config hash, node name, the NoExecute toleration), or StaticPodError with upstream's text."""
    if isinstance(obj, dict) and obj.get("kind") == "PodList":
        items = obj.get("items") or []
        if not items:
            raise StaticPodError(f"{source}: couldn't parse as pod(no pods in list), please check config file")
        obj = items[0]
    if not isinstance(obj, dict) or (obj.get("kind") not in (None, "Pod")) or obj.get("apiVersion") not in (None, "v1"):
        what = (obj or {}).get("kind") if isinstance(obj, dict) else type(obj).__name__
        if isinstance(obj, dict) and obj.get("apiVersion") not in (None, "v1") and obj.get("kind") == "Pod":
            reason = f'no kind "Pod" is registered for version "{obj.get("apiVersion")}" in scheme "pkg/api/legacyscheme/scheme.go:30"'
        else:
            reason = f"invalid pod: kind {what!r} is not a Pod"
        raise StaticPodError(f"{source}: couldn't parse as pod({reason}), please check config file")
    pod = copy.deepcopy(obj)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    # the universal decoder into the typed Pod: a bad quantity or a JSON type mismatch fails the
    # decode (unknown fields are dropped, as it is not strict)
    from kubesim.codec.schema import is_strict_message, validate_structure

    fatal = [m for m in validate_structure(pod) if not is_strict_message(m)]
    if fatal:
        raise StaticPodError(f"{source}: couldn't parse as pod({fatal[0]}), please check config file")
    md = pod.setdefault("metadata", {})
    if not md.get("name"):
        raise StaticPodError("invalid pod: name is needed for the pod")
    md.pop("creationTimestamp", None)
    pod.pop("status", None)
    from kubesim.api.core.defaults import set_object_defaults_pod

    set_object_defaults_pod(pod)
    uid = md.get("uid") or config_hash(pod, node_name, source)
    md["uid"] = uid
    md["name"] = f"{md['name']}-{node_name.lower()}"
    if not md.get("namespace"):
        md["namespace"] = "default"
    spec = pod["spec"]
    spec["nodeName"] = node_name
    ann = md.setdefault("annotations", {})
    ann[CONFIG_HASH] = uid
    tolerations = spec.setdefault("tolerations", [])
    wanted = {"operator": "Exists", "effect": "NoExecute"}
    # helper.AddOrUpdateTolerationInPod: an identical toleration is not added twice
    if not any({k: v for k, v in t.items() if v not in (None, "")} == wanted for t in tolerations if isinstance(t, dict)):
        tolerations.append(dict(wanted))
    # tryDecodeSinglePod validates the defaulted pod as the API server would a create; a pod
    # that fails is reported and never run (nor mirrored)
    from kubesim.api.core.validation import validate_pod_create

    try:
        errs = validate_pod_create(pod)
    except (ValueError, TypeError, AttributeError) as e:  # a value the decoder would have refused
        raise StaticPodError(f"{source}: couldn't parse as pod({e}), please check config file") from None
    if errs:
        raise StaticPodError("invalid pod: [" + ", ".join(str(e) for e in errs) + "]")
    resource = api_object_reference(pod)
    if resource:
        raise StaticPodError(f"static pods may not reference {resource}")
    pod["status"] = {"phase": "Pending"}
    return pod


def mirror_pod(static_pod: dict, node: dict, now: float) -> dict:
    """The mirror pod the kubelet creates for ``static_pod`` (CreateMirrorPod): the API server
    gives it its own uid; its status is the static pod's, which the kubelet keeps posting."""
    pod = deep_copy(static_pod)
    md = pod["metadata"]
    static_uid = md.pop("uid", None)
    ann = md.setdefault("annotations", {})
    ann[MIRROR_POD_ANNOTATION] = ann.get(CONFIG_HASH) or static_uid
    ann.setdefault(CONFIG_SEEN, _format_seen(now))
    ann[CONFIG_SOURCE] = "file"
    nmd = node.get("metadata") or {}
    md["ownerReferences"] = [{"apiVersion": "v1", "controller": True, "kind": "Node",
                              "name": nmd.get("name", ""), "uid": nmd.get("uid", "")}]
    spec = pod["spec"]
    pc = spec.get("priorityClassName")
    if pc in SYSTEM_PRIORITIES and spec.get("priority") is None:
        spec["priority"] = SYSTEM_PRIORITIES[pc]
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    pod["status"] = {"phase": "Pending"}
    return pod


def decode_manifest(text: str):
    """The first document of a manifest file, decoded as the kubelet's file source decodes it
    (common.go tryDecodeSinglePod: YAMLToJSON, duplicate keys allowed); codec's limits apply.
    ParseError's detail is go-yaml's message; the caller names the file."""
    docs = decode_yaml("static pod manifest", text)
    return docs[0] if docs else None


def read_manifest_dir(directory: str, node_name: str, parse=None, source_dir: str | None = None,
                      made: dict | None = None) -> ManifestDir:
    """Every regular file not starting with ``.`` in ``directory``, in name order, as the
    kubelet's file source reads them. ``parse(text) -> obj`` defaults to :func:`decode_manifest`
    (the first document). A missing directory is an empty set. ``source_dir`` names the files
    (in hashes, errors and logs) when they are read from elsewhere (a new cluster's staged
    tree, kubesim.store.files). ``made``: path -> [sha-256 of the text, the static pod made of
    it], what an earlier read made of each file; a file whose text is the same is not parsed
    and checked again, and ``made`` is left holding this read's files."""
    out = ManifestDir()
    earlier = dict(made) if made is not None else {}
    if made is not None:
        made.clear()
    if not os.path.isdir(directory):
        return out
    loader = parse or decode_manifest
    for name in sorted(os.listdir(directory)):
        if name.startswith("."):
            continue
        path = os.path.join(source_dir or directory, name)
        real = os.path.join(directory, name)
        if not os.path.isfile(real):
            continue
        try:
            size = os.path.getsize(real)
            if size > MAX_FILE_BYTES:  # codec's limit, checked before the file is read
                out.errors.append((path, (f"{path}: couldn't parse as pod(the file is {size} bytes, larger than "
                                          f"kubesim's limit of {MAX_FILE_BYTES} bytes), please check config file")))
                continue
            with open(real, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            out.errors.append((path, f"{path}: couldn't parse as pod({e}), please check config file"))
            continue
        digest = None
        if made is not None:
            import hashlib

            digest = hashlib.sha256(text.encode()).hexdigest()
            seen = earlier.get(path)
            if seen is not None and seen[0] == digest:
                made[path] = seen
                out.pods.append(deep_copy(seen[1]))
                continue
        try:
            obj = loader(text)
        except ParseError as e:  # go-yaml's wording: "yaml: line 4: could not find expected ':'"
            out.errors.append((path, f"{path}: couldn't parse as pod({e.detail}), please check config file"))
            continue
        try:
            pod = static_pod_from_manifest(obj, path, node_name)
        except StaticPodError as e:
            out.errors.append((path, str(e)))
            continue
        out.pods.append(pod)
        if made is not None:
            made[path] = [digest, deep_copy(pod)]
    return out


def desired_mirror_pods(manifests: ManifestDir, node: dict, now: float) -> list[dict]:
    """The mirror pods that should exist for ``node``; two manifests giving the same pod name
    keep the first (the kubelet's pod config dedups by full name)."""
    seen, out = set(), []
    for sp in manifests.pods:
        key = (sp["metadata"]["namespace"], sp["metadata"]["name"])
        if key in seen:
            continue
        seen.add(key)
        out.append(mirror_pod(sp, node, now))
    return out


class MirrorChanges(Record):
    __slots__ = ("create", "delete", "replace")

    def __init__(self, create: list[dict] | None = None, delete: list[dict] | None = None,
                 replace: list[tuple[dict, dict | None]] | None = None):
        self.create = [] if create is None else create      # mirror pods to create
        self.delete = [] if delete is None else delete      # stored mirror pods to delete (at once, grace 0)
        # (stored mirror pod, the mirror pod of the static pod replacing it or None): its static pod
        # was edited or removed, so the kubelet kills the old one first (:func:`replacement_start`)
        self.replace = [] if replace is None else replace


def reconcile_mirror_pods(desired: list[dict], existing: list[dict]) -> MirrorChanges:
    """kubelet syncPod / HandlePodCleanups for mirror pods. ``existing`` are the stored pods
    bound to the node. A mirror pod being deleted through the API is deleted and made again
    at once (its static pod runs on); one whose ``config.mirror`` hash no longer matches a
    static pod (its file was edited) or without a static pod (its file was removed) is in
    ``replace``: it goes when its old static pod has been killed; a missing one is created."""
    changes = MirrorChanges()
    want = {(p["metadata"]["namespace"], p["metadata"]["name"]): p for p in desired}
    have = set()
    for p in existing:
        ann = ((p.get("metadata") or {}).get("annotations") or {})
        if MIRROR_POD_ANNOTATION not in ann:
            continue
        key = ((p.get("metadata") or {}).get("namespace") or "default", p["metadata"]["name"])
        d = want.get(key)
        if d is None or ann.get(MIRROR_POD_ANNOTATION) != d["metadata"]["annotations"][MIRROR_POD_ANNOTATION]:
            changes.replace.append((p, d))
            have.add(key)
            continue
        if (p.get("metadata") or {}).get("deletionTimestamp"):
            changes.delete.append(p)
            continue
        have.add(key)
    for key, d in want.items():
        if key not in have:
            changes.create.append(d)
    return changes


# pod_workers.go allowStaticPodStart: a static pod waits while another of the same full name
# has started and not finished terminating; its worker tries again after backOffPeriod
# (kubelet.go: 10 s; upstream adds up to 50 % jitter, kubesim none)
STATIC_POD_RETRY = 10.0


def kill_grace_period(pod: dict) -> float:
    """The grace period the kubelet kills a removed static pod with (calculateEffectiveGracePeriod
    without a deletion: the pod's terminationGracePeriodSeconds, at least 1 s)."""
    tg = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    return float(max(1, 30 if tg is None else int(tg)))


def replacement_start(killed_at: float, terminated_at: float) -> float:
    """When a static pod whose file was edited starts again with the new file: its first try,
    as the file is read, finds the old pod still started, so it tries every 10 s after that
    until the old one has finished terminating."""
    waited = max(terminated_at - killed_at, 0.0)
    return killed_at + STATIC_POD_RETRY * max(1, math.ceil(waited / STATIC_POD_RETRY - 1e-9))


# --------------------------------------------------------------------------------------------
# kubeadm's control plane


def _probe(host: str, path: str, port: int, scheme: str, failure: int, period: int = 10,
           initial_delay: int | None = 10) -> dict:
    p = {"failureThreshold": failure, "httpGet": {"host": host, "path": path, "port": port, "scheme": scheme}}
    if initial_delay is not None:
        p["initialDelaySeconds"] = initial_delay
    p["periodSeconds"] = period
    p["timeoutSeconds"] = 15
    return p


def _host_path(name: str, path: str, type_: str = "DirectoryOrCreate") -> dict:
    return {"hostPath": {"path": path, "type": type_}, "name": name}


def _mount(name: str, path: str, read_only: bool = True) -> dict:
    m = {"mountPath": path, "name": name}
    if read_only:
        m["readOnly"] = True
    return m


def _component_pod(name: str, container: dict, volumes: list[dict], annotations: dict | None = None) -> dict:
    """util/staticpod ComponentPod."""
    md = {"creationTimestamp": None, "labels": {"component": name, "tier": "control-plane"},
          "name": name, "namespace": "kube-system"}
    if annotations:
        md = {"annotations": annotations, **md}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md,
            "spec": {"containers": [container], "hostNetwork": True, "priority": 2000001000,
                     "priorityClassName": "system-node-critical",
                     "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                     "volumes": sorted(volumes, key=lambda v: v["name"])},
            "status": {}}


_CA_MOUNTS = [("ca-certs", "/etc/ssl/certs"), ("etc-ca-certificates", "/etc/ca-certificates"),
              ("usr-local-share-ca-certificates", "/usr/local/share/ca-certificates"),
              ("usr-share-ca-certificates", "/usr/share/ca-certificates")]


def control_plane_manifests(advertise_address: str, node_name: str = "controlplane",
                            version: str = KUBERNETES_VERSION, pod_subnet: str = "10.244.0.0/16",
                            service_subnet: str = "10.96.0.0/12", bind_port: int = 6443,
                            etcd_version: str = ETCD_VERSION) -> dict[str, dict]:
    """kubeadm init's four static pod manifests, by file name."""
    pki = "/etc/kubernetes/pki"
    apiserver_cmd = ["kube-apiserver"] + [f"--{k}={v}" for k, v in sorted({
        "advertise-address": advertise_address,
        "allow-privileged": "true",
        "authorization-mode": "Node,RBAC",
        "client-ca-file": f"{pki}/ca.crt",
        "enable-admission-plugins": "NodeRestriction",
        "enable-bootstrap-token-auth": "true",
        "etcd-cafile": f"{pki}/etcd/ca.crt",
        "etcd-certfile": f"{pki}/apiserver-etcd-client.crt",
        "etcd-keyfile": f"{pki}/apiserver-etcd-client.key",
        "etcd-servers": "https://127.0.0.1:2379",
        "kubelet-client-certificate": f"{pki}/apiserver-kubelet-client.crt",
        "kubelet-client-key": f"{pki}/apiserver-kubelet-client.key",
        "kubelet-preferred-address-types": "InternalIP,ExternalIP,Hostname",
        "proxy-client-cert-file": f"{pki}/front-proxy-client.crt",
        "proxy-client-key-file": f"{pki}/front-proxy-client.key",
        "requestheader-allowed-names": "front-proxy-client",
        "requestheader-client-ca-file": f"{pki}/front-proxy-ca.crt",
        "requestheader-extra-headers-prefix": "X-Remote-Extra-",
        "requestheader-group-headers": "X-Remote-Group",
        "requestheader-username-headers": "X-Remote-User",
        "secure-port": str(bind_port),
        "service-account-issuer": "https://kubernetes.default.svc.cluster.local",
        "service-account-key-file": f"{pki}/sa.pub",
        "service-account-signing-key-file": f"{pki}/sa.key",
        "service-cluster-ip-range": service_subnet,
        "tls-cert-file": f"{pki}/apiserver.crt",
        "tls-private-key-file": f"{pki}/apiserver.key",
    }.items())]
    ca_volumes = [_host_path(n, p) for n, p in _CA_MOUNTS]
    apiserver = _component_pod("kube-apiserver", {
        "command": apiserver_cmd,
        "image": f"registry.k8s.io/kube-apiserver:{version}",
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": _probe(advertise_address, "/livez", bind_port, "HTTPS", 8),
        "name": "kube-apiserver",
        "readinessProbe": _probe(advertise_address, "/readyz", bind_port, "HTTPS", 3, period=1, initial_delay=None),
        "resources": {"requests": {"cpu": "250m"}},
        "startupProbe": _probe(advertise_address, "/livez", bind_port, "HTTPS", 24),
        "volumeMounts": sorted([_mount(n, p) for n, p in _CA_MOUNTS] + [_mount("k8s-certs", pki)],
                               key=lambda m: m["name"]),
    }, ca_volumes + [_host_path("k8s-certs", pki)],
        {"kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint": f"{advertise_address}:{bind_port}"})

    kcm_conf = "/etc/kubernetes/controller-manager.conf"
    kcm_cmd = ["kube-controller-manager"] + [f"--{k}={v}" for k, v in sorted({
        "allocate-node-cidrs": "true",
        "authentication-kubeconfig": kcm_conf,
        "authorization-kubeconfig": kcm_conf,
        "bind-address": "127.0.0.1",
        "client-ca-file": f"{pki}/ca.crt",
        "cluster-cidr": pod_subnet,
        "cluster-name": "kubernetes",
        "cluster-signing-cert-file": f"{pki}/ca.crt",
        "cluster-signing-key-file": f"{pki}/ca.key",
        "controllers": "*,bootstrapsigner,tokencleaner",
        "kubeconfig": kcm_conf,
        "leader-elect": "true",
        "requestheader-client-ca-file": f"{pki}/front-proxy-ca.crt",
        "root-ca-file": f"{pki}/ca.crt",
        "service-account-private-key-file": f"{pki}/sa.key",
        "service-cluster-ip-range": service_subnet,
        "use-service-account-credentials": "true",
    }.items())]
    flex = "/usr/libexec/kubernetes/kubelet-plugins/volume/exec"
    kcm = _component_pod("kube-controller-manager", {
        "command": kcm_cmd,
        "image": f"registry.k8s.io/kube-controller-manager:{version}",
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": _probe("127.0.0.1", "/healthz", 10257, "HTTPS", 8),
        "name": "kube-controller-manager",
        "resources": {"requests": {"cpu": "200m"}},
        "startupProbe": _probe("127.0.0.1", "/healthz", 10257, "HTTPS", 24),
        "volumeMounts": sorted([_mount(n, p) for n, p in _CA_MOUNTS] + [
            _mount("flexvolume-dir", flex, read_only=False), _mount("k8s-certs", pki),
            _mount("kubeconfig", kcm_conf)], key=lambda m: m["name"]),
    }, ca_volumes + [_host_path("flexvolume-dir", flex), _host_path("k8s-certs", pki),
                     _host_path("kubeconfig", kcm_conf, "FileOrCreate")])

    sched_conf = "/etc/kubernetes/scheduler.conf"
    scheduler = _component_pod("kube-scheduler", {
        "command": ["kube-scheduler", f"--authentication-kubeconfig={sched_conf}",
                    f"--authorization-kubeconfig={sched_conf}", "--bind-address=127.0.0.1",
                    f"--kubeconfig={sched_conf}", "--leader-elect=true"],
        "image": f"registry.k8s.io/kube-scheduler:{version}",
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": _probe("127.0.0.1", "/healthz", 10259, "HTTPS", 8),
        "name": "kube-scheduler",
        "resources": {"requests": {"cpu": "100m"}},
        "startupProbe": _probe("127.0.0.1", "/healthz", 10259, "HTTPS", 24),
        "volumeMounts": [_mount("kubeconfig", sched_conf)],
    }, [_host_path("kubeconfig", sched_conf, "FileOrCreate")])

    etcd_cmd = ["etcd"] + [f"--{k}={v}" for k, v in sorted({
        "advertise-client-urls": f"https://{advertise_address}:2379",
        "cert-file": f"{pki}/etcd/server.crt",
        "client-cert-auth": "true",
        "data-dir": "/var/lib/etcd",
        "feature-gates": "InitialCorruptCheck=true",
        "initial-advertise-peer-urls": f"https://{advertise_address}:2380",
        "initial-cluster": f"{node_name}=https://{advertise_address}:2380",
        "key-file": f"{pki}/etcd/server.key",
        "listen-client-urls": f"https://127.0.0.1:2379,https://{advertise_address}:2379",
        "listen-metrics-urls": "http://127.0.0.1:2381",
        "listen-peer-urls": f"https://{advertise_address}:2380",
        "name": node_name,
        "peer-cert-file": f"{pki}/etcd/peer.crt",
        "peer-client-cert-auth": "true",
        "peer-key-file": f"{pki}/etcd/peer.key",
        "peer-trusted-ca-file": f"{pki}/etcd/ca.crt",
        "snapshot-count": "10000",
        "trusted-ca-file": f"{pki}/etcd/ca.crt",
        "watch-progress-notify-interval": "5s",
    }.items())]
    etcd = _component_pod("etcd", {
        "command": etcd_cmd,
        "image": f"registry.k8s.io/etcd:{etcd_version}",
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": _probe("127.0.0.1", "/livez", 2381, "HTTP", 8),
        "name": "etcd",
        "readinessProbe": _probe("127.0.0.1", "/readyz", 2381, "HTTP", 3, period=1, initial_delay=None),
        "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}},
        "startupProbe": _probe("127.0.0.1", "/readyz", 2381, "HTTP", 24),
        "volumeMounts": [_mount("etcd-data", "/var/lib/etcd", read_only=False),
                         _mount("etcd-certs", f"{pki}/etcd", read_only=False)],
    }, [_host_path("etcd-certs", f"{pki}/etcd"), _host_path("etcd-data", "/var/lib/etcd")],
        {"kubeadm.kubernetes.io/etcd.advertise-client-urls": f"https://{advertise_address}:2379"})
    return {"etcd.yaml": etcd, "kube-apiserver.yaml": apiserver,
            "kube-controller-manager.yaml": kcm, "kube-scheduler.yaml": scheduler}


def render_manifest(pod: dict) -> str:
    """YAML as kubeadm writes it (sigs.k8s.io/yaml: sorted keys, block style)."""
    from kubesim.codec.dump import to_yaml

    return to_yaml(pod)


def control_plane_files(advertise_address: str, node_name: str = "controlplane", **kw) -> dict[str, str]:
    """kubeadm's manifests as the files it writes: file name -> text."""
    return {fname: render_manifest(pod)
            for fname, pod in control_plane_manifests(advertise_address, node_name, **kw).items()}


def write_control_plane(directory: str, advertise_address: str, node_name: str = "controlplane", **kw) -> list[str]:
    """Write kubeadm's manifests into ``directory`` (created); returns the paths written. (The
    control plane writes a state's through kubesim.store.files; this is for tests' trees.)"""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for fname, text in control_plane_files(advertise_address, node_name, **kw).items():
        path = os.path.join(directory, fname)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    return paths
