"""Image pulls that fail like a real kubelet's, through the CLI (issue 14, Images): an unknown tag
or a misspelt repository backs off as ErrImagePull / ImagePullBackOff with the events and messages
of pkg/kubelet/images/image_manager.go, and ``set image`` to a real tag recovers the pod."""

import pytest


def status(h, name):
    row = [ln.split() for ln in h.ok("get pods --no-headers").splitlines() if ln.split()[0] == name]
    return row[0][1:4]


def events(h, name):
    out = h.ok(f"get events --field-selector involvedObject.name={name} -o custom-columns=R:.reason,C:.count,M:.message"
               " --no-headers --sort-by=.lastTimestamp")
    return [ln.split(None, 2) for ln in out.splitlines()]


@pytest.mark.parametrize("image, code, detail", [
    ("nginx:1.99", "NotFound", 'failed to pull and unpack image "docker.io/library/nginx:1.99": failed to resolve '
     'reference "docker.io/library/nginx:1.99": docker.io/library/nginx:1.99: not found'),
    ("ngnix", "Unknown", 'failed to pull and unpack image "docker.io/library/ngnix:latest": failed to resolve '
     'reference "docker.io/library/ngnix:latest": pull access denied, repository does not exist or may require '
     'authorization: server message: insufficient_scope: authorization failed'),
])
def test_a_bad_image_backs_off_and_set_image_recovers(kubesim, image, code, detail):
    kubesim.ok(f"run web --image={image}")
    kubesim.ok("advance 5s")
    assert status(kubesim, "web") == ["0/1", "ErrImagePull", "0"]
    kubesim.ok("advance 60s")
    assert status(kubesim, "web") == ["0/1", "ImagePullBackOff", "0"]
    failed = f'Failed to pull image "{image}": rpc error: code = {code} desc = {detail}'
    evs = events(kubesim, "web")
    # pulls at 0s, 10s and 30s (the back-off doubles from 10 s), back-off events in between
    assert ["Pulling", "3", f'Pulling image "{image}"'] in evs
    assert ["Failed", "3", failed] in evs
    assert ["Failed", "3", "Error: ErrImagePull"] in evs
    assert any(e[0] == "BackOff" and e[2] == f'Back-off pulling image "{image}"' for e in evs)
    assert any(e[0] == "Failed" and e[2] == "Error: ImagePullBackOff" for e in evs)
    waiting = kubesim.ok("get pod web -o jsonpath={.status.containerStatuses[0].state.waiting.message}")
    assert waiting == f'Back-off pulling image "{image}": ErrImagePull: {detail}'
    assert kubesim.ok("set image pod/web web=nginx:1.27") == "pod/web image updated\n"
    kubesim.ok("advance 60s")
    assert status(kubesim, "web") == ["1/1", "Running", "0"]


@pytest.mark.parametrize("image", ["nginx:1.27.3-alpine", "busybox:1.36", "myorg/unknown-to-kubesim:v7",
                                   "registry.k8s.io/pause:3.10"])
def test_real_tags_and_images_outside_the_data_run(kubesim, image):
    kubesim.ok(f"run p --image={image} -- sleep 3600")
    kubesim.ok("advance 5s")
    assert status(kubesim, "p") == ["1/1", "Running", "0"]


@pytest.mark.parametrize("image, policy, expected", [
    ("nginx:1.99", "Never", ["0/1", "ErrImageNeverPull", "0"]),
    ("ngnix", "Never", ["0/1", "ErrImageNeverPull", "0"]),
    ("nginx:1.27", "Never", ["0/1", "ErrImageNeverPull", "0"]),
    ("nginx:1.99", "IfNotPresent", ["0/1", "ErrImagePull", "0"]),
    ("nginx:1.99", "Always", ["0/1", "ErrImagePull", "0"]),
])
def test_pull_policy_never_does_not_pull_an_absent_image(kubesim, image, policy, expected):
    """image_manager.go EnsureImageExists: under Never an absent image is ErrImageNeverPull, tried
    again on every pod sync, never pulled."""
    kubesim.ok(f"run web --image={image} --image-pull-policy={policy}")
    kubesim.ok("advance 35s")
    assert status(kubesim, "web") == expected
    if expected[1] == "ErrImageNeverPull":
        msg = f'Container image "{image}" is not present with pull policy of Never'
        evs = events(kubesim, "web")
        assert ["ErrImageNeverPull", "4", msg] in evs and ["Failed", "4", "Error: ErrImageNeverPull"] in evs
        assert not any(e[0] == "Pulling" for e in evs)
        waiting = kubesim.ok("get pod web -o jsonpath={.status.containerStatuses[0].state.waiting.message}")
        assert waiting == msg


PINNED = ("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  nodeName: node01\n"
          "  containers: [{name: c, image: \"docker.io/library/python:3.12\", command: [sleep, \"3600\"]}]\n")


def test_a_node_lists_what_it_pulled_after_its_pods_are_gone(kubesim):
    """The kubelet's node status lists the image cache whether or not pods remain: on a node
    left without pods after a pull and before the cache's refresh, the image is listed at the
    refresh."""
    kubesim.ok("delete daemonset kube-proxy -n kube-system")
    kubesim.ok("delete pods -n kube-system -l k8s-app=kube-proxy --now")
    kubesim.ok("apply -f -", PINNED.replace("node01", "node02"))
    kubesim.ok("advance 20s")
    assert status(kubesim, "a") == ["1/1", "Running", "0"]
    kubesim.ok("delete pod a --now")
    assert kubesim.ok("get pods -A --field-selector spec.nodeName=node02") == ""
    assert "python" not in kubesim.ok("get node node02 -o jsonpath={.status.images[*].names}")
    kubesim.ok("advance 15s")
    assert kubesim.ok("get node node02 -o jsonpath={.status.images[0].names[1]}") == \
        "docker.io/library/python:3.12"


def test_a_stopped_kubelet_lists_what_it_pulled_once_started_again(kubesim):
    """Stopped before the refresh that would list its pull, a node without pods lists the
    image when its kubelet starts again, not only at its next pod."""
    kubesim.ok("delete daemonset kube-proxy -n kube-system")
    kubesim.ok("delete pods -n kube-system -l k8s-app=kube-proxy --now")
    kubesim.ok("apply -f -", PINNED.replace("node01", "node02"))
    kubesim.ok("advance 20s")
    kubesim.ok("delete pod a --now")
    kubesim.ok("node stop node02")
    kubesim.ok("advance 15s")
    assert "python" not in kubesim.ok("get node node02 -o jsonpath={.status.images[*].names}")
    kubesim.ok("node start node02")
    kubesim.ok("advance 1s")
    assert kubesim.ok("get node node02 -o jsonpath={.status.images[0].names[1]}") == \
        "docker.io/library/python:3.12"


def test_one_advance_lists_at_each_refresh_it_passes(kubesim):
    """The refresh at :30 comes within the same command as the pull that ends at :13 (one
    transaction, settled at each wake): the node lists the image then, not at the next
    command."""
    kubesim.ok("apply -f -", PINNED)
    kubesim.ok("advance 35s")
    assert kubesim.ok("get node node01 -o jsonpath={.status.images[0].names[1]}") == \
        "docker.io/library/python:3.12"
    # posted at the refresh (a later command would post it too, at its own time)
    assert kubesim.ok(["get", "node", "node01", "--show-managed-fields", "-o",
                       'jsonpath={.metadata.managedFields[?(@.subresource=="status")].time}']) == "2026-11-22T10:00:30Z"


def image_locality(h, pod):
    import json

    nodes = json.loads(h.ok(f"explain-schedule {pod} -o json"))["nodes"]
    return {n: (v.get("score") or {}).get("ImageLocality", {}).get("final") for n, v in nodes.items()
            if n != "controlplane"}


def test_a_pulled_image_is_listed_by_its_node_and_seen_by_image_locality(kubesim):
    """The kubelet reports what it pulled in node.status.images (digest, then tag); ImageLocality
    scores a node by the names there. As upstream's normalizedImageName only adds ``:latest``,
    a familiar name (``python:3.12``) does not match containerd's ``docker.io/library/...``."""
    kubesim.ok("apply -f -", PINNED)
    assert status(kubesim, "a") == ["0/1", "ContainerCreating", "0"]
    kubesim.ok("advance 20s")  # python:3.12 is large: about 13 s at the simulated bandwidth
    assert status(kubesim, "a") == ["1/1", "Running", "0"]
    # pulled, but listed only from the image cache's next refresh (every 30 s, on the minute)
    assert "python" not in kubesim.ok("get node node01 -o jsonpath={.status.images[*].names}")
    kubesim.ok("advance 10s")
    names = kubesim.ok("get node node01 -o jsonpath={.status.images[0].names}")
    assert names.startswith('["docker.io/library/python@sha256:') and names.endswith(
        '","docker.io/library/python:3.12"]')
    assert kubesim.ok("get node node01 -o jsonpath={.status.images[*].names[1]}") == \
        ("docker.io/library/python:3.12 registry.k8s.io/kube-proxy:v1.35.0 "  # largest first; the add-ons'
         "registry.k8s.io/coredns/coredns:v1.13.1 registry.k8s.io/pause:3.10.1")  # images; the sandbox image
    assert kubesim.ok("get node node02 -o jsonpath={.status.images[*].names[1]}") == (  # only its kube-proxy pod
        "registry.k8s.io/kube-proxy:v1.35.0 registry.k8s.io/coredns/coredns:v1.13.1 registry.k8s.io/pause:3.10.1")
    kubesim.ok("run b --image=docker.io/library/python:3.12 -- sleep 3600")
    assert image_locality(kubesim, "b") == {"node01": 10, "node02": 0}
    assert status(kubesim, "b") == ["1/1", "Running", "0"]  # IfNotPresent, present on node01: no pull
    assert ["Pulled", "1", 'Container image "docker.io/library/python:3.12" already present on machine and can be '
            "accessed by the pod"] in events(kubesim, "b")
    kubesim.ok("run c --image=python:3.12 -- sleep 3600")
    assert image_locality(kubesim, "c") == {"node01": 0, "node02": 0}
