"""A static pod manifest edited or removed, through the CLI on a pinned clock: the kubelet kills
the old static pod with its grace period before the new one starts (pod_workers.go
allowStaticPodStart, retried every 10 s), the old mirror pod stays as it was meanwhile, and the
new one has a new UID (kubesim.kubelet.staticpods)."""

import json
from pathlib import Path

import pytest

from kubesim.clock import format_time
from kubesim.testing.kubelet import T0


def manifest(image="nginx:1.27", command=None, grace=None) -> str:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n"
    if grace is not None:
        text += f"  terminationGracePeriodSeconds: {grace}\n"
    text += f"  containers:\n  - name: c\n    image: {image}\n"
    if command:
        text += f"    command: {json.dumps(command)}\n"
    return text


def mirror(h) -> dict | None:
    r = h("get pod web-node01 -o json")
    return json.loads(r.out) if r.code == 0 else None


def static_dir(h) -> Path:
    cfg = json.loads(h.ok("get --raw /api/v1/nodes/node01/proxy/configz"))
    return Path(cfg["kubeletconfig"]["staticPodPath"])


EDITS = [
    ("nginx exits at SIGTERM: the new pod starts at its first retry, 10 s after the edit",
     {}, 10),
    ("a process that ignores SIGTERM is killed at the end of the default 30 s grace period",
     {"image": "busybox", "command": ["sleep", "3600"]}, 30),
    ("a 5 s grace period: the kill ends at 5 s, the retry at 10 s starts the new pod",
     {"image": "busybox", "command": ["sleep", "3600"], "grace": 5}, 10),
    ("a 45 s grace period: retries at 10, 20, 30 and 40 s find the old pod still there",
     {"image": "busybox", "command": ["sleep", "3600"], "grace": 45}, 50),
]


@pytest.mark.parametrize("spec,replaced_after", [c[1:] for c in EDITS], ids=[c[0] for c in EDITS])
def test_an_edited_manifest_replaces_the_pod_after_the_old_one_is_killed(kubesim, spec, replaced_after):
    d = static_dir(kubesim)
    (d / "web.yaml").write_text(manifest(**spec))
    kubesim.ok("advance 20s")
    old = mirror(kubesim)
    assert old["status"]["phase"] == "Running"
    (d / "web.yaml").write_text(manifest(**spec).replace("name: c\n", "name: c\n    env: [{name: V, value: '2'}]\n"))
    kubesim.ok(f"advance {replaced_after - 1}s")
    during = mirror(kubesim)
    assert during == old  # the old mirror pod, untouched: its static pod's kill is not posted
    kubesim.ok("advance 1s")
    new = mirror(kubesim)
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    assert new["metadata"]["annotations"]["kubernetes.io/config.hash"] != \
        old["metadata"]["annotations"]["kubernetes.io/config.hash"]
    assert new["spec"]["containers"][0]["env"] == [{"name": "V", "value": "2"}]
    assert new["metadata"]["creationTimestamp"] == format_time(T0 + 20 + replaced_after)
    kubesim.ok("advance 1s")  # its image pulled again (untagged: imagePullPolicy Always)
    assert mirror(kubesim)["status"]["phase"] == "Running"
    events = json.loads(kubesim.ok("get events --field-selector involvedObject.name=web-node01 -o json"))["items"]
    assert ("Killing", "Stopping container c", "2026-11-22T10:00:20Z") in \
        [(e["reason"], e["message"], e["lastTimestamp"]) for e in events]


REMOVALS = [
    ("nginx exits at SIGTERM: the mirror pod goes at once", {}, 0),
    ("SIGTERM ignored: the mirror pod shows the pod until the 30 s grace period ends",
     {"image": "busybox", "command": ["sleep", "3600"]}, 30),
]


@pytest.mark.parametrize("spec,gone_after", [c[1:] for c in REMOVALS], ids=[c[0] for c in REMOVALS])
def test_a_removed_manifest_kills_the_pod_then_deletes_its_mirror_pod(kubesim, spec, gone_after):
    d = static_dir(kubesim)
    (d / "web.yaml").write_text(manifest(**spec))
    kubesim.ok("advance 20s")
    (d / "web.yaml").unlink()
    if gone_after:
        kubesim.ok(f"advance {gone_after - 1}s")
        assert mirror(kubesim)["status"]["phase"] == "Running"
        kubesim.ok("advance 1s")
    else:
        kubesim.ok("get pods")
    assert mirror(kubesim) is None


def test_a_kubelet_started_again_runs_the_edited_manifest_at_once(kubesim):
    """The new kubelet has no static pod started under that name; the old containers are pods it
    does not know, killed by its housekeeping."""
    d = static_dir(kubesim)
    (d / "web.yaml").write_text(manifest())
    kubesim.ok("advance 20s")
    old = mirror(kubesim)
    kubesim.ok("node stop node01")
    (d / "web.yaml").write_text(manifest("nginx:1.28"))
    kubesim.ok("advance 5s")
    assert mirror(kubesim) == old  # a stopped kubelet reads nothing
    kubesim.ok("node start node01")
    new = mirror(kubesim)
    assert (new["spec"]["containers"][0]["image"], new["metadata"]["creationTimestamp"]) == \
        ("nginx:1.28", "2026-11-22T10:00:25Z")
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
