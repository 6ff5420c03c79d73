"""A node's images and the kubelet's pulls: the pull policy as
pkg/kubelet/images/image_manager_test.go's pullerTestCases decide it, the serial puller, the
Pulled event's words, and node.status.images as the Images setter reports them
(pkg/kubelet/nodestatus/setters_test.go TestImages: sorted by size, at most 50, names
digest-first)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.image_service import (
    KUBEADM_IMAGES,
    WORKER_IMAGES,
    PAUSE_IMAGE,
    SIZES,
    NodeImages,
    image_size,
    listed_as_of,
    pull_seconds,
    reference,
)
from kubesim.kubelet.pod_workers import sync_pod
from kubesim.testing.kubelet import T0, Recorder, container, node, pod


def run(image: str, policy: str | None, present: bool, seconds: float = 30, counts: bool = False):
    images = NodeImages("node01")
    if present:
        images.add(image, 0.0)
    c = container("c", image, command=["sleep", "3600"])
    if policy:
        c["imagePullPolicy"] = policy
    p = pod("p", c)
    rec = Recorder()
    memory: dict = {}
    sync_pod(p, node(), [p], T0, rec, memory=memory, images=images)
    sync_pod(p, node(), [p], T0 + seconds, rec, memory=memory, images=images)
    return [(e["reason"], e["message"]) + ((e["count"],) if counts else ()) for e in rec.events], p, images


@pytest.mark.parametrize("image, policy, present, want", [
    ("busybox:1.36", "IfNotPresent", False,
     [("Pulling", 'Pulling image "busybox:1.36"'),
      ("Pulled", 'Successfully pulled image "busybox:1.36" in 640ms (640ms including waiting). '
                 "Image size: 2174397 bytes."),
      ("Created", "Container created"), ("Started", "Container started")]),
    ("busybox:1.36", "IfNotPresent", True,
     [("Pulled", 'Container image "busybox:1.36" already present on machine and can be accessed by the pod'),
      ("Created", "Container created"), ("Started", "Container started")]),
    ("busybox:1.36", "Always", True,
     [("Pulling", 'Pulling image "busybox:1.36"'),
      ("Pulled", 'Successfully pulled image "busybox:1.36" in 391ms (391ms including waiting). '
                 "Image size: 2174397 bytes."),
      ("Created", "Container created"), ("Started", "Container started")]),
    ("busybox:1.36", "Never", False,
     [("ErrImageNeverPull", 'Container image "busybox:1.36" is not present with pull policy of Never'),
      ("Failed", "Error: ErrImageNeverPull")]),
    ("busybox:1.36", "Never", True,
     [("Pulled", 'Container image "busybox:1.36" already present on machine and can be accessed by the pod'),
      ("Created", "Container created"), ("Started", "Container started")]),
], ids=["image missing, pull", "image present, don't pull", "image present, pull (Always)",
        "image missing, never pull", "image present, never pull"])
def test_the_pull_policy_decides_as_ensure_image_exists(image, policy, present, want):
    events, _, images = run(image, policy, present, seconds=5)
    assert events[:len(want)] == want
    if policy != "Never":
        assert images.present(image, T0 + 5)


def test_an_image_never_pulled_retries_and_pulls_nothing():
    events, p, images = run("busybox:1.36", "Never", False, seconds=25, counts=True)
    assert sum(e[2] for e in events if e[0] == "ErrImageNeverPull") == 3  # at 0, 10 and 20 s
    state = p["status"]["containerStatuses"][0]["state"]
    assert state == {"waiting": {"message": 'Container image "busybox:1.36" is not present with pull policy of Never',
                                 "reason": "ErrImageNeverPull"}}
    assert not images.present("busybox:1.36", T0 + 25)


def test_the_pod_waits_in_container_creating_while_the_image_downloads():
    images = NodeImages("node01")
    p = pod("p", container("c", "nginx:1.27", imagePullPolicy="IfNotPresent"))
    memory: dict = {}
    result = sync_pod(p, node(), [p], T0, Recorder(), memory=memory, images=images)
    took = pull_seconds("node01", "nginx:1.27", present=False)
    assert result.next_wake == pytest.approx(T0 + took)
    assert p["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    sync_pod(p, node(), [p], T0 + took, Recorder(), memory=memory, images=images)
    assert "running" in p["status"]["containerStatuses"][0]["state"]


@pytest.mark.parametrize("image, want", [
    ("nginx", "docker.io/library/nginx:latest"),
    ("nginx:1.27", "docker.io/library/nginx:1.27"),
    ("library/nginx:1.27", "docker.io/library/nginx:1.27"),
    ("docker.io/library/nginx:1.27", "docker.io/library/nginx:1.27"),
    ("bitnami/kubectl", "docker.io/bitnami/kubectl:latest"),
    ("registry.k8s.io/pause:3.10.1", "registry.k8s.io/pause:3.10.1"),
], ids=["a bare name is docker.io's library image at latest", "a tag is kept", "library/ is Docker Hub's",
        "a full reference is itself", "a user's repository on Docker Hub", "another registry"])
def test_references_resolve_as_the_runtime_names_them(image, want):
    assert reference(image) == want


def test_sizes_come_from_the_data_with_smaller_variants_and_a_stable_spread():
    assert image_size("nginx") == image_size("nginx:latest") == SIZES["nginx"]
    assert image_size("nginx:alpine") < SIZES["nginx"] / 2
    assert 0.94 * SIZES["nginx"] <= image_size("nginx:1.27") <= 1.02 * SIZES["nginx"]
    assert image_size("example.com/team/app:v1") == image_size("example.com/team/app:v1")


def test_a_pull_takes_time_in_proportion_to_the_size_and_a_repull_only_the_manifest():
    assert pull_seconds("n", "busybox", False) < 1 < pull_seconds("n", "nginx", False) < pull_seconds("n", "python", False)
    assert pull_seconds("n", "python", True) < 0.5
    assert pull_seconds("n", "nginx", False) == pull_seconds("n", "nginx", False)  # repeatable


def test_the_serial_puller_queues_pulls_and_a_second_pull_of_the_same_image_is_quick():
    images = NodeImages("node01")
    first = images.schedule_pull("nginx:1.27", 100.0)
    second = images.schedule_pull("nginx:1.27", 100.0)
    third = images.schedule_pull("busybox:1.36", 100.5)
    assert first == (100.0, round(100.0 + pull_seconds("node01", "nginx:1.27", False), 3))
    assert second[0] == first[1] and second[1] - second[0] == pytest.approx(pull_seconds("node01", "nginx:1.27", True))
    assert third[0] == second[1]
    # a pull requested before the queued ones that fits in front of them does not wait
    assert images.schedule_pull("busybox:1.36", 10.0) == (10.0, round(10.0 + pull_seconds("node01", "busybox:1.36", False), 3))


def test_node_status_lists_images_largest_first_with_digest_and_tag():
    images = NodeImages("node01")
    for name in ("busybox:1.36", "nginx:1.27", "registry.k8s.io/pause:3.10.1"):
        images.add(name, 0.0)
    listed = images.node_status_images()
    assert [i["names"][1] for i in listed] == ["docker.io/library/nginx:1.27", "docker.io/library/busybox:1.36",
                                                "registry.k8s.io/pause:3.10.1"]
    assert listed[0]["names"][0].startswith("docker.io/library/nginx@sha256:")
    assert listed[0]["sizeBytes"] == image_size("nginx:1.27")


@pytest.mark.parametrize("t, floor, ceiling", [
    (0.0, 0.0, 0.0),
    (29.999, 0.0, 30.0),
    (30.0, 30.0, 30.0),
    (1795312813.0, 1795312800.0, 1795312830.0),
])
def test_the_image_cache_refreshes_every_30_seconds_on_the_minute(t, floor, ceiling):
    """image_gc_manager.go Start: the cache the Images setter reads is refreshed every 30 s."""
    assert listed_as_of(t) == floor
    assert listed_as_of(t, ceiling=True) == ceiling


def test_a_pulled_image_is_listed_from_the_next_cache_refresh():
    """The Images setter lists what the cache held at its last refresh: an image pulled at
    :13 is not listed at :20, is at :30; the next listing names that refresh."""
    images = NodeImages("node01")
    images.add("busybox:1.36", 0.0)
    images.add("nginx:1.27", 13.0)

    def names(as_of):
        return [i["names"][1] for i in images.node_status_images(as_of)]

    assert names(listed_as_of(20.0)) == ["docker.io/library/busybox:1.36"]
    assert images.next_listing(listed_as_of(20.0)) == 30.0
    assert names(listed_as_of(30.0)) == ["docker.io/library/nginx:1.27", "docker.io/library/busybox:1.36"]
    assert images.next_listing(listed_as_of(30.0)) is None
    assert len(images.node_status_images()) == 2  # (no cache: every image)


def test_node_status_lists_at_most_50_images():
    images = NodeImages("node01")
    for i in range(60):
        images.add(f"example.com/app{i}:v1", 0.0)
    assert len(images.node_status_images()) == 50


@pytest.mark.parametrize("labels, want", [
    ({}, list(WORKER_IMAGES)),
    ({"node-role.kubernetes.io/control-plane": ""}, list(KUBEADM_IMAGES)),
], ids=["a worker has the sandbox image and the add-ons' images", "a control-plane node has what kubeadm pulled"])
def test_a_node_starts_with_the_images_its_setup_pulled(labels, want):
    images = NodeImages.preloaded(node(labels=labels), 0.0)
    assert sorted(images.data["images"]) == sorted(want)
