"""A command the image does not have: runc's exec lookup (a name through $PATH, a path
stat'ed) and the message containerd passes to the kubelet; images kubesim does not list run
anything."""

from __future__ import annotations

import pytest

from kubesim.kubelet.behaviour import behaviour
from kubesim.kubelet.imagefiles import START_ERROR_PREFIX, start_error

NOT_IN_PATH = START_ERROR_PREFIX + 'exec: "{}": executable file not found in $PATH: unknown'
NO_FILE = START_ERROR_PREFIX + 'exec: "{0}": stat {0}: no such file or directory: unknown'


@pytest.mark.parametrize("argv, image, want", [
    (["nosuchbinary"], "busybox", NOT_IN_PATH.format("nosuchbinary")),
    (["sleep", "3600"], "busybox:1.36", None),
    (["sh", "-c", "echo hi"], "busybox", None),
    (["/bin/sh", "-c", "echo hi"], "busybox", None),
    (["bash", "-c", "echo hi"], "busybox", NOT_IN_PATH.format("bash")),
    (["/bin/bash", "-c", "echo hi"], "busybox", NO_FILE.format("/bin/bash")),
    (["/bin/bash", "-c", "echo hi"], "alpine:3.20", NO_FILE.format("/bin/bash")),
    (["apk", "add", "curl"], "alpine", None),
    (["curl", "-s", "example.com"], "alpine", NOT_IN_PATH.format("curl")),
    (["/bin/bash", "-c", "echo hi"], "ubuntu:24.04", None),
    (["ping", "10.0.0.1"], "ubuntu", NOT_IN_PATH.format("ping")),
    (["nginx", "-g", "daemon off;"], "nginx:1.27", None),
    (["/docker-entrypoint.sh", "nginx", "-g", "daemon off;"], "nginx", None),
    (["ngnix"], "nginx", NOT_IN_PATH.format("ngnix")),
    (["bash"], "nginx:alpine", NOT_IN_PATH.format("bash")),
    (["nosuchbinary"], "redis:7", None),
    (["nosuchbinary"], "example.com/team/app:v1", None),
    ([], "busybox", None),
], ids=["a typo'd binary in busybox", "a busybox applet", "busybox's sh", "busybox's /bin/sh",
        "bash is not in busybox", "/bin/bash is not in busybox", "/bin/bash is not in alpine",
        "apk is alpine's", "curl is not in alpine's base", "ubuntu has bash", "ubuntu's base has no ping",
        "nginx has nginx", "nginx's entrypoint", "a typo of nginx", "nginx:alpine is alpine-based",
        "an image not listed runs anything", "an unknown image runs anything", "no command: the image's own"])
def test_a_command_the_image_lacks_cannot_start(argv, image, want):
    assert start_error(argv, image) == want


def test_the_container_terminates_with_start_error_and_exit_code_128():
    derived = behaviour({"name": "c", "image": "busybox", "command": ["nosuchbinary"]})
    assert (derived.exits_after, derived.exit_code, derived.terminated_reason()) == (0.0, 128, "StartError")
    assert derived.start_error == NOT_IN_PATH.format("nosuchbinary")
