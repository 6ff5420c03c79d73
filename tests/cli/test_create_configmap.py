"""``create configmap|cm``, byte for byte against the real kubectl 1.36 (``--dry-run=client``
needs no server), from literals, files, directories and env files, with every refusal kubectl
makes (upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_configmap.go)."""

from __future__ import annotations

import shlex

import pytest

from kubesim.testing.cli import Harness
from tests.cli.test_generate import _mask, kubectl, needs_kubectl  # noqa: F401  (kubectl is a fixture)


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "src"
    (d / "dir").mkdir(parents=True)
    (d / "app.properties").write_text("a=1\nb=2\n")
    (d / "greet.txt").write_text("hello <world> & more\n")
    (d / "dir" / "one").write_text("x")
    (d / "dir" / "two").write_text("y")
    (d / "dir" / "bin").write_bytes(b"\xff\xfe")
    (d / "dir" / "sub").mkdir()
    (d / "good.env").write_bytes(b"\xef\xbb\xbfA=1\r\n  # a comment\n\nFROM_ENV\nC=x=y\n")
    (d / "bad.env").write_text("export X=1\n")
    (d / "binary.env").write_bytes(b"A=\xff\n")
    return d


CASES = [
    "x --from-literal=a=1 --from-literal=b=x,y -o yaml",
    "x --from-literal=a=1 -o json",
    "x --from-literal=a=1",
    "x --from-literal=a=1 -o name",
    "x --from-literal='a=<&>' -o json",
    "x -n team-a --from-literal=a=1 -o yaml",
    "x --from-literal=a=b --append-hash -o yaml",
    "x --from-file={d}/dir --append-hash -o name",
    "cm --from-file={d}/app.properties --from-file=k={d}/greet.txt -o yaml",
    "cm --from-file={d}/dir -o yaml",
    "cm --from-file={d}/dir -o json",
    "cm --from-file={d}/dir,{d}/app.properties -o yaml",
    "cm --from-env-file={d}/good.env -o yaml",
    "cm -o yaml",
    # refused, with kubectl's words
    "cm --from-file=k={d}/dir",
    "cm --from-file={d}/missing",
    "cm --from-env-file={d}/missing",
    "cm --from-env-file={d}/dir",
    "cm --from-env-file={d}/bad.env",
    "cm --from-env-file={d}/binary.env",
    "cm --from-literal==x",
    "cm --from-literal=a",
    "cm --from-file=a=b=c",
    "cm --from-file==x",
    "cm --from-file=x=",
    "cm --from-literal=a=1 --from-literal=a=2",
    "cm --from-literal=a/b=1",
    "cm --from-literal=..a=1",
    "cm --from-env-file={d}/good.env --from-literal=a=1",
    "cm '--from-file=\"a,b'",
    "--from-literal=a=1",
    "a b --from-literal=a=1",
]


@needs_kubectl
@pytest.mark.parametrize("line", CASES)
def test_create_configmap_prints_what_kubectl_prints(kubectl, files, tmp_path, line):
    argv = ["create", "configmap"] + shlex.split(line.format(d=files)) + ["--dry-run=client"]
    want = kubectl(argv)
    h = Harness(tmp_path / "state")
    got = h(argv)
    assert (got.code, _mask(got.out), _mask(got.err)) == (want[0], _mask(want[1]), _mask(want[2]))
    assert not (tmp_path / "state").exists()


def test_cm_is_configmaps_alias(files, tmp_path):
    h = Harness(tmp_path / "state")
    assert h.ok("create cm x --from-literal=a=1 --dry-run=client -o yaml") == \
        h.ok("create configmap x --from-literal=a=1 --dry-run=client -o yaml")


def test_an_env_file_key_without_a_value_takes_it_from_the_environment(files):
    from kubesim.kubectl.generate.configmap import read_env_file

    assert read_env_file(str(files / "good.env"), {"FROM_ENV": "from the environment"}) == [
        ("A", "1"), ("FROM_ENV", "from the environment"), ("C", "x=y")]


def test_create_configmap_creates_it_and_get_describe_show_it(files, tmp_path):
    h = Harness(tmp_path / "state")
    assert h.ok(f"create configmap app --from-literal=mode=production --from-file={files}/dir") == \
        "configmap/app created\n"
    assert h.ok("get cm app") == "NAME   DATA   AGE\napp    4      0s\n"
    text = h.ok("describe configmap app")
    assert "mode:\n----\nproduction\n" in text and "bin: 2 bytes\n" in text
    assert h.ok("create cm ghost --from-literal=a=1 --dry-run=server") == "configmap/ghost created (server dry run)\n"
    assert h("get cm ghost").code == 1


def test_an_immutable_config_map_refuses_a_change_and_stays_as_it_was(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("apply -f -", stdin="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen}\nimmutable: true\n"
                             "data: {a: '1'}\n")
    r = h("patch cm frozen -p '{\"data\":{\"a\":\"2\"}}'")
    assert (r.code, r.err) == (1, 'The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when '
                                  "`immutable` is set\n")
    assert h.ok("get cm frozen -o jsonpath={.data.a}") == "1"
    assert h.ok("label cm frozen team=a") == "configmap/frozen labeled\n"  # metadata may change


def test_a_config_map_key_in_both_bags_is_refused_with_the_servers_text(tmp_path):
    h = Harness(tmp_path / "state")
    r = h("apply -f -", stdin="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup}\ndata: {k: v}\n"
                              "binaryData: {k: AAE=}\n")
    assert (r.code, r.err) == (1, 'The ConfigMap "dup" is invalid: data[k]: Invalid value: "k": duplicate of key '
                                  "present in binaryData\n")
    assert h("get cm dup").code == 1
