"""Which image references exist (kubesim.kubelet.imagetags) and the data file behind it
(tools/gen_image_tags.py). The parsing cases mirror github.com/distribution/reference's
normalize_test.go (TestParseNormalizedNamed / TestFamiliarName): familiar names get docker.io and
library/, a registry is a first component with a dot, a colon or ``localhost``."""

import importlib.util
from pathlib import Path

import pytest

from kubesim.kubelet import imagetags
from kubesim.kubelet.imagetags import near_miss, parse_reference, pull_error

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("image, domain, path, tag, digest, familiar", [
    ("nginx", "docker.io", "library/nginx", "latest", "", "nginx"),
    ("nginx:1.27", "docker.io", "library/nginx", "1.27", "", "nginx"),
    ("library/nginx:1.27", "docker.io", "library/nginx", "1.27", "", "nginx"),
    ("docker.io/nginx", "docker.io", "library/nginx", "latest", "", "nginx"),
    ("docker.io/library/nginx:1.27-alpine", "docker.io", "library/nginx", "1.27-alpine", "", "nginx"),
    ("index.docker.io/library/redis:7", "docker.io", "library/redis", "7", "", "redis"),
    ("bitnami/kubectl:1.35", "docker.io", "bitnami/kubectl", "1.35", "", "bitnami/kubectl"),
    ("registry.k8s.io/pause:3.10", "registry.k8s.io", "pause", "3.10", "", "registry.k8s.io/pause"),
    ("registry.k8s.io/coredns/coredns:v1.12.1", "registry.k8s.io", "coredns/coredns", "v1.12.1", "",
     "registry.k8s.io/coredns/coredns"),
    ("localhost/app", "localhost", "app", "latest", "", "localhost/app"),
    ("localhost:5000/app:v1", "localhost:5000", "app", "v1", "", "localhost:5000/app"),
    ("nginx@sha256:" + "a" * 64, "docker.io", "library/nginx", "", "sha256:" + "a" * 64, "nginx"),
    ("nginx:1.27@sha256:" + "b" * 64, "docker.io", "library/nginx", "1.27", "sha256:" + "b" * 64, "nginx"),
])
def test_parse_reference(image, domain, path, tag, digest, familiar):
    ref = parse_reference(image)
    assert (ref.domain, ref.path, ref.tag, ref.digest, ref.familiar) == (domain, path, tag, digest, familiar)


NOT_FOUND = ('failed to pull and unpack image "{0}": failed to resolve reference "{0}": {0}: not found')
DENIED = ('failed to pull and unpack image "{0}": failed to resolve reference "{0}": pull access denied, '
          'repository does not exist or may require authorization: server message: insufficient_scope: '
          'authorization failed')


@pytest.mark.parametrize("image, expected", [
    # known repositories, known tags (and the images kubesim's own cluster runs)
    ("nginx", None), ("nginx:latest", None), ("nginx:1.27", None), ("nginx:1.27.3-alpine", None),
    ("nginx:alpine", None), ("nginx:stable-alpine", None), ("busybox:1.28", None), ("busybox:1.36.1", None),
    ("alpine:3.20", None), ("redis:7.2-alpine", None), ("httpd:2.4", None), ("memcached:1.6-alpine", None),
    ("mysql:8.0", None), ("postgres:16-alpine", None), ("ubuntu:22.04", None), ("debian:bookworm-slim", None),
    ("python:3.12-slim", None), ("node:20-alpine", None), ("registry.k8s.io/pause:3.10", None),
    ("registry.k8s.io/etcd:3.6.6-0", None), ("registry.k8s.io/kube-apiserver:v1.35.0", None),
    ("registry.k8s.io/coredns/coredns:v1.12.1", None), ("docker.io/library/nginx:1.25", None),
    # the Kubernetes documentation's examples (Deployment rollout, stateful MySQL)
    ("nginx:1.14.2", None), ("nginx:1.16.1", None), ("nginx:1.7.9", None), ("nginx:1.9.1", None),
    ("mysql:5.6", None), ("busybox:1.27.2", None),
    ("nginx:1.161", ("NotFound", NOT_FOUND.format("docker.io/library/nginx:1.161"))),
    # unknown tags of known repositories
    ("nginx:1.99", ("NotFound", NOT_FOUND.format("docker.io/library/nginx:1.99"))),
    ("nginx:latestt", ("NotFound", NOT_FOUND.format("docker.io/library/nginx:latestt"))),
    ("busybox:1.2.3", ("NotFound", NOT_FOUND.format("docker.io/library/busybox:1.2.3"))),
    ("redis:alpine-7", ("NotFound", NOT_FOUND.format("docker.io/library/redis:alpine-7"))),
    ("registry.k8s.io/kube-apiserver:v1.35.9", ("NotFound", NOT_FOUND.format("registry.k8s.io/kube-apiserver:v1.35.9"))),
    # near misses of known repositories
    ("ngnix", ("Unknown", DENIED.format("docker.io/library/ngnix:latest"))),
    ("nignx:1.27", ("Unknown", DENIED.format("docker.io/library/nignx:1.27"))),
    ("busyboxx", ("Unknown", DENIED.format("docker.io/library/busyboxx:latest"))),
    ("bitnami/kubctl", ("Unknown", DENIED.format("docker.io/bitnami/kubctl:latest"))),
    ("registry.k8s.io/kube-apiservr:v1.35.0", ("NotFound", NOT_FOUND.format("registry.k8s.io/kube-apiservr:v1.35.0"))),
    # not in the data: runs as before
    ("myorg/app:v2", None), ("quay.io/prometheus/node-exporter:v1.8.0", None), ("mono", None),
    ("nginx@sha256:" + "a" * 64, None), ("Nginx", None), ("localhost:5000/ngnix", None),
])
def test_pull_error(image, expected):
    assert pull_error(image) == expected


@pytest.mark.parametrize("familiar, expected", [
    ("ngnix", "nginx"), ("nginxx", "nginx"), ("busybx", "busybox"), ("apline", "alpine"),
    ("rdis", "redis"), ("postgress", "postgres"), ("pyhton", "python"),
    ("nginx", None), ("mono", None), ("rust", None), ("totally-different", None), ("acme/nginx", None),
])
def test_near_miss(familiar, expected):
    assert near_miss(familiar) == expected


def _generator():
    spec = importlib.util.spec_from_file_location("gen_image_tags", ROOT / "tools" / "gen_image_tags.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("line, tags", [
    ("r 1.2.0-2", {"1.2", "1.2.0", "1.2.1", "1.2.2"}),
    ("r 11.0-2", {"11.0", "11.1", "11.2"}),
    ("r v1.35.0-1", {"v1.35", "v1.35.0", "v1.35.1"}),
    ("r latest 1.2.0-1 | alpine", {"latest", "alpine", "1.2", "1.2.0", "1.2.1", "1.2-alpine", "1.2.0-alpine",
                                   "1.2.1-alpine"}),
    ("r =3.6.6-0 =v1.16-1 | slim", {"3.6.6-0", "v1.16-1", "slim"}),
])
def test_generator_expands_the_source_list(line, tags):
    assert set(_generator().parse(line)["r"]) == tags


def test_the_data_file_is_what_the_source_list_generates():
    gen = _generator()
    expected = gen.parse((ROOT / "tools" / "image-tags.txt").read_text())
    assert {repo: sorted(tags) for repo, tags in imagetags.repositories().items()} == expected
