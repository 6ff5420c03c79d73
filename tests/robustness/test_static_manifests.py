"""A static pod manifest the kubelet refuses (issue 18, item 1), through the CLI: an invalid name
or quantity used to become a running mirror pod and every later scheduling command printed a
traceback. Now the kubelet decodes and validates it as config/common.go tryDecodeSinglePod does,
logs file.go's "Could not process manifest file" once (the line a user reads with journalctl on
a real node), runs and mirrors nothing, and every later command works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BAD = {
    "an invalid name": ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: Bad_Name\nspec:\n  containers:\n"
                        "  - name: c\n    image: nginx\n",
                        'err="invalid pod: [metadata.name: Invalid value: \\"Bad_Name-node01\\": a lowercase RFC 1123 '
                        "subdomain must consist of"),
    "an invalid quantity": ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: qty\nspec:\n  containers:\n"
                            "  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: \"1.5.5\"\n",
                            "couldn't parse as pod(quantities must match the regular expression"),
    "a negative quantity": ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: neg\nspec:\n  containers:\n"
                            "  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: \"-1\"\n",
                            'err="invalid pod: [spec.containers[0].resources.requests[cpu]: Invalid value: \\"-1\\": '
                            "must be greater than or equal to 0"),
    "a string for a list": ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\nspec:\n  containers: x\n",
                            "json: cannot unmarshal string into Go struct field PodSpec.spec.containers"),
}


def static_dir(h) -> Path:
    cfg = json.loads(h.ok("get --raw /api/v1/nodes/node01/proxy/configz"))
    return Path(cfg["kubeletconfig"]["staticPodPath"])


@pytest.mark.parametrize("text, logged", list(BAD.values()), ids=list(BAD))
def test_a_refused_static_manifest_is_logged_once_and_breaks_nothing(kubesim, text, logged):
    d = static_dir(kubesim)
    (d / "bad.yaml").write_text(text)
    r = kubesim("run web --image=nginx")  # the first command after the file appeared
    assert (r.code, r.out) == (0, "pod/web created\n")
    lines = r.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("E1122 10:00:00.000000 ")
    assert ' file.go:187] "Could not process manifest file" ' in lines[0] and logged in lines[0]
    assert lines[0].endswith(f' path="{d / "bad.yaml"}"')
    # nothing mirrored; the scheduler and the rest carry on; the error is not logged again
    kubesim.ok("advance 5s")  # nginx pulled
    pods = kubesim.ok("get pods -o wide --no-headers").splitlines()
    assert [p.split()[0] for p in pods] == ["web"] and pods[0].split()[2] == "Running"
    r = kubesim("create deployment d --image=nginx --replicas=2")
    assert (r.code, r.err) == (0, "")
    assert kubesim.ok("advance 10s") and "Bad" not in kubesim.ok("get pods -A")
    (d / "bad.yaml").unlink()
    assert kubesim("get pods").err == ""
