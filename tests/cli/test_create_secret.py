"""``create secret generic|tls|docker-registry``, byte for byte against the real kubectl 1.36
(``--dry-run=client`` needs no server), with every refusal kubectl makes (upstream:
staging/src/k8s.io/kubectl/pkg/cmd/create/create_secret.go, create_secret_tls.go,
create_secret_docker.go; crypto/tls X509KeyPair for the certificate checks)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from kubesim.testing.cli import Harness
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)

TLS = Path(__file__).parent.parent / "testdata" / "tls"


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "src"
    (d / "dir").mkdir(parents=True)
    (d / "dir" / "one").write_text("x")
    (d / "dir" / "bin").write_bytes(b"\xff\xfe")
    (d / "dir" / "sub").mkdir()
    (d / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (d / "good.env").write_bytes(b"\xef\xbb\xbfUSER=admin\r\n# comment\nPASS=s3=cr3t\n")
    (d / "config.json").write_text('{"auths":{"reg.io":{"auth":"dTpw"}}}')
    (d / "junk.txt").write_text("not a pem\n")
    return d


CASES = [
    "generic x --from-literal=user=admin --from-literal=pass=s3cr3t -o yaml",
    "generic x --from-literal=a=1 -o json",
    "generic x --from-literal=a=1",
    "generic x --from-literal=a=1 -o name",
    "generic x --from-literal='a=<&>' -o json",
    "generic x -n team-a --from-literal=a=1 -o yaml",
    "generic x --from-literal=a=b --append-hash -o name",
    "generic x --type=kubernetes.io/basic-auth --from-literal=username=u -o yaml",
    "generic x --from-file={d}/dir -o yaml",
    "generic x --from-file=ssh-privatekey={d}/id_rsa --from-literal=passphrase=p -o yaml",
    "generic x --from-env-file={d}/good.env -o yaml",
    "generic x -o yaml",
    "tls x --cert={t}/rsa.crt --key={t}/rsa.key -o yaml",
    "tls x --cert={t}/rsa.crt --key={t}/rsa1.key -o name",
    "tls x --cert={t}/ec.crt --key={t}/ec.key -o name",
    "tls x --cert={t}/ec.crt --key={t}/ec8.key -o name",
    "tls x --cert={t}/ec.crt --key={t}/ecnopub.key -o name",
    "tls x --cert={t}/rsa.crt --key={t}/rsa.key --append-hash -o name",
    "docker-registry x --docker-username=u --docker-password=p -o yaml",
    "docker-registry x --docker-username='<u>' --docker-password=p:q --docker-email=e@x.io "
    "--docker-server=reg.io -o json",
    "docker-registry x --from-file={d}/config.json -o yaml",
    "docker-registry x --from-file=k={d}/config.json -o yaml",
    # refused, with kubectl's words
    "generic",
    "generic a b",
    "generic x --from-literal=a=1 --from-literal=a=2",
    "generic x --from-literal='a b=c'",
    "generic x --from-literal=..a=1",
    "generic x --from-env-file={d}/dir",
    "generic x --from-env-file={d}/good.env --from-literal=a=1",
    "generic x --from-file=k={d}/dir",
    "generic x --from-file={d}/missing",
    "generic x --image=nginx",
    "tls x",
    "tls x --cert={t}/rsa.crt",
    "tls x --cert={d}/missing --key={t}/rsa.key",
    "tls x --cert={t}/rsa.crt --key={t}/rsa2.key",
    "tls x --cert={t}/ec.crt --key={t}/rsa.key",
    "tls x --cert={t}/rsa.crt --key={t}/ec.key",
    "tls x --cert={d}/junk.txt --key={t}/rsa.key",
    "tls x --cert={t}/rsa.key --key={t}/rsa.key",
    "tls x --cert={t}/rsa.crt --key={t}/rsa.crt",
    "tls x --cert={t}/rsa.crt --key={d}/junk.txt",
    "tls x --cert={t}/ec.pub --key={t}/rsa.key",
    "tls x --cert={t}/rsa.crt --key={t}/ec.pub",
    "docker-registry x",
    "docker-registry x --docker-username=u --docker-password=p --docker-server=",
    "foo x",
]


@needs_kubectl
@pytest.mark.parametrize("line", CASES)
def test_create_secret_prints_what_kubectl_prints(kubectl, files, tmp_path, line):
    argv = ["create", "secret"] + shlex.split(line.format(d=files, t=TLS)) + ["--dry-run=client"]
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    got = h(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


def test_create_secret_creates_it_and_get_describe_show_sizes_only(files, tmp_path):
    h = Harness(tmp_path / "state")
    assert h.ok("create secret generic db --from-literal=user=admin --from-literal=password=s3cr3t") == \
        "secret/db created\n"
    assert h.ok("get secret db") == "NAME   TYPE     DATA   AGE\ndb     Opaque   2      0s\n"
    # what the real kubectl 1.36 prints for the same Secret on a v1.35 cluster
    assert h.ok("describe secret db") == (
        "Name:         db\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\n"
        "Type:  Opaque\n\nData\n====\npassword:  6 bytes\nuser:      5 bytes\n")
    assert h.ok(f"create secret tls web --cert={TLS}/rsa.crt --key={TLS}/rsa.key") == "secret/web created\n"
    assert h.ok("get secret web -o jsonpath={.type}") == "kubernetes.io/tls"
    assert h.ok("create secret generic ghost --from-literal=a=1 --dry-run=server") == \
        "secret/ghost created (server dry run)\n"
    assert h("get secret ghost").code == 1
    # create_secret.go words the server's refusal without a colon, unlike create configmap
    r = h("create secret generic db --from-literal=a=b")
    assert (r.code, r.err) == (1, 'error: failed to create secret secrets "db" already exists\n')
