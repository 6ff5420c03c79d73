"""The image catalogue (kubesim.kubelet.images)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.images import image_repository


@pytest.mark.parametrize("image,repo", [("nginx", "nginx"), ("docker.io/library/nginx:1.27", "nginx"),
                                        ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause"),
                                        ("localhost:5000/app:1", "localhost:5000/app"),
                                        ("busybox@sha256:" + "a" * 64, "busybox")], ids=str)
def test_image_repository(image, repo):
    assert image_repository(image) == repo
