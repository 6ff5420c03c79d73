"""A node's container images, as its kubelet sees them through the CRI image service: which
references are present since when, how long a pull takes, and the ``status.images`` list the
kubelet reports.

Upstream: pkg/kubelet/images/image_manager.go (EnsureImageExists: ``IfNotPresent`` and ``Never``
look the image up first, ``Always`` pulls on every container start; the ``Pulled`` event's
``Successfully pulled image %q in %v (%v including waiting). Image size: %v bytes.`` with the
pull's own duration and the time since the request, both truncated to the millisecond),
pkg/kubelet/images/puller.go (serialImagePuller: ``serializeImagePulls: true``, the default,
pulls one image at a time per node, so a pull waits for those before it),
pkg/kubelet/nodestatus/setters.go (Images: the list sorted by size, largest first, at most
``nodeStatusMaxImages`` = 50 entries, each naming its RepoDigests then RepoTags, at most
``MaxNamesPerImageInNodeStatus`` = 5 names, read from the image GC manager's cache, which
pkg/kubelet/images/image_gc_manager.go Start refreshes from the runtime every 30 s; the node
status is synced every ``nodeStatusUpdateFrequency``, 10 s) and cmd/kubeadm (``kubeadm init`` pulls the
control-plane images before it writes the static pod manifests, so they are present there).

kubesim pulls nothing. An image's size is a plausible compressed linux/amd64 size
(:data:`SIZES`, by repository, with variants and a stable per-tag spread; unknown images get a
stable size from their name); a pull takes ``PULL_LATENCY`` plus the size at ``PULL_BANDWIDTH``,
spread by a stable factor per (node, reference), and a re-pull of an image already present (the
``Always`` policy) only resolves its manifest again. Everything is a function of the names
and the simulated time, so a run is repeatable.

:class:`NodeImages` is the state kept per node (``kubelet/<node>/images`` in the store's
metadata): ``images`` reference -> {``at`` when it became present, ``size``} and ``pulls`` the
serial puller's last pulls, [start, end, reference].

A pulled image reaches ``status.images`` at the first node status sync after the image cache's
next refresh: up to 30 s after its pull (:func:`listed_as_of`). A kubelet's tickers start when it
does; kubesim's run on the minute (a refresh at :00 and :30, status syncs every 10 s), so a
status sync falls on each refresh, and takes the refreshed list.
"""

from __future__ import annotations

import functools
import hashlib
import math

from kubesim.kubelet.pods import image_ref

PULL_LATENCY = 0.5             # seconds: resolve, authorise, fetch the manifest
PULL_BANDWIDTH = 30_000_000    # bytes per second, download and unpack
REPULL_SECONDS = 0.35          # an Always pull of an image already present: the manifest only
IMAGE_CACHE_PERIOD = 30.0          # image_gc_manager.go: the image cache's refresh period
MAX_IMAGES_IN_NODE_STATUS = 50     # nodeStatusMaxImages
MAX_NAMES_PER_IMAGE = 5            # MaxNamesPerImageInNodeStatus
PAUSE_IMAGE = "registry.k8s.io/pause:3.10.1"   # containerd's sandbox image (kubeadm's PauseVersion)
KUBEADM_IMAGES = ("registry.k8s.io/kube-apiserver:v1.35.0", "registry.k8s.io/kube-controller-manager:v1.35.0",
                  "registry.k8s.io/kube-scheduler:v1.35.0", "registry.k8s.io/kube-proxy:v1.35.0",
                  "registry.k8s.io/coredns/coredns:v1.13.1", "registry.k8s.io/etcd:3.6.6-0", PAUSE_IMAGE)
# a worker's images once it has joined a kubeadm cluster and its add-on pods have started: the
# sandbox image and the add-ons' images (kube-proxy's DaemonSet pod lands on every node at join,
# CoreDNS's replicas spread over the nodes), pulled before the cluster is handed over
WORKER_IMAGES = ("registry.k8s.io/kube-proxy:v1.35.0", "registry.k8s.io/coredns/coredns:v1.13.1", PAUSE_IMAGE)

# compressed linux/amd64 sizes of recent default tags (approximate, as registries list them)
SIZES: dict[str, int] = {
    "nginx": 72_200_000, "nginxinc/nginx-unprivileged": 71_900_000, "nginxdemos/hello": 17_300_000,
    "busybox": 2_160_000, "alpine": 3_650_000, "ubuntu": 29_750_000, "debian": 48_480_000,
    "centos": 75_180_000, "fedora": 65_300_000, "rockylinux": 65_000_000, "almalinux": 70_000_000,
    "amazonlinux": 60_500_000, "oraclelinux": 80_000_000, "archlinux": 150_000_000, "bash": 6_200_000,
    "httpd": 58_400_000, "redis": 45_300_000, "memcached": 33_400_000, "mongo": 261_000_000,
    "postgres": 158_200_000, "mysql": 170_400_000, "mariadb": 122_600_000, "rabbitmq": 90_100_000,
    "traefik": 48_700_000, "traefik/whoami": 3_600_000, "containous/whoami": 3_600_000, "caddy": 19_300_000,
    "haproxy": 40_300_000, "tomcat": 180_200_000, "jenkins/jenkins": 301_500_000,
    "grafana/grafana": 132_400_000, "prom/prometheus": 105_800_000, "registry": 9_900_000,
    "elasticsearch": 651_000_000, "wordpress": 253_700_000, "kennethreitz/httpbin": 163_700_000,
    "hashicorp/http-echo": 3_200_000, "python": 389_700_000, "node": 395_100_000, "ruby": 381_000_000,
    "golang": 282_600_000, "openjdk": 329_000_000, "eclipse-temurin": 201_000_000, "perl": 331_000_000,
    "php": 190_800_000, "rust": 551_000_000, "gcc": 470_300_000, "buildpack-deps": 340_000_000,
    "hello-world": 13_256, "curlimages/curl": 10_500_000, "bitnami/kubectl": 75_300_000,
    "registry.k8s.io/kubectl": 19_000_000, "nicolaka/netshoot": 190_400_000, "polinux/stress": 4_050_000,
    "envoyproxy/envoy": 60_800_000, "consul": 60_300_000, "hashicorp/consul": 60_300_000,
    "hashicorp/vault": 150_000_000, "vault": 150_000_000, "fluent/fluent-bit": 35_700_000,
    "fluentd": 45_900_000, "nats": 8_100_000, "ghost": 201_600_000, "radial/busyboxplus": 5_000_000,
    "gcr.io/google-samples/hello-app": 11_000_000, "paulbouwer/hello-kubernetes": 35_500_000,
    "us-docker.pkg.dev/google-samples/containers/gke/hello-app": 11_000_000,
    "registry.k8s.io/pause": 320_368, "k8s.gcr.io/pause": 301_000, "registry.k8s.io/busybox": 676_000,
    "gcr.io/google-containers/busybox": 676_000, "k8s.gcr.io/busybox": 676_000,
    "registry.k8s.io/kube-apiserver": 27_400_000, "registry.k8s.io/kube-controller-manager": 23_000_000,
    "registry.k8s.io/kube-scheduler": 17_500_000, "registry.k8s.io/kube-proxy": 26_100_000,
    "registry.k8s.io/etcd": 23_600_000, "registry.k8s.io/coredns/coredns": 21_700_000,
    "registry.k8s.io/e2e-test-images/agnhost": 58_500_000, "registry.k8s.io/echoserver": 46_200_000,
    "k8s.gcr.io/echoserver": 46_200_000, "registry.k8s.io/goproxy": 2_400_000, "k8s.gcr.io/goproxy": 2_400_000,
}
# tag variants smaller than the default image of their repository
_VARIANTS = (("alpine", 0.28, 3_650_000), ("slim", 0.38, 30_000_000), ("busybox", 0.1, 2_160_000))


def _fraction(*parts: str) -> float:
    """A stable number in [0, 1) from names."""
    return int(hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8], 16) / 0x1_0000_0000


def reference(image: str) -> str:
    """The reference a pull resolves: ``nginx`` -> ``docker.io/library/nginx:latest``."""
    return image_ref(image)[0]


@functools.lru_cache(maxsize=4096)
def image_size(image: str) -> int:
    """The size the runtime reports for ``image`` (ImageStatus's size: the compressed layers;
    pure: kept per image, which every pull of a command asks again)."""
    from kubesim.kubelet.images import image_repository

    repo = image_repository(image)
    ref = reference(image)
    base = SIZES.get(repo)
    if base is None:
        return 2_000_000 + int(hashlib.sha256(image.encode()).hexdigest()[:8], 16) % 120_000_000
    tag = ref.rsplit("@", 1)[0].rpartition(":")[2] if "@" not in ref else ""
    for word, factor, floor in _VARIANTS:
        if word in tag and base > floor:
            base = max(int(base * factor), floor)
            break
    if tag in ("", "latest"):
        return base
    return int(base * (0.94 + 0.08 * _fraction(ref)))


def pull_seconds(node: str, image: str, present: bool) -> float:
    """How long the runtime's PullImage of ``image`` takes on ``node`` (millisecond precision):
    a download of its size, or only the manifest when the image is already there."""
    spread = 0.85 + 0.3 * _fraction(node, reference(image))
    if present:
        seconds = REPULL_SECONDS * spread
    else:
        seconds = (PULL_LATENCY + image_size(image) / PULL_BANDWIDTH) * spread
    return max(round(seconds, 3), 0.001)


class NodeImages:
    """One node's images and its serial puller (see the module docstring); ``data`` is the
    JSON-shaped dict kept in the store, changed in place (``changed`` says so)."""

    def __init__(self, node_name: str, data: dict | None = None):
        self.node_name = node_name
        self.data = data if data is not None else {"images": {}, "pulls": []}
        self.data.setdefault("images", {})
        self.data.setdefault("pulls", [])
        self.changed = False

    @classmethod
    def preloaded(cls, node: dict, t: float) -> NodeImages:
        """A node's images when its kubelet first syncs a pod: kubeadm's images on a control-plane
        node; the sandbox image and the add-ons' images (kube-proxy, CoreDNS) on a worker, whose
        add-on pods pulled them as it joined, before the cluster is handed over."""
        md = node.get("metadata") or {}
        images = cls(md.get("name") or "")
        labels = md.get("labels") or {}
        names = KUBEADM_IMAGES if "node-role.kubernetes.io/control-plane" in labels else WORKER_IMAGES
        for image in names:
            images.add(image, t)
        return images

    def present(self, image: str, t: float) -> bool:
        entry = self.data["images"].get(reference(image))
        return entry is not None and entry["at"] <= t + 1e-6

    def add(self, image: str, t: float):
        ref = reference(image)
        entry = self.data["images"].get(ref)
        if entry is None or entry["at"] > t:
            self.data["images"][ref] = {"at": t, "size": image_size(image)}
            self.changed = True

    def schedule_pull(self, image: str, t: float) -> tuple[float, float]:
        """The serial puller takes a pull requested at ``t``: (start, end) of the pull, after
        the pulls already queued; a pull that starts once an earlier pull of the same image
        has ended finds its layers there and only resolves the manifest."""
        ref = reference(image)
        pulls = sorted(self.data["pulls"])
        start = t
        for begin, end, _ref in pulls:
            if end <= start + 1e-9:
                continue
            if begin >= start + 1e-9 and begin - start >= self._duration(ref, start, pulls):
                break  # this pull fits in the gap before that one
            start = max(start, end)
        end = round(start + self._duration(ref, start, pulls), 3)
        pulls.append([start, end, ref])
        self.data["pulls"] = sorted(pulls)[-20:]
        self.changed = True
        return start, end

    def _duration(self, ref: str, start: float, pulls: list) -> float:
        present = self.present(ref, start) or any(r == ref and end <= start + 1e-9 for _b, end, r in pulls)
        return pull_seconds(self.node_name, ref, present)

    def node_status_images(self, as_of: float | None = None) -> list[dict]:
        """``status.images`` as the kubelet's Images setter reports them from its image cache
        refreshed at ``as_of`` (None: every image, however recent)."""
        entries = []
        for ref, entry in self.data["images"].items():
            if as_of is not None and entry["at"] > as_of + 1e-6:
                continue  # pulled after the cache's last refresh
            name, image_id = image_ref(ref)
            names = [image_id, name] if "@" not in name else [name]
            entries.append((-entry["size"], ref, {"names": names[:MAX_NAMES_PER_IMAGE], "sizeBytes": entry["size"]}))
        entries.sort(key=lambda e: (e[0], e[1]))
        return [e[2] for e in entries[:MAX_IMAGES_IN_NODE_STATUS]]

    def next_listing(self, as_of: float) -> float | None:
        """When the first image the cache refreshed at ``as_of`` missed will be listed: the
        next refresh after it became present (None: none missed)."""
        pending = [entry["at"] for entry in self.data["images"].values() if entry["at"] > as_of + 1e-6]
        return listed_as_of(min(pending), ceiling=True) if pending else None


def listed_as_of(t: float, ceiling: bool = False) -> float:
    """The image cache's refresh the node status synced at or last before ``t`` reports from
    (``ceiling``: the first refresh at or after ``t``); refreshes fall on :00 and :30 of each
    minute (see the module docstring)."""
    ticks = t / IMAGE_CACHE_PERIOD
    return IMAGE_CACHE_PERIOD * (math.ceil(ticks - 1e-9) if ceiling else math.floor(ticks + 1e-9))
