"""``apply -f`` and ``create -f`` with ``-o``: the server's objects printed as the printer flags
ask (kubectl's apply/create PrintObj), ``-o name`` as before, and an unknown format refused
before anything is sent."""

from __future__ import annotations

import json

import pytest

from kubesim.testing.cli import snapshot

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
CM = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n"


@pytest.mark.parametrize("verb", ["apply", "create"])
def test_jsonpath_prints_from_the_created_objects(kubesim, verb):
    out = kubesim.ok([verb, "-f", "-", "-o", "jsonpath={.kind}/{.metadata.name}:{.metadata.uid}{'\\n'}"],
                     stdin=POD + CM)
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["Pod/p", "ConfigMap/cfg"]
    assert all(len(line.split(":")[1]) == 36 for line in lines)  # what the server returned


def test_yaml_and_json_are_the_stored_objects(kubesim):
    docs = kubesim.ok("apply -f - -o yaml", stdin=POD + CM).split("---\n")
    assert len(docs) == 2 and "resourceVersion:" in docs[0] and "kubectl.kubernetes.io/last-applied" in docs[0]
    again = json.loads(kubesim.ok("apply -f - -o json", stdin=POD))
    assert again["metadata"]["name"] == "p" and again["kind"] == "Pod"  # unchanged: the live object


def test_an_unknown_format_is_refused_before_anything_is_sent(kubesim):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim("create -f - -o bogus", stdin=POD)
    assert r.code == 1 and r.err.startswith('error: unable to match a printer suitable for the output format "bogus"')
    assert snapshot(kubesim.state_dir) == before


def test_name_prints_the_references(kubesim):
    assert kubesim.ok("create -f - -o name", stdin=POD + CM) == "pod/p\nconfigmap/cfg\n"


@pytest.mark.parametrize("command, err", [
    ("apply -f - -o jsonpath-file=/nonexistent",
     "error: error reading --template /nonexistent, open /nonexistent: no such file or directory\n"),
    ("create -f - -o jsonpath-file=/", "error: error reading --template /, read /: is a directory\n"),
    ("create deployment d --image=nginx -o jsonpath-file=/nonexistent",
     "error: error reading --template /nonexistent, open /nonexistent: no such file or directory\n"),
])
def test_a_template_file_that_cannot_be_read_fails_before_anything_is_sent(kubesim, command, err):
    # the printer is made (the file read) in kubectl's Complete, before any request
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(command, stdin=POD)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before
