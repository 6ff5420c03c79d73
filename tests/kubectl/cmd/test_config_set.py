"""kubectl config set / unset: byte for byte against the real kubectl 1.36 on the same kubeconfig
file (pkg/cmd/config/set.go, unset.go, navigation_step_parser.go and their tests' cases: dotted
paths through the internal Config, map keys holding dots, byte fields in base64 or raw, booleans,
and every refusal), then a round trip on the state's own kubeconfig."""

from __future__ import annotations

import re
import shlex

import pytest

from kubesim.kubectl.cmd.config_set import go_base64_decode, navigation_steps
from kubesim.errors import KubesimError
from tests.kubectl.cmd.test_config import ADMIN_CONF, TWO_CLUSTERS, _kubectl, _kubesim, _pair, needs_kubectl

SCENARIOS = [
    ("strings, booleans and map keys with dots are set, new entries made", TWO_CLUSTERS,
     ["config set clusters.k8s-c2.server https://1.2.3.4", "config set contexts.k8s-c2.namespace prod",
      "config set contexts.new.cluster k8s-c2", "config set clusters.my.dotted.name.server https://x",
      "config set clusters.k8s-c2.insecure-skip-tls-verify true", "config set current-context k8s-c2",
      "config set users.c2-admin.act-as someone", "config set preferences.colors true",
      "config set clusters.k8s-c2.insecure-skip-tls-verify false", "config view"]),
    ("byte fields take base64, or raw bytes with --set-raw-bytes", ADMIN_CONF,
     ["config set users.kubernetes-admin.client-key-data aGVsbG8=",
      "config set clusters.kubernetes.certificate-authority-data hello --set-raw-bytes",
      "config set users.kubernetes-admin.client-certificate-data hi --set-raw-bytes=true",
      "config set users.kubernetes-admin.client-key-data hello --set-raw-bytes=false",
      "config set users.kubernetes-admin.client-key-data aGVsbG8", "config set users.x.client-key-data aGV=sbG8",
      "config set users.x.client-key-data hello --set-raw-bytes=maybe", "config view --raw"]),
    ("unset removes a field, an entry, a whole map or the current context", TWO_CLUSTERS,
     ["config unset contexts.k8s-c2.namespace", "config unset users.c2-admin.token", "config unset contexts.nope",
      "config unset contexts.nope.namespace", "config unset current-context", "config current-context",
      "config unset clusters.k8s-c2", "config unset users", "config view"]),
    ("what kubectl refuses", ADMIN_CONF,
     ["config set foo bar", "config set clusters.kubernetes.bogus x", "config set clusters x",
      "config set clusters.kubernetes x", "config set clusters.kubernetes.insecure-skip-tls-verify maybe",
      "config set current-context ''", "config set '' x", "config set users.u.act-as-groups x",
      "config set users.u.act-as-user-extra.k x", "config set users.u.act-as-user-extra x",
      "config set preferences x", "config set preferences.bogus x", "config set clusters.c.server.x y",
      "config set users.u.exec.command x", "config set users.u.extensions x", "config set a", "config set",
      "config unset", "config unset a b", "config view"]),
    ("a file that does not exist is created by set", None,
     ["config set contexts.one.namespace x", "config set current-context one", "config view"]),
]


def _normal(text: str) -> str:
    """kubesim names itself where kubectl does; Go pointers differ from run to run."""
    return re.sub(r"0x[0-9a-f]+", "0xADDR", text.replace("kubectl", "kubesim"))


@needs_kubectl
@pytest.mark.parametrize("name, text, commands", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_config_set_matches_the_real_kubectl(tmp_path, name, text, commands):
    a, b = _pair(tmp_path, text)
    for command in commands:
        args = ["--kubeconfig", "kc.yaml", *shlex.split(command)]
        got, want = _kubesim(args, a), _kubectl(args, b)
        assert (got[0], _normal(got[1]), _normal(got[2])) == (want[0], _normal(want[1]), _normal(want[2])), command
        assert (a / "kc.yaml").exists() == (b / "kc.yaml").exists(), command
        if (b / "kc.yaml").exists():
            assert (a / "kc.yaml").read_text() == (b / "kc.yaml").read_text(), command


@pytest.mark.parametrize("text, expected", [
    ("aGVsbG8=", b"hello"), ("aGVs\nbG8=", b"hello"), ("", b""), ("aGk=", b"hi"),
    ("notbase64", "illegal base64 data at input byte 8"), ("aGV=sbG8", "illegal base64 data at input byte 4"),
    ("aG!s", "illegal base64 data at input byte 2"), ("aGk", "illegal base64 data at input byte 0"),
    ("a===", "illegal base64 data at input byte 1"), ("aGk=x", "illegal base64 data at input byte 4"),
    ("aG=", "illegal base64 data at input byte 3"),
], ids=["padded", "a newline is skipped", "empty", "one pad", "a partial quantum", "padding inside",
        "a character outside the alphabet", "missing padding", "padding too early", "trailing garbage",
        "padding cut short"])
def test_go_base64_decode(text, expected):
    """base64.StdEncoding.DecodeString (encoding/base64 decodeQuantum): offsets as the real kubectl reports them."""
    if isinstance(expected, bytes):
        assert go_base64_decode(text) == expected
    else:
        with pytest.raises(KubesimError) as e:
            go_base64_decode(text)
        assert str(e.value) == f"error: error decoding input value: {expected}"


@pytest.mark.parametrize("path, steps", [
    ("current-context", ["current-context"]),
    ("clusters.my-cluster.server", ["clusters", "my-cluster", "server"]),
    ("clusters.my.cluster.server", ["clusters", "my.cluster", "server"]),
    ("contexts.a.b", ["contexts", "a.b"]),
    ("users.u.act-as", ["users", "u", "act-as"]),
    ("preferences.colors", ["preferences", "colors"]),
], ids=["a top-level string", "a map key and a field", "a map key with dots",
        "a key swallows what names no field", "an internal field name", "a struct field"])
def test_navigation_steps(path, steps):
    """newNavigationSteps (navigation_step_parser_test.go's cases)."""
    assert [v for v, _ in navigation_steps(path).steps] == steps


def test_set_and_unset_the_states_own_kubeconfig(kubesim):
    assert kubesim.ok("config set contexts.kubernetes-admin@kubernetes.namespace dev") == \
        'Property "contexts.kubernetes-admin@kubernetes.namespace" set.\n'
    kubesim.ok("create namespace dev")
    kubesim.ok("run web --image=nginx")
    assert kubesim.ok("get pods -o name") == "pod/web\n"
    assert kubesim.ok("get pods -n default -o name") == ""
    assert kubesim.ok("config unset contexts.kubernetes-admin@kubernetes.namespace") == \
        'Property "contexts.kubernetes-admin@kubernetes.namespace" unset.\n'
    assert kubesim.ok("get pods -o name") == ""


@pytest.mark.parametrize("path, first_line", [
    ("extensions.x", "panic: reflect: Elem of invalid type runtime.Object"),
    ("users.u.auth-provider", "panic: unrecognized type: <nil>"),
], ids=["a path into extensions", "a pointer field"])
def test_where_kubectl_panics_kubesim_exits_2_with_its_first_line(kubesim, path, first_line):
    r = kubesim(f"config set {path} x")
    assert (r.code, r.out, r.err) == (2, "", first_line + "\n")
